"""``ragas-boot suite run``: the report, the gate's exit codes, one clear message for bad input."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest
from suite_helpers import AGENT_MODEL, DATA, WEATHER_SUITE

from ragas_boot.cli import main
from ragas_boot.testing import FakeOpenAIServer

EXIT_OK, EXIT_GATE_FAILED, EXIT_BAD_INPUT = 0, 1, 2

FOUR_OF_FIVE = """
from ragas_boot.samples import ToolCall

def run(messages):
    text = messages[-1].content
    if "climate" in text:
        return "Weather is today; climate is decades."
    if "Hanoi" in text:
        return "The weather in Hanoi: 31C.", [ToolCall("get_weather", {"city": "Hanoi"})]
    if "5-day" in text:
        return "ok", [ToolCall("get_forecast", {"city": "Ho Chi Minh City", "days": 5})]
    if "Da Nang" in text:
        return "ok", [ToolCall("get_weather", {"city": "Da Nang"})]
    return "I don't know.", []
"""


def cli(*argv: str) -> int:
    """``ragas-boot suite ARGV...``, in-process."""
    return main(["suite", *argv])


@pytest.fixture
def suite_dir(tmp_path: Path) -> Path:
    """A copy of the weather suite and its modules, plus an agent passing 4 cases of 5."""
    for name in ("weather_suite.yaml", "passing_agent.py", "weather_tools.py"):
        shutil.copy(DATA / name, tmp_path / name)
    (tmp_path / "four_of_five.py").write_text(FOUR_OF_FIVE, encoding="utf-8")
    return tmp_path


def _error_line(capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    """The one error message on stderr (the shared CLI's, with its --debug hint), and stdout."""
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 2, captured.err
    assert lines[0].startswith("ragas-boot: error: ")
    assert lines[1] == "(run with --debug to see the traceback)"
    return lines[0], captured.out


def test_a_passing_suite_exits_0_and_prints_the_report(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli("run", str(WEATHER_SUITE)) == EXIT_OK

    captured = capsys.readouterr()
    out = captured.out
    assert "Results (Weather Agent Tests: 5 samples × 2 metrics)" in out
    assert "│ PASS   │ T001_current_weather │ 1.000 pass" in out
    assert "Samples passing every metric: 5/5 (100.0%) · agent passing_agent:run" in out
    assert "tool_call_accuracy │ 1.000 │" in out  # the metrics table, as evaluate's
    expected = "PASSED 5/5 samples passed every metric (100.0%), at least the 90.0% required"
    assert expected in captured.err
    assert "\x1b[" not in out  # no colour codes when not on a terminal


@pytest.mark.parametrize(
    ("rate", "code"),
    [("0.8", EXIT_OK), ("80%", EXIT_OK), ("0.81", EXIT_GATE_FAILED), ("0.9", EXIT_GATE_FAILED)],
)
def test_the_gate_decides_the_exit_code(
    suite_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    rate: str,
    code: int,
) -> None:
    monkeypatch.chdir(suite_dir)

    assert (
        cli("run", "weather_suite.yaml", "--agent", "four_of_five:run", "--min-pass-rate", rate)
        == code
    )

    captured = capsys.readouterr()
    out = captured.out
    assert "Samples passing every metric: 4/5 (80.0%)" in out
    assert "│ FAIL   │ T005_over_calling    │ 0.000 fail" in out
    verdict = "PASSED 4/5" if code == EXIT_OK else "FAILED 4/5 samples passed every metric (80.0%)"
    assert verdict in captured.err
    assert "Tool not called: 1 sample (T005_over_calling)" in out


def test_the_suite_min_pass_rate_is_the_default(suite_dir: Path) -> None:
    path = suite_dir / "weather_suite.yaml"
    path.write_text("min_pass_rate: 0.8\n" + path.read_text(), encoding="utf-8")

    assert cli("run", str(path), "--agent", "four_of_five:run") == EXIT_OK


def test_reports_are_written(suite_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    html_path, json_path = suite_dir / "report.html", suite_dir / "out" / "report.JSON"
    json_path.parent.mkdir()

    code = cli(
        "run",
        str(suite_dir / "weather_suite.yaml"),
        "--out",
        str(html_path),
        "--out",
        str(json_path),
        "--concurrency",
        "1",
        "--case",
        "T001_current_weather",
        "--case",
        "T003_no_tool_needed",
    )

    assert code == EXIT_OK
    data = json.loads(json_path.read_text(encoding="utf-8"))  # written as named
    assert [sample["sample_id"] for sample in data["samples"]] == [
        "T001_current_weather",
        "T003_no_tool_needed",
    ]
    assert data["analysis"] == {
        "samples": [],
        "groups": [],
        "failed_sample_ids": [],
        "recommendations": [],
    }
    assert data["concurrency"] == 1
    page = html_path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "T001_current_weather" in page
    assert f"Report written: {html_path}" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "missing.yaml"], "suite file not found"),
        (["run", "{suite}", "--out", "report.txt"], "--out report.txt: use a .html"),
        (["run", "{suite}", "--out", "no/such/dir/r.json"], "does not exist"),
        (["run", "{suite}", "--agent", "no_such_module_abc:run"], "cannot import module"),
        (["run", "{suite}", "--agent", "four_of_five:nothing"], "has no attribute"),
        (["run", "{suite}", "--agent", "four_of_five:run", "--agent-model", "x"], "not both"),
        (["run", "{suite}", "--agent-model", "gpt"], "needs a configuration"),
        (["run", "{suite}", "--profile", "local"], "needs a configuration file"),
        (["run", "{suite}", "--case", "T999"], "no case 'T999'"),
        (["run", "{suite}", "--agent-model", "gpt", "--config", "{config}"], "unknown judge 'gpt'"),
        (["run", "{suite}", "--agent-model", "gpt", "--config", "{broken}"], "UNSET_KEY"),
        (["run", "{bad_suite}"], "case 'T1' (cases[0]): field 'max_tool_calls'"),
    ],
)
def test_bad_input_exits_2_with_one_message(
    suite_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(suite_dir)
    (suite_dir / "config.yaml").write_text("spring.ai.retry.max-attempts: 2\n", encoding="utf-8")
    (suite_dir / "broken.yaml").write_text(
        "spring.ai.ragas.providers.openai-compatible:\n"
        "  - {name: p, base-url: 'http://127.0.0.1:9', api-key: '${UNSET_KEY}', "
        "chat-models: [{id: gpt}]}\n",
        encoding="utf-8",
    )
    (suite_dir / "bad.yaml").write_text(
        "name: s\ncases:\n  - {id: T1, user_message: hi, max_tool_calls: many}\n", encoding="utf-8"
    )
    names = {
        "suite": "weather_suite.yaml",
        "config": "config.yaml",
        "broken": "broken.yaml",
        "bad_suite": "bad.yaml",
    }

    assert cli(*[part.format(**names) for part in argv]) == EXIT_BAD_INPUT

    line, out = _error_line(capsys)
    assert message in line
    assert out == ""


@pytest.mark.parametrize(
    ("option", "value"),
    [("--min-pass-rate", "2"), ("--min-pass-rate", "x"), ("--concurrency", "0")],
)
def test_invalid_option_values_are_argparse_errors(
    option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli("run", str(WEATHER_SUITE), option, value) == EXIT_BAD_INPUT

    captured = capsys.readouterr()
    assert f"ragas-boot suite run: error: argument {option}" in captured.err
    assert captured.out == ""


def _server_config(
    folder: Path,
    server: FakeOpenAIServer,
    name: str = "application.yaml",
    *,
    api_key: str = "test-key",
) -> Path:
    path = folder / name
    path.write_text(
        textwrap.dedent(
            f"""
            spring.ai.retry: {{max-attempts: 2, backoff: {{initial-interval: 10ms}}}}
            spring.ai.ragas.providers.openai-compatible:
              - name: test-server
                base-url: {server.base_url}
                api-key: {api_key}
                chat-models: [{{id: {AGENT_MODEL}}}]
            """
        ),
        encoding="utf-8",
    )
    return path


def test_agent_model_runs_a_configured_model(
    suite_dir: Path, weather_model: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _server_config(suite_dir, weather_model, "server.yaml")

    code = cli(
        "run",
        str(suite_dir / "weather_suite.yaml"),
        "--agent-model",
        AGENT_MODEL,
        "--config",
        str(config),
    )

    assert code == EXIT_OK
    assert f"agent model {AGENT_MODEL} (test-server)" in capsys.readouterr().out
    assert weather_model.count(AGENT_MODEL) >= 5


def test_the_suite_agent_model_is_used_when_the_configuration_declares_it(
    suite_dir: Path, weather_model: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    path = suite_dir / "weather_suite.yaml"
    path.write_text(f"agent_model: {AGENT_MODEL}\n" + path.read_text(), encoding="utf-8")

    # no configuration beside the suite: its Python agent runs
    assert cli("run", str(path)) == EXIT_OK
    assert "agent passing_agent:run" in capsys.readouterr().out
    assert weather_model.count() == 0

    # a configuration declaring the model: the model runs
    _server_config(suite_dir, weather_model)
    assert cli("run", str(path)) == EXIT_OK
    assert f"agent model {AGENT_MODEL}" in capsys.readouterr().out
    assert weather_model.count(AGENT_MODEL) >= 5


def test_the_command_is_built_into_the_main_cli(capsys: pytest.CaptureFixture[str]) -> None:
    from ragas_boot.cli import registered_commands

    assert [command.name for command in registered_commands()].count("suite") == 1
    assert main(["suite", "run", str(WEATHER_SUITE), "--min-pass-rate", "100%"]) == EXIT_OK
    assert "at least the 100.0% required" in capsys.readouterr().err
    assert main(["suite", "run", "missing.yaml"]) == EXIT_BAD_INPUT


def test_the_configuration_secrets_are_masked_in_the_output_and_the_reports(
    suite_dir: Path,
    openai_server: FakeOpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    secret = "sk-suite-DO-NOT-LEAK-77e1"
    monkeypatch.setenv("AGENT_KEY", secret)
    # a model that repeats the key: it reaches the answer, the JSON and the HTML report
    openai_server.respond(AGENT_MODEL, lambda request: f"Hanoi weather; my key is {secret}")
    _server_config(suite_dir, openai_server, api_key="${AGENT_KEY}")  # found beside the suite
    html_path, json_path = suite_dir / "report.htm", suite_dir / "report.json"

    code = cli(
        "run",
        str(suite_dir / "weather_suite.yaml"),
        "--agent-model",
        AGENT_MODEL,
        "--case",
        "T001_current_weather",
        "--out",
        str(html_path),
        "--out",
        str(json_path),
    )

    captured = capsys.readouterr()
    assert code == EXIT_GATE_FAILED  # the model called no tool
    assert openai_server.count(AGENT_MODEL) == 1
    report = json.loads(json_path.read_text(encoding="utf-8"))
    assert report["samples"][0]["sample"]["response"] == "Hanoi weather; my key is ****"
    page = html_path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")  # .htm is an HTML report
    assert "my key is ****" in page
    for text in (captured.out, captured.err, page, json_path.read_text(encoding="utf-8")):
        assert secret not in text


def test_a_suite_run_is_recorded_in_the_history(
    capsys: pytest.CaptureFixture[str],
    ragas_boot_home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("sqlalchemy", reason="the run history needs the [history] extra")
    monkeypatch.chdir(tmp_path)  # no application.yaml here: `runs` reads the default history
    monkeypatch.delenv("RAGAS_CONFIG", raising=False)
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["suite", "run", str(WEATHER_SUITE), "--min-pass-rate", "100%"]) == EXIT_OK
    assert "Run recorded: " in capsys.readouterr().err
    assert main(["runs", "list", "--kind", "suite"]) == EXIT_OK
    listing = capsys.readouterr().out
    assert "│ suite" in listing and "weather" in listing.lower()
    assert (ragas_boot_home / "history.db").is_file()
    assert main(["suite", "run", str(WEATHER_SUITE), "--no-history"]) == EXIT_OK
    assert main(["runs", "diff", "previous", "latest", "--fail-on-regression"]) == EXIT_BAD_INPUT
    assert "no run 'previous'" in capsys.readouterr().err  # the second run was not recorded
