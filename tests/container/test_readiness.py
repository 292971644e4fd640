"""``unrunnable_metrics``: the metrics a configuration cannot run, and why (for config check)."""

from __future__ import annotations

import textwrap

import pytest

from ragas_boot import create_container, load_settings
from ragas_boot.container.readiness import unrunnable_metrics
from ragas_boot.metrics.base import Need

EMBEDDING_METRICS = ["response_relevancy", "answer_correctness", "semantic_similarity"]


@pytest.fixture
def write_yaml(tmp_path):
    def write(text):
        path = tmp_path / "application.yaml"
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    return write


def check(path):
    settings = load_settings(path, environ={})
    with create_container(settings) as container:
        return unrunnable_metrics(
            settings, judges=container.judges(), embedding_models=container.embedding_models()
        )


def test_judges_without_embedding_models_leave_out_the_embedding_metrics(write_yaml):
    path = write_yaml(
        """\
        spring.ai.ragas.providers.openai-compatible:
          - { name: p, base-url: http://127.0.0.1:9, api-key: k, chat-models: [{ id: j }] }
        spring.ai.ragas.metrics.response-relevancy.number-of-questions: 2
        """
    )

    found = check(path)

    assert sorted(m.metric for m in found) == sorted(EMBEDDING_METRICS)
    relevancy = next(m for m in found if m.metric == "response_relevancy")
    assert relevancy.configured is True
    assert relevancy.missing == (Need.EMBEDDINGS,)
    assert relevancy.reason.startswith("ResponseRelevancyMetric needs an embedding model")
    assert "spring.ai.gigachat.embedding.options.model" in relevancy.reason
    assert not next(m for m in found if m.metric == "semantic_similarity").configured


def test_no_judge_leaves_out_every_judge_metric_and_names_the_criteria(write_yaml):
    path = write_yaml(
        """\
        spring.ai.ragas.metrics.aspect-critic.criteria:
          polite: { definition: The reply is polite }
        """
    )

    found = {m.metric: m for m in check(path)}

    assert "tool_call_accuracy" not in found  # computed: runs without a judge
    assert "bleu_score" not in found
    assert found["aspect_critic:polite"].configured is True
    assert found["aspect_critic"].missing == (Need.JUDGES,)
    assert found["response_relevancy"].missing == (Need.JUDGES, Need.EMBEDDINGS)
    assert "needs a judge and an embedding model" in found["response_relevancy"].reason
