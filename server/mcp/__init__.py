"""The MCP edge: the server, its tools, resources, prompts and completions, generated from the tools' specs."""
