"""The ``direct`` transport of OpenAI-compatible judges: one chat-completions call, lean.

The HTTP is aiohttp's: one ``ClientSession`` per event loop (kept-alive connections, gzip and
deflate answers decoded, framing checked by its parser, TLS through
:func:`~ragas_boot.chat.openai.tls.tls_context`). What is ours is the cost per call, which
bounds the wall time of big fan-outs on a small machine: the request body is built from bytes
prepared once per judge (model and options) and once per output model and mode
(``response_format`` or ``tools``, the schema serialised once), plus the prompt through orjson;
the answer is parsed by orjson and read straight from ``choices[0].message``.

Proxies come from the environment as :mod:`ragas_boot.chat.openai.proxies` reads them for both
transports (``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY``, ``NO_PROXY``, proxy credentials in
``.netrc``; http:// proxies only), once, when the loop's session is made, rather than through
aiohttp's ``trust_env``: that looks them up again on a worker thread for every request (two
thread hops per call: the proxy and ``.netrc``), reads no ``ALL_PROXY``, and would take a
``.netrc`` entry for the judge's host as Basic credentials that clash with the
``Authorization`` header. Loopback addresses are proxied too unless ``NO_PROXY`` names them (as
curl, httpx and urllib do), but for the embedded local judge, whose server ragas-boot itself
runs on 127.0.0.1.

Redirects are reported, never followed (:mod:`ragas_boot.chat.failures` says why). Every
failure becomes the judge error the ``langchain`` transport raises for it, with the API key
scrubbed from every message and answer.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import json
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import orjson
from pydantic import BaseModel

from ragas_boot.chat.answers import body_usage
from ragas_boot.chat.failures import REDIRECT_STATUSES, http_error, malformed_answer, scrub
from ragas_boot.chat.judge import TokenUsage
from ragas_boot.chat.loops import PerLoop
from ragas_boot.chat.openai.answer_size import answer_bound, answer_too_large
from ragas_boot.chat.openai.endpoints import CHAT_SUFFIX, header_values, request_authorization
from ragas_boot.chat.openai.proxies import environment_proxy
from ragas_boot.chat.openai.tls import tls_context
from ragas_boot.chat.specs import OpenAICompatibleSpec
from ragas_boot.chat.structured import MAX_CACHED_OUTPUT_MODELS, structured_request_keys
from ragas_boot.config.settings import StructuredOutputMode
from ragas_boot.config.urls import append_path
from ragas_boot.errors import JudgeConnectionError, JudgeHTTPError, JudgeTimeoutError

if TYPE_CHECKING:
    import aiohttp
    from yarl import URL

__all__ = ["DirectChat", "DirectReply"]


class DirectReply:
    """What one call answered: the raw text (content or tool-call arguments) and usage."""

    __slots__ = ("raw", "usage")

    def __init__(self, raw: str | None, usage: TokenUsage) -> None:
        self.raw = raw
        self.usage = usage


class _LoopSession:
    """One loop's aiohttp session and what each request takes from it, resolved once."""

    __slots__ = ("headers", "proxy", "proxy_headers", "session", "url")

    def __init__(
        self,
        session: aiohttp.ClientSession,
        url: URL,
        headers: dict[str, str],
        proxy: URL | None,
        proxy_headers: dict[str, str] | None,
    ) -> None:
        self.session = session
        self.url = url
        self.headers = headers
        self.proxy = proxy
        self.proxy_headers = proxy_headers

    async def aclose(self) -> None:
        await self.session.close()


