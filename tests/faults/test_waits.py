"""Bounded waits: long Retry-After, a provider that is down, the rate limit, retry defaults.

Bounds are asserted through request counts, orderings and the test server's timestamps.
"""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta

import pytest
from pydantic import BaseModel, SecretStr
from tenacity import RetryCallState

from ragas_boot.chat import OpenAICompatibleJudge, OpenAICompatibleSpec, ProviderLimits
from ragas_boot.config.settings import BackoffSettings, RetrySettings
from ragas_boot.execution import MultiModelExecutor
from ragas_boot.execution.retry import RetryPolicy
from ragas_boot.testing import FakeOpenAIServer, Reply

SECRET = "sk-waits-secret-7781"
FAST = RetrySettings(
    max_attempts=4,
    backoff=BackoffSettings(
        initial_interval=timedelta(milliseconds=10),
        multiplier=2,
        max_interval=timedelta(milliseconds=200),
    ),
)


class Verdict(BaseModel):
    verdict: int


def judges(server: FakeOpenAIServer, transport: str, models: list[str], **limits: object):
    return [
        OpenAICompatibleJudge(
            spec=OpenAICompatibleSpec(
                id=model,
                model=model,
                provider="p",
                base_url=server.base_url,
                api_key=SecretStr(SECRET),
                transport=transport,
                limits=ProviderLimits(provider="p", **limits),  # type: ignore[arg-type]
            )
        )
        for model in models
    ]


@pytest.fixture
def executor_factory():
    made: list[MultiModelExecutor] = []

    def make(judge_list, retry=FAST):
        made.append(MultiModelExecutor(judges=judge_list, retry=retry, output_retries=0))
        return made[-1]

    yield make
    for executor in made:
        executor.close()


def step(executor: MultiModelExecutor):
    return executor.portal.call(executor.run_step("Judge", executor.judges, "q", Verdict))


# --------------------------------------------------------------------------- Retry-After


@pytest.mark.parametrize("status", [429, 503])
def test_a_retry_after_above_max_interval_excludes_the_judge_at_once(
    openai_server, executor_factory, status, judge_transport
):
    openai_server.fail_always("judge-a", Reply.error(status, retry_after=10000))
    openai_server.respond("judge-b", {"verdict": 1})
    executor = executor_factory(judges(openai_server, judge_transport, ["judge-a", "judge-b"]))

    waiting, answered = step(executor).calls

    assert answered.ok
    assert not waiting.ok and waiting.attempts == 1
    assert openai_server.count("judge-a") == 1  # not asked again
    assert "asked to retry after 10000s, more than backoff.max-interval 0.2s" in (
        waiting.error_message or ""
    )


def test_a_retry_after_within_max_interval_is_waited_for_on_the_servers_clock(
    openai_server, executor_factory, judge_transport
):
    openai_server.script("judge-a", Reply.error(429, retry_after=0.2), {"verdict": 3})
    executor = executor_factory(judges(openai_server, judge_transport, ["judge-a"]))

    [call] = step(executor).calls

    assert call.ok and call.attempts == 2
    first, second = openai_server.requests_for("judge-a")
    assert first.answered_at is not None
    assert second.request.received_at - first.answered_at >= 0.2


def test_an_answer_trickled_past_the_call_timeout_times_out(
    openai_server, executor_factory, judge_transport
):
    # A piece every 0.1 s: well within any read timeout; only a deadline on the whole call
    # (the provider's `timeout`) ends it.
    openai_server.respond("judge-a", Reply.trickle(60, pieces=600))
    judge_list = judges(
        openai_server, judge_transport, ["judge-a"], call_timeout=timedelta(milliseconds=500)
    )
    executor = executor_factory(judge_list, retry=RetrySettings(max_attempts=1))

    [call] = step(executor).calls

    assert (call.ok, call.error_kind, call.attempts) == (False, "timeout", 1)
    (record,) = openai_server.requests_for("judge-a")
    assert record.status is None  # the client went away mid-body


# --------------------------------------------------------------------------- circuit breaker


@pytest.mark.parametrize("fault", [Reply.error(500), Reply.drop()], ids=["500", "dropped"])
def test_a_provider_that_is_down_fails_fast_after_the_threshold(
    openai_server, executor_factory, fault, judge_transport
):
    openai_server.fail_always(None, fault)
    models = ["judge-a", "judge-b"]
    executor = executor_factory(
        judges(
            openai_server, judge_transport, models, failure_threshold=3, open_for=timedelta(hours=1)
        )
    )

    first = step(executor)
    sent = openai_server.count()
    later = [step(executor) for _ in range(20)]

    # Each judge's circuit opened after its third attempt in a row.
    assert sent == 3 * len(models)
    assert openai_server.count() == sent  # nothing more was sent
    assert all(not call.ok for call in first.calls)
    for record in later:
        for call in record.calls:
            assert call.error_kind == "unavailable"
            assert call.attempts == 0
            assert f"{call.judge_id} at provider p is failing (" in (call.error_message or "")


