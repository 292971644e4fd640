"""The tools a suite is generated for, read from what users have: OpenAI function schemas,
an MCP ``tools/list`` result, or an existing suite file.

Accepted shapes (JSON or YAML):

* OpenAI: a list of ``{"type": "function", "function": {name, description, parameters}}``
  (or of the bare ``{name, description, parameters}``), or a mapping with such a ``tools``
  list (a chat-completions request body);
* MCP: a ``tools/list`` result ``{"tools": [{name, description, inputSchema}]}``, or the
  JSON-RPC response that carries it (``{"jsonrpc": "2.0", "result": {"tools": [...]}}``);
* a suite file (a mapping with ``cases``): its ``tools``, with its ``agent``, ``agent-model``,
  ``system-prompt`` and each tool's ``function``, which the generated suite keeps. These
  module references come from the user's input only, never from the generating model.

Every tool's schema is checked as a JSON Schema (jsonschema) when it is read: a bad one is the
input's fault, a :class:`~ragas_boot.errors.SuiteError` naming the file and the path.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ragas_boot._loading import DATASET_LIMITS, LoadLimitError, load_yaml_documents
from ragas_boot.errors import SuiteError
from ragas_boot.generation.schemas import schema_problem
from ragas_boot.runs.suites.suite import ToolSpec, is_suite_file, load_suite

__all__ = ["ToolSource", "load_tools", "tools_from_data"]


@dataclass(frozen=True, slots=True)
class ToolSource:
    """The tools and, from a suite file, the module references to keep.

    Attributes:
        tools: the tools, in input order.
        file: where they were read from.
        format: ``openai``, ``mcp`` or ``suite``.
        suite: the suite file's own keys to keep in the generated suite (``name``,
            ``agent``, ``agent-model``, ``system-prompt``, ...); empty for the other formats.
        tool_data: each tool as the input wrote it (kept as it is in the output).
        examples: the calls the input suite's cases expect (``tool-name`` and
            ``required-params``), a source of argument values for planned cases.
        messages: the input suite's single-message cases with expected calls, each as its
            user message and those calls (examples of the users' words for planned cases).
    """

    tools: tuple[ToolSpec, ...]
    file: str
    format: str
    suite: dict[str, Any] = field(default_factory=dict)
    tool_data: tuple[dict[str, Any], ...] = ()
    examples: tuple[dict[str, Any], ...] = ()
    messages: tuple[tuple[str, tuple[dict[str, Any], ...]], ...] = ()

    def tool(self, name: str) -> ToolSpec | None:
        """The tool called ``name``, if any."""
        return next((tool for tool in self.tools if tool.name == name), None)

    @property
    def names(self) -> list[str]:
        """The tool names, in input order."""
        return [tool.name for tool in self.tools]


_SUITE_KEPT = ("name", "description", "agent", "agent_model", "system_prompt", "scoring")


def load_tools(path: str | os.PathLike[str]) -> ToolSource:
    """Read the tools of ``path`` (see the module docs for the shapes).

    Raises:
        SuiteError: the file is missing or unreadable, holds none of the shapes, declares no
            tool, or a tool's schema is invalid (the file and the path at fault named).
    """
    file = Path(path)
    label = str(file)
    if is_suite_file(file):
        suite = load_suite(file)
        raw = _read(file)
        kept = {
            key: raw[alias]
            for key in _SUITE_KEPT
            for alias in (key, key.replace("_", "-"))
            if isinstance(raw, Mapping) and alias in raw
        }
        tools_data = raw.get("tools") if isinstance(raw, Mapping) else None
        cases = raw.get("cases") if isinstance(raw, Mapping) else None
        cases = cases if isinstance(cases, list) else []
        data = [dict(item) for item in tools_data] if isinstance(tools_data, list) else []
        if not suite.tools:
            raise SuiteError("the suite declares no tools to generate cases for", file=label)
        for index, tool in enumerate(suite.tools):
            _check_schema(tool.parameters, label, f"tools[{index}].parameters")
        return ToolSource(
            tools=tuple(suite.tools),
            file=label,
            format="suite",
            suite=kept,
            tool_data=tuple(data),
            examples=tuple(_expected_calls(cases)),
            messages=tuple(
                (str(case.get("user-message") or case.get("user_message")), calls)
                for case in cases
                if isinstance(case, Mapping)
                and isinstance(case.get("user-message") or case.get("user_message"), str)
                # one list of calls: an any-of case's alternatives are not one request
                and isinstance(
                    case.get("expected-tool-calls", case.get("expected_tool_calls")), list
                )
                and (calls := tuple(_expected_calls([case])))
            ),
        )
    return tools_from_data(_read(file), file=label)


def _expected_calls(cases: Any) -> list[dict[str, Any]]:
    """The expected calls of a suite file's cases (both spellings of the keys; ``any-of``
    alternatives too), as ``{tool-name, required-params}``."""
    found: list[dict[str, Any]] = []
    for case in cases if isinstance(cases, list) else []:
        if not isinstance(case, Mapping):
            continue
        calls = case.get("expected-tool-calls", case.get("expected_tool_calls"))
        groups = calls.get("any-of", calls.get("any_of")) if isinstance(calls, Mapping) else [calls]
        for group in groups if isinstance(groups, list) else []:
            for call in group if isinstance(group, list) else []:
                if not isinstance(call, Mapping):
                    continue
                name = call.get("tool-name", call.get("tool_name"))
                params = call.get("required-params", call.get("required_params"))
                if isinstance(name, str) and isinstance(params, Mapping):
                    found.append({"tool-name": name, "required-params": dict(params)})
    return found


def _read(file: Path) -> Any:
    label = str(file)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SuiteError("tools file not found", file=label) from None
    except (OSError, UnicodeDecodeError) as error:
        raise SuiteError(f"cannot read the tools file: {error}", file=label) from None
    try:
        documents = load_yaml_documents(text, limits=DATASET_LIMITS)  # JSON is YAML too
    except (LoadLimitError, yaml.YAMLError) as error:
        raise SuiteError(f"not valid JSON or YAML: {error}", file=label) from None
    return documents[0][1] if len(documents) == 1 else None


def tools_from_data(data: Any, *, file: str = "<tools>") -> ToolSource:
    """The tools of OpenAI function schemas or an MCP ``tools/list`` result given as data.

    Raises:
        SuiteError: the data is none of the shapes, or a tool is invalid.
    """
    where = "tools"
    if isinstance(data, Mapping) and isinstance(data.get("result"), Mapping):
        data, where = data["result"], "result.tools"  # a JSON-RPC response
    if isinstance(data, Mapping) and "tools" in data:
        data = data["tools"]
    else:
        where = "(the file)"
    if not isinstance(data, list) or not data:
        raise SuiteError(
            "expected a non-empty list of tools: OpenAI function schemas, an MCP tools/list "
            "result ({tools: [...]}) or a suite file with tools",
            file=file,
            field=None if where == "(the file)" else where,
        )
    base = "" if where == "(the file)" else where
    tools, kept, formats = [], [], set()
    for index, item in enumerate(data):
        path = f"{base}[{index}]"
        spec, shape = _tool(item, file, path)
        formats.add(shape)
        tools.append(spec)
        kept.append(spec.model_dump(include={"name", "description", "parameters"}))
    names = [tool.name for tool in tools]
    for index, name in enumerate(names):
        if names.index(name) != index:
            raise SuiteError(
                f"tool '{name}' is declared twice", file=file, field=f"{base}[{index}]"
            )
    return ToolSource(
        tools=tuple(tools),
        file=file,
        format="mcp" if formats == {"mcp"} else "openai",
        tool_data=tuple(kept),
    )


def _tool(item: Any, file: str, path: str) -> tuple[ToolSpec, str]:
    if not isinstance(item, Mapping):
        raise SuiteError(f"a tool is a mapping, got {type(item).__name__}", file=file, field=path)
    shape = "openai"
    if item.get("type") == "function" and isinstance(item.get("function"), Mapping):
        item, path = item["function"], f"{path}.function"
    schema_key = "parameters"
    if "inputSchema" in item:
        shape, schema_key = "mcp", "inputSchema"
    name = item.get("name")
    if not isinstance(name, str) or not name:
        raise SuiteError("a tool needs a name", file=file, field=f"{path}.name")
    schema = item.get(schema_key, {"type": "object", "properties": {}})
    if not isinstance(schema, Mapping):
        raise SuiteError(
            f"expected a JSON Schema object, got {type(schema).__name__}",
            file=file,
            field=f"{path}.{schema_key}",
        )
    _check_schema(schema, file, f"{path}.{schema_key}")
    try:
        spec = ToolSpec(
            name=name, description=str(item.get("description") or ""), parameters=dict(schema)
        )
    except ValueError as error:
        raise SuiteError(str(error).splitlines()[-1].strip(), file=file, field=path) from None
    return spec, shape


def _check_schema(schema: Mapping[str, Any], file: str, path: str) -> None:
    problem = schema_problem(schema)
    if problem is not None:
        raise SuiteError(f"invalid JSON Schema at {problem}", file=file, field=path)
    if schema.get("type", "object") != "object":
        raise SuiteError(
            f"a tool's arguments are an object; the schema says type {schema.get('type')!r}",
            file=file,
            field=f"{path}.type",
        )
