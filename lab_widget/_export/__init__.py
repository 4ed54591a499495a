"""Conversations written to a file: ``.ipynb``, Markdown, HTML."""
