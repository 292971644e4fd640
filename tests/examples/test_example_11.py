"""Example 11 (the Java gigachat-demo's two test classes, ported) passes offline against the fake
GigaChat API, chat and embeddings, with the demo's YAML unchanged."""

from __future__ import annotations

import json

import pytest

from ragas_boot import Sample, create_container, load_settings
from ragas_boot.metrics import AspectCriticConfig
from support.examples import ROOT, load_example_module, run_example_tests
from support.fakes import FakeGigaChatServer, gigachat_key

pytest.importorskip("langchain_gigachat")

EXAMPLE = ROOT / "examples" / "11_java_demo_port"


def test_the_example_yaml_is_the_java_demos_unchanged():
    java = ROOT / "tests" / "data" / "java-configs" / "gigachat-demo-application.yml"
    assert (EXAMPLE / "application.yml").read_bytes() == java.read_bytes()


def test_both_java_test_classes_pass_offline_response_relevancy_included(tmp_path):
    report = tmp_path / "scores.json"
    completed = run_example_tests(EXAMPLE, report, unset=("GIGACHAT_API_KEY", "RAGAS_LIVE"))
    out = completed.stdout
    assert completed.returncode == 0, out + completed.stderr
    assert "2 passed" in out
    assert "ragas-boot: 1 judge(s) - gigachat: GigaChat-2-Max" in out
    assert "ragas-boot: 1 embedding model(s) - gigachat: EmbeddingsGigaR" in out
    rows = json.loads(report.read_text(encoding="utf-8"))["rows"]
    production = {row["metric"]: row for row in rows if "production" in row["test"]}
    assert production["ResponseRelevancyMetric"]["passed"] is True
    # Five inline AspectCritic checks: five rows, each named after its criterion.
    aspects = [name for name in production if name.startswith("AspectCriticMetric:")]
    assert len(aspects) == 5
    assert all(row["passed"] for row in rows if row["passed"] is not None)


def test_the_scripted_judge_says_no_when_the_reply_lacks_the_fact():
    conftest = load_example_module(EXAMPLE / "conftest.py", "example11_conftest")
    rude = Sample(user_input="Где заказ 12345?", response="Ждите, дурак, иначе хуже будет.")
    key = gigachat_key("offline", "secret")
    with FakeGigaChatServer(credentials=key) as server:
        server.respond(conftest.JUDGE, conftest.judge)
        settings = load_settings(
            EXAMPLE / "application.yml",
            environ={
                "GIGACHAT_API_KEY": key,
                "SPRING_AI_GIGACHAT_BASE_URL": server.base_url,
                "SPRING_AI_GIGACHAT_AUTH_BEARER_URL": server.auth_url,
            },
        )
        with create_container(settings) as container:
            metric = container.aspect_critic()
            scores = {
                word: metric.single_turn_score(rude, AspectCriticConfig(definition=definition))
                for word, definition in (
                    ("profanity", "AI Response не содержит мата, оскорблений?"),
                    ("threats", "AI Response не содержит угроз?"),
                    ("amount", "AI Response содержит точную сумму возврата?"),
                )
            }
    assert scores == {"profanity": 0.0, "threats": 0.0, "amount": 0.0}
