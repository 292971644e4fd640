"""Fan-out benchmark: N agent conversations × J judges against a local judge server.

Scores N deterministic agent conversations with one metric (``goal``: AgentGoalAccuracy with a
reference, one LLM step; ``topics``: TopicAdherence, two dependent steps; ``tool``:
ToolCallAccuracy, no LLM) through ``create_container``, every judge answering after a fixed
latency. The server runs in a child process, so this process's CPU time is the client's only.
Then the same calls (same prompts, same dependency between steps, same concurrency) go through
the raw ``openai.AsyncOpenAI`` client: the floor our CPU per judge call is compared with.

Prints, per run (median, min and max with ``--repeat``): wall seconds of the scoring phase,
the ideal (sample waves × dependent LLM steps × latency), wall/ideal, process CPU seconds, CPU
ms per judge call, judge calls made and the peak in-flight requests the server saw.

    .venv/bin/python benchmarks/fanout.py                      # N=50, J=4, goal, 200 ms
    .venv/bin/python benchmarks/fanout.py --metric topics --n 20 --repeat 3
    .venv/bin/python benchmarks/fanout.py --transports langchain --no-floor --cold --repeat 1
    .venv/bin/python benchmarks/fanout.py --transports langchain --no-floor --profile 30
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import math
import pstats
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _workload import JudgeServer, agent_samples, bounded, cpu_seconds, summarise

from ragas_boot import Sample, create_container, load_settings
from ragas_boot.chat.structured import format_instructions
from ragas_boot.metrics.agent.agent_goal_accuracy import GoalVerdict
from ragas_boot.metrics.agent.topic_adherence import ExtractedTopics, classification_model
from ragas_boot.metrics.prompting import (
    bullet_list,
    load_prompt,
    render_conversation,
    render_prompt,
)

API_KEY = "sk-bench-not-a-real-key"
STEPS = {"goal": 1, "topics": 2, "tool": 0}
BEANS = {"goal": "agent_goal_accuracy", "topics": "topic_adherence", "tool": "tool_call_accuracy"}


@dataclass(frozen=True)
class Run:
    """One measured scoring phase."""

    wall: float
    cpu: float
    calls: int
    peak: int
    failed: int
    server_cpu: float
    spread: list[float]

    @property
    def cpu_ms_per_call(self) -> float:
        return 1000 * self.cpu / self.calls if self.calls else math.nan


def judge_ids(count: int) -> list[str]:
    return [f"judge-{index + 1}" for index in range(count)]


def write_settings(
    folder: Path, base_url: str, judges: int, concurrency: int, transport: str = "direct"
) -> Path:
    models = "\n".join(f"          - {{ id: {judge} }}" for judge in judge_ids(judges))
    path = folder / "application.yaml"
    path.write_text(
        f"""\
