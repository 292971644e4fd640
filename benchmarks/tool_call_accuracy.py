"""Judge-less metrics: ToolCallAccuracy samples/s by trace length, and the fixed cost of one
evaluation (ToolCallAccuracy and the NLP metrics).

Each trace is an agent's tool calls (string, number and nested-object arguments) against a
shuffled reference that differs in every fifth call (``--wrong-every``), so the matching has
work to do.
``evaluate`` is the whole bean call (config, matching, the frozen MetricResult; the result's
metadata and explanation are built when first read, and ``+ details`` is ``evaluate`` plus
reading them); ``matching`` is :func:`match_tool_calls` alone. ``fresh`` cycles through
2,000 distinct samples (each evaluated once per pass, as in a dataset run) where the other
columns re-score one sample. Rates are given per wall second and per CPU
second of this process (the second is steadier when other work shares the machine).
``score only`` is ``multi_turn_score`` (no result built). The fixed cost of an evaluation is
what ``evaluate`` costs beyond the metric's own computation: for ToolCallAccuracy
``evaluate`` minus the matching alone on a 1-call trace, for an NLP metric ``evaluate`` minus
``multi_turn_score``. ``sum(range(1000))`` is timed alongside, so figures from a loaded
machine can be scaled to the reference machine (15.6 µs there): the scaled column.

    .venv/bin/python benchmarks/tool_call_accuracy.py
    .venv/bin/python benchmarks/tool_call_accuracy.py --lengths 10 200 --seconds 1
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time
import timeit
from collections.abc import Callable

from _workload import tool_trace

from ragas_boot import Sample
from ragas_boot.metrics import (
    BleuScoreMetric,
    ChrfScoreMetric,
    Metric,
    RougeScoreMetric,
    StringSimilarityMetric,
    ToolCallAccuracyConfig,
    ToolCallAccuracyMetric,
    ToolCallMode,
    match_tool_calls,
)


def rates(action: Callable[[], object], seconds: float) -> tuple[float, float]:
    """Calls of ``action`` per wall second and per CPU second, measured for ``seconds``."""
    action()  # warm-up
    count, batch = 0, 1
    wall, cpu = time.perf_counter(), time.process_time()
    while True:
        for _ in range(batch):
            action()
        count += batch
        elapsed = time.perf_counter() - wall
        if elapsed >= seconds:
            return count / elapsed, count / (time.process_time() - cpu)
        batch = min(batch * 2, 1024)


REFERENCE_US = 15.6
"""``sum(range(1000))`` on the project machine the targets were set on, in µs."""


def micros(action: Callable[[], object], repeat: int = 7) -> float:
    """Median CPU µs of this process per call of ``action`` over ``repeat`` timed batches
    (CPU time, not wall: other work on a shared machine does not count)."""
    number = 2000
    timer = timeit.Timer(action, timer=time.process_time)
    return statistics.median(timer.repeat(number=number, repeat=repeat)) / number * 1e6


def reference_scale() -> tuple[float, float]:
    """``sum(range(1000))`` here in CPU µs, and the factor to the reference machine."""
    here = micros(lambda: sum(range(1000)))
    return here, REFERENCE_US / here


def fixed_costs(length: int) -> None:
    here, scale = reference_scale()
    print(f"\nfixed cost per evaluation (sum(range(1000)) here {here:.1f} µs; scaled ×{scale:.2f})")
    print(f"{'metric':>22} {'evaluate µs':>12} {'own work µs':>12} {'fixed µs':>9} {'scaled':>7}")
    tool = ToolCallAccuracyMetric()
    sample = tool_trace(length)
    actual = sample.actual_tool_calls()
    reference = sample.reference_tool_calls or []
    config = ToolCallAccuracyConfig()
    rows: list[tuple[str, float, float]] = [
        (
            "ToolCallAccuracy",
            micros(lambda: tool.evaluate(sample, config)),
            micros(lambda: match_tool_calls(actual, reference, mode=config.mode)),
        )
    ]
    text = Sample(
        response="The flight to Paris on 15 January is booked for Ivan Ivanov.",
        reference="Ivan Ivanov's flight to Paris on 15 January is booked.",
    )
    nlp: list[Metric] = [  # type: ignore[type-arg]
        BleuScoreMetric(),
        ChrfScoreMetric(),
        RougeScoreMetric(),
        StringSimilarityMetric(),
    ]
    for metric in nlp:
        metric.evaluate(text)  # warm-up: the library's lazy import
        rows.append(
            (
                type(metric).__name__.removesuffix("Metric"),
                micros(lambda m=metric: m.evaluate(text)),
                micros(lambda m=metric: m.multi_turn_score(text)),
            )
        )
    for name, whole, own in rows:
        fixed = whole - own
        print(f"{name:>22} {whole:>12.1f} {own:>12.1f} {fixed:>9.1f} {fixed * scale:>7.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[1, 10, 50, 100, 200])
    parser.add_argument("--seconds", type=float, default=1.0, help="per measurement")
    parser.add_argument(
        "--wrong-every",
        type=int,
        default=5,
        help="the reference differs in every N-th call (default 5: 2 of 10 wrong; 0: none)",
    )
    options = parser.parse_args()
    metric = ToolCallAccuracyMetric()
    here, scale = reference_scale()
    print(
        f"ToolCallAccuracy throughput (sum(range(1000)) here {here:.1f} µs; "
        f"scaled = samples/s per CPU-s ×{1 / scale:.2f} for the reference machine)"
    )
    print(
        f"{'calls':>5} {'mode':>8} {'samples/s':>10} {'per CPU-s':>10} {'scaled':>8}"
        f" {'fresh/CPU-s':>11} {'fresh sc.':>9} {'µs/sample':>10} {'+ details':>10}"
        f" {'score only µs':>14} {'matching µs':>12} {'score':>6}"
    )
    for length in options.lengths:
        sample = tool_trace(length, wrong_every=options.wrong_every)
        actual = sample.actual_tool_calls()
        reference = sample.reference_tool_calls or []
        fresh = [
            tool_trace(length, seed=seed, wrong_every=options.wrong_every) for seed in range(2000)
        ]
        for mode in (ToolCallMode.STRICT, ToolCallMode.FLEXIBLE):
            config = ToolCallAccuracyConfig(mode=mode)
            wall, cpu = rates(lambda s=sample, c=config: metric.evaluate(s, c), options.seconds)
            cycle = itertools.cycle(fresh)
            _, fresh_cpu = rates(
                lambda c=config, n=cycle.__next__: metric.evaluate(n(), c), options.seconds
            )
            _, read = rates(
                lambda s=sample, c=config: metric.evaluate(s, c).metadata, options.seconds / 2
            )
            _, only = rates(
                lambda s=sample, c=config: metric.multi_turn_score(s, c), options.seconds / 2
            )
            _, alone = rates(
                lambda a=actual, r=reference, m=mode: match_tool_calls(a, r, mode=m),
                options.seconds / 2,
            )
            score = metric.evaluate(sample, config).score or 0.0
            print(
                f"{length:>5} {mode.value:>8} {wall:>10,.0f} {cpu:>10,.0f} {cpu / scale:>8,.0f}"
                f" {fresh_cpu:>11,.0f} {fresh_cpu / scale:>9,.0f}"
                f" {1e6 / cpu:>10,.1f} {1e6 / read:>10,.1f}"
                f" {1e6 / only:>14,.1f} {1e6 / alone:>12,.1f} {score:>6.3f}"
            )
    fixed_costs(1)


if __name__ == "__main__":
    main()
