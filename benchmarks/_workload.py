"""Shared by the benchmark scripts: deterministic agent conversations and a judge server that
runs in its own process, so the client's process CPU is the client's alone.

Not a benchmark itself; ``python benchmarks/_workload.py serve --latency-ms 200`` is how the
scripts start the server (they talk to it over stdin/stdout).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from ragas_boot import AIMessage, HumanMessage, Sample, ToolCall, ToolMessage

__all__ = [
    "JudgeServer",
    "Stats",
    "agent_samples",
    "bounded",
    "judge_answer",
    "summarise",
    "tool_trace",
]

CITIES = ["Tokyo", "Paris", "Lima", "Oslo", "Cairo", "Quito", "Perth", "Delhi", "Porto", "Seoul"]
TOPIC_POOL = [
    "flight booking",
    "hotel reservation",
    "weather forecast",
    "currency exchange",
    "travel insurance",
    "visa requirements",
    "local restaurants",
    "car rental",
]
TOOLS = ["search_flights", "book_flight", "get_weather", "convert_currency", "find_hotel"]


def agent_samples(count: int, *, seed: int = 7) -> list[Sample]:
    """``count`` agent conversations, the same on every run: a request, two tool rounds, an
    answer; with a reference outcome, allowed topics and the reference tool calls."""
    rng = random.Random(seed)
    samples = []
    for index in range(count):
        city = CITIES[index % len(CITIES)]
        days = rng.randint(1, 9)
        calls = [
            ToolCall("search_flights", {"to": city, "days": days}, id=f"c{index}-1"),
            ToolCall("get_weather", {"city": city, "units": "metric"}, id=f"c{index}-2"),
        ]
        messages = [
            HumanMessage(f"Find me a flight to {city} for {days} days and tell me the weather."),
            AIMessage("", [calls[0]]),
            ToolMessage(
                f"Flight RB{index:03d} to {city}, 09:40, 412 EUR", tool_call_id=f"c{index}-1"
            ),
            AIMessage("", [calls[1]]),
            ToolMessage(f"{city}: {rng.randint(-5, 35)}°C, light wind", tool_call_id=f"c{index}-2"),
            AIMessage(f"Flight RB{index:03d} leaves at 09:40 for 412 EUR; {city} is mild."),
        ]
        samples.append(
            Sample(
                id=f"s{index:04d}",
                user_input_messages=messages,
                reference=f"The user gets a flight to {city} and the weather there.",
                reference_topics=rng.sample(TOPIC_POOL, 3),
                reference_tool_calls=[
                    ToolCall("search_flights", {"to": city, "days": days}),
                    ToolCall("get_weather", {"city": city, "units": "metric"}),
                ],
            )
        )
    return samples


def tool_trace(length: int, *, seed: int = 11, wrong_every: int = 5) -> Sample:
    """A sample whose agent made ``length`` tool calls; the reference differs in every
    ``wrong_every``-th (one argument; 0: in none)."""
    rng = random.Random(seed)
    actual = []
    for index in range(length):
        name = TOOLS[rng.randrange(len(TOOLS))]
        arguments = {
            "city": CITIES[rng.randrange(len(CITIES))],
            "days": rng.randint(1, 9),
            "step": index,
            "flags": {"fast": rng.random() < 0.5, "tags": ["a", "b"][: rng.randint(0, 2)]},
        }
        actual.append(ToolCall(name, arguments))
    # Reference calls are objects of their own, as when both lists are read from a dataset.
    reference = [
        ToolCall(call.name, {**call.arguments, "days": call.arguments["days"] + 1})
        if wrong_every and index % wrong_every == wrong_every - 1
        else ToolCall(call.name, call.arguments)
        for index, call in enumerate(actual)
    ]
    rng.shuffle(reference)
    return Sample(tool_calls=actual, reference_tool_calls=reference)


# -- the judge server ------------------------------------------------------------------------

_FOUND_MARKERS = ("Topics found in the conversation:\n", "Темы, найденные в диалоге:\n")


def judge_answer(prompt: str) -> dict[str, Any]:
    """What every scripted judge answers, from the prompt alone (deterministic)."""
    for marker in _FOUND_MARKERS:
        if marker in prompt:
            block = prompt.split(marker, 1)[1].split("\n\n", 1)[0]
            topics = [line[2:] for line in block.splitlines() if line.startswith("- ")]
            return {
                "classifications": [
                    {
                        "topic": topic,
                        "on_topic": topic != "small talk",
                        "matched_reference_topic": None if topic == "small talk" else topic,
                        "reason": "scripted",
                    }
                    for topic in topics
                ]
            }
    if "inferred_goal" in prompt:
        return {"inferred_goal": "Book a flight and learn the weather.", "reason": "scripted"}
    if "List every distinct topic" in prompt:
        picked = TOPIC_POOL[len(prompt) % len(TOPIC_POOL)]
        return {"topics": [picked, "weather forecast", "small talk"]}
    return {"goal_achieved": len(prompt) % 3 != 0, "reason": "scripted verdict"}


def _spread(records: Sequence[Any]) -> list[float]:
    """Seconds from the first request to the last one received, and to the last answer."""
    if not records:
        return [0.0, 0.0, 0.0]
    first = min(r.request.received_at for r in records)
    last = max(r.request.received_at for r in records)
    answered = max(r.answered_at or 0.0 for r in records)
    return [first, last, answered]


def _serve(latency_ms: float, hang_rate: float = 0.0, hang_seconds: float = 30.0) -> None:
    from ragas_boot.testing import FakeOpenAIServer

    server = FakeOpenAIServer()

    def configure() -> None:
        server.set_latency(None, latency_ms / 1000)
        server.respond(None, lambda request: judge_answer(request.prompt))
        if hang_rate:
            server.inject_faults(None, rate_hang=hang_rate, hang_seconds=hang_seconds, seed=3)

    cpu_mark = time.process_time()
    with server:
        configure()
        print(f"READY {server.base_url}", flush=True)
        for line in sys.stdin:
            command = line.strip()
            if command == "stats":
                records = server.requests
                payload = {
                    "count": len(records),
                    "peak_in_flight": server.peak_in_flight,
                    "failed": sum(1 for r in records if r.status != 200),
                    "server_cpu": time.process_time() - cpu_mark,
                    "spread": _spread(records),
                }
                print(json.dumps(payload), flush=True)
            elif command == "reset":
                server.reset()
                configure()
                cpu_mark = time.process_time()
                print("OK", flush=True)
            elif command == "quit":
                break


@dataclass(frozen=True)
class Stats:
    """What the server saw since the last reset."""

    count: int
    peak_in_flight: int
    failed: int
    server_cpu: float
    spread: list[float]


class JudgeServer:
    """The fake OpenAI-compatible server with scripted judges, in a child process."""

    def __init__(
        self, *, latency_ms: float, hang_rate: float = 0.0, hang_seconds: float = 30.0
    ) -> None:
        self._process = subprocess.Popen(
            [
                sys.executable,
                str(Path(__file__)),
                "serve",
                "--latency-ms",
                str(latency_ms),
                "--hang-rate",
                str(hang_rate),
                "--hang-seconds",
                str(hang_seconds),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        line = self._read()
        if not line.startswith("READY "):
            self.close()
            raise RuntimeError(f"the judge server did not start: {line!r}")
        self.base_url = line.split(" ", 1)[1].strip()

    def _read(self) -> str:
        assert self._process.stdout is not None
        return self._process.stdout.readline()

    def _ask(self, command: str) -> str:
        assert self._process.stdin is not None
        self._process.stdin.write(command + "\n")
        self._process.stdin.flush()
        return self._read()

    def stats(self) -> Stats:
        """Requests, peak in flight and non-200 answers since the last reset."""
        return Stats(**json.loads(self._ask("stats")))

    def reset(self) -> None:
        """Forget requests and counters (latency and answers stay)."""
        self._ask("reset")

    def close(self) -> None:
        """Stop the child process."""
        if self._process.poll() is None:
            with contextlib.suppress(OSError):  # the server already went away
                self._ask("quit")
            try:
                self._process.wait(10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        for stream in (self._process.stdin, self._process.stdout):
            if stream is not None:
                stream.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def summarise(values: Sequence[float], fmt: Callable[[float], str] = "{:.3f}".format) -> str:
    """``median (min–max)`` of repeated measurements, or the one value."""
    if len(values) == 1:
        return fmt(values[0])
    return f"{fmt(statistics.median(values))} (min {fmt(min(values))}, max {fmt(max(values))})"


async def bounded(
    samples: Sequence[Sample], concurrency: int, score: Callable[[Sample], Awaitable[Any]]
) -> None:
    """Score every sample, at most ``concurrency`` at once."""
    gate = asyncio.Semaphore(concurrency)

    async def one(sample: Sample) -> None:
        async with gate:
            await score(sample)

    await asyncio.gather(*(one(sample) for sample in samples))


def cpu_seconds() -> float:
    """CPU seconds of this process, all threads (the portal's loop runs in one)."""
    return time.process_time()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("command", choices=["serve"])
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--hang-rate", type=float, default=0.0)
    parser.add_argument("--hang-seconds", type=float, default=30.0)
    arguments = parser.parse_args()
    _serve(arguments.latency_ms, arguments.hang_rate, arguments.hang_seconds)
