"""The OpenAI chat-completions message format, typed once: every reader of it reads it here.

Four places read chat messages in this format: dataset files and
:func:`~ragas_boot.samples.from_openai_messages` (a trace becomes a sample), the local servers'
request parser (:mod:`ragas_boot.chat.wire.openai`, the test server and the local model's
endpoint) and the tool agent (the model's answers). They all validate with the frozen models
below and report a problem with :func:`chat_problem`, so a shape reads the same, or fails
with the same words at the same place, in all four. Nothing here does I/O.

What each shape is (the JSON shapes of OpenAI's API reference), and what it reads as in a
:class:`~ragas_boot.samples.Sample` (:func:`~ragas_boot.samples.importers.sample_messages`;
docs/data.md tables it):

- a message is picked by its ``role``: ``system`` and ``developer`` (skipped in a sample),
  ``user`` (a ``HumanMessage``), ``assistant`` (an ``AIMessage``), ``tool`` and the legacy
  ``function`` (a ``ToolMessage``); any other role is an error at ``messages[i].role``;
- ``content`` is a string or a list of parts: ``text``, ``refusal``, ``image_url``,
  ``input_audio``, ``file``; a part of another type (a provider's own, such as vLLM's
  ``video_url``) is kept as an :class:`OtherPart`. The text of a message is its text and
  refusal parts, joined by newlines; an assistant message with no text reads its ``refusal``;
- an assistant's ``tool_calls`` are ``function`` calls (``function.arguments`` a JSON string,
  or an object; a call without ``type`` is a function call) or ``custom`` calls (free text
  ``custom.input``, read as the one argument ``{"input": text}``); a legacy ``function_call``
  reads as one more call, after them, without an id;
- a ``tool`` message answers ``tool_call_id`` (it is named after that call); its content may
  be a list of text parts. Agent logs mark a failed call with ``status: "error"`` or
  ``is_error: true``, which the format has no field for; both are read.

Keys the format does not define are ignored (providers add their own). Arguments that are not
a JSON object are valid in a message (a model may write them, and clients send them back)
but cannot be a sample's tool call: :meth:`FunctionCall.tool_call` refuses them.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Annotated, Any, Final, Literal, TypeAlias, TypeVar

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    StrictBool,
    Tag,
    ValidationError,
    model_validator,
)
from pydantic_core import PydanticCustomError

from ragas_boot._loading import DATASET_LIMITS, LoadLimitError, load_json
from ragas_boot._validation import FieldProblem, field_problems, join_path, short_repr
from ragas_boot.errors import SampleValidationError
from ragas_boot.samples._base import prefixed
from ragas_boot.samples.messages import ToolCall

__all__ = [
    "ROLES",
    "AssistantMessage",
    "AudioPart",
    "ChatMessage",
    "ChatToolCall",
    "ContentPart",
    "CustomCall",
    "CustomToolCall",
    "DeveloperMessage",
    "FilePart",
    "FunctionCall",
    "FunctionResultMessage",
    "FunctionToolCall",
    "ImagePart",
    "OtherPart",
    "RefusalPart",
    "SystemMessage",
    "TextPart",
    "ToolResultMessage",
    "UserMessage",
    "chat_problem",
    "chat_problems",
    "parse_arguments",
]

_T = TypeVar("_T")

ROLES: Final = ("system", "developer", "user", "assistant", "tool", "function")
"""Every role of the format, in the order messages usually come."""


class _ChatModel(BaseModel):
    # Keys the format does not define are ignored: providers add their own
    # (``reasoning_content``, ``annotations``, ``prompt_cache_breakpoint``, ...).
    model_config = ConfigDict(frozen=True, extra="ignore")


# -- content parts ------------------------------------------------------------------------

_PART_TAGS: Final = {
    "text": "TextPart",
    "refusal": "RefusalPart",
    "image_url": "ImagePart",
    "input_audio": "AudioPart",
    "file": "FilePart",
}


class TextPart(_ChatModel):
    """A text part: read as text."""

    type: Literal["text"] = Field(description="Always 'text'.")
    text: str = Field(description="The text.")


class RefusalPart(_ChatModel):
    """An assistant's refusal as a part: read as text."""

    type: Literal["refusal"] = Field(description="Always 'refusal'.")
    refusal: str = Field(description="The refusal text.")


class ImageURL(_ChatModel):
    """Where an image part's image is."""

    url: str = Field(description="An image URL, or the image as a data: URL.")
    detail: str | None = Field(default=None, description="auto, low, high or original.")


