"""Dataset runs whose judges send batches (``transport: batch``), through the test server's
batch API: a metric's steps go round by round (one batch per judge and round), the scores are
the synchronous run's, the cost is the batch price's, failed lines go into the next round."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import genai_prices
import pytest
from rich.console import Console

from ragas_boot import RagasContainer, create_container, load_settings
from ragas_boot.reporting import render_console, render_html, render_json, render_markdown
from ragas_boot.reporting.estimate import estimate_renderables
from ragas_boot.runs import evaluate_dataset
from ragas_boot.runs.estimate import estimate_run
from ragas_boot.samples import AIMessage, HumanMessage, Sample
from ragas_boot.testing import ChatRequest, FakeOpenAIServer, Reply

JUDGES = ("judge-a", "judge-b")
PRICE = "{input-per-million: 2.0, output-per-million: 8.0}"
COUNT = 200
NO_REFERENCE = {"agent_goal_accuracy": {"mode": "WITHOUT_REFERENCE"}}


def _config(base_url: str, transport: str, extra: str = "") -> str:
    models = "\n".join(f"        - {{id: {judge}, price: {PRICE}}}" for judge in JUDGES)
    return f"""
spring.ai.retry:
  max-attempts: 3
  backoff: {{initial-interval: 10ms, multiplier: 2, max-interval: 40ms}}
