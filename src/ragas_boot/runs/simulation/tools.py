"""Simulated tools: a configured model answers a tool call, consistent with the tool's result
schema and with what the tool answered earlier in the same conversation.

A suite's tool with ``simulated: true`` has no function and no canned result: each call is
one structured call of the simulation model (``spring.ai.ragas.simulation``), told the tool's
description, parameters and ``result-schema``, the call's arguments and every earlier call of
a simulated tool in this conversation with its result (so a booking made is found by a later
lookup). The result schema goes with the call as the answer's schema: providers that honour
structured output (``json_schema``; the embedded local model) return that shape. A call that
still fails after the executor's retries is a simulator fault: the agent is told the tool
failed, and the play ends as a simulator failure, never the agent's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, create_model

from ragas_boot.metrics.prompting import render_prompt
from ragas_boot.runs.simulation.state import ToolRecord, current_play

__all__ = ["SimulatedTool", "SimulatedToolError"]

_STEP = "SimulatedToolCall"


class SimulatedToolError(RuntimeError):
    """A simulated tool could not answer (no play is running, or the simulator failed)."""


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


@cache
def _result_model(name: str, schema_text: str) -> type[BaseModel]:
    """The answer's model: ``{"result": ...}`` whose ``result`` carries the tool's schema."""
    schema = json.loads(schema_text)
    result: Any = Annotated[Any, WithJsonSchema(schema)] if schema else Any
    model: type[BaseModel] = create_model(
        f"{''.join(part.capitalize() for part in name.replace('-', '_').split('_'))}Result",
        __config__=ConfigDict(frozen=True),
        __doc__=f"The result of the tool {name}.",
        result=(result, Field(description=f"What {name} returns for the call.")),
    )
    return model


class SimulatedTool:
    """A tool answered by the simulation model (see the module docs); called with the
    call's arguments as keywords, from inside a play.

    Args:
        name: the tool's name.
        description: what it does.
        parameters: its arguments' JSON Schema.
        result_schema: its result's JSON Schema (``{}``: any JSON value).
    """

    def __init__(
        self,
        *,
        name: str,
        description: str = "",
        parameters: Mapping[str, Any] | None = None,
        result_schema: Mapping[str, Any] | None = None,
    ) -> None:
        self.name = name
        self._description = description
        self._parameters = dict(parameters or {})
        self._result_schema = dict(result_schema or {})
        self.__qualname__ = f"simulated:{name}"

    def __repr__(self) -> str:
        return f"SimulatedTool(name={self.name!r})"

    def prompt(self, arguments: Mapping[str, Any], earlier: list[ToolRecord]) -> str:
        """The prompt of one call (what the simulator is told)."""
        template = resources.files(__package__).joinpath("prompts/simulated_tool.txt")
        history = "\n".join(
            f"- {record.tool}({_dumps(record.arguments)}) -> {_dumps(record.result)}"
            for record in earlier
        )
        return render_prompt(
            template.read_text("utf-8"),
            data={"arguments": _dumps(dict(arguments)), "earlier": history or "(none)"},
            config={
                "tool": self.name,
                "description": self._description or "(no description)",
                "parameters": _dumps(self._parameters),
                "result_schema": _dumps(self._result_schema) if self._result_schema else "any",
            },
        )

    async def __call__(self, **arguments: Any) -> Any:
        """The simulated result.

        Raises:
            SimulatedToolError: no play runs in this context (simulated tools answer only
                inside a suite's run), there is no simulation model, or it failed (the play
                records the fault).
        """
        state = current_play()
        if state is None or state.role is None:
            raise SimulatedToolError(
                f"the simulated tool {self.name} answers only inside a suite run with a "
                "simulation model (spring.ai.ragas.simulation)"
            )
        model = _result_model(self.name, _dumps(self._result_schema))
        earlier = list(state.tools)
        answer = await state.role.ask(
            _STEP, self.prompt(arguments, earlier), model, seed_offset=state.seed_offset
        )
        state.count(answer)
        if answer.value is None:
            raise SimulatedToolError(f"the simulated tool {self.name} failed: {answer.fault}")
        result = answer.value.model_dump(mode="json")["result"]
        state.tools.append(ToolRecord(tool=self.name, arguments=dict(arguments), result=result))
        return result
