"""The base of the fakes of other vendors' APIs (GigaChat, Anthropic, Ollama): scripts, records.

These fakes exist to test ragas-boot's adapters of those vendors (they are test support, not
the library's API). Each is served by the same base as
:class:`~ragas_boot.testing.FakeOpenAIServer` (:class:`ragas_boot.testing._http.BackgroundServer`:
an ``aiohttp.web`` app on its own loop in a daemon thread, ``127.0.0.1``, a free port); answers
are scripted per model with the same :class:`~ragas_boot.testing.Reply` values (JSON, text,
errors with ``Retry-After``, cut-off bodies, hangs, dropped connections); an unscripted request
gets a minimal instance of the JSON schema it asks for. Subclasses only speak their wire
format: ``_route`` turns a request into a :class:`Response` (a chat request through a
:class:`ChatCall` and :meth:`FakeAPIServer._answer_chat`), ``_render`` a reply into a body.

``_route`` and the scripted responders are plain functions that may block (delays and hangs
wait on an event that ``stop()`` sets): each request runs them on a worker thread of the
server's loop.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any, ClassVar, Self

from ragas_boot.chat.wire.schemas import minimal_instance
from ragas_boot.testing import Reply, ReplyLike
from ragas_boot.testing._http import (
    HOST,
    BackgroundServer,
    drop,
    header_seconds,
    raw_response,
    received,
)

if TYPE_CHECKING:
    from aiohttp import web

__all__ = ["ChatCall", "FakeAPIServer", "ProviderRequest", "Response"]

#: Worker threads of a fake: as many requests as the tests hold at once (hangs included).
_WORKERS = 64


@dataclass(frozen=True, slots=True)
class ProviderRequest:
    """One request a fake received (for assertions).

    Attributes:
        method: HTTP method.
        path: the path, without the query.
        headers: request headers, names lower-case.
        body: the body parsed as JSON (or form fields), ``None`` when there was none.
        model: the model the request named, if any.
        status: the status answered (``None`` for a dropped connection).
        started: ``time.monotonic()`` when the request arrived.
        finished: ``time.monotonic()`` when its answer was ready (just before it was sent).
    """

    method: str
    path: str
    headers: Mapping[str, str]
    body: Any
    model: str | None
    status: int | None
    started: float
    finished: float


@dataclass(frozen=True, slots=True)
class ChatCall:
    """A chat request as the fake understood it.

    Attributes:
        model: the model asked for.
        texts: the message texts, the last one first.
        schema: the JSON schema the answer should follow (forced tool, response format, or
            the prompt), if any.
        tool: the tool the request forces, if any.
        body: the whole request body.
    """

    model: str
    texts: tuple[str, ...]
    schema: dict[str, Any] | None
    tool: str | None
    body: Mapping[str, Any]

    def asks_for(self, field_name: str) -> bool:
        """Whether the schema asked for has a top-level property ``field_name``."""
        return field_name in (self.schema or {}).get("properties", {})


@dataclass(slots=True)
class Response:
    """What a route answers: a status, a JSON body (or raw bytes) and headers."""

    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None
    drop: bool = False


ReplyFor = ReplyLike | Callable[[ChatCall], ReplyLike]


class FakeAPIServer:
    """Base of the fake provider servers: lifecycle, scripts, fault replies and records.

    Use it as a context manager (``with FakeGigaChatServer() as server:``) or call
    :meth:`start` and :meth:`stop`.
    """

    #: Thread name prefix (tests check that none is left running).
    thread_name: ClassVar[str] = "ragas-boot-fake-api"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._scripts: dict[str | None, deque[ReplyFor]] = {}
        self._responders: dict[str | None, ReplyFor] = {}
        self._records: list[ProviderRequest] = []
        self._in_flight = 0
        self._peak = 0
        self._stopping = threading.Event()
        self._server = BackgroundServer(self._serve, name=self.thread_name, workers=_WORKERS)

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> Self:
        """Bind a free port of 127.0.0.1 and serve from a background thread."""
        if self._server.running:
            return self
        self._stopping.clear()
        self._server.start()
        return self

    def stop(self) -> None:
        """Stop serving; held (hanging) requests are closed unanswered at once."""
        self._stopping.set()  # releases the worker threads that wait out a delay or a hang
        self._server.stop()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound port (the server must be started)."""
        port = self._server.port
        if port is None:
            raise RuntimeError(f"{type(self).__name__} is not started")
        return port

    @property
    def origin(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return f"http://{HOST}:{self.port}"

    def __repr__(self) -> str:
        where = self.origin if self._server.running else "stopped"
        return f"{type(self).__name__}({where}, requests={len(self._records)})"

    # ------------------------------------------------------------------ scripting

    def script(self, model: str | None, *replies: ReplyFor) -> None:
        """Queue answers for ``model`` (``None``: any model), used once each, in order.

        A reply is a :class:`~ragas_boot.testing.Reply`, a dict (sent as JSON), a string
        (sent as text) or a function of the :class:`ChatCall` that returns one of those.
        """
        with self._lock:
            self._scripts.setdefault(model, deque()).extend(replies)

    def respond(self, model: str | None, responder: ReplyFor | None) -> None:
        """Answer every unscripted request for ``model`` (``None``: any) with ``responder``."""
        with self._lock:
            if responder is None:
                self._responders.pop(model, None)
            else:
                self._responders[model] = responder

    def reset(self) -> None:
        """Forget scripts, responders and records."""
        with self._lock:
            self._scripts.clear()
            self._responders.clear()
            self._records.clear()
            self._peak = self._in_flight

    # ------------------------------------------------------------------ records

    @property
    def requests(self) -> list[ProviderRequest]:
        """Every request received, in the order they were answered."""
        with self._lock:
            return list(self._records)

    def chat_requests(self, model: str | None = None) -> list[ProviderRequest]:
        """The chat requests received (for ``model`` only, when given)."""
        return [
            record
            for record in self.requests
            if record.model is not None and (model is None or record.model == model)
        ]

    def count(self, model: str | None = None) -> int:
        """How many chat requests were received (for ``model`` only, when given)."""
        return len(self.chat_requests(model))

    @property
    def peak_in_flight(self) -> int:
        """The most chat requests held at once."""
        with self._lock:
            return self._peak

    def _record(self, record: ProviderRequest) -> None:
        with self._lock:
            self._records.append(record)

    # ------------------------------------------------------------------ serving

    async def _serve(self, request: web.Request) -> web.StreamResponse:
        arrival = received(request)
        raw = await request.read()
        body = self._parse_body(raw, arrival.headers.get("content-type", ""))
        # The vendor route and the test's responders may block: a worker thread runs them.
        response, model = await asyncio.to_thread(
            self._route_safely, request.method, arrival.path, arrival.headers, body
        )
        # Recorded before answering: a client that has its answer sees the request recorded.
        self._record(
            ProviderRequest(
                method=request.method,
                path=arrival.path,
                headers=arrival.headers,
                body=body,
                model=model,
                status=None if response.drop else response.status,
                started=arrival.received_at,
                finished=time.monotonic(),
            )
        )
        if response.drop:
            return await drop(request)
        payload = (
            response.raw
            if response.raw is not None
            else json.dumps(response.body, ensure_ascii=False).encode()
        )
        return raw_response(response.status, payload, response.headers)

    def _route_safely(
        self, method: str, path: str, headers: Mapping[str, str], body: Any
    ) -> tuple[Response, str | None]:
        try:
            return self._route(method, path, headers, body)
        except Exception as error:  # a bug of a test's responder: answer it, do not hang
            return Response(500, {"error": f"fake server error: {error!r}"}), None

    def _parse_body(self, raw: bytes, content_type: str) -> Any:
        if not raw:
            return None
        if "x-www-form-urlencoded" in content_type:
            from urllib.parse import parse_qs

            return {k: v[0] for k, v in parse_qs(raw.decode("utf-8", "replace")).items()}
        try:
            return json.loads(raw)
        except ValueError:
            return raw.decode("utf-8", "replace")

    def _route(
        self, method: str, path: str, headers: Mapping[str, str], body: Any
    ) -> tuple[Response, str | None]:
        """Answer one request; return the response and the model of a chat request."""
        raise NotImplementedError

    def _answer_chat(self, call: ChatCall) -> Response:
        """The scripted (or default) reply to a chat call, rendered by the subclass."""
        with self._lock:
            self._in_flight += 1
            self._peak = max(self._peak, self._in_flight)
        try:
            reply = self._reply_for(call)
            if reply.delay:
                self._stopping.wait(reply.delay)
            if reply.kind == "hang":
                self._stopping.wait(reply.seconds)
                reply = self._default(call)
            if reply.kind == "drop":
                return Response(0, drop=True)
            if reply.kind == "garbage":
                return Response(200, raw=b'{"id": "cut-off", "choices": [{"mess')
            if reply.kind == "error":
                headers = {}
                if reply.retry_after is not None:
                    headers["Retry-After"] = header_seconds(reply.retry_after)
                body = self._error_body(reply.status, reply.content or "")
                usage = reply.error_usage()
                if usage is not None and isinstance(body, dict):
                    # A provider that bills a failed completion says so beside the error.
                    body = {**body, "usage": usage}
                return Response(reply.status, body, headers)
            return Response(200, self._render(call, reply))
        finally:
            with self._lock:
                self._in_flight -= 1

    def _reply_for(self, call: ChatCall) -> Reply:
        with self._lock:
            source: ReplyFor | None = None
            for key in (call.model, None):
                queue = self._scripts.get(key)
                if queue:
                    source = queue.popleft()
                    break
            if source is None:
                source = self._responders.get(call.model) or self._responders.get(None)
        if source is None:
            return self._default(call)
        value = source(call) if callable(source) else source
        if isinstance(value, Reply):
            return value
        if isinstance(value, str):
            return Reply.text(value)
        return Reply.json(value)

    @staticmethod
    def _default(call: ChatCall) -> Reply:
        if call.schema is not None:
            return Reply.json(minimal_instance(call.schema))
        return Reply.text("ok")

    @staticmethod
    def usage(call: ChatCall, content: str) -> tuple[int, int]:
        """Prompt and completion tokens, estimated at four characters a token."""
        prompt = sum(len(text) for text in call.texts) // 4 + 1
        return prompt, len(content) // 4 + 1

    def _render(self, call: ChatCall, reply: Reply) -> Any:
        """The 200 body of a ``json``, ``text`` or ``empty`` reply."""
        raise NotImplementedError

    def _error_body(self, status: int, message: str) -> Any:
        """The body of an error reply."""
        raise NotImplementedError
