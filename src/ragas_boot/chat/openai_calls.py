"""What every OpenAI-compatible call shares, whichever client sends it.

Both transports of OpenAI-compatible judges (:mod:`ragas_boot.chat.direct` on aiohttp, and
langchain-openai's ``ChatOpenAI`` in :mod:`ragas_boot.chat.openai_judge`), the tool-suite agent,
LangChain judges and embedding models import these, so a failure reads the same whichever
path made the call: the request keys of each structured-output mode, the TLS context (its
files checked at start-up), the ``Authorization`` header (Basic from a base URL's
credentials), error translation (status, ``Retry-After``, redirect ``Location``), secret
scrubbing, token usage, the bound on an answer's size, and clients kept per event loop.

Redirects are never followed, on either transport: a judge call is a ``POST`` that carries the
API key, and following a 301/302/303 turns it into a ``GET`` (a misleading 404/405 later),
while following a 307/308 re-sends the key to wherever ``Location`` points and pays a second
round trip on every call for good. A 3xx answer is a :class:`~ragas_boot.errors.JudgeHTTPError`
with its status and ``Location`` (not retried): setting ``base-url`` to that address fixes it
once.
"""

from __future__ import annotations

import asyncio
import email.utils
import functools
import logging
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar
from urllib.parse import urlsplit

from pydantic import BaseModel, SecretStr

from ragas_boot.chat._proxies import environment_proxy
from ragas_boot.chat.judge import JudgeAnswer, JudgeSpec, ProviderLimits, TlsFiles, TokenUsage
from ragas_boot.chat.structured import output_schema, parse_structured, schema_name
from ragas_boot.config.settings import StructuredOutputMode
from ragas_boot.config.urls import (
    URL_MASK,
    mask_url,
    split_credentials,
    split_query,
    url_secrets,
)
from ragas_boot.errors import (
    ConfigError,
    JudgeConnectionError,
    JudgeError,
    JudgeHTTPError,
    JudgeOutputError,
    JudgeTimeoutError,
)

if TYPE_CHECKING:
    import ssl

    from langchain_core.messages import BaseMessage
    from openai import DefaultAioHttpClient

OutputT = TypeVar("OutputT", bound=BaseModel)
ResultT = TypeVar("ResultT")
MadeT = TypeVar("MadeT")

__all__ = [
    "MAX_CACHED_OUTPUT_MODELS",
    "REDIRECT_STATUSES",
    "CallSpec",
    "PerLoop",
    "answer_bound",
    "answer_size_hook",
    "answer_too_large",
    "await_translated",
    "body_usage",
    "call_failure",
    "check_tls_files",
    "checked_answer",
    "cut_answer",
    "header_values",
    "http_error",
    "idle_sync_client",
    "malformed_answer",
    "openai_client_target",
    "openai_http_client",
    "request_authorization",
    "retry_after_seconds",
    "scrub_secret",
    "structured_request_keys",
    "tls_context",
    "translate_error",
    "usage_of",
]

#: Output models whose request keys a judge keeps ready per loop (bound runnables, serialised
#: tails): metrics with per-sample output models (topic classification) must not grow these
#: caches without end.
MAX_CACHED_OUTPUT_MODELS = 256

#: The answers that ask the client to send the request elsewhere (never followed).
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


class CallSpec(Protocol):
    """What error translation reads of a judge's or an embedding model's spec."""

    @property
    def id(self) -> str: ...

    @property
    def api_key(self) -> SecretStr: ...

    @property
    def limits(self) -> ProviderLimits: ...

    @property
    def base_url(self) -> str: ...


def retry_after_seconds(value: str | None) -> float | None:
    """A ``Retry-After`` header (seconds or an HTTP date) as seconds from now; ``None`` when
    absent or unreadable."""
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


def cut_answer(text: str, limit: int, total: str) -> str:
    """``text`` cut to ``limit`` characters, marked as cut (and how much there was)."""
    return text[:limit] + f" … [cut by ragas-boot at max-answer-chars {limit:,}; {total} in all]"


