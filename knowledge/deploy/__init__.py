"""Reading what users hand us: `vllm serve` command lines and deployment files (scripts, manifests, compose)."""
