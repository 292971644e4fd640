"""Exact accounting over real HTTP: every response the server billed is counted, and priced."""

from __future__ import annotations

import textwrap
from datetime import timedelta

import pytest
from pydantic import BaseModel, SecretStr

from ragas_boot import ConfigError, Sample, create_container, load_settings
from ragas_boot.chat import OpenAICompatibleJudge, OpenAICompatibleSpec, ProviderLimits
from ragas_boot.config.settings import BackoffSettings, PriceSettings, RetrySettings, Transport
from ragas_boot.execution import MultiModelExecutor
from ragas_boot.runs import evaluate_dataset
from ragas_boot.samples import AIMessage, HumanMessage
from ragas_boot.testing import Reply, asks_for

SECRET_KEY = "sk-accounting-1234"
FAST_RETRY = """
spring.ai.retry:
  max-attempts: 3
  backoff: {initial-interval: 10ms, multiplier: 2, max-interval: 40ms}
"""

QUIET = "spring.ai.ragas.metrics.logging.enabled: false\n"
#: $ per million tokens: 1 input token costs 1e-6, 1 output token 2e-6.
PRICE = "{input-per-million: 1.0, output-per-million: 2.0}"


class Verdict(BaseModel):
    verdict: int


def _served(server) -> int:
    """Tokens the server billed: the usage blocks it sent, over every request."""
    return sum(record.total_tokens for record in server.requests)


def _usage(prompt: int, completion: int) -> dict[str, int]:
    return {"prompt_tokens": prompt, "completion_tokens": completion}


def _judge(
    server, model: str, price: PriceSettings | None = None, transport: str = "direct"
) -> OpenAICompatibleJudge:
    return OpenAICompatibleJudge(
        spec=OpenAICompatibleSpec(
            id=model,
            model=model,
            provider="p",
            base_url=server.base_url,
            api_key=SecretStr(SECRET_KEY),
            limits=ProviderLimits(provider="p"),
            price=price,
            transport=Transport(transport),
        )
    )


FAST = RetrySettings(
    max_attempts=3,
    backoff=BackoffSettings(
        initial_interval=timedelta(milliseconds=10), max_interval=timedelta(milliseconds=20)
    ),
)


@pytest.fixture(params=["direct", "langchain"])
def executor(openai_server, request):
    """An executor whose judge runs on each transport: both bill alike."""
    price = PriceSettings(input_per_million=1, output_per_million=2)
    made = MultiModelExecutor(
        judges=[_judge(openai_server, "judge-a", price, request.param)],
        retry=FAST,
        output_retries=1,
    )
    yield made
    made.close()


def test_a_re_asked_answer_bills_both_responses_110_answered_260_billed(executor, openai_server):
    openai_server.script(
        "judge-a",
        Reply.text("I think the verdict is one.", usage=_usage(100, 50)),
        Reply.json({"verdict": 1}, usage=_usage(100, 10)),
    )
    step = executor.portal.call(executor.run_step("Judge", executor.judges, "Judge this.", Verdict))
    (call,) = step.calls
    assert call.ok and call.value.verdict == 1
    assert call.usage.total_tokens == 110  # what today's reports showed
    assert call.billed_usage.total_tokens == 260 == _served(openai_server)
    assert call.billed_usage.input_tokens == 200 and call.billed_usage.output_tokens == 60
    assert call.cost == pytest.approx((200 * 1 + 60 * 2) / 1e6)


def test_a_500_with_usage_and_a_failed_call_are_billed(executor, openai_server):
    openai_server.script(
        "judge-a",
        Reply.error(500, usage=_usage(70, 5)),  # retried
        Reply.error(503),  # no usage: nothing to bill
        Reply.text("nope", usage=_usage(100, 1)),  # invalid: re-asked
        Reply.text("still nope", usage=_usage(100, 2)),  # invalid: the call fails
    )
    step = executor.portal.call(executor.run_step("Judge", executor.judges, "Judge this.", Verdict))
    (call,) = step.calls
    assert not call.ok and call.error_kind == "invalid_output"
    assert call.usage.total_tokens == 0
    assert call.billed_usage.total_tokens == 75 + 101 + 102 == _served(openai_server)
    # the 500 and the 503 were retried, the third attempt answered (invalid), one re-ask
    assert openai_server.count() == 4


