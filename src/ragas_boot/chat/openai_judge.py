"""A judge on any OpenAI-compatible chat-completions endpoint.

Two transports send its calls (``spec.transport``): ``direct``, an aiohttp session with
pre-serialised requests (:mod:`ragas_boot.chat.direct`, the default: about a third of the client
CPU per call), and ``langchain``, langchain-openai's ``ChatOpenAI`` on openai's aiohttp
transport. Both ask for JSON the same way, read the same answers, take the same proxies, TLS
context and redirect rule, and raise the same judge errors
(:mod:`ragas_boot.chat.openai_calls`).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

from pydantic import BaseModel

from ragas_boot.chat.direct import DirectChat
from ragas_boot.chat.judge import JudgeAnswer, JudgeSpec
from ragas_boot.chat.openai_calls import (
    MAX_CACHED_OUTPUT_MODELS,
    PerLoop,
    answer_size_hook,
    await_translated,
    call_failure,
    checked_answer,
    idle_sync_client,
    openai_client_target,
    openai_http_client,
    scrub_secret,
    structured_request_keys,
    usage_of,
)
from ragas_boot.chat.structured import prompt_text
from ragas_boot.config.settings import StructuredOutputMode, Transport
from ragas_boot.config.urls import append_path, mask_url

if TYPE_CHECKING:
    from langchain_core.language_models import LanguageModelInput
    from langchain_core.messages import BaseMessage
    from langchain_core.runnables import Runnable
    from langchain_openai import ChatOpenAI
    from openai import DefaultAioHttpClient

__all__ = ["LoopBoundChatModel", "OpenAICompatibleJudge", "api_base_url"]

log = logging.getLogger(__name__)

OutputT = TypeVar("OutputT", bound=BaseModel)

_CHAT_SUFFIX = "/chat/completions"
_logged_v1_bases: set[str] = set()


def api_base_url(
    base_url: str,
    completions_path: str,
    *,
    suffix: str = _CHAT_SUFFIX,
    key: str = "completions-path",
) -> str:
    """The base URL to give the OpenAI client so that it posts to ``base_url + completions_path``.

    Spring AI's ``base-url`` has no ``/v1`` (``https://openrouter.ai/api``); the OpenAI client
    appends ``/chat/completions`` (``suffix``; ``/embeddings`` for embedding calls) to its own
    base, so the ``/v1`` moves over from the path. A ``base-url`` that already ends in ``/v1``
    is taken as it is. A query string (Azure's ``?api-version=``, a gateway's ``?key=``) stays
    at the end of the result: join paths to it with :func:`~ragas_boot.config.urls.append_path`.

    Raises:
        ValueError: ``completions_path`` does not end in ``suffix`` (the message names ``key``).
    """
    if not completions_path.endswith(suffix):
        raise ValueError(f"{key} must end with {suffix}, got '{completions_path}'")
    prefix = completions_path[: -len(suffix)]
    base = append_path(base_url, "")  # without a trailing slash, the query kept
    if prefix and urlsplit(base).path.endswith(prefix):
        if base not in _logged_v1_bases:
            _logged_v1_bases.add(base)
            log.info("base-url %s already ends with %s; using it as is", mask_url(base), prefix)
        return base
    return append_path(base_url, prefix)


def _tool_call_arguments(message: BaseMessage) -> str | None:
    raw_calls = message.additional_kwargs.get("tool_calls") or []
    for call in raw_calls:
        function = call.get("function") or {}
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            return arguments
    tool_calls = getattr(message, "tool_calls", None) or []
    if tool_calls:
        return json.dumps(tool_calls[0].get("args", {}), ensure_ascii=False)
    return None


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
    caller's policy (``spring.ai.retry``), so they count against rate limits. Judges and the
    tool-suite agent share this.

    Args:
        spec: the model's settings.
        api_base: the OpenAI client's base URL (see :func:`api_base_url`).
    """

    def __init__(self, *, spec: JudgeSpec, api_base: str) -> None:
        self._spec = spec
        self._api_base = api_base
        self._clients = PerLoop(self._make)

    def get(self) -> ChatOpenAI:
        """The running loop's model (made on first use, importing langchain-openai once)."""
        return self._clients.get().llm

    def bound(self, output_model: type[BaseModel]) -> Runnable[LanguageModelInput, BaseMessage]:
        """The running loop's model with the spec's structured-output request keys for
        ``output_model`` bound (see :func:`~ragas_boot.chat.openai_calls.structured_request_keys`),
        made once per loop and output model."""
        client = self._clients.get()
        runnable = client.bound.get(output_model)
        if runnable is None:
            keys = structured_request_keys(self._spec, output_model)
            runnable = client.llm.bind(**keys) if keys else client.llm
            if len(client.bound) >= MAX_CACHED_OUTPUT_MODELS:
                client.bound.clear()
            client.bound[output_model] = runnable
        return runnable

    def _make(self) -> _LoopClient:
        # openai's aiohttp transport: some 2 ms less client CPU per call than an httpx client
        # in a 200-call fan-out (benchmarks/README.md), and that CPU bounds its wall time.
        from ragas_boot.chat._langchain import chat_openai_class

        spec = self._spec
        timeout = spec.limits.call_timeout.total_seconds() or None
        http = openai_http_client(
            self._api_base,
            spec.limits,
            spec.tls,
            event_hooks={"response": [answer_size_hook(spec)]},
            # The embedded local judge's server is ours, on loopback: never through a proxy.
            proxied=spec.local is None,
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


class OpenAICompatibleJudge:
    """One chat model of one OpenAI-compatible provider, used as a judge.

    The HTTP client is made per event loop (an HTTP client bound to one loop must never be
    used from another), lazily on the first call in that loop. ``max_retries=0``: retries are
    the executor's job, so that they follow ``spring.ai.retry`` and count against rate limits.

    Args:
        spec: the judge's settings.
    """

    def __init__(self, *, spec: JudgeSpec) -> None:
        if spec.structured_output not in self.output_modes:
            raise ValueError(
                f"judge '{spec.id}': structured output '{spec.structured_output.value}' needs a "
                "LangChain chat class; an OpenAI-compatible judge takes "
                + ", ".join(mode.value for mode in self.output_modes)
            )
        self._spec = spec
        self._api_base = api_base_url(spec.base_url, spec.completions_path)
        self._models = LoopBoundChatModel(spec=spec, api_base=self._api_base)
        self._direct: DirectChat | None = None
        if spec.transport is Transport.DIRECT:
            self._direct = DirectChat(spec=spec, api_base=self._api_base)

    def __repr__(self) -> str:
        return (
            f"OpenAICompatibleJudge(id={self.id!r}, provider={self.provider!r}, "
            f"model={self._spec.model!r}, url={mask_url(self._api_base)!r})"
        )

    @property
    def id(self) -> str:
        """Judge id."""
        return self._spec.id

    @property
    def provider(self) -> str:
        """Provider name."""
        return self._spec.provider

    @property
    def spec(self) -> JudgeSpec:
        """The judge's settings."""
        return self._spec

    @property
    def endpoint(self) -> str:
        """The URL chat completions are posted to (credentials in it masked)."""
        return mask_url(append_path(self._api_base, _CHAT_SUFFIX))

    def prepare(self) -> None:
        """Create this loop's HTTP client now (importing langchain-openai on first use of the
        ``langchain`` transport)."""
        if self._direct is not None:
            self._direct.session()
        else:
            self._models.get()

    #: The modes ``config check --ping`` tries on this judge.
    output_modes: tuple[StructuredOutputMode, ...] = (
        StructuredOutputMode.PROMPT,
        StructuredOutputMode.JSON_OBJECT,
        StructuredOutputMode.JSON_SCHEMA,
        StructuredOutputMode.FUNCTION_CALLING,
    )

    def with_output_mode(self, mode: StructuredOutputMode) -> OpenAICompatibleJudge:
        """The same judge asking for JSON another way (its own HTTP clients: close it)."""
        return OpenAICompatibleJudge(spec=dataclasses.replace(self._spec, structured_output=mode))

    def with_spec(self, spec: JudgeSpec) -> OpenAICompatibleJudge:
        """This judge on ``spec``, a copy of its own with other sampling options (a model
        role's temperature, seed and max tokens); its own HTTP clients: close it."""
        return OpenAICompatibleJudge(spec=spec)

    async def ainvoke_structured(
        self, prompt: str, output_model: type[OutputT]
    ) -> JudgeAnswer[OutputT]:
        """Send one prompt as a single user message; return the validated answer.

        Raises:
            JudgeHTTPError: the server answered with an error status (``retry_after`` set
                from a Retry-After header).
            JudgeTimeoutError: no answer within the call timeout.
            JudgeConnectionError: the server could not be reached or dropped the connection.
            JudgeOutputError: empty, unparseable or schema-invalid answer (raw text kept).
        """
        text = prompt_text(prompt, output_model, self._spec.structured_output)
        raw: str | None
        if self._direct is not None:
            started = time.perf_counter()
            reply = await self._direct.complete(text, output_model)
            latency = time.perf_counter() - started
            raw, usage = reply.raw, reply.usage
        else:
            runnable = self._models.bound(output_model)
            started = time.perf_counter()
            message = await self._send(runnable, text)
            latency = time.perf_counter() - started
            usage = usage_of(message)
            if self._spec.structured_output is StructuredOutputMode.FUNCTION_CALLING:
                raw = _tool_call_arguments(message)
                if raw is None:
                    raw = message.content if isinstance(message.content, str) else None
            else:
                raw = message.content if isinstance(message.content, str) else None
                if raw is None and message.content:
                    raw = json.dumps(message.content, ensure_ascii=False)
        if raw is not None:
            # A provider may echo the key back (an error page, a confused model); what a judge
            # answered is kept in results and quoted in errors and logs, so it goes in scrubbed.
            raw = self._scrub(raw)
        return checked_answer(
            raw,
            output_model,
            judge_id=self.id,
            max_chars=self._spec.max_answer_chars,
            usage=usage,
            latency_s=latency,
        )

    async def _send(self, runnable: Runnable[LanguageModelInput, BaseMessage], text: str) -> Any:
        from langchain_core.messages import HumanMessage

        return await await_translated(
            runnable.ainvoke([HumanMessage(content=text)]),
            lambda error: call_failure(error, spec=self._spec),
        )

    def _scrub(self, text: str) -> str:
        return scrub_secret(text, self._spec)

    async def aclose(self) -> None:
        """Close the HTTP clients made in the current loop (and those of loops still running)."""
        if self._direct is not None:
            await self._direct.aclose()
        await self._models.aclose()
