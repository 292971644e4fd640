"""The pytest fixture of the fake OpenAI server.

Import it into a ``conftest.py`` to use it::

    from ragas_boot.testing.fixtures import openai_server

    __all__ = ["openai_server"]

    def test_judge(openai_server):
        openai_server.script("judge-a", {"verdict": 1})
        ...  # base-url: openai_server.base_url
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ragas_boot.testing.server import FakeOpenAIServer

__all__ = ["openai_server"]


@pytest.fixture
def openai_server() -> Iterator[FakeOpenAIServer]:
    """A fresh :class:`FakeOpenAIServer` for each test, stopped after it."""
    with FakeOpenAIServer() as server:
        yield server
