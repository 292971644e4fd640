"""A judge on any OpenAI-compatible chat-completions endpoint.

Two transports send its calls (``spec.transport``): ``direct``, ragas-boot's own lean HTTP/1.1
client (:mod:`ragas_boot.chat.direct`, the default: about a third of the client CPU per call),
and ``langchain``, langchain-openai's ``ChatOpenAI`` on openai's aiohttp transport. Both ask
for JSON the same way, read the same answers and raise the same judge errors.
"""

from __future__ import annotations

import asyncio
import dataclasses
import email.utils
import functools
import json
import logging
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar
from urllib.parse import urlsplit

from pydantic import BaseModel, SecretStr

from ragas_boot.chat.judge import JudgeAnswer, JudgeSpec, ProviderLimits, TokenUsage
from ragas_boot.chat.structured import (
    format_instructions,
    output_schema,
    parse_structured,
    schema_name,
)
from ragas_boot.config.settings import StructuredOutputMode, Transport
from ragas_boot.config.urls import URL_MASK, append_path, mask_url, split_query, url_secrets
from ragas_boot.errors import (
    JudgeConnectionError,
    JudgeError,
    JudgeHTTPError,
    JudgeOutputError,
    JudgeTimeoutError,
)

if TYPE_CHECKING:
    from langchain_core.language_models import LanguageModelInput
    from langchain_core.messages import BaseMessage
    from langchain_core.runnables import Runnable
    from langchain_openai import ChatOpenAI
    from openai import DefaultAioHttpClient

    from ragas_boot.chat.direct import DirectChat

__all__ = [
    "LoopBoundChatModel",
    "OpenAICompatibleJudge",
    "answer_size_hook",
    "api_base_url",
    "body_usage",
    "call_failure",
    "close_loop_clients",
    "connection_limits",
    "cut_answer",
    "mask_client_logs",
    "scrub_secret",
    "translate_error",
    "usage_of",
]

log = logging.getLogger(__name__)

OutputT = TypeVar("OutputT", bound=BaseModel)

_CHAT_SUFFIX = "/chat/completions"
#: Modes whose prompt carries the JSON schema.
_SCHEMA_IN_PROMPT = frozenset({StructuredOutputMode.PROMPT, StructuredOutputMode.JSON_OBJECT})
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


def _retry_after_seconds(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, parsed.timestamp() - time.time())


def usage_of(message: BaseMessage) -> TokenUsage:
    """The token usage langchain-openai reports on a message (zeros when it reports none)."""
    metadata = getattr(message, "usage_metadata", None)
    if not metadata:
        return TokenUsage()
    details = metadata.get("input_token_details") or {}
    return TokenUsage(
        input_tokens=int(metadata.get("input_tokens", 0) or 0),
        output_tokens=int(metadata.get("output_tokens", 0) or 0),
        total_tokens=int(metadata.get("total_tokens", 0) or 0),
        cached_input_tokens=int(details.get("cache_read", 0) or 0),
    )


def body_usage(body: object) -> TokenUsage | None:
    """The ``usage`` block of an OpenAI response body (an error body may carry one too), or
    ``None`` when it has none that reads as token counts."""
    usage = body.get("usage") if isinstance(body, dict) else None
    if not isinstance(usage, dict):
        return None

    def count(value: object) -> int:
        return value if isinstance(value, int) and value >= 0 else 0

    details = usage.get("prompt_tokens_details")
    prompt = count(usage.get("prompt_tokens"))
    completion = count(usage.get("completion_tokens"))
    return TokenUsage(
        input_tokens=prompt,
        output_tokens=completion,
        total_tokens=count(usage.get("total_tokens")) or prompt + completion,
        cached_input_tokens=count(details.get("cached_tokens")) if isinstance(details, dict) else 0,
    )


def _response_usage(response: Any) -> TokenUsage | None:
    try:
        return body_usage(response.json())
    except Exception:  # an unreadable body bills nothing we can count
        return None


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


def cut_answer(text: str, limit: int, total: str) -> str:
    """``text`` cut to ``limit`` characters, marked as cut (and how much there was)."""
    return text[:limit] + f" … [cut by ragas-boot at max-answer-chars {limit:,}; {total} in all]"


