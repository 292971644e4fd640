"""What a tool-evaluation case expects of an agent: which tools, which parameters, what answer.

The models validate from YAML (snake_case or kebab-case keys) and can be built in Python.
A parameter validator is either a Python callable (``lambda v: v in ("celsius",
"fahrenheit")``) or a declarative :class:`ParamRule` that YAML can hold::

    param_validators:
      units: {one_of: [celsius, fahrenheit]}
      city: {regex: "^[A-Z]"}
      days: {type: integer, range: {min: 1, max: 7}}

A rule with several checks passes only when all of them pass. ``tolerance`` and ``subset``
compare with the parameter's value in ``required_params`` (as ToolCallAccuracy's argument
rules compare with ``arguments``)::

    required_params: {lat: 35.68, filter: {sky: clear}}
    param_validators:
      lat: {tolerance: 0.01}
      filter: {subset: true}

A case may list alternatives (``expected_tool_calls: {any_of: [[...], [...]]}``; the best
scores) and mark an expectation ``optional`` (neither missing when not met nor extra when met).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Annotated, Any

from pydantic import (
    AliasChoices,
    AliasGenerator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    field_validator,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema

from ragas_boot.chat.tool_agent import DEFAULT_MAX_TOOL_CALLS
from ragas_boot.metrics.agent.matching import (
    ToolCallMode,
    ValueComparison,
    argument_score,
    rule_failure,
)
from ragas_boot.samples import (
    ArgumentRule,
    ExpectedToolCall,
    HumanMessage,
    Message,
    ToolCall,
    from_openai_messages,
)

__all__ = [
    "DEFAULT_MAX_LATENCY_MS",
    "DEFAULT_MAX_TOOL_CALLS",
    "AgentTestCase",
    "ExpectationAlternatives",
    "JsonType",
    "ParamRule",
    "ParamValidator",
    "RangeRule",
    "ToolCallExpectation",
    "describe_validator",
    "same_value",
    "validator_failure",
]

DEFAULT_MAX_LATENCY_MS = 10_000.0
"""A case's default latency budget in milliseconds (as in the seed article)."""


def _snake_or_kebab(name: str) -> AliasChoices:
    return AliasChoices(name, name.replace("_", "-"))


