"""The source index behind grep, read and find_symbol.

Files in memory, a trigram prefilter, ripgrep's line semantics.
"""
