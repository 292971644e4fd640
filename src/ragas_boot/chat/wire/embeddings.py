"""``POST /v1/embeddings`` bodies: the request as read and checked, the answer body.

Accepted: ``model`` (a non-empty string), ``input`` (a string or a list of strings; token
arrays are refused), ``dimensions`` (a positive integer) and ``encoding_format`` (``float``,
the default here, or ``base64``: little-endian float32, which the ``openai`` client asks for
when it is not told otherwise).
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from ragas_boot.chat.wire.openai import WireError

__all__ = [
    "EmbeddingsRequest",
    "embeddings_body",
    "parse_embeddings_request",
]

EncodingFormat: TypeAlias = Literal["float", "base64"]


@dataclass(frozen=True, slots=True)
class EmbeddingsRequest:
    """One embeddings request as read from the wire.

    Attributes:
        model: the ``model`` field.
        inputs: the texts, in order (a single string becomes a list of one).
        dimensions: the ``dimensions`` option, if given.
        encoding_format: ``float`` or ``base64``.
        body: the whole JSON body.
    """

    model: str
    inputs: tuple[str, ...]
    dimensions: int | None
    encoding_format: EncodingFormat
    body: Mapping[str, Any] = field(repr=False)


def parse_embeddings_request(body: Any) -> EmbeddingsRequest:
    """Read a ``POST /v1/embeddings`` body.

    Raises:
        WireError: 400, naming the field at fault in ``param``.
    """
    if not isinstance(body, dict):
        raise WireError(400, "The request body must be a JSON object.")
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise WireError(400, "You must provide a model parameter.", param="model")
    raw = body.get("input")
    if isinstance(raw, str):
        inputs: tuple[str, ...] = (raw,)
    elif isinstance(raw, list) and raw and all(isinstance(item, str) for item in raw):
        inputs = tuple(raw)
    else:
        raise WireError(
            400,
            "'input' must be a non-empty string or a non-empty array of strings.",
            param="input",
        )
    dimensions = body.get("dimensions")
    if dimensions is not None and (
        isinstance(dimensions, bool) or not isinstance(dimensions, int) or dimensions < 1
    ):
        raise WireError(400, "'dimensions' must be a positive integer.", param="dimensions")
    encoding = body.get("encoding_format", "float")
    if encoding not in ("float", "base64"):
        raise WireError(
            400, "'encoding_format' must be 'float' or 'base64'.", param="encoding_format"
        )
    return EmbeddingsRequest(
        model=model,
        inputs=inputs,
        dimensions=dimensions,
        encoding_format=encoding,
        body=body,
    )


def embeddings_body(
    *,
    model: str,
    vectors: Sequence[Sequence[float]],
    encoding_format: EncodingFormat = "float",
    prompt_tokens: int = 0,
) -> dict[str, Any]:
    """The ``POST /v1/embeddings`` answer: one ``embedding`` object per vector, in order."""

    def encode(vector: Sequence[float]) -> list[float] | str:
        if encoding_format == "base64":
            packed = struct.pack(f"<{len(vector)}f", *vector)
            return base64.b64encode(packed).decode("ascii")
        return [float(value) for value in vector]

    return {
        "object": "list",
        "data": [
            {"object": "embedding", "index": index, "embedding": encode(vector)}
            for index, vector in enumerate(vectors)
        ],
        "model": model,
        "usage": {"prompt_tokens": prompt_tokens, "total_tokens": prompt_tokens},
    }