spring.ai.ragas:
  providers:
    openai-compatible:
      - name: bench
        base-url: {base_url}
        api-key: {API_KEY}
        max-concurrency: {judges * concurrency}
        timeout: 30s
        transport: {transport}
        chat-models:
{models}
""",
        encoding="utf-8",
    )
    return path


def measure(server: JudgeServer, action: Callable[[], None]) -> Run:
    server.reset()
    cpu, started, mono = cpu_seconds(), time.perf_counter(), time.monotonic()
    action()
    wall, cpu = time.perf_counter() - started, cpu_seconds() - cpu
    stats = server.stats()
    spread = [t - mono for t in stats.spread]
    return Run(wall, cpu, stats.count, stats.peak_in_flight, stats.failed, stats.server_cpu, spread)


# -- ragas-boot ------------------------------------------------------------------------------


def run_ragas_boot(
    server: JudgeServer, samples: list[Sample], options: argparse.Namespace, transport: str
) -> Run:
    with tempfile.TemporaryDirectory() as folder:
        path = write_settings(
            Path(folder), server.base_url, options.judges, options.concurrency, transport
        )
        settings = load_settings(path)
    with create_container(settings) as container:
        metric = getattr(container, BEANS[options.metric])()
        if not options.cold:
            metric.evaluate(samples[0])  # warm-up: lazy imports, one connection per judge
        portal = container._di.portal()  # the loop thread the calls run on

        def action() -> None:
            asyncio.run(bounded(samples, options.concurrency, metric.aevaluate))

        if not options.profile:
            return measure(server, action)
        # The calls run on the container's loop thread: profile that thread.
        profiler = cProfile.Profile()

        async def switch(on: bool) -> None:
            profiler.enable() if on else profiler.disable()

        portal.call(switch(True))
        try:
            return measure(server, action)
        finally:
            portal.call(switch(False))
            print(f"\nprofile, transport {transport} (the container's loop thread):")
            pstats.Stats(profiler).sort_stats("tottime").print_stats(options.profile)


# -- the floor: raw openai.AsyncOpenAI -------------------------------------------------------


def goal_prompt(sample: Sample) -> str:
    prompt = render_prompt(
        load_prompt("compare_outcome"),
        {
            "reference": sample.reference,
            "conversation": render_conversation(sample.user_input_messages or []),
        },
    )
    return prompt + format_instructions(GoalVerdict)


async def raw_sample(clients: dict[str, Any], sample: Sample, metric: str) -> None:
    """The same calls the metric makes for ``sample``, one client per judge."""

    async def ask(judge: str, prompt: str) -> Any:
        completion = await clients[judge].chat.completions.create(
            model=judge,
            messages=[{"role": "user", "content": prompt}],
            temperature=0.0,
            max_tokens=1000,
            top_p=1.0,
        )
        return json.loads(completion.choices[0].message.content)

    if metric == "goal":
        prompt = goal_prompt(sample)
        await asyncio.gather(*(ask(judge, prompt) for judge in clients))
        return
    conversation = render_conversation(sample.user_input_messages or [])
    extract = render_prompt(load_prompt("extract_topics"), {"conversation": conversation})
    extract += format_instructions(ExtractedTopics)
    found = await asyncio.gather(*(ask(judge, extract) for judge in clients))
    template = load_prompt("classify_topics")

    def classify(topics: list[str]) -> str:
        prompt = render_prompt(
            template,
            {
                "reference_topics": bullet_list(sample.reference_topics or []),
                "extracted_topics": bullet_list(topics),
            },
            {
                "count": len(topics),
            },
        )
        model = classification_model(tuple(topics), tuple(sample.reference_topics or []))
        return prompt + format_instructions(model)

    await asyncio.gather(
        *(
            ask(judge, classify(answer["topics"]))
            for judge, answer in zip(clients, found, strict=True)
        )
    )


def run_raw(
    server: JudgeServer,
    samples: list[Sample],
    options: argparse.Namespace,
    transport: str,
) -> Run:
    import openai

    async def main(measured: list[Run]) -> None:
        clients: dict[str, Any] = {}
        for judge in judge_ids(options.judges):
            http_client = openai.DefaultAioHttpClient() if transport == "aiohttp" else None
            clients[judge] = openai.AsyncOpenAI(
                base_url=server.base_url + "/v1",
                api_key=API_KEY,
                max_retries=0,
                timeout=30.0,
                http_client=http_client,
            )
        try:
            await raw_sample(clients, samples[0], options.metric)  # warm-up
            server.reset()
            cpu, started, mono = cpu_seconds(), time.perf_counter(), time.monotonic()
            await bounded(
                samples,
                options.concurrency,
                lambda sample: raw_sample(clients, sample, options.metric),
            )
            wall, cpu = time.perf_counter() - started, cpu_seconds() - cpu
            stats = server.stats()
            measured.append(
                Run(
                    wall,
                    cpu,
                    stats.count,
                    stats.peak_in_flight,
                    stats.failed,
                    stats.server_cpu,
                    [t - mono for t in stats.spread],
                )
            )
        finally:
            for client in clients.values():
                await client.close()

    runs: list[Run] = []
    asyncio.run(main(runs))
    return runs[0]


def has_aiohttp() -> bool:
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        return False
    return True


# -- report ----------------------------------------------------------------------------------


def report(title: str, runs: list[Run], ideal: float) -> None:
    print(f"\n{title}")
    print(f"  wall of the scoring phase    {summarise([r.wall for r in runs])} s")
    if ideal:
        ratios = [r.wall / ideal for r in runs]
        print(f"  ideal (waves×steps×latency)  {ideal:.3f} s")
        print(f"  wall / ideal                 {summarise(ratios, '{:.2f}'.format)}")
    else:
        print("  ideal                        n/a (no LLM step)")
    print(f"  process CPU (client only)    {summarise([r.cpu for r in runs])} s")
    print(f"  judge calls made             {summarise([r.calls for r in runs], '{:.0f}'.format)}")
    if not any(r.calls for r in runs):
        return
    cpu_per_call = [r.cpu_ms_per_call for r in runs]
    print(f"  CPU per judge call           {summarise(cpu_per_call, '{:.2f}'.format)} ms")
    print(f"  peak in-flight (server)      {summarise([r.peak for r in runs], '{:.0f}'.format)}")
    # When the server saw the first and last request and sent the last answer: the gap
    # before the first request is the client building every request before sending any.
    for label, index in (("first request in", 0), ("last request in", 1), ("last answer out", 2)):
        print(f"  server: {label:<20} {summarise([r.spread[index] for r in runs])} s")
    print(f"  server process CPU           {summarise([r.server_cpu for r in runs])} s")
    if any(r.failed for r in runs):
        print(f"  non-200 answers              {max(r.failed for r in runs)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=50, help="samples (default 50)")
    parser.add_argument("--judges", type=int, default=4, help="judges (default 4)")
    parser.add_argument("--metric", choices=sorted(STEPS), default="goal")
    parser.add_argument("--latency-ms", type=float, default=200.0, help="judge latency")
    parser.add_argument(
        "--concurrency", type=int, default=None, help="samples scored at once (default: all)"
    )
    parser.add_argument("--repeat", type=int, default=5, help="runs (default 5): median, min, max")
    parser.add_argument("--no-floor", action="store_true", help="skip the raw-client floor")
    parser.add_argument(
        "--cold",
        action="store_true",
        help="no warm-up call: first-call set-up (lazy imports, clients) counted, as in a fresh "
        "process (run one transport per process with --repeat 1 for that)",
    )
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="N",
        help="cProfile each ragas-boot run's scoring phase; print the top N functions",
    )
    parser.add_argument(
        "--transports",
        nargs="+",
        choices=["direct", "langchain"],
        default=["direct", "langchain"],
        help="ragas-boot judge transports measured (default both)",
    )
    options = parser.parse_args()
    options.concurrency = options.concurrency or options.n
    samples = agent_samples(options.n)
    waves = math.ceil(options.n / options.concurrency)
    ideal = waves * STEPS[options.metric] * options.latency_ms / 1000

    print(
        f"fan-out: N={options.n} samples × J={options.judges} judges, metric {options.metric}, "
        f"latency {options.latency_ms:g} ms, concurrency {options.concurrency} samples, "
        f"repeat {options.repeat}"
    )
    ours: dict[str, list[Run]] = {transport: [] for transport in options.transports}
    floors: dict[str, list[Run]] = {"httpx2 (default)": []}
    if has_aiohttp():
        floors["aiohttp"] = []
    with JudgeServer(latency_ms=options.latency_ms) as server:
        for repeat in range(options.repeat):
            # Every other repeat runs the floors first, so neither side always goes first.
            with_floors = STEPS[options.metric] and not options.no_floor
            names = [*ours, *floors] if with_floors else [*ours]
            order = names if repeat % 2 == 0 else names[::-1]
            for name in order:
                if name in ours:
                    ours[name].append(run_ragas_boot(server, samples, options, name))
                else:
                    floors[name].append(run_raw(server, samples, options, name.split(" ")[0]))
    for transport, runs in ours.items():
        report(
            f"ragas-boot, transport {transport} (create_container → metric.aevaluate)", runs, ideal
        )
    if "direct" in ours and len(ours) > 1:
        lean_wall = statistics.median(r.wall for r in ours["direct"])
        for transport, runs in ours.items():
            if transport != "direct":
                ratio = statistics.median(r.wall for r in runs) / lean_wall
                print(f"  ragas-boot {transport} wall / direct wall: {ratio:.2f}× (medians)")
    if not STEPS[options.metric] or options.no_floor:
        return
    for floor, runs in floors.items():
        report(f"floor: raw openai.AsyncOpenAI, {floor} transport", runs, ideal)
        if "direct" in ours:
            ratio = statistics.median(r.wall for r in runs) / statistics.median(
                r.wall for r in ours["direct"]
            )
            print(f"  this floor's wall / ragas-boot direct wall: {ratio:.2f}× (medians)")
        floor_cpu = statistics.median(r.cpu_ms_per_call for r in runs)
        for transport, mine in ours.items():
            ratio = statistics.median(r.cpu_ms_per_call for r in mine) / floor_cpu
            print(f"  ragas-boot {transport} CPU per call / this floor's: {ratio:.2f}× (medians)")


if __name__ == "__main__":
    main()
