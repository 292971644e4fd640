"""A team-shared history on a real PostgreSQL server: runs recorded by ``evaluate`` through a
``spring.ai.ragas.history.url`` with a password, listed and diffed, the password never shown."""

from __future__ import annotations

import os
import re

import pytest

from ragas_boot.errors import HistoryError
from ragas_boot.runs.history import RunHistory

PASSWORD = "pg-history-S3CRET-pw"


@pytest.fixture
def team_config(postgres_server, tmp_path, root_conftest, openai_server, monkeypatch):
    monkeypatch.setenv("JUDGE_KEY", root_conftest.SECRET_KEY)
    monkeypatch.setenv("HISTORY_URL", postgres_server.url)
    path = tmp_path / "application.yaml"
    path.write_text(
        root_conftest.judges_yaml(openai_server.base_url, {"local": ["judge-a", "judge-b"]})
        + "spring.ai.ragas.metrics.logging.enabled: false\n"
        + "spring.ai.ragas.history.url: ${HISTORY_URL}\n",
        encoding="utf-8",
    )
    return path


DATASET = """\
name: pg-test
samples:
  - id: paris
    user_input_messages:
      - {type: human, content: "Book the 9am flight to Paris."}
      - {type: ai, content: "Booked."}
    reference: The flight is booked
"""


def test_evaluate_records_into_postgres_and_runs_diff_gates_on_it(
    run_cli, team_config, openai_server, tmp_path, ragas_boot_home
):
    dataset = tmp_path / "data.yaml"
    dataset.write_text(DATASET, encoding="utf-8")
    metric = ("--metric", "agent_goal_accuracy", "--config", team_config)

    openai_server.respond(None, {"goal_achieved": True, "reason": "booked"})
    code, out, err = run_cli("evaluate", dataset, *metric)
    assert code == 0, err
    base = re.search(r"Run recorded: (\S+)", err).group(1)
    openai_server.reset()
    openai_server.respond(None, {"goal_achieved": False, "reason": "not booked"})
    code, out, err = run_cli("evaluate", dataset, *metric, "--baseline", base)
    assert code == 0, err  # no gate asked for
    assert f"Run diff: {base} →" in out
    new = re.search(r"Run recorded: (\S+)", err).group(1)
    assert "REGRESSION agent_goal_accuracy: pass rate fell from 100.0% to 0.0%" in err
    assert "postgresql+pg8000://ragas:****@localhost/postgres" in err

    code, listing, err = run_cli("runs", "list", "--config", team_config)
    assert code == 0, err
    assert base in listing and new in listing and "pg-test" in listing
    code, diff, err = run_cli("runs", "diff", base, new, "--config", team_config,
                              "--fail-on-regression")  # fmt: skip
    assert code == 1
    assert "1.000" in diff and "0.000" in diff and "-100.0 pp" in diff
    assert not (ragas_boot_home / "history.db").exists()  # nothing went to the local file

    with RunHistory(url=os.environ["HISTORY_URL"]) as history:
        stored = history.load(new)
    assert [(s.sample_id, s.score, s.passed) for s in stored.scores] == [("paris", 0.0, False)]
    assert stored.config_files == [str(team_config)]


def test_the_password_never_shows(run_cli, team_config, postgres_server):
    code, out, err = run_cli("runs", "list", "--config", team_config)
    code_show, shown, err_show = run_cli("config", "show", "--config", team_config)
    assert code == 0 and code_show == 0, err + err_show
    with RunHistory(url=postgres_server.url) as history:
        described = f"{history!r} {history.label}"
    for text in (out, err, shown, err_show, described):
        assert PASSWORD not in text
    # A server that is not there (no socket): the error names the database, password masked.
    gone = postgres_server.url.replace(PASSWORD, "other-password-123").replace("/run/", "/x/")
    with pytest.raises(HistoryError) as caught:
        RunHistory(url=gone)
    assert "other-password-123" not in str(caught.value)
    assert "cannot open the run history at postgresql+pg8000://ragas:****@localhost" in str(
        caught.value
    )
