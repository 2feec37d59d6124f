"""Where a vLLM tree at a tag comes from: git, the package index (sdist or wheel), or a directory."""
