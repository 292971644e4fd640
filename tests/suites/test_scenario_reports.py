"""The scenarios in every report: console, JSON, HTML (a transcript per play), Markdown;
the gate and the failure analysis keep simulator failures apart."""

from __future__ import annotations

import json

import pytest
from scenario_helpers import SUITE, booking_agent

from ragas_boot.reporting import render_console, render_html, render_json, render_markdown
from ragas_boot.runs.analysis import analyze_failures
from ragas_boot.suites import run_suite, validate_suite


@pytest.fixture(scope="module")
def run():
    """Three plays: one passes, one the user gives up on, one whose user script breaks."""
    plays = iter(["pass", "give up", "break"])
    current = {}

    def user(conversation, scenario):
        if not conversation:
            current["plan"] = next(plays)
            return "A table for two on Friday, please."
        if current["plan"] == "break":
            raise ConnectionError("the user's script lost its line")
        if current["plan"] == "give up":
            from ragas_boot.runs.simulation.user import UserTurn

            return UserTurn(message="", done=True, outcome="gave_up", why="it only asks questions")
        if "Shall I book it?" in conversation[-1].content:
            return "yes"
        return None

    suite = validate_suite({**SUITE, "repeat": 3, "concurrency": 1})
    return run_suite(suite, booking_agent(), user=user)


def test_outcomes_gate_and_analysis(run):
    ends = [s.sample.agent_run.simulation.end for s in run.samples]
    assert ends == ["goal_met", "gave_up", "simulator_failed"]
    assert "ConnectionError" in run.samples[2].sample.agent_run.simulation.reason
    assert (
        run.passed_samples,
        (len(run.samples) - run.simulator_failures),
        run.simulator_failures,
    ) == (1, 2, 1)
    gate = run.gate(min_sample_pass_rate=0.5)
    assert gate.passed and gate.sample_pass_rate == 0.5
    analysis = analyze_failures(run)
    assert analysis.group("user_gave_up").sample_ids == ["friday_table#2"]
    assert analysis.group("simulator_failures").sample_ids == ["friday_table#3"]
    assert analysis.group("agent_errors") is None


def test_console(run):
    text = render_console(run)
    assert "Scenarios" in text
    assert "Scenarios: 1/2 plays passed (50.0%, 95% CI [" in text
    assert "pass^3 0.0%" in text
    assert "1 gave up" in text and "1 simulator failure(s), not counted" in text
    assert "SIM" in text  # the simulator's failure, not FAIL
    assert "Samples passing every metric: 1/2 (50.0%)" in text
    assert "1 simulator failure(s)\nnot counted" in text  # the headline, wrapped at 120


def test_json(run):
    document = json.loads(render_json(run))
    simulation = document["simulation"]
    assert (simulation["plays"], simulation["counted"], simulation["passed"]) == (3, 2, 1)
    assert simulation["k"] == 3 and simulation["pass_hat_k"] == 0.0
    (scenario,) = simulation["scenarios"]
    assert scenario["ends"] == {"gave_up": 1, "goal_met": 1, "simulator_failed": 1}
    assert scenario["sample_ids"] == ["friday_table#1", "friday_table#2", "friday_table#3"]
    first = document["samples"][0]["sample"]
    assert first["scenario"]["goal"] == "Book a table for two on Friday 2 May 2025"
    assert first["agent_run"]["simulation"]["end"] == "goal_met"


def test_html_shows_the_section_and_each_transcript(run):
    page = render_html(run)
    assert '<section class="card" id="scenarios">' in page
    for play in (1, 2, 3):  # each play links to its sample's collapsible view
        assert f'href="#sample-friday_table_{play}"' in page
        assert f'<details class="sample" id="sample-friday_table_{play}"' in page
    # each play is a collapsible sample holding its transcript and the scenario
    assert page.count('<details class="sample"') == 3
    assert "A table for two on Friday, please." in page
    assert "<td>Book a table for two on Friday 2 May 2025</td>" in page  # the goal


def test_markdown(run):
    text = render_markdown(run)
    assert "### Scenarios" in text
    assert "| friday_table | 3 | 1/2 | 50.0% |" in text
