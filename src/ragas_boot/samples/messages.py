"""The messages of an agent conversation and the tool calls an AI message carries.

Built positionally like the Java records (``HumanMessage("hi")``,
``AIMessage("text", [ToolCall("get_weather", {"city": "Tokyo"})])``) or by keyword. Each
message has a ``type`` tag (``human``, ``ai``, ``tool``) that selects the class when a
conversation is read from JSON. Invalid input raises
:class:`~ragas_boot.errors.SampleValidationError` naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import AliasChoices, BeforeValidator, Discriminator, Field, Tag, field_validator
from pydantic_core import PydanticCustomError

from ragas_boot.samples._base import SampleModel, json_object, plain_init

__all__ = ["AIMessage", "HumanMessage", "Message", "ToolCall", "ToolMessage"]

_MISSING: Any = object()
"""Default of constructor parameters, so that "not given" stays distinct from ``None``."""


def _given(data: dict[str, Any], **named: Any) -> dict[str, Any]:
    data.update((key, value) for key, value in named.items() if value is not _MISSING)
    return data


def _text_required(value: Any) -> Any:
    if value is None:
        raise PydanticCustomError("text_required", "text content is required, got None")
    return value


_RequiredText = Annotated[str, BeforeValidator(_text_required)]


class ToolCall(SampleModel):
    """One call of a tool: its name and JSON arguments.

    ``ToolCall("get_weather", {"city": "Tokyo"})`` and
    ``ToolCall(name="get_weather", args={"city": "Tokyo"})`` are the same call: ``args`` is
    accepted for ``arguments`` because LangChain and ragas spell it so. Arguments default to
    ``{}``; ``None`` also means ``{}`` (as in the Java library). Any JSON value is allowed
    inside them; tuples become lists and the whole structure is copied, so later changes to
    the caller's dict do not reach the frozen call.
    """

    name: str = Field(min_length=1, description="Tool name; compared case-sensitively.")
    arguments: dict[str, Any] = Field(
        default_factory=dict,
        validation_alias=AliasChoices("arguments", "args"),
        description="Arguments as a JSON object; empty when the tool takes none.",
    )
    id: str | None = Field(
        default=None, description="Call id from the model; a ToolMessage may refer to it."
    )

    @plain_init
    def __init__(
        self,
        name: str = _MISSING,
        arguments: Mapping[str, Any] | None = _MISSING,
        *,
        id: str | None = _MISSING,
        **data: Any,
    ) -> None:
        self._validated_init(_given(data, name=name, arguments=arguments, id=id))

    @field_validator("arguments", mode="before")
    @classmethod
    def _json_arguments(cls, value: Any) -> dict[str, Any]:
        return {} if value is None else json_object(value)


class _MessageBase(SampleModel):
    @field_validator("type", mode="before", check_fields=False)
    @classmethod
    def _tag_any_case(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value


class HumanMessage(_MessageBase):
    """What the user said."""

    type: Literal["human"] = Field(default="human", description="Message kind tag.")
    content: _RequiredText = Field(description="The user's text.")

    @plain_init
    def __init__(self, content: str = _MISSING, **data: Any) -> None:
        self._validated_init(_given(data, content=content))


class AIMessage(_MessageBase):
    """What the agent said, and the tools it called in that turn."""

    type: Literal["ai"] = Field(default="ai", description="Message kind tag.")
    content: str = Field(
        default="", description="The agent's text; empty when it only called tools."
    )
    tool_calls: list[ToolCall] = Field(
        default_factory=list,
        validation_alias=AliasChoices("tool_calls", "toolCalls"),
        description="Tools called in this turn, in order.",
    )

    @plain_init
    def __init__(
        self,
        content: str | None = _MISSING,
        tool_calls: Sequence[ToolCall | Mapping[str, Any]] | None = _MISSING,
        **data: Any,
    ) -> None:
        self._validated_init(_given(data, content=content, tool_calls=tool_calls))

    @field_validator("content", mode="before")
    @classmethod
    def _no_text(cls, value: Any) -> Any:
        return "" if value is None else value

    @field_validator("tool_calls", mode="before")
    @classmethod
    def _no_calls(cls, value: Any) -> Any:
        return [] if value is None else value


class ToolMessage(_MessageBase):
    """What a tool returned (often a JSON string), and whether the call failed.

    ``status`` is ``"success"`` (the default) or ``"error"``, as LangChain's ``ToolMessage``
    has it; ToolCallAccuracy reads it to report failed calls and, by an option, to leave out
    failures the agent recovered from.
    """

    type: Literal["tool"] = Field(default="tool", description="Message kind tag.")
    content: _RequiredText = Field(description="The tool's output.")
    tool_call_id: str | None = Field(
        default=None,
        validation_alias=AliasChoices("tool_call_id", "toolCallId"),
        description="Id of the ToolCall this output answers, when known.",
    )
    name: str | None = Field(default=None, description="Name of the tool that answered.")
    status: Literal["success", "error"] = Field(
        default="success", description="success, or error when the tool call failed."
    )

    @plain_init
    def __init__(
        self,
        content: str = _MISSING,
        tool_call_id: str | None = _MISSING,
        name: str | None = _MISSING,
        *,
        status: str = _MISSING,
        **data: Any,
    ) -> None:
        self._validated_init(
            _given(data, content=content, tool_call_id=tool_call_id, name=name, status=status)
        )

    @field_validator("status", mode="before")
    @classmethod
    def _status_any_case(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @property
    def failed(self) -> bool:
        """Whether the tool call this message answers failed."""
        return self.status == "error"


_TAGS = {"human": "HumanMessage", "ai": "AIMessage", "tool": "ToolMessage"}


def _message_tag(value: Any) -> str | None:
    if isinstance(value, HumanMessage | AIMessage | ToolMessage):
        return type(value).__name__
    if isinstance(value, Mapping):
        kind = value.get("type")
        if isinstance(kind, str):
            return _TAGS.get(kind.strip().lower())
    return None


Message = Annotated[
    Annotated[HumanMessage, Tag("HumanMessage")]
    | Annotated[AIMessage, Tag("AIMessage")]
    | Annotated[ToolMessage, Tag("ToolMessage")],
    Discriminator(
        _message_tag,
        custom_error_type="message_type",
        custom_error_message=(
            "expected a HumanMessage, AIMessage or ToolMessage, or a mapping whose 'type' is "
            "'human', 'ai' or 'tool' (read OpenAI or LangChain traces with "
            "from_openai_messages / from_langchain_messages)"
        ),
    ),
]
"""One message of a conversation; JSON input picks the class by its ``type`` tag."""
