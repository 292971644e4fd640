"""Retrieval metrics: the retrieved contexts, and the answer against them."""
