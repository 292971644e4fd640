"""A suite's case as written in YAML, compiled to a :class:`~ragas_boot.samples.Sample`.

The suite file keeps the article's vocabulary (``expected_tool_calls`` with
``required_params``, ``forbidden_params``, ``param_validators``; keywords; budgets); each
case compiles to a sample in the samples' one expectation vocabulary, which every metric,
dataset file and report reads:

* an expectation becomes an :class:`~ragas_boot.samples.ExpectedToolCall`: a required value
  goes to ``arguments``; a required parameter of any value (``null``) becomes the rule
  ``any``; a forbidden one ``forbidden``; a validator an
  :class:`~ragas_boot.samples.ArgumentRule` (``optional`` unless the parameter is required,
  since validators apply when the parameter is present);
* ``{any_of: [[...], [...]]}`` becomes :class:`~ragas_boot.samples.ToolCallAlternatives`;
  ``should_not_call_tools`` becomes ``reference_tool_calls: []``, and a case that says
  nothing about tools has none;
* keywords and budgets become :class:`~ragas_boot.samples.CaseExpectations`.

The models validate from YAML (snake_case or kebab-case keys) and can be built in Python. A
validator is an :class:`~ragas_boot.samples.ArgumentRule` (a mapping in YAML; every check it
lists must pass) or, in Python, any callable (truthy passes)::

    param_validators:
      units: {one_of: [celsius, fahrenheit]}
      city: {regex: "^[A-Z]"}
      days: {type: integer, range: {min: 1, max: 7}}
"""

from __future__ import annotations

from collections.abc import Mapping
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

from ragas_boot.chat.openai.agent import DEFAULT_MAX_TOOL_CALLS
from ragas_boot.samples import (
    ArgumentRule,
    CaseExpectations,
    ExpectedToolCall,
    HumanMessage,
    Message,
    Sample,
    Scenario,
    ToolCall,
    ToolCallAlternatives,
    from_openai_messages,
)
from ragas_boot.samples.expectations import checked_keywords

