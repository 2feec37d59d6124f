"""Judgements of what runs where: a format or KV dtype on a GPU at a tag, each with its basis and evidence."""
