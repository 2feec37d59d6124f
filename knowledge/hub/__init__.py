"""What a model is, read from its config: where the files come from (hub), the facts, the memory it needs."""
