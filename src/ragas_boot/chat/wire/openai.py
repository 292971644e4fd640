"""OpenAI's chat-completions wire format: one typed request, the bodies sent back.

:func:`parse_chat_request` reads a ``POST /v1/chat/completions`` body into a
:class:`ChatCompletionRequest`, or raises a :class:`WireError` naming the field at fault
(``messages[0].role``, ``tool_choice``, ...). It reads every shape clients send:

- ``response_format``: ``text``; ``json_object``, with or without a ``schema`` (llama.cpp's
  extension); ``json_schema`` with ``json_schema.schema`` (or without one: any JSON object);
- ``tools``: ``{"type": "function", "function": {...}}`` and the flat
  ``{"type": "function", "name": ...}`` of the Responses API;
- ``tool_choice``: ``"none"``, ``"auto"``, ``"required"`` (``"any"`` is read as it),
  ``{"type": "function", "function": {"name": ...}}`` and the flat ``{"name": ...}``;
- ``content``: a string, ``null``, or a list of parts (text parts are read as text; other
  parts are kept with their type so an answerer can refuse them).

What a request may ask is the same on every server; what a server can do with it (which
models it serves, whether it reads images) is its answerer's business. These are bodies
only: the HTTP around them is aiohttp's (``aiohttp.web`` in the test server and the local
model's endpoint).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, TypeAlias

__all__ = [
    "ANY_OBJECT",
    "ChatCompletionRequest",
    "ChatMessage",
    "ContentPart",
    "FunctionTool",
    "ResponseFormat",
    "Role",
    "ToolCall",
    "ToolChoice",
    "WireError",
    "completion_body",
    "error_body",
    "models_body",
    "parse_chat_request",
    "parse_json_body",
    "unsupported",
]


class WireError(Exception):
    """A request the server refuses; sent as an OpenAI error body with ``status``.

    Attributes:
        status: HTTP status (400 for a malformed request, 404 for an unknown model, ...).
        message: what is wrong, for the caller.
        param: the request field at fault (``messages[0].role``), when there is one.
        code: OpenAI's error code (``model_not_found``, ``context_length_exceeded``), if any.
    """

    def __init__(
        self, status: int, message: str, *, param: str | None = None, code: str | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.param = param
        self.code = code


Role: TypeAlias = Literal["system", "developer", "user", "assistant", "tool", "function"]
_ROLES: Final = ("system", "developer", "user", "assistant", "tool", "function")
_MAX_STOP: Final = 4
ANY_OBJECT: Final[Mapping[str, Any]] = {"type": "object"}
"""The schema of "any JSON object" (``json_object`` without a schema)."""
_TOOL_CHOICE_SHAPES: Final = (
    '\'none\', \'auto\', \'required\' or {"type": "function", "function": {"name": ...}}'
)


@dataclass(frozen=True, slots=True)
class ContentPart:
    """One part of a message's content: ``text`` for a text part, else ``None``."""

    type: str
    text: str | None = None


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A function call: in an assistant message of the request, or in an answer."""

    name: str
    arguments: str
    id: str | None = None


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One message of the conversation.

    Attributes:
        role: who speaks.
        parts: the content; a string content is one text part, ``null`` none.
        tool_calls: an assistant message's calls.
        tool_call_id: a tool message's answer to that call.
        name: the ``name`` field, if any.
    """

    role: Role
    parts: tuple[ContentPart, ...] = ()
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None

    @property
    def text(self) -> str:
        """The text parts, joined by newlines ("" when there are none)."""
        return "\n".join(part.text for part in self.parts if part.text is not None)


@dataclass(frozen=True, slots=True)
class ResponseFormat:
    """The ``response_format`` asked for.

    Attributes:
        type: ``text``, ``json_object`` or ``json_schema``.
        schema: the JSON schema given (``json_schema.schema``, or ``json_object``'s
            ``schema``), or ``None``.
        name: ``json_schema.name``, if any.
        strict: ``json_schema.strict``, if given.
    """

    type: Literal["text", "json_object", "json_schema"]
    schema: dict[str, Any] | None = None
    name: str | None = None
    strict: bool | None = None

    @property
    def json_only(self) -> bool:
        """Whether the answer must be JSON."""
        return self.type != "text"


@dataclass(frozen=True, slots=True)
class FunctionTool:
    """A function the model may call."""

    name: str
    description: str | None = None
    parameters: dict[str, Any] | None = None
    strict: bool | None = None


