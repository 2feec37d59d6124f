"""`vllm serve` flags: the argparse walk from `make_arg_parser` through each config's `add_cli_args`."""
