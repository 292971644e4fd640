"""How one argument of an expected call is checked: :class:`ArgumentRule` and its parts.

An argument with a rule passes by the rule instead of by equality alone. A rule holds one or
more checks, and every check given must pass:

* ``regex``: a string the pattern is found in (``re.search``; anchor it for a full match);
* ``one_of``: one of the values listed (compared as argument values);
* ``type``: the JSON type (``string``, ``integer``, ``number``, ``boolean``, ``array``,
  ``object``, ``null``);
* ``range``: a number within inclusive bounds (``{min: 1, max: 7}`` or ``[1, 7]``);
* ``tolerance``: a number at most this far from the expected number in ``arguments``;
* ``subset``: an object holding at least the expected object in ``arguments``;
* ``check``: a Python callable, truthy for a good value (Python only: a file cannot hold it).

Two rules stand alone: ``any`` (present, any value) and ``forbidden`` (the call must not have
the argument). ``optional: true`` lets the argument be absent; when present its checks apply.
An expected value in ``arguments`` must also be equal, unless ``tolerance`` or ``subset``
compares with it. In YAML the words ``any``, ``subset`` and ``forbidden`` stand for the rule
with that one check.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Any

from pydantic import (
    AliasChoices,
    Field,
    field_serializer,
    field_validator,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import PydanticCustomError

from ragas_boot.samples._base import SampleModel, short_repr

__all__ = ["ArgumentRule", "JsonType", "RangeRule", "describe_check"]

_RULE_WORDS = ("any", "subset", "forbidden")


class JsonType(StrEnum):
    """The JSON type an argument value must have (``type`` check).

    Python's names are accepted too (``int``, ``str``, ``dict``, ...), in any case.
    """

    STRING = "string"
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"
    ARRAY = "array"
    OBJECT = "object"
    NULL = "null"

    @classmethod
    def _missing_(cls, value: object) -> Any:
        if isinstance(value, str):
            wanted = value.strip().lower()
            wanted = _PYTHON_TYPE_NAMES.get(wanted, wanted)
            for member in cls:
                if member.value == wanted:
                    return member
        return None

    def holds(self, value: Any) -> bool:
        """Whether ``value`` is of this JSON type (``5.0`` is an integer; a bool no number)."""
        if self is JsonType.NULL:
            return value is None
        if self is JsonType.BOOLEAN:
            return isinstance(value, bool)
        if isinstance(value, bool):
            return False
        if self is JsonType.INTEGER:
            return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
        if self is JsonType.NUMBER:
            return isinstance(value, int | float)
        if self is JsonType.STRING:
            return isinstance(value, str)
        if self is JsonType.ARRAY:
            return isinstance(value, list | tuple)
        return isinstance(value, Mapping)


_PYTHON_TYPE_NAMES = {
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "list": "array",
    "dict": "object",
    "none": "null",
}


class RangeRule(SampleModel):
    """Inclusive bounds of a numeric argument; either bound may be left open.

    ``[1, 7]`` is the short form of ``{min: 1, max: 7}``.
    """

    min: float | None = Field(default=None, description="Smallest allowed value; none if unset.")
    max: float | None = Field(default=None, description="Largest allowed value; none if unset.")

    @model_validator(mode="before")
    @classmethod
    def _from_pair(cls, data: Any) -> Any:
        if isinstance(data, list | tuple):
            if len(data) != 2:
                raise PydanticCustomError(
                    "range", "a range is [min, max], got {count} values", {"count": len(data)}
                )
            return {"min": data[0], "max": data[1]}
        return data

    @model_validator(mode="after")
    def _ordered(self) -> RangeRule:
        if self.min is None and self.max is None:
            raise PydanticCustomError("range", "a range needs min, max or both")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise PydanticCustomError(
                "range",
                "range min {low} is above max {high}",
                {"low": f"{self.min:g}", "high": f"{self.max:g}"},
            )
        return self

    def holds(self, value: Any) -> bool:
        """Whether ``value`` is a finite number within the bounds (a bool is no number)."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        number = float(value)
        if not math.isfinite(number):
            return False
        return (self.min is None or number >= self.min) and (self.max is None or number <= self.max)

    def describe(self) -> str:
        """``in [1, 7]``, ``>= 1`` or ``<= 7``."""
        if self.min is not None and self.max is not None:
            return f"in [{self.min:g}, {self.max:g}]"
        if self.min is not None:
            return f">= {self.min:g}"
        return f"<= {self.max:g}"


def describe_check(check: Callable[..., Any]) -> str:
    """A callable check by its qualified name: ``check weather.valid_units``."""
    module = getattr(check, "__module__", None)
    name = getattr(check, "__qualname__", None) or type(check).__qualname__
    return f"check {module}.{name}" if module and module != "builtins" else f"check {name}"


def _alias(name: str) -> AliasChoices:
    """snake_case, kebab-case (suite files) and camelCase (Java-era JSON) spellings."""
    head, *rest = name.split("_")
    return AliasChoices(name, name.replace("_", "-"), head + "".join(p.title() for p in rest))


