"""The RAG metrics from the CLI: default metric choice, and the gate of lower-is-better ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragas_boot.testing.rag_judge import SentenceJudge

RAG_DATASET = """\
name: rag-cli
samples:
  - id: noisy
    user_input: What does the warranty cover?
    retrieved_contexts:
      - >-
        The warranty lasts 2 years. The warranty covers battery defects.
        Old models. The warranty covers water damage.
    response: The warranty lasts 2 years. The warranty covers water damage.
    reference: The warranty lasts 2 years. The warranty covers battery defects.
"""


@pytest.fixture
def rag_dataset(tmp_path: Path) -> Path:
    path = tmp_path / "rag.yaml"
    path.write_text(RAG_DATASET, encoding="utf-8")
    return path


def test_compare_without_metric_runs_the_metrics_that_can_read_the_dataset(
    run_cli, openai_server, config_file, rag_dataset
):
    openai_server.respond(None, SentenceJudge())
    result = run_cli("compare", rag_dataset, "--config", config_file)
    assert result.code == 0, result.err
    for bean in ("faithfulness", "noise_sensitivity", "factual_correctness", "context_recall"):
        assert bean in result.out
    # The agent metrics read conversations this dataset does not have.
    assert "agent_goal_accuracy" not in result.out
    assert "topic_adherence" not in result.out


@pytest.mark.parametrize(("fail_under", "code"), [(0.4, 0), (0.6, 1)])
def test_fail_under_gates_a_lower_is_better_metric_at_one_minus_x(
    run_cli, openai_server, config_file, rag_dataset, fail_under, code
):
    openai_server.respond(None, SentenceJudge())
    result = run_cli(
        "evaluate",
        rag_dataset,
        "--config",
        config_file,
        "--metric",
        "noise_sensitivity",
        "--fail-under",
        fail_under,
    )
    # NoiseSensitivity is 0.5 here: fine under a maximum of 0.6, over a maximum of 0.4.
    assert result.code == code, result.text
    assert "≤ 0.50" in result.out  # the default threshold, shown as a maximum
    if code:
        assert "noise_sensitivity: mean 0.500 is over 0.4" in result.text
