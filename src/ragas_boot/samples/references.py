"""What a sample expects of the agent's tool calls, beyond a plain list of calls.

``reference_tool_calls`` is a list of calls, as before, or ``{any_of: [[...], [...]]}``:
several acceptable call sequences, scored by the best. A reference call may be an
:class:`ExpectedToolCall`, which adds ``optional`` (neither missed when absent nor extra when
made) and ``argument_rules`` (per argument, an :class:`~ragas_boot.samples.ArgumentRule`:
``any``, ``forbidden``, or checks such as a ``regex``, ``one_of``, ``type``, ``range``, a
numeric ``tolerance`` around the expected value or ``subset`` of the expected object). In
YAML::

    reference_tool_calls:
      any_of:
        - - {name: get_weather, arguments: {city: Tokyo}}
        - - name: get_forecast
            arguments: {city: Tokyo, days: 1, lat: 35.68, filter: {sky: true}}
            argument_rules:
              units: {one_of: [celsius, fahrenheit], optional: true}
              lat: {tolerance: 0.01}
              filter: subset
              debug: forbidden
          - {name: get_time, optional: true}

Rules are checked when the sample is built; a problem is reported with its path
(``reference_tool_calls.any_of[1][0].argument_rules.lat``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any

from pydantic import AliasChoices, Discriminator, Field, Tag, field_validator, model_validator
from pydantic_core import PydanticCustomError

from ragas_boot.samples._base import SampleModel, plain_init, short_repr
from ragas_boot.samples.messages import ToolCall
from ragas_boot.samples.rules import ArgumentRule

__all__ = [
    "ExpectedToolCall",
    "ReferenceCall",
    "ToolCallAlternatives",
]

_MISSING: Any = object()


class ExpectedToolCall(ToolCall):
    """A reference call with expectations a plain :class:`ToolCall` cannot state.

    ``ExpectedToolCall("get_time", optional=True)`` may be made or not;
    ``ExpectedToolCall("geo", {"lat": 35.68}, argument_rules={"lat": {"tolerance": 0.01}})``
    accepts any latitude within 0.01 of 35.68. An argument with an ``any`` or ``forbidden``
    rule takes no value in ``arguments``; one with ``tolerance`` needs a number there, one with
    ``subset`` an object; with any other check a value there must also be equal.
    """

    optional: bool = Field(
        default=False, description="Neither missed when absent nor extra when made."
    )
    argument_rules: dict[str, ArgumentRule] = Field(
        default_factory=dict,
        validation_alias=AliasChoices("argument_rules", "argumentRules"),
        description="Per argument, a rule: any, forbidden, or checks (regex, one_of, type, "
        "range, tolerance, subset) that must all pass; optional: may be absent.",
    )

    @plain_init
    def __init__(
        self,
        name: str = _MISSING,
        arguments: Mapping[str, Any] | None = _MISSING,
        *,
        id: str | None = _MISSING,
        optional: bool = _MISSING,
        argument_rules: Mapping[str, ArgumentRule | Mapping[str, Any] | str | Callable[[Any], Any]]
        | None = _MISSING,
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
            if not rule.takes_value and given:
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
