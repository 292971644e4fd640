"""One reading of pydantic's ``ValidationError``: ``path: problem (did you mean ...)``.

Config files, samples, datasets, suites and metric sections all validate with pydantic and all
report the same way: the path of the value at fault, what is wrong with it in plain words, the
value given (when it is a short scalar and not a secret), and for an unknown key the closest
allowed one. :func:`field_problems` does that once; each caller only says which keys are
allowed where, how to show a value, and which error type to raise.
"""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

from pydantic import AliasChoices, BaseModel, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails
from pydantic_core.core_schema import ErrorType

__all__ = [
    "FieldProblem",
    "alias_groups",
    "did_you_mean",
    "field_problems",
    "join_path",
    "model_keys",
    "python_value",
    "short_repr",
    "sub_path",
]

Loc = tuple[int | str, ...]

#: pydantic's own error types; a validator's PydanticCustomError has its own words and is
#: never given a "got ..." (its message says what it needs to).
_BUILTIN_TYPES: Final = frozenset(typing.get_args(ErrorType))
#: Error types whose message already says what was given, or that have no input of their own.
_NO_ECHO: Final = frozenset({"missing", "extra_forbidden", "value_error", "assertion_error"})
_KEY_MARK: Final = "[key]"


def short_repr(value: Any, limit: int = 60) -> str:
    """A bounded ``repr`` for error messages."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def join_path(base: str, part: str | int) -> str:
    """``a`` + ``b`` → ``a.b``; ``a`` + ``2`` → ``a[2]``."""
    if isinstance(part, int):
        return f"{base}[{part}]"
    return f"{base}.{part}" if base else part


def sub_path(base: str, sub: str) -> str:
    """``sub`` located under ``base``; a ``<Model>`` placeholder means "the object itself"."""
    if not sub or sub.startswith("<"):
        return base
    if not base:
        return sub
    return base + sub if sub.startswith("[") else f"{base}.{sub}"


def did_you_mean(name: str, choices: Iterable[str]) -> str | None:
    """``did you mean 'x'?`` for the allowed key closest to ``name``, else the allowed keys
    (``None`` when there are none to offer)."""
    allowed = sorted(set(choices))
    close = difflib.get_close_matches(name, allowed, n=1, cutoff=0.6)
    if close:
        return f"did you mean '{close[0]}'?"
    return f"allowed keys: {', '.join(allowed)}" if allowed else None


def model_keys(
    model: type[BaseModel], loc: Sequence[int | str], tags: Collection[str] = ()
) -> list[str] | None:
    """The keys the object at ``loc`` inside ``model`` accepts (every spelling of each
    field), following pydantic's location: field names or spellings, list positions, dict
    keys and union ``tags``; ``None`` when ``loc`` leads to no model."""
    current: type[BaseModel] | None = model
    annotation: Any = None
    dict_key_next = False
    for part in loc:
        if isinstance(part, int):
            continue
        if part in tags:
            current = _model_in(annotation, named=part)
            continue
        if dict_key_next:
            dict_key_next = False
            continue
        field = _field_spelled(current, part) if current is not None else None
        if field is None:
            return None
        annotation = field.annotation
        dict_key_next = _has_mapping(annotation)
        current = _model_in(annotation)
    return sorted(_accepted_keys(current)) if current is not None else None


def _field_spelled(model: type[BaseModel], key: str) -> FieldInfo | None:
    """The field that ``key`` names, by its name or one of its accepted spellings."""
    for name, choices in alias_groups(model):
        if key in choices:
            return model.model_fields[name]
    return model.model_fields.get(key)


def _model_in(annotation: Any, named: str | None = None) -> type[BaseModel] | None:
    """The (first, or the one called or tagged ``named``) model class inside a type
    annotation; a discriminated union's arm is found by its ``Tag`` too."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation if named in (None, annotation.__name__) else None
    if named is not None and typing.get_origin(annotation) is typing.Annotated:
        inner, *metadata = typing.get_args(annotation)
        if any(getattr(item, "tag", None) == named for item in metadata):
            return _model_in(inner)
    for arg in getattr(annotation, "__args__", ()):
        found = _model_in(arg, named)
        if found is not None:
            return found
    return None


def _has_mapping(annotation: Any) -> bool:
    """Whether the annotation is (or, in a union, holds) a dict: its next location is a key."""
    origin = typing.get_origin(annotation)
    if isinstance(origin, type) and issubclass(origin, Mapping):
        return True
    if origin in (typing.Union, types.UnionType, typing.Annotated):
        return any(_has_mapping(arg) for arg in typing.get_args(annotation))
    return False


