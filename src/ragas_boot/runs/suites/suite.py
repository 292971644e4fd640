"""A suite of agent test cases: built in Python or loaded from YAML.

A suite file looks like this (snake_case or kebab-case keys)::

    name: Weather Agent Tests
    agent: weather_agent:run          # default agent: module:function, beside this file
    agent_model: weather-agent        # a configured chat model to use instead, when declared
    system_prompt: You are a weather assistant.
    min_pass_rate: 0.9
    tools:
      - name: get_weather
        description: Get current weather for a city
        parameters: {type: object, properties: {city: {type: string}}, required: [city]}
        function: weather_agent:get_weather   # optional: runs when the model calls the tool
        result: {temperature: 31}             # optional canned result instead
    cases:
      - id: T001_current_weather
        user_message: What's the weather in Hanoi right now?
        expected_tool_calls:
          - tool_name: get_weather
            required_params: {city: Hanoi}
            param_validators: {units: {one_of: [celsius, fahrenheit]}}
        expected_output_contains: [Hanoi, weather]

Every problem is a :class:`~ragas_boot.errors.SuiteError` naming the file, the case (by id) and
the field.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import importlib
import importlib.util
import os
import re
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    AfterValidator,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema

from ragas_boot._loading import DATASET_LIMITS, LoadLimitError, load_json, load_yaml_documents
from ragas_boot._validation import FieldProblem, field_problems, model_keys
from ragas_boot.errors import SuiteError
from ragas_boot.runs.simulation.tools import SimulatedTool
from ragas_boot.runs.suites.expectations import (
    AgentTestCase,
    SuiteModel,
)
from ragas_boot.runs.suites.scoring import ScoringSettings
from ragas_boot.samples import Sample

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_MIN_PASS_RATE",
    "AgentTestSuite",
    "CaseProblem",
    "ToolSpec",
    "is_suite_file",
    "load_suite",
    "resolve_reference",
    "suite_json_schema",
    "validate_suite",
]

DEFAULT_MIN_PASS_RATE = 0.9
"""Pass rate the CI gate requires unless the suite or the command line says otherwise."""
DEFAULT_CONCURRENCY = 4
"""Cases run at once unless the suite or the caller says otherwise."""

_UNION_TAGS = frozenset(
    {
        "Callable",
        "Reference",
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
        "list",
        "ExpectationAlternatives",
    }
)
_MOCK_STATUS = "success"

_REFERENCE = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


def _reference(value: str) -> str:
    if not _REFERENCE.match(value):
        raise ValueError(f"expected module:function, got {value!r}")
    return value


Reference = Annotated[str, AfterValidator(_reference)]
"""``module:attribute`` (dotted on both sides)."""

ReferenceOrCallable = Annotated[
    Annotated[Reference, Tag("Reference")]
    | Annotated[SkipJsonSchema[Callable[..., Any]], Tag("Callable")],
    Discriminator(lambda value: "Callable" if callable(value) else "Reference"),
]
"""A ``module:function`` reference (YAML), or the callable itself (Python)."""


class CaseProblem(ValueError):
    """A suite-level check that found a problem inside one case (reported with its place)."""

    def __init__(self, message: str, *, case_id: str, index: int, field: str) -> None:
        self.case_id = case_id
        self.index = index
        self.field = field
        super().__init__(message)


class ToolSpec(SuiteModel):
    """A tool the agent may call: its schema for the model, and how the runner executes it.

    The built-in runner answers a call with, in order: the case's ``tool_results`` entry, the
    tool's ``function`` called with the arguments as keywords, the tool's canned ``result``,
    else a mock (``{"status": "success", "result": "Mock result for NAME", "input_received":
    ARGS}``, as in the seed article).
    """

    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_-]{1,64}$", description="Tool name.")
    description: str = Field(default="", description="What the tool does, for the model.")
    parameters: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object", "properties": {}},
        description="JSON Schema of the arguments (input_schema is accepted as well).",
    )
    function: ReferenceOrCallable | None = Field(
        default=None,
        description="module:function executed with the arguments (resolved beside the suite).",
    )
    result: Any = Field(default=None, description="Canned result when there is no function.")
    simulated: bool = Field(
        default=False,
        description="The simulation model answers each call, consistent with result_schema "
        "and the earlier results in the conversation (spring.ai.ragas.simulation).",
    )
    result_schema: dict[str, Any] | None = Field(
        default=None,
        description="JSON Schema of the tool's result (the shape a simulated tool answers in).",
    )

    @model_validator(mode="after")
    def _one_answer(self) -> ToolSpec:
        if self.simulated and (self.function is not None or self.result is not None):
            raise ValueError("a simulated tool has no function and no canned result")
        return self

    def simulated_tool(self) -> SimulatedTool:
        """The tool answered by the simulation model (for ``simulated: true``)."""
        return SimulatedTool(
            name=self.name,
            description=self.description,
            parameters=self.parameters,
            result_schema=self.result_schema,
        )

    @model_validator(mode="before")
    @classmethod
    def _anthropic_schema(cls, data: Any) -> Any:
        # The seed article writes Anthropic's ``input_schema``.
        if isinstance(data, Mapping):
            for key in ("input_schema", "input-schema"):
                if key in data:
                    if "parameters" in data:
                        raise ValueError("give parameters or input_schema, not both")
                    data = {**data, "parameters": data[key]}
                    del data[key]
        return data

    def openai_tool(self) -> dict[str, Any]:
        """The tool in OpenAI's ``tools`` format."""
        function: dict[str, Any] = {"name": self.name, "parameters": self.parameters}
        if self.description:
            function["description"] = self.description
        return {"type": "function", "function": function}

    def mock_result(self, arguments: Mapping[str, Any]) -> Any:
        """The canned result, else the seed article's mock."""
        if self.result is not None:
            return self.result
        return {
            "status": _MOCK_STATUS,
            "result": f"Mock result for {self.name}",
            "input_received": dict(arguments),
        }


