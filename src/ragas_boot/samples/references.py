"""What a sample expects of the agent's tool calls, beyond a plain list of calls.

``reference_tool_calls`` is a list of calls, as before, or ``{any_of: [[...], [...]]}``:
several acceptable call sequences, scored by the best. A reference call may be an
:class:`ExpectedToolCall`, which adds ``optional`` (neither missed when absent nor extra when
made) and ``argument_rules`` (per argument: ``any``, a ``regex``, a numeric ``tolerance``
around the expected value, or ``subset`` of the expected object). In YAML::

    reference_tool_calls:
      any_of:
        - - {name: get_weather, arguments: {city: Tokyo}}
        - - name: get_forecast
            arguments: {city: Tokyo, days: 1, lat: 35.68, filter: {sky: true}}
            argument_rules: {units: any, lat: {tolerance: 0.01}, filter: subset}
          - {name: get_time, optional: true}

Rules are checked when the sample is built; a problem is reported with its path
(``reference_tool_calls.any_of[1][0].argument_rules.lat``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from pydantic import AliasChoices, Discriminator, Field, Tag, field_validator, model_validator
from pydantic_core import PydanticCustomError

from ragas_boot.samples._base import SampleModel, plain_init, short_repr
from ragas_boot.samples.messages import ToolCall

__all__ = [
    "ArgumentRule",
    "ExpectedToolCall",
    "ReferenceCall",
    "ToolCallAlternatives",
]

_MISSING: Any = object()
_RULE_WORDS = ("any", "subset")


class ArgumentRule(SampleModel):
    """How one argument of an expected call is checked instead of by equality.

    Exactly one check: ``any`` (present, any value), ``regex`` (a string the pattern is found
    in, ``re.search``: anchor it for a full match), ``tolerance`` (a number at most this far
    from the expected number in ``arguments``), or ``subset`` (an object with at least the
    expected object's keys and values, nested objects alike). In YAML the words ``any`` and
    ``subset`` stand for ``{any: true}`` and ``{subset: true}``.
    """

    any: bool = Field(default=False, description="The argument is present, with any value.")
    regex: str | None = Field(
        default=None, description="Pattern the string value must contain (re.search; anchor it)."
    )
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

    @model_validator(mode="before")
    @classmethod
    def _short_form(cls, data: Any) -> Any:
        if isinstance(data, str):
            word = data.strip().lower()
            if word in _RULE_WORDS:
                return {word: True}
            raise PydanticCustomError(
                "argument_rule",
                "unknown rule {word}; expected 'any', 'subset', or a mapping with regex or "
                "tolerance",
                {"word": short_repr(data)},
            )
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

    @model_validator(mode="after")
    def _one_check(self) -> ArgumentRule:
        given = self.checks
        if len(given) != 1:
            found = ", ".join(given) if given else "none"
            raise PydanticCustomError(
                "argument_rule",
                "a rule has exactly one of any, regex, tolerance, subset; got {found}",
                {"found": found},
            )
        return self

    @property
    def checks(self) -> list[str]:
        """The names of the checks set (one, once validated)."""
        return [
            name
            for name, on in (
                ("any", self.any),
                ("regex", self.regex is not None),
                ("tolerance", self.tolerance is not None),
                ("subset", self.subset),
            )
            if on
        ]

    def describe(self) -> str:
        """The rule in words: ``any value``, ``matches /^T/``, ``within 0.01``, ``subset``."""
        if self.any:
            return "any value"
        if self.regex is not None:
            return f"matches /{self.regex}/"
        if self.tolerance is not None:
            return f"within {self.tolerance:g}"
        return "subset"


class ExpectedToolCall(ToolCall):
    """A reference call with expectations a plain :class:`ToolCall` cannot state.

    ``ExpectedToolCall("get_time", optional=True)`` may be made or not;
    ``ExpectedToolCall("geo", {"lat": 35.68}, argument_rules={"lat": {"tolerance": 0.01}})``
    accepts any latitude within 0.01 of 35.68. An argument with an ``any`` or ``regex`` rule
    takes no value in ``arguments``; one with ``tolerance`` needs a number there, one with
    ``subset`` an object.
    """

    optional: bool = Field(
        default=False, description="Neither missed when absent nor extra when made."
    )
    argument_rules: dict[str, ArgumentRule] = Field(
        default_factory=dict,
        validation_alias=AliasChoices("argument_rules", "argumentRules"),
        description="Per argument, a check that replaces equality: any, regex, tolerance, subset.",
    )

    @plain_init
    def __init__(
        self,
        name: str = _MISSING,
        arguments: Mapping[str, Any] | None = _MISSING,
        *,
        id: str | None = _MISSING,
        optional: bool = _MISSING,
        argument_rules: Mapping[str, ArgumentRule | Mapping[str, Any] | str] | None = _MISSING,
        **data: Any,
    ) -> None:
        named = {
            "name": name,
            "arguments": arguments,
            "id": id,
            "optional": optional,
            "argument_rules": argument_rules,
        }
        data.update((key, value) for key, value in named.items() if value is not _MISSING)
        self._validated_init(data)

    @field_validator("argument_rules", mode="before")
    @classmethod
    def _no_rules(cls, value: Any) -> Any:
        return {} if value is None else value

    @model_validator(mode="after")
    def _rules_fit_arguments(self) -> ExpectedToolCall:
        for name, rule in self.argument_rules.items():
            path = f"argument_rules.{name}"
            given = name in self.arguments
            value = self.arguments.get(name)
            if (rule.any or rule.regex is not None) and given:
                raise PydanticCustomError(
                    "argument_rule",
                    "the {check} rule takes no value in arguments, but arguments.{name} is "
                    "{value}; drop one of them",
                    {
                        "check": rule.checks[0],
                        "name": name,
                        "value": short_repr(value),
                        "path": path,
                    },
                )
            if rule.tolerance is not None and not _is_number(value):
                raise PydanticCustomError(
                    "argument_rule",
                    "a tolerance rule needs the expected number in arguments.{name}, got {value}",
                    {
                        "name": name,
                        "value": short_repr(value) if given else "nothing",
                        "path": path,
                    },
                )
            if rule.subset and not isinstance(value, Mapping):
                raise PydanticCustomError(
                    "argument_rule",
                    "a subset rule needs the expected object in arguments.{name}, got {value}",
                    {
                        "name": name,
                        "value": short_repr(value) if given else "nothing",
                        "path": path,
                    },
                )
        return self

    @property
    def expected_names(self) -> list[str]:
        """Every argument the call is expected to have: the given values, then the rules."""
        return list(dict.fromkeys([*self.arguments, *self.argument_rules]))


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


_TOOL_CALL_KEYS = frozenset({"name", "arguments", "args", "id"})


def _reference_call_tag(value: Any) -> str | None:
    if isinstance(value, ExpectedToolCall):
        return "ExpectedToolCall"
    if isinstance(value, ToolCall):
        return "ToolCall"
    if isinstance(value, Mapping):
        # Any other key (optional, argument_rules, or a typo) goes to the richer model, whose
        # "unknown field" error then lists every key a reference call accepts.
        return "ToolCall" if _TOOL_CALL_KEYS.issuperset(value) else "ExpectedToolCall"
    return "ToolCall"  # ToolCall's validation reports what is wrong with it


ReferenceCall = Annotated[
    Annotated[ToolCall, Tag("ToolCall")] | Annotated[ExpectedToolCall, Tag("ExpectedToolCall")],
    Discriminator(_reference_call_tag),
]
"""One expected call: a plain :class:`ToolCall`, or an :class:`ExpectedToolCall` when it says
``optional`` or ``argument_rules``."""


class ToolCallAlternatives(SampleModel):
    """Several acceptable call sequences; the score is the best over them.

    ``ToolCallAlternatives(any_of=[[ToolCall("a")], [ToolCall("b"), ToolCall("c")]])``; an
    empty sequence means "no call at all" is acceptable too.
    """

    any_of: list[list[ReferenceCall]] = Field(
        min_length=1,
        validation_alias=AliasChoices("any_of", "anyOf"),
        description="The acceptable call sequences, each a list of expected calls.",
    )

    @plain_init
    def __init__(
        self,
        any_of: Sequence[Sequence[ToolCall | Mapping[str, Any]]] = _MISSING,
        **data: Any,
    ) -> None:
        if any_of is not _MISSING:
            data["any_of"] = any_of
        self._validated_init(data)


def _reference_tag(value: Any) -> str:
    if isinstance(value, ToolCallAlternatives | Mapping):
        return "ToolCallAlternatives"
    return "list"


ReferenceToolCalls = Annotated[
    Annotated[list[ReferenceCall], Tag("list")]
    | Annotated[ToolCallAlternatives, Tag("ToolCallAlternatives")],
    Discriminator(_reference_tag),
]
"""``reference_tool_calls``: a list of expected calls, or ``{any_of: [[...], ...]}``."""