def answer_size_hook(spec: JudgeSpec) -> Callable[[Any], Awaitable[None]]:
    """An httpx response hook that stops reading a body longer than the spec allows.

    A chat-completion body holds the answer as a JSON string (each character up to 6 bytes
    escaped) in a small envelope, so reading stops at ``6 × max-answer-chars + 64 KiB``
    bytes: a server ignoring ``max_tokens`` cannot make the client read or keep megabytes.

    Raises (from the response's body, while it is read):
        JudgeOutputError: the body is larger; ``raw_text`` holds its start, marked as cut.
    """
    import httpx2

    chars = spec.max_answer_chars
    limit = chars * 6 + 64 * 1024

    def too_large(head: bytes, total: str) -> JudgeOutputError:
        return JudgeOutputError(
            f"the answer is larger than {limit:,} bytes (max-answer-chars {chars:,}); "
            "reading stopped",
            judge_id=spec.id,
            raw_text=cut_answer(head.decode("utf-8", "replace"), chars, total),
        )

    class BoundedStream(httpx2.AsyncByteStream):
        def __init__(self, inner: httpx2.AsyncByteStream) -> None:
            self._inner = inner

        async def __aiter__(self) -> AsyncIterator[bytes]:
            seen = 0
            head = bytearray()
            async for chunk in self._inner:
                seen += len(chunk)
                if len(head) < chars:
                    head += chunk[: chars - len(head)]
                if seen > limit:
                    await self._inner.aclose()
                    raise too_large(bytes(head), f"more than {limit:,} bytes")
                yield chunk

        async def aclose(self) -> None:
            await self._inner.aclose()

    async def hook(response: Any) -> None:
        # Read up to the bound whatever Content-Length says: the start is kept for the report.
        response.stream = BoundedStream(response.stream)

    return hook


class _MaskUrlCredentials(logging.Filter):
    """httpx logs every request's full URL at INFO: a ``?key=`` of a base-url is masked there."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and record.args:
            record.args = tuple(
                mask_url(str(arg)) if type(arg).__name__ == "URL" else arg for arg in record.args
            )
        return True


@functools.cache
def mask_client_logs() -> None:
    """Mask URL credentials in the request lines the openai client's httpx logs (once)."""
    for name in ("httpx", "httpx2"):
        logging.getLogger(name).addFilter(_MaskUrlCredentials())


def connection_limits(max_concurrency: int) -> Any:
    from openai import DEFAULT_CONNECTION_LIMITS

    # The Limits class of whichever httpx flavour this openai version is built on.
    limits_class = type(DEFAULT_CONNECTION_LIMITS)
    connections = max_concurrency + 8
    return limits_class(max_connections=connections, max_keepalive_connections=connections)


def _root_cause(error: BaseException) -> BaseException:
    seen = {id(error)}
    while True:
        cause = error.__cause__ or error.__context__
        if cause is None or id(cause) in seen:
            return error
        seen.add(id(cause))
        error = cause


def _timed_out(error: BaseException) -> bool:
    """Whether an ``APITimeoutError`` really is a timeout.

    openai's aiohttp transport reports a refused or dropped connection as a connect timeout;
    the exception it came from tells them apart (aiohttp's timeouts subclass ``TimeoutError``).
    """
    root = _root_cause(error)
    if isinstance(root, TimeoutError):
        return True
    return (
        not isinstance(root, OSError | ConnectionError) and "aiohttp" not in type(root).__module__
    )


class _CallSpec(Protocol):
    """What error translation reads of a judge's or an embedding model's spec."""

    @property
    def id(self) -> str: ...

    @property
    def api_key(self) -> SecretStr: ...

    @property
    def limits(self) -> ProviderLimits: ...

    @property
    def base_url(self) -> str: ...


def scrub_secret(text: str, spec: _CallSpec) -> str:
    """``text`` with the spec's API key, its custom header values and the credentials in its
    base URL masked (providers sometimes echo them back: a key, a header, a URL with its
    ``?key=``)."""
    secret = spec.api_key.get_secret_value()
    if secret and len(secret) >= 4:
        text = text.replace(secret, "**********")
    headers: dict[str, SecretStr | str] = getattr(spec, "headers", None) or {}
    for value in headers.values():
        header = value.get_secret_value() if isinstance(value, SecretStr) else str(value)
        if len(header) >= 4:
            text = text.replace(header, "**********")
    for credential in url_secrets(spec.base_url):
        if len(credential) >= 4:
            text = text.replace(credential, URL_MASK)
    return text