spring.ai.ragas:
  metrics.logging.enabled: false
  cache.enabled: false
  providers:
    batch: {{poll-interval: 20ms, max-poll-interval: 80ms, discount: 0.5}}
    openai-compatible:
      - name: hosted
        base-url: {base_url}
        api-key: test-key
        transport: {transport}
        chat-models:
{models}
{extra}
"""


def _index(request: ChatRequest) -> int:
    return int(re.search(r"table (\d+)", request.prompt).group(1))


def _answer(request: ChatRequest) -> dict[str, object]:
    index = _index(request)
    if request.asks_for("inferred_goal"):
        return {"inferred_goal": f"book table {index}", "reason": "asked"}
    # judge-b disagrees on every fifth table: scores of 0, 0.5 and 1
    achieved = index % 3 != 0 if request.model == "judge-a" else index % 5 != 0
    return {"goal_achieved": achieved, "reason": f"table {index}"}


def _samples(count: int) -> list[Sample]:
    return [
        Sample(
            id=f"s{index:04d}",
            user_input_messages=[
                HumanMessage(content=f"book table {index}"),
                AIMessage(content="booked"),
            ],
        )
        for index in range(count)
    ]


@pytest.fixture
def container_for(
    tmp_path: Path, openai_server: FakeOpenAIServer
) -> Iterator[Callable[..., RagasContainer]]:
    made: list[RagasContainer] = []

    def build(transport: str, extra: str = "") -> RagasContainer:
        path = tmp_path / f"{transport}.yaml"
        path.write_text(_config(openai_server.base_url, transport, extra), encoding="utf-8")
        container = create_container(load_settings(path))
        made.append(container)
        return container

    yield build
    for container in made:
        container.close()


def _scores(run) -> list[tuple[str, float | None]]:
    return [(sample.sample_id, sample.evaluations[0].score) for sample in run.samples]


def _batches_per_judge(server: FakeOpenAIServer) -> dict[str | None, int]:
    counts: dict[str | None, int] = {}
    for batch in server.batches:
        counts[batch.model] = counts.get(batch.model, 0) + 1
    return counts


def test_samples_through_batches_score_as_synchronously_at_half_the_price(
    openai_server: FakeOpenAIServer, container_for: Callable[..., RagasContainer]
) -> None:
    # benchmarks/batch_rounds.py runs the 1,000 samples; 200 keep CI quick.
    openai_server.respond(None, _answer)
    samples = _samples(COUNT)
    synchronous = evaluate_dataset(
        samples,
        [container_for("direct").agent_goal_accuracy()],
        configs=NO_REFERENCE,
        concurrency=64,
    )
    assert openai_server.count() == COUNT * 2 * 2 and not openai_server.batches
    openai_server.reset()
    openai_server.respond(None, _answer)
    openai_server.set_batch_timing(in_progress=0.2)

    batched = evaluate_dataset(
        samples, [container_for("batch").agent_goal_accuracy()], configs=NO_REFERENCE
    )

    assert _scores(batched) == _scores(synchronous)
    assert {score for _, score in _scores(batched)} == {0.0, 0.5, 1.0}
    assert openai_server.count() == 0  # no synchronous chat request reached the server
    # Two dependent steps, every sample at once: two rounds, one batch per judge each.
    assert _batches_per_judge(openai_server) == {"judge-a": 2, "judge-b": 2}
    assert [len(batch.lines) for batch in openai_server.batches] == [COUNT] * 4
    assert batched.concurrency == COUNT
    assert batched.totals.judge_calls == synchronous.totals.judge_calls == COUNT * 4
    assert batched.totals.billed_usage == synchronous.totals.billed_usage
    assert batched.totals.cost == pytest.approx(synchronous.totals.cost / 2)
    assert batched.judge_summary("judge-a").cost == pytest.approx(
        synchronous.judge_summary("judge-a").cost / 2
    )
    report = render_console(batched, width=400)
    assert "judge-a $2/$8 per M (config; batch: 50% of it $1/$4 per M)" in report


def test_lines_that_failed_go_into_the_next_round_with_the_next_steps_calls(
    openai_server: FakeOpenAIServer, container_for: Callable[..., RagasContainer]
) -> None:
    failing = {3, 17, 29}

    def flaky(request: ChatRequest) -> dict[str, object] | Reply:
        if request.asks_for("inferred_goal") and _index(request) in failing:
            failing.discard(_index(request))  # fails once, then answers
            return Reply.error(500, "overloaded")
        return _answer(request)

    openai_server.respond("judge-a", flaky)
    openai_server.respond("judge-b", _answer)

    run = evaluate_dataset(
        _samples(40), [container_for("batch").agent_goal_accuracy()], configs=NO_REFERENCE
    )

    assert run.totals.scored == 40 and run.totals.failed_judge_calls == 0
    assert openai_server.count() == 0
    first, second, *rest = [b for b in openai_server.batches if b.model == "judge-a"]
    assert [line.status for line in first.lines].count(500) == 3
    retried = [line for line in second.lines if line.request.asks_for("inferred_goal")]
    assert sorted(_index(line.request) for line in retried) == [3, 17, 29]
    assert len(second.lines) == 40  # 37 second steps and the 3 first steps retried
    (third,) = rest  # the second step of the three retried samples
    assert sorted(_index(line.request) for line in third.lines) == [3, 17, 29]
    calls = [
        call
        for sample in run.samples
        for step in sample.evaluations[0].steps
        for call in step.calls
        if call.judge_id == "judge-a" and call.step == "InferGoal"
    ]
    assert sorted(call.attempts for call in calls)[-3:] == [2, 2, 2]


def test_a_round_below_min_size_goes_synchronously_at_the_full_price(
    openai_server: FakeOpenAIServer, container_for: Callable[..., RagasContainer]
) -> None:
    openai_server.respond(None, _answer)
    extra = "spring.ai.ragas.providers.batch.min-size: 100\n"

    run = evaluate_dataset(
        _samples(10),
        [container_for("batch", extra).agent_goal_accuracy()],
        configs=NO_REFERENCE,
    )

    assert run.totals.scored == 10
    assert (openai_server.count(), openai_server.batches) == (40, [])
    usage = run.totals.billed_usage
    assert run.totals.cost == pytest.approx(
        (usage.input_tokens * 2.0 + usage.output_tokens * 8.0) / 1_000_000
    )


def test_an_explicit_concurrency_bounds_a_batch_run_and_each_block_is_its_own_round(
    openai_server: FakeOpenAIServer, container_for: Callable[..., RagasContainer]
) -> None:
    openai_server.respond(None, _answer)

    run = evaluate_dataset(
        _samples(20),
        [container_for("batch").agent_goal_accuracy()],
        configs=NO_REFERENCE,
        concurrency=10,
    )

    assert run.totals.scored == 20 and run.concurrency == 10
    lines = [len(batch.lines) for batch in openai_server.batches if batch.model == "judge-a"]
    assert sum(lines) == 40 and max(lines) <= 10


def test_every_report_says_where_each_judges_price_came_from(
    openai_server: FakeOpenAIServer, tmp_path: Path
) -> None:
    openai_server.respond(None, _answer)
    path = tmp_path / "priced.yaml"
    # judge-a priced in the config (batch: half of it), gpt-4o-mini by the catalog (the
    # provider named openai), judge-c by nobody (a gateway the catalog cannot know).
    path.write_text(
        f"""
