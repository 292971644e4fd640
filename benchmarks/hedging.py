"""Hedging benchmark: a dataset run against judges of which 1% of calls hang.

Scores N agent conversations with AgentGoalAccuracy (one LLM step) by J judges through
``create_container`` against the judge server in a child process, each answer after a fixed
latency, a seeded share of requests held for ``--hang-seconds`` (longer than the call
timeout: a hung call times out and is retried). The same run goes once per hedging mode:
``off`` (the default), ``delay`` (a copy after ``--delay-ms``) and ``p95`` (a copy after the
provider's observed p95 latency, once 20 answers are known).

Prints per mode: wall of the scoring phase, the ideal (sample waves × latency), wall/ideal,
requests the server received (hedged copies and retries included) and the failed evaluations.

    .venv/bin/python benchmarks/hedging.py                 # N=250, J=4, 1% hangs, 100 ms
    .venv/bin/python benchmarks/hedging.py --n 1000 --timeout-s 30
"""

from __future__ import annotations

import argparse
import asyncio
import math
import tempfile
import time
from pathlib import Path

from _workload import JudgeServer, agent_samples, bounded

from ragas_boot import Sample, create_container, load_settings

API_KEY = "sk-bench-not-a-real-key"


def write_settings(folder: Path, base_url: str, options: argparse.Namespace, mode: str) -> Path:
    models = "\n".join(
        f"          - {{ id: judge-{index + 1} }}" for index in range(options.judges)
    )
    hedging = {
        "off": "{ enabled: false }",
        "delay": f"{{ enabled: true, delay: {options.delay_ms}ms }}",
        "p95": "{ enabled: true }",
    }[mode]
    path = folder / "application.yaml"
    path.write_text(
        f"""\
spring.ai.retry:
  backoff: {{ initial-interval: 10ms, max-interval: 100ms }}
spring.ai.ragas:
  cache.enabled: false
  providers:
    openai-compatible:
      - name: bench
        base-url: {base_url}
        api-key: {API_KEY}
        max-concurrency: {options.judges * options.concurrency}
        timeout: {options.timeout_s}s
        hedging: {hedging}
        chat-models:
{models}
""",
        encoding="utf-8",
    )
    return path


def run(server: JudgeServer, options: argparse.Namespace, mode: str) -> tuple[float, int, int]:
    samples = agent_samples(options.n)
    with tempfile.TemporaryDirectory() as folder:
        settings = load_settings(write_settings(Path(folder), server.base_url, options, mode))
    with create_container(settings) as container:
        metric = container.agent_goal_accuracy()
        failed = 0

        async def score(sample: Sample) -> None:
            nonlocal failed
            result = await metric.aevaluate(sample)
            failed += bool(result.exclusions)

        server.reset()
        started = time.perf_counter()
        asyncio.run(bounded(samples, options.concurrency, score))
        wall = time.perf_counter() - started
        return wall, server.stats().count, failed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=250)
    parser.add_argument("--judges", type=int, default=4)
    parser.add_argument("--latency-ms", type=float, default=100.0)
    parser.add_argument("--hang-rate", type=float, default=0.01)
    parser.add_argument("--hang-seconds", type=float, default=60.0)
    parser.add_argument("--timeout-s", type=float, default=10.0)
    parser.add_argument("--delay-ms", type=float, default=500.0)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--modes", nargs="+", default=["off", "delay", "p95"])
    options = parser.parse_args()
    ideal = math.ceil(options.n / options.concurrency) * options.latency_ms / 1000
    print(
        f"N={options.n} x {options.judges} judges, {options.hang_rate:.0%} of requests hang "
        f"{options.hang_seconds:g}s, latency {options.latency_ms:g} ms, timeout "
        f"{options.timeout_s:g}s, {options.concurrency} samples at once; ideal {ideal:.2f}s"
    )
    print(f"{'mode':<8}{'wall s':>9}{'x ideal':>9}{'requests':>10}{'judge exclusions':>18}")
    with JudgeServer(
        latency_ms=options.latency_ms,
        hang_rate=options.hang_rate,
        hang_seconds=options.hang_seconds,
    ) as server:
        for mode in options.modes:
            wall, requests, failed = run(server, options, mode)
            print(f"{mode:<8}{wall:>9.2f}{wall / ideal:>9.1f}{requests:>10}{failed:>18}")


if __name__ == "__main__":
    main()