SAMPLES = [
    Sample(
        id=f"s{index}",
        user_input_messages=[HumanMessage(f"Book flight {index}"), AIMessage("Booked.")],
        reference="The flight is booked",
    )
    for index in range(4)
]


def _yaml(base_url: str, models: dict[str, str | None], extra: str = "") -> str:
    lines = [
        FAST_RETRY,
        QUIET,
        "spring.ai.ragas.providers:",
        "  openai-compatible:",
        "    - name: p",
        f"      base-url: {base_url}",
        "      api-key: ${JUDGE_KEY}",
        "      chat-models:",
    ]
    for model, price in models.items():
        lines.append(f"        - id: {model}")
        if price:
            lines.append(f"          price: {price}")
    return "\n".join(lines) + "\n" + textwrap.dedent(extra)


@pytest.fixture
def make_run_container(tmp_path, openai_server):
    made = []

    def make(models: dict[str, str | None], extra: str = ""):
        path = tmp_path / "application.yaml"
        path.write_text(_yaml(openai_server.base_url, models, extra), encoding="utf-8")
        container = create_container(load_settings(path, environ={"JUDGE_KEY": SECRET_KEY}))
        made.append(container)
        return container

    yield make
    for container in made:
        container.close()


def test_a_run_whose_judges_all_fail_still_reports_what_was_billed(
    make_run_container, openai_server
):
    openai_server.respond(None, Reply.text("no JSON here", usage=_usage(40, 3)))
    container = make_run_container({"judge-a": PRICE, "judge-b": PRICE, "judge-c": None})
    run = evaluate_dataset(SAMPLES, [container.agent_goal_accuracy()], concurrency=2)
    assert run.totals.failed == 4
    # 4 samples × 3 judges × 2 asks (one re-ask), each billed 43 tokens
    assert openai_server.count() == 24
    assert run.totals.usage.total_tokens == 0
    assert run.totals.billed_usage.total_tokens == 24 * 43 == _served(openai_server)
    judge_c = run.judge_summary("judge-c")
    assert judge_c.billed_usage.total_tokens == 8 * 43 and judge_c.cost is None
    judge_a = run.judge_summary("judge-a", "agent_goal_accuracy")
    assert judge_a.cost == pytest.approx(8 * (40 * 1 + 3 * 2) / 1e6)
    assert run.totals.cost == pytest.approx(2 * judge_a.cost)
    assert run.totals.unpriced_tokens == 8 * 43
    metric = run.metric_summary("agent_goal_accuracy")
    assert metric.billed_usage == run.totals.billed_usage and metric.cost == run.totals.cost


def test_answered_and_billed_tokens_per_judge_metric_and_run(make_run_container, openai_server):
    # judge-a's first answer of each sample is invalid and re-asked.
    seen: set[str] = set()

    def answer(request):
        first = request.model == "judge-a" and request.prompt not in seen
        seen.add(request.prompt) if request.model == "judge-a" else None
        if first:
            return Reply.text("hmm", usage=_usage(100, 50))
        return Reply.json({"goal_achieved": True, "reason": "ok"}, usage=_usage(100, 10))

    openai_server.respond(None, answer)
    container = make_run_container({"judge-a": PRICE, "judge-b": PRICE})
    run = evaluate_dataset(SAMPLES, [container.agent_goal_accuracy()])
    judge_a = run.judge_summary("judge-a", "agent_goal_accuracy")
    judge_b = run.judge_summary("judge-b", "agent_goal_accuracy")
    assert judge_a.usage.total_tokens == 4 * 110
    assert judge_a.billed_usage.total_tokens == 4 * 260
    assert judge_b.usage == judge_b.billed_usage and judge_b.usage.total_tokens == 4 * 110
    assert run.totals.billed_usage.total_tokens == 4 * 370 == _served(openai_server)
    result = run.samples[0].evaluation("agent_goal_accuracy").result
    assert result.usage.total_tokens == 220 and result.billed_usage.total_tokens == 370
    assert result.cost == pytest.approx((300 * 1 + 70 * 2) / 1e6)
    assert run.totals.cost == pytest.approx(4 * result.cost)
    assert run.totals.unpriced_tokens == 0


