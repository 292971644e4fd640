"""SQLAlchemy is a dependency of every install (recording is on by default), so a run records
itself without a note; only a broken environment lacks it, and then a run still runs and
reports, with one warning naming what to install, and ``runs list`` exits 2 saying the same.

"Missing" is simulated by hiding SQLAlchemy from the import system
(``sys.modules["sqlalchemy"] = None``), the one edge of installation a test cannot reach
otherwise.
"""

from __future__ import annotations

import sys

import pytest

METRICS = ("--metric", "agent_goal_accuracy")
INSTALL = "pip install 'ragas-boot[history]'"


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_a_default_run_records_itself_without_a_note(
    run_cli, judges, config_file, dataset_file, ragas_boot_home
):
    result = run_cli("evaluate", dataset_file, *METRICS, "--config", config_file)

    assert result.code == 0, result.err
    assert "Run recorded: " in result.err
    assert "note:" not in result.err and "warning" not in result.err
    assert (ragas_boot_home / "history.db").is_file()
    assert not (ragas_boot_home / "history-not-recorded-note").exists()


@pytest.fixture
def _broken_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sqlalchemy", None)


@pytest.mark.usefixtures("_broken_install")
def test_a_broken_install_still_runs_and_reports_with_a_warning_each_time(
    run_cli, judges, config_file, dataset_file, tmp_path
):
    report = tmp_path / "report.json"
    runs = [
        run_cli("evaluate", dataset_file, *METRICS, "--config", config_file, "--out", report)
        for _ in "ab"
    ]

    for result in runs:
        assert result.code == 0, result.err
        assert "Results (cli-test" in result.out
        assert "warning: run not recorded: the run history needs the 'sqlalchemy' package" in (
            _flat(result.err)
        )
        assert INSTALL in _flat(result.err)
    assert report.is_file()


@pytest.mark.usefixtures("_broken_install")
def test_history_off_in_yaml_says_nothing_even_when_broken(
    run_cli, judges, config_file, dataset_file
):
    with config_file.open("a", encoding="utf-8") as file:
        file.write("spring.ai.ragas.history.enabled: false\n")

    result = run_cli("evaluate", dataset_file, *METRICS, "--config", config_file)

    assert result.code == 0, result.err
    assert "not recorded" not in result.err


@pytest.mark.usefixtures("_broken_install")
def test_runs_list_on_a_broken_install_says_what_to_install(run_cli, judges, config_file):
    listing = run_cli("runs", "list", "--config", config_file)

    assert listing.code == 2
    assert "the run history needs the 'sqlalchemy' package" in _flat(listing.err)
    assert INSTALL in _flat(listing.err)
    assert "--debug" not in listing.err
