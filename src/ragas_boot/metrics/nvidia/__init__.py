"""NVIDIA-style metrics: one 0/1/2 rating per judge, normalised."""
