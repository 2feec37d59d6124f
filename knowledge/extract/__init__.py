"""Extractors: one module per registry kind, each with its tree-sitter query beside it."""