def test_a_spend_cap_stops_sending_and_marks_the_rest_budget(make_run_container, openai_server):
    openai_server.when(
        asks_for("goal_achieved"),
        Reply.json({"goal_achieved": True, "reason": "ok"}, usage=_usage(400_000, 50_000)),
    )
    # each call costs 0.4 + 0.1 = $0.5; one evaluation (2 judges) $1.0
    container = make_run_container({"judge-a": PRICE, "judge-b": PRICE})
    samples = [*SAMPLES, *(s.model_copy(update={"id": f"t{i}"}) for i, s in enumerate(SAMPLES))]
    run = evaluate_dataset(samples, [container.agent_goal_accuracy()], concurrency=1, max_cost=1.5)
    statuses = [run_.evaluations[0].status for run_ in run.samples]
    # after 2 evaluations $2.0 was spent: nothing more was sent
    assert statuses == ["scored", "scored"] + ["budget"] * 6
    assert openai_server.count() == 4
    assert run.stopped == "budget" and run.max_cost == 1.5
    assert run.totals.cost == pytest.approx(2.0) and run.totals.budget == 6
    error = run.samples[2].evaluations[0].error
    assert error.kind == "budget" and "1.5" in error.message and "2 spent" in error.message
    assert run.metric_summary("agent_goal_accuracy").budget == 6


def test_a_cap_reached_mid_evaluation_refuses_the_remaining_calls(
    make_run_container, openai_server
):
    openai_server.when(
        asks_for("goal_achieved"),
        Reply.json({"goal_achieved": True, "reason": "ok"}, usage=_usage(400_000, 50_000)),
    )
    container = make_run_container(
        {"judge-a": PRICE, "judge-b": PRICE},
        extra="spring.ai.ragas.providers.max-concurrency: 1\n",
    )
    run = evaluate_dataset(SAMPLES, [container.agent_goal_accuracy()], concurrency=1, max_cost=0.4)
    first = run.samples[0].evaluations[0]
    assert first.status == "budget"
    assert openai_server.count() == 1  # judge-b's call was refused before it was sent
    assert [f.kind for f in first.error.failures] == ["budget"]
    assert all(r.evaluations[0].status == "budget" for r in run.samples)


def test_prices_are_validated_naming_the_key(tmp_path, openai_server):
    path = tmp_path / "application.yaml"
    path.write_text(
        _yaml(
            openai_server.base_url, {"judge-a": "{input-per-million: -1, output-per-million: 2}"}
        ),
        encoding="utf-8",
    )
    with pytest.raises(ConfigError, match=r"price\.input-per-million"):
        load_settings(path, environ={"JUDGE_KEY": SECRET_KEY})
    path.write_text(
        _yaml(openai_server.base_url, {"judge-a": "{input-per-million: 1}"}), encoding="utf-8"
    )
    with pytest.raises(ConfigError, match=r"output-per-million"):
        load_settings(path, environ={"JUDGE_KEY": SECRET_KEY})


