"""A dataset run through a provider's batch API against the same run sent synchronously.

N agent conversations × 2 judges × AgentGoalAccuracy without a reference (two dependent
steps: each judge infers the goal, then judges it), once on ``transport: direct`` and once on
``transport: batch``, both against the test server (``ragas_boot.testing.FakeOpenAIServer``,
whose batches take ``--in-progress-ms`` each). Prints what issue 35 asks of a batch run:
whether the per-sample scores are the synchronous run's, how many synchronous chat requests
reached the server during the batch run (0), the batches against the rounds (one per judge
and step), each run's cost and their ratio (0.5 at a 50% batch discount), and the walls.

    .venv/bin/python benchmarks/batch_rounds.py                 # N=1,000
    .venv/bin/python benchmarks/batch_rounds.py --n 5000 --in-progress-ms 500
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from pathlib import Path

from ragas_boot import create_container, load_settings
from ragas_boot.runs import RunResult, evaluate_dataset
from ragas_boot.samples import AIMessage, HumanMessage, Sample
from ragas_boot.testing import ChatRequest, FakeOpenAIServer

JUDGES = ("judge-a", "judge-b")
STEPS = 2  # InferGoal, then EvaluateOutcome: two rounds
CONFIG = """
spring.ai.ragas:
  metrics.logging.enabled: false
  cache.enabled: false
  providers:
    batch: {{poll-interval: 20ms, max-poll-interval: 200ms, discount: 0.5}}
    openai-compatible:
      - name: hosted
        base-url: {base_url}
        api-key: sk-bench-not-a-real-key
        transport: {transport}
        chat-models:
          - {{id: judge-a, price: {{input-per-million: 2.0, output-per-million: 8.0}}}}
          - {{id: judge-b, price: {{input-per-million: 0.5, output-per-million: 1.5}}}}
"""


def answer(request: ChatRequest) -> dict[str, object]:
    index = int(re.search(r"table (\d+)", request.prompt).group(1))  # type: ignore[union-attr]
    if request.asks_for("inferred_goal"):
        return {"inferred_goal": f"book table {index}", "reason": "asked"}
    achieved = index % 3 != 0 if request.model == "judge-a" else index % 5 != 0
    return {"goal_achieved": achieved, "reason": f"table {index}"}


def samples(count: int) -> list[Sample]:
    return [
        Sample(
            id=f"s{index:05d}",
            user_input_messages=[
                HumanMessage(content=f"book table {index}"),
                AIMessage(content="booked"),
            ],
        )
        for index in range(count)
    ]


def run(server: FakeOpenAIServer, folder: Path, transport: str, data: list[Sample]) -> RunResult:
    path = folder / f"{transport}.yaml"
    path.write_text(CONFIG.format(base_url=server.base_url, transport=transport), "utf-8")
    container = create_container(load_settings(path))
    try:
        return evaluate_dataset(
            data,
            [container.agent_goal_accuracy()],
            configs={"agent_goal_accuracy": {"mode": "WITHOUT_REFERENCE"}},
            concurrency=64 if transport == "direct" else None,
        )
    finally:
        container.close()


def scores(result: RunResult) -> list[tuple[str, float | None]]:
    return [(sample.sample_id, sample.evaluations[0].score) for sample in result.samples]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1000, help="samples (default 1,000)")
    parser.add_argument(
        "--in-progress-ms", type=float, default=200.0, help="each batch's in_progress time"
    )
    args = parser.parse_args()
    data = samples(args.n)
    with FakeOpenAIServer() as server, tempfile.TemporaryDirectory() as folder:
        server.respond(None, answer)
        started = time.perf_counter()
        synchronous = run(server, Path(folder), "direct", data)
        direct_wall = time.perf_counter() - started
        direct_requests = server.count()
        server.reset()
        server.respond(None, answer)
        server.set_batch_timing(in_progress=args.in_progress_ms / 1000)
        started = time.perf_counter()
        batched = run(server, Path(folder), "batch", data)
        batch_wall = time.perf_counter() - started
        batches = server.batches
        sync_during_batch = server.count()
    rounds = STEPS * len(JUDGES)  # one batch per judge and step
    lines = sum(len(batch.lines) for batch in batches)
    direct_cost, batch_cost = synchronous.totals.cost or 0.0, batched.totals.cost or 0.0
    print(f"samples {args.n} x judges {len(JUDGES)} x steps {STEPS}")
    print(
        f"direct: {direct_requests} chat requests, cost ${direct_cost:.6f}, wall {direct_wall:.2f}s"
    )
    print(
        f"batch:  {len(batches)} batches ({lines} lines) for {STEPS} rounds x {len(JUDGES)} "
        f"judges = {rounds}, synchronous chat requests {sync_during_batch}, "
        f"cost ${batch_cost:.6f}, wall {batch_wall:.2f}s"
    )
    print(f"per-sample scores equal: {scores(batched) == scores(synchronous)}")
    print(f"batches == rounds x judges: {len(batches) == rounds}")
    print(f"cost ratio batch/direct: {batch_cost / direct_cost:.4f}" if direct_cost else "")
    print(f"billed tokens equal: {batched.totals.billed_usage == synchronous.totals.billed_usage}")


if __name__ == "__main__":
    main()
