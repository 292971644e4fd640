"""Response metrics: the answer against the reference or the contexts."""
