"""What every sample model shares: frozen, strict about unknown keys, and one error type.

Pydantic reports problems as ``ValidationError``; callers of this package only ever see
:class:`~ragas_boot.errors.SampleValidationError`, whose ``field`` is a path such as
``user_input_messages[2].content``. The conversion happens at the model boundary
(``__init__`` and the ``model_validate*`` class methods), because errors raised inside
validators are re-wrapped by pydantic.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Self, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from ragas_boot._validation import (
    alias_groups,
    field_problems,
    join_path,
    model_keys,
    short_repr,
    sub_path,
)
from ragas_boot.errors import SampleValidationError

__all__ = [
    "MAX_ARGUMENT_DEPTH",
    "SampleModel",
    "join_path",
    "json_object",
    "message_of",
    "plain_init",
    "prefixed",
    "sample_error",
    "short_repr",
    "sub_path",
]

MAX_ARGUMENT_DEPTH = 64
"""Deepest nesting accepted in tool-call arguments; deeper input is rejected, not truncated."""

# Tags of the discriminated unions (messages, reference calls) appear in pydantic error
# locations; they are class names (and "list"), never a (snake_case) field name.
_UNION_TAGS = frozenset(
    {
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
        "ToolCall",
        "ExpectedToolCall",
        "ToolCallAlternatives",
        "HumanLabel",
        "list",
    }
)
_SCALARS = (str, int, float, bool, type(None))


def message_of(error: SampleValidationError) -> str:
    """The error's message without its ``sample field '...': `` prefix."""
    return str(error).split(f"sample field '{error.field}': ", 1)[-1]


def prefixed(error: SampleValidationError, prefix: str) -> SampleValidationError:
    """The same error, located under ``prefix`` (for a model built inside a bigger structure)."""
    return SampleValidationError(
        message_of(error),
        field=sub_path(prefix, error.field),
        metric=error.metric,
        mode=error.mode,
    )


def sample_error(exc: ValidationError, model: type[BaseModel]) -> SampleValidationError:
    """Turn a pydantic ``ValidationError`` into one :class:`SampleValidationError`.

    The first problem gives ``field``; any others are listed in the message.
    """
    found = field_problems(
        exc, allowed_keys=lambda loc: model_keys(model, loc[:-1], _UNION_TAGS), tags=_UNION_TAGS
    )
    problems = [(problem.path or f"<{model.__name__}>", problem.text) for problem in found]
    field, message = problems[0]
    if len(problems) > 1:
        rest = "; ".join(f"{where}: {what}" for where, what in problems[1:])
        message = f"{message} (and {len(problems) - 1} more: {rest})"
    return SampleValidationError(message, field=field)


_F = TypeVar("_F", bound=Callable[..., None])


def plain_init(init: _F) -> _F:
    """Mark a model's ``__init__`` as argument binding only.

    Pydantic otherwise calls a custom ``__init__`` for every nested instance it validates
    (each message of a sample), which is slower and turns our errors into its own. The
    marker is the one pydantic puts on ``BaseModel.__init__`` and ``RootModel.__init__``
    (the tests of nested error paths fail if a pydantic release stops honouring it).
    """
    init.__pydantic_base_init__ = True  # type: ignore[attr-defined]
    return init


class SampleModel(BaseModel):
    """Base of every sample model: frozen, unknown keys refused, one error type."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    def _validated_init(self, data: dict[str, Any]) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise sample_error(exc, type(self)) from None

    @classmethod
    def model_validate(cls, obj: Any, *args: Any, **kwargs: Any) -> Self:
        """Validate ``obj``; raise :class:`SampleValidationError` (never pydantic's error)."""
        try:
            return super().model_validate(obj, *args, **kwargs)
        except ValidationError as exc:
            raise sample_error(exc, cls) from None

    @classmethod
    def model_validate_json(cls, json_data: Any, *args: Any, **kwargs: Any) -> Self:
        """Validate a JSON document; raise :class:`SampleValidationError` on bad input."""
        try:
            return super().model_validate_json(json_data, *args, **kwargs)
        except ValidationError as exc:
            raise sample_error(exc, cls) from None

    @classmethod
    def model_validate_strings(cls, obj: Any, *args: Any, **kwargs: Any) -> Self:
        """Validate string-valued data; raise :class:`SampleValidationError` on bad input."""
        try:
            return super().model_validate_strings(obj, *args, **kwargs)
        except ValidationError as exc:
            raise sample_error(exc, cls) from None

    @model_validator(mode="before")
    @classmethod
    def _one_spelling_per_field(cls, data: Any) -> Any:
        # With two spellings of one field (``tool_calls`` and ``toolCalls``) pydantic would
        # silently keep one; refuse instead.
        if isinstance(data, Mapping):
            for name, choices in alias_groups(cls):
                given = [key for key in choices if key in data]
                if len(given) > 1:
                    raise PydanticCustomError(
                        "duplicate_field",
                        "given twice, as {spellings}; use one spelling",
                        {"spellings": " and ".join(repr(key) for key in given), "path": name},
                    )
        return data


def json_object(value: Any, *, what: str = "arguments") -> dict[str, Any]:
    """Check that ``value`` is a JSON object and return a deep copy of it.

    Tuples become lists; anything that JSON cannot hold (bytes, sets, objects, non-string
    keys) is refused with the path of the offending value in the error context.

    Raises:
        PydanticCustomError: for a pydantic validator to report.
    """
    if not isinstance(value, Mapping):
        raise PydanticCustomError(
            "json_object",
            "expected a JSON object (a mapping of names to values), got {kind} {value}",
            {"kind": type(value).__name__, "value": short_repr(value)},
        )
    return _copy_object(value, "", 1)


def _copy_object(value: Mapping[Any, Any], path: str, depth: int) -> dict[str, Any]:
    if depth > MAX_ARGUMENT_DEPTH:
        raise PydanticCustomError(
            "json_depth",
            "nested deeper than {limit} levels",
            {"limit": MAX_ARGUMENT_DEPTH, "path": path},
        )
    copied: dict[str, Any] = {}
    for key, item in value.items():
        if not isinstance(key, str):
            raise PydanticCustomError(
                "json_key",
                "object keys must be strings, got {kind} {key}",
                {"kind": type(key).__name__, "key": short_repr(key), "path": path},
            )
        copied[key] = _copy_value(item, join_path(path, key), depth)
    return copied


def _copy_value(value: Any, path: str, depth: int) -> Any:
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, Mapping):
        return _copy_object(value, path, depth + 1)
    if isinstance(value, list | tuple):
        if depth + 1 > MAX_ARGUMENT_DEPTH:
            raise PydanticCustomError(
                "json_depth",
                "nested deeper than {limit} levels",
                {"limit": MAX_ARGUMENT_DEPTH, "path": path},
            )
        return [_copy_value(item, join_path(path, i), depth + 1) for i, item in enumerate(value)]
    raise PydanticCustomError(
        "json_value",
        "expected a JSON value (object, array, string, number, boolean or null), "
        "got {kind} {value}",
        {"kind": type(value).__name__, "value": short_repr(value), "path": path},
    )
