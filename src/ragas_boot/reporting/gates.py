"""The gates' verdicts as lines: a dataset run's (``--fail-under``) and a suite's (pass rate)."""

from __future__ import annotations

from ragas_boot.reporting import _format as fmt
from ragas_boot.runs.results import GateFailure, RunGate
from ragas_boot.runs.suites.results import SuiteGate

__all__ = ["run_gate_lines", "suite_gate_line"]


def _failure_line(failure: GateFailure, fail_under: float | None) -> str:
    if failure.kind == "no_quorum":
        return (
            f"FAILED {failure.metric}: no quorum in {failure.count} evaluation(s) "
            "(fewer judges answered than min-judges; quorum-failure: FAIL)"
        )
    if failure.kind == "under_min_pass_rate":
        return (
            f"FAILED {failure.metric}: {failure.count} sample(s) under the minimum pass rate "
            f"(lowest {fmt.percent(failure.lowest_pass_rate)})"
        )
    if failure.kind == "nothing_scored":
        return f"FAILED {failure.metric}: no sample could be scored ({failure.failed} failed)"
    if failure.kind == "over_maximum" and fail_under is not None:
        return (
            f"FAILED {failure.metric}: mean {fmt.score(failure.mean)} is over "
            f"{1 - fail_under:g} (lower is better: 1 - --fail-under {fail_under:g})"
        )
    return (
        f"FAILED {failure.metric}: mean {fmt.score(failure.mean)} is under --fail-under "
        f"{fail_under:g}"
    )


def run_gate_lines(gate: RunGate) -> list[str]:
    """``FAILED metric: ...`` per failing metric; else ``PASSED ...`` when a mean was required,
    else nothing."""
    if gate.failures:
        return [_failure_line(failure, gate.fail_under) for failure in gate.failures]
    if gate.fail_under is not None:
        return [f"PASSED every metric's mean is at least {gate.fail_under:g}"]
    if gate.min_pass_rate is not None:
        return [f"PASSED every sample's pass rate is at least {fmt.percent(gate.min_pass_rate)}"]
    return []


def suite_gate_line(gate: SuiteGate) -> str:
    """``CI GATE PASSED: 92.0% >= 90.0% required`` (or ``FAILED: ... <``)."""
    reached, required = fmt.percent(gate.pass_rate), fmt.percent(gate.min_pass_rate)
    if gate.passed:
        return f"CI GATE PASSED: {reached} >= {required} required"
    return f"CI GATE FAILED: {reached} < {required} required"