def test_estimate_run_sends_nothing_and_takes_a_cache_lookup(make_run_container, openai_server):
    from ragas_boot.runs.estimate import estimate_run

    container = make_run_container({"judge-a": PRICE, "judge-b": PRICE, "judge-c": None})
    asked: list[str] = []

    def cached(judge, prompt, output_model):
        asked.append(prompt)
        return judge.id == "judge-a"

    estimate = estimate_run(SAMPLES, [container.agent_goal_accuracy()], cached=cached)
    assert openai_server.count() == 0
    rows = {row.judge_id: row for row in estimate.rows}
    assert [rows[j].calls for j in ("judge-a", "judge-b", "judge-c")] == [4, 4, 4]
    assert rows["judge-a"].cached_calls == 4 and rows["judge-a"].input_tokens == 0
    assert rows["judge-a"].cost_max == 0.0
    # The lookup gets the step's prompt, what the response cache is keyed on (not the
    # output-format block); the tokens are estimated from what would be sent, block included.
    assert all("Book flight" in prompt and "goal_achieved" not in prompt for prompt in asked)
    prompts_only = sum(-(-len(prompt) // 4) for prompt in asked[1::3])  # judge-b's prompts
    assert rows["judge-b"].input_tokens > prompts_only
    assert rows["judge-b"].cost_min == pytest.approx(rows["judge-b"].input_tokens / 1e6)
    assert rows["judge-c"].cost_min is None and estimate.unpriced_judges == ["judge-c"]
    assert estimate.totals.calls == 12 and estimate.totals.cached_calls == 4
    assert "characters / 4" in estimate.token_method


def test_calls_in_flight_cannot_run_past_the_cap_by_more_than_one_call(
    make_run_container, openai_server
):
    # $3.78 a call at worst and in fact: a full max-tokens (1000) answer at $3,780 per million
    # output tokens (prompts are free). 4 judges, 4 slots, 4 evaluations at once: unreserved,
    # 16 calls went out before the first answer came back ($60.48 against a $0.5 cap).
    price = "{input-per-million: 0.0, output-per-million: 3780.0}"
    openai_server.when(
        asks_for("goal_achieved"),
        Reply.json({"goal_achieved": True, "reason": "ok"}, usage=_usage(100, 1000), delay=0.2),
    )
    container = make_run_container(
        {name: price for name in ("judge-a", "judge-b", "judge-c", "judge-d")},
        extra="spring.ai.ragas.providers.max-concurrency: 4\n",
    )
    run = evaluate_dataset(SAMPLES, [container.agent_goal_accuracy()], concurrency=4, max_cost=0.5)

    worst = 1000 * 3780.0 / 1e6
    assert openai_server.count() == 1  # the first call held $3.78 of the cap until it ended
    assert run.totals.cost == pytest.approx(worst)
    assert run.totals.cost <= 0.5 + worst
    assert run.stopped == "budget"


def test_the_estimate_shows_the_largest_prompt_and_the_calls_over_the_bound(
    make_run_container, openai_server
):
    from rich.console import Console

    from ragas_boot.reporting.estimate import estimate_renderables
    from ragas_boot.runs.estimate import estimate_run

    container = make_run_container(
        {"judge-a": PRICE, "judge-b": None},
        extra="spring.ai.ragas.providers.max-prompt-tokens: 5000\n",
    )
    big = SAMPLES[0].model_copy(
        update={"id": "big", "user_input_messages": [HumanMessage("z" * 40_000), AIMessage("ok")]}
    )
    estimate = estimate_run([*SAMPLES, big], [container.agent_goal_accuracy()])

    assert openai_server.count() == 0
    assert 10_000 < estimate.totals.largest_prompt_tokens < 11_000  # 40,000 characters / 4
    assert estimate.totals.over_limit_calls == 2  # the big sample, once per judge
    console = Console(width=200, record=True)
    for renderable in estimate_renderables(estimate):
        console.print(renderable)
    text = console.export_text()
    assert "Largest prompt: 10," in text
    assert "Over max-prompt-tokens: 2 calls would fail unsent" in text


def test_estimate_run_resolves_metrics_named_by_bean_name(make_run_container, openai_server):
    from ragas_boot.runs.estimate import estimate_run

    container = make_run_container({"judge-a": PRICE, "judge-b": PRICE, "judge-c": None})
    by_name = estimate_run(SAMPLES, ["agent_goal_accuracy"], container=container)
    by_bean = estimate_run(SAMPLES, [container.agent_goal_accuracy()])

    assert openai_server.count() == 0
    assert by_name.totals.calls == by_bean.totals.calls == 12
    assert by_name.rows == by_bean.rows
