"""ToolCallAccuracy throughput: samples/s by trace length, STRICT and FLEXIBLE.

Each trace is an agent's tool calls (string, number and nested-object arguments) against a
shuffled reference that differs in every fifth call, so the matching has work to do.
``evaluate`` is the whole bean call (config, matching, metadata, the frozen MetricResult);
``matching`` is :func:`match_tool_calls` alone. Rates are given per wall second and per CPU
second of this process (the second is steadier when other work shares the machine).

    .venv/bin/python benchmarks/tool_call_accuracy.py
    .venv/bin/python benchmarks/tool_call_accuracy.py --lengths 10 200 --seconds 1
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from _workload import tool_trace

from ragas_boot.metrics import (
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[1, 10, 50, 100, 200])
    parser.add_argument("--seconds", type=float, default=1.0, help="per measurement")
    options = parser.parse_args()
    metric = ToolCallAccuracyMetric()
    print("ToolCallAccuracy.evaluate throughput")
    print(
        f"{'calls':>5} {'mode':>8} {'samples/s':>10} {'per CPU-s':>10} {'µs/sample':>10}"
        f" {'µs/call':>8} {'matching µs':>12} {'score':>6}"
    )
    for length in options.lengths:
        sample = tool_trace(length)
        actual = sample.actual_tool_calls()
        reference = sample.reference_tool_calls or []
        for mode in (ToolCallMode.STRICT, ToolCallMode.FLEXIBLE):
            config = ToolCallAccuracyConfig(mode=mode)
            wall, cpu = rates(lambda s=sample, c=config: metric.evaluate(s, c), options.seconds)
            _, alone = rates(
                lambda a=actual, r=reference, m=mode: match_tool_calls(a, r, mode=m),
                options.seconds / 2,
            )
            micros = 1e6 / cpu
            score = metric.evaluate(sample, config).score or 0.0
            print(
                f"{length:>5} {mode.value:>8} {wall:>10,.0f} {cpu:>10,.0f} {micros:>10,.0f}"
                f" {micros / length:>8.1f} {1e6 / alone:>12,.0f} {score:>6.3f}"
            )


if __name__ == "__main__":
    main()
