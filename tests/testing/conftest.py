"""Fixtures of the fake OpenAI server tests: the server itself and clients pointed at it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import openai
import pytest
import pytest_asyncio
from langchain_openai import ChatOpenAI

from ragas_boot.testing import FakeOpenAIServer
from ragas_boot.testing.fixtures import openai_server

__all__ = ["achat_openai", "async_client", "chat_openai", "client", "openai_server"]

ChatFactory = Callable[..., ChatOpenAI]


@pytest.fixture
def client(openai_server: FakeOpenAIServer) -> Iterator[openai.OpenAI]:
    """A sync OpenAI client of the server, without retries."""
    with openai.OpenAI(
        base_url=openai_server.url, api_key="test", max_retries=0, timeout=10
    ) as sync_client:
        yield sync_client


@pytest_asyncio.fixture
async def async_client(openai_server: FakeOpenAIServer) -> AsyncIterator[openai.AsyncOpenAI]:
    """An async OpenAI client of the server, without retries, closed on the test's loop."""
    async with openai.AsyncOpenAI(
        base_url=openai_server.url, api_key="test", max_retries=0, timeout=10
    ) as async_openai:
        yield async_openai


def _chat_model(server: FakeOpenAIServer, model: str, **kwargs: Any) -> ChatOpenAI:
    return ChatOpenAI(
        base_url=server.url, api_key="test", model=model, max_retries=0, timeout=10, **kwargs
    )


@pytest.fixture
def chat_openai(openai_server: FakeOpenAIServer) -> Iterator[ChatFactory]:
    """Makes ChatOpenAI models of the server (sync use) whose HTTP clients are closed after."""
    http_clients: list[Any] = []

    def make(model: str = "judge", **kwargs: Any) -> ChatOpenAI:
        http_clients.append(openai.DefaultHttpxClient())
        return _chat_model(openai_server, model, http_client=http_clients[-1], **kwargs)

    yield make
    for http_client in http_clients:
        http_client.close()


@pytest_asyncio.fixture
async def achat_openai(openai_server: FakeOpenAIServer) -> AsyncIterator[ChatFactory]:
    """Makes ChatOpenAI models of the server (async use) whose HTTP clients are closed after."""
    http_clients: list[Any] = []

    def make(model: str = "judge", **kwargs: Any) -> ChatOpenAI:
        http_clients.append(openai.DefaultAsyncHttpxClient())
        return _chat_model(openai_server, model, http_async_client=http_clients[-1], **kwargs)

    yield make
    for http_client in http_clients:
        await http_client.aclose()
