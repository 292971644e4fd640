"""A generated suite case: what the model is asked to write, how it is checked, what it
becomes in the suite file.

The model answers a :class:`SuiteCandidate`. Its JSON Schema (sent to the model, and the
grammar of a local model) is strict: tool names are an enum of the planned tools and each
call's arguments follow that tool's schema. Validation of the answer is lenient on purpose, so
that a model that ignores the schema (any remote one may) gets its candidate *rejected with a
reason* rather than re-asked: an unknown tool, an argument outside its enum or a missing
required argument is a finding of :func:`check_candidate`, not a parse error.

The checks, cheapest first (each a reason code of the :class:`~ragas_boot.generation.report.
Rejection`): ``module_reference`` (the candidate names code to run: only the inputs may),
``wrong_shape`` (not the kind of case planned), ``unknown_tool``, ``missing_required``,
``invalid_arguments`` (jsonschema), then in :mod:`.suite` ``near_duplicate``,
``invalid_case`` (not a valid suite case) and the judges' vote (``judges_rejected``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, create_model

from ragas_boot.generation.schemas import argument_problems
from ragas_boot.generation.tools import ToolSource

__all__ = [
    "REASONS",
    "CandidateCall",
    "CaseKind",
    "Finding",
    "ScenarioDraft",
    "SuiteCandidate",
    "candidate_model",
    "check_candidate",
    "expected_calls",
]

#: The kinds of case a slot asks for.
CaseKind = Literal["single", "multi", "no_tool", "scenario"]

#: Reason codes of the suite generator's rejections, with what each means.
REASONS: dict[str, str] = {
    "generator_failed": "the generating model gave no valid answer",
    "module_reference": "the candidate names code to run (agent, function, ...)",
    "wrong_shape": "not the kind of case asked for",
    "unknown_tool": "a call names a tool that is not declared",
    "missing_required": "a call lacks a required argument",
    "invalid_arguments": "a call's arguments break the tool's JSON Schema",
    "message_copies_prompt": "the message echoes the prompt (its labels, a tool's description)",
    "message_missing_value": "the message does not state a value the planned case fixes",
    "near_duplicate": "nearly the same message as a kept case",
    "invalid_case": "not a valid suite case",
    "judges_rejected": "the judges voted that the expected calls are wrong",
    "budget_spent": "--max-calls left no call for the judges' vote",
}

# Keys that name code or runtime wiring: the generated suite takes them from the inputs only.
_REFERENCE_KEYS = frozenset(
    {"agent", "agent_model", "agent-model", "function", "tools", "tool_results", "tool-results"}
)


class CandidateCall(BaseModel):
    """One tool call the case expects."""

    model_config = ConfigDict(frozen=True, extra="allow")

    tool_name: str = Field(description="The tool the agent must call.")
    arguments: dict[str, Any] = Field(
        default_factory=dict,
        description="Its arguments: the values the user's message states, and an example "
        "value for each argument named in any_value.",
    )
    any_value: list[str] = Field(
        default_factory=list,
        description="Arguments whose value the message does not fix: any valid value is right.",
    )
    optional: bool = Field(default=False, description="A correct agent may make this call or not.")


class ScenarioDraft(BaseModel):
    """A multi-turn case: a simulated user with a goal."""

    model_config = ConfigDict(frozen=True, extra="allow")

    goal: str = Field(default="", description="What the user wants, in one sentence.")
    knows: dict[str, str] = Field(
        default_factory=dict, description="Facts the user gives when asked, by name."
    )
    success: str = Field(default="", description="What a correct agent has achieved.")


class SuiteCandidate(BaseModel):
    """A generated case, as the model writes it."""

    model_config = ConfigDict(frozen=True, extra="allow")

    description: str = Field(default="", description="What the case checks, one line.")
    user_message: str = Field(default="", description="The user's message to the agent.")
    scenario: ScenarioDraft | None = Field(
        default=None, description="For a multi-turn case: the simulated user's goal."
    )
    calls: list[CandidateCall] = Field(
        default_factory=list, description="The tool calls a correct agent makes."
    )
    answer_keywords: list[str] = Field(
        default_factory=list,
        description="One to three words from the message that the agent's answer contains.",
    )


def _call_schema(source: ToolSource, tools: Sequence[str]) -> dict[str, Any]:
    variants = []
    for name in dict.fromkeys(tools):
        tool = source.tool(name)
        if tool is None:
            continue
        properties = sorted(tool.parameters.get("properties", {}))
        variants.append(
            {
                "type": "object",
                "properties": {
                    "tool_name": {"type": "string", "enum": [name]},
                    "arguments": tool.parameters,
                    "any_value": {"type": "array", "items": {"type": "string", "enum": properties}}
                    if properties
                    else {"type": "array", "maxItems": 0},
                },
                "required": ["tool_name", "arguments"],
                "additionalProperties": False,
            }
        )
    return variants[0] if len(variants) == 1 else {"anyOf": variants}


def candidate_model(
    source: ToolSource, kind: CaseKind, tools: Sequence[str]
) -> type[SuiteCandidate]:
    """The output model of one slot: :class:`SuiteCandidate` whose JSON Schema pins the
    planned tools (names as an enum, arguments by each tool's schema) and the number of
    calls (none for ``no_tool``; two for ``multi``), and asks for a scenario only of a
    ``scenario`` slot. Its validation stays :class:`SuiteCandidate`'s."""
    if kind == "no_tool":
        calls_schema: dict[str, Any] = {"type": "array", "maxItems": 0}
    else:
        count = 2 if kind == "multi" else 1
        calls_schema = {
            "type": "array",
            "items": _call_schema(source, tools),
            "minItems": count,
            "maxItems": count,
        }
    fields: dict[str, Any] = {
        "calls": (
            Annotated[list[CandidateCall], WithJsonSchema(calls_schema)],
            Field(default_factory=list, description="The tool calls a correct agent makes."),
        )
    }
    if kind != "scenario":
        fields["scenario"] = (
            Annotated[ScenarioDraft | None, WithJsonSchema({"type": "null"})],
            Field(default=None, description="Leave null."),
        )
    required = ["user_message", "calls", "answer_keywords"]
    if kind == "scenario":
        required.insert(2, "scenario")

    def strict(schema: dict[str, Any]) -> None:
        # What the model is held to (a local model's grammar); validation stays lenient.
        schema["required"] = required
        schema["additionalProperties"] = False
        properties = schema["properties"]
        if kind != "scenario":
            properties.pop("scenario", None)
        # The case's description is written from the plan: fewer tokens for a small model.
        properties.pop("description", None)
        properties["answer_keywords"]["maxItems"] = 3

    name = "SuiteCase_" + kind + "_" + "_".join(tools)
    model: type[SuiteCandidate] = create_model(name, __base__=SuiteCandidate, **fields)
    model.model_config["json_schema_extra"] = strict  # the subclass's own copy
    model.model_rebuild(force=True)
    model.__doc__ = SuiteCandidate.__doc__
    return model


@dataclass(frozen=True, slots=True)
class Finding:
    """Why a candidate is refused.

    Attributes:
        reason: the reason code (:data:`REASONS`).
        message: what exactly was wrong.
    """

    reason: str
    message: str


def _references(value: Any, path: str) -> str | None:
    if isinstance(value, Mapping):
        for key, item in value.items():
            if key in _REFERENCE_KEYS:
                return f"{path}.{key}" if path else str(key)
            found = _references(item, f"{path}.{key}" if path else str(key))
            if found:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = _references(item, f"{path}[{index}]")
            if found:
                return found
    return None


def check_candidate(
    candidate: SuiteCandidate, source: ToolSource, kind: CaseKind
) -> Finding | None:
    """The first finding of the checks that need no model, or ``None`` when it passes."""
    dumped = candidate.model_dump(mode="json")
    # Arguments are the tool's business: a tool may well take a parameter called "function".
    outside = {
        **dumped,
        "calls": [{k: v for k, v in call.items() if k != "arguments"} for call in dumped["calls"]],
    }
    where = _references(outside, "")
    if where is not None:
        return Finding(
            "module_reference",
            f"the candidate sets {where}: code to run comes from the inputs only",
        )
    text = (
        candidate.scenario.goal if candidate.scenario is not None else candidate.user_message
    ).strip()
    if not text:
        what = "a scenario goal" if kind == "scenario" else "a user message"
        return Finding("wrong_shape", f"asked for {what}, got none")
    if kind == "scenario" and candidate.scenario is None:
        return Finding("wrong_shape", "asked for a multi-turn scenario, got a single message")
    if kind == "no_tool" and candidate.calls:
        return Finding(
            "wrong_shape", f"asked for a case with no tool call, got {len(candidate.calls)}"
        )
    if kind != "no_tool" and not [call for call in candidate.calls if not call.optional]:
        return Finding("wrong_shape", "asked for a case with tool calls, got no required call")
    for index, call in enumerate(candidate.calls):
        tool = source.tool(call.tool_name)
        if tool is None:
            return Finding(
                "unknown_tool",
                f"calls[{index}] names tool '{call.tool_name}', which is not declared "
                f"(declared: {', '.join(source.names)})",
            )
        problems = argument_problems(tool.parameters, call.arguments)
        missing = [problem for problem in problems if problem.missing]
        if missing:
            return Finding(
                "missing_required",
                f"calls[{index}] ({call.tool_name}): "
                + "; ".join(str(problem) for problem in missing),
            )
        if problems:
            return Finding(
                "invalid_arguments",
                f"calls[{index}] ({call.tool_name}): "
                + "; ".join(str(problem) for problem in problems),
            )
        unknown = [name for name in call.any_value if name not in call.arguments]
        if unknown:
            return Finding(
                "invalid_arguments",
                f"calls[{index}] ({call.tool_name}): any_value names {', '.join(unknown)}, "
                "which the arguments do not give an example value for",
            )
    return None


def _open_rule(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The argument rule of a value the message leaves open, from its schema."""
    if isinstance(schema.get("enum"), list):
        return {"one-of": list(schema["enum"])}
    rule: dict[str, Any] = {}
    kind = schema.get("type")
    if kind in ("string", "integer", "number", "boolean", "array", "object"):
        rule["type"] = kind
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None or high is not None:
        rule["range"] = {
            key: value for key, value in (("min", low), ("max", high)) if value is not None
        }
    return rule


def expected_calls(candidate: SuiteCandidate, source: ToolSource) -> list[dict[str, Any]]:
    """The candidate's calls in the suite file's expectation language: values the message
    states are ``required-params``; a value it leaves open is ``null`` there (when the tool
    requires the argument) with a rule from the schema (``one-of`` of an enum, ``type`` and
    ``range`` of a number) in ``param-validators``."""
    written = []
    for call in candidate.calls:
        tool = source.tool(call.tool_name)
        schema = tool.parameters if tool is not None else {}
        properties = schema.get("properties", {})
        required = set(schema.get("required", []))
        params: dict[str, Any] = {}
        rules: dict[str, Any] = {}
        for name, value in call.arguments.items():
            if name not in call.any_value:
                params[name] = value
                continue
            if name in required:
                params[name] = None
            rule = _open_rule(properties.get(name, {}))
            if rule:
                rules[name] = rule
        entry: dict[str, Any] = {"tool-name": call.tool_name, "required-params": params}
        if rules:
            entry["param-validators"] = rules
        if call.optional:
            entry["optional"] = True
        written.append(entry)
    return written
