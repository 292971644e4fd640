"""Build a :class:`Sample` from an agent trace in OpenAI chat format or as LangChain messages.

An OpenAI trace is read by the one model of that format (:mod:`ragas_boot.samples.openai_chat`,
which dataset files, the local servers and the tool agent read it with too). LangChain
messages are read message by message. Both raise
:class:`~ragas_boot.errors.SampleValidationError` at the first malformed part, naming it by
its place in the input (``messages[3].tool_calls[0].function.arguments``). System (and
developer) messages are skipped: no metric scores them.

Content given as a list of parts keeps the text parts, joined with newlines; image, audio
and file parts are left out, because judges only read text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from ragas_boot.errors import SampleValidationError
from ragas_boot.samples._base import join_path, prefixed, short_repr
from ragas_boot.samples.messages import AIMessage, HumanMessage, Message, ToolCall, ToolMessage
from ragas_boot.samples.openai_chat import (
    AssistantMessage,
    ChatMessage,
    ChatToolCall,
    DeveloperMessage,
    FunctionResultMessage,
    SystemMessage,
    ToolResultMessage,
    UserMessage,
    chat_problem,
    parse_arguments,
)
from ragas_boot.samples.sample import Sample

__all__ = [
    "from_langchain_messages",
    "from_openai_messages",
    "read_chat_messages",
    "read_tool_calls",
    "sample_messages",
]

_T = TypeVar("_T")

_SKIPPED = "skip"
_Getter = Callable[[str], Any]
_MESSAGES: TypeAdapter[list[ChatMessage]] = TypeAdapter(list[ChatMessage])
_TOOL_CALLS: TypeAdapter[list[ChatToolCall]] = TypeAdapter(list[ChatToolCall])
_CHAT_MODELS = (
    SystemMessage,
    DeveloperMessage,
    UserMessage,
    AssistantMessage,
    ToolResultMessage,
    FunctionResultMessage,
)

# LangChain spells a message's kind as its ``type`` ("human"), its class name
# ("HumanMessage", in ``dumpd`` output) or a chunk class name; ``ChatMessage`` has a role.
_LANGCHAIN_KINDS = {
    "human": "human",
    "user": "human",
    "ai": "ai",
    "assistant": "ai",
    "tool": "tool",
    "function": "tool",
    "system": _SKIPPED,
    "developer": _SKIPPED,
    "chat": "chat",
}
for _kind, _class in (
    ("human", "HumanMessage"),
    ("ai", "AIMessage"),
    ("tool", "ToolMessage"),
    ("tool", "FunctionMessage"),
    (_SKIPPED, "SystemMessage"),
    ("chat", "ChatMessage"),
):
    _LANGCHAIN_KINDS[_class] = _kind
    _LANGCHAIN_KINDS[_class + "Chunk"] = _kind


def from_openai_messages(messages: Iterable[Any], **sample_fields: Any) -> Sample:
    """Read an OpenAI chat-completions message list as a sample's conversation.

    Roles: ``system``/``developer`` are skipped; ``user`` becomes a :class:`HumanMessage`;
    ``assistant`` an :class:`AIMessage` whose ``tool_calls`` have their
    ``function.arguments`` JSON string parsed (an empty string means ``{}``), a ``custom``
    call's free-text input read as the argument ``input`` and a legacy ``function_call``
    read as a last call; ``tool`` (and the legacy ``function``) a :class:`ToolMessage`, named
    after the call it answers. Content may be a string, ``None`` (assistant only) or a list
    of parts, whose text and refusal parts are read. Messages may be mappings, pydantic
    models such as the OpenAI SDK's, or :mod:`~ragas_boot.samples.openai_chat` messages. The
    chat format has no field for a failed tool call; agent logs that add ``status: "error"``
    or ``is_error: true`` to a ``tool`` message keep it as the message's ``status``.
    docs/data.md tables every shape.

    Args:
        messages: the ``messages`` list of a chat-completions request, plus the answers.
        **sample_fields: other :class:`Sample` fields (``reference_tool_calls=...``, ...).

    Returns:
        A sample whose ``user_input_messages`` is the converted conversation.

    Raises:
        SampleValidationError: the trace is malformed; ``field`` locates the part.
    """
    chat = read_chat_messages(_message_list(messages))
    return _sample(sample_messages(chat), sample_fields)


def from_langchain_messages(messages: Iterable[Any], **sample_fields: Any) -> Sample:
    """Read LangChain messages as a sample's conversation, without importing LangChain.

    Accepts message objects (anything with ``.type`` and ``.content``; AI messages'
    ``.tool_calls`` are dicts with ``name``, ``args`` and ``id``) and LangChain's dict forms:
    ``dumpd`` output (``{"lc": 1, "type": "constructor", "id": [..., "AIMessage"],
    "kwargs": {...}}``), ``message_to_dict`` output (``{"type": "ai", "data": {...}}``) and
    plain ``{"type": ..., "content": ...}`` or ``{"role": ..., "content": ...}`` dicts.
    A ``ToolMessage``'s ``status`` (``"error"`` for a failed call) is kept.
    System messages are skipped; ``invalid_tool_calls`` (arguments the model produced but
    LangChain could not parse) are left out. When ``tool_calls`` is empty, OpenAI-format
    calls in ``additional_kwargs["tool_calls"]`` (older LangChain versions) are read instead.

    Args:
        messages: the messages, e.g. a LangGraph state's ``messages``.
        **sample_fields: other :class:`Sample` fields (``reference_tool_calls=...``, ...).

    Returns:
        A sample whose ``user_input_messages`` is the converted conversation.

    Raises:
        SampleValidationError: the trace is malformed; ``field`` locates the part.
    """
    converted: list[Message] = []
    call_names: dict[str, str] = {}  # call id -> tool name, to name the tool messages
    for index, raw in enumerate(_message_list(messages)):
        path = f"messages[{index}]"
        kind, get = _langchain_view(raw, path)
        if kind == _SKIPPED:
            continue
        content_path = join_path(path, "content")
        if kind == "human":
            content = _content(get("content"), content_path, required=True)
            converted.append(_build(HumanMessage, path, content=content))
        elif kind == "ai":
            calls = _langchain_calls(get, path)
            call_names.update((call.id, call.name) for call in calls if call.id)
            content = _content(get("content"), content_path, required=False)
            if not content:  # OpenAI puts a refusal beside an empty content
                content = _text(get("refusal"), join_path(path, "refusal")) or ""
            converted.append(_build(AIMessage, path, content=content, tool_calls=calls))
        else:
            call_id = _text(get("tool_call_id"), join_path(path, "tool_call_id"))
            name = _text(get("name"), join_path(path, "name"))
            content = _content(get("content"), content_path, required=True)
            name = name or call_names.get(call_id or "")
            status = _tool_status(get, path)
            converted.append(
                _build(
                    ToolMessage,
                    path,
                    content=content,
                    tool_call_id=call_id,
                    name=name,
                    status=status,
                )
            )
    return _sample(converted, sample_fields)


def read_chat_messages(messages: Sequence[Any], *, path: str = "messages") -> list[ChatMessage]:
    """Validate messages in OpenAI chat format (mappings, or models such as the OpenAI SDK's).

    Raises:
        SampleValidationError: a message is malformed; ``field`` locates it under ``path``.
    """
    given = [_plain(message) for message in messages]
    try:
        return _MESSAGES.validate_python(given)
    except ValidationError as error:
        field, message = chat_problem(error, prefix=path)
        raise SampleValidationError(message, field=field) from None


def _plain(message: Any) -> Any:
    if isinstance(message, BaseModel) and not isinstance(message, _CHAT_MODELS):
        return message.model_dump(exclude_none=True)  # e.g. the OpenAI SDK's messages
    return message


def sample_messages(messages: Sequence[ChatMessage], *, path: str = "messages") -> list[Message]:
    """The conversation a sample holds of validated chat messages (what each shape reads as:
    :mod:`~ragas_boot.samples.openai_chat`).

    Raises:
        SampleValidationError: a tool call's arguments are not a JSON object, or a message
            cannot be a sample's (``field`` locates it under ``path``).
    """
    converted: list[Message] = []
    call_names: dict[str, str] = {}  # call id -> tool name, to name the tool messages
    for index, message in enumerate(messages):
        where = join_path(path, index)
        if isinstance(message, UserMessage):
            converted.append(_build(HumanMessage, where, content=message.text))
        elif isinstance(message, AssistantMessage):
            calls = message.sample_calls(path=where)
            call_names.update((call.id, call.name) for call in calls if call.id)
            converted.append(_build(AIMessage, where, content=message.text, tool_calls=calls))
        elif isinstance(message, ToolResultMessage | FunctionResultMessage):
            call_id = message.tool_call_id if isinstance(message, ToolResultMessage) else None
            converted.append(
                _build(
                    ToolMessage,
                    where,
                    content=message.text,
                    tool_call_id=call_id,
                    name=message.name or call_names.get(call_id or ""),
                    status=message.outcome,
                )
            )
    return converted


def read_tool_calls(calls: Any, *, path: str) -> list[ToolCall]:
    """OpenAI-format tool calls (a list, as an assistant message's ``tool_calls``) as a
    sample's tool calls.

    Raises:
        SampleValidationError: a call is malformed (``field`` under ``path``).
    """
    try:
        read = _TOOL_CALLS.validate_python(calls)
    except ValidationError as error:
        field, message = chat_problem(error, prefix=path)
        raise SampleValidationError(message, field=field) from None
    return [call.tool_call(path=join_path(path, position)) for position, call in enumerate(read)]


def _langchain_view(raw: Any, path: str) -> tuple[str, _Getter]:
    """The message's kind (human, ai, tool or skip) and a getter for its fields."""
    fields: Mapping[Any, Any]
    kind_value: Any
    if isinstance(raw, Mapping):
        if raw.get("lc") == 1 and raw.get("type") == "constructor":
            class_path = raw.get("id")
            if not (
                isinstance(class_path, list) and class_path and isinstance(class_path[-1], str)
            ):
                raise SampleValidationError(
                    "expected the message class path (a list of names), "
                    f"got {short_repr(class_path)}",
                    field=join_path(path, "id"),
                )
            kind_path, kind_value = join_path(path, "id"), class_path[-1]
            fields = _mapping(raw.get("kwargs"), join_path(path, "kwargs"), "the message fields")
        elif isinstance(raw.get("data"), Mapping) and "type" in raw:
            kind_path, kind_value, fields = join_path(path, "type"), raw["type"], raw["data"]
        elif "type" in raw:
            kind_path, kind_value, fields = join_path(path, "type"), raw["type"], raw
        else:
            kind_path, kind_value, fields = join_path(path, "role"), raw.get("role"), raw
        kind = _langchain_kind(kind_value, kind_path)
        if kind == "chat":
            kind = _langchain_kind(fields.get("role"), join_path(path, "role"))
        return kind, fields.get

    if isinstance(raw, str | bytes) or not hasattr(raw, "type"):
        raise SampleValidationError(
            "expected a LangChain message (an object with .type and .content) or a mapping, "
            f"got {type(raw).__name__} {short_repr(raw)}",
            field=path,
        )

    def attribute(name: str) -> Any:
        return getattr(raw, name, None)

    kind = _langchain_kind(raw.type, join_path(path, "type"))
    if kind == "chat":
        kind = _langchain_kind(attribute("role"), join_path(path, "role"))
    return kind, attribute


def _langchain_kind(value: Any, path: str) -> str:
    kind = _LANGCHAIN_KINDS.get(value) if isinstance(value, str) else None
    if kind is None:
        accepted = "human, ai, tool, system, chat (or their message class names)"
        raise SampleValidationError(
            f"unknown message type {short_repr(value)}; expected one of {accepted}", field=path
        )
    return kind


def _langchain_calls(get: Callable[[str], Any], path: str) -> list[ToolCall]:
    raw_calls = get("tool_calls")
    if not raw_calls:
        extra = get("additional_kwargs")
        if isinstance(extra, Mapping) and extra.get("tool_calls"):
            calls_path = join_path(join_path(path, "additional_kwargs"), "tool_calls")
            return read_tool_calls(extra["tool_calls"], path=calls_path)
        if raw_calls is None:
            return []
    calls_path = join_path(path, "tool_calls")
    calls = []
    for position, raw in enumerate(_list(raw_calls, calls_path, "a list of tool calls")):
        call_path = join_path(calls_path, position)
        call = _mapping(raw, call_path, "a tool call (a mapping with 'name' and 'args')")
        name = _required_text(call.get("name"), join_path(call_path, "name"))
        arguments = parse_arguments(call.get("args"), join_path(call_path, "args"))
        call_id = _text(call.get("id"), join_path(call_path, "id"))
        calls.append(_build(ToolCall, call_path, name=name, args=arguments, id=call_id))
    return calls


_STATUSES = ("success", "error")


def _tool_status(get: _Getter, path: str) -> str:
    """``success`` or ``error``: LangChain's ``status``, or an ``is_error`` flag (agent logs
    in OpenAI chat format add one of them, since that format has no field for it)."""
    status_path = join_path(path, "status")
    raw_status = get("status")
    status = None
    if raw_status is not None:
        status = _required_text(raw_status, status_path).strip().lower()
        if status not in _STATUSES:
            raise SampleValidationError(
                f"unknown tool result status {short_repr(raw_status)}; expected 'success' or "
                "'error'",
                field=status_path,
            )
    flag = get("is_error")
    if flag is not None:
        flag_path = join_path(path, "is_error")
        if not isinstance(flag, bool):
            raise SampleValidationError(
                f"expected true or false, got {type(flag).__name__} {short_repr(flag)}",
                field=flag_path,
            )
        flagged = "error" if flag else "success"
        if status is not None and status != flagged:
            raise SampleValidationError(
                f"says {flag!r} but status says {status!r}; give one of them", field=flag_path
            )
        status = flagged
    return status or "success"


def _content(raw: Any, path: str, *, required: bool) -> str:
    """Text content: a string, or the text parts of a list of content parts joined by lines."""
    if raw is None:
        if required:
            raise SampleValidationError("text content is required, got None", field=path)
        return ""
    if isinstance(raw, str):
        return raw
    if not isinstance(raw, list | tuple):
        raise SampleValidationError(
            f"expected a string or a list of content parts, got {type(raw).__name__} "
            f"{short_repr(raw)}",
            field=path,
        )
    texts = []
    for position, part in enumerate(raw):
        part_path = join_path(path, position)
        if isinstance(part, str):
            texts.append(part)
            continue
        block = _mapping(part, part_path, "a content part (a string or a mapping with 'type')")
        kind = block.get("type")
        if not isinstance(kind, str):
            raise SampleValidationError(
                f"a content part needs a string 'type', got {short_repr(kind)}",
                field=join_path(part_path, "type"),
            )
        if kind in ("text", "refusal"):
            texts.append(_required_text(block.get(kind), join_path(part_path, kind)))
    return "\n".join(texts)


def _build(model: Callable[..., _T], path: str, **fields: Any) -> _T:
    try:
        return model(**fields)
    except SampleValidationError as error:
        raise prefixed(error, path) from None


def _sample(messages: list[Message], sample_fields: Mapping[str, Any]) -> Sample:
    for key in ("user_input_messages", "userInputMessages"):
        if key in sample_fields:
            raise SampleValidationError(
                "given twice: the importer fills it from the trace", field=key
            )
    return Sample(user_input_messages=messages, **sample_fields)


def _message_list(messages: Any) -> list[Any]:
    # A single message (a mapping or a pydantic model) is iterable too, but is not a trace.
    single = isinstance(messages, str | bytes | Mapping | BaseModel)
    if single or not isinstance(messages, Iterable):
        raise SampleValidationError(
            f"expected a list of messages, got {type(messages).__name__} {short_repr(messages)}",
            field="messages",
        )
    return list(messages)


def _mapping(raw: Any, path: str, what: str) -> Mapping[Any, Any]:
    if not isinstance(raw, Mapping):
        raise SampleValidationError(
            f"expected {what}, got {type(raw).__name__} {short_repr(raw)}", field=path
        )
    return raw


def _list(raw: Any, path: str, what: str) -> list[Any] | tuple[Any, ...]:
    if not isinstance(raw, list | tuple):
        raise SampleValidationError(
            f"expected {what}, got {type(raw).__name__} {short_repr(raw)}", field=path
        )
    return raw


def _text(raw: Any, path: str) -> str | None:
    return None if raw is None else _required_text(raw, path, wanted="a string or null")


def _required_text(raw: Any, path: str, *, wanted: str = "a string") -> str:
    if not isinstance(raw, str):
        got = "nothing" if raw is None else f"{type(raw).__name__} {short_repr(raw)}"
        raise SampleValidationError(f"expected {wanted}, got {got}", field=path)
    return raw