@dataclass(frozen=True, slots=True)
class ToolChoice:
    """``tool_choice``: a mode, and the function it names when it names one."""

    mode: Literal["none", "auto", "required"]
    function: str | None = None


@dataclass(frozen=True, slots=True)
class ChatCompletionRequest:
    """One chat-completion request, read and checked.

    Attributes:
        model: the model id asked for.
        messages: the conversation.
        response_format: the answer's format, if one was asked for.
        tools: the functions offered.
        tool_choice: whether and which function must be called.
        temperature: sampling temperature, if given.
        top_p: nucleus sampling, if given.
        max_tokens: completion cap (``max_completion_tokens`` wins over ``max_tokens``).
        seed: sampling seed, if given.
        stop: stop sequences.
        frequency_penalty: OpenAI's frequency penalty, if given.
        presence_penalty: OpenAI's presence penalty, if given.
        stream: whether a streamed answer was asked for.
        body: the whole JSON body, as sent.
    """

    model: str
    messages: tuple[ChatMessage, ...]
    response_format: ResponseFormat | None = None
    tools: tuple[FunctionTool, ...] = ()
    tool_choice: ToolChoice = ToolChoice("auto")
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    stop: tuple[str, ...] = ()
    frequency_penalty: float | None = None
    presence_penalty: float | None = None
    stream: bool = False
    body: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def prompt(self) -> str:
        """The text of the last user message, or ""."""
        for message in reversed(self.messages):
            if message.role == "user":
                return message.text
        return ""

    @property
    def forced_tool(self) -> FunctionTool | None:
        """The function the answer must call: the one ``tool_choice`` names, or the only tool
        when ``tool_choice`` is ``"required"``; else ``None``."""
        choice = self.tool_choice
        if choice.function is not None:
            return next(tool for tool in self.tools if tool.name == choice.function)
        if choice.mode == "required" and len(self.tools) == 1:
            return self.tools[0]
        return None

    @property
    def schema(self) -> dict[str, Any] | None:
        """The JSON schema the answer must follow: the forced function's ``parameters``,
        else ``response_format``'s schema; ``None`` when neither gives one."""
        tool = self.forced_tool
        if tool is not None:
            return tool.parameters
        return self.response_format.schema if self.response_format is not None else None

    @property
    def json_only(self) -> bool:
        """Whether the answer must be JSON (a forced call, or a JSON response format)."""
        if self.forced_tool is not None:
            return True
        return self.response_format is not None and self.response_format.json_only


# -- reading a request ----------------------------------------------------------------------


def parse_json_body(raw: bytes) -> Any:
    """The JSON value of a request body.

    Raises:
        WireError: 400, the body is not valid JSON.
    """
    try:
        return json.loads(raw)
    except ValueError as error:  # UnicodeDecodeError and JSONDecodeError alike
        raise WireError(
            400,
            f"We could not parse the JSON body of your request: it is not valid JSON ({error}).",
        ) from None


def parse_chat_request(body: Any) -> ChatCompletionRequest:
    """Read a ``POST /v1/chat/completions`` body (see the module docstring for the shapes).

    Raises:
        WireError: 400, naming the field at fault in ``param``.
    """
    if not isinstance(body, dict):
        raise WireError(400, "The request body must be a JSON object.")
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise WireError(400, "You must provide a model parameter.", param="model")
    messages = _messages(body.get("messages"))
    if body.get("n") not in (None, 1):
        raise WireError(400, "Only n = 1 is supported.", param="n")
    max_tokens = _integer(body, "max_completion_tokens", minimum=1)
    if max_tokens is None:
        max_tokens = _integer(body, "max_tokens", minimum=1)
    tools = _tools(body.get("tools"))
    return ChatCompletionRequest(
        model=model,
        messages=messages,
        response_format=_response_format(body.get("response_format")),
        tools=tools,
        tool_choice=_tool_choice(body.get("tool_choice"), tools),
        temperature=_number(body, "temperature", 0.0, 2.0, low_open=False),
        top_p=_number(body, "top_p", 0.0, 1.0, low_open=True),
        max_tokens=max_tokens,
        seed=_integer(body, "seed", minimum=0),
        stop=_stop(body.get("stop")),
        frequency_penalty=_number(body, "frequency_penalty", -2.0, 2.0, low_open=False),
        presence_penalty=_number(body, "presence_penalty", -2.0, 2.0, low_open=False),
        stream=body.get("stream") is True,
        body=body,
    )


