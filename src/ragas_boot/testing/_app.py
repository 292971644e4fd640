"""The fake server's aiohttp app: its routes, and each request read, recorded and answered
with what the :class:`~ragas_boot.testing.scripts.ScriptBook` decides (after the latency, a
hang's hold, a drop or a trickle)."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from ragas_boot.chat.wire.embeddings import (
    EmbeddingsRequest,
    embeddings_body,
    parse_embeddings_request,
)
from ragas_boot.chat.wire.openai import (
    WireError,
    completion_body,
    error_body,
    models_body,
    parse_chat_request,
    parse_json_body,
    unsupported,
)
from ragas_boot.samples.openai_chat import FunctionCall, FunctionToolCall
from ragas_boot.testing._http import (
    Received,
    drop,
    header_seconds,
    json_response,
    raw_response,
    received,
    trickle,
)
from ragas_boot.testing.batches import BatchDesk
from ragas_boot.testing.records import CHAT_PATH, ChatEntry, ChatRequest, FaultName, RequestLog
from ragas_boot.testing.replies import Reply
from ragas_boot.testing.scripts import ScriptBook
from ragas_boot.testing.vectors import EmbeddingReply, request_vectors

if TYPE_CHECKING:
    from aiohttp import web

__all__ = ["FakeOpenAIApp"]

# A 200 answer cut off mid-document, like a proxy that dropped the upstream.
_GARBAGE_BODY: Final = b'{"id": "chatcmpl-garbage", "object": "chat.completion", "choices": [{"mes'

_Route: TypeAlias = "Callable[[web.Request, Received], Awaitable[web.StreamResponse]]"


class FakeOpenAIApp:
    """Answers ``POST /v1/chat/completions``, ``POST /v1/embeddings`` and ``GET /v1/models``
    from a script book, recording each request in a log, and the batch API (``/v1/files``,
    ``/v1/batches``: :attr:`batches`); other paths and methods get OpenAI's 404 and 405
    bodies.

    Args:
        book: what answers each request.
        log: where requests are recorded.
    """

    def __init__(self, book: ScriptBook, log: RequestLog) -> None:
        self._book = book
        self._log = log
        self.batches = BatchDesk(book.lock, self._decide_line, self.completion)
        self._routes: dict[str, dict[str, _Route]] = {
            CHAT_PATH: {"POST": self._answer_chat},
            "/v1/embeddings": {"POST": self._answer_embeddings},
            "/v1/models": {"GET": self._answer_models},
        }

    async def serve(self, request: web.Request) -> web.StreamResponse:
        """Route one request by path and method; others get OpenAI's 404 or 405 body."""
        arrival = received(request)
        if arrival.path.startswith(("/v1/files", "/v1/batches")):
            return await self.batches.serve(request, arrival)
        methods = self._routes.get(arrival.path)
        if methods is None:
            message = f"Invalid URL ({request.method} {arrival.path})"
            return _error_response(WireError(404, message, code="unknown_url"))
        route = methods.get(request.method)
        if route is None:
            message = f"Method {request.method} is not allowed on {arrival.path}."
            allow = (("Allow", ", ".join(sorted(methods))),)
            return _error_response(WireError(405, message, code="method_not_allowed"), allow)
        return await route(request, arrival)

    def _decide_line(self, request: ChatRequest) -> tuple[Reply, FaultName | None, str | None]:
        self._book.remember(request.model)
        return self._book.decide(request)

    async def _answer_models(self, request: web.Request, arrival: Received) -> web.StreamResponse:
        body = models_body(self._book.model_names(), created=0, owned_by="ragas-boot")
        return json_response(200, body)

    async def _answer_chat(self, request: web.Request, arrival: Received) -> web.StreamResponse:
        """Record and answer one chat request; a body that does not parse gets a 400 unrecorded."""
        try:
            chat = parse_chat_request(await request.read())
        except WireError as error:
            return _error_response(error)
        entry = self._log.begin(chat, arrival)
        self._book.remember(chat.model)
        try:
            return await self._respond(entry, request)
        finally:
            self._log.finish(entry, None)  # closed by stop() before answering; else a no-op

    async def _respond(self, entry: ChatEntry, http: web.Request) -> web.StreamResponse:
        request = entry.request
        refusal = unsupported(request.chat)
        if refusal is not None:
            response = _error_response(refusal)
            self._log.finish(entry, response.status)
            return response
        reply, fault, error = self._book.decide(request)
        with self._log.lock:
            entry.fault, entry.error = fault, error
        latency = self._book.latency_for(request.model)

        def render() -> web.Response:
            response, usage = self._render(request, reply)
            response.headers["x-request-id"] = f"req_fake{request.index:08d}"
            with self._log.lock:
                entry.usage = usage
            return response

        return await _deliver(
            http, reply, latency, render, lambda status: self._log.finish(entry, status)
        )

    async def _answer_embeddings(self, http: web.Request, arrival: Received) -> web.StreamResponse:
        """Record and answer one embeddings request; a body that does not parse gets a 400."""
        try:
            request = parse_embeddings_request(parse_json_body(await http.read()))
        except WireError as error:
            return _error_response(error)
        self._book.remember(request.model)
        reply, fault = self._book.embedding_reply(request.model)
        latency = self._book.latency_for(request.model)
        finish = self._log.begin_embeddings(request, arrival, fault)
        try:
            return await _deliver(
                http,
                reply if isinstance(reply, Reply) else None,
                latency,
                lambda: self._render_embeddings(request, reply),
                finish,
            )
        finally:
            finish(None)  # closed by stop() or the client went away first; else a no-op

    def _render_embeddings(
        self, request: EmbeddingsRequest, reply: EmbeddingReply | None
    ) -> web.Response:
        if isinstance(reply, Reply):
            if reply.kind == "error":
                return _reply_error(reply)
            if reply.kind == "garbage":
                return raw_response(200, _GARBAGE_BODY)
            reply = None
        if reply is not None:
            vectors: list[Sequence[float]] = [list(vector) for vector in reply]
        else:
            vectors = [*request_vectors(request, self._book.vector_source(request.model))]
        body = embeddings_body(
            model=request.model,
            vectors=vectors,
            encoding_format=request.encoding_format,
            prompt_tokens=sum(math.ceil(len(text) / 4) for text in request.inputs),
        )
        return json_response(200, body)

    def _render(
        self, request: ChatRequest, reply: Reply
    ) -> tuple[web.Response, Mapping[str, int] | None]:
        """The response, and the usage block it carries (``None``: none)."""
        status, body, usage = self.completion(request, reply)
        if isinstance(body, bytes):
            return raw_response(status, body), usage
        if reply.kind == "error":
            return _reply_error(reply), usage
        return json_response(status, body), usage

    def completion(
        self, request: ChatRequest, reply: Reply
    ) -> tuple[int, dict[str, Any] | bytes, Mapping[str, int] | None]:
        """What ``reply`` answers to ``request``: the status, the body (a chat completion or
        an error body; bytes that are not JSON for garbage) and the usage it carries. A
        batch line is answered with the same (``testing/batches.py``)."""
        kind = reply.kind
        if kind == "error":
            body = error_body(reply.status, reply.content or "")
            usage = reply.error_usage()
            if usage is not None:
                body["usage"] = usage
            return reply.status, body, usage
        if kind == "garbage":
            return 200, _GARBAGE_BODY, None
        if kind in ("hang", "trickle", "drop"):
            reply = self._book.default_reply(request)
        content = reply.content
        specs = reply.calls
        if reply.kind == "json" and request.forced_tool is not None:
            specs, content = ((request.forced_tool, reply.content or "", None),), None
        calls = [
            FunctionToolCall(
                id=call_id or f"call_{request.index:06d}{position:03d}",
                function=FunctionCall(name=name, arguments=arguments),
            )
            for position, (name, arguments, call_id) in enumerate(specs)
        ]
        completion_chars = len(content or "") + sum(len(call.arguments_text) for call in calls)
        if reply.raw_message is not None:
            completion_chars = len(json.dumps(reply.raw_message, ensure_ascii=False))
        prompt_chars = sum(len(message.text) for message in request.chat.messages)
        usage = {
            "prompt_tokens": math.ceil(prompt_chars / 4),
            "completion_tokens": math.ceil(completion_chars / 4),
            **(reply.usage or {}),
        }
        body = completion_body(
            completion_id=f"chatcmpl-fake{request.index:08d}",
            created=int(request.wall_time),
            model=request.model,
            content=content,
            tool_calls=calls,
            prompt_tokens=usage["prompt_tokens"],
            completion_tokens=usage["completion_tokens"],
        )
        if reply.raw_message is not None:
            choice = body["choices"][0]
            choice["message"] = dict(reply.raw_message)
            called = reply.raw_message.get("tool_calls") or reply.raw_message.get("function_call")
            choice["finish_reason"] = "tool_calls" if called else "stop"
        body["usage"].update(reply.usage or {})  # extra fields, or a total of its own
        return 200, body, dict(body["usage"])


