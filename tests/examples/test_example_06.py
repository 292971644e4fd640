"""Example 06 (the gigachat-demo pipelines) passes offline and its scripted judges discriminate."""

from __future__ import annotations

import json

from ragas_boot import AIMessage, HumanMessage, Sample, create_container, load_settings
from ragas_boot.testing import FakeOpenAIServer
from support.examples import ROOT, load_example_module, run_example_tests

EXAMPLE = ROOT / "examples" / "06_support_agent_pipeline"


def test_the_pipelines_pass_offline_with_a_row_per_check(tmp_path):
    report = tmp_path / "scores.json"
    completed = run_example_tests(
        EXAMPLE, report, unset=("JUDGE_BASE_URL", "RAGAS_LIVE", "OPENROUTER_API_KEY")
    )
    out = completed.stdout
    assert completed.returncode == 0, out + completed.stderr
    assert "19 passed, 1 skipped" in out
    assert "ragas-boot: 2 judge(s) - openrouter: openai/gpt-4o-mini, google/gemini-2.5-flash" in out
    rows = json.loads(report.read_text(encoding="utf-8"))["rows"]
    metrics = {row["metric"] for row in rows}
    assert {
        "AspectCriticMetric:no-profanity",
        "AspectCriticMetric:offers-further-help",
        "SimpleCriteriaScoreMetric:amount-specificity",
        "RubricsScoreMetric:refund-completeness",
        "ToolCallAccuracyMetric",
        "TopicAdherenceMetric",
    } <= metrics
    timeline = next(row for row in rows if row["test"].endswith("test_timeline_detail"))
    assert timeline["score"] == 0.875  # judges' raw 5 and 4 on 1-5: 1.0 and 0.75
    assert "offline-demo-key" not in out + report.read_text(encoding="utf-8")


def test_the_scripted_judges_say_no_when_the_agent_left_it_out():
    conftest = load_example_module(EXAMPLE / "conftest.py", "example06_conftest")
    vague = Sample(
        user_input_messages=[
            HumanMessage("Мой заказ 12345 не пришёл."),
            AIMessage("Мы разберёмся, блин, скоро всё вернём."),
        ]
    )
    with FakeOpenAIServer() as server:
        conftest.script_judges(server)
        settings = load_settings(
            EXAMPLE / "application.yaml",
            environ={"JUDGE_BASE_URL": server.base_url, "OPENROUTER_API_KEY": "k"},
        )
        with create_container(settings) as container:
            scores = {
                check: container.metric("aspect_critic", check).multi_turn_score(vague)
                for check in ("no-profanity", "exact-amount", "timeline-in-days", "no-threats")
            }
    assert scores == {
        "no-profanity": 0.0,
        "exact-amount": 0.0,
        "timeline-in-days": 0.0,
        "no-threats": 1.0,
    }