def checked_answer(
    raw: str | None,
    output_model: type[OutputT],
    *,
    judge_id: str,
    max_chars: int,
    usage: TokenUsage,
    latency_s: float,
) -> JudgeAnswer[OutputT]:
    """A judge's raw answer checked (at most ``max_chars`` characters, valid for
    ``output_model``) into a :class:`JudgeAnswer`; ``usage`` is billed either way.

    Raises:
        JudgeOutputError: the answer is too long (its start kept, marked as cut), empty,
            not JSON or not valid; ``usage`` rides on the error.
    """
    try:
        if raw is not None and len(raw) > max_chars:
            raise JudgeOutputError(
                f"the answer has {len(raw):,} characters, more than max-answer-chars {max_chars:,}",
                judge_id=judge_id,
                raw_text=cut_answer(raw, max_chars, f"{len(raw):,} characters"),
            )
        value = parse_structured(raw, output_model, judge_id=judge_id)
    except JudgeOutputError as error:
        error.usage = usage  # an answer that is unusable was generated and billed all the same
        raise
    return JudgeAnswer(value=value, raw_text=raw or "", usage=usage, latency_s=latency_s)


def answer_bound(spec: JudgeSpec) -> int:
    """The most bytes of an answer read: ``6 × max-answer-chars + 64 KiB``.

    A chat-completion body holds the answer as a JSON string (each character up to 6 bytes
    escaped) in a small envelope, so a server ignoring ``max_tokens`` cannot make the client
    read or keep megabytes. The bound applies to the decoded body (after gzip).
    """
    return spec.max_answer_chars * 6 + 64 * 1024


def answer_too_large(spec: JudgeSpec, head: bytes) -> JudgeOutputError:
    """The error of an answer longer than :func:`answer_bound`; ``raw_text`` holds its start,
    scrubbed and marked as cut."""
    chars = spec.max_answer_chars
    limit = answer_bound(spec)
    return JudgeOutputError(
        f"the answer is larger than {limit:,} bytes (max-answer-chars {chars:,}); reading stopped",
        judge_id=spec.id,
        raw_text=scrub_secret(
            cut_answer(head.decode("utf-8", "replace"), chars, f"more than {limit:,} bytes"), spec
        ),
    )


def answer_size_hook(spec: JudgeSpec) -> Callable[[Any], Awaitable[None]]:
    """An httpx response hook that stops reading a body longer than :func:`answer_bound`.

    Raises (from the response's body, while it is read):
        JudgeOutputError: the body is larger; ``raw_text`` holds its start, marked as cut.
    """
    import httpx2

    chars = spec.max_answer_chars
    limit = answer_bound(spec)

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
                    raise answer_too_large(spec, bytes(head))
                yield chunk

        async def aclose(self) -> None:
            await self._inner.aclose()

    async def hook(response: Any) -> None:
        # Read up to the bound whatever Content-Length says: the start is kept for the report.
        response.stream = BoundedStream(response.stream)

    return hook


@functools.lru_cache(maxsize=32)
def tls_context(tls: TlsFiles) -> ssl.SSLContext:
    """A verifying TLS context: the system trust store, certifi's bundle, and the provider's
    own CA bundle and client certificate (one per set of files, made on first use).

    Both transports take this context, so a company CA or an mTLS gateway works the same on
    each. Hostnames are always checked.

    Raises:
        OSError, ssl.SSLError: a file cannot be read or is not PEM.
    """
    import ssl

    import certifi

    context = ssl.create_default_context()  # the system store, hostname checks, TLS >= 1.2
    context.load_verify_locations(cafile=certifi.where())
    if tls.ca_bundle:
        context.load_verify_locations(cafile=tls.ca_bundle)
    if tls.client_cert:
        context.load_cert_chain(tls.client_cert, tls.client_key)
    return context