class SuiteModel(BaseModel):
    """Base of the suite models: frozen, unknown keys refused, snake_case or kebab-case keys."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        alias_generator=AliasGenerator(validation_alias=_snake_or_kebab),
        validate_by_name=True,
        validate_by_alias=True,
    )


def same_value(actual: Any, expected: Any, comparison: ValueComparison | str) -> bool:
    """Whether two argument values are equal under ``comparison``.

    The equality of :func:`~ragas_boot.metrics.agent.matching.argument_score`: JSON
    equality for ``EXACT`` (``1 == 1.0``, ``True != 1``), and with ``NORMALIZE`` also numeric
    strings equal to numbers and strings compared trimmed and case-insensitively.
    """
    score = argument_score(
        {"value": actual}, {"value": expected}, mode=ToolCallMode.STRICT, comparison=comparison
    )
    return score == 1.0


class JsonType(StrEnum):
    """The JSON type a parameter value must have (``type`` rule)."""

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


class RangeRule(SuiteModel):
    """Inclusive bounds of a numeric parameter; either bound may be left open."""

    min: float | None = Field(default=None, description="Smallest allowed value; none if unset.")
    max: float | None = Field(default=None, description="Largest allowed value; none if unset.")

    @model_validator(mode="before")
    @classmethod
    def _from_pair(cls, data: Any) -> Any:
        # ``range: [1, 7]`` is the short form of ``range: {min: 1, max: 7}``.
        if isinstance(data, list | tuple):
            if len(data) != 2:
                raise ValueError(f"a range is [min, max], got {len(data)} values")
            return {"min": data[0], "max": data[1]}
        return data

    @model_validator(mode="after")
    def _ordered(self) -> RangeRule:
        if self.min is None and self.max is None:
            raise ValueError("a range needs min, max or both")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"range min {self.min:g} is above max {self.max:g}")
        return self

    def describe(self) -> str:
        """``in [1, 7]``, ``>= 1`` or ``<= 7``."""
        if self.min is not None and self.max is not None:
            return f"in [{self.min:g}, {self.max:g}]"
        if self.min is not None:
            return f">= {self.min:g}"
        return f"<= {self.max:g}"


class ParamRule(SuiteModel):
    """A declarative parameter check: every check given must pass.

    Example:
        ``ParamRule(one_of=["celsius", "fahrenheit"])``, ``ParamRule(regex=r"^\\d{5}$")``,
        ``ParamRule(type="integer", range=[1, 7])``.
    """

    one_of: list[Any] | None = Field(
        default=None, min_length=1, description="Allowed values (compared as argument values)."
    )
    regex: str | None = Field(
        default=None, description="Pattern a string value must contain (re.search; anchor it)."
    )
    range: RangeRule | None = Field(default=None, description="Inclusive numeric bounds.")
    type: JsonType | None = Field(default=None, description="JSON type of the value.")
    tolerance: float | None = Field(
        default=None,
        ge=0.0,
        allow_inf_nan=False,
        description="Largest distance from the number in required_params (replaces equality).",
    )
    subset: bool = Field(
        default=False,
        description="The value holds at least the object in required_params (replaces equality).",
    )

    @field_validator("regex")
    @classmethod
    def _compiles(cls, pattern: str | None) -> str | None:
        if pattern is not None:
            try:
                re.compile(pattern)
            except re.error as error:
                raise ValueError(f"not a valid regular expression: {error}") from None
        return pattern

    @model_validator(mode="after")
    def _some_check(self) -> ParamRule:
        checks = (self.one_of, self.regex, self.range, self.type, self.tolerance)
        if all(check is None for check in checks) and not self.subset:
            raise ValueError(
                "a parameter rule needs one_of, regex, range, type, tolerance or subset"
            )
        return self

    @property
    def compares_with_required(self) -> bool:
        """Whether the rule replaces the equality check of the required value."""
        return self.tolerance is not None or self.subset

    def failure(
        self,
        value: Any,
        comparison: ValueComparison | str = ValueComparison.EXACT,
        expected: Any = None,
    ) -> str | None:
        """Why ``value`` breaks the rule, or ``None`` when it passes.

        ``expected`` is the required value that ``tolerance`` and ``subset`` compare with.
        """
        if self.tolerance is not None:
            failure = rule_failure(
                ArgumentRule(tolerance=self.tolerance), value, expected, comparison=comparison
            )
            if failure is not None:
                return failure
        if self.subset:
            failure = rule_failure(
                ArgumentRule(subset=True), value, expected, comparison=comparison
            )
            if failure is not None:
                return failure
        if self.type is not None and not self.type.holds(value):
            return f"expected type {self.type.value}, got {type(value).__name__}"
        if self.one_of is not None and not any(
            same_value(value, allowed, comparison) for allowed in self.one_of
        ):
            return f"expected one of {self.one_of!r}"
        if self.regex is not None and not (isinstance(value, str) and re.search(self.regex, value)):
            return f"expected a string matching /{self.regex}/"
        if self.range is not None:
            number = _number(value)
            low, high = self.range.min, self.range.max
            if (
                number is None
                or (low is not None and number < low)
                or (high is not None and number > high)
            ):
                return f"expected a number {self.range.describe()}"
        return None

    def describe(self) -> str:
        """The checks in words: ``type integer, in [1, 7]``."""
        parts = []
        if self.type is not None:
            parts.append(f"type {self.type.value}")
        if self.one_of is not None:
            parts.append(f"one of {self.one_of!r}")
        if self.regex is not None:
            parts.append(f"matches /{self.regex}/")
        if self.range is not None:
            parts.append(self.range.describe())
        if self.tolerance is not None:
            parts.append(f"within {self.tolerance:g} of the required value")
        if self.subset:
            parts.append("holds the required object")
        return ", ".join(parts)

    def argument_rule(self) -> ArgumentRule | None:
        """The ToolCallAccuracy rule that pairs calls the same way, if the rule has one."""
        if self.tolerance is not None:
            return ArgumentRule(tolerance=self.tolerance)
        if self.subset:
            return ArgumentRule(subset=True)
        return None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _validator_kind(value: Any) -> str:
    if isinstance(value, ParamRule | Mapping):
        return "ParamRule"
    return "Callable" if callable(value) else "ParamRule"


ParamValidator = Annotated[
    Annotated[ParamRule, Tag("ParamRule")]
    | Annotated[SkipJsonSchema[Callable[[Any], Any]], Tag("Callable")],
    Discriminator(_validator_kind),
]
"""A declarative :class:`ParamRule` (a mapping in YAML) or a callable returning truthy on
success; a callable that raises fails the check with the error as the reason."""


def validator_failure(
    validator: ParamRule | Callable[[Any], Any],
    value: Any,
    comparison: ValueComparison | str = ValueComparison.EXACT,
    expected: Any = None,
) -> str | None:
    """Why ``value`` fails ``validator``, or ``None`` when it passes (``expected``: the
    required value a ``tolerance`` or ``subset`` rule compares with)."""
    if isinstance(validator, ParamRule):
        return validator.failure(value, comparison, expected)
    try:
        passed = validator(value)
    except Exception as error:  # a user's validator; its failure is data, not a crash
        return f"{describe_validator(validator)} raised {type(error).__name__}: {error}"
    return None if passed else f"{describe_validator(validator)} returned {passed!r}"


def describe_validator(validator: ParamRule | Callable[[Any], Any]) -> str:
    """A short description: the rule's checks, or the callable's qualified name."""
    if isinstance(validator, ParamRule):
        return validator.describe()
    name = getattr(validator, "__qualname__", None) or type(validator).__name__
    return f"validator {name}"


class ToolCallExpectation(SuiteModel):
    """One tool call a case expects, and what its parameters must look like.

    Attributes:
        tool_name: the tool that must be called.
        required_params: parameters that must be present; a value is the expected value
            (compared as argument values), ``None`` accepts any value.
        forbidden_params: parameters the call must not have.
        param_validators: checks of parameter values, applied when the parameter is present.
        optional: the call may be made or not: neither missing when absent nor extra when made.
    """

    tool_name: str = Field(min_length=1, description="The tool that must be called.")
    required_params: dict[str, Any] = Field(
        default_factory=dict,
        description="Parameters that must be present: name → expected value (null: any value).",
    )
    forbidden_params: list[str] = Field(
        default_factory=list, description="Parameters the call must not have."
    )
    param_validators: dict[str, ParamValidator] = Field(
        default_factory=dict,
        description="Checks of parameter values (when present): a rule, or a callable in Python.",
    )
    optional: bool = Field(
        default=False, description="May be made or not: never missing, never extra when made."
    )

    @model_validator(mode="after")
    def _consistent(self) -> ToolCallExpectation:
        for name in self.forbidden_params:
            if name in self.required_params:
                raise ValueError(f"parameter '{name}' is both required and forbidden")
            if name in self.param_validators:
                raise ValueError(f"parameter '{name}' is forbidden but has a validator")
        for name, validator in self.param_validators.items():
            if not isinstance(validator, ParamRule):
                continue
            value = self.required_params.get(name)
            if validator.tolerance is not None and (
                isinstance(value, bool) or not isinstance(value, int | float)
            ):
                raise ValueError(
                    f"param_validators.{name}: tolerance needs the expected number in "
                    f"required_params.{name}, got {value!r}"
                )
            if validator.subset and not isinstance(value, Mapping):
                raise ValueError(
                    f"param_validators.{name}: subset needs the expected object in "
                    f"required_params.{name}, got {value!r}"
                )
        return self

    def reference_arguments(self) -> dict[str, Any]:
        """The required parameters with a concrete expected value (used to pair calls)."""
        return {name: value for name, value in self.required_params.items() if value is not None}

    def reference_call(self) -> ToolCall:
        """The expected call that pairs calls: the required values, the ``tolerance`` and
        ``subset`` rules, and ``optional``."""
        rules = {
            name: rule
            for name, validator in self.param_validators.items()
            if isinstance(validator, ParamRule) and (rule := validator.argument_rule()) is not None
        }
        if not rules and not self.optional:
            return ToolCall(self.tool_name, self.reference_arguments())
        return ExpectedToolCall(
            self.tool_name,
            self.reference_arguments(),
            optional=self.optional,
            argument_rules=rules,
        )


class ExpectationAlternatives(SuiteModel):
    """Several acceptable sets of expected calls; the case scores by the best one."""

    any_of: list[list[ToolCallExpectation]] = Field(
        min_length=1, description="The acceptable sets of expected calls (any order in each)."
    )


def _expectations_tag(value: Any) -> str:
    return (
        "ExpectationAlternatives"
        if isinstance(value, ExpectationAlternatives | Mapping)
        else "list"
    )


ExpectedToolCalls = Annotated[
    Annotated[list[ToolCallExpectation], Tag("list")]
    | Annotated[ExpectationAlternatives, Tag("ExpectationAlternatives")],
    Discriminator(_expectations_tag),
]
"""A case's expected calls: a list, or ``{any_of: [[...], ...]}`` for alternatives."""