class AgentTestSuite(SuiteModel):
    """Test cases for one agent, with the tools it may call and how it is scored."""

    name: str = Field(min_length=1, description="Suite name, shown in reports.")
    description: str | None = Field(default=None, description="What the suite covers.")
    agent: ReferenceOrCallable | None = Field(
        default=None,
        description="Default agent: module:function (resolved beside the suite file).",
    )
    agent_model: str | None = Field(
        default=None,
        description="Chat model id (or alias) of application.yaml to run as the agent instead, "
        "when the active configuration declares it.",
    )
    agent_input: Literal["native", "openai"] = Field(
        default="native",
        description="What the Python agent is given: 'native' (HumanMessage / AIMessage / "
        "ToolMessage objects) or 'openai' (OpenAI chat messages as dicts, ready for "
        "chat.completions.create). The built-in model agent ignores it.",
    )
    system_prompt: str | None = Field(
        default=None, description="System prompt of the built-in model runner."
    )
    tools: list[ToolSpec] = Field(
        default_factory=list, description="Tools the agent may call (schemas for the model)."
    )
    cases: list[AgentTestCase] = Field(min_length=1, description="The test cases.")
    scoring: ScoringSettings = Field(
        default_factory=ScoringSettings,
        description="How tool calls are scored: pass threshold, value comparison, failed "
        "calls, order (ToolCallAccuracy's options).",
    )
    min_pass_rate: float = Field(
        default=DEFAULT_MIN_PASS_RATE,
        ge=0.0,
        le=1.0,
        description="Share of cases that must pass every metric: the CI gate.",
    )
    concurrency: int = Field(
        default=DEFAULT_CONCURRENCY, ge=1, description="Cases run at once, at most."
    )
    repeat: int = Field(
        default=1,
        ge=1,
        le=100,
        description="Plays of each scenario case (its own repeat wins), each with its own "
        "seed: the pass rate with its Wilson interval, and pass^k.",
    )
    base_dir: SkipJsonSchema[Path | None] = Field(
        default=None,
        description="Folder that module:function references are resolved against first "
        "(the suite file's folder when loaded).",
    )
    source: SkipJsonSchema[Path | None] = Field(
        default=None, description="The file the suite was loaded from, if any."
    )

    @field_validator("cases")
    @classmethod
    def _unique_ids(cls, cases: list[AgentTestCase]) -> list[AgentTestCase]:
        seen: dict[str, int] = {}
        for index, case in enumerate(cases):
            if case.id in seen:
                raise ValueError(
                    f"case id '{case.id}' is used by cases[{seen[case.id]}] and cases[{index}]"
                )
            seen[case.id] = index
        return cases

    @field_validator("tools")
    @classmethod
    def _unique_tools(cls, tools: list[ToolSpec]) -> list[ToolSpec]:
        names = [tool.name for tool in tools]
        for name in names:
            if names.count(name) > 1:
                raise ValueError(f"tool '{name}' is declared twice")
        return tools

    @model_validator(mode="after")
    def _known_tools(self) -> AgentTestSuite:
        # With declared tools, a name nobody declared is a typo; without, the agent brings its own.
        if not self.tools:
            return self
        known = [tool.name for tool in self.tools]
        for index, case in enumerate(self.cases):
            alternatives = case.expectation_alternatives()
            prefix = "expected_tool_calls" + (
                "" if isinstance(case.expected_tool_calls, list) else ".any_of[{}]"
            )
            named = [
                (f"{prefix.format(number)}[{position}].tool_name", expectation.tool_name)
                for number, expectations in enumerate(alternatives)
                for position, expectation in enumerate(expectations)
            ]
            named += [(f"tool_results.{name}", name) for name in case.tool_results]
            for field, name in named:
                if name not in known:
                    hint = difflib.get_close_matches(name, known, n=1)
                    suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
                    raise CaseProblem(
                        f"tool '{name}' is not declared under tools{suggestion} "
                        f"(declared: {', '.join(known)})",
                        case_id=case.id,
                        index=index,
                        field=field,
                    )
        return self

    def samples(
        self, cases: Sequence[str] | None = None, *, repeat: int | None = None
    ) -> list[Sample]:
        """The cases compiled to samples, before the agent runs: each case's input,
        expected calls and expectations (:meth:`AgentTestCase.sample`); a scenario played
        ``k`` times is ``k`` samples (``ID#1`` ... ``ID#k``).

        Args:
            cases: ids of the cases to compile; all when omitted.
            repeat: plays of every scenario case, over the cases' and the suite's.

        Raises:
            KeyError: ``cases`` names an unknown case.
        """
        chosen = self.cases if cases is None else [self.case(case_id) for case_id in cases]
        samples = []
        for case in chosen:
            sample = case.sample()
            ids = case.play_ids(self.plays(case, repeat))
            samples += [sample.model_copy(update={"id": id}) for id in ids]
        return samples

    def plays(self, case: AgentTestCase, repeat: int | None = None) -> int:
        """How many times ``case`` is played: ``repeat``, else the case's, else the suite's
        (1 for a case that is not a scenario)."""
        if case.scenario is None:
            return 1
        if repeat is not None:
            return repeat
        return case.repeat if case.repeat is not None else self.repeat

    @property
    def has_scenarios(self) -> bool:
        """Whether a case is a scenario (its user is simulated)."""
        return any(case.scenario is not None for case in self.cases)

    @property
    def simulates_tools(self) -> bool:
        """Whether a tool is ``simulated: true``."""
        return any(tool.simulated for tool in self.tools)

    @property
    def needs_simulator(self) -> bool:
        """Whether a run needs the simulation model (scenario cases, simulated tools)."""
        return self.has_scenarios or self.simulates_tools

    def tool(self, name: str) -> ToolSpec | None:
        """The declared tool called ``name``, if any."""
        return next((tool for tool in self.tools if tool.name == name), None)

    def case(self, case_id: str) -> AgentTestCase:
        """The case with id ``case_id``.

        Raises:
            KeyError: no case has that id.
        """
        for case in self.cases:
            if case.id == case_id:
                return case
        raise KeyError(case_id)

    def resolve_agent(self) -> Callable[..., Any]:
        """The default agent as a callable.

        Raises:
            SuiteError: the suite names no agent, or its reference cannot be imported.
        """
        if self.agent is None:
            raise SuiteError(
                "the suite names no agent; set 'agent: module:function' or pass one",
                file=self._file,
                field="agent",
            )
        if callable(self.agent):
            return self.agent
        return self._resolve(self.agent, "agent")

    def tool_functions(self) -> dict[str, Callable[..., Any]]:
        """The tools' functions by tool name (references imported now; a simulated tool's
        answers through the simulation model inside a run).

        Raises:
            SuiteError: a reference cannot be imported.
        """
        functions: dict[str, Callable[..., Any]] = {}
        for index, tool in enumerate(self.tools):
            if tool.simulated:
                functions[tool.name] = tool.simulated_tool()
                continue
            if tool.function is None:
                continue
            if callable(tool.function):
                functions[tool.name] = tool.function
            else:
                functions[tool.name] = self._resolve(tool.function, f"tools[{index}].function")
        return functions

    @property
    def _file(self) -> str | None:
        return str(self.source) if self.source is not None else None

    def _resolve(self, reference: str, field: str) -> Callable[..., Any]:
        try:
            folders = [self.base_dir] if self.base_dir else []
            target = resolve_reference(reference, base_dirs=folders)
        except (ImportError, AttributeError, ValueError) as error:
            raise SuiteError(str(error), file=self._file, field=field) from None
        if not callable(target):
            raise SuiteError(
                f"{reference} is a {type(target).__name__}, not a callable",
                file=self._file,
                field=field,
            )
        function: Callable[..., Any] = target
        return function