def check_tls_files(tls: TlsFiles, *, owner: str, ca_key: str, cert_key: str) -> None:
    """Load ``tls`` now, so that a file that cannot be loaded fails at start-up (whatever the
    base URL's scheme), not at the first call.

    Args:
        tls: the CA bundle and client certificate (and key) to load.
        owner: what the files belong to, for the message (``provider 'corp'``).
        ca_key: the YAML key of the CA bundle; ``cert_key``: that of the certificate.

    Raises:
        ConfigError: a file is missing or is not PEM, naming its key and the file.
    """
    if tls == TlsFiles():
        return
    try:
        tls_context(tls)
    except (OSError, ValueError):  # ssl.SSLError is an OSError
        # Only now, to name the key at fault: the CA bundle alone, then the certificate.
        parts = (
            (ca_key, TlsFiles(ca_bundle=tls.ca_bundle)),
            (cert_key, TlsFiles(client_cert=tls.client_cert, client_key=tls.client_key)),
        )
        for key, part in parts:
            if part == TlsFiles():
                continue
            try:
                tls_context(part)
            except (OSError, ValueError) as error:
                files = ", ".join(
                    f for f in (part.ca_bundle, part.client_cert, part.client_key) if f
                )
                raise ConfigError(
                    f"{owner}: cannot load the TLS files ({files}): {error}", key=key
                ) from None
        raise  # each loads alone but not together: not seen, reported as it is


class _MaskUrlCredentials(logging.Filter):
    """httpx logs every request's full URL at INFO: a ``?key=`` of a base-url is masked there."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and record.args:
            record.args = tuple(
                mask_url(str(arg)) if type(arg).__name__ == "URL" else arg for arg in record.args
            )
        return True


@functools.cache
def _mask_client_logs() -> None:
    """Mask URL credentials in the request lines the openai client's httpx logs (once)."""
    for name in ("httpx", "httpx2"):
        logging.getLogger(name).addFilter(_MaskUrlCredentials())


def _connection_limits(max_concurrency: int) -> Any:
    """The openai client's connection limits for a provider's concurrency."""
    from openai import DEFAULT_CONNECTION_LIMITS

    # The Limits class of whichever httpx flavour this openai version is built on.
    limits_class = type(DEFAULT_CONNECTION_LIMITS)
    connections = max_concurrency + 8
    return limits_class(max_connections=connections, max_keepalive_connections=connections)


def openai_http_client(
    url: str, limits: ProviderLimits, tls: TlsFiles, *, proxied: bool = True, **options: Any
) -> DefaultAioHttpClient:
    """openai's aiohttp transport for calls to ``url`` (judges on the ``langchain`` transport,
    embedding models), bound to the running loop.

    The provider's call timeout, connections for its concurrency, redirects reported and not
    followed (see the module's docstring), :func:`tls_context` for https, URL credentials
    masked in the client's logs, and the proxy the environment sets for ``url`` as the
    ``direct`` transport reads it (:mod:`ragas_boot.chat._proxies`; none when ``proxied`` is
    false), not httpx's own reading; ``options`` go to the client as they are.
    """
    from openai import DefaultAioHttpClient

    _mask_client_logs()
    if urlsplit(url).scheme == "https":
        options["verify"] = tls_context(tls)
    found = environment_proxy(url) if proxied else None
    if found is not None:
        import httpx2

        # The credentials as a header that aiohttp moves to Proxy-Authorization (as in
        # chat/direct.py): httpx's auth= would reach aiohttp as its deprecated proxy_auth.
        headers = {"Authorization": found.authorization} if found.authorization else None
        options["proxy"] = httpx2.Proxy(found.url, headers=headers)
    return DefaultAioHttpClient(
        trust_env=False,
        timeout=limits.call_timeout.total_seconds() or None,
        limits=_connection_limits(limits.max_concurrency),
        follow_redirects=False,
        **options,
    )


def request_authorization(url: str, api_key: SecretStr) -> tuple[str, str]:
    """``url`` as it is sent (its user-info removed) and the ``Authorization`` value to send:
    ``Basic`` from the URL's credentials when it has some, else ``Bearer <api-key>``.

    Both transports, the tool agent and embedding models send the same: HTTP clients refuse
    credentials in a URL beside an ``Authorization`` header, and one header holds one scheme.
    The URL's credentials win over the api-key (as in httpx and requests, which send a URL's
    user-info as Basic auth in place of an ``Authorization`` header); a provider ``headers``
    entry named ``Authorization`` wins over both, being sent after.
    """
    bare, basic = split_credentials(url)
    return bare, basic or f"Bearer {api_key.get_secret_value()}"


