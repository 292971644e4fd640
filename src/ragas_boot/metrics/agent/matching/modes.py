"""The modes of tool-call matching: the argument rule, the order rule, value equality and
what failed calls count for (the settings every other module of the package reads)."""

from __future__ import annotations

from ragas_boot._enums import CaseInsensitiveEnum

__all__ = [
    "DEFAULT_ARGUMENT_MATCH_THRESHOLD",
    "CallOrder",
    "FailedCalls",
    "ToolCallMode",
    "ValueComparison",
]

DEFAULT_ARGUMENT_MATCH_THRESHOLD = 0.8
"""FLEXIBLE mode's default minimum argument score for a pair to match (as in the Java library)."""


class ToolCallMode(CaseInsensitiveEnum):
    """How arguments must agree for two calls of the same tool to match."""

    STRICT = "STRICT"
    """Same argument names, every value equal."""
    FLEXIBLE = "FLEXIBLE"
    """Argument score at least the threshold."""


class CallOrder(CaseInsensitiveEnum):
    """Whether matched calls must come in the reference order."""

    ANY = "ANY"
    """Order is ignored."""
    STRICT = "STRICT"
    """Matched pairs keep the order of both lists."""


class ValueComparison(CaseInsensitiveEnum):
    """How two argument values are compared."""

    EXACT = "EXACT"
    """JSON equality."""
    NORMALIZE = "NORMALIZE"
    """JSON equality after trimming and case-folding strings and reading numeric strings."""


class FailedCalls(CaseInsensitiveEnum):
    """What a failed tool call (its result an error) counts for."""

    COUNT = "COUNT"
    """Failed calls count like any other call."""
    EXCLUDE_RECOVERED = "EXCLUDE_RECOVERED"
    """A failed call followed by a successful call of the same tool is left out."""