# -- module:function references -----------------------------------------------------------

_loaded_files: dict[Path, ModuleType] = {}


def resolve_reference(reference: str, *, base_dirs: list[Path] | None = None) -> Any:
    """Import ``module:attribute`` (the attribute may be dotted, ``module:Class.method``).

    A single-name module is first looked for as ``NAME.py`` in each of ``base_dirs`` and loaded
    from that file under a private module name (so two suites may each have a
    ``weather_agent.py``), with its folder on ``sys.path`` while it loads so it can import its
    neighbours. Otherwise the module is imported normally, with ``base_dirs`` on ``sys.path``.

    Raises:
        ValueError: the reference is not ``module:attribute``.
        ImportError: the module cannot be imported (its own import errors included).
        AttributeError: the module has no such attribute.
    """
    module_name, colon, attribute = reference.partition(":")
    if not colon or not module_name or not attribute:
        raise ValueError(f"expected module:function, got {reference!r}")
    dirs = [Path(folder) for folder in base_dirs or []]
    module = _load_module(module_name, dirs)
    target: Any = module
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise AttributeError(
                f"{reference}: module {module_name} has no attribute {attribute!r}"
            ) from None
    return target


def _load_module(name: str, dirs: list[Path]) -> ModuleType:
    if "." not in name:
        for folder in dirs:
            file = (folder / f"{name}.py").resolve()
            if file.is_file():
                return _load_file(name, file)
    with _on_path(dirs):
        try:
            return importlib.import_module(name)
        except ImportError as error:
            where = f" (looked beside {', '.join(map(str, dirs))} too)" if dirs else ""
            raise ImportError(f"cannot import module {name}{where}: {error}") from error


