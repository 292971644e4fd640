"""Example 03 runs as its README says, against scripted judges on the local test server."""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
from pathlib import Path
from types import ModuleType

import pytest

from ragas_boot.datasets import load_dataset

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "03_compare_judge_models"


def _offline() -> ModuleType:
    spec = importlib.util.spec_from_file_location("example03_offline", EXAMPLE / "offline.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _readme_compare_command() -> list[str]:
    readme = (EXAMPLE / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)```", readme, re.S)
    first = next(block for block in blocks if "ragas-boot compare" in block)
    return shlex.split(first[first.index("ragas-boot compare") :].replace("\\\n", " "))


@pytest.fixture
def scripted(openai_server, monkeypatch, secret):
    _offline().script_judges(openai_server, load_dataset(EXAMPLE / "dataset.yaml"))
    monkeypatch.setenv("JUDGE_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("OPENROUTER_API_KEY", secret)
    monkeypatch.chdir(EXAMPLE.parent.parent)
    return openai_server


def test_the_readme_compare_command_on_twenty_samples(scripted, run_cli, tmp_path, secret):
    command = _readme_compare_command()
    assert command[:2] == ["ragas-boot", "compare"]
    args = [
        str(EXAMPLE / arg) if arg in ("dataset.yaml", "application.yaml") else arg
        for arg in command[2:]
    ]
    args = [str(tmp_path / arg) if arg.startswith("report.") else arg for arg in args]
    result = run_cli("compare", *args, "--profile", "offline")
    assert result.code == 0, result.err
    out = result.out
    assert "20 samples × 3 metrics: 60 scored, 0 undefined, 0 failed" in out
    assert "300 judge calls (0 failed)" in out
    for judge in ("gpt-4o-mini", "gpt-4.1-mini", "claude-3.5-haiku", "gemini-2.0-flash",
                  "gemini-2.5-flash"):  # fmt: skip
        assert f"{judge} (" in out
    document = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert document["dataset"] == {
        "name": "nova-support-agent",
        "path": str(EXAMPLE / "dataset.yaml"),
        "size": 20,
    }
    agreement = {a["metric"]: a for a in document["agreement"]}
    goal = agreement["agent_goal_accuracy"]
    assert goal["fleiss_items"] == 20
    assert 0.0 < goal["fleiss_kappa"] < 1.0  # the judges disagree, a little
    assert any(p["percent_agreement"] < 1.0 for p in agreement["topic_adherence"]["pairs"])
    assert agreement[None]["items"] == 40
    means = {
        s["judge_id"]: s["mean"]
        for s in document["judge_summaries"]
        if s["metric"] == "agent_goal_accuracy"
    }
    assert len(set(means.values())) > 1
    tools = next(m for m in document["metric_summaries"] if m["metric"] == "tool_call_accuracy")
    assert 0.5 < tools["mean"] < 1.0
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert html.count('<details class="sample"') == 20
    assert secret not in out + result.err + html


def test_offline_script_main_writes_both_reports(scripted, run_cli, tmp_path, monkeypatch):
    module = _offline()
    monkeypatch.setattr(module, "HERE", tmp_path)
    for name in ("dataset.yaml", "application.yaml"):
        (tmp_path / name).write_text((EXAMPLE / name).read_text(encoding="utf-8"), "utf-8")
    code = module.main(["--models", "gpt-4o-mini,claude-3.5-haiku", "--concurrency", "4"])
    assert code == 0
    document = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert [j["id"] for j in document["judges"]] == ["gpt-4o-mini", "claude-3.5-haiku"]
    assert (tmp_path / "report.html").is_file()


def test_offline_calibrate_prints_judge_and_panel_tables_and_writes_both_reports(
    scripted, run_cli, tmp_path, monkeypatch, capsys
):
    module = _offline()
    monkeypatch.setattr(module, "HERE", tmp_path)
    monkeypatch.setenv("COLUMNS", "160")
    for name in ("dataset.yaml", "application.yaml"):
        (tmp_path / name).write_text((EXAMPLE / name).read_text(encoding="utf-8"), "utf-8")
    capsys.readouterr()
    assert module.main(["calibrate", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "Judges vs people: agent_goal_accuracy" in out
    assert "Panels vs people: topic_adherence" in out
    # ana and ben split on one sample: it is left out, and their own agreement is shown
    assert "19 labelled samples" in out and "1 left out (annotators split)" in out
    assert "Krippendorff α 0.76 on 8 samples (ana, ben)" in out
    document = json.loads((tmp_path / "calibration.json").read_text(encoding="utf-8"))
    goal = next(m for m in document["metrics"] if m["metric"] == "agent_goal_accuracy")
    kappas = [j["figures"]["kappa"]["value"] for j in goal["judges"]]
    assert kappas == sorted(kappas, reverse=True)  # best first
    assert goal["judges"][0]["judge_id"] == "gpt-4.1-mini"  # the least noisy scripted judge
    assert goal["best"]["figures"]["kappa"]["value"] >= max(kappas)
    topics = next(m for m in document["metrics"] if m["metric"] == "topic_adherence")
    assert topics["basis"] == "off_topic"
    by_judge = {j["judge_id"]: j["figures"] for j in topics["judges"]}
    # the lenient judge files off-topic talk under an allowed topic: it never fails a sample
    assert by_judge["gemini-2.0-flash"]["confusion"][0] == [0, 3]
    assert by_judge["gpt-4o-mini"]["kappa"]["value"] == 1.0
    items = {j["judge_id"]: j["items"] for j in topics["judges"]}
    assert items["gpt-4o-mini"] | {"precision": None} == {
        "samples": 20, "labelled": 3, "found": 3, "matched": 3, "precision": None, "recall": 1.0,
    }  # fmt: skip
    assert items["gemini-2.0-flash"]["matched"] == 0  # named none off topic
    # the strict judge also lists the small talk: every subject found, and more named
    assert items["claude-3.5-haiku"]["matched"] == 3
    assert items["claude-3.5-haiku"]["found"] > 3 and items["claude-3.5-haiku"]["precision"] < 1
    assert "Off-topic subjects" in out
    html = (tmp_path / "calibration.html").read_text(encoding="utf-8")
    assert html.count('aria-label="Cohen kappa by judge"') == 2
