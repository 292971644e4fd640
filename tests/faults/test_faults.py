"""No sample is ever lost to a fault: 200 samples × 4 judges against injected failures.

The test server answers 10% of requests 429 with Retry-After, 5% 500, 5% with a cut-off body
(malformed JSON) and holds 1% far beyond the 1 s call timeout. Every sample must come back
as a result (or as an ``AllJudgesFailedError`` naming every judge), every judge failure with
its kind; retries must wait as long as Retry-After asks (measured on the server's clock), and
no judge may be asked about a sample more often than its recorded attempts say.
"""

from __future__ import annotations

import asyncio
import itertools
import math
import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ragas_boot import (
    AIMessage,
    AllJudgesFailedError,
    HumanMessage,
    MetricResult,
    RagasSettings,
    Sample,
    ToolCall,
    ToolMessage,
    create_container,
    load_settings,
)
from ragas_boot.execution.results import JudgeCall, StepRecord
from ragas_boot.metrics import Metric
from ragas_boot.testing import ChatRequest, FakeOpenAIServer, RecordedRequest, Reply

JUDGES = ["judge-a", "judge-b", "judge-c", "judge-d"]
KEY = "sk-faults-test-key"
MAX_ATTEMPTS = 3
OUTPUT_RETRIES = 1
# Long enough that a loaded 2-core machine (other test workers, CI) still lets the server
# record a request before the client gives up on it; the injected hangs last far longer.
CALL_TIMEOUT_S = 1.0
RETRY_AFTER_S = 0.25
HANG_S = 3600.0  # far beyond any run: the server holds these until it stops
# Calls in flight per provider. Kept low so that the client's CPU for the calls in flight
# (a few ms each on a 2-core machine) stays far below the call timeout.
CONCURRENCY = 16
STEP = "CompareOutcome"

#: The failure kind a judge gets when its last attempt met each injected fault.
KIND_OF_FAULT = {
    "429": "rate_limited",
    "500": "server_error",
    "garbage": "invalid_output",
    "hang": "timeout",
    "fail_always": "server_error",
}

_MARK = re.compile(r"\[sample (s\d{4})\]")


def make_samples(count: int) -> list[Sample]:
    """Agent conversations whose prompts each name their sample (``[sample s0042]``)."""
    made = []
    for index in range(count):
        sample_id = f"s{index:04d}"
        guests = index % 6 + 1
        call = ToolCall("book_table", {"guests": guests, "time": "19:30"}, id="c1")
        made.append(
            Sample(
                id=sample_id,
                user_input_messages=[
                    HumanMessage(f"[sample {sample_id}] Book a table for {guests} at 19:30."),
                    AIMessage("", [call]),
                    ToolMessage("booked, ref T-19", tool_call_id="c1"),
                    AIMessage("Your table is booked, reference T-19."),
                ],
                reference="The table is booked and the user gets a reference.",
            )
        )
    return made


def sample_of(record: RecordedRequest) -> str:
    found = _MARK.search(record.request.prompt)
    assert found, record.request.prompt[:200]
    return found.group(1)


def by_judge_and_sample(
    records: list[RecordedRequest],
) -> dict[tuple[str, str], list[RecordedRequest]]:
    """Server records grouped by (judge, sample), in arrival order."""
    groups: dict[tuple[str, str], list[RecordedRequest]] = defaultdict(list)
    for record in sorted(records, key=lambda r: r.request.received_at):
        groups[record.request.model, sample_of(record)].append(record)
    return groups


def verdict(request: ChatRequest) -> dict[str, object]:
    found = _MARK.search(request.prompt)
    achieved = found is not None and int(found.group(1)[1:]) % 3 != 0
    return {"goal_achieved": achieved, "reason": "scripted"}


