"""``generate suite``: test cases for an agent from its tools, each checked before it is kept.

The plan: ``count`` slots, each a kind of case (one tool, two calls, no tool, a multi-turn
scenario, in the ``mix`` asked for), its tools (by ``shares``, else evenly) and a style (plain,
terse, misspelled, Russian). Slots are asked in turn; a refused candidate puts its slot back at
the end of the queue. Once ``count`` are kept, slots for the coverage values no case reaches
yet (a tool, an enum value of an argument) are added until ``min_coverage`` is met.

Each time a one- or two-call slot is asked, its argument values are planned in code from the
inputs (:mod:`.planned`) and the model writes the message only; a slot the inputs give no
value for, a no-tool or scenario slot, and every slot under ``plan="model"`` is the free
path: the model writes the whole candidate (:mod:`.candidates`).

The cost per kept case: one generation call, plus one vote call per judge unless
``check_with_judges`` is off (a candidate that fails a check that needs no model costs its
generation call only). Every call's seed is the
generation seed plus the attempt's number, and judges at temperature 0 are cached like any
judge call: the same inputs and seed again send no request and write the same bytes.
"""

from __future__ import annotations

import json
import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from ragas_boot.execution.roles import ModelRole
from ragas_boot.generation.budget import CallMeter, Coverage, GenerationBudget
from ragas_boot.generation.candidates import (
    CandidateCall,
    CaseKind,
    Finding,
    SuiteCandidate,
    candidate_model,
    check_candidate,
    expected_calls,
)
from ragas_boot.generation.duplicates import NearDuplicates
from ragas_boot.generation.models import ask_generator, role_of, vote
from ragas_boot.generation.planned import (
    PlannedMessage,
    ValuePlanner,
    argument_text,
    closest_example,
    copied_prompt,
    missing_values,
    request_text,
    value_pools,
)
from ragas_boot.generation.report import AgentCheck, GenerationReport, Rejection, StopReason
from ragas_boot.generation.suite_file import agent_checks, invalid_case, suite_data, suite_header
from ragas_boot.generation.tools import ToolSource, load_tools
from ragas_boot.generation.traces import trace_cases
from ragas_boot.metrics.prompting import render_prompt
from ragas_boot.runs.suites.suite import AgentTestSuite, validate_suite

if TYPE_CHECKING:
    from ragas_boot.container import RagasContainer

__all__ = [
    "DEFAULT_MIX",
    "STYLES",
    "GeneratedSuite",
    "Slot",
    "agenerate_suite",
    "generate_suite",
    "plan_slots",
]

#: Instructions for each style of the user's words.
STYLES: dict[str, str] = {
    "plain": "Ordinary, clear English.",
    "terse": "Very short, few words, no greeting (as typed into a search box).",
    "misspelled": "English with two or three typing mistakes, as typed in a hurry.",
    "russian": "Russian (the whole message in Russian; argument values as the tool expects).",
}

#: Share of each kind of case when none is given.
DEFAULT_MIX: dict[str, float] = {"single": 0.7, "multi": 0.15, "no_tool": 0.15}

_TASKS: dict[CaseKind, str] = {
    "single": "A message for which a correct agent calls {tools} exactly once.",
    "multi": "A message for which a correct agent makes two calls: {tools} (one call each; "
    "the same tool twice when it is named twice).",
    "no_tool": "A message that fits this agent's topic but needs no tool at all (general "
    "knowledge, a greeting, a question about what the agent can do): no calls.",
    "scenario": 'A multi-turn case: instead of one message, a user with a goal ("scenario": '
    "the goal, the facts the user knows and gives when asked, and what success is), for which "
    "a correct agent ends up calling {tools}. Set user_message to the user's first message.",
}


_DESCRIPTIONS: dict[str, str] = {
    "single": "Calls {tools} ({style} message).",
    "multi": "Two calls: {tools} ({style} message).",
    "no_tool": "Needs no tool ({style} message).",
    "scenario": "A multi-turn scenario ending in {tools}.",
}