def translate_error(error: BaseException, *, spec: _CallSpec) -> BaseException:
    """An OpenAI-client error as the judge error the retry policy understands.

    Errors that are not the client's (a bug, a malformed body) are returned unchanged; so are
    judge errors. Messages are scrubbed of the API key.
    """
    import openai

    if isinstance(error, JudgeError):
        return error
    if isinstance(error, openai.APITimeoutError):
        if not _timed_out(error):
            return JudgeConnectionError(
                scrub_secret(f"connection failed: {_root_cause(error)}", spec), judge_id=spec.id
            )
        return JudgeTimeoutError(
            f"no answer within {spec.limits.call_timeout.total_seconds():g}s", judge_id=spec.id
        )
    if isinstance(error, openai.APIConnectionError):
        return JudgeConnectionError(
            scrub_secret(f"connection failed: {error}", spec), judge_id=spec.id
        )
    if isinstance(error, openai.APIStatusError):
        translated = JudgeHTTPError(
            scrub_secret(f"HTTP {error.status_code}: {error.message}", spec),
            judge_id=spec.id,
            status_code=error.status_code,
            retry_after=_retry_after_seconds(error.response.headers.get("retry-after")),
        )
        # Some providers bill a failed completion and say so in the error body.
        translated.usage = _response_usage(error.response)
        return translated
    return error


def call_failure(error: Exception, *, spec: _CallSpec) -> BaseException:
    """What a failed client call raises: the judge error it stands for (see
    :func:`translate_error`); an answer the client could not read (a 200 that is not a chat
    completion or an embedding list) is the model's :class:`JudgeOutputError`, not a bug of
    the caller. Judge errors come back unchanged."""
    translated = translate_error(error, spec=spec)
    if translated is error and not isinstance(error, JudgeError):
        return JudgeOutputError(
            scrub_secret(f"malformed response from server ({type(error).__name__}: {error})", spec),
            judge_id=spec.id,
            raw_text=None,
        )
    return translated


class _LoopClient:
    """A ChatOpenAI and the HTTP client it uses, both bound to one event loop."""

    __slots__ = ("http", "llm")

    def __init__(self, llm: ChatOpenAI, http: DefaultAioHttpClient) -> None:
        self.llm = llm
        self.http = http


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
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopClient] = (
            weakref.WeakKeyDictionary()
        )

    def get(self) -> ChatOpenAI:
        """The running loop's model (made on first use, importing langchain-openai once)."""
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = self._make()
            self._clients[loop] = client
        return client.llm

    def _make(self) -> _LoopClient:
        # openai's aiohttp transport: some 2 ms less client CPU per call than an httpx client
        # in a 200-call fan-out (benchmarks/README.md), and that CPU bounds its wall time.
        from openai import DefaultAioHttpClient

        from ragas_boot.chat._langchain import chat_openai_class

        spec = self._spec
        timeout = spec.limits.call_timeout.total_seconds() or None
        mask_client_logs()
        http = DefaultAioHttpClient(
            timeout=timeout,
            limits=connection_limits(spec.limits.max_concurrency),
            event_hooks={"response": [answer_size_hook(spec)]},
        )
        # The openai client appends its paths to base_url's raw path, query and all, so the
        # query goes apart as default_query (sent with every request).
        base_url, query = split_query(self._api_base)
        llm = chat_openai_class()(
            model=spec.model,
            base_url=base_url,
            default_query=query or None,
            api_key=spec.api_key,
            temperature=spec.temperature,
            max_tokens=spec.max_tokens,
            top_p=spec.top_p,
            max_retries=0,
            timeout=timeout,
            default_headers={
                name: value.get_secret_value() if isinstance(value, SecretStr) else str(value)
                for name, value in spec.headers.items()
            }
            or None,
            http_async_client=http,
        )
        return _LoopClient(llm, http)

    async def aclose(self) -> None:
        """Close the clients of the current loop (and of loops still running)."""
        clients = [(loop, client.http) for loop, client in self._clients.items()]
        self._clients.clear()
        await close_loop_clients(clients)


