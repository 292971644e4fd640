"""Without the ``[history]`` extra: runs still work, the note that they are not recorded is said
once per home folder (every run when the history is asked for in YAML), and ``runs list``
explains what to install.

"Not installed" is simulated by hiding SQLAlchemy from the import system
(``sys.modules["sqlalchemy"] = None``), the one edge of installation a test cannot reach
otherwise.
"""

from __future__ import annotations

import sys

import pytest

METRICS = ("--metric", "agent_goal_accuracy")
NOTE = "note: run not recorded: the run history needs the 'sqlalchemy' package"
INSTALL = "pip install 'ragas-boot[history]'"


@pytest.fixture(autouse=True)
def _no_sqlalchemy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sqlalchemy", None)


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_the_note_is_said_once_per_home_folder(
    run_cli, judges, config_file, dataset_file, ragas_boot_home, tmp_path, monkeypatch
):
    first = run_cli("evaluate", dataset_file, *METRICS, "--config", config_file)
    second = run_cli("evaluate", dataset_file, *METRICS, "--config", config_file)

    assert (first.code, second.code) == (0, 0), first.err + second.err
    assert "Results (cli-test" in first.out and "Results (cli-test" in second.out
    assert NOTE in _flat(first.err) and INSTALL in _flat(first.err)
    assert "said once in this home folder" in _flat(first.err)
    assert "not recorded" not in second.err
    assert (ragas_boot_home / "history-not-recorded-note").is_file()

    # Another home folder (another machine, another CI workspace) is told again.
    monkeypatch.setenv("RAGAS_BOOT_HOME", str(tmp_path / "other-home"))
    third = run_cli("evaluate", dataset_file, *METRICS, "--config", config_file)
    assert third.code == 0 and NOTE in _flat(third.err)


def test_a_history_asked_for_in_yaml_says_so_on_every_run(
    run_cli, judges, config_file, dataset_file
):
    with config_file.open("a", encoding="utf-8") as file:
        file.write("spring.ai.ragas.history.enabled: true\n")

    runs = [run_cli("evaluate", dataset_file, *METRICS, "--config", config_file) for _ in "ab"]

    for result in runs:
        assert result.code == 0, result.err
        assert NOTE in _flat(result.err) and "said once" not in result.err


def test_history_off_in_yaml_says_nothing(run_cli, judges, config_file, dataset_file):
    with config_file.open("a", encoding="utf-8") as file:
        file.write("spring.ai.ragas.history.enabled: false\n")

    result = run_cli("evaluate", dataset_file, *METRICS, "--config", config_file)

    assert result.code == 0, result.err
    assert "not recorded" not in result.err


def test_runs_list_explains_what_to_install_after_the_note_was_said(
    run_cli, judges, config_file, dataset_file
):
    run_cli("evaluate", dataset_file, *METRICS, "--config", config_file)

    listing = run_cli("runs", "list", "--config", config_file)

    assert listing.code == 2
    assert "the run history needs the 'sqlalchemy' package" in _flat(listing.err)
    assert INSTALL in _flat(listing.err)
    # The message says what to do; a traceback would not help.
    assert "--debug" not in listing.err
