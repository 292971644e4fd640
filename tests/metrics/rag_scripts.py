"""Scripting helpers for the retrieval/response metric tests (imported by those tests)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ragas_boot.testing import ChatRequest, FakeOpenAIServer, asks_for


def pinned(request: ChatRequest) -> list[str]:
    """The statements a verdict request's schema pins, in order."""
    items = request.json_schema["properties"]["verdicts"]["prefixItems"]
    return [item["properties"]["statement"]["const"] for item in items]


def verdicts(labels: Sequence[Any] | Callable[[str, ChatRequest], Any]) -> Callable[..., Any]:
    """A reply giving the pinned statements ``labels`` in order (or label = f(statement))."""

    def reply(request: ChatRequest) -> dict[str, Any]:
        statements = pinned(request)
        values = (
            [labels(s, request) for s in statements]
            if callable(labels)
            else list(labels)[: len(statements)]
        )
        return {
            "verdicts": [
                {"statement": s, "reason": "because", "verdict": v}
                for s, v in zip(statements, values, strict=False)
            ]
        }

    return reply


def decomposes(
    server: FakeOpenAIServer, field: str, items: Sequence[str], *, model: str | None = None
) -> None:
    """Every decomposition request (answer schema with ``field``) gets ``items``."""
    server.when(asks_for(field), {field: list(items)}, model=model)


def by_step(server: FakeOpenAIServer, model: str) -> list[str]:
    """The answer-schema fields of a judge's requests in order (which step each was)."""
    names = []
    for recorded in server.requests_for(model):
        schema = recorded.request.json_schema or {}
        names.append(",".join(sorted(schema.get("properties", {}))))
    return names
