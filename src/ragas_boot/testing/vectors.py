"""The fake server's embedding vectors: deterministic hashed ones unless a test sets its own."""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Final, TypeAlias

from ragas_boot.chat.wire.embeddings import EmbeddingsRequest
from ragas_boot.testing.replies import Reply

__all__ = [
    "DEFAULT_EMBEDDING_DIMENSIONS",
    "EmbeddingReply",
    "VectorSource",
    "hashed_vector",
    "request_vectors",
]

DEFAULT_EMBEDDING_DIMENSIONS: Final = 64
"""Size of the default vectors of an embedding request that asks for no ``dimensions``."""

_WORD = re.compile(r"\w+", re.UNICODE)

VectorSource: TypeAlias = Mapping[str, Sequence[float]] | Callable[[str], Sequence[float]]
"""Vectors of an embedding model: by text (other texts get :func:`hashed_vector`), or a function."""
EmbeddingReply: TypeAlias = Reply | Sequence[Sequence[float]]
"""A scripted embedding answer: a fault :class:`Reply` or the vectors to send as they are."""


def hashed_vector(text: str, dimensions: int = DEFAULT_EMBEDDING_DIMENSIONS) -> list[float]:
    """A deterministic bag-of-words vector of ``text``, ``dimensions`` long.

    Each lower-cased word adds +1 or -1 (chosen by its CRC-32) at ``crc32 % dimensions``. Equal
    texts get equal vectors; texts sharing words have a higher cosine than texts sharing none;
    a text without words gets the first unit vector.
    """
    vector = [0.0] * dimensions
    words = _WORD.findall(text.lower())
    if not words:
        vector[0] = 1.0
        return vector
    for word in words:
        code = zlib.crc32(word.encode("utf-8"))
        vector[code % dimensions] += 1.0 if (code >> 16) & 1 else -1.0
    if not any(vector):
        vector[0] = 1.0  # every word cancelled out
    return vector


def request_vectors(request: EmbeddingsRequest, source: VectorSource | None) -> list[list[float]]:
    """One vector per input of ``request``: from ``source`` (a text missing from a mapping
    gets :func:`hashed_vector`), else hashed, ``dimensions`` long (the request's, else
    :data:`DEFAULT_EMBEDDING_DIMENSIONS`)."""
    dimensions = request.dimensions or DEFAULT_EMBEDDING_DIMENSIONS
    vectors = []
    for text in request.inputs:
        if callable(source):
            vectors.append(list(source(text)))
        elif source is not None and text in source:
            vectors.append(list(source[text]))
        else:
            vectors.append(hashed_vector(text, dimensions))
    return vectors
