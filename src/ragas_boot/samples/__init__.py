"""Samples to evaluate: conversations, tool calls, references, and importers from traces.

The public face: :class:`Sample`; its conversation's messages (:class:`HumanMessage`,
:class:`AIMessage` with its :class:`ToolCall` list, :class:`ToolMessage`; :data:`Message` any
of them); what was expected of the tool calls (:class:`ExpectedToolCall`,
:class:`ToolCallAlternatives`, argument rules: :class:`ArgumentRule`, :class:`JsonType`,
:class:`RangeRule`) and of the case (:class:`CaseExpectations`); a scenario a simulated user
plays (:class:`Scenario`); what running the agent measured (:class:`AgentRun`,
:class:`StopReason`; of a play, its :class:`Simulation` and how it ended,
:class:`ConversationEnd`); people's verdicts (:class:`HumanLabel`); and samples from traces
(:func:`from_openai_messages`, :func:`from_langchain_messages`).
"""

from ragas_boot.samples.expectations import AgentRun, CaseExpectations, StopReason
from ragas_boot.samples.importers import from_langchain_messages, from_openai_messages
from ragas_boot.samples.labels import HumanLabel
from ragas_boot.samples.messages import AIMessage, HumanMessage, Message, ToolCall, ToolMessage
from ragas_boot.samples.references import ExpectedToolCall, ToolCallAlternatives
from ragas_boot.samples.rules import ArgumentRule, JsonType, RangeRule
from ragas_boot.samples.sample import Sample
from ragas_boot.samples.scenarios import ConversationEnd, Scenario, Simulation
from ragas_boot.samples.to_openai import to_openai_messages

__all__ = [
    "AIMessage",
    "AgentRun",
    "ArgumentRule",
    "CaseExpectations",
    "ConversationEnd",
    "ExpectedToolCall",
    "HumanLabel",
    "HumanMessage",
    "JsonType",
    "Message",
    "RangeRule",
    "Sample",
    "Scenario",
    "Simulation",
    "StopReason",
    "ToolCall",
    "ToolCallAlternatives",
    "ToolMessage",
    "from_langchain_messages",
    "from_openai_messages",
    "to_openai_messages",
]
