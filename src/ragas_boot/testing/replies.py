"""The fake server's answers: :class:`Reply` and what may stand for one."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias

from ragas_boot.testing._http import reason
from ragas_boot.testing.records import ChatRequest

__all__ = ["Reply", "ReplyKind", "ReplyLike", "ReplySource"]

ReplyKind: TypeAlias = Literal[
    "json", "text", "tool_calls", "message", "error", "garbage", "empty", "hang", "drop", "trickle"
]

_DEFAULT_ERROR_MESSAGES: Final = {
    429: "Rate limit reached for requests. Please try again later.",
    500: "The server had an error while processing your request. Sorry about that!",
    502: "Bad gateway.",
    503: "The engine is currently overloaded, please try again later.",
}


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