@dataclass(frozen=True, slots=True)
class Slot:
    """One case to write.

    Attributes:
        kind: the kind of case.
        tools: the tools it calls (none for ``no_tool``).
        style: a key of :data:`STYLES`.
        hint: an extra instruction (a coverage value to reach), or ``None``.
        target: the ``(argument, value)`` of the hint, fixed in the first call when planned.
        planned: the arguments of each call, fixed in code (:mod:`.planned`); ``None`` when
            the model proposes them.
    """

    kind: CaseKind
    tools: tuple[str, ...]
    style: str
    hint: str | None = None
    target: tuple[str, Any] | None = None
    planned: tuple[dict[str, Any], ...] | None = None


def _apportion(total: int, weights: Mapping[str, float]) -> dict[str, int]:
    """``total`` split by ``weights`` (largest remainders; ties in key order)."""
    positive = {key: weight for key, weight in weights.items() if weight > 0}
    whole = sum(positive.values())
    if not positive:
        return {}
    exact = {key: total * weight / whole for key, weight in positive.items()}
    counts = {key: int(value) for key, value in exact.items()}
    order = sorted(
        positive, key=lambda key: (-(exact[key] - counts[key]), list(positive).index(key))
    )
    for key in order[: total - sum(counts.values())]:
        counts[key] += 1
    return counts


def plan_slots(
    source: ToolSource,
    count: int,
    *,
    shares: Mapping[str, float] | None = None,
    mix: Mapping[str, float] | None = None,
    styles: Sequence[str] = ("plain",),
    seed: int = 0,
) -> list[Slot]:
    """The ``count`` slots of a generation, the same for the same arguments.

    Raises:
        ValueError: a share names an unknown tool, a mix an unknown kind, a style is unknown,
            or no weight is above 0.
    """
    names = source.names
    weights = {name: 1.0 for name in names} if not shares else dict(shares)
    for name in weights:
        if name not in names:
            raise ValueError(
                f"--share names tool '{name}', which is not declared ({', '.join(names)})"
            )
    for style in styles:
        if style not in STYLES:
            raise ValueError(f"unknown style '{style}' (known: {', '.join(STYLES)})")
    kinds: dict[str, float] = dict(mix) if mix else dict(DEFAULT_MIX)
    for kind in kinds:
        if kind not in _TASKS:
            raise ValueError(f"unknown kind of case '{kind}' (known: {', '.join(_TASKS)})")
    per_kind = _apportion(count, kinds)
    if not per_kind:
        raise ValueError("the mix gives no kind of case a share above 0")
    rng = random.Random(seed)
    tool_weights = [weights.get(name, 0.0) for name in names]
    if not any(tool_weights):
        raise ValueError("--share gives no tool a share above 0")
    single = _apportion(per_kind.get("single", 0) + per_kind.get("scenario", 0), weights)
    singles = [name for name, n in single.items() for _ in range(n)]
    rng.shuffle(singles)
    slots: list[Slot] = []
    for kind, n in per_kind.items():
        for _ in range(n):
            if kind == "no_tool":
                tools: tuple[str, ...] = ()
            elif kind == "multi":
                tools = tuple(rng.choices(names, weights=tool_weights, k=2))
            else:
                tools = (singles.pop(),)
            slots.append(Slot(kind=kind, tools=tools, style=styles[len(slots) % len(styles)]))  # type: ignore[arg-type]
    rng.shuffle(slots)
    return slots


@dataclass(frozen=True, slots=True)
class GeneratedSuite:
    """What :func:`generate_suite` made.

    Attributes:
        text: the suite file (YAML, with its header comment).
        suite: the kept cases as a suite (validated as ``suite run`` reads it); ``None``
            when nothing was kept.
        report: the generation report.
    """

    text: str
    suite: AgentTestSuite | None
    report: GenerationReport


@dataclass
class _State:
    source: ToolSource
    meter: CallMeter
    coverage: Coverage
    duplicates: NearDuplicates = field(default_factory=NearDuplicates)
    # The input suite's own messages: a planned case is a rewrite of one of them, so only a
    # copy (the same words) is refused, not a near one.
    inputs: NearDuplicates = field(default_factory=lambda: NearDuplicates(threshold=100.0))
    cases: list[dict[str, Any]] = field(default_factory=list)
    review: list[str] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)
    attempt: int = 0
    out_of_calls: bool = False


def _template(name: str) -> str:
    return resources.files(__package__).joinpath(f"prompts/{name}").read_text("utf-8")


