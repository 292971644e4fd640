"""Figures of the embedded local judge: import, cold start, seconds per judge call, tokens/s.

    .venv/bin/python benchmarks/local_judge.py [--threads N] [--calls 10]

Needs the ``[local]`` extra. A judge call here is what AgentGoalAccuracy sends (the
CompareOutcome prompt, a ``GoalVerdict`` schema) through the real :class:`LocalJudge`:
langchain-openai over HTTP to the local server, grammar-constrained decoding, parsing. Prints
figures; asserts nothing. Run it on a quiet machine: llama.cpp slows down many times over when
other processes compete for the cores.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time

from ragas_boot import AIMessage, HumanMessage, Sample, ToolCall, ToolMessage
from ragas_boot.chat import JudgeSpec, LocalJudge, LocalModelPool, LocalModelSpec
from ragas_boot.chat.local import LOCAL_API_KEY, UNSTARTED_BASE_URL, bundled_model_path
from ragas_boot.config.settings import StructuredOutputMode
from ragas_boot.metrics.agent.agent_goal_accuracy import GoalVerdict
from ragas_boot.metrics.prompting import load_prompt, render_conversation, render_prompt

SAMPLE = Sample(
    user_input_messages=[
        HumanMessage("Book me a flight to Paris for Monday"),
        AIMessage("Searching.", [ToolCall("search_flights", {"destination": "Paris"})]),
        ToolMessage("Air France 10:00, $450"),
        AIMessage("Booked Air France at 10:00. Confirmation AF12345."),
    ],
    reference="The flight to Paris is booked",
)


async def measure(threads: int | None, calls: int) -> None:
    from pydantic import SecretStr

    prompt = render_prompt(
        load_prompt("compare_outcome", "en"),
        {
            "reference": SAMPLE.reference,
            "conversation": render_conversation(SAMPLE.user_input_messages or []),
        },
    )
    model = LocalModelSpec(model_path=bundled_model_path(), n_ctx=2048, n_threads=threads)
    spec = JudgeSpec(
        id="smollm2-135m",
        model="smollm2-135m",
        provider="local",
        base_url=UNSTARTED_BASE_URL,
        api_key=SecretStr(LOCAL_API_KEY),
        max_tokens=256,
        structured_output=StructuredOutputMode.JSON_SCHEMA,
        local=model,
    )
    pool = LocalModelPool()
    judge = LocalJudge(spec=spec, server=pool.server(model, spec.model))
    try:
        started = time.perf_counter()
        judge.prepare()  # loads the model, binds the port, health-checks, makes the client
        prepared = time.perf_counter() - started
        server = judge.server
        print(
            f"cold start: {server.start_s:.2f} s (model load {server.load_s:.2f} s); "
            f"prepare() with the HTTP client: {prepared:.2f} s"
        )
        latencies: list[float] = []
        tokens: list[int] = []
        for _ in range(calls):
            answer = await judge.ainvoke_structured(prompt, GoalVerdict)
            latencies.append(answer.latency_s)
            tokens.append(answer.usage.output_tokens)
        generated = [r.completion_tokens / (r.finished - r.started) for r in server.records]
        print(
            f"{calls} judge calls: median {statistics.median(latencies):.2f} s, "
            f"min {min(latencies):.2f} s, max {max(latencies):.2f} s; "
            f"{statistics.mean(tokens):.0f} completion tokens per call "
            f"(prompt {server.records[-1].prompt_tokens}); "
            f"{statistics.median(generated):.0f} tokens/s including prefill"
        )
        print(f"answer: {answer.raw_text}")
    finally:
        await judge.aclose()
        pool.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=None, help="n-threads (default: half)")
    parser.add_argument("--calls", type=int, default=10)
    args = parser.parse_args()
    started = time.perf_counter()
    import llama_cpp

    print(
        f"import llama_cpp {llama_cpp.__version__}: {time.perf_counter() - started:.2f} s; "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}"
    )
    asyncio.run(measure(args.threads, args.calls))


if __name__ == "__main__":
    main()