class ImagePart(_ChatModel):
    """An image: not read (judges read text)."""

    type: Literal["image_url"] = Field(description="Always 'image_url'.")
    image_url: ImageURL = Field(description="The image.")


class InputAudio(_ChatModel):
    """An audio part's sound."""

    data: str = Field(description="Base64-encoded audio.")
    format: str = Field(description="wav or mp3.")


class AudioPart(_ChatModel):
    """Audio: not read."""

    type: Literal["input_audio"] = Field(description="Always 'input_audio'.")
    input_audio: InputAudio = Field(description="The audio.")


class FileData(_ChatModel):
    """A file part's file: given inline or by id."""

    file_data: str | None = Field(default=None, description="Base64-encoded file content.")
    file_id: str | None = Field(default=None, description="The id of an uploaded file.")
    filename: str | None = Field(default=None, description="The file's name.")


class FilePart(_ChatModel):
    """A file: not read."""

    type: Literal["file"] = Field(description="Always 'file'.")
    file: FileData = Field(description="The file.")


class OtherPart(_ChatModel):
    """A part of a type OpenAI does not define (a provider's own): kept, not read."""

    model_config = ConfigDict(frozen=True, extra="allow")

    type: str = Field(
        description="The part's type.",
        # In the JSON Schema too, a known type is never an other part (oneOf needs one match).
        json_schema_extra={"not": {"enum": list(_PART_TAGS)}},
    )


def _part_tag(value: Any) -> str | None:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    if not isinstance(kind, str):
        return None
    return _PART_TAGS.get(kind, "OtherPart")


ContentPart: TypeAlias = Annotated[
    Annotated[TextPart, Tag("TextPart")]
    | Annotated[RefusalPart, Tag("RefusalPart")]
    | Annotated[ImagePart, Tag("ImagePart")]
    | Annotated[AudioPart, Tag("AudioPart")]
    | Annotated[FilePart, Tag("FilePart")]
    | Annotated[OtherPart, Tag("OtherPart")],
    Discriminator(
        _part_tag,
        custom_error_type="content_part",
        custom_error_message="expected a content part: an object with a string 'type'",
    ),
]
"""One part of a message's content, picked by its ``type``."""


def _content_tag(value: Any) -> str | None:
    if isinstance(value, str):
        return "ContentText"
    return "ContentParts" if isinstance(value, list | tuple) else None


Content: TypeAlias = Annotated[
    Annotated[str, Tag("ContentText")] | Annotated[list[ContentPart], Tag("ContentParts")],
    Discriminator(
        _content_tag,
        custom_error_type="content",
        custom_error_message="expected a string or a list of content parts",
    ),
]
"""A message's content: a string, or a list of parts."""


def _text_of(content: str | Sequence[ContentPart] | None) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    texts = []
    for part in content:
        if isinstance(part, TextPart):
            texts.append(part.text)
        elif isinstance(part, RefusalPart):
            texts.append(part.refusal)
    return "\n".join(texts)


# -- tool calls ---------------------------------------------------------------------------


def _arguments_tag(value: Any) -> str | None:
    if isinstance(value, str):
        return "ArgumentsText"
    return "ArgumentsObject" if isinstance(value, dict) else None


Arguments: TypeAlias = Annotated[
    Annotated[str, Tag("ArgumentsText")] | Annotated[dict[str, Any], Tag("ArgumentsObject")],
    Discriminator(
        _arguments_tag,
        custom_error_type="arguments",
        custom_error_message="expected the arguments as a JSON string or an object",
    ),
]
"""A call's arguments: JSON text as the API sends it (valid JSON or not), or an object."""


class FunctionCall(_ChatModel):
    """The function a call names and its arguments (also the legacy ``function_call``)."""

    name: str = Field(min_length=1, description="The function's name.")
    arguments: Arguments | None = Field(
        default=None,
        description="The arguments: a JSON string as the API sends it, or an object.",
    )

    @property
    def arguments_text(self) -> str:
        """The arguments as written (an object as JSON text; ``""`` when absent)."""
        if self.arguments is None:
            return ""
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments, ensure_ascii=False)

    def tool_call(self, call_id: str | None, *, path: str = "") -> ToolCall:
        """This call as a sample's :class:`ToolCall`.

        Raises:
            SampleValidationError: the arguments are not a JSON object (``field`` is
                ``arguments`` under ``path``).
        """
        where = join_path(path, "arguments")
        return _built(
            ToolCall,
            path,
            name=self.name,
            arguments=parse_arguments(self.arguments, where),
            id=call_id,
        )


