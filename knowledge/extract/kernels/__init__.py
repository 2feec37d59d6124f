"""Which linear kernel vLLM picks for a scheme on a GPU, replayed from each release's kernel lists and checks."""