async def _deliver(
    http: web.Request,
    reply: Reply | None,
    latency: float,
    render: Callable[[], web.Response],
    finish: Callable[[int | None], None],
) -> web.StreamResponse:
    """Answer a chat or embeddings request after the model's ``latency`` and the reply's own
    wait: drop the connection, trickle ``render()``'s response, or send it whole.

    ``finish`` records the status (``None`` for a dropped connection) before the client can
    read the answer, so tests see the record at once (a trickle: as its last part goes).
    ``reply`` is the scripted or fault reply, if any (its delay, a hang's hold, drop, trickle).
    """
    # A trickle spreads its own ``seconds`` over the body; a hang holds them before answering.
    wait = latency
    if reply is not None:
        wait += reply.delay + (reply.seconds if reply.kind == "hang" else 0.0)
    if wait > 0:
        await asyncio.sleep(wait)
    if reply is not None and reply.kind == "drop":
        finish(None)
        return await drop(http)
    response = render()
    if reply is not None and reply.kind == "trickle":
        return await trickle(
            http,
            response,
            seconds=reply.seconds,
            pieces=reply.pieces,
            last=lambda: finish(response.status),
        )
    finish(response.status)
    return response


def _error_response(error: WireError, headers: Sequence[tuple[str, str]] = ()) -> web.Response:
    body = error_body(error.status, error.message, param=error.param, code=error.code)
    return json_response(error.status, body, headers)


def _reply_error(reply: Reply) -> web.Response:
    """An error reply's response: OpenAI's error body (with usage, when the reply bills),
    and ``Retry-After`` when it gives one."""
    headers: list[tuple[str, str]] = []
    if reply.retry_after is not None:
        headers.append(("Retry-After", header_seconds(reply.retry_after)))
    body = error_body(reply.status, reply.content or "")
    usage = reply.error_usage()
    if usage is not None:
        body["usage"] = usage
    return json_response(reply.status, body, headers)
