"""The gate's verdict as lines: each failing metric, and the share of passing samples."""

from __future__ import annotations

from ragas_boot.reporting import _format as fmt
from ragas_boot.runs.results import GateFailure, RunGate

__all__ = ["run_gate_lines", "sample_gate_line"]


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


def sample_gate_line(gate: RunGate) -> str | None:
    """``PASSED 9/10 samples passed every metric (90.0%), at least the 90.0% required`` (or
    ``FAILED ..., under the ... required``); None when no share of samples is required."""
    required = gate.min_sample_pass_rate
    if required is None:
        return None
    counts = f"{gate.passed_samples}/{gate.samples} samples passed every metric"
    reached = fmt.percent(gate.sample_pass_rate if gate.sample_pass_rate is not None else 0.0)
    apart = (
        f"; {gate.simulator_failures} simulator failure(s) not counted"
        if gate.simulator_failures
        else ""
    )
    if gate.samples_passed_gate:
        return f"PASSED {counts} ({reached}), at least the {fmt.percent(required)} required{apart}"
    return f"FAILED {counts} ({reached}), under the {fmt.percent(required)} required{apart}"


def run_gate_lines(gate: RunGate) -> list[str]:
    """``FAILED metric: ...`` per failing metric and the samples' line when it failed; else
    what was required and met (``PASSED ...``), else nothing."""
    samples = sample_gate_line(gate)
    if not gate.passed:
        lines = [_failure_line(failure, gate.fail_under) for failure in gate.failures]
        return lines + ([samples] if samples and not gate.samples_passed_gate else [])
    lines = []
    if gate.fail_under is not None:
        lines.append(f"PASSED every metric's mean is at least {gate.fail_under:g}")
    elif gate.min_pass_rate is not None:
        lines.append(
            f"PASSED every sample's pass rate is at least {fmt.percent(gate.min_pass_rate)}"
        )
    if samples:
        lines.append(samples)
    return lines
