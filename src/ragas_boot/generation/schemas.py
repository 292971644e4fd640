"""Tool argument schemas: is a schema valid, and are a call's arguments valid against it.

Both checks are the ``jsonschema`` library's (the validator class the schema's ``$schema``
names, Draft 2020-12 when it names none), not hand-written: a tool's ``parameters`` is the
user's input, checked once when it is read (a bad one is the input's fault, exit 2); a
generated call's ``arguments`` are the model's, checked before a case is kept (a bad one is
the candidate's fault, a rejection). A required argument that is missing is told apart from
the other problems (its own rejection reason).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import jsonschema
from jsonschema.exceptions import SchemaError
from jsonschema.validators import validator_for

__all__ = ["ArgumentProblem", "argument_problems", "schema_problem"]


@dataclass(frozen=True, slots=True)
class ArgumentProblem:
    """One way a call's arguments break their schema.

    Attributes:
        path: where, as ``arguments.days`` (``arguments`` for the object itself).
        message: the validator's message.
        missing: the problem is a required argument that is absent.
    """

    path: str
    message: str
    missing: bool

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def _path(parts: Any) -> str:
    path = "arguments"
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def schema_problem(schema: Mapping[str, Any]) -> str | None:
    """What is wrong with ``schema`` as a JSON Schema (``path: message``), or ``None``."""
    cls = validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(dict(schema))
    except SchemaError as error:
        where = ".".join(str(part) for part in error.absolute_path) or "(the schema)"
        return f"{where}: {error.message}"
    return None


def argument_problems(schema: Mapping[str, Any], arguments: Any) -> list[ArgumentProblem]:
    """Every way ``arguments`` breaks ``schema`` (an already checked schema), in a stable
    order; empty when they are valid."""
    cls = validator_for(schema, default=jsonschema.Draft202012Validator)
    validator = cls(schema)
    problems = [
        ArgumentProblem(
            path=_path(error.absolute_path),
            message=error.message,
            missing=error.validator == "required",
        )
        for error in validator.iter_errors(arguments)
    ]
    return sorted(problems, key=lambda problem: (problem.path, problem.message))