class ArgumentRule(SampleModel):
    """How one argument of an expected call is checked (see the module docs).

    Example:
        ``ArgumentRule(one_of=["celsius", "fahrenheit"], optional=True)``,
        ``ArgumentRule(type="integer", range=[1, 7])``, ``ArgumentRule(tolerance=0.01)``,
        ``ArgumentRule(forbidden=True)``, ``ArgumentRule(check=str.istitle)``.
    """

    any: bool = Field(default=False, description="Present, with any value (stands alone).")
    forbidden: bool = Field(
        default=False, description="The call must not have the argument (stands alone)."
    )
    regex: str | None = Field(
        default=None, description="Pattern a string value must contain (re.search; anchor it)."
    )
    one_of: list[Any] | None = Field(
        default=None,
        min_length=1,
        validation_alias=_alias("one_of"),
        description="Allowed values, compared as argument values.",
    )
    type: JsonType | None = Field(default=None, description="JSON type of the value.")
    range: RangeRule | None = Field(default=None, description="Inclusive numeric bounds.")
    tolerance: float | None = Field(
        default=None,
        ge=0.0,
        allow_inf_nan=False,
        description="Largest distance from the expected number given in arguments.",
    )
    subset: bool = Field(
        default=False,
        description="The value holds at least the expected object's keys and values.",
    )
    check: SkipJsonSchema[Callable[[Any], Any] | None] = Field(
        default=None,
        description="Python only: a callable, truthy for a good value (one that raises fails "
        "the check); shown by its qualified name in reports.",
    )
    optional: bool = Field(
        default=False, description="The argument may be absent; when present its checks apply."
    )

    @model_validator(mode="before")
    @classmethod
    def _short_form(cls, data: Any) -> Any:
        if isinstance(data, str):
            word = data.strip().lower()
            if word in _RULE_WORDS:
                return {word: True}
            raise PydanticCustomError(
                "argument_rule",
                "unknown rule {word}; expected 'any', 'subset', 'forbidden', or a mapping of "
                "checks (regex, one_of, type, range, tolerance, subset)",
                {"word": short_repr(data)},
            )
        if callable(data) and not isinstance(data, type):
            return {"check": data}
        return data

    @field_validator("regex")
    @classmethod
    def _compiles(cls, pattern: str | None) -> str | None:
        if pattern is not None:
            try:
                re.compile(pattern)
            except re.error as error:
                raise PydanticCustomError(
                    "regex", "not a valid regular expression: {error}", {"error": str(error)}
                ) from None
        return pattern

    @field_validator("check", mode="before")
    @classmethod
    def _callable(cls, value: Any) -> Any:
        if value is not None and not callable(value):
            raise PydanticCustomError(
                "argument_rule",
                "check is a Python callable, got {value}; a file gives a declarative check "
                "(regex, one_of, type, range, tolerance, subset)",
                {"value": short_repr(value)},
            )
        return value

    @field_serializer("check", when_used="json")
    def _check_name(self, check: Callable[[Any], Any] | None) -> str | None:
        return None if check is None else describe_check(check)

    @model_validator(mode="after")
    def _fits(self) -> ArgumentRule:
        given = self.checks
        if not given:
            raise PydanticCustomError(
                "argument_rule",
                "a rule needs a check: any, forbidden, regex, one_of, type, range, tolerance, "
                "subset (or a Python check); got none",
            )
        for alone in ("any", "forbidden"):
            if alone in given and (len(given) > 1 or self.optional):
                others = [name for name in given if name != alone]
                if self.optional:
                    others.append("optional")
                raise PydanticCustomError(
                    "argument_rule",
                    "{alone} stands alone, but the rule also says {others}",
                    {"alone": alone, "others": ", ".join(others)},
                )
        if self.tolerance is not None and self.subset:
            raise PydanticCustomError(
                "argument_rule", "tolerance compares numbers and subset objects: give one"
            )
        return self

    @property
    def checks(self) -> list[str]:
        """The names of the checks set, in the order they are applied."""
        return [
            name
            for name, on in (
                ("any", self.any),
                ("forbidden", self.forbidden),
                ("type", self.type is not None),
                ("tolerance", self.tolerance is not None),
                ("subset", self.subset),
                ("one_of", self.one_of is not None),
                ("regex", self.regex is not None),
                ("range", self.range is not None),
                ("check", self.check is not None),
            )
            if on
        ]

    @property
    def compares_with_expected(self) -> bool:
        """Whether the rule compares with the expected value instead of equality
        (``tolerance``, ``subset``)."""
        return self.tolerance is not None or self.subset

    @property
    def takes_value(self) -> bool:
        """Whether an expected value in ``arguments`` may go with the rule (not with ``any``
        or ``forbidden``)."""
        return not (self.any or self.forbidden)

    def describe(self) -> str:
        """The rule in words: ``any value``, ``type integer, in [1, 7]``, ``within 0.01``."""
        if self.any:
            return "any value"
        if self.forbidden:
            return "absent"
        parts = []
        if self.type is not None:
            parts.append(f"type {self.type.value}")
        if self.tolerance is not None:
            parts.append(f"within {self.tolerance:g}")
        if self.subset:
            parts.append("subset")
        if self.one_of is not None:
            parts.append(f"one of {self.one_of!r}")
        if self.regex is not None:
            parts.append(f"matches /{self.regex}/")
        if self.range is not None:
            parts.append(self.range.describe())
        if self.check is not None:
            parts.append(describe_check(self.check))
        text = ", ".join(parts)
        return f"{text} (optional)" if self.optional else text
