"""OpenAI's chat-completions wire format: one typed request, the bodies sent back.

:func:`parse_chat_request` reads a ``POST /v1/chat/completions`` body (the raw bytes, read by
pydantic-core straight from JSON, or a mapping) into a frozen :class:`ChatCompletionRequest`,
or raises a :class:`WireError` whose ``param`` is the location of the first problem as
pydantic gives it (``messages[2].tool_calls[0].function.name``). Its ``messages`` are the one
model of the chat format (:mod:`ragas_boot.samples.openai_chat`), which dataset files, the
importers and the tool agent read too, so a message shape reads, or fails, the same way here
as there. The rest of the body:

- ``response_format``: ``text``; ``json_object``, with or without a ``schema`` (llama.cpp's
  extension); ``json_schema`` with ``json_schema.schema`` (or without one: any JSON object);
- ``tools``: ``{"type": "function", "function": {...}}`` and the flat
  ``{"type": "function", "name": ...}`` of the Responses API;
- ``tool_choice``: ``"none"``, ``"auto"``, ``"required"`` (``"any"`` is read as it),
  ``{"type": "function", "function": {"name": ...}}`` and the flat ``{"name": ...}``;
- sampling options in OpenAI's ranges (``temperature``, ``top_p``, ``seed``, ``stop``, the
  penalties, ``max_completion_tokens`` over ``max_tokens``), ``n`` only 1, ``stream``.

Keys the format does not define are ignored. What a request may ask is the same on every
server; what a server can do with it (which models it serves, whether it reads images) is its
answerer's business. These are bodies only: the HTTP around them is aiohttp's
(``aiohttp.web`` in the test server and the local model's endpoint).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Final, Literal, TypeAlias

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    PrivateAttr,
    StrictBool,
    StrictInt,
    Tag,
    ValidationError,
    model_validator,
)
from pydantic_core import PydanticCustomError

from ragas_boot.samples.openai_chat import (
    ChatMessage,
    FunctionToolCall,
    UserMessage,
    chat_problem,
)

__all__ = [
    "ANY_OBJECT",
    "ChatCompletionRequest",
    "FunctionTool",
    "JsonObjectFormat",
    "JsonSchemaFormat",
    "ResponseFormat",
    "TextFormat",
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


ANY_OBJECT: Final[Mapping[str, Any]] = {"type": "object"}
"""The schema of "any JSON object" (``json_object`` without a schema)."""
_MAX_STOP: Final = 4
_TOOL_CHOICE_SHAPES: Final = (
    '\'none\', \'auto\', \'required\' or {"type": "function", "function": {"name": ...}}'
)


class _Body(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


# -- response_format ----------------------------------------------------------------------


class TextFormat(_Body):
    """``{"type": "text"}``: free text."""

    type: Literal["text"]

    @property
    def answer_schema(self) -> dict[str, Any] | None:
        """No schema."""
        return None


class JsonObjectFormat(_Body):
    """``{"type": "json_object"}``: any JSON object, or one of llama.cpp's ``schema``."""

    type: Literal["json_object"]
    object_schema: dict[str, Any] | None = Field(default=None, alias="schema")

    @property
    def answer_schema(self) -> dict[str, Any] | None:
        """The ``schema`` given, if any."""
        return self.object_schema


class JsonSchemaSpec(_Body):
    """``response_format.json_schema``."""

    name: str | None = None
    json_schema: dict[str, Any] | None = Field(default=None, alias="schema")
    strict: StrictBool | None = None


class JsonSchemaFormat(_Body):
    """``{"type": "json_schema", "json_schema": {...}}``: an answer of that schema (any
    object without one)."""

    type: Literal["json_schema"]
    json_schema: JsonSchemaSpec

    @property
    def answer_schema(self) -> dict[str, Any] | None:
        """``json_schema.schema``, if given."""
        return self.json_schema.json_schema


_FORMAT_TAGS: Final = {
    "text": "TextFormat",
    "json_object": "JsonObjectFormat",
    "json_schema": "JsonSchemaFormat",
}


def _format_tag(value: Any) -> str | None:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    return _FORMAT_TAGS.get(kind) if isinstance(kind, str) else None


ResponseFormat: TypeAlias = Annotated[
    Annotated[TextFormat, Tag("TextFormat")]
    | Annotated[JsonObjectFormat, Tag("JsonObjectFormat")]
    | Annotated[JsonSchemaFormat, Tag("JsonSchemaFormat")],
    Discriminator(
        _format_tag,
        custom_error_type="response_format",
        custom_error_message="expected an object whose 'type' is text, json_object or json_schema",
    ),
]
"""``response_format``, picked by its ``type``."""


