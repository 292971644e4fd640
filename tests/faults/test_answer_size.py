"""A judge that ignores max-tokens cannot make the run read, keep or render megabytes.

``spring.ai.ragas.providers.max-answer-chars`` bounds what is read from the HTTP body and
what is kept of an answer; a longer one fails that judge's call with the start of the answer
kept, visibly marked as cut. Asserted through sizes and counts, not timings.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragas_boot import AIMessage, HumanMessage, Sample, create_container, load_settings
from ragas_boot.reporting import render_html, render_json
from ragas_boot.runs import evaluate_dataset
from ragas_boot.testing import ChatRequest, FakeOpenAIServer, Reply

LIMIT = 1_000
BODY_LIMIT = LIMIT * 6 + 64 * 1024
HUGE = 5_000_000  # characters of the reason the misbehaving judge sends


def settings_for(tmp_path: Path, server: FakeOpenAIServer, transport: str):
    path = tmp_path / "application.yaml"
    path.write_text(
        f"""\
spring.ai.retry.max-attempts: 1
spring.ai.ragas:
  metrics.logging.enabled: false
  providers:
    output-retries: 1
    max-answer-chars: {LIMIT}
    openai-compatible:
      - name: p
        base-url: {server.base_url}
        api-key: sk-size-test
        transport: {transport}
        chat-models: [{{id: huge}}, {{id: long}}, {{id: fine}}]
""",
        encoding="utf-8",
    )
    return load_settings(path, environ={})


def answer(request: ChatRequest) -> Reply:
    reason = {"huge": "x" * HUGE, "long": "y" * (LIMIT + 500), "fine": "ok"}[request.model]
    return Reply.json({"goal_achieved": True, "reason": reason})


SAMPLES = [
    Sample(
        id=f"s{index}",
        user_input_messages=[HumanMessage("book it"), AIMessage("booked")],
        reference="booked",
    )
    for index in range(3)
]


@pytest.fixture
def run(tmp_path, openai_server, judge_transport):
    openai_server.respond(None, answer)
    with create_container(settings_for(tmp_path, openai_server, judge_transport)) as container:
        yield evaluate_dataset(SAMPLES, [container.agent_goal_accuracy()])


def test_an_oversized_body_is_not_read_past_the_bound_and_the_cut_is_visible(run):
    for sample in run.samples:
        evaluation = sample.evaluations[0]
        assert evaluation.status == "scored"
        assert evaluation.result.model_scores == {"fine": 1.0}
        calls = {call.judge_id: call for call in evaluation.steps[0].calls}
        huge = calls["huge"]
        assert huge.error_kind == "invalid_output"
        assert f"larger than {BODY_LIMIT:,} bytes (max-answer-chars 1,000)" in huge.error_message
        # Both attempts (output-retries 1) kept, each cut, each saying so.
        assert len(huge.raw_attempts) == 2
        for raw in huge.raw_attempts:
            assert raw.endswith(
                f"… [cut by ragas-boot at max-answer-chars 1,000; more than {BODY_LIMIT:,} "
                "bytes in all]"
            )
            assert len(raw) < LIMIT + 200


def test_an_answer_longer_than_the_bound_is_cut_and_fails_the_call(run):
    call = next(c for c in run.samples[0].evaluations[0].steps[0].calls if c.judge_id == "long")
    sent = len(json.dumps({"goal_achieved": True, "reason": "y" * (LIMIT + 500)}))
    assert sent == 1_537

    assert call.error_kind == "invalid_output"
    assert "the answer has 1,537 characters, more than max-answer-chars 1,000" in (
        call.error_message or ""
    )
    assert call.raw_text is not None
    assert call.raw_text.endswith(
        "[cut by ragas-boot at max-answer-chars 1,000; 1,537 characters in all]"
    )


def test_reports_stay_small(run):
    # 3 samples × 2 attempts of a 5 MB answer would be 30 MB of raw text unbounded.
    assert len(render_json(run)) < 200_000
    assert len(render_html(run)) < 400_000
    document = json.loads(render_json(run))
    assert document["totals"]["failed_judge_calls"] == 6