@cache
def alias_groups(model: type[BaseModel]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``(field name, its accepted spellings)`` for each field with ``AliasChoices``."""
    groups = []
    for name, field in model.model_fields.items():
        alias = field.validation_alias
        if isinstance(alias, AliasChoices):
            keys = tuple(str(choice) for choice in alias.choices if isinstance(choice, str))
            groups.append((name, keys))
    return tuple(groups)


def _accepted_keys(model: type[BaseModel]) -> set[str]:
    keys = set(model.model_fields)
    for _, choices in alias_groups(model):
        keys.update(choices)
    return keys


def python_value(value: Any, loc: Loc) -> str | None:
    """A value as samples and suites show it: its type and a bounded ``repr``."""
    return f"{type(value).__name__} {short_repr(value)}"


@dataclass(frozen=True, slots=True)
class FieldProblem:
    """One problem of a validated document.

    Attributes:
        loc: where, as pydantic locates it (union and validator tags left out).
        message: what is wrong (``required but missing``, ``unknown key``, ``Input should be
            a valid integer, got str 'x'``).
        hint: for an unknown key, the closest allowed key or the allowed keys.
        kind: pydantic's error type.
        detail: a nested location a validator reported (``ctx["path"]``), if any.
        cause: the exception a validator raised, if any (for callers with their own types).
    """

    loc: Loc
    message: str
    hint: str | None
    kind: str
    detail: str = ""
    cause: BaseException | None = None

    @property
    def path(self) -> str:
        """``a.b[2].c``; a dict key at fault reads ``a.b (key)``."""
        path = ""
        for part in self.loc:
            path = path + " (key)" if part == _KEY_MARK else join_path(path, part)
        return sub_path(path, self.detail)

    @property
    def text(self) -> str:
        """The message with its hint: ``unknown key; did you mean 'mode'?``."""
        return f"{self.message}; {self.hint}" if self.hint else self.message


def field_problems(
    error: ValidationError,
    *,
    allowed_keys: Callable[[Loc], Collection[str] | None],
    show: Callable[[Any, Loc], str | None] = python_value,
    spell: Callable[[str], str] = str,
    tags: Collection[str] = (),
) -> list[FieldProblem]:
    """Every problem of ``error``, in pydantic's order.

    Args:
        error: what pydantic raised.
        allowed_keys: the keys allowed beside an unknown key, given its location as pydantic
            gives it (union tags included), for the "did you mean" hint.
        show: how a value given is written after "got" (``None``: not shown, e.g. a secret).
        spell: how an unknown key is spelled before it is compared with the allowed ones.
        tags: location parts that name a union member rather than a key, to leave out.
    """
    problems = []
    for item in error.errors(include_url=False):
        problems.append(_problem(item, _clean(item["loc"], tags), allowed_keys, show, spell))
    return problems


def _clean(loc: Sequence[int | str], tags: Collection[str]) -> Loc:
    # Pydantic puts union tags and validator names (``function-after[...]``) in locations.
    return tuple(
        part
        for part in loc
        if not (isinstance(part, str) and (part in tags or _is_validator_tag(part)))
    )


def _is_validator_tag(part: str) -> bool:
    return part != _KEY_MARK and any(char in part for char in "[](")


def _problem(
    item: ErrorDetails,
    loc: Loc,
    allowed_keys: Callable[[Loc], Collection[str] | None],
    show: Callable[[Any, Loc], str | None],
    spell: Callable[[str], str],
) -> FieldProblem:
    kind = item["type"]
    hint = None
    if kind == "missing":
        message = "required but missing"
    elif kind == "extra_forbidden":
        message = "unknown key"
        name = spell(str(loc[-1])) if loc else ""
        hint = did_you_mean(name, allowed_keys(tuple(item["loc"])) or ())
    else:
        message = str(item["msg"]).removeprefix("Value error, ")
        if kind in _BUILTIN_TYPES and kind not in _NO_ECHO:
            shown = show(item.get("input"), loc)
            if shown is not None:
                message += f", got {shown}"
    context = item.get("ctx") or {}
    detail, cause = context.get("path"), context.get("error")
    return FieldProblem(
        loc,
        message,
        hint,
        kind,
        detail=detail if isinstance(detail, str) else "",
        cause=cause if isinstance(cause, BaseException) else None,
    )
