"""The scenarios section of the console, HTML and Markdown reports (the JSON report holds the
summary as data): per scenario its plays, pass rate with its Wilson interval and pass^k, how
the conversations ended; then the totals, simulator failures (not counted) and what the
simulator spent. Each play's transcript is its sample's conversation (collapsible in HTML).
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from ragas_boot.reporting import _format as fmt
from ragas_boot.reporting._html import escape as _e
from ragas_boot.reporting._html import numeric_cell, sample_anchor, table
from ragas_boot.runs.results import RunResult
from ragas_boot.runs.simulation.summary import (
    ScenarioSummary,
    SimulationSummary,
    simulation_summary,
)

__all__ = [
    "simulation_headline",
    "simulation_html",
    "simulation_markdown",
    "simulation_renderables",
]


def _pass_all(summary: ScenarioSummary) -> str:
    if summary.pass_all is None:
        return fmt.MISSING
    return "yes" if summary.pass_all else "no"


def _ends(summary: ScenarioSummary) -> str:
    return ", ".join(f"{end.replace('_', ' ')} {count}" for end, count in summary.ends.items())


def simulation_headline(summary: SimulationSummary, separator: str = " · ") -> str:
    """``Scenarios: 18/20 plays passed (90.0%, 95% CI [69.9%, 97.2%]) · pass^5 80.0% · ...``
    (the parts joined by ``separator``)."""
    k = f"pass^{summary.k}" if summary.k is not None else "pass^k"
    parts = [
        f"Scenarios: {summary.passed}/{summary.counted} plays passed "
        f"({fmt.percent(summary.pass_rate)}, 95% CI "
        f"{fmt.interval(summary.wilson_low, summary.wilson_high)})",
        f"{k} {fmt.percent(summary.pass_hat_k)}",
    ]
    if summary.not_concluded:
        parts.append(f"{summary.not_concluded} not concluded")
    if summary.gave_up:
        parts.append(f"{summary.gave_up} gave up")
    if summary.agent_errors:
        parts.append(f"{summary.agent_errors} agent error(s)")
    if summary.simulator_failures:
        parts.append(f"{summary.simulator_failures} simulator failure(s), not counted")
    per_turn = f"{summary.requests_per_turn:.2f}" if summary.requests_per_turn is not None else "—"
    spend = (
        f"simulator: {summary.simulator_calls} calls, {summary.simulator_requests} requests "
        f"({per_turn} per user turn), {summary.cache_hits} from the cache"
    )
    if summary.cost is not None:
        spend += f", {fmt.cost(summary.cost)}"
    parts.append(spend)
    return separator.join(parts)


def simulation_renderables(summary: SimulationSummary) -> list[RenderableType]:
    """The scenarios table and the headline, for a rich console."""
    rows = Table(title="Scenarios", title_justify="left")
    for name in ("Scenario", "Plays", "Passed", "Pass rate", "95% CI", "pass^k", "Turns"):
        rows.add_column(name, justify="left" if name == "Scenario" else "right", no_wrap=True)
    rows.add_column("Ended")
    for item in summary.scenarios:
        rows.add_row(
            fmt.plain(item.scenario),
            str(item.plays),
            f"{item.passed}/{item.counted}",
            fmt.percent(item.pass_rate),
            fmt.interval(item.wilson_low, item.wilson_high),
            Text(_pass_all(item), style="green" if item.pass_all else "red"),
            f"{item.user_turns:.1f}" if item.user_turns is not None else fmt.MISSING,
            fmt.plain(_ends(item)),
        )
    style = "magenta" if summary.simulator_failures else ""
    return [rows, Text(simulation_headline(summary, "\n"), style=style)]


def simulation_html(run: RunResult) -> str:
    """The scenarios section of the HTML page: a row per scenario (its goal), its plays
    linked to their samples (each a collapsible transcript below); "" without scenarios."""
    summary = simulation_summary(run)
    if summary is None:
        return ""
    rows = []
    for item in summary.scenarios:
        plays = " ".join(
            f'<a href="#{sample_anchor(sample_id)}">{_e(sample_id)}</a>'
            for sample_id in item.sample_ids
        )
        rows.append(
            f"<tr><td>{_e(item.scenario)}</td><td>{_e(item.goal or '')}</td>"
            f"{numeric_cell(str(item.plays))}"
            f"{numeric_cell(f'{item.passed}/{item.counted}')}"
            f"{numeric_cell(fmt.percent(item.pass_rate))}"
            f"{numeric_cell(fmt.interval(item.wilson_low, item.wilson_high))}"
            f"<td>{_e(_pass_all(item))}</td><td>{_e(_ends(item))}</td><td>{plays}</td></tr>"
        )
    listed = table(
        ("Scenario", "Goal", "Plays", "Passed", "Pass rate", "95% CI", "pass^k", "Ended", "Plays"),
        rows,
        numeric=(2, 3, 4, 5),
    )
    note = (
        "Each scenario played by a simulated user. pass^k: every counted play passed. A "
        "simulator failure (the user or a simulated tool gave no valid answer) is not the "
        "agent's: it is left out of the pass rate. Click a play's sample for its transcript."
    )
    return (
        f'<section class="card" id="scenarios"><h2>Scenarios</h2>'
        f"<p>{_e(simulation_headline(summary))}</p>{listed}"
        f'<p class="muted">{_e(note)}</p></section>'
    )


def simulation_markdown(summary: SimulationSummary, cell: Callable[[object], str]) -> list[str]:
    """The scenarios as Markdown lines: the headline, then a row per scenario; ``cell``
    escapes a table cell (the Markdown report's own rule)."""
    lines = [
        "### Scenarios",
        "",
        cell(simulation_headline(summary)),
        "",
        "| Scenario | Plays | Passed | Pass rate | 95% CI | pass^k | Ended |",
        "|---|---:|---:|---:|---:|---|---|",
    ]
    for item in summary.scenarios:
        lines.append(
            f"| {cell(item.scenario)} | {item.plays} | {item.passed}/{item.counted} | "
            f"{fmt.percent(item.pass_rate)} | {fmt.interval(item.wilson_low, item.wilson_high)} "
            f"| {_pass_all(item)} | {cell(_ends(item))} |"
        )
    return lines