class FunctionToolCall(_ChatModel):
    """A call of a function tool."""

    id: str | None = Field(default=None, description="The call's id; a tool message names it.")
    type: Literal["function"] = Field(default="function", description="Always 'function'.")
    function: FunctionCall = Field(description="The function called.")

    @property
    def name(self) -> str:
        """The tool's name."""
        return self.function.name

    @property
    def arguments_text(self) -> str:
        """The arguments as written."""
        return self.function.arguments_text

    def tool_call(self, *, path: str = "") -> ToolCall:
        """This call as a sample's :class:`ToolCall` (see :meth:`FunctionCall.tool_call`)."""
        return self.function.tool_call(self.id, path=join_path(path, "function"))


class CustomCall(_ChatModel):
    """The custom tool a call names and its free-text input."""

    name: str = Field(min_length=1, description="The custom tool's name.")
    input: str = Field(default="", description="The input the model wrote, as free text.")


class CustomToolCall(_ChatModel):
    """A call of a custom tool (free-text input, no JSON arguments)."""

    id: str | None = Field(default=None, description="The call's id; a tool message names it.")
    type: Literal["custom"] = Field(description="Always 'custom'.")
    custom: CustomCall = Field(description="The custom tool called.")

    @property
    def name(self) -> str:
        """The tool's name."""
        return self.custom.name

    @property
    def arguments_text(self) -> str:
        """The input as written."""
        return self.custom.input

    def tool_call(self, *, path: str = "") -> ToolCall:
        """This call as a sample's :class:`ToolCall`: its input is the one argument
        ``input``, so that reference calls can state it like any other argument."""
        return _built(
            ToolCall, path, name=self.name, arguments={"input": self.custom.input}, id=self.id
        )


_CALL_TAGS: Final = {"function": "FunctionToolCall", "custom": "CustomToolCall"}


def _call_tag(value: Any) -> str | None:
    if isinstance(value, dict):
        kind = value.get("type", "function")
    else:
        kind = getattr(value, "type", None)
    return _CALL_TAGS.get(kind) if isinstance(kind, str) else None


ChatToolCall: TypeAlias = Annotated[
    Annotated[FunctionToolCall, Tag("FunctionToolCall")]
    | Annotated[CustomToolCall, Tag("CustomToolCall")],
    Discriminator(
        _call_tag,
        custom_error_type="tool_call",
        custom_error_message=(
            "expected a tool call: an object whose 'type' is 'function' (the default) or 'custom'"
        ),
    ),
]
"""One tool call of an assistant message, picked by its ``type``."""


# -- messages -----------------------------------------------------------------------------


class _Message(_ChatModel):
    name: str | None = Field(default=None, description="A name for the participant.")

    @property
    def text(self) -> str:
        """The text (and refusal) parts of the content, joined by newlines; "" for none."""
        return _text_of(getattr(self, "content", None))


class SystemMessage(_Message):
    """Instructions to the model; skipped in a sample (no metric scores them)."""

    role: Literal["system"] = Field(description="Always 'system'.")
    content: Content = Field(description="The instructions.")


class DeveloperMessage(_Message):
    """Instructions that newer models take in place of system ones; skipped in a sample."""

    role: Literal["developer"] = Field(description="Always 'developer'.")
    content: Content = Field(description="The instructions.")


class UserMessage(_Message):
    """What the user said: a sample's ``HumanMessage``."""

    role: Literal["user"] = Field(description="Always 'user'.")
    content: Content = Field(description="Text, or parts (text read; images, audio, files not).")


class AssistantMessage(_Message):
    """What the model said and called: a sample's ``AIMessage``."""

    role: Literal["assistant"] = Field(description="Always 'assistant'.")
    content: Content | None = Field(
        default=None, description="Text or text and refusal parts; null for a calls-only turn."
    )
    refusal: str | None = Field(default=None, description="The model's refusal, if it refused.")
    tool_calls: list[ChatToolCall] | None = Field(
        default=None, description="The tools called in this turn, in order."
    )
    function_call: FunctionCall | None = Field(
        default=None, description="The legacy single function call (before tool_calls)."
    )

    @property
    def text(self) -> str:
        """The text and refusal parts joined by newlines; else the ``refusal``; else ""."""
        return _text_of(self.content) or self.refusal or ""

    @property
    def calls(self) -> tuple[FunctionToolCall | CustomToolCall | FunctionCall, ...]:
        """Every call of the turn: the tool calls, then a legacy ``function_call``."""
        calls: list[FunctionToolCall | CustomToolCall | FunctionCall] = list(self.tool_calls or ())
        if self.function_call is not None:
            calls.append(self.function_call)
        return tuple(calls)

    def sample_calls(self, *, path: str = "") -> list[ToolCall]:
        """The calls as a sample's tool calls.

        Raises:
            SampleValidationError: a call's arguments are not a JSON object.
        """
        calls = [
            call.tool_call(path=join_path(join_path(path, "tool_calls"), position))
            for position, call in enumerate(self.tool_calls or ())
        ]
        if self.function_call is not None:
            calls.append(self.function_call.tool_call(None, path=join_path(path, "function_call")))
        return calls