# -- tools and tool_choice ----------------------------------------------------------------


class FunctionTool(_Body):
    """A function the model may call (``tools[i].function``, or a flat tool itself)."""

    type: Literal["function"] = "function"
    name: str = Field(min_length=1)
    description: str | None = None
    parameters: dict[str, Any] | None = None
    strict: StrictBool | None = None


class _NestedTool(_Body):
    type: Literal["function"] = "function"
    function: FunctionTool


def _tool_tag(value: Any) -> str | None:
    if isinstance(value, dict):
        return "NestedTool" if "function" in value else "FunctionTool"
    return None


_Tool: TypeAlias = Annotated[
    Annotated[_NestedTool, Tag("NestedTool")] | Annotated[FunctionTool, Tag("FunctionTool")],
    Discriminator(
        _tool_tag,
        custom_error_type="tool",
        custom_error_message='expected a tool: {"type": "function", "function": {"name": ...}}',
    ),
]


class _NamedFunction(_Body):
    name: str = Field(min_length=1)


class _NamedChoice(_Body):
    type: Literal["function"] = "function"
    function: _NamedFunction | None = None
    name: str | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _names_one(self) -> _NamedChoice:
        if self.function is None and self.name is None:
            raise PydanticCustomError("tool_choice", "must be " + _TOOL_CHOICE_SHAPES)
        return self

    @property
    def chosen(self) -> str:
        return self.function.name if self.function is not None else self.name or ""


def _choice_tag(value: Any) -> str | None:
    if value in ("none", "auto", "required", "any"):
        return "ChoiceMode"
    return "NamedChoice" if isinstance(value, dict) else None


_ToolChoice: TypeAlias = Annotated[
    Annotated[Literal["none", "auto", "required", "any"], Tag("ChoiceMode")]
    | Annotated[_NamedChoice, Tag("NamedChoice")],
    Discriminator(
        _choice_tag,
        custom_error_type="tool_choice",
        custom_error_message="must be " + _TOOL_CHOICE_SHAPES,
    ),
]


def _stop_list(value: Any) -> Any:
    return [value] if isinstance(value, str) else () if value is None else value


_Unit = Annotated[float, Field(strict=True, allow_inf_nan=False)]


# -- the request --------------------------------------------------------------------------


