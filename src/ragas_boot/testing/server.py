"""A local OpenAI-compatible HTTP server with scripted answers and injected faults.

Tests of ragas-boot (and of users' own configs) reach their judges over real HTTP: this server
answers ``POST /v1/chat/completions`` and ``GET /v1/models`` on ``127.0.0.1`` (a free port) from
an asyncio loop in a daemon thread, so it serves sync and async tests alike, keeps connections
alive and holds hundreds of requests in flight at once. It uses the standard library only.

Example:
    .. code-block:: python

        import openai

        from ragas_boot.testing import FakeOpenAIServer, Reply, asks_for

        with FakeOpenAIServer() as server:
            # judge-a answers these in order, then falls back to its responder or the default
            server.script("judge-a", {"verdict": 1}, Reply.error(429, retry_after=2))
            # the first rule whose predicate is true answers (this one twice at most)
            server.when(asks_for("goal"), {"goal": "book a flight"}, times=2)
            # a function answers the requests of judge-b
            server.respond("judge-b", lambda r: {"verdict": int("refund" not in r.prompt)})
            server.inject_faults("judge-c", rate_429=0.2, rate_hang=0.05, seed=7)
            server.set_latency(None, 0.01)
            # Spring-style configs take server.base_url; OpenAI clients take server.url
            with openai.OpenAI(base_url=server.url, api_key="test", max_retries=0) as client:
                answer = client.chat.completions.create(
                    model="judge-a", messages=[{"role": "user", "content": "Judge this."}]
                )
            assert answer.choices[0].message.content == '{"verdict": 1}'
            assert server.requests_for("judge-a")[0].status == 200

Which answer a chat request gets, first match wins:

1. ``stream: true`` is refused (400): the server does not stream.
2. ``fail_always(model, reply)``: a model that is down.
3. ``inject_faults(...)``: a seeded draw may pick a fault (429, 500, garbage, hang, drop); a
   faulted request consumes no script and no rule.
4. ``when(predicate, reply, model=None, times=None)`` rules, in the order they were added.
5. ``script(model, *replies)``: the model's own queue, then the any-model (``None``) queue.
6. ``respond(model, responder)``: the model's responder, then the any-model one.
7. The default: a minimal instance of the request's JSON schema when one is known (see
   :attr:`ChatRequest.json_schema`), else a short text ("ok").

Anything that gives an answer may be a :class:`Reply`, a ``dict`` (as :meth:`Reply.json`), a
``str`` (as :meth:`Reply.text`) or a function of the :class:`ChatRequest` returning one of
those. Functions and predicates run on the server's thread; one that raises makes a 500 answer
whose record carries the error. ``set_latency`` delays every answer of a model (``None``: all
models) on top of a reply's own ``delay``; delays never block other requests.

Every chat request is recorded (``requests``, ``requests_for``, ``count``) with the status sent,
the fault that hit it and when it was answered; ``in_flight`` and ``peak_in_flight`` count the
requests handled at once. ``reset()`` forgets scripts, rules, faults, records and counters.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Final, Literal, Self, TypeAlias

from ragas_boot.testing._http import (
    HEADER_LIMIT,
    BadRequestError,
    Headers,
    dumps,
    error_body,
    header_seconds,
    parse_head,
    read_body,
    reason,
    response_bytes,
)
from ragas_boot.testing._schema import find_schema_in_text, minimal_instance

__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_TEXT",
    "ChatRequest",
    "FakeOpenAIServer",
    "FaultName",
    "RecordedRequest",
    "Reply",
    "ReplyKind",
    "ReplyLike",
    "ReplySource",
    "Rule",
    "asks_for",
]

DEFAULT_MODEL: Final = "fake-model"
"""The model listed by ``GET /v1/models`` when no model was scripted or asked for yet."""
DEFAULT_TEXT: Final = "ok"
"""The answer to a request that has no script and no known JSON schema."""

ReplyKind: TypeAlias = Literal[
    "json", "text", "tool_calls", "error", "garbage", "empty", "hang", "drop"
]
FaultName: TypeAlias = Literal["429", "500", "garbage", "hang", "drop", "fail_always"]

_HOST: Final = "127.0.0.1"
_BACKLOG: Final = 1024
_STOP_TIMEOUT: Final = 10.0
_CLOSE_TIMEOUT: Final = 2.0
_CHAT_PATH: Final = "/v1/chat/completions"
_MODELS_PATH: Final = "/v1/models"
# A 200 answer cut off mid-document, like a proxy that dropped the upstream.
_GARBAGE_BODY: Final = b'{"id": "chatcmpl-garbage", "object": "chat.completion", "choices": [{"mes'
_DEFAULT_ERROR_MESSAGES: Final = {
    429: "Rate limit reached for requests. Please try again later.",
    500: "The server had an error while processing your request. Sorry about that!",
    502: "Bad gateway.",
    503: "The engine is currently overloaded, please try again later.",
}


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """One chat-completion request as the server received it.

    Attributes:
        model: the ``model`` field of the request.
        messages: the ``messages`` field (OpenAI chat format, as sent).
        prompt: the text of the last user message (text parts joined by newlines), or "".
        response_format: the ``response_format`` field, if any.
        tools: the ``tools`` field, if any.
        tool_choice: the ``tool_choice`` field, if any.
        json_schema: the JSON schema the answer should follow, best effort: the forced tool's
            parameters, else ``response_format``'s schema (``json_schema``, or ``json_object``
            with a ``schema``), else a schema written in a message (after the words
            "JSON Schema" or in a fenced ``json`` block), else ``None``.
        forced_tool: the function the request forces (``tool_choice`` names it, or ``tools``
            holds exactly one and ``tool_choice`` is ``"required"``), or ``None``.
        body: the whole JSON body.
        headers: the HTTP headers, names in lower case.
        received_at: ``time.monotonic()`` when the request was read.
        wall_time: ``time.time()`` when the request was read.
        index: the request's number on this server, from 0 (since start or ``reset()``).
    """

    model: str
    messages: list[dict[str, Any]]
    prompt: str
    response_format: dict[str, Any] | None
    tools: list[dict[str, Any]] | None
    tool_choice: str | dict[str, Any] | None
    json_schema: dict[str, Any] | None
    forced_tool: str | None
    body: dict[str, Any] = field(repr=False)
    headers: dict[str, str] = field(repr=False)
    received_at: float
    wall_time: float
    index: int

    @property
    def stream(self) -> bool:
        """Whether the client asked for a streamed answer."""
        return self.body.get("stream") is True

    def asks_for(self, field_name: str) -> bool:
        """Whether the answer's schema has the property ``field_name``.

        It tells a metric's steps apart (``goal_achieved``, ``inferred_goal``, ``topics``,
        ``classifications``) in every structured-output mode, prompt mode included.
        """
        return field_name in (self.json_schema or {}).get("properties", {})


def asks_for(field_name: str) -> Callable[[ChatRequest], bool]:
    """A rule predicate: the request's answer schema has the property ``field_name``.

    Example: ``server.when(asks_for("goal_achieved"), {"goal_achieved": True, "reason": "ok"})``.
    """
    return lambda request: request.asks_for(field_name)


@dataclass(frozen=True, slots=True)
class Reply:
    """An answer of the fake server; build one with the class methods.

    Attributes:
        kind: what the server sends (see the class methods).
        content: the message content (the JSON text for ``json``), or the error message.
        calls: for ``tool_calls``: ``(name, arguments as JSON text, id or None)`` each.
        status: the HTTP status.
        retry_after: the ``Retry-After`` header in seconds, for errors.
        seconds: how long a ``hang`` holds the request.
        delay: seconds to wait before answering (added to the model's latency).
        usage: fields that override the estimated ``usage`` block.
    """

    kind: ReplyKind
    content: str | None = None
    calls: tuple[tuple[str, str, str | None], ...] = ()
    status: int = 200
    retry_after: float | None = None
    seconds: float = 0.0
    delay: float = 0.0
    usage: Mapping[str, int] | None = None

    def __post_init__(self) -> None:
        for name in ("delay", "seconds"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and math.isfinite(value) and value >= 0):
                raise ValueError(f"Reply {name} must be a finite number >= 0, got {value!r}")

    @classmethod
    def json(cls, obj: Any, *, delay: float = 0.0, usage: Mapping[str, int] | None = None) -> Reply:
        """An answer whose content is ``obj`` as JSON.

        When the request forces a tool, the answer is a call of that tool with
        ``arguments=json.dumps(obj)`` and no content, as a model in function-calling mode.

        Args:
            obj: any JSON-serialisable value.
            delay: seconds to wait before answering.
            usage: fields that override the estimated token usage.

        Raises:
            TypeError: ``obj`` is not JSON-serialisable.
        """
        return cls("json", content=json.dumps(obj, ensure_ascii=False), delay=delay, usage=usage)

    @classmethod
    def text(
        cls, content: str, *, delay: float = 0.0, usage: Mapping[str, int] | None = None
    ) -> Reply:
        """An answer whose content is ``content`` as is (prose, fenced or broken JSON, ...).

        Args:
            content: the message content.
            delay: seconds to wait before answering.
            usage: fields that override the estimated token usage.
        """
        return cls("text", content=content, delay=delay, usage=usage)

    @classmethod
    def tool_calls(
        cls,
        calls: Sequence[Mapping[str, Any]],
        content: str | None = None,
        *,
        delay: float = 0.0,
        usage: Mapping[str, int] | None = None,
    ) -> Reply:
        """An assistant turn that calls tools (``finish_reason`` ``"tool_calls"``).

        Args:
            calls: one mapping per call: ``name``, ``arguments`` (a dict, serialised to JSON,
                or a string sent as is, even if it is not JSON) and optionally ``id`` (else
                the server makes a ``call_...`` id).
            content: the content sent along with the calls.
            delay: seconds to wait before answering.
            usage: fields that override the estimated token usage.

        Raises:
            ValueError: a call has no ``name``.
        """
        specs: list[tuple[str, str, str | None]] = []
        for call in calls:
            name = call.get("name")
            if not isinstance(name, str) or not name:
                raise ValueError(f"each tool call needs a 'name', got {dict(call)!r}")
            arguments = call.get("arguments", {})
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments, ensure_ascii=False)
            call_id = call.get("id")
            specs.append((name, arguments, str(call_id) if call_id is not None else None))
        return cls("tool_calls", content=content, calls=tuple(specs), delay=delay, usage=usage)

    @classmethod
    def error(
        cls,
        status: int,
        message: str | None = None,
        *,
        retry_after: float | None = None,
        delay: float = 0.0,
    ) -> Reply:
        """An HTTP error with an OpenAI error body ``{"error": {"message", "type", "code"}}``.

        Args:
            status: the HTTP status (400-599).
            message: the error message; a stock one for the status when omitted.
            retry_after: seconds sent in a ``Retry-After`` header.
            delay: seconds to wait before answering.

        Raises:
            ValueError: ``status`` is not an error status.
        """
        if not 400 <= status <= 599:
            raise ValueError(f"an error status is 400-599, got {status}")
        if message is None:
            message = _DEFAULT_ERROR_MESSAGES.get(status, reason(status))
        return cls("error", content=message, status=status, retry_after=retry_after, delay=delay)

    @classmethod
    def garbage(cls, *, delay: float = 0.0) -> Reply:
        """A 200 answer whose JSON body is cut off, so it does not parse.

        Args:
            delay: seconds to wait before answering.
        """
        return cls("garbage", delay=delay)

    @classmethod
    def empty(cls, *, delay: float = 0.0, usage: Mapping[str, int] | None = None) -> Reply:
        """A 200 answer whose content is the empty string.

        Args:
            delay: seconds to wait before answering.
            usage: fields that override the estimated token usage.
        """
        return cls("empty", content="", delay=delay, usage=usage)

    @classmethod
    def hang(cls, seconds: float, *, delay: float = 0.0) -> Reply:
        """Hold the request ``seconds`` (for client timeouts), then send the default answer.

        Other requests are served meanwhile; ``stop()`` closes a request still held.

        Args:
            seconds: how long to hold the request.
            delay: more seconds to wait, added to ``seconds``.
        """
        return cls("hang", seconds=seconds, delay=delay)

    @classmethod
    def drop(cls, *, delay: float = 0.0) -> Reply:
        """Close the connection without answering (the client sees a connection error).

        Args:
            delay: seconds to wait before closing.
        """
        return cls("drop", delay=delay)


ReplyLike: TypeAlias = Reply | dict[str, Any] | str
"""A reply, a dict (sent as :meth:`Reply.json`) or a string (sent as :meth:`Reply.text`)."""
ReplySource: TypeAlias = ReplyLike | Callable[[ChatRequest], ReplyLike]
"""A :data:`ReplyLike`, or a function that makes one from the request."""


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """A chat request the server received, with what it did about it.

    Attributes:
        request: the request.
        status: the HTTP status sent; ``None`` while the request is in flight, when the
            connection was dropped, or when ``stop()`` closed it first.
        fault: the injected fault that hit the request, if any.
        answered_at: ``time.monotonic()`` when the answer was sent or the connection closed
            (dropped, or closed by ``stop()``); ``None`` while in flight.
        error: the error raised by a predicate or responder for this request, if any.
    """

    request: ChatRequest
    status: int | None
    fault: FaultName | None
    answered_at: float | None
    error: str | None


class Rule:
    """A conditional answer added with :meth:`FakeOpenAIServer.when`."""

    __slots__ = ("_hits", "_model", "_predicate", "_reply", "_server", "_times")

    def __init__(
        self,
        *,
        server: FakeOpenAIServer,
        predicate: Callable[[ChatRequest], bool],
        reply: ReplySource,
        model: str | None,
        times: int | None,
    ) -> None:
        self._server = server
        self._predicate = predicate
        self._reply = reply
        self._model = model
        self._times = times
        self._hits = 0

    @property
    def hits(self) -> int:
        """How many requests this rule answered."""
        with self._server._lock:
            return self._hits

    @property
    def remaining(self) -> int | None:
        """How many more requests it will answer (``None``: no limit)."""
        with self._server._lock:
            return None if self._times is None else self._times - self._hits

    def remove(self) -> None:
        """Stop using this rule."""
        with self._server._lock:
            if self in self._server._rules:
                self._server._rules.remove(self)

    def _take(self, request: ChatRequest) -> ReplySource | None:
        # Called under the server lock; the predicate may raise, the caller records it.
        if self._model is not None and self._model != request.model:
            return None
        if not self._predicate(request):
            return None
        self._hits += 1
        if self._times is not None and self._hits >= self._times:
            self._server._rules.remove(self)
        return self._reply

    def __repr__(self) -> str:
        return f"<Rule model={self._model!r} hits={self._hits} times={self._times}>"


class _FaultPlan:
    __slots__ = ("hang_seconds", "limits", "retry_after", "rng")

    def __init__(
        self,
        *,
        rates: Sequence[tuple[FaultName, float]],
        retry_after: float,
        hang_seconds: float,
        seed: int,
    ) -> None:
        total = 0.0
        limits: list[tuple[float, FaultName]] = []
        for name, rate in rates:
            if not 0.0 <= rate <= 1.0:
                raise ValueError(f"fault rate for {name} must be within [0, 1], got {rate}")
            total += rate
            limits.append((total, name))
        if total > 1.0 + 1e-9:
            raise ValueError(f"fault rates add up to {total:g}, more than 1")
        self.limits = tuple(limits)
        self.retry_after = retry_after
        self.hang_seconds = hang_seconds
        self.rng = random.Random(seed)

    def draw(self) -> FaultName | None:
        point = self.rng.random()
        for limit, name in self.limits:
            if point < limit:
                return name
        return None

    def reply(self, fault: FaultName) -> Reply:
        if fault == "429":
            return Reply.error(429, retry_after=self.retry_after)
        if fault == "500":
            return Reply.error(500)
        if fault == "garbage":
            return Reply.garbage()
        if fault == "hang":
            return Reply.hang(self.hang_seconds)
        return Reply.drop()


class _Entry:
    __slots__ = ("answered_at", "error", "fault", "request", "status")

    def __init__(self, request: ChatRequest) -> None:
        self.request = request
        self.status: int | None = None
        self.fault: FaultName | None = None
        self.answered_at: float | None = None
        self.error: str | None = None

    def snapshot(self) -> RecordedRequest:
        return RecordedRequest(
            request=self.request,
            status=self.status,
            fault=self.fault,
            answered_at=self.answered_at,
            error=self.error,
        )


# (status, JSON body, extra headers)
_Response: TypeAlias = tuple[int, bytes, Headers]


class FakeOpenAIServer:
    """A local OpenAI-compatible chat-completions server for tests (see the module docstring).

    Start it with :meth:`start` or a ``with`` block; it listens on ``127.0.0.1`` on a free
    port. All methods may be called from any thread while it runs.

    Args:
        default_text: the answer to a request with no script and no known JSON schema.
    """

    def __init__(self, *, default_text: str = DEFAULT_TEXT) -> None:
        self._default_text = default_text
        self._lock = threading.RLock()
        self._scripts: dict[str | None, deque[ReplySource]] = {}
        self._responders: dict[str | None, ReplySource] = {}
        self._rules: list[Rule] = []
        self._latency: dict[str | None, float] = {}
        self._faults: dict[str | None, _FaultPlan] = {}
        self._down: dict[str | None, Reply] = {}
        self._models: dict[str, None] = {}
        self._entries: list[_Entry] = []
        self._next_index = 0
        self._in_flight = 0
        self._peak = 0
        self._in_flight_by: dict[str, int] = {}
        self._peak_by: dict[str, int] = {}
        # Owned by the server thread once started.
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._closing = False
        self._port: int | None = None
        self._startup_error: BaseException | None = None
        self._connections: dict[asyncio.Task[Any], asyncio.StreamWriter] = {}

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> Self:
        """Start serving on ``127.0.0.1`` (a free port) from a daemon thread.

        Returns:
            The server itself.

        Raises:
            RuntimeError: the server is already running.
            OSError: the port could not be bound.
        """
        if self._thread is not None:
            raise RuntimeError("FakeOpenAIServer is already running")
        ready = threading.Event()
        self._startup_error = None
        self._closing = False
        thread = threading.Thread(
            target=self._run, args=(ready,), name="FakeOpenAIServer", daemon=True
        )
        self._thread = thread
        thread.start()
        ready.wait()
        if self._startup_error is not None:
            thread.join()
            self._thread = None
            raise self._startup_error
        thread.name = f"FakeOpenAIServer-{self._port}"
        return self

    def stop(self) -> None:
        """Stop serving: close the listening socket and every connection, join the thread.

        Requests still held (hangs, delays) are closed unanswered. Calling it again, or on a
        server never started, does nothing. Recorded requests stay readable.

        Raises:
            RuntimeError: the server thread did not end in time.
        """
        thread = self._thread
        if thread is None:
            return
        loop, stopping = self._loop, self._stopping
        if loop is not None and stopping is not None and thread.is_alive():
            # RuntimeError: the loop closed in between, the thread is ending anyway.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stopping.set)
        thread.join(_STOP_TIMEOUT)
        if thread.is_alive():
            raise RuntimeError(f"FakeOpenAIServer thread did not stop in {_STOP_TIMEOUT} s")
        self._thread = None
        self._loop = None
        self._stopping = None
        self._port = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        """Whether the server is serving."""
        return self._thread is not None

    @property
    def port(self) -> int:
        """The TCP port it listens on.

        Raises:
            RuntimeError: the server is not running.
        """
        if self._port is None:
            raise RuntimeError("FakeOpenAIServer is not running: call start() or use `with`")
        return self._port

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``, without ``/v1`` (Spring AI's ``base-url``)."""
        return f"http://{_HOST}:{self.port}"

    @property
    def url(self) -> str:
        """``base_url + "/v1"``, the ``base_url`` an OpenAI or ChatOpenAI client takes."""
        return f"{self.base_url}/v1"

    def __repr__(self) -> str:
        where = f"http://{_HOST}:{self._port}" if self._port is not None else "stopped"
        return f"<FakeOpenAIServer {where}>"

    # -- scripting ---------------------------------------------------------------------

    def script(self, model: str | None, *replies: ReplySource) -> None:
        """Queue replies answered in order to requests for ``model`` (``None``: any model).

        When the queue is empty, requests fall back to the responder or the default.

        Args:
            model: the model name, or ``None`` for requests of any model not scripted.
            *replies: the replies, in order.
        """
        with self._lock:
            self._remember(model)
            self._scripts.setdefault(model, deque()).extend(replies)

    def respond(self, model: str | None, responder: ReplySource | None) -> None:
        """Answer every unscripted request for ``model`` with ``responder``.

        Args:
            model: the model name, or ``None`` for any model.
            responder: a function of the :class:`ChatRequest` returning a reply, a dict or a
                string, or a fixed reply; ``None`` removes the responder.
        """
        with self._lock:
            self._remember(model)
            if responder is None:
                self._responders.pop(model, None)
            else:
                self._responders[model] = responder

    def when(
        self,
        predicate: Callable[[ChatRequest], bool],
        reply: ReplySource,
        *,
        model: str | None = None,
        times: int | None = None,
    ) -> Rule:
        """Answer the requests for which ``predicate`` is true with ``reply``.

        Rules come before scripts and responders; the first matching rule wins.

        Args:
            predicate: a test of the request, e.g. ``lambda r: "refund" in r.prompt``; to
                tell a metric's steps apart use :func:`asks_for` (``asks_for("topics")``),
                which works in every structured-output mode.
            reply: the answer, or a function of the request making it.
            model: only requests for this model (``None``: any model).
            times: answer this many requests, then drop the rule (``None``: no limit).

        Returns:
            The rule, which counts its hits and can be removed.

        Raises:
            ValueError: ``times`` is less than 1.
        """
        if times is not None and times < 1:
            raise ValueError(f"times must be at least 1, got {times}")
        rule = Rule(server=self, predicate=predicate, reply=reply, model=model, times=times)
        with self._lock:
            self._remember(model)
            self._rules.append(rule)
        return rule

    def set_latency(self, model: str | None, seconds: float) -> None:
        """Delay every answer for ``model`` (``None``: models without their own latency).

        Args:
            model: the model name, or ``None`` for all models.
            seconds: the delay; 0 removes it.

        Raises:
            ValueError: ``seconds`` is negative.
        """
        if not (math.isfinite(seconds) and seconds >= 0):
            raise ValueError(f"latency must be a finite number >= 0, got {seconds!r}")
        with self._lock:
            self._remember(model)
            if seconds:
                self._latency[model] = seconds
            else:
                self._latency.pop(model, None)

    def inject_faults(
        self,
        model: str | None = None,
        *,
        rate_429: float = 0.0,
        retry_after: float = 1.0,
        rate_500: float = 0.0,
        rate_garbage: float = 0.0,
        rate_hang: float = 0.0,
        hang_seconds: float = 30.0,
        rate_drop: float = 0.0,
        seed: int = 0,
    ) -> None:
        """Make a seeded share of ``model``'s requests fail (replacing earlier settings).

        Each request draws once from its own ``random.Random(seed)``, so a sequential client
        sees the same faults on every run. A faulted request consumes no script or rule; its
        record names the fault. Model-specific settings win over the ``None`` ones.

        Args:
            model: the model name, or ``None`` for models without their own settings.
            rate_429: share answered 429 with a ``Retry-After`` header.
            retry_after: that header's seconds.
            rate_500: share answered 500.
            rate_garbage: share answered 200 with a body that is not JSON.
            rate_hang: share held ``hang_seconds`` before the default answer.
            hang_seconds: how long a hang lasts.
            rate_drop: share whose connection is closed without an answer.
            seed: the seed of the draws.

        Raises:
            ValueError: a rate is outside [0, 1] or the rates add up to more than 1.
        """
        rates: list[tuple[FaultName, float]] = [
            ("429", rate_429),
            ("500", rate_500),
            ("garbage", rate_garbage),
            ("hang", rate_hang),
            ("drop", rate_drop),
        ]
        plan = _FaultPlan(
            rates=rates, retry_after=retry_after, hang_seconds=hang_seconds, seed=seed
        )
        with self._lock:
            self._remember(model)
            if any(rate for _, rate in rates):
                self._faults[model] = plan
            else:
                self._faults.pop(model, None)

    def fail_always(self, model: str | None, reply: Reply | None = None) -> None:
        """Answer every request for ``model`` with ``reply`` (a model that is down).

        Args:
            model: the model name, or ``None`` for all models.
            reply: the failure; a 500 error when omitted.
        """
        with self._lock:
            self._remember(model)
            self._down[model] = reply if reply is not None else Reply.error(500)

    def reset(self) -> None:
        """Forget scripts, responders, rules, latencies, faults, records and counters."""
        with self._lock:
            self._scripts.clear()
            self._responders.clear()
            self._rules.clear()
            self._latency.clear()
            self._faults.clear()
            self._down.clear()
            self._models.clear()
            self._entries.clear()
            self._next_index = 0
            self._peak = self._in_flight
            self._peak_by = {m: n for m, n in self._in_flight_by.items() if n}

    def _remember(self, model: str | None) -> None:
        if model is not None and model not in self._models:
            self._models[model] = None

    # -- observability -----------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        """The chat requests received so far, in arrival order (a snapshot)."""
        with self._lock:
            return [entry.snapshot() for entry in self._entries]

    def requests_for(self, model: str) -> list[RecordedRequest]:
        """The chat requests received for ``model``, in arrival order."""
        with self._lock:
            return [e.snapshot() for e in self._entries if e.request.model == model]

    def count(self, model: str | None = None) -> int:
        """How many chat requests were received for ``model`` (``None``: all)."""
        with self._lock:
            if model is None:
                return len(self._entries)
            return sum(1 for entry in self._entries if entry.request.model == model)

    @property
    def in_flight(self) -> int:
        """Chat requests being handled right now."""
        with self._lock:
            return self._in_flight

    @property
    def peak_in_flight(self) -> int:
        """The most chat requests handled at once, across models."""
        with self._lock:
            return self._peak

    def peak_in_flight_for(self, model: str) -> int:
        """The most chat requests for ``model`` handled at once."""
        with self._lock:
            return self._peak_by.get(model, 0)

    # -- server thread ----------------------------------------------------------------

    def _run(self, ready: threading.Event) -> None:
        try:
            asyncio.run(self._main(ready))
        except BaseException as error:  # handed to start(), or ends with the thread
            if not ready.is_set():
                self._startup_error = error
        finally:
            ready.set()

    async def _main(self, ready: threading.Event) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = stopping = asyncio.Event()
        try:
            server = await asyncio.start_server(
                self._serve_connection, _HOST, 0, backlog=_BACKLOG, limit=HEADER_LIMIT
            )
        except BaseException as error:
            self._startup_error = error
            ready.set()
            return
        self._port = server.sockets[0].getsockname()[1]
        ready.set()
        try:
            await stopping.wait()
        finally:
            self._closing = True
            server.close()
            await self._close_connections()
            await server.wait_closed()
            await asyncio.sleep(0)  # lets aborted transports release their sockets

    async def _close_connections(self) -> None:
        # Connections accepted while closing register late, hence the loop.
        while self._connections:
            connections = dict(self._connections)
            for task in connections:
                task.cancel()
            _, pending = await asyncio.wait(connections, timeout=_CLOSE_TIMEOUT)
            for task in pending:
                connections[task].transport.abort()
            if pending:
                await asyncio.wait(pending, timeout=_CLOSE_TIMEOUT)
                for task in pending:
                    self._connections.pop(task, None)

    async def _serve_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections[task] = writer
        try:
            await self._serve_requests(reader, writer)
        except asyncio.CancelledError:
            # Only stop() cancels; ending normally keeps asyncio from logging the task.
            pass
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass  # the client went away mid-request
        finally:
            self._connections.pop(task, None)
            if self._closing:
                writer.transport.abort()
            else:
                writer.close()
                with contextlib.suppress(OSError, asyncio.CancelledError):
                    await writer.wait_closed()

    async def _serve_requests(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError:
                return  # the client closed an idle connection
            except asyncio.LimitOverrunError:
                writer.write(
                    response_bytes(431, error_body(431, "Request headers too large."), False)
                )
                return
            try:
                method, path, keep_alive, headers = parse_head(head)
                if "100-continue" in headers.get("expect", "").lower():
                    writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
                body = await read_body(reader, method, headers)
            except BadRequestError as error:
                body_json = error_body(error.status, error.message, code=error.code)
                writer.write(response_bytes(error.status, body_json, False))
                return
            if path == _CHAT_PATH and method == "POST":
                if not await self._serve_chat(writer, headers, body, keep_alive):
                    return
            else:
                status, payload, extra = self._other(method, path)
                writer.write(response_bytes(status, payload, keep_alive, extra))
                await writer.drain()
            if not keep_alive:
                return

    def _other(self, method: str, path: str) -> _Response:
        if path == _MODELS_PATH and method == "GET":
            with self._lock:
                names = list(self._models) or [DEFAULT_MODEL]
            data = [
                {"id": name, "object": "model", "created": 0, "owned_by": "ragas-boot"}
                for name in names
            ]
            return 200, dumps({"object": "list", "data": data}), ()
        if path in (_CHAT_PATH, _MODELS_PATH):
            message = f"Method {method} is not allowed on {path}."
            allow = "POST" if path == _CHAT_PATH else "GET"
            return 405, error_body(405, message, code="method_not_allowed"), (("Allow", allow),)
        message = f"Invalid URL ({method} {path})"
        return 404, error_body(404, message, code="unknown_url"), ()

    # -- chat completions --------------------------------------------------------------

    async def _serve_chat(
        self, writer: asyncio.StreamWriter, headers: dict[str, str], body: bytes, keep_alive: bool
    ) -> bool:
        """Answer one chat request; False when the connection must be closed (a drop)."""
        received_at, wall_time = time.monotonic(), time.time()
        try:
            fields = _chat_fields(body)
        except BadRequestError as error:
            writer.write(
                response_bytes(error.status, error_body(error.status, error.message), keep_alive)
            )
            await writer.drain()
            return True
        entry = self._begin(fields, headers, received_at, wall_time)
        try:
            response = await self._answer(entry)
            # Recorded before the client can read the answer, so tests see it at once.
            self._finish(entry, None if response is None else response[0])
            if response is None:
                return False
            status, payload, extra = response
            extra = (*extra, ("x-request-id", f"req_fake{entry.request.index:08d}"))
            writer.write(response_bytes(status, payload, keep_alive, extra))
            await writer.drain()
            return True
        finally:
            self._finish(entry, None)  # closed by stop() before answering; else a no-op

    async def _answer(self, entry: _Entry) -> _Response | None:
        request = entry.request
        if request.stream:
            message = (
                "Streaming is not supported by FakeOpenAIServer; send `stream: false` "
                "(ChatOpenAI: streaming=False)."
            )
            return 400, error_body(400, message, code="stream_not_supported"), ()
        reply, fault, error = self._decide(request)
        with self._lock:
            entry.fault, entry.error = fault, error
            latency = self._latency.get(request.model, self._latency.get(None, 0.0))
        wait = latency + reply.delay + reply.seconds
        if wait > 0:
            await asyncio.sleep(wait)
        if reply.kind == "drop":
            return None
        return self._render(request, reply)

    def _begin(
        self, fields: dict[str, Any], headers: dict[str, str], received_at: float, wall: float
    ) -> _Entry:
        with self._lock:
            request = ChatRequest(
                headers=headers,
                received_at=received_at,
                wall_time=wall,
                index=self._next_index,
                **fields,
            )
            self._next_index += 1
            entry = _Entry(request)
            self._entries.append(entry)
            model = request.model
            self._remember(model)
            self._in_flight += 1
            self._peak = max(self._peak, self._in_flight)
            count = self._in_flight_by.get(model, 0) + 1
            self._in_flight_by[model] = count
            if count > self._peak_by.get(model, 0):
                self._peak_by[model] = count
        return entry

    def _finish(self, entry: _Entry, status: int | None) -> None:
        with self._lock:
            if entry.answered_at is not None:
                return
            entry.status = status
            entry.answered_at = time.monotonic()
            self._in_flight -= 1
            self._in_flight_by[entry.request.model] -= 1

    def _decide(self, request: ChatRequest) -> tuple[Reply, FaultName | None, str | None]:
        model = request.model
        source: ReplySource | None = None
        with self._lock:
            down = self._down.get(model, self._down.get(None))
            if down is not None:
                return down, "fail_always", None
            plan = self._faults.get(model, self._faults.get(None))
            if plan is not None:
                fault = plan.draw()
                if fault is not None:
                    return plan.reply(fault), fault, None
            try:
                for rule in self._rules:
                    source = rule._take(request)
                    if source is not None:
                        break
            except Exception as error:
                return _callback_failure("a `when` predicate", error)
            if source is None:
                for key in (model, None):
                    queue = self._scripts.get(key)
                    if queue:
                        source = queue.popleft()
                        break
            if source is None:
                source = self._responders.get(model, self._responders.get(None))
        if source is None:
            return self._default_reply(request), None, None
        if callable(source):
            try:
                source = source(request)
            except Exception as error:
                return _callback_failure("a responder", error)
        if isinstance(source, Reply):
            return source, None, None
        if isinstance(source, dict):
            return Reply.json(source), None, None
        if isinstance(source, str):
            return Reply.text(source), None, None
        problem = TypeError(f"expected a Reply, dict or str, got {type(source).__name__}")
        return _callback_failure("a responder", problem)

    def _default_reply(self, request: ChatRequest) -> Reply:
        if request.json_schema is not None:
            return Reply.json(minimal_instance(request.json_schema))
        return Reply.text(self._default_text)

    def _render(self, request: ChatRequest, reply: Reply) -> _Response:
        kind = reply.kind
        if kind == "error":
            extra: Headers = ()
            if reply.retry_after is not None:
                extra = (("Retry-After", header_seconds(reply.retry_after)),)
            return reply.status, error_body(reply.status, reply.content or ""), extra
        if kind == "garbage":
            return 200, _GARBAGE_BODY, ()
        if kind == "hang":
            reply = self._default_reply(request)
        message: dict[str, Any] = {"role": "assistant", "content": reply.content, "refusal": None}
        finish_reason = "stop"
        calls: Sequence[tuple[str, str, str | None]] = reply.calls
        if reply.kind == "json" and request.forced_tool is not None:
            calls = ((request.forced_tool, reply.content or "", None),)
            message["content"] = None
        if calls:
            message["tool_calls"] = [
                {
                    "id": call_id or f"call_{request.index:06d}{position:03d}",
                    "type": "function",
                    "function": {"name": name, "arguments": arguments},
                }
                for position, (name, arguments, call_id) in enumerate(calls)
            ]
            finish_reason = "tool_calls"
        completion_chars = len(message["content"] or "") + sum(len(c[1]) for c in calls)
        prompt_chars = sum(len(_content_text(m.get("content"))) for m in request.messages)
        usage = {
            "prompt_tokens": math.ceil(prompt_chars / 4),
            "completion_tokens": math.ceil(completion_chars / 4),
        }
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        if reply.usage:
            usage.update(reply.usage)
            if "total_tokens" not in reply.usage:
                usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        completion = {
            "id": f"chatcmpl-fake{request.index:08d}",
            "object": "chat.completion",
            "created": int(request.wall_time),
            "model": request.model,
            "choices": [
                {"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}
            ],
            "usage": usage,
        }
        return 200, dumps(completion), ()


def _callback_failure(what: str, error: Exception) -> tuple[Reply, None, str]:
    text = f"{type(error).__name__}: {error}"
    return Reply.error(500, f"FakeOpenAIServer: {what} raised {text}"), None, text


# -- chat request parsing ------------------------------------------------------------------


def _chat_fields(raw: bytes) -> dict[str, Any]:
    try:
        body = json.loads(raw)
    except ValueError:
        message = "We could not parse the JSON body of your request. Send valid JSON."
        raise BadRequestError(400, message) from None
    if not isinstance(body, dict):
        raise BadRequestError(400, "The request body must be a JSON object.")
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise BadRequestError(400, "You must provide a model parameter.")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BadRequestError(400, "'messages' must be a non-empty array of message objects.")
    if not all(isinstance(message, dict) for message in messages):
        raise BadRequestError(400, "Each entry of 'messages' must be an object.")
    tools = body.get("tools")
    if tools is not None and not isinstance(tools, list):
        raise BadRequestError(400, "'tools' must be an array.")
    tool_choice = body.get("tool_choice")
    if tool_choice is not None and not isinstance(tool_choice, str | dict):
        raise BadRequestError(400, "'tool_choice' must be a string or an object.")
    response_format = body.get("response_format")
    if response_format is not None and not isinstance(response_format, dict):
        raise BadRequestError(400, "'response_format' must be an object.")
    prompt = ""
    for message in reversed(messages):
        if message.get("role") == "user":
            prompt = _content_text(message.get("content"))
            break
    forced_tool = _forced_tool(tools, tool_choice)
    return {
        "model": model,
        "messages": messages,
        "prompt": prompt,
        "response_format": response_format,
        "tools": tools,
        "tool_choice": tool_choice,
        "json_schema": _json_schema(messages, prompt, tools, forced_tool, response_format),
        "forced_tool": forced_tool,
        "body": body,
    }


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            part["text"]
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        ]
        return "\n".join(texts)
    return ""


def _tool_function(tool: Any) -> dict[str, Any] | None:
    if isinstance(tool, dict):
        function = tool.get("function", tool)
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            return function
    return None


def _forced_tool(tools: list[Any] | None, tool_choice: str | dict[str, Any] | None) -> str | None:
    if isinstance(tool_choice, dict):
        function = tool_choice.get("function")
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            return str(function["name"])
        name = tool_choice.get("name")  # the flat form some servers accept
        return name if isinstance(name, str) else None
    if tool_choice in ("required", "any") and tools and len(tools) == 1:
        function = _tool_function(tools[0])
        return str(function["name"]) if function is not None else None
    return None


def _json_schema(
    messages: list[dict[str, Any]],
    prompt: str,
    tools: list[Any] | None,
    forced_tool: str | None,
    response_format: dict[str, Any] | None,
) -> dict[str, Any] | None:
    if forced_tool is not None:
        for tool in tools or ():
            function = _tool_function(tool)
            if function is not None and function["name"] == forced_tool:
                parameters = function.get("parameters")
                return parameters if isinstance(parameters, dict) else None
    if response_format is not None:
        kind = response_format.get("type")
        schema: Any = None
        if kind == "json_schema":
            wrapper = response_format.get("json_schema")
            schema = wrapper.get("schema") if isinstance(wrapper, dict) else None
        elif kind == "json_object":
            schema = response_format.get("schema")
        if isinstance(schema, dict):
            return schema
    return find_schema_in_text(_texts(messages, prompt))


def _texts(messages: list[dict[str, Any]], prompt: str) -> Iterator[str]:
    # The prompt (last user message) first, then the other messages, latest first.
    yield prompt
    skipped = False
    for message in reversed(messages):
        if not skipped and message.get("role") == "user":
            skipped = True
            continue
        yield _content_text(message.get("content"))
