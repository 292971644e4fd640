"""What the fake server received and did about it: each request as read, its record, and the
log that keeps them with the in-flight counters."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, TypeAlias
from urllib.parse import parse_qsl

from ragas_boot.chat.wire.embeddings import EmbeddingsRequest
from ragas_boot.chat.wire.openai import ChatCompletionRequest
from ragas_boot.testing._http import Received
from ragas_boot.testing._schema import find_schema_in_text

__all__ = [
    "ChatRequest",
    "FaultName",
    "RecordedEmbeddingRequest",
    "RecordedRequest",
    "RequestLog",
    "asks_for",
]

FaultName: TypeAlias = Literal["429", "500", "garbage", "hang", "drop", "trickle", "fail_always"]
"""The fault that hit a request: an ``inject_faults`` draw, or ``fail_always``."""

#: The chat-completions path (a request's default ``path``).
CHAT_PATH: Final = "/v1/chat/completions"


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
    path: str = CHAT_PATH
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


class ChatEntry:
    """A chat request's record while it is answered (changed under the log's lock)."""

    __slots__ = ("answered_at", "error", "fault", "request", "status", "usage")

    def __init__(self, request: ChatRequest) -> None:
        self.request = request
        self.status: int | None = None
        self.fault: FaultName | None = None
        self.answered_at: float | None = None
        self.error: str | None = None
        self.usage: Mapping[str, int] | None = None

    def snapshot(self) -> RecordedRequest:
        """The record as it stands (frozen)."""
        return RecordedRequest(
            request=self.request,
            status=self.status,
            fault=self.fault,
            answered_at=self.answered_at,
            error=self.error,
            usage=self.usage,
        )


class RequestLog:
    """The records of a server's chat and embedding requests, and how many are in flight.

    Args:
        lock: the server's lock, held by every change and read.
    """

    def __init__(self, lock: threading.RLock) -> None:
        self.lock = lock
        self._entries: list[ChatEntry] = []
        self._next_index = 0
        self._in_flight = 0
        self._peak = 0
        self._in_flight_by: dict[str, int] = {}
        self._peak_by: dict[str, int] = {}
        self._embedding_entries: list[RecordedEmbeddingRequest] = []

    # -- chat ------------------------------------------------------------------------

    def begin(self, chat: ChatCompletionRequest, arrival: Received) -> ChatEntry:
        """Record a chat request that was read; it is in flight until :meth:`finish`."""
        json_schema = request_schema(chat)  # outside the lock: it may search long prompts
        with self.lock:
            request = ChatRequest(
                chat=chat,
                json_schema=json_schema,
                headers=arrival.headers,
                received_at=arrival.received_at,
                wall_time=arrival.wall_time,
                index=self._next_index,
                path=arrival.path,
                query=query_parameters(arrival.query),
            )
            self._next_index += 1
            entry = ChatEntry(request)
            self._entries.append(entry)
            model = request.model
            self._in_flight += 1
            self._peak = max(self._peak, self._in_flight)
            count = self._in_flight_by.get(model, 0) + 1
            self._in_flight_by[model] = count
            if count > self._peak_by.get(model, 0):
                self._peak_by[model] = count
        return entry

    def finish(self, entry: ChatEntry, status: int | None) -> None:
        """The request was answered with ``status`` (``None``: closed unanswered); once."""
        with self.lock:
            if entry.answered_at is not None:
                return
            entry.status = status
            entry.answered_at = time.monotonic()
            self._in_flight -= 1
            self._in_flight_by[entry.request.model] -= 1

    def requests(self, model: str | None = None) -> list[RecordedRequest]:
        """Snapshots of the chat requests (of ``model``; ``None``: all), in arrival order."""
        with self.lock:
            return [
                entry.snapshot()
                for entry in self._entries
                if model is None or entry.request.model == model
            ]

    def count(self, model: str | None = None) -> int:
        """How many chat requests were received for ``model`` (``None``: all)."""
        with self.lock:
            if model is None:
                return len(self._entries)
            return sum(1 for entry in self._entries if entry.request.model == model)

    @property
    def in_flight(self) -> int:
        """Chat requests being handled right now."""
        with self.lock:
            return self._in_flight

    def peak(self, model: str | None = None) -> int:
        """The most chat requests (for ``model``; ``None``: across models) handled at once."""
        with self.lock:
            return self._peak if model is None else self._peak_by.get(model, 0)

    # -- embeddings --------------------------------------------------------------------

    def begin_embeddings(
        self, request: EmbeddingsRequest, arrival: Received, fault: FaultName | None
    ) -> Callable[[int | None], None]:
        """Record an embeddings request; returns the function that records its answer
        (``None``: closed unanswered), which only the first call of takes effect."""
        with self.lock:
            position = len(self._embedding_entries)
            self._embedding_entries.append(
                RecordedEmbeddingRequest(
                    request=request,
                    index=position,
                    status=None,
                    fault=fault,
                    received_at=arrival.received_at,
                    answered_at=None,
                    query=query_parameters(arrival.query),
                )
            )

        def finish(status: int | None) -> None:
            with self.lock:
                entry = self._embedding_entries[position]
                if entry.answered_at is None:
                    self._embedding_entries[position] = dataclasses.replace(
                        entry, status=status, answered_at=time.monotonic()
                    )

        return finish

    def embedding_requests(self, model: str | None = None) -> list[RecordedEmbeddingRequest]:
        """The embedding requests (for ``model``; ``None``: all), in arrival order."""
        with self.lock:
            return [
                entry for entry in self._embedding_entries if model is None or entry.model == model
            ]

    def reset(self) -> None:
        """Forget every record; requests in flight stay counted until they finish."""
        with self.lock:
            self._embedding_entries.clear()
            self._entries.clear()
            self._next_index = 0
            self._peak = self._in_flight
            self._peak_by = {m: n for m, n in self._in_flight_by.items() if n}


def query_parameters(query: str) -> dict[str, str]:
    """A request's query string as parameters (the last of a repeated name wins)."""
    return dict(parse_qsl(query, keep_blank_values=True))


def request_schema(chat: ChatCompletionRequest) -> dict[str, Any] | None:
    """The schema the answer should follow, as :attr:`ChatRequest.json_schema` tells it."""
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