async def close_loop_clients(clients: list[tuple[asyncio.AbstractEventLoop, Any]]) -> None:
    """Close HTTP clients each bound to its loop: on the current loop, or on its own if running."""
    current = asyncio.get_running_loop()
    for loop, http in clients:
        if loop is current:
            await http.aclose()
        elif loop.is_running() and not loop.is_closed():
            future = asyncio.run_coroutine_threadsafe(http.aclose(), loop)
            await asyncio.wrap_future(future)
        # A client whose loop is already closed cannot be closed any more; its sockets went
        # with that loop.


def structured_request_keys(spec: JudgeSpec, output_model: type[BaseModel]) -> dict[str, Any]:
    """The chat-request keys of the spec's structured-output mode (``response_format``, or
    ``tools`` and ``tool_choice``); none for ``prompt`` mode. Both transports send these."""
    mode = spec.structured_output
    if mode is StructuredOutputMode.JSON_OBJECT:
        response_format: dict[str, Any] = {"type": "json_object"}
        if spec.json_object_schema:
            # llama-cpp-python's server and vLLM constrain decoding to it; the schema is in
            # the prompt as well for servers that only take the type.
            response_format["schema"] = output_schema(output_model)
        return {"response_format": response_format}
    if mode is StructuredOutputMode.JSON_SCHEMA:
        json_schema = {
            "name": schema_name(output_model),
            "schema": output_schema(output_model),
            "strict": False,
        }
        return {"response_format": {"type": "json_schema", "json_schema": json_schema}}
    if mode is StructuredOutputMode.FUNCTION_CALLING:
        name = schema_name(output_model)
        function = {
            "name": name,
            "description": output_model.__doc__ or name,
            "parameters": output_schema(output_model),
        }
        return {
            "tools": [{"type": "function", "function": function}],
            "tool_choice": {"type": "function", "function": {"name": name}},
        }
    return {}


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
            from ragas_boot.chat.direct import DirectChat

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
            self._direct.client()
        else:
            self._models.get()

    def _runnable(
        self, llm: ChatOpenAI, output_model: type[BaseModel]
    ) -> Runnable[LanguageModelInput, BaseMessage]:
        keys = structured_request_keys(self._spec, output_model)
        return llm.bind(**keys) if keys else llm

    def _message_text(self, prompt: str, output_model: type[BaseModel]) -> str:
        if self._spec.structured_output in _SCHEMA_IN_PROMPT:
            return prompt + format_instructions(output_model)
        return prompt

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
        text = self._message_text(prompt, output_model)
        raw: str | None
        if self._direct is not None:
            started = time.perf_counter()
            reply = await self._direct.complete(text, output_model)
            latency = time.perf_counter() - started
            raw, usage = reply.raw, reply.usage
        else:
            runnable = self._runnable(self._models.get(), output_model)
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
            limit = self._spec.max_answer_chars
            if len(raw) > limit:
                too_long = JudgeOutputError(
                    f"the answer has {len(raw):,} characters, more than max-answer-chars {limit:,}",
                    judge_id=self.id,
                    raw_text=cut_answer(raw, limit, f"{len(raw):,} characters"),
                )
                too_long.usage = usage  # billed all the same
                raise too_long
        try:
            value = parse_structured(raw, output_model, judge_id=self.id)
        except JudgeOutputError as error:
            error.usage = usage  # an invalid answer is billed all the same
            raise
        return JudgeAnswer(value=value, raw_text=raw or "", usage=usage, latency_s=latency)

    async def _send(self, runnable: Runnable[LanguageModelInput, BaseMessage], text: str) -> Any:
        from langchain_core.messages import HumanMessage

        try:
            return await runnable.ainvoke([HumanMessage(content=text)])
        except asyncio.CancelledError:
            raise
        except Exception as error:
            failure = call_failure(error, spec=self._spec)
            if failure is error:
                raise
            raise failure from error

    def _scrub(self, text: str) -> str:
        return scrub_secret(text, self._spec)

    async def aclose(self) -> None:
        """Close the HTTP clients made in the current loop (and those of loops still running)."""
        if self._direct is not None:
            await self._direct.aclose()
        await self._models.aclose()