def openai_client_target(
    api_base: str, api_key: SecretStr, headers: Mapping[str, SecretStr | str]
) -> tuple[str, dict[str, str], dict[str, str], SecretStr]:
    """What the openai client (``ChatOpenAI``, ``OpenAIEmbeddings``) takes to reach
    ``api_base``: its base URL (no query, no user-info), the query (its ``default_query``: the
    client appends paths to the raw base URL, query and all), its default headers (the
    provider's, after the Basic auth of URL credentials, which they override) and an API key.

    With URL credentials the key is not sent (the ``Authorization`` default header replaces
    the client's Bearer), but the client refuses to be built without one.
    """
    bare, authorization = request_authorization(api_base, api_key)
    base_url, query = split_query(bare)
    sent = header_values(headers)
    if bare != api_base:
        sent = {"Authorization": authorization, **sent}
        if not api_key.get_secret_value():
            api_key = SecretStr("url-credentials")
    return base_url, query, sent, api_key


@functools.cache
def idle_sync_client() -> Any:
    """A sync client for langchain-openai's models to hold and never use (every call here is
    async), shared: without one, each builds its own, which reads the proxy variables itself
    (and fails on a ``socks5://`` one without socksio) where the async client is told the
    proxy :mod:`ragas_boot.chat._proxies` found. It opens no connection until used."""
    from openai import DefaultHttpxClient

    return DefaultHttpxClient(trust_env=False)


def header_values(headers: Mapping[str, SecretStr | str]) -> dict[str, str]:
    """A provider's extra headers as sent: secret values revealed (for the request only)."""
    return {
        name: value.get_secret_value() if isinstance(value, SecretStr) else str(value)
        for name, value in headers.items()
    }


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


def scrub_secret(text: str, spec: CallSpec) -> str:
    """``text`` with the spec's API key, its custom header values and the credentials in its
    base URL masked (providers sometimes echo them back: a key, a header, a URL with its
    ``?key=``)."""
    secret = spec.api_key.get_secret_value()
    if secret and len(secret) >= 4:
        text = text.replace(secret, "**********")
    for header in header_values(getattr(spec, "headers", None) or {}).values():
        if len(header) >= 4:
            text = text.replace(header, "**********")
    for credential in _url_credentials(spec.base_url):
        text = text.replace(credential, URL_MASK)
    return text


@functools.lru_cache(maxsize=256)
def _url_credentials(base_url: str) -> tuple[str, ...]:
    # Every answer is scrubbed: the base URL is parsed once, not per call.
    return tuple(credential for credential in url_secrets(base_url) if len(credential) >= 4)


def http_error(
    spec: CallSpec,
    status: int,
    message: str,
    *,
    retry_after: str | None = None,
    location: str | None = None,
) -> JudgeHTTPError:
    """The judge error of an error or redirect status, as both transports raise it.

    ``message`` is the server's (scrubbed here); a redirect says where it points and that it
    was not followed (see the module's docstring).
    """
    shown_location = scrub_secret(mask_url(location), spec) if location else None
    if status in REDIRECT_STATUSES:
        where = f"to {shown_location}" if shown_location else "without a Location"
        message = (
            f"the server redirects {where}; redirects are not followed: point base-url "
            "(or completions-path) at the address that answers"
        )
    return JudgeHTTPError(
        scrub_secret(f"HTTP {status}: {message}", spec),
        judge_id=spec.id,
        status_code=status,
        retry_after=retry_after_seconds(retry_after),
        location=shown_location,
    )


