"""Test cases users don't write: generated from an agent's tools, documents and traces, each
checked before it is kept.

The shared core of both generators (``generate suite``, ``generate testset``):

* :mod:`.report`: :class:`GenerationReport`, kept and rejected (each rejection with its reason
  code, message and candidate), calls and tokens by kind, cost, coverage; rendered by
  :mod:`ragas_boot.reporting.generation`.
* :mod:`.budget`: :class:`GenerationBudget` (count, min coverage, max calls, max cost), the
  :class:`CallMeter` every model call is counted in, the :class:`Coverage` table.
* :mod:`.models`: the generating model (:func:`generation_role`, :func:`ask_generator`: the
  ``spring.ai.ragas.generation`` role, seeded and cached) and the judges' :func:`vote`.
* :mod:`.duplicates`: :class:`NearDuplicates`, the near-duplicate check.
* :mod:`.schemas`: a tool schema's validity and a call's arguments against it (jsonschema).
"""

from __future__ import annotations

from ragas_boot.generation.budget import (
    DEFAULT_CALLS_PER_CASE,
    CallMeter,
    Coverage,
    GenerationBudget,
)
from ragas_boot.generation.duplicates import DEFAULT_SIMILARITY, Duplicate, NearDuplicates
from ragas_boot.generation.models import (
    JudgeVerdict,
    Vote,
    ask_generator,
    generation_role,
    role_of,
    vote,
)
from ragas_boot.generation.report import (
    CALL_KINDS,
    AgentCheck,
    CallKind,
    CallTally,
    GenerationReport,
    Rejection,
    StopReason,
)
from ragas_boot.generation.schemas import ArgumentProblem, argument_problems, schema_problem

__all__ = [
    "CALL_KINDS",
    "DEFAULT_CALLS_PER_CASE",
    "DEFAULT_SIMILARITY",
    "AgentCheck",
    "ArgumentProblem",
    "CallKind",
    "CallMeter",
    "CallTally",
    "Coverage",
    "Duplicate",
    "GenerationBudget",
    "GenerationReport",
    "JudgeVerdict",
    "NearDuplicates",
    "Rejection",
    "StopReason",
    "Vote",
    "argument_problems",
    "ask_generator",
    "generation_role",
    "role_of",
    "schema_problem",
    "vote",
]