def _openai_or_native(messages: Any) -> Any:
    """Messages in OpenAI chat format (``role``) become native ones; others pass through."""
    if isinstance(messages, list) and any(
        isinstance(message, Mapping) and "role" in message for message in messages
    ):
        sample = from_openai_messages(messages)
        return sample.user_input_messages
    return messages


class AgentTestCase(SuiteModel):
    """One scenario for the agent under test, and what it must do.

    Give the input as ``user_message`` (one user turn) or ``messages`` (a conversation ending
    with a user turn, in native form ``{type: human, content: ...}`` or OpenAI chat form
    ``{role: user, content: ...}``).
    """

    id: str = Field(min_length=1, description="Case id; unique in its suite, shown in reports.")
    description: str | None = Field(default=None, description="What the case checks, for people.")
    user_message: str | None = Field(default=None, description="The user's message.")
    messages: list[Message] | None = Field(
        default=None, description="A conversation ending with a user message (instead of one)."
    )
    expected_tool_calls: ExpectedToolCalls = Field(
        default_factory=list,
        description="Tool calls the agent must make (any order), or {any_of: [[...], ...]}: "
        "several acceptable sets, the best one scores.",
    )
    should_not_call_tools: bool = Field(
        default=False, description="The agent must answer without calling any tool."
    )
    expected_output_contains: list[str] = Field(
        default_factory=list, description="Keywords the final answer must contain (any case)."
    )
    max_tool_calls: int = Field(
        default=DEFAULT_MAX_TOOL_CALLS, ge=0, description="Tool-call budget of the case."
    )
    max_latency_ms: float | None = Field(
        default=DEFAULT_MAX_LATENCY_MS,
        gt=0,
        description="Latency budget in milliseconds; null for none.",
    )
    tool_results: dict[str, Any] = Field(
        default_factory=dict,
        description="Canned tool results for this case (built-in runner): tool name → result.",
    )

    @field_validator("id", mode="before")
    @classmethod
    def _numeric_id(cls, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return value

    @field_validator("messages", mode="before")
    @classmethod
    def _chat_format(cls, value: Any) -> Any:
        return _openai_or_native(value)

    @model_validator(mode="after")
    def _consistent(self) -> AgentTestCase:
        if (self.user_message is None) == (self.messages is None):
            raise ValueError("give exactly one of user_message and messages")
        if self.messages is not None and (
            not self.messages or not isinstance(self.messages[-1], HumanMessage)
        ):
            raise ValueError("messages must end with a user message")
        if self.should_not_call_tools and self.expected_tool_calls:
            raise ValueError("should_not_call_tools contradicts expected_tool_calls")
        return self

    def conversation(self) -> list[Message]:
        """The input the agent receives: the messages, or the one user message."""
        if self.messages is not None:
            return list(self.messages)
        return [HumanMessage(self.user_message or "")]

    def expectation_alternatives(self) -> list[list[ToolCallExpectation]]:
        """The acceptable sets of expected calls: the ``any_of`` lists, or the one list."""
        if isinstance(self.expected_tool_calls, ExpectationAlternatives):
            return [list(expectations) for expectations in self.expected_tool_calls.any_of]
        return [list(self.expected_tool_calls)]

    @property
    def checks_tools(self) -> bool:
        """Whether the case says anything about tool calls."""
        return bool(self.expected_tool_calls) or self.should_not_call_tools
