"""The executor against the local server: fan-out, order, retry, limits, failures as data."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from pydantic import BaseModel, SecretStr

from ragas_boot.chat import OpenAICompatibleJudge, OpenAICompatibleSpec, ProviderLimits
from ragas_boot.config.settings import BackoffSettings, RateLimitStrategy, RetrySettings
from ragas_boot.errors import JudgeNotFoundError
from ragas_boot.execution import MultiModelExecutor
from ragas_boot.testing import Reply

SECRET = "sk-exec-secret-5521"


class Verdict(BaseModel):
    verdict: int


FAST = RetrySettings(
    max_attempts=4,
    backoff=BackoffSettings(
        initial_interval=timedelta(milliseconds=10),
        multiplier=2,
        max_interval=timedelta(milliseconds=40),
    ),
)


def judges(server, transport, models, *, provider="p", alias=None, **limits):
    return [
        OpenAICompatibleJudge(
            spec=OpenAICompatibleSpec(
                id=model,
                model=model,
                provider=provider,
                base_url=server.base_url,
                api_key=SecretStr(SECRET),
                transport=transport,
                limits=ProviderLimits(provider=provider, **limits),
            )
        )
        for model in models
    ]


@pytest.fixture
def executor_factory():
    made = []

    def make(judge_list, retry=FAST, output_retries=1):
        made.append(
            MultiModelExecutor(judges=judge_list, retry=retry, output_retries=output_retries)
        )
        return made[-1]

    yield make
    for executor in made:
        executor.close()


MODELS = ["judge-a", "judge-b", "judge-c", "judge-d"]


def test_four_judges_are_asked_at_once_and_answer_in_judge_order(
    openai_server, executor_factory, judge_transport
):
    openai_server.set_latency(None, 0.2)
    for index, model in enumerate(MODELS):
        openai_server.script(model, {"verdict": index})
    executor = executor_factory(judges(openai_server, judge_transport, MODELS))
    # The slowest judge is first in order: results still come back in judge order.
    openai_server.set_latency("judge-a", 0.3)
    step = executor.portal.call(executor.run_step("Judge", executor.judges, "q", Verdict))
    assert [call.judge_id for call in step.calls] == MODELS
    assert [call.value.verdict for call in step.calls] == [0, 1, 2, 3]
    assert openai_server.peak_in_flight >= 4
    assert all(call.ok and call.attempts == 1 for call in step.calls)
    assert all(call.latency_s >= 0.2 for call in step.calls)


@pytest.mark.asyncio
async def test_run_step_can_be_awaited_from_any_loop(
    openai_server, executor_factory, judge_transport
):
    executor = executor_factory(judges(openai_server, judge_transport, ["judge-a"]))
    step = await executor.run_step("Judge", executor.judges, "q", Verdict)
    assert step.calls[0].ok


def test_each_judge_can_get_its_own_prompt(openai_server, executor_factory, judge_transport):
    executor = executor_factory(judges(openai_server, judge_transport, ["judge-a", "judge-b"]))
    executor.portal.call(
        executor.run_step("Judge", executor.judges, lambda judge: f"for {judge.id}", Verdict)
    )
    assert openai_server.requests_for("judge-b")[0].request.prompt.startswith("for judge-b")


def test_retry_honours_retry_after_measured_on_the_server(
    openai_server, executor_factory, judge_transport
):
    openai_server.script("judge-a", Reply.error(429, retry_after=0.3), {"verdict": 7})
    patient = FAST.model_copy(
        update={"backoff": FAST.backoff.model_copy(update={"max_interval": timedelta(seconds=1)})}
    )
    executor = executor_factory(judges(openai_server, judge_transport, ["judge-a"]), retry=patient)
    step = executor.portal.call(executor.run_step("Judge", executor.judges, "q", Verdict))
    call = step.calls[0]
    assert call.ok and call.value.verdict == 7 and call.attempts == 2
    first, second = openai_server.requests_for("judge-a")
    assert first.answered_at is not None
    assert second.request.received_at - first.answered_at >= 0.3
    # The Retry-After sleep is not the judge's latency: the step lasted both attempts and
    # the sleep, the latency only the attempts.
    assert call.latency_s + 0.3 <= step.duration_s


def test_server_errors_are_retried_then_the_judge_is_excluded(
    openai_server, executor_factory, judge_transport
):
    openai_server.fail_always("judge-b", Reply.error(500))
    executor = executor_factory(judges(openai_server, judge_transport, ["judge-a", "judge-b"]))
    step = executor.portal.call(executor.run_step("Judge", executor.judges, "q", Verdict))
    ok, failed = step.calls
    assert ok.ok
    assert not failed.ok
    assert failed.error_kind == "server_error"
    assert failed.attempts == FAST.max_attempts
    assert openai_server.count("judge-b") == FAST.max_attempts
    assert "500" in failed.error_message


def test_auth_errors_are_not_retried(openai_server, executor_factory, judge_transport):
    openai_server.fail_always("judge-a", Reply.error(401))
    executor = executor_factory(judges(openai_server, judge_transport, ["judge-a"]))
    step = executor.portal.call(executor.run_step("Judge", executor.judges, "q", Verdict))
    assert step.calls[0].error_kind == "auth"
    assert openai_server.count("judge-a") == 1


def test_invalid_output_is_asked_again_and_every_raw_answer_kept(
    openai_server, executor_factory, judge_transport
):
    openai_server.script("judge-a", Reply.text("no json here"), {"verdict": 1})
    openai_server.script("judge-b", Reply.text("nope"), Reply.text('{"verdict": "x"}'))
    executor = executor_factory(
        judges(openai_server, judge_transport, ["judge-a", "judge-b"]), output_retries=1
    )
    step = executor.portal.call(executor.run_step("Judge", executor.judges, "q", Verdict))
    recovered, failed = step.calls
    assert recovered.ok and recovered.raw_attempts == ["no json here", '{"verdict": 1}']
    assert not failed.ok and failed.error_kind == "invalid_output"
    assert failed.raw_attempts == ["nope", '{"verdict": "x"}']
    assert failed.raw_text == '{"verdict": "x"}'


def test_a_hang_beyond_the_call_timeout_is_retried(
    openai_server, executor_factory, judge_transport
):
    openai_server.script("judge-a", Reply.hang(3), {"verdict": 2})
    executor = executor_factory(
        judges(
            openai_server, judge_transport, ["judge-a"], call_timeout=timedelta(milliseconds=300)
        )
    )
    step = executor.portal.call(executor.run_step("Judge", executor.judges, "q", Verdict))
    assert step.calls[0].ok and step.calls[0].attempts == 2


def test_rate_limit_wait_spaces_the_calls_and_reports_the_wait(
    openai_server, executor_factory, judge_transport
):
    executor = executor_factory(judges(openai_server, judge_transport, MODELS, rps=2))
    step = executor.portal.call(executor.run_step("Judge", executor.judges, "q", Verdict))
    assert all(call.ok for call in step.calls)
    times = sorted(r.request.received_at for r in openai_server.requests)
    assert times[-1] - times[0] >= 0.8  # 2 at once, the next two a second later
    assert max(call.wait_s for call in step.calls) >= 0.8
    # Waiting for a token is not latency: each call's latency and wait fit in the step.
    for call in step.calls:
        assert call.latency_s + call.wait_s <= step.duration_s


def test_rate_limit_reject_excludes_the_judges_over_the_limit(
    openai_server, executor_factory, judge_transport
):
    executor = executor_factory(
        judges(openai_server, judge_transport, MODELS, rps=2, strategy=RateLimitStrategy.REJECT),
        retry=RetrySettings(max_attempts=1),
    )
    step = executor.portal.call(executor.run_step("Judge", executor.judges, "q", Verdict))
    assert [call.ok for call in step.calls].count(True) == 2
    rejected = [call for call in step.calls if not call.ok]
    assert {call.error_kind for call in rejected} == {"rate_limit_rejected"}
    assert openai_server.count() == 2


def test_providers_have_separate_limits(openai_server, executor_factory, judge_transport):
    slow = judges(
        openai_server, judge_transport, ["judge-a", "judge-b"], provider="slow", max_concurrency=1
    )
    fast = judges(
        openai_server, judge_transport, ["judge-c", "judge-d"], provider="fast", max_concurrency=8
    )
    openai_server.set_latency(None, 0.2)
    executor = executor_factory(slow + fast)
    executor.portal.call(executor.run_step("Judge", executor.judges, "q", Verdict))
    assert openai_server.peak_in_flight_for("judge-a") == 1
    assert openai_server.peak_in_flight == 3  # one slow judge at a time plus both fast ones


def test_select_by_id_and_unknown_ids_fail_before_any_call(
    openai_server, executor_factory, judge_transport
):
    executor = executor_factory(judges(openai_server, judge_transport, MODELS))
    assert [j.id for j in executor.select(["judge-c", "judge-a"])] == ["judge-c", "judge-a"]
    assert executor.select([]) == executor.judges
    with pytest.raises(JudgeNotFoundError, match=r"unknown judge 'gpt-5'.*judge-a, judge-b"):
        executor.select(["gpt-5"])
    assert openai_server.count() == 0


def test_failures_never_leak_the_key_into_logs_or_records(
    openai_server, executor_factory, caplog, judge_transport
):
    caplog.set_level(logging.DEBUG)
    openai_server.fail_always("judge-a", Reply.error(401, message=f"invalid key {SECRET}"))
    executor = executor_factory(judges(openai_server, judge_transport, ["judge-a"]))
    step = executor.portal.call(executor.run_step("Judge", executor.judges, "q", Verdict))
    assert SECRET not in caplog.text
    assert SECRET not in step.model_dump_json()
    assert SECRET not in repr(executor)
