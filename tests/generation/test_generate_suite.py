"""``generate suite`` against the test server: planted bad candidates are rejected with their
reasons, calls per kept case stay low, a rerun sends nothing and writes the same bytes."""

from __future__ import annotations

import json
from pathlib import Path

from generation_helpers import MODEL, TOOLS, ScriptedGenerator, config

from ragas_boot.cli import main
from ragas_boot.runs.suites.suite import load_suite


def _args(tmp_path: Path, out: Path, report: Path, *more: str) -> list[str]:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(TOOLS), encoding="utf-8")
    return [
        "generate",
        "suite",
        str(tools),
        "--out",
        str(out),
        "--count",
        "12",
        "--config",
        str(tmp_path / "application.yaml"),
        "--report",
        str(report),
        *more,
    ]


def test_bad_candidates_are_rejected_with_reasons_and_a_rerun_sends_nothing(
    tmp_path, openai_server, capsys
):
    config(tmp_path, openai_server)
    scripted = ScriptedGenerator(bad_every=5)
    openai_server.respond(MODEL, scripted)
    out, report = tmp_path / "generated.yaml", tmp_path / "report.json"

    assert main(_args(tmp_path, out, report)) == 0, capsys.readouterr().err
    document = json.loads(report.read_text(encoding="utf-8"))
    suite = load_suite(out)
    assert len(suite.cases) == 12
    rejected = document["rejected"]
    planted = [r["reason"] for r in rejected if r["reason"] != "near_duplicate"]
    assert sorted(planted) == sorted(scripted.bad_sent)
    assert {"unknown_tool", "invalid_arguments", "missing_required"} <= {
        r["reason"] for r in rejected
    }
    assert all(r["message"] and r["candidate"]["user_message"] for r in rejected)
    bad = [r for r in rejected if r["reason"] != "near_duplicate"]
    assert all(r["candidate"]["calls"] for r in bad)
    assert any("kelvin" in r["message"] for r in bad)
    kept_messages = [case.user_message for case in suite.cases]
    assert not any(m and m.startswith("Weather number") for m in kept_messages)
    assert document["calls_per_kept_case"] <= 2.5
    first_requests = openai_server.count(MODEL)
    assert first_requests == document["total"]["requests"]
    first = out.read_bytes()

    assert main(_args(tmp_path, out, report)) == 0
    assert openai_server.count(MODEL) == first_requests  # every call from the cache
    assert out.read_bytes() == first
