"""Vector steps shared by the embedding metrics: long-text handling, averaging, cosine.

The text chunker follows the Java library's ``TextChunker`` (same token estimate, same split
rule, same greedy packing), so a text splits into the same chunks as in Java.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from ragas_boot._enums import CaseInsensitiveEnum

__all__ = [
    "DEFAULT_CHARS_PER_TOKEN",
    "DEFAULT_MAX_TOKENS_PER_CHUNK",
    "LongTextStrategy",
    "average_vectors",
    "cosine_similarity",
    "estimate_tokens",
    "prepare_texts",
    "split_into_chunks",
    "truncate_to_tokens",
]

#: Characters per token of the token estimate (Java's default; 2.5 suits Russian better).
DEFAULT_CHARS_PER_TOKEN = 3.0
#: Token budget of a chunk, or of a truncated text.
DEFAULT_MAX_TOKENS_PER_CHUNK = 512

# Java's split: after . ! or ? followed by (ASCII) whitespace, or at any newline.
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])[ \t\n\x0b\f\r]+|\n")


class LongTextStrategy(CaseInsensitiveEnum):
    """What to do with a text longer than ``max-tokens-per-chunk``."""

    CHUNK = "CHUNK"
    """Split at sentence ends into chunks within the budget; average the chunks' vectors."""
    TRUNCATE = "TRUNCATE"
    """Keep the first ``max-tokens-per-chunk × chars-per-token`` characters."""
    FAIL_FAST = "FAIL_FAST"
    """Send the text as it is (the provider may reject it)."""


def estimate_tokens(text: str | None, chars_per_token: float = DEFAULT_CHARS_PER_TOKEN) -> int:
    """``ceil(len(text) / chars_per_token)``; 0 for an empty text."""
    if not text:
        return 0
    return math.ceil(len(text) / chars_per_token)


def truncate_to_tokens(
    text: str, max_tokens: int, chars_per_token: float = DEFAULT_CHARS_PER_TOKEN
) -> str:
    """``text`` cut to ``ceil(max_tokens × chars_per_token)`` characters when it is longer."""
    if estimate_tokens(text, chars_per_token) <= max_tokens:
        return text
    return text[: math.ceil(max_tokens * chars_per_token)]


def split_into_chunks(
    text: str, max_tokens: int, chars_per_token: float = DEFAULT_CHARS_PER_TOKEN
) -> list[str]:
    """Chunks of ``text`` within ``max_tokens`` each (never an empty list).

    A short text is one chunk, unchanged. A long one is split after sentence ends and at
    newlines; the pieces are packed greedily into chunks joined by single spaces; a piece that
    alone exceeds the budget is cut into ``ceil(max_tokens × chars_per_token)``-character
    slices of its own.
    """
    if not text:
        return [""]
    if estimate_tokens(text, chars_per_token) <= max_tokens:
        return [text]
    max_chars = math.ceil(max_tokens * chars_per_token)
    chunks: list[str] = []
    current = ""
    for piece in _SENTENCE_BREAK.split(text):
        if not piece:
            continue
        if estimate_tokens(piece, chars_per_token) > max_tokens:
            if current:
                chunks.append(current)
                current = ""
            chunks.extend(
                piece[start : start + max_chars] for start in range(0, len(piece), max_chars)
            )
        elif current and estimate_tokens(current + " " + piece, chars_per_token) > max_tokens:
            chunks.append(current)
            current = piece
        else:
            current = f"{current} {piece}" if current else piece
    if current:
        chunks.append(current)
    return chunks or [text[:max_chars]]


def prepare_texts(
    text: str,
    strategy: LongTextStrategy,
    max_tokens: int,
    chars_per_token: float = DEFAULT_CHARS_PER_TOKEN,
) -> list[str]:
    """The text(s) to embed for ``text`` under ``strategy`` (one unless chunked)."""
    if strategy is LongTextStrategy.CHUNK:
        return split_into_chunks(text, max_tokens, chars_per_token)
    if strategy is LongTextStrategy.TRUNCATE:
        return [truncate_to_tokens(text, max_tokens, chars_per_token)]
    return [text]


def average_vectors(vectors: Sequence[Sequence[float]]) -> list[float]:
    """The element-wise mean of equal-sized vectors (one vector is returned as it is).

    Raises:
        ValueError: no vectors, or vectors of different sizes.
    """
    if not vectors:
        raise ValueError("embeddings must not be empty")
    if len(vectors) == 1:
        return list(vectors[0])
    size = len(vectors[0])
    for vector in vectors:
        if len(vector) != size:
            raise ValueError(
                "All embedding vectors must have the same dimension. "
                f"Expected {size} but got {len(vector)}"
            )
    count = len(vectors)
    return [math.fsum(column) / count for column in zip(*vectors, strict=True)]


def cosine_similarity(a: Sequence[float], b: Sequence[float]) -> float:
    """``a·b / (|a| |b|)`` in double precision; 0.0 when either vector is all zeros.

    Raises:
        ValueError: the vectors differ in size.
    """
    if len(a) != len(b):
        raise ValueError(f"vectors differ in size: {len(a)} and {len(b)}")
    norm_a = math.sqrt(math.fsum(x * x for x in a))
    norm_b = math.sqrt(math.fsum(y * y for y in b))
    if norm_a == 0.0 or norm_b == 0.0:
        return 0.0
    value = math.fsum(x * y for x, y in zip(a, b, strict=True)) / (norm_a * norm_b)
    # Rounding can step just outside [-1, 1] for (anti)parallel vectors.
    return max(-1.0, min(1.0, value))
