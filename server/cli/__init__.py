"""The CLI edge: `vllm-quant-mcp <command>`, each tool subcommand generated from the tool's spec."""
