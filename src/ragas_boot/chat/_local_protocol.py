"""The OpenAI chat-completions wire format, as the embedded local server speaks it.

Pure functions, no llama.cpp: a request body becomes a :class:`ChatPlan` (or a
:class:`RequestError` that the server sends as an OpenAI error), and a generation becomes a
``chat.completion`` body. What the server constrains its answer to:

- ``response_format: {"type": "json_schema", "json_schema": {"schema": ...}}``: that schema;
- ``response_format: {"type": "json_object", "schema": ...}``: that schema (llama.cpp's
  extension), or any JSON object when no schema is given;
- ``tools`` with a forced ``tool_choice`` (a named function, or ``"required"`` with one tool):
  the function's ``parameters``, returned as a tool call of that function;
- otherwise free text (``tools`` with ``"auto"`` or ``"none"`` are answered in text).
"""

from __future__ import annotations

import math
import time
import uuid
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "ChatPlan",
    "Generation",
    "RequestError",
    "completion_body",
    "error_body",
    "models_body",
    "parse_chat_request",
]

_ROLES: Final = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
_MAX_STOP: Final = 4
_ANY_OBJECT: Final[dict[str, Any]] = {"type": "object"}


class RequestError(Exception):
    """A request the server refuses; sent as ``{"error": {...}}`` with ``status``.

    Attributes:
        status: HTTP status (400 for a malformed request, 404 for an unknown model, ...).
        message: what is wrong, for the caller.
        param: the request field at fault, when there is one.
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


@dataclass(frozen=True, slots=True)
class ChatPlan:
    """What one chat-completion request asks the model to do.

    Attributes:
        model: the model id asked for (one the server serves).
        messages: the conversation as ``{"role", "content"}`` text messages.
        temperature: sampling temperature (0 = greedy).
        top_p: nucleus sampling.
        max_tokens: completion cap (``max_completion_tokens`` wins over ``max_tokens``);
            ``None``: up to the context window.
        seed: sampling seed, or ``None`` for the server's.
        stop: stop sequences.
        frequency_penalty: OpenAI's frequency penalty.
        presence_penalty: OpenAI's presence penalty.
        schema: the JSON schema the answer is constrained to, or ``None``.
        json_only: whether the answer must be JSON (with ``schema`` or any object).
        tool_name: the forced function: the answer is sent as a call of it.
    """

    model: str
    messages: list[dict[str, str]]
    temperature: float = 1.0
    top_p: float = 1.0
    max_tokens: int | None = None
    seed: int | None = None
    stop: tuple[str, ...] = ()
    frequency_penalty: float = 0.0
    presence_penalty: float = 0.0
    schema: dict[str, Any] | None = None
    json_only: bool = False
    tool_name: str | None = None


@dataclass(frozen=True, slots=True)
class Generation:
    """What the model produced for one plan.

    Attributes:
        text: the generated text (JSON text when the plan constrains it).
        finish_reason: ``stop`` or ``length``.
        prompt_tokens: tokens of the formatted prompt.
        completion_tokens: tokens generated.
        started: ``time.monotonic()`` when the generation began (after any queueing).
        finished: ``time.monotonic()`` when it ended (before the next one could begin).
    """

    text: str
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    started: float
    finished: float

    @property
    def seconds(self) -> float:
        """Wall time of the generation, queueing excluded."""
        return self.finished - self.started


def _number(
    body: Mapping[str, Any], name: str, default: float, low: float, high: float, *, low_open: bool
) -> float:
    value = body.get(name)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise RequestError(400, f"'{name}' must be a number, got {value!r}", param=name)
    too_low = value <= low if low_open else value < low
    if too_low or value > high:
        bracket = "(" if low_open else "["
        raise RequestError(
            400, f"'{name}' must be in {bracket}{low:g}, {high:g}], got {value!r}", param=name
        )
    return float(value)


def _integer(body: Mapping[str, Any], name: str, *, minimum: int) -> int | None:
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise RequestError(
            400, f"'{name}' must be an integer >= {minimum}, got {value!r}", param=name
        )
    return value


def _text_of(content: Any, param: str) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts: list[str] = []
        for index, part in enumerate(content):
            if not isinstance(part, Mapping) or part.get("type") != "text":
                raise RequestError(
                    400,
                    "only text content parts are supported by the local model",
                    param=f"{param}[{index}]",
                )
            text = part.get("text")
            if not isinstance(text, str):
                raise RequestError(400, "a text part needs 'text'", param=f"{param}[{index}].text")
            texts.append(text)
        return "\n".join(texts)
    raise RequestError(400, "'content' must be a string or a list of parts", param=param)


def _messages(raw: Any) -> list[dict[str, str]]:
    if not isinstance(raw, list) or not raw:
        raise RequestError(400, "'messages' must be a non-empty array", param="messages")
    messages: list[dict[str, str]] = []
    for index, message in enumerate(raw):
        where = f"messages[{index}]"
        if not isinstance(message, Mapping):
            raise RequestError(400, "a message must be an object", param=where)
        role = message.get("role")
        if role not in _ROLES:
            raise RequestError(
                400,
                f"unknown role {role!r}; expected one of {', '.join(sorted(_ROLES))}",
                param=f"{where}.role",
            )
        text = _text_of(message.get("content"), f"{where}.content")
        calls = message.get("tool_calls") if role == "assistant" else None
        if isinstance(calls, list):
            # The conversation's earlier tool calls, written out so the model can read them.
            for call in calls:
                function = call.get("function") if isinstance(call, Mapping) else None
                if isinstance(function, Mapping):
                    text += f"\n[tool call {function.get('name')}: {function.get('arguments')}]"
        messages.append(
            {"role": "system" if role == "developer" else str(role), "content": text.strip()}
        )
    return messages


def _stop(raw: Any) -> tuple[str, ...]:
    if raw is None:
        return ()
    items = [raw] if isinstance(raw, str) else raw
    if (
        not isinstance(items, list)
        or len(items) > _MAX_STOP
        or not all(isinstance(item, str) and item for item in items)
    ):
        raise RequestError(
            400, f"'stop' must be a string or up to {_MAX_STOP} non-empty strings", param="stop"
        )
    return tuple(items)


def _schema_object(value: Any, param: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise RequestError(400, "a JSON schema must be an object", param=param)
    return dict(value)


def _response_format(raw: Any) -> tuple[dict[str, Any] | None, bool]:
    """The schema to constrain to and whether the answer must be JSON."""
    if raw is None:
        return None, False
    if not isinstance(raw, Mapping):
        raise RequestError(400, "'response_format' must be an object", param="response_format")
    kind = raw.get("type")
    if kind == "text":
        return None, False
    if kind == "json_object":
        schema = raw.get("schema")
        if schema is None:
            return _ANY_OBJECT, True
        return _schema_object(schema, "response_format.schema"), True
    if kind == "json_schema":
        spec = raw.get("json_schema")
        if not isinstance(spec, Mapping):
            raise RequestError(
                400,
                "'response_format.json_schema' must be an object with a 'schema'",
                param="response_format.json_schema",
            )
        schema = spec.get("schema")
        if schema is None:
            return _ANY_OBJECT, True
        return _schema_object(schema, "response_format.json_schema.schema"), True
    raise RequestError(
        400,
        f"unsupported response_format type {kind!r}; use text, json_object or json_schema",
        param="response_format.type",
    )


def _functions(raw: Any) -> dict[str, dict[str, Any]]:
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise RequestError(400, "'tools' must be an array", param="tools")
    functions: dict[str, dict[str, Any]] = {}
    for index, tool in enumerate(raw):
        where = f"tools[{index}]"
        function = tool.get("function") if isinstance(tool, Mapping) else None
        if not isinstance(tool, Mapping) or tool.get("type") != "function" or not function:
            raise RequestError(400, "only tools of type 'function' are supported", param=where)
        name = function.get("name") if isinstance(function, Mapping) else None
        if not isinstance(name, str) or not name:
            raise RequestError(400, "a function needs a 'name'", param=f"{where}.function.name")
        parameters = function.get("parameters")
        functions[name] = (
            _ANY_OBJECT
            if parameters is None
            else _schema_object(parameters, f"{where}.function.parameters")
        )
    return functions


def _forced_tool(functions: Mapping[str, dict[str, Any]], choice: Any) -> str | None:
    if choice is None or choice in ("auto", "none"):
        return None
    if choice == "required":
        if len(functions) != 1:
            raise RequestError(
                400,
                "tool_choice 'required' needs exactly one tool here; name the function instead",
                param="tool_choice",
            )
        return next(iter(functions))
    function = choice.get("function") if isinstance(choice, Mapping) else None
    name = function.get("name") if isinstance(function, Mapping) else None
    if not isinstance(name, str):
        raise RequestError(
            400,
            "'tool_choice' must be 'none', 'auto', 'required' or "
            '{"type": "function", "function": {"name": ...}}',
            param="tool_choice",
        )
    if name not in functions:
        raise RequestError(
            400, f"tool_choice names '{name}', which is not in 'tools'", param="tool_choice"
        )
    return name


def parse_chat_request(body: Any, *, models: Collection[str]) -> ChatPlan:
    """Read a ``POST /v1/chat/completions`` body.

    Raises:
        RequestError: 400 for a malformed or unsupported request, 404 for a model this server
            does not serve.
    """
    if not isinstance(body, Mapping):
        raise RequestError(400, "the request body must be a JSON object")
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise RequestError(400, "'model' is required", param="model")
    if model not in models:
        raise RequestError(
            404,
            f"The model '{model}' does not exist; this server serves: {', '.join(models)}",
            param="model",
            code="model_not_found",
        )
    messages = _messages(body.get("messages"))
    if body.get("stream") is True:
        raise RequestError(400, "streaming is not supported by the local model", param="stream")
    if body.get("n") not in (None, 1):
        raise RequestError(400, "only n = 1 is supported", param="n")
    max_tokens = _integer(body, "max_completion_tokens", minimum=1)
    if max_tokens is None:
        max_tokens = _integer(body, "max_tokens", minimum=1)
    schema, json_only = _response_format(body.get("response_format"))
    functions = _functions(body.get("tools"))
    tool_name = _forced_tool(functions, body.get("tool_choice"))
    if tool_name is not None:
        schema, json_only = functions[tool_name], True
    return ChatPlan(
        model=model,
        messages=messages,
        temperature=_number(body, "temperature", 1.0, 0.0, 2.0, low_open=False),
        top_p=_number(body, "top_p", 1.0, 0.0, 1.0, low_open=True),
        max_tokens=max_tokens,
        seed=_integer(body, "seed", minimum=0),
        stop=_stop(body.get("stop")),
        frequency_penalty=_number(body, "frequency_penalty", 0.0, -2.0, 2.0, low_open=False),
        presence_penalty=_number(body, "presence_penalty", 0.0, -2.0, 2.0, low_open=False),
        schema=schema,
        json_only=json_only,
        tool_name=tool_name,
    )


def completion_body(plan: ChatPlan, generation: Generation) -> dict[str, Any]:
    """The ``chat.completion`` object answering ``plan``."""
    finish_reason = generation.finish_reason
    message: dict[str, Any]
    if plan.tool_name is not None:
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{uuid.uuid4().hex[:24]}",
                    "type": "function",
                    "function": {"name": plan.tool_name, "arguments": generation.text},
                }
            ],
        }
        if finish_reason == "stop":
            finish_reason = "tool_calls"
    else:
        message = {"role": "assistant", "content": generation.text}
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": plan.model,
        "system_fingerprint": "ragas-boot-local",
        "choices": [
            {"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}
        ],
        "usage": {
            "prompt_tokens": generation.prompt_tokens,
            "completion_tokens": generation.completion_tokens,
            "total_tokens": generation.prompt_tokens + generation.completion_tokens,
        },
    }


def models_body(models: Collection[str], created: int) -> dict[str, Any]:
    """The ``GET /v1/models`` list."""
    return {
        "object": "list",
        "data": [
            {"id": model, "object": "model", "created": created, "owned_by": "ragas-boot-local"}
            for model in models
        ],
    }


def error_body(
    status: int, message: str, *, param: str | None = None, code: str | None = None
) -> dict[str, Any]:
    """An OpenAI error object: ``{"error": {"message", "type", "param", "code"}}``."""
    kind = "server_error" if status >= 500 else "invalid_request_error"
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}