__all__ = [
    "DEFAULT_MAX_LATENCY_MS",
    "DEFAULT_MAX_TOOL_CALLS",
    "AgentTestCase",
    "ExpectationAlternatives",
    "SuiteModel",
    "ToolCallExpectation",
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


class ToolCallExpectation(SuiteModel):
    """One tool call a case expects, as a suite file writes it (compiled by
    :meth:`expected_call`).

    Attributes:
        tool_name: the tool that must be called.
        required_params: parameters that must be present; a value is the expected value
            (compared as argument values), ``None`` accepts any value.
        forbidden_params: parameters the call must not have.
        param_validators: checks of parameter values, applied when the parameter is present
            (and required when it is in ``required_params`` too).
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
    param_validators: dict[str, ArgumentRule] = Field(
        default_factory=dict,
        description="Checks of parameter values (when present): an argument rule (one_of, "
        "regex, range, type, tolerance, subset), or a callable in Python.",
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
        for name, rule in self.param_validators.items():
            value = self.required_params.get(name)
            if rule.forbidden and name in self.required_params:
                raise ValueError(f"parameter '{name}' is both required and forbidden")
            if not rule.takes_value and value is not None:
                raise ValueError(
                    f"param_validators.{name}: the {rule.checks[0]} rule takes no value, but "
                    f"required_params.{name} is {value!r}"
                )
            if rule.tolerance is not None and (
                isinstance(value, bool) or not isinstance(value, int | float)
            ):
                raise ValueError(
                    f"param_validators.{name}: tolerance needs the expected number in "
                    f"required_params.{name}, got {value!r}"
                )
            if rule.subset and not isinstance(value, Mapping):
                raise ValueError(
                    f"param_validators.{name}: subset needs the expected object in "
                    f"required_params.{name}, got {value!r}"
                )
        return self

    def argument_rules(self) -> dict[str, ArgumentRule]:
        """The rules of the compiled call, by parameter (see the module docs)."""
        rules: dict[str, ArgumentRule] = {}
        for name, value in self.required_params.items():
            rule = self.param_validators.get(name)
            if rule is not None:
                rules[name] = rule.model_copy(update={"optional": False}) if rule.optional else rule
            elif value is None:
                rules[name] = ArgumentRule(any=True)
        for name in self.forbidden_params:
            rules[name] = ArgumentRule(forbidden=True)
        for name, rule in self.param_validators.items():
            if name not in self.required_params:
                rules[name] = rule if not rule.takes_value else _optional(rule)
        return rules

    def expected_call(self) -> ToolCall:
        """The expectation as a reference call: a plain :class:`ToolCall` when it names only
        required values, else an :class:`ExpectedToolCall` with its rules and ``optional``."""
        arguments = {name: v for name, v in self.required_params.items() if v is not None}
        rules = self.argument_rules()
        if not rules and not self.optional:
            return ToolCall(self.tool_name, arguments)
        return ExpectedToolCall(
            self.tool_name, arguments, optional=self.optional, argument_rules=rules
        )


def _optional(rule: ArgumentRule) -> ArgumentRule:
    return rule if rule.optional else rule.model_copy(update={"optional": True})


class ExpectationAlternatives(SuiteModel):
    """Several acceptable sets of expected calls; the case scores by the best one."""

    any_of: list[list[ToolCallExpectation]] = Field(
        min_length=1, description="The acceptable sets of expected calls (any order in each)."
    )

    def reference(self) -> ToolCallAlternatives:
        """The alternatives in the samples' vocabulary."""
        return ToolCallAlternatives(
            any_of=[[item.expected_call() for item in calls] for calls in self.any_of]
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
    """One case for the agent under test, and what it must do (compiled by :meth:`sample`).

    Give the input as ``user_message`` (one user turn), ``messages`` (a conversation ending
    with a user turn, in native form ``{type: human, content: ...}`` or OpenAI chat form
    ``{role: user, content: ...}``), or ``scenario`` (a simulated user talks to the agent
    over many turns; the expectations then apply to the whole conversation).
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
    scenario: Scenario | None = Field(
        default=None,
        description="A simulated user's goal, persona, the facts it knows, its first message, "
        "max turns and the expected outcome: the case is played as a whole conversation.",
    )
    repeat: int | None = Field(
        default=None,
        ge=1,
        le=100,
        description="Plays of a scenario case, each with its own seed (pass rate, Wilson "
        "interval, pass^k); default: the suite's repeat.",
    )
    topics: list[str] | None = Field(
        default=None,
        description="Topics the agent may talk about (TopicAdherence's reference_topics).",
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

    @field_validator("expected_output_contains")
    @classmethod
    def _no_blank_keyword(cls, keywords: list[str]) -> list[str]:
        return checked_keywords(keywords)  # refused on loading, as the sample would be

    @model_validator(mode="after")
    def _consistent(self) -> AgentTestCase:
        given = [self.user_message, self.messages, self.scenario]
        if sum(value is not None for value in given) != 1:
            raise ValueError("give exactly one of user_message, messages and scenario")
        if self.repeat is not None and self.scenario is None:
            raise ValueError("repeat plays a scenario: it needs scenario")
        if self.messages is not None and (
            not self.messages or not isinstance(self.messages[-1], HumanMessage)
        ):
            raise ValueError("messages must end with a user message")
        if self.should_not_call_tools and self.expected_tool_calls:
            raise ValueError("should_not_call_tools contradicts expected_tool_calls")
        return self

    def conversation(self) -> list[Message]:
        """The input the agent receives: the messages, or the one user message (none for a
        scenario: its user opens the conversation)."""
        if self.messages is not None:
            return list(self.messages)
        if self.scenario is not None:
            return []
        return [HumanMessage(self.user_message or "")]

    def play_ids(self, plays: int) -> list[str]:
        """The sample ids of ``plays`` plays: the case id alone, or ``ID#1`` ... ``ID#k``."""
        if plays == 1:
            return [self.id]
        return [f"{self.id}#{play}" for play in range(1, plays + 1)]

    def expectation_alternatives(self) -> list[list[ToolCallExpectation]]:
        """The acceptable sets of expected calls: the ``any_of`` lists, or the one list."""
        if isinstance(self.expected_tool_calls, ExpectationAlternatives):
            return [list(expectations) for expectations in self.expected_tool_calls.any_of]
        return [list(self.expected_tool_calls)]

    @property
    def checks_tools(self) -> bool:
        """Whether the case says anything about tool calls."""
        return bool(self.expected_tool_calls) or self.should_not_call_tools

    def reference_tool_calls(self) -> list[ToolCall] | ToolCallAlternatives | None:
        """What the case expects of the tool calls, in the samples' vocabulary: ``[]`` when
        no tool may be called; ``None`` when the case says nothing about tools."""
        if self.should_not_call_tools:
            return []
        if isinstance(self.expected_tool_calls, ExpectationAlternatives):
            return self.expected_tool_calls.reference()
        if not self.expected_tool_calls:
            return None
        return [expectation.expected_call() for expectation in self.expected_tool_calls]

    def case_expectations(self) -> CaseExpectations:
        """The keywords and budgets, in the samples' vocabulary. A scenario's budgets are
        over the whole conversation, and it has no latency budget unless it sets one (the
        default one is one turn's)."""
        latency = self.max_latency_ms
        if self.scenario is not None and "max_latency_ms" not in self.model_fields_set:
            latency = None
        return CaseExpectations(
            response_contains=list(self.expected_output_contains),
            max_tool_calls=self.max_tool_calls,
            max_latency_ms=latency,
        )

    def sample(self) -> Sample:
        """The case as a sample, before the agent runs: the input conversation, the expected
        calls, the expectations, the id (and the description in ``metadata``); a scenario
        case its scenario, with its ``success`` as the ``reference`` (AgentGoalAccuracy's).
        The runner adds what the agent did."""
        scenario = self.scenario
        return Sample(
            id=self.id,
            user_input_messages=self.conversation() if scenario is None else None,
            reference_tool_calls=self.reference_tool_calls(),
            expectations=self.case_expectations(),
            scenario=scenario,
            reference=scenario.success if scenario is not None else None,
            reference_topics=self.topics,
            metadata={"description": self.description} if self.description else None,
        )
