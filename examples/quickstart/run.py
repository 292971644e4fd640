"""Quick start: score three agent conversations with all three metrics on a real local model.

Run from the repository root, after ``pip install -e '.[local]'``::

    .venv/bin/python examples/quickstart/run.py

It reads ``./application.yaml`` (the repository's embedded default) or, when there is none in
the working directory, the ``application.yaml`` beside this script; ``--config`` names another
and ``--profile`` activates a profile (``--profile openrouter`` for real judges). The samples
come from ``dataset.yaml`` beside this script (``--sample ID`` picks some). Everything runs
offline: the judge is the SmolLM2-135M model bundled by the ``[local]`` extra, served by
llama.cpp on 127.0.0.1. That model is a smoke-test judge: its answers always fit the schema,
its verdicts are close to a coin flip. It proves the plumbing, not the judgement.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ragas_boot import RagasBootError, RagasContainer, Sample, create_container, load_settings
from ragas_boot.chat import LocalJudge
from ragas_boot.datasets import load_dataset
from ragas_boot.metrics import Metric, MetricResult

HERE = Path(__file__).resolve().parent
METRICS = ("tool_call_accuracy", "agent_goal_accuracy", "topic_adherence")
HEADERS = ("ToolCallAccuracy", "AgentGoalAccuracy", "TopicAdherence")


def config_path(given: str | None) -> Path:
    """``--config``, else ``./application.yaml``, else the one beside this script."""
    if given:
        return Path(given)
    here = Path.cwd() / "application.yaml"
    return here if here.is_file() else HERE / "application.yaml"


def score_cell(
    metric: Metric, sample: Sample, results: list[MetricResult], notes: list[str]
) -> str:
    """Evaluate one metric on one sample; the cell shows the score, or a note says why not."""
    try:
        result = metric.evaluate(sample)
    except RagasBootError as error:  # e.g. every judge failed a step: shown, not fatal
        notes.append(f"{metric.name} on {sample.id}: {_short(str(error))}")
        return f"[red]no score[/red] [{len(notes)}]"
    results.append(result)
    if result.score is None:
        notes.append(f"{metric.name} on {sample.id}: {result.undefined_reason}")
        return f"[yellow]n/a[/yellow] [{len(notes)}]"
    cell = f"{result.score:.2f}"
    if result.exclusions:
        excluded = "; ".join(f"{e.judge_id}: {e.message}" for e in result.exclusions)
        notes.append(f"{metric.name} on {sample.id}: excluded {_short(excluded)}")
        cell += f" [yellow][{len(notes)}][/yellow]"
    return cell


def _short(text: str, limit: int = 220) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe_judges(container: RagasContainer, console: Console) -> None:
    for judge in container.judges():
        where = (
            f"local GGUF {judge.spec.local.model_path.name}"
            if isinstance(judge, LocalJudge) and judge.spec.local is not None
            else judge.spec.base_url
        )
        console.print(
            f"judge [bold]{escape(judge.id)}[/bold] ({escape(judge.provider)}): {escape(where)}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", help="application.yaml to read")
    parser.add_argument("--profile", action="append", help="Spring profile to activate")
    parser.add_argument("--sample", action="append", help="only this sample id (repeatable)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR, format="%(levelname)s %(name)s: %(message)s")
    console = Console()

    path = config_path(args.config)
    try:
        settings = load_settings(path, profiles=args.profile)
    except RagasBootError as error:  # a config problem: say what to fix, no traceback
        console.print(f"[red]{escape(str(error))}[/red]", highlight=False)
        return 2
    samples = [
        sample
        for sample in load_dataset(HERE / "dataset.yaml").samples
        if not args.sample or sample.id in args.sample
    ]
    console.print(f"config: {path} (profiles: {', '.join(settings.source.active_profiles)})")

    started = time.perf_counter()
    results: list[MetricResult] = []
    notes: list[str] = []
    table = Table(title="Scores (1.0 = best)")
    table.add_column("sample")
    for header in HEADERS:
        table.add_column(header, justify="right")
    try:
        container = create_container(settings)
    except RagasBootError as error:  # e.g. MissingExtraError: the command to run
        console.print(f"[red]{escape(str(error))}[/red]", highlight=False)
        return 2
    with container:
        describe_judges(container, console)
        metrics = [getattr(container, name)() for name in METRICS]
        for sample in samples:
            table.add_row(
                sample.id, *(score_cell(metric, sample, results, notes) for metric in metrics)
            )
        judges = container.judges()
        load_s = [
            judge.server.start_s
            for judge in judges
            if isinstance(judge, LocalJudge) and judge.server.start_s is not None
        ]
    console.print(table)
    for number, note in enumerate(notes, start=1):
        console.print(f"[{number}] {note}", markup=False, highlight=False)

    calls = [call for result in results for step in result.steps for call in step.calls]
    answered = [call for call in calls if call.ok]
    if calls:
        mean = sum(call.latency_s for call in calls) / len(calls)
        tokens = sum(call.usage.total_tokens for call in calls)
        console.print(
            f"{len(calls)} judge calls ({len(answered)} answered), {mean:.2f} s per call on "
            f"average, {tokens} tokens; total {time.perf_counter() - started:.1f} s"
            + (f"; local model server ready in {max(load_s):.2f} s" if load_s else "")
        )
    if any(isinstance(judge, LocalJudge) for judge in judges):
        console.print(
            "[dim]The bundled SmolLM2-135M is a smoke-test judge: it proves the plumbing, not "
            "the judgement. Point model-path at a bigger GGUF, or run with --profile "
            "openrouter and OPENROUTER_API_KEY for real judges (docs/local-judge.md).[/dim]"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