def test_the_circuit_closes_when_the_probe_is_answered(
    openai_server, executor_factory, judge_transport
):
    rule = openai_server.when(lambda request: True, Reply.error(500))
    executor = executor_factory(
        judges(
            openai_server,
            judge_transport,
            ["judge-a"],
            failure_threshold=2,
            open_for=timedelta(milliseconds=300),
        )
    )
    step(executor)
    assert step(executor).calls[0].error_kind == "unavailable"
    opened = openai_server.count()

    rule.remove()
    openai_server.respond(None, {"verdict": 5})
    time.sleep(0.35)  # past open-for (a lower bound, not a measurement)

    async def three_at_once():
        return await asyncio.gather(
            *(executor.run_step("Judge", executor.judges, "q", Verdict) for _ in range(3))
        )

    recovered = executor.portal.call(three_at_once())

    assert [record.calls[0].value.verdict for record in recovered] == [5, 5, 5]
    probe, *others = sorted(
        openai_server.requests[opened:], key=lambda record: record.request.received_at
    )
    # One probe first; the other two calls were sent only once it was answered.
    assert probe.answered_at is not None and len(others) == 2
    assert all(other.request.received_at >= probe.answered_at for other in others)
    assert step(executor).calls[0].ok


def test_one_failing_model_does_not_shut_out_the_providers_others(
    openai_server, executor_factory, judge_transport
):
    openai_server.fail_always("judge-a", Reply.error(500))
    openai_server.respond("judge-b", {"verdict": 2})
    executor = executor_factory(
        judges(
            openai_server,
            judge_transport,
            ["judge-a", "judge-b"],
            failure_threshold=3,
            open_for=timedelta(hours=1),
        )
    )

    records = [step(executor) for _ in range(10)]

    assert all(record.calls[1].ok for record in records)
    # Three attempts of the first call opened judge-a's circuit; its fourth was not sent.
    assert records[0].calls[0].attempts == 3
    assert {record.calls[0].error_kind for record in records} == {"unavailable"}
    assert openai_server.count("judge-a") == 3
    assert openai_server.count("judge-b") == 10


def test_other_errors_do_not_open_the_circuit(openai_server, executor_factory, judge_transport):
    openai_server.fail_always(None, Reply.error(400))
    executor = executor_factory(
        judges(
            openai_server,
            judge_transport,
            ["judge-a"],
            failure_threshold=1,
            open_for=timedelta(hours=1),
        )
    )

    for _ in range(5):
        [call] = step(executor).calls
        assert call.error_kind == "http"

    assert openai_server.count() == 5


def test_a_threshold_of_zero_never_opens_the_circuit(
    openai_server, executor_factory, judge_transport
):
    openai_server.fail_always(None, Reply.error(500))
    retry = FAST.model_copy(update={"max_attempts": 2})
    executor = executor_factory(
        judges(openai_server, judge_transport, ["judge-a"], failure_threshold=0), retry=retry
    )

    for _ in range(6):
        assert step(executor).calls[0].error_kind == "server_error"

    assert openai_server.count() == 12


# --------------------------------------------------------------------------- rate limit


def test_the_server_never_sees_more_than_rps_in_the_first_second(
    openai_server, executor_factory, judge_transport
):
    openai_server.respond(None, {"verdict": 1})
    models = [f"judge-{index}" for index in range(9)]
    executor = executor_factory(judges(openai_server, judge_transport, models, rps=3))

    record = step(executor)

    assert all(call.ok for call in record.calls)
    times = sorted(r.request.received_at for r in openai_server.requests)
    assert len(times) == 9
    # A bucket that starts full let 3 go at once and 3 more within the first second.
    assert sum(1 for t in times if t < times[0] + 0.8) <= 3
    assert times[3] - times[0] >= 0.8 and times[6] - times[3] >= 0.8


def most_in_one_second(times: list[float]) -> int:
    """The most server timestamps in any one-second window [t, t + 1)."""
    times = sorted(times)
    return max(
        sum(1 for later in times[index:] if later < first + 1.0)
        for index, first in enumerate(times)
    )


def test_a_burst_that_opens_connections_cannot_share_a_second_with_the_next(
    openai_server, executor_factory, judge_transport
):
    # 120 calls at rps 40: the first 40 open connections (they land late), the next 40 reuse
    # them (they land early). Counting slots when taken let 60-80 into one server second.
    openai_server.respond(None, {"verdict": 1})
    models = [f"judge-{index}" for index in range(120)]
    executor = executor_factory(
        judges(openai_server, judge_transport, models, rps=40, max_concurrency=64)
    )

    record = step(executor)

    assert all(call.ok for call in record.calls)
    times = [r.request.received_at for r in openai_server.requests]
    assert len(times) == 120
    assert most_in_one_second(times) <= 40


def test_retries_take_a_new_place_each_and_stay_within_the_rate(
    openai_server, executor_factory, judge_transport
):
    # Every judge's first attempt gets a 500, its retry an answer: 16 requests at rps 4.
    models = [f"judge-{index}" for index in range(8)]
    for model in models:
        openai_server.script(model, Reply.error(500), {"verdict": 1})
    executor = executor_factory(judges(openai_server, judge_transport, models, rps=4))

    record = step(executor)

    assert all(call.ok and call.attempts == 2 for call in record.calls)
    times = [r.request.received_at for r in openai_server.requests]
    assert len(times) == 16
    assert most_in_one_second(times) <= 4


# --------------------------------------------------------------------------- defaults


def _waits(policy: RetryPolicy) -> list[float]:
    state = RetryCallState(retry_object=None, fn=None, args=(), kwargs={})  # type: ignore[arg-type]
    waits = []
    for attempt in range(1, policy.settings.max_attempts):
        state.attempt_number = attempt
        waits.append(policy.wait_seconds(state))
    return waits


def test_default_retry_settings_cost_seconds_not_minutes_per_call():
    policy = RetryPolicy(settings=RetrySettings())

    assert _waits(policy) == [1.0, 2.0, 4.0]  # then the judge is excluded from the call
    assert policy.max_wait_s == 30.0  # and no Retry-After above it is waited for
