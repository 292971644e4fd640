"""``generate testset``: RAG samples from documents (single- and multi-hop), each checked
before it is kept: the plan (which chunks), the candidates (prompts, answer model, checks),
the output (samples and the YAML file) and the generator (the loop and the public API)."""

from __future__ import annotations

from ragas_boot.generation.testset.candidates import REJECTION_REASONS, Hops
from ragas_boot.generation.testset.generator import (
    DEFAULT_MULTI_HOP,
    GeneratedTestset,
    agenerate_testset,
    generate_testset,
)

__all__ = [
    "DEFAULT_MULTI_HOP",
    "REJECTION_REASONS",
    "GeneratedTestset",
    "Hops",
    "agenerate_testset",
    "generate_testset",
]
