"""Hedged requests: a copy of a call still unanswered after a delay; the first answer wins.

Off by default. Asserted through the test server's request counts and the call's tallies.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from pydantic import BaseModel, SecretStr

from ragas_boot.chat import OpenAICompatibleJudge, OpenAICompatibleSpec, ProviderLimits
from ragas_boot.config.settings import PriceSettings
from ragas_boot.execution import MultiModelExecutor
from ragas_boot.testing import Reply


class Verdict(BaseModel):
    verdict: int


@pytest.fixture
def make_executor(openai_server, judge_transport):
    made: list[MultiModelExecutor] = []

    def make(**limits: object) -> MultiModelExecutor:
        judge = OpenAICompatibleJudge(
            spec=OpenAICompatibleSpec(
                id="judge-a",
                model="judge-a",
                provider="p",
                base_url=openai_server.base_url,
                api_key=SecretStr("k"),
                transport=judge_transport,
                limits=ProviderLimits(provider="p", **limits),  # type: ignore[arg-type]
                price=PriceSettings(input_per_million=1.0, output_per_million=2.0),
            )
        )
        made.append(MultiModelExecutor(judges=[judge], output_retries=0))
        return made[-1]

    yield make
    for executor in made:
        executor.close()


def step(executor: MultiModelExecutor):
    record = executor.portal.call(executor.run_step("Judge", executor.judges, "q", Verdict))
    return record.calls[0]


def test_without_hedging_a_slow_call_is_waited_for(make_executor, openai_server):
    openai_server.script("judge-a", Reply.hang(0.5), {"verdict": 1})

    call = step(make_executor())

    assert call.ok and call.attempts == 1
    assert openai_server.count() == 1  # off by default: a copy costs money


def test_a_hung_call_gets_a_copy_and_the_first_answer_wins(make_executor, openai_server):
    openai_server.script("judge-a", Reply.hang(30), {"verdict": 1}, {"verdict": 1})

    call = step(make_executor(hedge=True, hedge_after=timedelta(milliseconds=50)))

    assert call.ok and call.value == Verdict(verdict=1)  # a copy's answer, not the hang's
    # One copy, or two if the first was not back before the next delay passed.
    assert call.attempts in (2, 3) and openai_server.count() == call.attempts
    # Both copies are paid for: the winner's usage, and the cancelled copy's prompt (its
    # provider got it; it reports no usage, so its tokens are estimated).
    assert call.billed_usage.input_tokens > call.usage.input_tokens
    assert call.cost is not None and call.cost > call.usage.cost(
        PriceSettings(input_per_million=1.0, output_per_million=2.0)
    )


def test_a_copy_that_fails_leaves_the_original_to_answer(make_executor, openai_server):
    # Copies go after 50 and 100 ms (two at most); both fail, the original answers at 300.
    openai_server.script("judge-a", Reply.hang(0.3), Reply.error(400), Reply.error(400))

    call = step(make_executor(hedge=True, hedge_after=timedelta(milliseconds=50)))

    assert call.ok and call.attempts == 3 and openai_server.count() == 3


def test_the_p95_delay_waits_for_20_answers_then_hedges_a_hang(make_executor, openai_server):
    openai_server.respond("judge-a", {"verdict": 1})
    executor = make_executor(hedge=True)  # no delay: the provider's observed p95

    for _ in range(20):
        assert step(executor).attempts == 1
    assert openai_server.count() == 20
    openai_server.script("judge-a", Reply.hang(30))

    call = step(executor)

    assert call.ok and call.attempts in (2, 3)
    # The hung original and at least one copy reached the server; a second copy started as
    # the first answered may be cancelled before it is sent (counted as an attempt all the same).
    assert 2 <= openai_server.count() - 20 <= call.attempts


def test_hedging_in_yaml_is_off_unless_asked_and_a_provider_may_set_its_own(tmp_path):
    from ragas_boot.chat.factory.providers import provider_limits
    from ragas_boot.config import load_settings

    path = tmp_path / "application.yaml"
    path.write_text(
        """\
spring.ai.ragas.providers:
  hedging: { delay: 2s }
  openai-compatible:
    - { name: plain, base-url: "http://127.0.0.1:9", api-key: k, chat-models: [{ id: a }] }
    - name: hedged
      base-url: http://127.0.0.1:9
      api-key: k
      hedging: { enabled: true }
      chat-models: [{ id: b }]
""",
        encoding="utf-8",
    )
    settings = load_settings(path, environ={})
    off, on = (provider_limits(settings.providers, p) for p in settings.providers.openai_compatible)

    assert not off.hedge
    assert on.hedge and on.hedge_after == timedelta(seconds=2)


def test_a_call_that_hung_before_the_p95_was_known_is_hedged_once_it_is(
    openai_server, judge_transport
):
    # 21 judges of one provider at once: "slow" hangs; the others' 20 answers make the p95
    # known while it waits, and its copy goes then (not after its 30 s hang).
    openai_server.respond(None, {"verdict": 1})
    openai_server.script("slow", Reply.hang(30), {"verdict": 1})
    limits = ProviderLimits(provider="p", hedge=True)
    judges = [
        OpenAICompatibleJudge(
            spec=OpenAICompatibleSpec(
                id=name,
                model=name,
                provider="p",
                base_url=openai_server.base_url,
                api_key=SecretStr("k"),
                transport=judge_transport,
                limits=limits,
            )
        )
        for name in ["slow", *(f"fast-{index}" for index in range(20))]
    ]
    executor = MultiModelExecutor(judges=judges, output_retries=0)
    try:
        record = executor.portal.call(executor.run_step("Judge", executor.judges, "q", Verdict))
    finally:
        executor.close()

    assert all(call.ok for call in record.calls)
    slow = record.calls[0]
    assert slow.attempts in (2, 3) and slow.value == Verdict(verdict=1)
    assert openai_server.count("slow") == slow.attempts
    assert openai_server.count() == 20 + slow.attempts
