"""The support matrix as a page: the model (model.py), rendered as HTML (html.py) and as Markdown (markdown.py)."""
