"""The evaluation sample: one conversation, what the agent did, and what was expected."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import AliasChoices, Field, field_validator

from ragas_boot.samples._base import SampleModel, plain_init
from ragas_boot.samples.expectations import AgentRun, CaseExpectations
from ragas_boot.samples.labels import HumanLabel, MetricLabels, check_labels
from ragas_boot.samples.messages import AIMessage, Message, ToolCall, ToolMessage
from ragas_boot.samples.references import ReferenceToolCalls, ToolCallAlternatives
from ragas_boot.samples.scenarios import Scenario

__all__ = ["Sample"]


class Sample(SampleModel):
    """One thing to evaluate: a conversation with tool calls, plus the expected outcome.

    Every field is optional, and ``None`` (absent) is kept apart from ``[]`` (present but
    empty): a metric that needs a field says whether it is missing or empty. Field names are
    snake_case; the Java library's camelCase names (``userInputMessages``,
    ``referenceToolCalls``, ...) are accepted on input so Java-era JSON loads, and output
    uses the snake_case names. The Java ``rubric`` key is read as ``rubrics``; any other unknown
    key is an error (put free-form data in ``metadata``).

    Example:
        >>> sample = Sample(
        ...     user_input_messages=[HumanMessage("Weather in Tokyo?"),
        ...                          AIMessage("", [ToolCall("get_weather", {"city": "Tokyo"})])],
        ...     reference_tool_calls=[ToolCall("get_weather", {"city": "Tokyo"})],
        ... )
    """

    user_input: str | None = Field(
        default=None,
        validation_alias=AliasChoices("user_input", "userInput"),
        description="The user's request, for single-turn metrics.",
    )
    response: str | None = Field(default=None, description="The agent's final answer.")
    reference: str | None = Field(
        default=None, description="The expected outcome or answer, written by a person."
    )
    retrieved_contexts: list[str] | None = Field(
        default=None,
        validation_alias=AliasChoices("retrieved_contexts", "retrievedContexts"),
        description="Passages retrieved for the answer (RAG metrics).",
    )
    reference_contexts: list[str] | None = Field(
        default=None,
        validation_alias=AliasChoices("reference_contexts", "referenceContexts"),
        description="Passages that should have been retrieved (context recall metrics).",
    )
    rubrics: dict[str, str] | None = Field(
        default=None,
        validation_alias=AliasChoices("rubrics", "rubric"),
        description="Score levels of this sample's rubric (RubricsScore), e.g. "
        "{'score1_description': '...', ...}; the Java key 'rubric' is accepted.",
    )
    user_input_messages: list[Message] | None = Field(
        default=None,
        validation_alias=AliasChoices("user_input_messages", "userInputMessages"),
        description="The conversation: human, AI and tool messages in order.",
    )
    reference_topics: list[str] | None = Field(
        default=None,
        validation_alias=AliasChoices("reference_topics", "referenceTopics"),
        description="Topics the agent is allowed to talk about (TopicAdherence).",
    )
    tool_calls: list[ToolCall] | None = Field(
        default=None,
        validation_alias=AliasChoices("tool_calls", "toolCalls"),
        description="Tool calls the agent made; when absent, taken from the AI messages.",
    )
    reference_tool_calls: ReferenceToolCalls | None = Field(
        default=None,
        validation_alias=AliasChoices("reference_tool_calls", "referenceToolCalls"),
        description="Tool calls the agent was expected to make (ToolCallAccuracy): a list, or "
        "{any_of: [[...], ...]} for several acceptable sequences.",
    )
    expectations: CaseExpectations | None = Field(
        default=None,
        description="What the case expects beyond its tool calls: keywords of the answer, "
        "a tool-call budget, a latency budget (CaseExpectations).",
    )
    scenario: Scenario | None = Field(
        default=None,
        description="For a scenario case: the simulated user's goal, persona, the facts it "
        "knows, its first message, max turns and the expected outcome (Scenario).",
    )
    agent_run: AgentRun | None = Field(
        default=None,
        description="What running the agent measured: which agent, latency, turns, stop "
        "reason, its error, tokens (filled in by a suite run).",
    )
    labels: dict[str, MetricLabels] | None = Field(
        default=None,
        description="People's judgements per metric (bean name → a label, or a list of labels "
        "from several annotators): a pass/fail verdict, a score, or off-topic subjects. No "
        "metric reads them; `ragas-boot calibrate` compares the judges with them.",
    )
    metadata: dict[str, Any] = Field(
        default_factory=dict, description="Free-form data about the sample; no metric reads it."
    )
    id: str | None = Field(default=None, description="Sample id, shown in reports.")

    @plain_init
    def __init__(
        self,
        *,
        user_input: str | None = None,
        response: str | None = None,
        reference: str | None = None,
        retrieved_contexts: Sequence[str] | None = None,
        reference_contexts: Sequence[str] | None = None,
        rubrics: Mapping[str, str] | None = None,
        user_input_messages: Sequence[Message | Mapping[str, Any]] | None = None,
        reference_topics: Sequence[str] | None = None,
        tool_calls: Sequence[ToolCall | Mapping[str, Any]] | None = None,
        reference_tool_calls: Sequence[ToolCall | Mapping[str, Any]]
        | ToolCallAlternatives
        | Mapping[str, Any]
        | None = None,
        expectations: CaseExpectations | Mapping[str, Any] | None = None,
        scenario: Scenario | Mapping[str, Any] | None = None,
        agent_run: AgentRun | Mapping[str, Any] | None = None,
        labels: Mapping[str, Any] | None = None,
        metadata: Mapping[str, Any] | None = None,
        id: str | None = None,
        **camel_case: Any,
    ) -> None:
        named = {
            "user_input": user_input,
            "response": response,
            "reference": reference,
            "retrieved_contexts": retrieved_contexts,
            "reference_contexts": reference_contexts,
            "rubrics": rubrics,
            "user_input_messages": user_input_messages,
            "reference_topics": reference_topics,
            "tool_calls": tool_calls,
            "reference_tool_calls": reference_tool_calls,
            "expectations": expectations,
            "scenario": scenario,
            "agent_run": agent_run,
            "labels": labels,
            "metadata": metadata,
            "id": id,
        }
        # None is every field's default, so leaving it out changes nothing and lets a
        # camelCase spelling in ``camel_case`` through without a "given twice" error.
        data = {key: value for key, value in named.items() if value is not None}
        self._validated_init(data | camel_case)

    @field_validator("labels", mode="before")
    @classmethod
    def _check_labels(cls, value: Any) -> Any:
        return check_labels(value)

    @field_validator("metadata", mode="before")
    @classmethod
    def _no_metadata(cls, value: Any) -> Any:
        return {} if value is None else value

    @field_validator("id", mode="before")
    @classmethod
    def _numeric_id(cls, value: Any) -> Any:
        # Datasets often number their rows; an int id is kept as its decimal string.
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return value

    def labels_for(self, metric: str) -> list[HumanLabel]:
        """The people's labels of ``metric`` (bean name), one per annotator; ``[]`` if none."""
        given = (self.labels or {}).get(metric)
        if given is None:
            return []
        return list(given) if isinstance(given, list) else [given]

    def actual_tool_calls(self) -> list[ToolCall]:
        """The tool calls the agent made.

        Returns:
            ``tool_calls`` when given and non-empty; otherwise every AI message's tool calls in
            conversation order; otherwise ``[]``.
        """
        if self.tool_calls:
            return list(self.tool_calls)
        calls: list[ToolCall] = []
        for message in self.user_input_messages or ():
            if isinstance(message, AIMessage):
                calls.extend(message.tool_calls)
        return calls

    def final_response(self) -> str | None:
        """The agent's final answer: ``response``, else the text of the last AI message.

        Returns:
            ``None`` when there is neither (no AI message at all).
        """
        if self.response is not None:
            return self.response
        for message in reversed(self.user_input_messages or ()):
            if isinstance(message, AIMessage):
                return message.content
        return None

    def reference_alternatives(self) -> list[list[ToolCall]] | None:
        """The acceptable call sequences: the ``any_of`` lists, or the one reference list.

        Returns:
            ``None`` when ``reference_tool_calls`` is absent.
        """
        reference = self.reference_tool_calls
        if reference is None:
            return None
        if isinstance(reference, ToolCallAlternatives):
            return [list(calls) for calls in reference.any_of]
        return [list(reference)]

    def actual_tool_call_results(self) -> list[ToolMessage | None]:
        """The tool message that answers each of :meth:`actual_tool_calls`, or ``None``.

        A call with an id is answered by the tool message with that ``tool_call_id``. A call
        without one, taken from an AI message, is answered by the next tool message without
        an id that follows that AI message (before the next AI or human message), in order.

        Returns:
            One entry per actual call, in the same order.
        """
        messages = list(self.user_input_messages or ())
        by_id: dict[str, ToolMessage] = {}
        for message in messages:
            if isinstance(message, ToolMessage) and message.tool_call_id:
                by_id.setdefault(message.tool_call_id, message)
        if self.tool_calls:
            return [by_id.get(call.id) if call.id else None for call in self.tool_calls]
        results: list[ToolMessage | None] = []
        for index, message in enumerate(messages):
            if not isinstance(message, AIMessage):
                continue
            anonymous = []
            for following in messages[index + 1 :]:
                if not isinstance(following, ToolMessage):
                    break
                if not following.tool_call_id:
                    anonymous.append(following)
            unclaimed = iter(anonymous)
            for call in message.tool_calls:
                if call.id:
                    results.append(by_id.get(call.id))
                else:
                    results.append(next(unclaimed, None))
        return results