def _status(value: Any) -> Any:
    return value.strip().lower() if isinstance(value, str) else value


class _ResultMessage(_Message):
    status: Annotated[Literal["success", "error"] | None, BeforeValidator(_status)] = Field(
        default=None, description="Not OpenAI's: agent logs mark a failed call 'error'."
    )
    is_error: StrictBool | None = Field(
        default=None, description="Not OpenAI's: agent logs mark a failed call true."
    )

    @model_validator(mode="after")
    def _one_verdict(self) -> _ResultMessage:
        flagged = None if self.is_error is None else ("error" if self.is_error else "success")
        if None not in (self.status, flagged) and self.status != flagged:
            raise PydanticCustomError(
                "status_conflict",
                "says {flag} but status says {status}; give one of them",
                {"flag": repr(self.is_error), "status": repr(self.status), "path": "is_error"},
            )
        return self

    @property
    def outcome(self) -> Literal["success", "error"]:
        """``error`` when the log marks the call failed, else ``success``."""
        if self.status is not None:
            return self.status
        return "error" if self.is_error else "success"


class ToolResultMessage(_ResultMessage):
    """What a tool returned: a sample's ``ToolMessage``."""

    role: Literal["tool"] = Field(description="Always 'tool'.")
    content: Content = Field(description="The tool's output: text, or a list of text parts.")
    tool_call_id: str | None = Field(default=None, description="The call this output answers.")
    name: str | None = Field(
        default=None, description="Not OpenAI's: the tool's name (else the answered call's)."
    )


class FunctionResultMessage(_ResultMessage):
    """The legacy answer to a ``function_call``: a sample's ``ToolMessage``."""

    role: Literal["function"] = Field(description="Always 'function'.")
    content: str | None = Field(description="The function's output.")
    name: str = Field(min_length=1, description="The function that answered.")


ChatMessage: TypeAlias = Annotated[
    SystemMessage
    | DeveloperMessage
    | UserMessage
    | AssistantMessage
    | ToolResultMessage
    | FunctionResultMessage,
    Field(discriminator="role"),
]
"""One message, picked by its ``role``."""


# -- problems -----------------------------------------------------------------------------

_TAGS: Final = frozenset(
    {
        *_PART_TAGS.values(),
        "OtherPart",
        *_CALL_TAGS.values(),
        "ContentText",
        "ContentParts",
        "ArgumentsText",
        "ArgumentsObject",
    }
)
_ROLE_LIST: Final = ", ".join(ROLES)


_TYPE_PROBLEMS: Final = {
    "tool_call": "unsupported tool call type {type}; expected 'function' (the default) or 'custom'",
    "content_part": "a content part needs a string 'type', got {type}",
}
_NOT_OBJECT: Final = frozenset({"model_type", "model_attributes_type", "dict_type"})
_CUSTOM_KINDS: Final = frozenset({"content", "content_part", "tool_call", "arguments"})


