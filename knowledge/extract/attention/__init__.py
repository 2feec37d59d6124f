"""The support matrix: the attention backend vLLM selects per KV dtype, GPU and model shape, and what its
constructors refuse.
"""
