"""A local OpenAI-compatible HTTP server with scripted answers and injected faults.

Tests of ragas-boot (and of users' own configs) reach their judges over real HTTP: this server
answers ``POST /v1/chat/completions``, ``POST /v1/embeddings`` and ``GET /v1/models`` on
``127.0.0.1`` (a free port) from an ``aiohttp.web`` app on its own asyncio loop in a daemon
thread, so it serves sync and async tests alike, keeps connections alive and holds hundreds of
requests in flight at once.

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
3. ``inject_faults(...)``: a seeded draw may pick a fault (429, 500, garbage, hang, drop,
   trickle); a faulted request consumes no script and no rule.
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

Embedding requests (``POST /v1/embeddings``) get, first match wins: ``fail_always``, an
``inject_faults`` draw and ``set_latency`` of their model (the same tables as chat), then the
model's ``script_embeddings`` queue (a :class:`Reply` fault, or a list of vectors sent as they
are), then ``set_vectors`` (a text → vector mapping or function), then :func:`hashed_vector`: a
deterministic bag-of-words vector (``dimensions`` long, default
:data:`DEFAULT_EMBEDDING_DIMENSIONS`), so equal texts get equal vectors and texts sharing words
score a higher cosine than texts sharing none. They are recorded apart, in
``embedding_requests``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import math
import random
import re
import threading
import time
import zlib
from collections import deque
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final, Literal, Self, TypeAlias
from urllib.parse import parse_qsl

from ragas_boot.chat.wire.embeddings import (
    EmbeddingsRequest,
    embeddings_body,
    parse_embeddings_request,
)
from ragas_boot.chat.wire.openai import (
    ChatCompletionRequest,
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
    HOST,
    BackgroundServer,
    Received,
    drop,
    header_seconds,
    json_response,
    raw_response,
    reason,
    received,
    trickle,
)
from ragas_boot.testing._schema import find_schema_in_text, minimal_instance

if TYPE_CHECKING:
    from aiohttp import web

__all__ = [
    "DEFAULT_EMBEDDING_DIMENSIONS",
    "DEFAULT_MODEL",
    "DEFAULT_TEXT",
    "ChatRequest",
    "FakeOpenAIServer",
    "FaultName",
    "RecordedEmbeddingRequest",
    "RecordedRequest",
    "Reply",
    "ReplyKind",
    "ReplyLike",
    "ReplySource",
    "Rule",
    "VectorSource",
    "asks_for",
    "hashed_vector",
]

DEFAULT_MODEL: Final = "fake-model"
"""The model listed by ``GET /v1/models`` when no model was scripted or asked for yet."""
DEFAULT_TEXT: Final = "ok"
"""The answer to a request that has no script and no known JSON schema."""
DEFAULT_EMBEDDING_DIMENSIONS: Final = 64
"""Size of the default vectors of an embedding request that asks for no ``dimensions``."""

_WORD = re.compile(r"\w+", re.UNICODE)
_CHAT_PATH: Final = "/v1/chat/completions"


def _params(query: str) -> dict[str, str]:
    """A request's query string as parameters (the last of a repeated name wins)."""
    return dict(parse_qsl(query, keep_blank_values=True))


def hashed_vector(text: str, dimensions: int = DEFAULT_EMBEDDING_DIMENSIONS) -> list[float]:
    """A deterministic bag-of-words vector of ``text``, ``dimensions`` long.

    Each lower-cased word adds +1 or -1 (chosen by its CRC-32) at ``crc32 % dimensions``. Equal
    texts get equal vectors; texts sharing words have a higher cosine than texts sharing none;
    a text without words gets the first unit vector.
    """
    vector = [0.0] * dimensions
    words = _WORD.findall(text.lower())
    if not words:
        vector[0] = 1.0
        return vector
    for word in words:
        code = zlib.crc32(word.encode("utf-8"))
        vector[code % dimensions] += 1.0 if (code >> 16) & 1 else -1.0
    if not any(vector):
        vector[0] = 1.0  # every word cancelled out
    return vector


