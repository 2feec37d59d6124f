"""The HTTP edge: the streamable-HTTP transport's process and its bearer-token gate."""