class ChatCompletionRequest(_Body):
    """One chat-completion request, read and checked.

    Attributes:
        model: the model id asked for.
        messages: the conversation (:data:`~ragas_boot.samples.openai_chat.ChatMessage`).
        response_format: the answer's format, if one was asked for.
        tools: the tools offered, as sent (nested or flat; see :attr:`functions`).
        tool_choice: as sent (see :attr:`tool_mode` and :attr:`named_tool`).
        temperature: sampling temperature, if given.
        top_p: nucleus sampling, if given.
        max_completion_tokens: completion cap, if given.
        max_tokens_field: the older ``max_tokens``, if given (see :attr:`max_tokens`).
        seed: sampling seed, if given.
        stop: stop sequences.
        frequency_penalty: OpenAI's frequency penalty, if given.
        presence_penalty: OpenAI's presence penalty, if given.
        stream: whether a streamed answer was asked for.
        n: how many answers (only 1 is served).
    """

    model: str = Field(min_length=1)
    messages: list[ChatMessage] = Field(min_length=1)
    response_format: ResponseFormat | None = None
    tools: list[_Tool] | None = None
    tool_choice: _ToolChoice | None = None
    temperature: Annotated[_Unit, Field(ge=0.0, le=2.0)] | None = None
    top_p: Annotated[_Unit, Field(gt=0.0, le=1.0)] | None = None
    max_completion_tokens: Annotated[StrictInt, Field(ge=1)] | None = None
    max_tokens_field: Annotated[StrictInt, Field(ge=1)] | None = Field(
        default=None, alias="max_tokens"
    )
    seed: Annotated[StrictInt, Field(ge=0)] | None = None
    stop: Annotated[
        tuple[Annotated[str, Field(min_length=1)], ...],
        Field(max_length=_MAX_STOP),
        BeforeValidator(_stop_list),
    ] = ()
    frequency_penalty: Annotated[_Unit, Field(ge=-2.0, le=2.0)] | None = None
    presence_penalty: Annotated[_Unit, Field(ge=-2.0, le=2.0)] | None = None
    stream: StrictBool | None = False
    n: Literal[1] | None = None

    _source: Any = PrivateAttr(default=None)
    _body: dict[str, Any] | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _choice_fits_tools(self) -> ChatCompletionRequest:
        named = self.named_tool
        if named is not None and all(tool.name != named for tool in self.functions):
            raise PydanticCustomError(
                "tool_choice",
                "names '{name}', which is not in 'tools'",
                {"name": named, "path": "tool_choice"},
            )
        if self.tool_mode == "required" and not self.functions:
            raise PydanticCustomError(
                "tool_choice", "'required' needs 'tools'", {"path": "tool_choice"}
            )
        return self

    @property
    def body(self) -> dict[str, Any]:
        """The whole JSON body, as sent (parsed from the bytes on first use)."""
        if self._body is None:
            source = self._source
            self._body = dict(source) if isinstance(source, Mapping) else json.loads(source)
        return self._body

    @property
    def max_tokens(self) -> int | None:
        """The completion cap: ``max_completion_tokens``, else ``max_tokens``."""
        if self.max_completion_tokens is not None:
            return self.max_completion_tokens
        return self.max_tokens_field

    @property
    def functions(self) -> tuple[FunctionTool, ...]:
        """The functions offered, nested or flat alike."""
        return tuple(
            tool.function if isinstance(tool, _NestedTool) else tool for tool in self.tools or ()
        )

    @property
    def tool_mode(self) -> Literal["none", "auto", "required"]:
        """``none``, ``auto`` (the default) or ``required`` (a named function, ``any``)."""
        choice = self.tool_choice
        if choice is None:
            return "auto"
        if isinstance(choice, _NamedChoice) or choice == "any":
            return "required"
        return choice

    @property
    def named_tool(self) -> str | None:
        """The function ``tool_choice`` names, if it names one."""
        return self.tool_choice.chosen if isinstance(self.tool_choice, _NamedChoice) else None

    @property
    def prompt(self) -> str:
        """The text of the last user message, or ""."""
        for message in reversed(self.messages):
            if isinstance(message, UserMessage):
                return message.text
        return ""

    @property
    def forced_tool(self) -> FunctionTool | None:
        """The function the answer must call: the one ``tool_choice`` names, or the only tool
        when ``tool_choice`` is ``"required"``; else ``None``."""
        named = self.named_tool
        functions = self.functions
        if named is not None:
            return next(tool for tool in functions if tool.name == named)
        if self.tool_mode == "required" and len(functions) == 1:
            return functions[0]
        return None

    @property
    def answer_schema(self) -> dict[str, Any] | None:
        """The JSON schema the answer must follow: the forced function's ``parameters``,
        else ``response_format``'s schema; ``None`` when neither gives one."""
        tool = self.forced_tool
        if tool is not None:
            return tool.parameters
        return self.response_format.answer_schema if self.response_format is not None else None

    @property
    def json_only(self) -> bool:
        """Whether the answer must be JSON (a forced call, or a JSON response format)."""
        if self.forced_tool is not None:
            return True
        return self.response_format is not None and not isinstance(self.response_format, TextFormat)


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


def parse_chat_request(body: bytes | Mapping[str, Any]) -> ChatCompletionRequest:
    """Read a ``POST /v1/chat/completions`` body: the raw bytes as received (validated
    straight from JSON), or the JSON object (see the module docstring for the shapes).

    Raises:
        WireError: 400, naming the field at fault in ``param``.
    """
    try:
        if isinstance(body, bytes | bytearray):
            request = ChatCompletionRequest.model_validate_json(body)
        elif isinstance(body, Mapping):
            request = ChatCompletionRequest.model_validate(body)
        else:
            raise WireError(400, "The request body must be a JSON object.")
    except ValidationError as error:
        raise _wire_error(error) from None
    request._source = body
    return request


_TAGS: Final = (
    *_FORMAT_TAGS.values(),
    "NestedTool",
    "FunctionTool",
    "ChoiceMode",
    "NamedChoice",
)
_TYPE_PROBLEMS: Final = {
    "response_format": "unsupported response_format type {type}; use text, json_object or "
    "json_schema",
}


def _wire_error(error: ValidationError) -> WireError:
    first = error.errors(include_url=False)[0]
    if first["type"] == "json_invalid":
        problem = (first.get("ctx") or {}).get("error", "")
        return WireError(
            400,
            f"We could not parse the JSON body of your request: it is not valid JSON ({problem}).",
        )
    if not first["loc"] and first["type"] in ("model_type", "model_attributes_type"):
        return WireError(400, "The request body must be a JSON object.")
    param, message = chat_problem(error, tags=_TAGS, type_problems=_TYPE_PROBLEMS)
    return WireError(400, f"{param}: {message}", param=param)


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
    tool_calls: Sequence[FunctionToolCall] = (),
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
            {"id": call.id, "type": "function", "function": call.function.model_dump()}
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