ReplyKind: TypeAlias = Literal[
    "json", "text", "tool_calls", "message", "error", "garbage", "empty", "hang", "drop", "trickle"
]
FaultName: TypeAlias = Literal["429", "500", "garbage", "hang", "drop", "trickle", "fail_always"]

_NAME: Final = "FakeOpenAIServer"
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
        chat: the request as read by the wire module: typed messages, response format,
            tools and tool choice (:class:`ragas_boot.chat.wire.openai.ChatCompletionRequest`).
        json_schema: the JSON schema the answer should follow, best effort: the forced tool's
            parameters, else ``response_format``'s schema (``json_schema``, or ``json_object``
            with a ``schema``), else a schema written in a message (after the words
            "JSON Schema" or in a fenced ``json`` block), else ``None``.
        headers: the HTTP headers, names in lower case.
        received_at: ``time.monotonic()`` when the request was read.
        wall_time: ``time.time()`` when the request was read.
        index: the request's number on this server, from 0 (since start or ``reset()``).
        path: the request path, without query string.
        query: the query string's parameters (the last of a repeated name wins); empty
            without one.
    """

    chat: ChatCompletionRequest
    json_schema: dict[str, Any] | None
    headers: Mapping[str, str] = field(repr=False)
    received_at: float
    wall_time: float
    index: int
    path: str = _CHAT_PATH
    query: Mapping[str, str] = field(default_factory=dict, repr=False)

    @property
    def model(self) -> str:
        """The ``model`` field of the request."""
        return self.chat.model

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The ``messages`` field (OpenAI chat format, as sent)."""
        messages: list[dict[str, Any]] = self.chat.body["messages"]
        return messages

    @property
    def prompt(self) -> str:
        """The text of the last user message (text parts joined by newlines), or ""."""
        return self.chat.prompt

    @property
    def response_format(self) -> dict[str, Any] | None:
        """The ``response_format`` field as sent, if any."""
        return self.chat.body.get("response_format")

    @property
    def tools(self) -> list[dict[str, Any]] | None:
        """The ``tools`` field as sent, if any."""
        return self.chat.body.get("tools")

    @property
    def tool_choice(self) -> str | dict[str, Any] | None:
        """The ``tool_choice`` field as sent, if any."""
        return self.chat.body.get("tool_choice")

    @property
    def forced_tool(self) -> str | None:
        """The function the request forces (``tool_choice`` names it, or ``tools`` holds
        exactly one and ``tool_choice`` is ``"required"``), or ``None``."""
        tool = self.chat.forced_tool
        return tool.name if tool is not None else None

    @property
    def body(self) -> dict[str, Any]:
        """The whole JSON body."""
        return self.chat.body

    @property
    def stream(self) -> bool:
        """Whether the client asked for a streamed answer."""
        return self.chat.stream is True

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
        raw_message: for ``message``: the assistant message sent as it is.
        status: the HTTP status.
        retry_after: the ``Retry-After`` header in seconds, for errors.
        seconds: how long a ``hang`` holds the request, or a ``trickle`` takes to send its body.
        delay: seconds to wait before answering (added to the model's latency).
        usage: fields that override the estimated ``usage`` block.
        pieces: how many parts a ``trickle`` sends its body in.
    """

    kind: ReplyKind
    content: str | None = None
    calls: tuple[tuple[str, str, str | None], ...] = ()
    status: int = 200
    retry_after: float | None = None
    seconds: float = 0.0
    delay: float = 0.0
    usage: Mapping[str, int] | None = None
    pieces: int = 1
    raw_message: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        for name in ("delay", "seconds"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and math.isfinite(value) and value >= 0):
                raise ValueError(f"Reply {name} must be a finite number >= 0, got {value!r}")
        if isinstance(self.pieces, bool) or not isinstance(self.pieces, int) or self.pieces < 1:
            raise ValueError(f"Reply pieces must be an integer >= 1, got {self.pieces!r}")

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
    def message(
        cls,
        message: Mapping[str, Any],
        *,
        delay: float = 0.0,
        usage: Mapping[str, int] | None = None,
    ) -> Reply:
        """An answer whose ``choices[0].message`` is ``message``, sent as it is: any shape a
        model may answer in (custom tool calls, a legacy ``function_call``, content parts, a
        refusal), or a malformed one, to test how a client reads it. ``finish_reason`` is
        ``tool_calls`` when it has ``tool_calls`` or a ``function_call``, else ``stop``.

        Args:
            message: the message (usually ``{"role": "assistant", ...}``), JSON-serialisable.
            delay: seconds to wait before answering.
            usage: fields that override the estimated token usage.

        Raises:
            TypeError: ``message`` is not JSON-serialisable.
        """
        json.dumps(message)  # refuse what could not be sent, here rather than on the server
        return cls("message", raw_message=dict(message), delay=delay, usage=usage)

    @classmethod
    def error(
        cls,
        status: int,
        message: str | None = None,
        *,
        retry_after: float | None = None,
        delay: float = 0.0,
        usage: Mapping[str, int] | None = None,
    ) -> Reply:
        """An HTTP error with an OpenAI error body ``{"error": {"message", "type", "code"}}``.

        Args:
            status: the HTTP status (400-599).
            message: the error message; a stock one for the status when omitted.
            retry_after: seconds sent in a ``Retry-After`` header.
            delay: seconds to wait before answering.
            usage: a ``usage`` block to send beside the error (a provider that bills a
                failed completion), e.g. ``{"prompt_tokens": 90, "completion_tokens": 12}``.

        Raises:
            ValueError: ``status`` is not an error status.
        """
        if not 400 <= status <= 599:
            raise ValueError(f"an error status is 400-599, got {status}")
        if message is None:
            message = _DEFAULT_ERROR_MESSAGES.get(status, reason(status))
        return cls(
            "error",
            content=message,
            status=status,
            retry_after=retry_after,
            delay=delay,
            usage=usage,
        )

    def error_usage(self) -> dict[str, int] | None:
        """The ``usage`` block an error reply sends beside its error (prompt and completion
        tokens 0 unless given, the total their sum unless given); None without usage."""
        if self.usage is None:
            return None
        usage = {"prompt_tokens": 0, "completion_tokens": 0, **self.usage}
        usage.setdefault("total_tokens", usage["prompt_tokens"] + usage["completion_tokens"])
        return usage

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

    @classmethod
    def trickle(cls, seconds: float, *, pieces: int = 8, delay: float = 0.0) -> Reply:
        """Send the default answer's head at once, then its body in ``pieces`` parts spread
        over ``seconds`` (a slow or congested link: for clients' total timeouts, which a read
        timeout alone does not catch).

        The record gets status 200 and ``answered_at`` as the last part goes out; a client
        that goes away mid-body, or ``stop()`` closing a trickle still running, leaves status
        ``None``.

        Args:
            seconds: how long sending the body takes.
            pieces: how many parts the body is sent in.
            delay: seconds to wait before the head is sent.
        """
        return cls("trickle", seconds=seconds, pieces=pieces, delay=delay)


ReplyLike: TypeAlias = Reply | dict[str, Any] | str
"""A reply, a dict (sent as :meth:`Reply.json`) or a string (sent as :meth:`Reply.text`)."""
ReplySource: TypeAlias = ReplyLike | Callable[[ChatRequest], ReplyLike]
"""A :data:`ReplyLike`, or a function that makes one from the request."""
VectorSource: TypeAlias = Mapping[str, Sequence[float]] | Callable[[str], Sequence[float]]
"""Vectors of an embedding model: by text (other texts get :func:`hashed_vector`), or a function."""
EmbeddingReply: TypeAlias = Reply | Sequence[Sequence[float]]
"""A scripted embedding answer: a fault :class:`Reply` or the vectors to send as they are."""


@dataclass(frozen=True, slots=True)
class RecordedEmbeddingRequest:
    """An embeddings request the server received, with what it did about it.

    Attributes:
        request: the request as read (model, inputs, dimensions, encoding format).
        index: its number among this server's embedding requests, from 0.
        status: the HTTP status sent; ``None`` while in flight or when the connection was
            dropped.
        fault: the injected fault that hit it, if any.
        received_at: ``time.monotonic()`` when it was read.
        answered_at: ``time.monotonic()`` when it was answered or dropped.
        query: the query string's parameters (the last of a repeated name wins); empty
            without one.
    """

    request: EmbeddingsRequest
    index: int
    status: int | None
    fault: FaultName | None
    received_at: float
    answered_at: float | None
    query: Mapping[str, str] = field(default_factory=dict, repr=False)

    @property
    def model(self) -> str:
        """The ``model`` field."""
        return self.request.model

    @property
    def inputs(self) -> tuple[str, ...]:
        """The texts sent."""
        return self.request.inputs


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
        usage: the ``usage`` block the answer carried (what a provider bills), or ``None``
            when it carried none (an error without usage, garbage, a dropped connection).
    """

    request: ChatRequest
    status: int | None
    fault: FaultName | None
    answered_at: float | None
    error: str | None
    usage: Mapping[str, int] | None = None

    @property
    def total_tokens(self) -> int:
        """``usage.total_tokens`` sent (0 without usage)."""
        return int((self.usage or {}).get("total_tokens", 0))


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
    __slots__ = ("hang_seconds", "limits", "retry_after", "rng", "trickle_seconds")

    def __init__(
        self,
        *,
        rates: Sequence[tuple[FaultName, float]],
        retry_after: float,
        hang_seconds: float,
        trickle_seconds: float,
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
        Reply.hang(hang_seconds), Reply.trickle(trickle_seconds)  # checked now, not when drawn
        self.hang_seconds = hang_seconds
        self.trickle_seconds = trickle_seconds
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
        if fault == "trickle":
            return Reply.trickle(self.trickle_seconds)
        return Reply.drop()


class _Entry:
    __slots__ = ("answered_at", "error", "fault", "request", "status", "usage")

    def __init__(self, request: ChatRequest) -> None:
        self.request = request
        self.status: int | None = None
        self.fault: FaultName | None = None
        self.answered_at: float | None = None
        self.error: str | None = None
        self.usage: Mapping[str, int] | None = None

    def snapshot(self) -> RecordedRequest:
        return RecordedRequest(
            request=self.request,
            status=self.status,
            fault=self.fault,
            answered_at=self.answered_at,
            error=self.error,
            usage=self.usage,
        )


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
        self._vectors: dict[str, VectorSource] = {}
        self._embedding_scripts: dict[str, deque[EmbeddingReply]] = {}
        self._embedding_entries: list[RecordedEmbeddingRequest] = []
        self._routes: dict[str, dict[str, _Route]] = {
            _CHAT_PATH: {"POST": self._answer_chat},
            "/v1/embeddings": {"POST": self._answer_embeddings},
            "/v1/models": {"GET": self._answer_models},
        }
        self._server = BackgroundServer(self._serve, name=_NAME)

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> Self:
        """Start serving on ``127.0.0.1`` (a free port) from a daemon thread.

        Returns:
            The server itself.

        Raises:
            RuntimeError: the server is already running.
            OSError: the port could not be bound.
        """
        self._server.start()
        return self

    def stop(self) -> None:
        """Stop serving: close the listening socket and every connection, join the thread.

        Requests still held (hangs, delays) are closed unanswered. Calling it again, or on a
        server never started, does nothing. Recorded requests stay readable.

        Raises:
            RuntimeError: the server thread did not end in time.
        """
        self._server.stop()

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
        return self._server.running

    @property
    def port(self) -> int:
        """The TCP port it listens on.

        Raises:
            RuntimeError: the server is not running.
        """
        port = self._server.port
        if port is None:
            raise RuntimeError("FakeOpenAIServer is not running: call start() or use `with`")
        return port

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``, without ``/v1`` (Spring AI's ``base-url``)."""
        return f"http://{HOST}:{self.port}"

    @property
    def url(self) -> str:
        """``base_url + "/v1"``, the ``base_url`` an OpenAI or ChatOpenAI client takes."""
        return f"{self.base_url}/v1"

    def __repr__(self) -> str:
        port = self._server.port
        where = f"http://{HOST}:{port}" if port is not None else "stopped"
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
        rate_trickle: float = 0.0,
        trickle_seconds: float = 5.0,
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
            rate_trickle: share whose default answer's body is sent in pieces over
                ``trickle_seconds`` (see :meth:`Reply.trickle`).
            trickle_seconds: how long a trickle takes.
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
            ("trickle", rate_trickle),  # last: the draws of the other faults stay as they were
        ]
        plan = _FaultPlan(
            rates=rates,
            retry_after=retry_after,
            hang_seconds=hang_seconds,
            trickle_seconds=trickle_seconds,
            seed=seed,
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

    def set_vectors(self, model: str, vectors: VectorSource | None) -> None:
        """Answer ``model``'s embedding requests with these vectors (``None``: hashed ones).

        Args:
            model: the embedding model name.
            vectors: text → vector (texts not in it get :func:`hashed_vector`), or a function
                of the text; ``None`` goes back to the hashed vectors.
        """
        with self._lock:
            self._remember(model)
            if vectors is None:
                self._vectors.pop(model, None)
            else:
                self._vectors[model] = vectors

    def script_embeddings(self, model: str, *replies: EmbeddingReply) -> None:
        """Queue answers to ``model``'s next embedding requests, in order.

        Args:
            model: the embedding model name.
            *replies: a :class:`Reply` fault (``error``, ``garbage``, ``hang``, ``drop``,
                ``trickle``; any other kind sends the default vectors), or the vectors to send
                as they are (e.g. one too few, to test a client's checks).
        """
        with self._lock:
            self._remember(model)
            self._embedding_scripts.setdefault(model, deque()).extend(replies)

    @property
    def embedding_requests(self) -> list[RecordedEmbeddingRequest]:
        """The embedding requests received so far, in arrival order (a snapshot)."""
        with self._lock:
            return list(self._embedding_entries)

    def embedding_requests_for(self, model: str) -> list[RecordedEmbeddingRequest]:
        """The embedding requests received for ``model``, in arrival order."""
        with self._lock:
            return [entry for entry in self._embedding_entries if entry.model == model]

    def reset(self) -> None:
        """Forget scripts, responders, rules, latencies, faults, records and counters."""
        with self._lock:
            self._vectors.clear()
            self._embedding_scripts.clear()
            self._embedding_entries.clear()
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

    # -- answering -------------------------------------------------------------------

    def _model_names(self) -> list[str]:
        with self._lock:
            return list(self._models) or [DEFAULT_MODEL]

    async def _serve(self, request: web.Request) -> web.StreamResponse:
        """Route one request by path and method; others get OpenAI's 404 or 405 body."""
        arrival = received(request)
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

    async def _answer_models(self, request: web.Request, arrival: Received) -> web.StreamResponse:
        body = models_body(self._model_names(), created=0, owned_by="ragas-boot")
        return json_response(200, body)

    async def _answer_chat(self, request: web.Request, arrival: Received) -> web.StreamResponse:
        """Record and answer one chat request; a body that does not parse gets a 400 unrecorded."""
        try:
            chat = parse_chat_request(await request.read())
        except WireError as error:
            return _error_response(error)
        entry = self._begin(chat, arrival)
        try:
            return await self._respond(entry, request)
        finally:
            self._finish(entry, None)  # closed by stop() before answering; else a no-op

    async def _answer_embeddings(self, http: web.Request, arrival: Received) -> web.StreamResponse:
        """Record and answer one embeddings request; a body that does not parse gets a 400."""
        try:
            request = parse_embeddings_request(parse_json_body(await http.read()))
        except WireError as error:
            return _error_response(error)
        reply: EmbeddingReply | None = None
        fault: FaultName | None = None
        with self._lock:
            self._remember(request.model)
            index = len(self._embedding_entries)
            position = index
            down = self._down.get(request.model, self._down.get(None))
            plan = self._faults.get(request.model, self._faults.get(None))
            if down is not None:
                reply, fault = down, "fail_always"
            elif plan is not None and (drawn := plan.draw()) is not None:
                reply, fault = plan.reply(drawn), drawn
            else:
                queue = self._embedding_scripts.get(request.model)
                if queue:
                    reply = queue.popleft()
            latency = self._latency.get(request.model, self._latency.get(None, 0.0))
            self._embedding_entries.append(
                RecordedEmbeddingRequest(
                    request=request,
                    index=index,
                    status=None,
                    fault=fault,
                    received_at=arrival.received_at,
                    answered_at=None,
                    query=_params(arrival.query),
                )
            )

        def finish(status: int | None) -> None:
            with self._lock:
                entry = self._embedding_entries[position]
                if entry.answered_at is None:
                    self._embedding_entries[position] = dataclasses.replace(
                        entry, status=status, answered_at=time.monotonic()
                    )

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
            with self._lock:
                source = self._vectors.get(request.model)
            dimensions = request.dimensions or DEFAULT_EMBEDDING_DIMENSIONS
            vectors = []
            for text in request.inputs:
                if callable(source):
                    vectors.append(list(source(text)))
                elif source is not None and text in source:
                    vectors.append(list(source[text]))
                else:
                    vectors.append(hashed_vector(text, dimensions))
        body = embeddings_body(
            model=request.model,
            vectors=vectors,
            encoding_format=request.encoding_format,
            prompt_tokens=sum(math.ceil(len(text) / 4) for text in request.inputs),
        )
        return json_response(200, body)

    async def _respond(self, entry: _Entry, http: web.Request) -> web.StreamResponse:
        request = entry.request
        refusal = unsupported(request.chat)
        if refusal is not None:
            response = _error_response(refusal)
            self._finish(entry, response.status)
            return response
        reply, fault, error = self._decide(request)
        with self._lock:
            entry.fault, entry.error = fault, error
            latency = self._latency.get(request.model, self._latency.get(None, 0.0))

        def render() -> web.Response:
            response, usage = self._render(request, reply)
            response.headers["x-request-id"] = f"req_fake{request.index:08d}"
            with self._lock:
                entry.usage = usage
            return response

        return await _deliver(
            http, reply, latency, render, lambda status: self._finish(entry, status)
        )

    def _begin(self, chat: ChatCompletionRequest, arrival: Received) -> _Entry:
        json_schema = _json_schema(chat)  # outside the lock: it may search long prompts
        with self._lock:
            request = ChatRequest(
                chat=chat,
                json_schema=json_schema,
                headers=arrival.headers,
                received_at=arrival.received_at,
                wall_time=arrival.wall_time,
                index=self._next_index,
                path=arrival.path,
                query=_params(arrival.query),
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

    def _render(
        self, request: ChatRequest, reply: Reply
    ) -> tuple[web.Response, Mapping[str, int] | None]:
        """The response, and the usage block it carries (``None``: none)."""
        kind = reply.kind
        if kind == "error":
            return _reply_error(reply), reply.error_usage()
        if kind == "garbage":
            return raw_response(200, _GARBAGE_BODY), None
        if kind in ("hang", "trickle"):
            reply = self._default_reply(request)
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
        return json_response(200, body), dict(body["usage"])


_Route: TypeAlias = "Callable[[web.Request, Received], Awaitable[web.StreamResponse]]"


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


def _callback_failure(what: str, error: Exception) -> tuple[Reply, None, str]:
    text = f"{type(error).__name__}: {error}"
    return Reply.error(500, f"FakeOpenAIServer: {what} raised {text}"), None, text


def _json_schema(chat: ChatCompletionRequest) -> dict[str, Any] | None:
    if chat.forced_tool is not None or chat.answer_schema is not None:
        return chat.answer_schema
    return find_schema_in_text(_texts(chat))


def _texts(chat: ChatCompletionRequest) -> Iterator[str]:
    # The prompt (last user message) first, then the other messages, latest first.
    yield chat.prompt
    skipped = False
    for message in reversed(chat.messages):
        if not skipped and message.role == "user":
            skipped = True
            continue
        yield message.text