spring.ai.ragas:
  metrics.logging.enabled: false
  cache.enabled: false
  providers:
    batch: {{poll-interval: 20ms, max-poll-interval: 80ms}}
    openai-compatible:
      - name: hosted
        base-url: {openai_server.base_url}
        api-key: test-key
        transport: batch
        batch: {{discount: 0.5}}
        chat-models: [{{id: judge-a, price: {PRICE}}}]
      - name: openai
        base-url: {openai_server.base_url}
        api-key: test-key
        chat-models: [{{id: gpt-4o-mini}}]
      - name: gateway
        base-url: {openai_server.base_url}
        api-key: test-key
        chat-models: [{{id: judge-c}}]
""",
        encoding="utf-8",
    )
    container = create_container(load_settings(path))
    try:
        run = evaluate_dataset(_samples(3), [container.agent_goal_accuracy()], configs=NO_REFERENCE)
    finally:
        container.close()
    catalog = f"genai-prices {genai_prices.__version__}"

    console = render_console(run, width=400)
    assert "judge-a $2/$8 per M (config; batch: 50% of it $1/$4 per M)" in console
    assert f"gpt-4o-mini $0.15/$0.6 per M (catalog {catalog})" in console
    assert "judge-c unpriced" in console
    judges = {judge["id"]: judge for judge in json.loads(render_json(run))["judges"]}
    assert judges["judge-a"]["transport"] == "batch"
    assert judges["judge-a"]["price_source"] == {
        "price": "config", "catalog": None, "batch": "discount", "discount": 0.5,
    }  # fmt: skip
    assert judges["judge-a"]["batch_price"]["input_per_million"] == 1.0
    assert judges["gpt-4o-mini"]["price_source"]["catalog"] == catalog
    assert judges["gpt-4o-mini"]["batch_price"] is None
    assert judges["judge-c"]["price"] is None and judges["judge-c"]["price_source"] is None
    markdown = render_markdown(run)
    assert re.search(r"\| judge-a \|.*\| config; batch: 50% of it \|", markdown)
    assert re.search(rf"\| gpt-4o-mini \|.*\| catalog {re.escape(catalog)} \|", markdown)
    assert re.search(r"\| judge-c \|.*\| unpriced \|", markdown)
    html = render_html(run)
    assert f"gpt-4o-mini $0.15/$0.6 per M (catalog {catalog})" in html
    assert "judge-c unpriced" in html
    # The catalog priced the calls of gpt-4o-mini; judge-c's tokens stay unpriced.
    assert run.judge_summary("gpt-4o-mini").cost > 0
    assert run.judge_summary("judge-c").cost is None


def test_a_dry_run_and_the_spend_cap_count_a_batch_judge_at_its_batch_price(
    openai_server: FakeOpenAIServer, container_for: Callable[..., RagasContainer]
) -> None:
    openai_server.respond(None, _answer)
    samples = _samples(8)
    direct = estimate_run(
        samples, [container_for("direct").agent_goal_accuracy()], configs=NO_REFERENCE
    )
    batch_container = container_for("batch")
    batched = estimate_run(samples, [batch_container.agent_goal_accuracy()], configs=NO_REFERENCE)

    assert batched.totals.input_tokens == direct.totals.input_tokens
    assert batched.totals.cost_max == pytest.approx(direct.totals.cost_max / 2)
    assert batched.totals.cost_min == pytest.approx(direct.totals.cost_min / 2)
    assert [judge.batch_price is not None for judge in batched.judges] == [True, True]
    console = Console(width=300, record=True)
    for renderable in estimate_renderables(batched):
        console.print(renderable)
    assert "judge-a, judge-b estimated at the batch price" in console.export_text()

    # Each round reserves its calls' worst case (prompt and max-tokens of output, nearly the
    # same in both rounds): half the estimate's maximum at the batch price, all of it at the
    # synchronous price. A cap between the two lets only the batch run finish.
    cap = batched.totals.cost_max * 0.75
    capped = evaluate_dataset(
        samples, [batch_container.agent_goal_accuracy()], configs=NO_REFERENCE, max_cost=cap
    )
    assert capped.stopped is None and capped.totals.scored == 8
    assert capped.totals.cost <= cap