def translate_error(error: BaseException, *, spec: CallSpec) -> BaseException:
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
        headers = error.response.headers
        translated = http_error(
            spec,
            error.status_code,
            error.message,
            retry_after=headers.get("retry-after"),
            location=headers.get("location"),
        )
        # Some providers bill a failed completion and say so in the error body.
        translated.usage = _response_usage(error.response)
        return translated
    if _from_aiohttp(error):
        # openai's aiohttp transport passes some of aiohttp's errors on unmapped: an answer
        # whose framing its parser rejects (two different Content-Lengths) is one.
        return JudgeConnectionError(
            scrub_secret(f"connection failed: {error}", spec), judge_id=spec.id
        )
    return error


def _from_aiohttp(error: BaseException) -> bool:
    import aiohttp

    return isinstance(error, aiohttp.ClientError) or isinstance(
        _root_cause(error), aiohttp.ClientError
    )


async def await_translated(
    call: Awaitable[ResultT], translate: Callable[[Exception], BaseException]
) -> ResultT:
    """``call``'s result; a client error is raised as ``translate(error)`` stands for it
    (chained to it), or as it is when ``translate`` gives it back unchanged.

    Every client call of a judge, embedding model or agent turn goes through this, so the
    attempt loop sees judge errors whichever library made the call.
    """
    try:
        return await call
    except Exception as error:
        failure = translate(error)
        if failure is error:
            raise
        raise failure from error


def call_failure(error: Exception, *, spec: CallSpec) -> BaseException:
    """What a failed client call raises: the judge error it stands for (see
    :func:`translate_error`); an answer the client could not read (a 200 that is not a chat
    completion or an embedding list) is the model's :class:`JudgeOutputError`, not a bug of
    the caller. Judge errors come back unchanged."""
    translated = translate_error(error, spec=spec)
    if translated is error and not isinstance(error, JudgeError):
        return malformed_answer(error, spec=spec)
    return translated


def malformed_answer(error: BaseException, *, spec: CallSpec) -> JudgeOutputError:
    """A 2xx body that is not what the call expects: the model's failure, raw text unknown."""
    return JudgeOutputError(
        scrub_secret(f"malformed response from server ({type(error).__name__}: {error})", spec),
        judge_id=spec.id,
        raw_text=None,
    )


class PerLoop(Generic[MadeT]):
    """One object per event loop, made on first use in that loop and dropped with the loop.

    An HTTP client bound to one loop must never be used from another (dependency-injector
    issue #576), so judges, embedding models and the tool agent keep their clients in one of
    these.

    Args:
        make: builds the running loop's object.
    """

    __slots__ = ("_last", "_made", "_make")

    def __init__(self, make: Callable[[], MadeT]) -> None:
        self._make = make
        self._made: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, MadeT] = (
            weakref.WeakKeyDictionary()
        )
        self._last: tuple[Callable[[], object], MadeT | None] = (_no_loop, None)

    def get(self) -> MadeT:
        """The running loop's object (made now if this loop has none)."""
        loop = asyncio.get_running_loop()
        # Nearly every call comes from the loop of the call before: no weak reference made.
        last_loop, last = self._last
        if last_loop() is loop and last is not None:
            return last
        made = self._made.get(loop)
        if made is None:
            made = self._make()
            self._made[loop] = made
        self._last = (weakref.ref(loop), made)
        return made

    async def aclose(self, close: Callable[[MadeT], Awaitable[object]] | None = None) -> None:
        """Forget every loop's object; with ``close``, close each on its own loop: now on the
        current loop, through that loop if it still runs. An object whose loop is closed
        cannot be closed any more; its sockets went with that loop."""
        made = list(self._made.items())
        self._made.clear()
        self._last = (_no_loop, None)
        if close is None:
            return
        current = asyncio.get_running_loop()
        for loop, value in made:
            if loop is current:
                await close(value)
            elif loop.is_running() and not loop.is_closed():
                future = asyncio.run_coroutine_threadsafe(_closing(close, value), loop)
                await asyncio.wrap_future(future)


async def _closing(close: Callable[[MadeT], Awaitable[object]], value: MadeT) -> None:
    await close(value)


def _no_loop() -> None:
    return None


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
