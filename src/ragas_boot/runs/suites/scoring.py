"""How a suite's cases are scored: its ``scoring`` section, mapped onto the metrics' configs.

A suite run scores every case with the metrics any dataset run uses:

* ``tool_call_accuracy`` (ToolCallAccuracy's matching) on the case's expected calls, in
  ``FLEXIBLE`` mode with an argument threshold of 1.0: a call matches its expectation when
  every parameter the expectation names passes (a required value equal, a rule met, a
  forbidden parameter absent; parameters it does not name are ignored). The section's
  ``pass_threshold`` is the metric's threshold, ``value_comparison``, ``failed_calls`` and
  ``order`` its options of the same names;
* ``case_expectations`` on the keywords and the budgets (a case passes it when every check
  does).

A case passes when every metric passes it. ``weights`` (the overall score of ragas-boot
0.x's own scoring) no longer apply: a suite that sets them loads with one warning.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from pydantic import Field, model_validator

from ragas_boot.metrics.agent.matching import CallOrder, FailedCalls, ToolCallMode, ValueComparison
from ragas_boot.runs.suites.expectations import SuiteModel

__all__ = [
    "DEFAULT_PASS_THRESHOLD",
    "SUITE_METRICS",
    "ScoringSettings",
]

log = logging.getLogger("ragas_boot.suites")

DEFAULT_PASS_THRESHOLD = 0.8
"""ToolCallAccuracy's F1 a case needs to pass (the seed article's pass mark)."""

SUITE_METRICS = ("tool_call_accuracy", "case_expectations")
"""The metrics every suite run scores its cases with (bean names), in report order."""


class ScoringSettings(SuiteModel):
    """How a suite's cases are scored: ToolCallAccuracy's options (see the module docs)."""

    pass_threshold: float = Field(
        default=DEFAULT_PASS_THRESHOLD,
        ge=0.0,
        le=1.0,
        description="ToolCallAccuracy's threshold: the F1 of the tool calls a case needs.",
    )
    value_comparison: ValueComparison = Field(
        default=ValueComparison.EXACT,
        description="EXACT JSON equality of values, or NORMALIZE ('5' == 5, case-blind text).",
    )
    failed_calls: FailedCalls = Field(
        default=FailedCalls.COUNT,
        description="COUNT failed tool calls like any; EXCLUDE_RECOVERED: leave out a failed "
        "call when a later call of the same tool succeeded.",
    )
    order: CallOrder = Field(
        default=CallOrder.ANY,
        description="ANY: calls in any order; STRICT: the matched calls keep the expected order.",
    )

    @model_validator(mode="before")
    @classmethod
    def _no_weights(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and "weights" in data:
            log.warning(
                "suite scoring.weights no longer apply and are ignored: a case is scored by "
                "ToolCallAccuracy (F1 of the calls) and CaseExpectations (keywords, budgets) "
                "and passes when both pass; remove the key (see docs/tool-suites.md)"
            )
            data = {key: value for key, value in data.items() if key != "weights"}
        return data

    def metric_configs(self) -> dict[str, dict[str, Any]]:
        """The configs of :data:`SUITE_METRICS` this section sets (fields of
        ``ToolCallAccuracyConfig``), for ``evaluate_dataset(configs=...)``."""
        return {
            "tool_call_accuracy": {
                "mode": ToolCallMode.FLEXIBLE,
                "argument_match_threshold": 1.0,
                "threshold": self.pass_threshold,
                "value_comparison": self.value_comparison,
                "failed_calls": self.failed_calls,
                "order": self.order,
            }
        }