def _tools_text(source: ToolSource) -> str:
    return "\n".join(
        f"- {tool.name}: {tool.description or '(no description)'}\n  arguments: "
        + json.dumps(tool.parameters, ensure_ascii=False, sort_keys=True)
        for tool in source.tools
    )


def _targets(source: ToolSource) -> dict[str, list[str]]:
    targets: dict[str, list[str]] = {"tool": source.names}
    for tool in source.tools:
        for name, schema in tool.parameters.get("properties", {}).items():
            if isinstance(schema, Mapping) and isinstance(schema.get("enum"), list):
                targets[f"{tool.name}.{name}"] = [_label(value) for value in schema["enum"]]
    return targets


def _label(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _covered(case: Mapping[str, Any], enums: Collection[str]) -> list[tuple[str, str]]:
    reached = []
    calls = case.get("expected-tool-calls") or []
    alternatives = calls.get("any-of", []) if isinstance(calls, Mapping) else [calls]
    for calls_of in alternatives:
        for call in calls_of:
            reached.append(("tool", call["tool-name"]))
            for name, value in (call.get("required-params") or {}).items():
                if value is not None and f"{call['tool-name']}.{name}" in enums:
                    reached.append((f"{call['tool-name']}.{name}", _label(value)))
    return list(dict.fromkeys(reached))


def _hint_slot(source: ToolSource, group: str, value: str, style: str) -> Slot:
    if group == "tool":
        return Slot(kind="single", tools=(value,), style=style)
    tool, _, argument = group.partition(".")
    hint = f"The message must ask for {argument} = {value}."
    spec = source.tool(tool)
    enum = spec.parameters["properties"][argument]["enum"] if spec is not None else []
    target = next((item for item in enum if _label(item) == value), value)
    return Slot(kind="single", tools=(tool,), style=style, hint=hint, target=(argument, target))


class _Generator:
    def __init__(
        self,
        *,
        state: _State,
        role: ModelRole,
        container: RagasContainer,
        agent: str,
        quorum: int,
        check_with_judges: bool = True,
    ) -> None:
        self._check_with_judges = check_with_judges
        source = state.source
        self._enum_args = {
            name
            for tool in source.tools
            for name, schema in tool.parameters.get("properties", {}).items()
            if isinstance(schema, Mapping) and "enum" in schema
        }
        self._state = state
        self._role = role
        self._container = container
        self._agent = agent
        self._quorum = quorum
        self._enums = set(_targets(state.source)) - {"tool"}
        self._models: dict[tuple[CaseKind, tuple[str, ...]], type[SuiteCandidate]] = {}

    def _prompt(self, slot: Slot) -> str:
        tools = " and ".join(slot.tools)
        task = _TASKS[slot.kind].format(tools=tools)
        if slot.hint:
            task += " " + slot.hint
        written = [
            case.get("user-message") or case.get("scenario", {}).get("goal", "")
            for case in self._state.cases
        ][-12:]
        return render_prompt(
            _template("suite_case.txt"),
            data={"written": "\n".join(f"- {text}" for text in written)},
            config={
                "agent": self._agent,
                "tools": _tools_text(self._state.source),
                "task": task,
                "style": STYLES[slot.style],
            },
        )

    def _model(self, slot: Slot) -> type[SuiteCandidate]:
        key = (slot.kind, slot.tools)
        if key not in self._models:
            self._models[key] = candidate_model(self._state.source, slot.kind, slot.tools)
        return self._models[key]

    async def attempt(self, slot: Slot) -> bool:
        if slot.planned is not None:
            return await self._attempt_planned(slot, slot.planned)
        state = self._state
        attempt = state.attempt
        state.attempt += 1
        answer = await ask_generator(
            self._role,
            state.meter,
            "GenerateSuiteCase",
            self._prompt(slot),
            self._model(slot),
            attempt=attempt,
        )
        if answer.value is None:
            fault = answer.fault
            message = str(fault) if fault is not None else "no answer"
            return self._reject(Finding("generator_failed", message), {}, attempt)
        candidate = answer.value
        dumped = candidate.model_dump(mode="json", exclude_none=True)
        finding = check_candidate(candidate, state.source, slot.kind)
        if finding is not None:
            return self._reject(finding, dumped, attempt)
        return await self._finish(candidate, dumped, slot, attempt)

    async def _attempt_planned(self, slot: Slot, planned: tuple[dict[str, Any], ...]) -> bool:
        """A case whose calls are fixed: the model writes the message only."""
        state = self._state
        attempt = state.attempt
        state.attempt += 1
        example = closest_example(state.source, slot.tools, planned)
        template = "suite_message.txt" if example is not None else "suite_message_new.txt"
        message, values = example or ("", "")
        prompt = render_prompt(
            _template(template),
            data={"example": message},
            config={
                "agent": self._agent,
                "request": request_text(state.source, slot.tools, planned),
                "example_values": values,
                "values": argument_text(planned),
                "style": STYLES[slot.style],
            },
        )
        answer = await ask_generator(
            self._role, state.meter, "GenerateSuiteMessage", prompt, PlannedMessage, attempt=attempt
        )
        calls = [
            CandidateCall(tool_name=name, arguments=arguments)
            for name, arguments in zip(slot.tools, planned, strict=True)
        ]
        if answer.value is None:
            fault = answer.fault
            message = str(fault) if fault is not None else "no answer"
            return self._reject(Finding("generator_failed", message), {}, attempt)
        text = answer.value.user_message.strip()
        said = text.casefold()
        keywords = [
            value
            for arguments in planned
            for name, value in arguments.items()
            if isinstance(value, str) and value.casefold() in said and name not in self._enum_args
        ]
        candidate = SuiteCandidate(user_message=text, calls=calls, answer_keywords=keywords)
        dumped = candidate.model_dump(mode="json", exclude_none=True)
        finding = check_candidate(candidate, state.source, slot.kind)
        instructions = _template(template).replace("{example}", "")
        copied = (
            copied_prompt(text, instructions, state.source, slot.tools) if finding is None else None
        )
        if copied is not None:
            finding = Finding("message_copies_prompt", f"the message copies {copied}")
        if finding is None:
            missing = missing_values(text, planned)
            if missing:
                finding = Finding(
                    "message_missing_value", f"the message does not state {'; '.join(missing)}"
                )
        if finding is not None:
            return self._reject(finding, dumped, attempt)
        return await self._finish(candidate, dumped, slot, attempt)

    async def _finish(
        self, candidate: SuiteCandidate, dumped: dict[str, Any], slot: Slot, attempt: int
    ) -> bool:
        """The checks after the candidate's own: near-duplicate, a valid case, the vote."""
        state = self._state
        # A scenario is told apart by its goal: scenarios may well share a first message.
        if slot.kind == "scenario" and candidate.scenario is not None:
            text = candidate.scenario.goal.strip()
        else:
            text = candidate.user_message.strip()
        duplicate = state.duplicates.find(text) or state.inputs.find(text)
        if duplicate is not None:
            finding = Finding(
                "near_duplicate",
                f"{duplicate.similarity:.0f}% like kept case {duplicate.key}: {duplicate.text!r}",
            )
            return self._reject(finding, dumped, attempt)
        case = _case(candidate, state.source, slot, len(state.cases) + 1)
        problem = invalid_case(case, state.source)
        if problem is not None:
            return self._reject(Finding("invalid_case", problem), dumped, attempt)
        if self._check_with_judges:
            judges = self._container.executor().judges
            if not state.meter.room(len(judges)):
                state.out_of_calls = True
                finding = Finding(
                    "budget_spent", "no calls left in --max-calls for the judges' vote"
                )
                return self._reject(finding, dumped, attempt)
            verdict = await vote(
                self._container.executor(),
                judges,
                state.meter,
                _vote_prompt(case, self._agent, state.source),
                required=self._quorum,
            )
            if not verdict.passed:
                return self._reject(Finding("judges_rejected", verdict.describe()), dumped, attempt)
        self.keep(case, text)
        return True

    def keep(self, case: dict[str, Any], text: str) -> None:
        state = self._state
        state.cases.append(case)
        state.duplicates.add(case["id"], text)
        for group, value in _covered(case, self._enums):
            state.coverage.add(group, value)

    def _reject(self, finding: Finding, candidate: dict[str, Any], attempt: int) -> bool:
        self._state.rejected.append(
            Rejection(
                reason=finding.reason, message=finding.message, candidate=candidate, attempt=attempt
            )
        )
        return False


def _case(candidate: SuiteCandidate, source: ToolSource, slot: Slot, number: int) -> dict[str, Any]:
    label = slot.tools[0] if slot.tools else "no_tool"
    case: dict[str, Any] = {"id": f"G{number:03d}_{label}"}
    case["description"] = candidate.description.strip() or _DESCRIPTIONS[slot.kind].format(
        tools=" and ".join(dict.fromkeys(slot.tools)), style=slot.style
    )
    message = candidate.user_message.strip()
    if candidate.scenario is not None and slot.kind == "scenario":
        scenario: dict[str, Any] = {"goal": candidate.scenario.goal.strip()}
        if candidate.scenario.knows:
            scenario["knows"] = dict(candidate.scenario.knows)
        if message:
            scenario["first-message"] = message
        if candidate.scenario.success.strip():
            scenario["success"] = candidate.scenario.success.strip()
        case["scenario"] = scenario
    else:
        case["user-message"] = message
    if slot.kind == "no_tool":
        case["should-not-call-tools"] = True
    else:
        case["expected-tool-calls"] = expected_calls(candidate, source)
    said = message.casefold()
    keywords = [
        w.strip() for w in candidate.answer_keywords if w.strip() and w.strip().casefold() in said
    ]
    if keywords:
        case["expected-output-contains"] = list(dict.fromkeys(keywords))[:3]
    return case


def _vote_prompt(case: Mapping[str, Any], agent: str, source: ToolSource) -> str:
    shown = {key: value for key, value in case.items() if key not in ("id", "description")}
    return render_prompt(
        _template("suite_vote.txt"),
        data={"case": yaml.safe_dump(shown, sort_keys=False, allow_unicode=True).strip()},
        config={"agent": agent, "tools": _tools_text(source)},
    )


async def agenerate_suite(
    tools: str | Path | ToolSource,
    *,
    container: RagasContainer,
    count: int = 10,
    description: str | None = None,
    shares: Mapping[str, float] | None = None,
    mix: Mapping[str, float] | None = None,
    styles: Sequence[str] = ("plain",),
    seed: int | None = None,
    min_coverage: float = 0.0,
    max_calls: int | None = None,
    max_cost: float | None = None,
    agent: str | None = None,
    from_traces: str | Path | None = None,
    validate_with_agent: bool = False,
    output: str | None = None,
    plan: str = "values",
    check_with_judges: bool = True,
) -> GeneratedSuite:
    """Generate a suite (see the module docs); :func:`generate_suite` is the sync twin.

    Args:
        tools: the tools file (OpenAI function schemas, MCP ``tools/list``, a suite file),
            or tools already read.
        container: the application container: the ``generation`` role and the judges.
        count: cases to keep.
        description: what the agent does (default: the suite's description or system
            prompt, else the tools).
        shares: weight per tool name (default: even).
        mix: share per kind of case: ``single``, ``multi``, ``no_tool``, ``scenario``.
        styles: styles of the messages, used in turn (:data:`STYLES`).
        seed: the generation's base seed (default: ``spring.ai.ragas.generation.seed``).
        min_coverage: share of coverage values (tools, enum values) kept cases must reach.
        max_calls: model calls at most (default: 6 per case asked for).
        max_cost: spend cap (billed calls only).
        agent: ``module:function`` of the agent for the generated suite (over the input
            suite's ``agent``).
        from_traces: an OTLP file: its conversations with tool calls become cases first,
            marked for review.
        validate_with_agent: run the agent once on the kept cases and report the failures.
        output: the file the suite will be written to (named in the report).
        plan: ``values``: a one- or two-call case whose required arguments all have values
            in the inputs gets its calls fixed in code and the model writes the message only
            (:mod:`.planned`); ``model``: the model proposes every case's calls too.
        check_with_judges: hold each candidate to the judges' vote (``False``: the checks
            that need no model only).

    Raises:
        SuiteError: the tools file or the traces are bad input (file and path named).
        ConfigError: no judge can play the generation role.
        ValueError: an option is out of range.
    """
    source = tools if isinstance(tools, ToolSource) else load_tools(tools)
    settings = container.settings().generation
    if seed is not None:
        settings = settings.model_copy(update={"seed": seed})
    budget = GenerationBudget(
        count=count, min_coverage=min_coverage, max_calls=max_calls, max_cost=max_cost
    )
    slots = plan_slots(source, count, shares=shares, mix=mix, styles=styles, seed=settings.seed)
    executor = container.executor()
    role = role_of(settings, executor)
    state = _State(source=source, meter=CallMeter(budget), coverage=Coverage(_targets(source)))
    for number, (message, _) in enumerate(source.messages, start=1):
        state.inputs.add(f"input case {number}", message)
    about = description or source.suite.get("description") or source.suite.get("system_prompt")
    generator = _Generator(
        state=state,
        role=role,
        container=container,
        agent=str(about or "An assistant that answers users with the tools below."),
        quorum=container.settings().metrics.min_judges or 1,
        check_with_judges=check_with_judges,
    )
    observed: list[dict[str, Any]] = []
    if from_traces is not None:
        for case, text in list(trace_cases(from_traces, source, state.duplicates)):
            case["id"] = f"R{len(state.review) + 1:03d}_{case['id']}"
            state.review.append(case["id"])
            observed += case["expected-tool-calls"]
            generator.keep(case, text)
    if plan not in ("values", "model"):
        raise ValueError(f"--plan is values or model, got {plan!r}")
    values = ValuePlanner(source, value_pools(source, observed), settings.seed)

    def planner(slot: Slot) -> Slot:
        if plan != "values" or slot.kind not in ("single", "multi"):
            return slot
        if not values.can_plan(slot.tools):
            return slot
        fixed = dict([slot.target]) if slot.target else None
        return replace(slot, planned=values.plan(slot.tools, fixed))

    queue = list(slots)
    stop: StopReason | None = None
    try:
        with executor.metered(state.meter.spend):
            while True:
                stop = state.meter.stop_reason(len(state.cases), state.coverage.share())
                if stop is None and state.out_of_calls:
                    stop = "max_calls"
                if stop is not None:
                    break
                if not queue:
                    missing = state.coverage.missing()
                    if len(state.cases) < count or not missing:
                        queue = list(slots)
                    else:
                        queue = [
                            _hint_slot(source, group, value, styles[i % len(styles)])
                            for i, (group, value) in enumerate(missing)
                        ]
                slot = planner(queue.pop(0))
                if not await generator.attempt(slot) and state.meter.room(1):
                    queue.append(slot)
    finally:
        await role.aclose()
    cases = state.cases
    data = suite_data(source, cases, agent) if cases else None
    suite = None
    checks: list[AgentCheck] | None = None
    if data is not None:
        base = Path(output).parent if output else Path(source.file).parent
        suite = validate_suite({**data, "base_dir": base.resolve()}, file=output)
        if validate_with_agent:
            checks = await agent_checks(suite, container)
    report = GenerationReport(
        kind="suite",
        output=output,
        requested=count,
        kept=[case["id"] for case in cases],
        review=list(state.review),
        rejected=list(state.rejected),
        calls=state.meter.tallies(),
        coverage=state.coverage.table(),
        min_coverage=min_coverage,
        stop_reason=stop or "exhausted",
        generator=role.model_id,
        judges=executor.judge_ids,
        seed=settings.seed,
        agent_checks=checks,
        agent_checked=len(cases) if checks is not None else 0,
    )
    options: dict[str, Any] = {
        "count": count,
        "mix": dict(mix or DEFAULT_MIX),
        "styles": list(styles),
        "plan": plan,
        "vote": check_with_judges,
    }
    if shares:
        options["shares"] = dict(shares)
    text = suite_header(source, report, options)
    if data is not None:
        text += yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
    return GeneratedSuite(text=text, suite=suite, report=report)


def generate_suite(
    tools: str | Path | ToolSource, *, container: RagasContainer, **options: Any
) -> GeneratedSuite:
    """Sync twin of :func:`agenerate_suite` (same arguments), run on the container's loop."""
    generated: GeneratedSuite = container.portal().call(
        agenerate_suite(tools, container=container, **options)
    )
    return generated