class DirectChat:
    """Chat-completions calls for one judge spec, with one aiohttp session per event loop.

    Args:
        spec: the judge's settings.
        api_base: the base URL (``.../v1``, a query kept) that ``/chat/completions`` is
            appended to.
    """

    def __init__(self, *, spec: OpenAICompatibleSpec, api_base: str) -> None:
        self._spec = spec
        # Credentials in the base URL travel as the Authorization header, never in the URL.
        api_base, self._authorization = request_authorization(api_base, spec.api_key)
        self._endpoint = append_path(api_base, CHAT_SUFFIX)
        self._sessions = PerLoop(self._make_session)
        self._head = (
            b'{"model":' + orjson.dumps(spec.model) + b',"messages":[{"role":"user","content":'
        )
        self._options = (
            b',"stream":false,"temperature":'
            + orjson.dumps(spec.temperature)
            + b',"top_p":'
            + orjson.dumps(spec.top_p)
            + b',"max_completion_tokens":'
            + orjson.dumps(spec.max_tokens)
            + (b',"seed":' + orjson.dumps(spec.seed) if spec.seed is not None else b"")
        )
        self._tails: dict[type[BaseModel], bytes] = {}
        timeout = spec.limits.call_timeout.total_seconds()
        self._timeout = timeout or None
        self._max_body = answer_bound(spec)

    def session(self) -> _LoopSession:
        """The running loop's session (made on first use)."""
        return self._sessions.get()

    def _make_session(self) -> _LoopSession:
        # aiohttp is imported with the first direct judge's first call, not at start-up.
        import aiohttp
        from yarl import URL

        _freeze_what_is_alive()

        spec = self._spec
        # The key and the provider's headers (secrets) go with each request, not as the
        # session's default headers: aiohttp copies those into the proxy's headers too, and
        # turns an Authorization among them into Proxy-Authorization, so a proxy in the
        # environment would be sent the API key (tests/chat/test_transport_network.py).
        request_headers = {"Authorization": self._authorization, **header_values(spec.headers)}
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": "ragas-boot",
        }
        https = urlsplit(self._endpoint).scheme == "https"
        connector = aiohttp.TCPConnector(
            limit=spec.limits.max_concurrency + 8,
            # The TLS context loads certifi and the provider's files: only for https.
            ssl=tls_context(spec.tls) if https else True,
        )
        session = aiohttp.ClientSession(
            connector=connector,
            headers=headers,
            # The call's own asyncio.timeout bounds it; no second timer per request.
            timeout=aiohttp.ClientTimeout(),
            # A judge keeps no cookies; filtering a jar costs CPU on every request.
            cookie_jar=aiohttp.DummyCookieJar(),
        )
        url = URL(self._endpoint, encoded=True)
        proxy: URL | None = None
        proxy_headers: dict[str, str] | None = None
        # The embedded local judge's server is ours, on loopback: never through a proxy.
        found = environment_proxy(self._endpoint) if spec.proxied else None
        if found is not None:
            proxy = URL(found.url)
            if found.authorization is not None:  # from the proxy's URL or ~/.netrc
                # As a header (aiohttp deprecates its proxy_auth argument), named as aiohttp
                # names the proxy's credentials inside proxy_headers: it moves them to
                # Proxy-Authorization on the CONNECT or, for http:// judges, the request.
                proxy_headers = {"Authorization": found.authorization}
        return _LoopSession(session, url, request_headers, proxy, proxy_headers)

    def _tail(self, output_model: type[BaseModel]) -> bytes:
        tail = self._tails.get(output_model)
        if tail is None:
            tail = self._options + _mode_fragment(self._spec, output_model) + b"}"
            if len(self._tails) >= MAX_CACHED_OUTPUT_MODELS:
                self._tails.clear()  # per-sample output models (topic classification)
            self._tails[output_model] = tail
        return tail

    def request_body(self, text: str, output_model: type[BaseModel]) -> bytes:
        """The request body of one call: ``text`` as the one user message (the batch
        transport sends the same bytes as a line of its batch file)."""
        return self._head + orjson.dumps(text) + b"}]" + self._tail(output_model)

    async def complete(self, text: str, output_model: type[BaseModel]) -> DirectReply:
        """Send ``text`` as one user message; the raw answer and usage.

        Raises:
            JudgeHTTPError: an error status, or a redirect (status and ``Location``).
            JudgeTimeoutError: no answer within the call timeout.
            JudgeConnectionError: no connection, a dropped one, a proxy that failed, or an
                answer whose framing is broken (two different ``Content-Length``s).
            JudgeOutputError: a body that is not a chat completion, or one too large.
        """
        import aiohttp

        spec = self._spec
        body = self.request_body(text, output_model)
        loop_session = self.session()
        try:
            async with (
                asyncio.timeout(self._timeout),
                loop_session.session.post(
                    loop_session.url,
                    data=body,
                    headers=loop_session.headers,
                    allow_redirects=False,
                    proxy=loop_session.proxy,
                    proxy_headers=loop_session.proxy_headers,
                ) as response,
            ):
                status = response.status
                content = await self._read_body(response)
                response_headers = response.headers
        except TimeoutError:
            raise JudgeTimeoutError(
                f"no answer within {spec.limits.call_timeout.total_seconds():g}s",
                judge_id=spec.id,
            ) from None
        except aiohttp.ClientError as error:
            detail = str(error) or type(error).__name__
            raise JudgeConnectionError(
                scrub(f"connection failed: {detail}", spec), judge_id=spec.id
            ) from None
        if status >= 400 or status in REDIRECT_STATUSES:
            raise self.status_error(status, content, response_headers)
        return self._read(content)

    async def _read_body(self, response: aiohttp.ClientResponse) -> bytes:
        # Read to the bound whatever Content-Length says (after decoding a gzip answer), so a
        # server that ignores max_tokens cannot make the client hold megabytes.
        limit = self._max_body
        chunks: list[bytes] = []
        size = 0
        content = response.content
        while True:
            chunk = await content.read(limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise answer_too_large(self._spec, b"".join(chunks)[: self._spec.max_answer_chars])
            if content.at_eof():  # the usual case: the whole answer came in one read
                break
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    def status_error(self, status: int, content: bytes, headers: Any) -> JudgeHTTPError:
        """The judge error of an error status and its body (``headers``: the response's,
        for ``Retry-After`` and ``Location``), with the usage its body reports."""
        # The message the openai client would give (the body after "Error code: N - ").
        text = content.decode("utf-8", "replace").strip()
        body: Any = None
        try:
            body = json.loads(text)
            message = f"Error code: {status} - {body}"
        except ValueError:
            message = text or f"Error code: {status}"
        error = http_error(
            self._spec,
            status,
            message,
            retry_after=headers.get("retry-after"),
            location=headers.get("location"),
        )
        error.usage = body_usage(body)  # an error body with usage is billed
        return error

    def _read(self, content: bytes) -> DirectReply:
        try:
            document = orjson.loads(content)
        except orjson.JSONDecodeError as error:
            raise malformed_answer(error, spec=self._spec) from None
        return self.read_document(document)

    def read_document(self, document: Any) -> DirectReply:
        """The raw answer and usage of a chat completion read as JSON (a body, or a batch
        output line's ``response.body``).

        Raises:
            JudgeOutputError: it is not a chat completion.
        """
        try:
            message = document["choices"][0]["message"]
            if not isinstance(message, dict):
                raise TypeError("message is not an object")
            raw: str | None = None
            if self._spec.structured_output is StructuredOutputMode.FUNCTION_CALLING:
                for call in message.get("tool_calls") or ():
                    arguments = (call.get("function") or {}).get("arguments")
                    if isinstance(arguments, str):
                        raw = arguments
                        break
                    if isinstance(arguments, dict):
                        raw = json.dumps(arguments, ensure_ascii=False)
                        break
            if raw is None:
                content_field = message.get("content")
                if isinstance(content_field, str):
                    raw = content_field
                elif content_field:
                    raw = json.dumps(content_field, ensure_ascii=False)
            usage = body_usage(document) or TokenUsage()
        except (
            orjson.JSONDecodeError,
            ValueError,
            KeyError,
            IndexError,
            TypeError,
            AttributeError,
        ) as error:
            raise malformed_answer(error, spec=self._spec) from None
        return DirectReply(raw, usage)

    async def aclose(self) -> None:
        """Close the sessions of the current loop (and of loops still running)."""
        await self._sessions.aclose(_LoopSession.aclose)


@functools.cache
def _freeze_what_is_alive() -> None:
    """Move every object alive now (imports, settings, aiohttp's own) into the permanent
    generation, once per process, as ``chat/openai/clients.py`` does after importing langchain.

    Full collections would walk them again and again during a fan-out: in a 200 × 4 fan-out
    that is a third of the direct transport's client CPU (0.60 against 0.42 ms per call,
    benchmarks/README.md). Objects made later are collected as before.
    """
    gc.freeze()


def _mode_fragment(spec: OpenAICompatibleSpec, output_model: type[BaseModel]) -> bytes:
    """The request keys of the spec's structured-output mode, serialised once."""
    keys = structured_request_keys(
        spec.structured_output, output_model, json_object_schema=spec.json_object_schema
    )
    return b"".join(
        b"," + orjson.dumps(key) + b":" + orjson.dumps(value) for key, value in keys.items()
    )
