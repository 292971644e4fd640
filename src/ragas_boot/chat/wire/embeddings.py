"""``POST /v1/embeddings`` on the wire: the request as read, the answer body, the route.

Accepted: ``model`` (a non-empty string), ``input`` (a string or a list of strings; token
arrays are refused), ``dimensions`` (a positive integer) and ``encoding_format`` (``float``,
the default here, or ``base64``: little-endian float32, which the ``openai`` client asks for
when it is not told otherwise).
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from ragas_boot.chat.wire.framing import HttpRequest, Response, WireError
from ragas_boot.chat.wire.openai import error_response, parse_json_body

__all__ = [
    "EmbeddingsAnswerer",
    "EmbeddingsRequest",
    "embeddings_body",
    "embeddings_route",
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


EmbeddingsAnswerer: TypeAlias = Callable[
    [EmbeddingsRequest, HttpRequest], Awaitable[Response | None]
]
"""Answers a checked embeddings request (``None``: close the connection without an answer)."""


def embeddings_route(
    answer: EmbeddingsAnswerer,
) -> Callable[[HttpRequest], Awaitable[Response | None]]:
    """The ``POST /v1/embeddings`` route: parse the body, then ``answer`` it.

    A body that does not parse is answered 400 without reaching ``answer``.
    """

    async def route(http: HttpRequest) -> Response | None:
        try:
            request = parse_embeddings_request(parse_json_body(http.body))
        except WireError as error:
            return error_response(error)
        return await answer(request, http)

    return route