def _load_file(name: str, file: Path) -> ModuleType:
    module = _loaded_files.get(file)
    if module is not None:
        return module
    digest = hashlib.sha1(str(file).encode(), usedforsecurity=False).hexdigest()[:10]
    unique = f"ragas_boot_suite_{name}_{digest}"
    spec = importlib.util.spec_from_file_location(unique, file)
    if spec is None or spec.loader is None:  # pragma: no cover - a .py file always has a loader
        raise ImportError(f"cannot load {file}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[unique] = module
    try:
        with _on_path([file.parent]):
            spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[unique]
        raise ImportError(f"importing {file} failed: {type(error).__name__}: {error}") from error
    _loaded_files[file] = module
    return module


@contextmanager
def _on_path(dirs: list[Path]) -> Iterator[None]:
    added = [str(folder) for folder in dirs if str(folder) not in sys.path]
    sys.path[:0] = added
    try:
        yield
    finally:
        for entry in added:
            if entry in sys.path:
                sys.path.remove(entry)


# -- loading --------------------------------------------------------------------------------


_TOP_LEVEL_CASES = re.compile(r"^(?:cases|\"cases\")\s*:", re.MULTILINE)
_TOP_LEVEL_SAMPLES = re.compile(r"^(?:samples|\"samples\")\s*:", re.MULTILINE)


def is_suite_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a YAML or JSON file holding a suite (a mapping with ``cases``), so
    that ``evaluate`` and ``compare`` run its agent first. Read as text, not parsed (a large
    dataset file is parsed once, by its reader): YAML needs a top-level ``cases:`` key and no
    ``samples:``, JSON a ``"cases"`` key in its top-level object. Unreadable files are not
    suites (the dataset reader reports them)."""
    file = Path(path)
    suffix = file.suffix.lower()
    if suffix not in (".yaml", ".yml", ".json") or not file.is_file():
        return False
    try:
        text = file.read_text(encoding="utf-8")
        if suffix == ".json":
            data = load_json(text, limits=DATASET_LIMITS)
            return isinstance(data, Mapping) and "cases" in data and "samples" not in data
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    return bool(_TOP_LEVEL_CASES.search(text)) and not _TOP_LEVEL_SAMPLES.search(text)


def load_suite(path: str | os.PathLike[str]) -> AgentTestSuite:
    """Load a suite from a YAML file; references resolve beside it.

    Raises:
        SuiteError: the file is missing, not YAML, or not a valid suite; the error names the
            file, the case (by id) and the field, and lists every problem found.
    """
    file = Path(path)
    label = str(file)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SuiteError("suite file not found", file=label) from None
    except OSError as error:
        raise SuiteError(f"cannot read the suite file: {error.strerror}", file=label) from None
    try:
        documents = load_yaml_documents(text, limits=DATASET_LIMITS)
    except LoadLimitError as error:
        where = f" at line {error.line}" if error.line else ""
        raise SuiteError(f"{error}{where}", file=label) from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(error, "problem", None) or str(error)
        raise SuiteError(f"not valid YAML{where}: {problem}", file=label) from None
    if len(documents) > 1:
        raise SuiteError("a suite file holds one YAML document, not several", file=label)
    data = documents[0][1] if documents else None
    if not isinstance(data, Mapping):
        raise SuiteError(
            f"a suite file holds a mapping with 'name' and 'cases', got {type(data).__name__}",
            file=label,
        )
    for key in ("base_dir", "base-dir", "source"):
        if key in data:
            raise SuiteError("is set from the file's location", file=label, field=key)
    resolved = file.resolve()
    return validate_suite(
        {**data, "base_dir": resolved.parent, "source": file}, file=label, source=data
    )


def validate_suite(
    data: Mapping[str, Any], *, file: str | None = None, source: Mapping[str, Any] | None = None
) -> AgentTestSuite:
    """Validate a suite given as plain data (as read from YAML or JSON).

    Args:
        data: the suite.
        file: where it came from, for error messages.
        source: the data as written, to name cases by id in errors (default: ``data``).

    Raises:
        SuiteError: the data is not a valid suite.
    """
    try:
        return AgentTestSuite.model_validate(data)
    except ValidationError as error:
        raise _suite_error(error, file, source if source is not None else data) from None


def _suite_error(error: ValidationError, file: str | None, data: Mapping[str, Any]) -> SuiteError:
    found = field_problems(
        error,
        allowed_keys=lambda loc: model_keys(AgentTestSuite, loc[:-1], _UNION_TAGS),
        tags=_UNION_TAGS,
    )
    problems = [_problem(problem, data) for problem in found]
    first_case, first_field, first_message = problems[0]
    message = first_message
    if len(problems) > 1:
        others = "; ".join(_where(case, field) + text for case, field, text in problems[1:6])
        more = f" (+{len(problems) - 6} more)" if len(problems) > 6 else ""
        message += f" (also: {others}{more})"
    return SuiteError(message, file=file, case_id=first_case, field=first_field or None)


def _where(case_id: str | None, field: str) -> str:
    parts = [f"case {case_id}"] if case_id else []
    if field:
        parts.append(f"field '{field}'")
    return ", ".join(parts) + ": " if parts else ""


def _problem(problem: FieldProblem, data: Mapping[str, Any]) -> tuple[str | None, str, str]:
    """(case id, field path inside the case or the suite, message) of one problem."""
    cause = problem.cause
    if isinstance(cause, CaseProblem):
        return _case_label(data, cause.index), cause.field, str(cause)
    loc = problem.loc
    case_id = None
    if len(loc) >= 2 and loc[0] == "cases" and isinstance(loc[1], int):
        case_id = _case_label(data, loc[1])
        loc = loc[2:]
    return case_id, dataclasses.replace(problem, loc=loc).path, problem.text


def _case_label(data: Mapping[str, Any], index: int) -> str:
    cases = data.get("cases")
    raw = cases[index] if isinstance(cases, list) and index < len(cases) else None
    case_id = raw.get("id") if isinstance(raw, Mapping) else None
    if isinstance(case_id, str | int) and not isinstance(case_id, bool) and str(case_id):
        return f"'{case_id}' (cases[{index}])"
    return f"cases[{index}]"


def suite_json_schema() -> dict[str, Any]:
    """The JSON Schema of a suite file (for editors; Python-only fields are left out)."""
    return AgentTestSuite.model_json_schema(mode="validation")
