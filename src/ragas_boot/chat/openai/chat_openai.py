"""The ``langchain`` transport: langchain-openai's ``ChatOpenAI``, one per event loop, on
openai's aiohttp transport (:func:`~ragas_boot.chat.openai.clients.openai_http_client`).

OpenAI-compatible judges on ``transport: langchain`` and the tool agent (which asks its
client for the raw answer) share it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ragas_boot.chat.loops import PerLoop
from ragas_boot.chat.openai.answer_size import answer_size_hook
from ragas_boot.chat.openai.clients import chat_openai_class, idle_sync_client, openai_http_client
from ragas_boot.chat.openai.endpoints import openai_client_target
from ragas_boot.chat.specs import OpenAICompatibleSpec
from ragas_boot.chat.structured import MAX_CACHED_OUTPUT_MODELS, structured_request_keys

if TYPE_CHECKING:
    from langchain_core.language_models import LanguageModelInput
    from langchain_core.messages import BaseMessage
    from langchain_core.runnables import Runnable
    from langchain_openai import ChatOpenAI
    from openai import DefaultAioHttpClient

__all__ = ["LoopBoundChatModel"]


class _LoopClient:
    """A ChatOpenAI and the HTTP client it uses, both bound to one event loop, and the model
    with each output model's request keys bound (built once: ``bind`` makes a pydantic
    object, and the keys hold the schema)."""

    __slots__ = ("bound", "http", "llm")

    def __init__(self, llm: ChatOpenAI, http: DefaultAioHttpClient) -> None:
        self.llm = llm
        self.http = http
        self.bound: dict[type[BaseModel], Runnable[LanguageModelInput, BaseMessage]] = {}

    async def aclose(self) -> None:
        await self.http.aclose()


class LoopBoundChatModel:
    """A ``ChatOpenAI`` for one spec, made per event loop with its own HTTP client.

    An HTTP client bound to one loop must never be used from another (dependency-injector
    issue #576), so each loop gets its own, lazily. ``max_retries=0``: retries belong to the
    caller's policy (``spring.ai.retry``), so they count against rate limits.

    Args:
        spec: the model's settings.
        api_base: the OpenAI client's base URL (see
            :func:`~ragas_boot.chat.openai.endpoints.api_base_url`).
    """

    def __init__(self, *, spec: OpenAICompatibleSpec, api_base: str) -> None:
        self._spec = spec
        self._api_base = api_base
        self._clients = PerLoop(self._make)

    def get(self) -> ChatOpenAI:
        """The running loop's model (made on first use, importing langchain-openai once)."""
        return self._clients.get().llm

    def bound(self, output_model: type[BaseModel]) -> Runnable[LanguageModelInput, BaseMessage]:
        """The running loop's model with the spec's structured-output request keys for
        ``output_model`` bound (see
        :func:`~ragas_boot.chat.structured.structured_request_keys`), made once per loop and
        output model."""
        client = self._clients.get()
        runnable = client.bound.get(output_model)
        if runnable is None:
            spec = self._spec
            keys = structured_request_keys(
                spec.structured_output, output_model, json_object_schema=spec.json_object_schema
            )
            runnable = client.llm.bind(**keys) if keys else client.llm
            if len(client.bound) >= MAX_CACHED_OUTPUT_MODELS:
                client.bound.clear()
            client.bound[output_model] = runnable
        return runnable

    def _make(self) -> _LoopClient:
        # openai's aiohttp transport: some 2 ms less client CPU per call than an httpx client
        # in a 200-call fan-out (benchmarks/README.md), and that CPU bounds its wall time.
        spec = self._spec
        timeout = spec.limits.call_timeout.total_seconds() or None
        http = openai_http_client(
            self._api_base,
            spec.limits,
            spec.tls,
            event_hooks={"response": [answer_size_hook(spec)]},
            proxied=spec.proxied,
        )
        # The query goes as default_query, URL credentials as the Authorization header.
        base_url, query, headers, api_key = openai_client_target(
            self._api_base, spec.api_key, spec.headers
        )
        chat_openai = chat_openai_class()
        options: dict[str, Any] = {}
        if "http_socket_options" in chat_openai.model_fields:
            # Only the async client above is used; without this, langchain-openai gives the
            # sync client it builds a transport of its own and logs a warning whenever a
            # proxy variable is set.
            options["http_socket_options"] = ()
        if spec.seed is not None:
            options["seed"] = spec.seed
        llm = chat_openai(
            model=spec.model,
            base_url=base_url,
            default_query=query or None,
            api_key=api_key,
            temperature=spec.temperature,
            max_tokens=spec.max_tokens,
            top_p=spec.top_p,
            max_retries=0,
            timeout=timeout,
            default_headers=headers or None,
            http_async_client=http,
            http_client=idle_sync_client(),
            **options,
        )
        return _LoopClient(llm, http)

    async def aclose(self) -> None:
        """Close the clients of the current loop (and of loops still running)."""
        await self._clients.aclose(_LoopClient.aclose)
