"""``ragas-boot calibrate``: judges on the test server against people's labels.

One judge always agrees with the labels, the other always disagrees; both are reached over
real HTTP on the scripted test server. The report must rank them so, with κ 1 and −1, and
name the agreeing judge's panel as the best, although it costs more tokens.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ragas_boot.testing import ChatRequest, FakeOpenAIServer, Reply

CASES = 10


def _dataset() -> str:
    lines = ["name: agree-or-not", "samples:"]
    for number in range(CASES):
        achieved = number % 2 == 0
        verdict = "pass" if achieved else "fail"
        labels = f"{{verdict: {verdict}, score: {1.0 if achieved else 0.0}}}"
        if number < 4:  # two annotators on four samples; they split on none
            labels = (
                f"[{{annotator: ana, verdict: {verdict}}}, {{annotator: ben, verdict: {verdict}}}]"
            )
        lines += [
            f"  - id: case-{number}",
            "    user_input_messages:",
            f'      - {{type: human, content: "Case {number}: please do task {number}."}}',
            f'      - {{type: ai, content: "Task {number} handled."}}',
            f"    reference: Task {number} is done",
            "    labels:",
            f"      agent_goal_accuracy: {labels}",
        ]
    return "\n".join(lines) + "\n"


def _achieved(prompt: str) -> bool:
    match = re.search(r"Case (\d+):", prompt)
    assert match is not None, prompt
    return int(match.group(1)) % 2 == 0


def _answer(request: ChatRequest) -> Reply:
    achieved = _achieved(request.prompt)
    if request.model == "disagree":
        achieved = not achieved
    tokens = 300 if request.model == "agree" else 100  # the agreeing judge is dearer
    return Reply.json(
        {"goal_achieved": achieved, "reason": f"{request.model} says {achieved}"},
        usage={"prompt_tokens": tokens - 20, "completion_tokens": 20, "total_tokens": tokens},
    )


@pytest.fixture
def labelled(tmp_path: Path, openai_server: FakeOpenAIServer, root_conftest, secret, monkeypatch):
    openai_server.respond(None, _answer)
    monkeypatch.setenv("JUDGE_KEY", secret)
    config = tmp_path / "application.yaml"
    config.write_text(
        root_conftest.judges_yaml(
            openai_server.base_url,
            {"local": ["agree", "disagree"]},
            "spring.ai.ragas.metrics.logging.enabled: false\n",
        ),
        encoding="utf-8",
    )
    dataset = tmp_path / "dataset.yaml"
    dataset.write_text(_dataset(), encoding="utf-8")
    return dataset, config


def _calibrate(run_cli, labelled, *extra):
    dataset, config = labelled
    return run_cli(
        "calibrate", dataset, "--config", config, "--metric", "agent_goal_accuracy",
        "--no-progress", *extra,
    )  # fmt: skip


def test_the_agreeing_judge_ranks_first_with_kappa_1_and_its_panel_is_best(
    run_cli, labelled, tmp_path, openai_server, secret
):
    report, page = tmp_path / "calibration.json", tmp_path / "calibration.html"
    result = _calibrate(run_cli, labelled, "--out", report, "--out", page)
    assert result.code == 0, result.err
    assert len(openai_server.requests) == 2 * CASES  # one goal verdict per judge and sample
    document = json.loads(report.read_text(encoding="utf-8"))
    assert document["kind"] == "calibration"
    assert document["cost_unit"] == "tokens"
    [metric] = document["metrics"]
    assert metric["labelled"] == CASES
    assert metric["human_pass_rate"] == 0.5
    agree, disagree = metric["judges"]
    assert (agree["judge_id"], disagree["judge_id"]) == ("agree", "disagree")
    assert agree["figures"]["kappa"]["value"] == pytest.approx(1.0)
    assert disagree["figures"]["kappa"]["value"] == pytest.approx(-1.0)
    assert agree["figures"]["accuracy"]["value"] == 1.0
    assert disagree["figures"]["accuracy"]["value"] == 0.0
    assert agree["figures"]["confusion"] == [[5, 0], [0, 5]]
    assert disagree["figures"]["confusion"] == [[0, 5], [5, 0]]
    # people gave scores on the six samples one annotator labelled
    assert agree["figures"]["mae"]["value"] == 0.0
    assert disagree["figures"]["mae"]["value"] == 1.0
    assert agree["figures"]["mae_items"] == 6
    assert agree["cost"] == 3 * disagree["cost"] == 3000
    assert metric["best"]["judges"] == ["agree"]
    assert metric["best"]["figures"]["kappa"]["value"] == pytest.approx(1.0)
    # the cheaper disagreeing judge is on the front too, below the agreeing one
    assert [p["judges"] for p in metric["front"]] == [["disagree"], ["agree"]]
    # averaged, the two judges pass everything: the panel is wrong on every failed sample
    average = next(p for p in metric["panels"] if p["aggregation"] == "AVERAGE")
    assert average["figures"]["kappa"]["value"] == 0.0
    assert [d["sample_id"] for d in metric["disagreements"]] == [
        f"case-{n}" for n in range(1, CASES, 2)
    ]
    first = metric["disagreements"][0]
    assert first["human_passed"] is False and first["panel_passed"] is True
    assert {j["judge_id"]: j["reason"] for j in first["judges"]} == {
        "agree": "agree says False",
        "disagree": "disagree says True",
    }
    assert metric["human"]["annotators"] == ["ana", "ben"]
    assert metric["human"]["items"] == 4
    assert metric["human"]["alpha"] == pytest.approx(1.0)

    out = result.out
    assert "Best panel for agent_goal_accuracy: agree (average), κ 1.00 [1.00, 1.00]" in out
    assert out.index("Panel vs people") < out.index("Judges vs people")  # disagreements first
    agree_row = next(line for line in out.splitlines() if line.startswith("│ agree "))
    assert "1.00 [1.00, 1.00]" in agree_row and "5/0/0/5" in agree_row
    disagree_row = next(line for line in out.splitlines() if line.startswith("│ disagree "))
    # κ of a judge that is always wrong is −1 only with balanced verdicts: resamples that are
    # not balanced give it more, so its interval reaches above −1
    assert "-1.00 [-1.00, -0." in disagree_row and "0/5/5/0" in disagree_row
    html = page.read_text(encoding="utf-8")
    assert 'aria-label="Cohen kappa by judge"' in html
    assert 'aria-label="Cost against kappa"' in html
    assert "<script" not in html and "http" not in html.replace("http-equiv", "")
    assert secret not in out + result.err + html + report.read_text(encoding="utf-8")


def test_reruns_give_the_same_intervals_and_another_seed_may_not(run_cli, labelled, tmp_path):
    paths = [tmp_path / f"run{i}.json" for i in range(3)]
    for path, seed in zip(paths, ("7", "7", "8"), strict=True):
        result = _calibrate(run_cli, labelled, "--out", path, "--seed", seed, "--resamples", "200")
        assert result.code == 0, result.err
    first, second, third = (json.loads(p.read_text(encoding="utf-8")) for p in paths)
    assert first["metrics"] == second["metrics"]
    assert first["seed"] == 7 and third["seed"] == 8 and first["resamples"] == 200


def test_a_dataset_without_labels_is_refused_before_any_judge_is_asked(
    run_cli, labelled, tmp_path, openai_server
):
    _, config = labelled
    bare = tmp_path / "bare.yaml"
    bare.write_text(
        "samples:\n  - user_input_messages: [{type: human, content: hi}]\n    reference: x\n",
        encoding="utf-8",
    )
    result = run_cli("calibrate", bare, "--config", config, "--metric", "agent_goal_accuracy")
    assert result.code == 2
    assert "sample field 'labels'" in result.err and "docs/calibration.md" in result.err
    assert openai_server.requests == []


def test_a_bad_label_names_its_path_and_line(run_cli, labelled, tmp_path):
    _, config = labelled
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        _dataset().replace("{verdict: fail, score: 0.0}", "{verdict: maybe}", 1), encoding="utf-8"
    )
    result = run_cli("calibrate", bad, "--config", config)
    assert result.code == 2
    assert "labels.agent_goal_accuracy.verdict" in result.err
    assert "expected pass or fail" in result.err


def test_compare_on_a_labelled_dataset_adds_the_people(run_cli, labelled, tmp_path):
    dataset, config = labelled
    html, report = tmp_path / "compare.html", tmp_path / "compare.json"
    result = run_cli(
        "compare", dataset, "--config", config, "--no-progress", "--out", html, "--out", report
    )
    assert result.code == 0, result.err
    assert "Judge agreement" in result.out  # the usual comparison ...
    assert "Best panel for agent_goal_accuracy: agree" in result.out  # ... and the people
    # The reports carry the people's section too.
    document = json.loads(report.read_text(encoding="utf-8"))
    assert document["totals"]["judge_calls"] > 0
    (metric,) = document["calibration"]["metrics"]
    assert metric["metric"] == "agent_goal_accuracy"
    page = html.read_text(encoding="utf-8")
    assert 'id="calibration"' in page and "<svg" in page
    assert page.index('id="calibration"') > page.index('id="agreement"')


def test_without_the_extra_the_error_names_it(run_cli, labelled, monkeypatch, openai_server):
    monkeypatch.setitem(__import__("sys").modules, "sklearn.metrics", None)
    result = _calibrate(run_cli, labelled)
    assert result.code == 2
    assert "pip install 'ragas-boot[calibration]'" in result.err
    assert openai_server.requests == []


def test_labels_of_other_metrics_only_are_refused_before_any_judge_is_asked(
    run_cli, labelled, openai_server
):
    dataset, config = labelled
    result = run_cli("calibrate", dataset, "--config", config, "--metric", "topic_adherence")
    assert result.code == 2
    assert "the samples label agent_goal_accuracy but the run has topic_adherence" in result.err
    assert openai_server.requests == []


def test_compare_without_the_extra_still_compares(run_cli, labelled, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "krippendorff", None)
    dataset, config = labelled
    result = run_cli("compare", dataset, "--config", config, "--no-progress")
    assert result.code == 0, result.err
    assert "Judge agreement" in result.out
    assert "Not compared with the dataset's labels" in result.err
    assert "pip install 'ragas-boot[calibration]'" in result.err


def test_the_calibration_schema_names_every_field_of_the_report(run_cli, labelled, tmp_path):
    report = tmp_path / "calibration.json"
    assert _calibrate(run_cli, labelled, "--out", report).code == 0
    result = run_cli("schema", "calibration")
    assert result.code == 0, result.err
    schema = json.loads(result.out)
    assert schema["title"] == "ragas-boot calibration report"
    assert schema["properties"]["kind"] == {"const": "calibration"}
    document = json.loads(report.read_text(encoding="utf-8"))
    assert set(document) == set(schema["properties"])
    assert set(schema["required"]) <= set(document)
    metric_fields = schema["$defs"]["MetricCalibration"]["properties"]
    assert set(document["metrics"][0]) == set(metric_fields)
    assert all(field["description"] for field in metric_fields.values())