@pytest.fixture
def fault_settings(tmp_path: Path, openai_server: FakeOpenAIServer) -> Callable[..., RagasSettings]:
    """Four judges on the test server: 3 attempts, small backoff, a short call timeout."""
    openai_server.respond(None, verdict)

    def make(call_timeout_s: float = CALL_TIMEOUT_S) -> RagasSettings:
        models = "\n".join(f"              - {{ id: {judge} }}" for judge in JUDGES)
        path = tmp_path / "application.yaml"
        path.write_text(
            f"""\
spring:
  ai:
    retry:
      max-attempts: {MAX_ATTEMPTS}
      # max-interval at least the injected Retry-After, so that it is waited for.
      backoff: {{ initial-interval: 10ms, multiplier: 2, max-interval: 300ms }}
    ragas:
      metrics.logging.enabled: false
      providers:
        timeout: {int(call_timeout_s * 1000)}ms
        output-retries: {OUTPUT_RETRIES}
        # Off: this test checks every fault's own failure kind; a run of unlucky draws
        # would otherwise open the circuit (tests/faults/test_waits.py covers it).
        circuit-breaker.failure-threshold: 0
        openai-compatible:
          - name: faulty
            base-url: {openai_server.base_url}
            api-key: ${{JUDGE_KEY}}
            max-concurrency: {CONCURRENCY}
            chat-models:
{models}
""",
            encoding="utf-8",
        )
        return load_settings(path, environ={"JUDGE_KEY": KEY})

    return make


def worst_case_s(calls: int, call_timeout_s: float) -> float:
    """The longest a run may take by its configuration: every call of every wave of calls
    (the provider admits CONCURRENCY at once) spends every attempt on a timeout followed by
    the longest wait, plus a fixed allowance for CPU (a guard against hanging, far below the
    hangs the server injects; not a benchmark)."""
    per_call = (OUTPUT_RETRIES + 1) * MAX_ATTEMPTS * (call_timeout_s + RETRY_AFTER_S)
    waves = math.ceil(calls / CONCURRENCY)
    return waves * per_call + 30.0


async def score_all(
    metric: Metric[Any], samples: list[Sample], call_timeout_s: float = CALL_TIMEOUT_S
) -> list[object]:
    """Every sample's outcome (result or exception), within the configured worst case."""
    budget = worst_case_s(len(samples) * len(JUDGES), call_timeout_s)
    assert budget < HANG_S  # finishing in time proves no hang was waited out
    async with asyncio.timeout(budget):
        return await asyncio.gather(
            *(metric.aevaluate(sample) for sample in samples), return_exceptions=True
        )


def verdict_calls(outcome: object) -> list[JudgeCall]:
    if isinstance(outcome, MetricResult):
        return outcome.steps[0].calls
    assert isinstance(outcome, AllJudgesFailedError)
    steps: list[StepRecord] = getattr(outcome, "steps")  # noqa: B009 (set by the metric)
    return steps[0].calls