def _number(
    body: Mapping[str, Any], name: str, low: float, high: float, *, low_open: bool
) -> float | None:
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise WireError(400, f"'{name}' must be a number, got {value!r}.", param=name)
    too_low = value <= low if low_open else value < low
    if too_low or value > high:
        bracket = "(" if low_open else "["
        raise WireError(
            400, f"'{name}' must be in {bracket}{low:g}, {high:g}], got {value!r}.", param=name
        )
    return float(value)


def _integer(body: Mapping[str, Any], name: str, *, minimum: int) -> int | None:
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise WireError(
            400, f"'{name}' must be an integer >= {minimum}, got {value!r}.", param=name
        )
    return value


def _text(value: Any, param: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise WireError(400, f"'{param}' must be a string.", param=param)
    return value


def _parts(content: Any, param: str) -> tuple[ContentPart, ...]:
    if content is None:
        return ()
    if isinstance(content, str):
        return (ContentPart("text", content),)
    if not isinstance(content, list):
        raise WireError(400, "'content' must be a string or an array of parts.", param=param)
    parts: list[ContentPart] = []
    for index, part in enumerate(content):
        where = f"{param}[{index}]"
        kind = part.get("type") if isinstance(part, dict) else None
        if not isinstance(kind, str):
            raise WireError(400, "A content part must be an object with a 'type'.", param=where)
        if kind == "text":
            text = part.get("text")
            if not isinstance(text, str):
                raise WireError(400, "A text part needs a 'text' string.", param=f"{where}.text")
            parts.append(ContentPart("text", text))
        else:
            parts.append(ContentPart(kind))
    return tuple(parts)


def _tool_calls(raw: Any, param: str) -> tuple[ToolCall, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise WireError(400, "'tool_calls' must be an array.", param=param)
    calls: list[ToolCall] = []
    for index, call in enumerate(raw):
        where = f"{param}[{index}]"
        function = call.get("function") if isinstance(call, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str) or not name:
            raise WireError(
                400, "A tool call needs a 'function' with a 'name'.", param=f"{where}.function"
            )
        arguments = function.get("arguments") if isinstance(function, dict) else None
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments if arguments is not None else {})
        call_id = call.get("id") if isinstance(call, dict) else None
        calls.append(ToolCall(name, arguments, call_id if isinstance(call_id, str) else None))
    return tuple(calls)


def _messages(raw: Any) -> tuple[ChatMessage, ...]:
    if not isinstance(raw, list) or not raw:
        raise WireError(
            400, "'messages' must be a non-empty array of message objects.", param="messages"
        )
    messages: list[ChatMessage] = []
    for index, message in enumerate(raw):
        where = f"messages[{index}]"
        if not isinstance(message, dict):
            raise WireError(400, "Each entry of 'messages' must be an object.", param=where)
        role = message.get("role")
        if role not in _ROLES:
            raise WireError(
                400,
                f"Unknown role {role!r}; expected one of {', '.join(sorted(_ROLES))}.",
                param=f"{where}.role",
            )
        messages.append(
            ChatMessage(
                role=role,
                parts=_parts(message.get("content"), f"{where}.content"),
                tool_calls=_tool_calls(message.get("tool_calls"), f"{where}.tool_calls"),
                tool_call_id=_text(message.get("tool_call_id"), f"{where}.tool_call_id"),
                name=_text(message.get("name"), f"{where}.name"),
            )
        )
    return tuple(messages)


def _stop(raw: Any) -> tuple[str, ...]:
    if raw is None:
        return ()
    items = [raw] if isinstance(raw, str) else raw
    if (
        not isinstance(items, list)
        or len(items) > _MAX_STOP
        or not all(isinstance(item, str) and item for item in items)
    ):
        raise WireError(
            400, f"'stop' must be a string or up to {_MAX_STOP} non-empty strings.", param="stop"
        )
    return tuple(items)


def _schema(value: Any, param: str) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise WireError(400, "A JSON schema must be an object.", param=param)
    return value


def _response_format(raw: Any) -> ResponseFormat | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise WireError(400, "'response_format' must be an object.", param="response_format")
    kind = raw.get("type")
    if kind == "text":
        return ResponseFormat("text")
    if kind == "json_object":
        return ResponseFormat("json_object", _schema(raw.get("schema"), "response_format.schema"))
    if kind == "json_schema":
        spec = raw.get("json_schema")
        if not isinstance(spec, dict):
            raise WireError(
                400,
                "'response_format.json_schema' must be an object with a 'schema'.",
                param="response_format.json_schema",
            )
        strict = spec.get("strict")
        return ResponseFormat(
            "json_schema",
            _schema(spec.get("schema"), "response_format.json_schema.schema"),
            name=_text(spec.get("name"), "response_format.json_schema.name"),
            strict=strict if isinstance(strict, bool) else None,
        )
    raise WireError(
        400,
        f"Unsupported response_format type {kind!r}; use text, json_object or json_schema.",
        param="response_format.type",
    )


def _tools(raw: Any) -> tuple[FunctionTool, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise WireError(400, "'tools' must be an array.", param="tools")
    tools: list[FunctionTool] = []
    for index, tool in enumerate(raw):
        where = f"tools[{index}]"
        if not isinstance(tool, dict) or tool.get("type", "function") != "function":
            raise WireError(400, "Only tools of type 'function' are supported.", param=where)
        function = tool.get("function", tool)  # nested (Chat Completions) or flat (Responses)
        if not isinstance(function, dict):
            raise WireError(400, "'function' must be an object.", param=f"{where}.function")
        where = f"{where}.function" if "function" in tool else where
        name = function.get("name")
        if not isinstance(name, str) or not name:
            raise WireError(400, "A function needs a 'name'.", param=f"{where}.name")
        strict = function.get("strict")
        tools.append(
            FunctionTool(
                name=name,
                description=_text(function.get("description"), f"{where}.description"),
                parameters=_schema(function.get("parameters"), f"{where}.parameters"),
                strict=strict if isinstance(strict, bool) else None,
            )
        )
    return tuple(tools)


def _tool_choice(raw: Any, tools: Sequence[FunctionTool]) -> ToolChoice:
    if raw is None or raw == "auto":
        return ToolChoice("auto")
    if raw == "none":
        return ToolChoice("none")
    if raw in ("required", "any"):
        if not tools:
            raise WireError(400, "tool_choice 'required' needs 'tools'.", param="tool_choice")
        return ToolChoice("required")
    function = raw.get("function", raw) if isinstance(raw, dict) else None
    name = function.get("name") if isinstance(function, dict) else None
    if not isinstance(name, str) or not name:
        raise WireError(400, f"'tool_choice' must be {_TOOL_CHOICE_SHAPES}.", param="tool_choice")
    if all(tool.name != name for tool in tools):
        raise WireError(
            400, f"tool_choice names '{name}', which is not in 'tools'.", param="tool_choice"
        )
    return ToolChoice("required", name)


def unsupported(request: ChatCompletionRequest) -> WireError | None:
    """Why no server here can answer ``request`` (it asks for a stream), or ``None``.

    Answerers call it after recording the request, so a test server still shows it.
    """
    if request.stream:
        return WireError(
            400,
            "Streaming is not supported by this server; send `stream: false` "
            "(ChatOpenAI: streaming=False).",
            param="stream",
            code="stream_not_supported",
        )
    return None


# -- bodies sent back -----------------------------------------------------------------------


def completion_body(
    *,
    completion_id: str,
    created: int,
    model: str,
    content: str | None,
    tool_calls: Sequence[ToolCall] = (),
    finish_reason: str = "stop",
    prompt_tokens: int,
    completion_tokens: int,
) -> dict[str, Any]:
    """A ``chat.completion`` object with one choice.

    A turn with tool calls finishes with ``tool_calls`` unless it was cut (``length``); each
    call needs an ``id``.
    """
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
    if tool_calls:
        message["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for call in tool_calls
        ]
        if finish_reason == "stop":
            finish_reason = "tool_calls"
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [
            {"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def models_body(models: Sequence[str], *, created: int, owned_by: str) -> dict[str, Any]:
    """The ``GET /v1/models`` list."""
    return {
        "object": "list",
        "data": [
            {"id": model, "object": "model", "created": created, "owned_by": owned_by}
            for model in models
        ],
    }


def error_body(
    status: int, message: str, *, param: str | None = None, code: str | None = None
) -> dict[str, Any]:
    """An OpenAI error object ``{"error": {"message", "type", "param", "code"}}``, with the
    type and code OpenAI gives the status when no code is given."""
    if status == 429:
        kind, code = "requests", code or "rate_limit_exceeded"
    elif status >= 500:
        kind, code = "server_error", code or "server_error"
    elif status == 401:
        kind, code = "invalid_request_error", code or "invalid_api_key"
    else:
        kind = "invalid_request_error"
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}
