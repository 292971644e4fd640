"""The embedded local judge at its model's speed: the quickstart's billed tokens/s of wall
beside llama-cpp-python's own prompt and generation speed on the same prompts.

    .venv/bin/python benchmarks/local_judge.py [--threads N] [--decoder llguidance|grammar]

Needs the ``[local]`` extra. In one process it

1. runs the quickstart (examples/quickstart/dataset.yaml: 3 samples x ToolCallAccuracy,
   AgentGoalAccuracy, TopicAdherence) through ragas-boot on the bundled SmolLM2-135M, and
   prints its billed tokens (prompt + completion, as the report counts them) per second of
   the run's wall, with each call's prompt and completion tokens, per metric step;
2. replays the very prompts the judge sent on a plain ``llama_cpp.Llama`` (no ragas-boot),
   each from an empty context: prompt processing alone (tokens/s), and unconstrained
   generation of as many tokens as the judge generated (tokens/s).

The issue's target ("done when"): billed tokens/s >= raw prompt tokens/s. Prints figures;
asserts nothing. Run it on a quiet machine: llama.cpp slows down many times over when other
processes compete for the cores (the load average is printed first).
"""

from __future__ import annotations

import argparse
import collections
import os
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
QUICKSTART = ROOT / "examples" / "quickstart"
METRICS = ("tool_call_accuracy", "agent_goal_accuracy", "topic_adherence")


def _step_of(messages: tuple[dict[str, str], ...]) -> str:
    """The template a prompt came from: its first line (each template's is its own)."""
    first = messages[-1]["content"].splitlines()[0] if messages else ""
    return first[:60]


def run_quickstart(
    threads: int | None, decoder: str | None = None
) -> tuple[float, int, list[Any], float]:
    """The quickstart through ragas-boot: (wall of the run, billed tokens, records, load s)."""
    from ragas_boot import create_container, load_settings
    from ragas_boot.chat import LocalJudge
    from ragas_boot.datasets import load_dataset
    from ragas_boot.runs import evaluate_dataset

    environ = {"SPRING_AI_RAGAS_CACHE_ENABLED": "false"}
    if threads is not None:
        environ["SPRING_AI_RAGAS_PROVIDERS_LOCAL_N_THREADS"] = str(threads)
    if decoder is not None:
        environ["SPRING_AI_RAGAS_PROVIDERS_LOCAL_DECODER"] = decoder
    settings = load_settings(ROOT / "application.yaml", environ=environ)
    dataset = load_dataset(QUICKSTART / "dataset.yaml")
    with create_container(settings) as container:
        (judge,) = container.judges()
        assert isinstance(judge, LocalJudge)
        started = time.perf_counter()
        judge.prepare()  # the model load is not the judge's speed
        load_s = time.perf_counter() - started
        beans = {name: container.metric(name) for name in METRICS}
        started = time.perf_counter()
        run = evaluate_dataset(dataset, beans, spool_after=None)
        wall = time.perf_counter() - started
        billed = sum(
            evaluation.result.usage.total_tokens
            for sample in run.samples
            for evaluation in sample.evaluations
            if evaluation.result is not None
        )
        scores = {
            (sample.sample_id, evaluation.metric): evaluation.score
            for sample in run.samples
            for evaluation in sample.evaluations
        }
        for (sample_id, metric), score in sorted(scores.items()):
            print(f"  score {sample_id:<22} {metric:<20} {score}")
        for name in METRICS:
            print(f"  mean  {name:<43} {run.metric_summary(name).mean:.3f}")
        engine = judge.server._engine
        print(
            f"  decoder {engine.decoder}: {engine.forced_tokens} answer tokens read as forced "
            f"text, {engine.loops_stopped} looping answers closed"
        )
        return wall, billed, judge.server.records, load_s


def replay_raw(records: list[Any], threads: int) -> dict[str, tuple[int, float, int, float]]:
    """Per step: (prompt tokens, prompt seconds, generated tokens, generation seconds)."""
    from llama_cpp import Llama

    from ragas_boot.chat.local.runtime import bundled_model_path

    llm = Llama(
        model_path=str(bundled_model_path()),
        n_ctx=4096,
        n_threads=threads,
        n_threads_batch=threads,
        seed=0,
        verbose=False,
    )
    figures: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0, 0, 0.0])
    try:
        for record in records:
            messages = list(record.messages)
            # The formatted prompt's tokens, as the chat template makes them.
            llm.reset()
            llm.create_chat_completion(messages=messages, max_tokens=1, temperature=0)
            tokens = list(llm.input_ids[: record.prompt_tokens])
            llm.reset()
            started = time.perf_counter()
            llm.eval(tokens)
            prompt_s = time.perf_counter() - started
            llm.reset()
            started = time.perf_counter()
            answer = llm.create_completion(
                tokens, max_tokens=max(1, record.completion_tokens), temperature=0
            )
            total_s = time.perf_counter() - started
            generated = answer["usage"]["completion_tokens"]
            row = figures[_step_of(record.messages)]
            row[0] += len(tokens)
            row[1] += prompt_s
            row[2] += generated
            row[3] += max(total_s - prompt_s, 1e-9)
    finally:
        llm.close()
    return {step: (int(r[0]), r[1], int(r[2]), r[3]) for step, r in figures.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--threads", type=int, default=None, help="n-threads (default: the judge's)"
    )
    parser.add_argument(
        "--decoder",
        choices=["llguidance", "grammar"],
        default=None,
        help="providers.local.decoder (default: the configuration's, llguidance)",
    )
    args = parser.parse_args()
    from ragas_boot.chat.local.engine import default_threads

    threads = args.threads or default_threads()
    import llama_cpp

    print(
        f"llama-cpp-python {llama_cpp.__version__}; {os.cpu_count()} CPUs, {threads} threads, "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    wall, billed, records, load_s = run_quickstart(args.threads, args.decoder)
    judged: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0, 0.0, 0])
    for record in records:
        row = judged[_step_of(record.messages)]
        row[0] += record.prompt_tokens
        row[1] += record.completion_tokens
        row[2] += record.finished - record.started
        row[3] += 1
    raw = replay_raw(records, threads)
    print(f"\nquickstart (model load {load_s:.2f} s, not counted): {len(records)} judge calls")
    print(
        f"{'step (first line of its template)':<62} {'calls':>5} {'prompt':>7} {'out':>5} "
        f"{'judge tok/s':>11} {'raw prompt tok/s':>16} {'raw gen tok/s':>13}"
    )
    raw_prompt = raw_prompt_s = 0.0
    for step, (prompt, out, seconds, calls) in judged.items():
        r_prompt, r_prompt_s, r_gen, r_gen_s = raw[step]
        raw_prompt += r_prompt
        raw_prompt_s += r_prompt_s
        print(
            f"{step:<62} {calls:>5} {prompt:>7} {out:>5} {(prompt + out) / seconds:>11.0f} "
            f"{r_prompt / r_prompt_s:>16.0f} {r_gen / r_gen_s:>13.0f}"
        )
    print(
        f"\nbilled {billed:,} tokens in {wall:.2f} s of wall: {billed / wall:.0f} tokens/s; "
        f"raw prompt processing on the same prompts: {raw_prompt / raw_prompt_s:.0f} tokens/s "
        f"-> {'met' if billed / wall >= raw_prompt / raw_prompt_s else 'NOT met'} "
        "(billed >= raw prompt)"
    )
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