@pytest.mark.asyncio
async def test_200_samples_survive_429_500_garbage_and_hangs(
    openai_server: FakeOpenAIServer, fault_settings: Callable[..., RagasSettings]
) -> None:
    openai_server.inject_faults(
        rate_429=0.10,
        retry_after=RETRY_AFTER_S,
        rate_500=0.05,
        rate_garbage=0.05,
        rate_hang=0.01,
        hang_seconds=HANG_S,
        seed=7,
    )
    samples = make_samples(200)
    async with create_container(fault_settings()) as container:
        outcomes = await score_all(container.agent_goal_accuracy(), samples)
        finished_at = time.monotonic()
    records = openai_server.requests

    # Every sample has an outcome of its own, and nothing but results or the documented
    # all-judges error escaped.
    assert len(outcomes) == len(samples)
    unexpected = [o for o in outcomes if not isinstance(o, MetricResult | AllJudgesFailedError)]
    assert unexpected == []
    results = [o for o in outcomes if isinstance(o, MetricResult)]
    assert [r.sample_id for r in results] == [
        s.id for s, o in zip(samples, outcomes, strict=True) if isinstance(o, MetricResult)
    ]
    for outcome in outcomes:
        if isinstance(outcome, AllJudgesFailedError):
            assert [f.judge_id for f in outcome.failures] == JUDGES
            assert all(f.kind in KIND_OF_FAULT.values() for f in outcome.failures)

    # Each judge either scored the sample or is excluded with its failure kind, never both.
    for result in results:
        excluded = {e.judge_id: e for e in result.exclusions}
        assert set(result.model_scores) | set(excluded) == set(JUDGES)
        assert not set(result.model_scores) & set(excluded)
        for exclusion in excluded.values():
            assert exclusion.step == STEP
            assert exclusion.kind in KIND_OF_FAULT.values(), exclusion
            assert exclusion.message
        assert result.score == pytest.approx(
            sum(result.model_scores.values()) / len(result.model_scores)
        )

    # The faults really happened, at about the injected rates.
    faults = Counter(record.fault for record in records)
    assert faults["429"] > 0 and faults["500"] > 0 and faults["garbage"] > 0
    assert faults["hang"] > 0

    groups = by_judge_and_sample(records)
    assert len(groups) == len(samples) * len(JUDGES)
    for outcome, sample in zip(outcomes, samples, strict=True):
        for call in verdict_calls(outcome):
            seen = groups[call.judge_id, sample.id]
            # The server saw no attempt the executor did not record: nothing was sent behind
            # its back, no sample was judged again once a judge had answered. (It may have seen
            # fewer: on a loaded 2-core machine the client can give up on an attempt before the
            # server's thread has read it.)
            assert 1 <= len(seen) <= call.attempts <= MAX_ATTEMPTS * (OUTPUT_RETRIES + 1)
            last = seen[-1]
            if call.ok:
                assert last.fault is None and last.status == 200
                assert call.raw_text == call.raw_attempts[-1]
            else:
                # A judge that failed failed by what its last attempt met, or gave up on it
                # first (a 1 s timeout can still expire on a busy 2-core machine).
                expected = KIND_OF_FAULT.get(str(last.fault), "timeout")
                assert call.error_kind in (expected, "timeout"), (call, last)
            # Every retry after a 429 waited at least Retry-After (the server's clock).
            for before, after in itertools.pairwise(seen):
                if before.fault == "429":
                    assert before.answered_at is not None
                    waited = after.request.received_at - before.answered_at
                    assert waited >= RETRY_AFTER_S - 0.005, (call.judge_id, sample.id, waited)

    # Hung requests were given up on: the run ended while the server still held them.
    hung = [record for record in records if record.fault == "hang"]
    assert all(record.answered_at is None for record in hung)
    assert all(record.request.received_at + HANG_S > finished_at for record in hung)


def test_a_judge_that_is_down_is_excluded_with_its_reason_on_every_sample(
    openai_server: FakeOpenAIServer, fault_settings: Callable[..., RagasSettings]
) -> None:
    openai_server.fail_always("judge-c", Reply.error(503, message="upstream is down"))
    samples = make_samples(40)
    with create_container(fault_settings(call_timeout_s=5.0)) as container:
        metric = container.agent_goal_accuracy()
        results = [metric.evaluate(sample) for sample in samples]
    for result in results:
        assert list(result.model_scores) == ["judge-a", "judge-b", "judge-d"]
        assert [(e.judge_id, e.step, e.kind) for e in result.exclusions] == [
            ("judge-c", STEP, "server_error")
        ]
        assert "503" in result.exclusions[0].message
        assert "upstream is down" in result.exclusions[0].message
        assert result.score is not None
    assert openai_server.count("judge-c") == len(samples) * MAX_ATTEMPTS
    assert openai_server.count("judge-a") == len(samples)


@pytest.mark.asyncio
async def test_all_judges_down_gives_every_sample_its_all_judges_failed_error(
    openai_server: FakeOpenAIServer, fault_settings: Callable[..., RagasSettings]
) -> None:
    openai_server.fail_always(None, Reply.error(500))
    samples = make_samples(40)
    async with create_container(fault_settings(call_timeout_s=5.0)) as container:
        outcomes = await score_all(container.agent_goal_accuracy(), samples, 5.0)
    assert len(outcomes) == len(samples)
    for outcome in outcomes:
        assert isinstance(outcome, AllJudgesFailedError)
        assert outcome.step == STEP
        assert [(f.judge_id, f.kind) for f in outcome.failures] == [
            (judge, "server_error") for judge in JUDGES
        ]
    groups = by_judge_and_sample(openai_server.requests)
    assert {len(seen) for seen in groups.values()} == {MAX_ATTEMPTS}
    assert len(groups) == len(samples) * len(JUDGES)