def chat_problems(
    error: ValidationError,
    *,
    tags: Collection[str] = (),
    type_problems: Mapping[str, str] | None = None,
) -> list[FieldProblem]:
    """Each problem of a validation that holds chat messages, located without union tags
    (the format's own, and ``tags`` of a model around them).

    A message's unknown or missing role is reported at its ``role``; an object whose
    ``type`` picks no model (a tool call, a content part, or what ``type_problems`` adds: a
    custom error type -> its message, ``{type}`` the type given) at its ``type``.
    """
    typed = {**_TYPE_PROBLEMS, **(type_problems or {})}
    all_tags = _TAGS.union(tags)
    problems = []
    found = field_problems(error, allowed_keys=lambda loc: None, tags=())
    for item, problem in zip(error.errors(include_url=False), found, strict=True):
        loc, message, kind = _without_tags(problem.loc, all_tags), problem.message, problem.kind
        given = item.get("input")
        if kind in ("union_tag_invalid", "union_tag_not_found"):  # only messages' roles
            loc = (*loc, "role")
            tag = (item.get("ctx") or {}).get("tag")
            message = (
                f"unknown role {tag!r}; expected one of {_ROLE_LIST}"
                if kind == "union_tag_invalid"
                else f"required but missing (one of {_ROLE_LIST})"
            )
        elif kind in _NOT_OBJECT:  # pydantic words these apart in JSON and in Python
            what = (
                "an OpenAI chat message (an object with a 'role')" if _at_item(loc) else "an object"
            )
            message = f"expected {what}, got {_shown(given)}"
        elif kind in typed and isinstance(given, Mapping):
            loc = (*loc, "type")
            message = typed[kind].format(type=short_repr(given.get("type")))
        elif kind in _CUSTOM_KINDS or kind in typed:
            message = f"{message}, got {_shown(given)}"
        problems.append(dataclasses.replace(problem, loc=loc, message=message))
    return problems


def _at_item(loc: tuple[int | str, ...]) -> bool:
    return not loc or isinstance(loc[-1], int)


def _shown(value: Any) -> str:
    return "nothing" if value is None else f"{type(value).__name__} {short_repr(value)}"


def _without_tags(loc: tuple[int | str, ...], tags: Collection[str]) -> tuple[int | str, ...]:
    # Tagged unions put the tag after the place of the value they picked: a role after a
    # message's index (or first, for one message), a class name after any other union.
    kept: list[int | str] = []
    for position, part in enumerate(loc):
        if isinstance(part, str):
            after_index = position == 0 or isinstance(loc[position - 1], int)
            if part in tags and position > 0:
                continue
            if part in ROLES and after_index and not _is_field(loc, position):
                continue
        kept.append(part)
    return tuple(kept)


def _is_field(loc: tuple[int | str, ...], position: int) -> bool:
    # ``function`` is a role and a field of a tool call: after a call's index and its tag
    # (already dropped above), it is the field.
    return position > 0 and loc[position - 1] in _CALL_TAGS.values()


def chat_problem(
    error: ValidationError,
    *,
    prefix: str = "",
    tags: Collection[str] = (),
    type_problems: Mapping[str, str] | None = None,
) -> tuple[str, str]:
    """The first problem of ``error`` as ``(path, message)``, the others counted in the
    message: what every reader of the format reports (``prefix`` is where the validated
    value sits, e.g. ``messages``; ``tags`` and ``type_problems`` as :func:`chat_problems`)."""
    found = chat_problems(error, tags=tags, type_problems=type_problems)
    located = [(_path(prefix, problem), problem.text) for problem in found]
    path, message = located[0]
    if len(located) > 1:
        rest = "; ".join(f"{where}: {what}" for where, what in located[1:])
        message = f"{message} (and {len(located) - 1} more: {rest})"
    return path, message


def _path(prefix: str, problem: FieldProblem) -> str:
    path = prefix
    for part in problem.loc:
        path = join_path(path, part)
    return join_path(path, problem.detail) if problem.detail else path


# -- arguments ----------------------------------------------------------------------------


def parse_arguments(raw: Any, path: str) -> Any:
    """Tool-call arguments as given (an object: the sample's ``ToolCall`` checks it), parsed
    from a JSON string, or ``{}`` when absent or empty.

    Raises:
        SampleValidationError: a string that is not JSON, or JSON that is not an object
            (``field`` is ``path``).
    """
    if raw is None:
        return {}
    if not isinstance(raw, str):
        return raw
    if not raw.strip():
        return {}
    try:
        parsed = load_json(raw, limits=DATASET_LIMITS)
    except LoadLimitError as exc:
        raise SampleValidationError(f"refused: {exc}", field=path) from None
    except ValueError as exc:
        raise SampleValidationError(
            f"not valid JSON ({exc}): {short_repr(raw)}", field=path
        ) from None
    if parsed is None:
        return {}
    if not isinstance(parsed, dict):
        raise SampleValidationError(
            f"expected a JSON object, got JSON {type(parsed).__name__} {short_repr(raw)}",
            field=path,
        )
    return parsed


def _built(model: Callable[..., _T], path: str, **fields: Any) -> _T:
    try:
        return model(**fields)
    except SampleValidationError as error:
        raise prefixed(error, path) from None
