"""Containers with judges and embedding models on the test server."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ragas_boot import RagasContainer, RagasSettings, create_container, load_settings
from ragas_boot.testing import FakeOpenAIServer

SECRET_KEY = "sk-test-EMBED-DO-NOT-LEAK-81c3"

FAST_RETRY = """\
spring.ai.retry:
  max-attempts: 3
  backoff: {initial-interval: 10ms, multiplier: 2, max-interval: 40ms}
"""


def provider_yaml(
    base_url: str, name: str, chat: list[str], embeddings: list[str], extra: str = ""
) -> str:
    """One openai-compatible provider entry (list item) at ``base_url``."""
    lines = [
        f"    - name: {name}",
        f"      base-url: {base_url}",
        "      api-key: ${EMBED_KEY}",
        f"      chat-models: [{', '.join('{ id: ' + m + ' }' for m in chat)}]",
        f"      embedding-models: [{', '.join('{ id: ' + m + ' }' for m in embeddings)}]",
    ]
    lines += ["      " + line for line in textwrap.dedent(extra).splitlines() if line.strip()]
    return "\n".join(lines)


@pytest.fixture
def embed_secret() -> str:
    """The API key of the settings these fixtures make (never to be seen in output)."""
    return SECRET_KEY


@pytest.fixture
def make_embedding_settings(
    tmp_path: Path, openai_server: FakeOpenAIServer
) -> Callable[..., RagasSettings]:
    """``make(chat=..., embeddings=..., extra=..., provider_extra=...)``: settings on the server."""

    def make(
        *,
        chat: list[str] | tuple[str, ...] = ("judge-a", "judge-b"),
        embeddings: list[str] | tuple[str, ...] = ("emb-a", "emb-b"),
        extra: str = "",
        provider_extra: str = "",
    ) -> RagasSettings:
        text = (
            FAST_RETRY
            + "spring.ai.ragas.providers:\n  openai-compatible:\n"
            + provider_yaml(
                openai_server.base_url, "p", list(chat), list(embeddings), provider_extra
            )
            + "\n"
            + textwrap.dedent(extra)
        )
        path = tmp_path / "application.yaml"
        path.write_text(text, encoding="utf-8")
        return load_settings(path, environ={"EMBED_KEY": SECRET_KEY})

    return make


@pytest.fixture
def make_embedding_container(
    make_embedding_settings: Callable[..., RagasSettings],
) -> Iterator[Callable[..., RagasContainer]]:
    """Containers on the test server, closed after the test."""
    made: list[RagasContainer] = []

    def make(**kwargs: object) -> RagasContainer:
        container = create_container(make_embedding_settings(**kwargs))
        made.append(container)
        return container

    yield make
    for container in made:
        container.close()
