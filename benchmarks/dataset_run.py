"""A dataset run at scale: N samples × 3 metrics × J judges against a local judge server.

Runs ``evaluate_dataset`` on N deterministic agent conversations with AgentGoalAccuracy (one
LLM step), TopicAdherence (two dependent steps) and ToolCallAccuracy (no LLM), every judge
answering after a fixed latency (the server runs in a child process, so this process's CPU
and memory are the client's alone), then writes the JSON report (and, with ``--html``, the
HTML report) to a file. Prints the wall and CPU time of the run, the judge calls, the RSS of
this process before the run, after it and its peak with the reports written, and their sizes.

    .venv/bin/python benchmarks/dataset_run.py                       # N=10,000, J=4, 200 ms
    .venv/bin/python benchmarks/dataset_run.py --n 1000 --concurrency 64
    .venv/bin/python benchmarks/dataset_run.py --n 2000 --latency-ms 50 --spool-after never

    .venv/bin/python benchmarks/dataset_run.py --sizes 10000 30000 --latency-ms 5

``--sizes`` runs one child process per N (peak RSS is a process's lifetime maximum) and prints
the RSS after each run and its peak, per sample, and how much the RSS after the run grew per
sample from one N to the next: what a run keeps that grows with it.

``--spool-after`` is the run's ``spool_after`` (default: the library's, 1,000 samples; ``never``
keeps every judge call's prompt and raw answers in memory, as before the spool).

``--journal`` records the run as it goes in a SQLite run history (in the temporary folder), as
the CLI does by default so that a killed run can be resumed: each finished evaluation one
compressed row, written by the journal's thread in group commits. It prints the rows' size.
"""

from __future__ import annotations

import argparse
import itertools
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _workload import JudgeServer, agent_samples, cpu_seconds

from ragas_boot import create_container, load_settings
from ragas_boot.reporting import render_json
from ragas_boot.reporting.html_report import html_chunks
from ragas_boot.reporting.json_report import json_chunks
from ragas_boot.runs import evaluate_dataset
from ragas_boot.runs.history import RunHistory, new_run_id
from ragas_boot.runs.journal import RunJournal, dataset_fingerprint
from ragas_boot.runs.spool import DEFAULT_SPOOL_AFTER

API_KEY = "sk-bench-not-a-real-key"
METRICS = ("agent_goal_accuracy", "topic_adherence", "tool_call_accuracy")


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def current_rss_mb() -> float:
    """Resident set size now, in MiB."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        pages = int(statm.read().split()[1])
    return pages * resource.getpagesize() / 2**20


def write_settings(folder: Path, base_url: str, judges: int, concurrency: int) -> Path:
    models = "\n".join(f"          - {{ id: judge-{index + 1} }}" for index in range(judges))
    path = folder / "application.yaml"
    path.write_text(
        f"""\
spring.ai.ragas:
  metrics.logging.enabled: false
  providers:
    openai-compatible:
      - name: bench
        base-url: {base_url}
        api-key: {API_KEY}
        max-concurrency: {judges * concurrency}
        timeout: 60s
        chat-models:
{models}
""",
        encoding="utf-8",
    )
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=10_000, help="samples (default 10,000)")
    parser.add_argument("--judges", type=int, default=4, help="judges (default 4)")
    parser.add_argument("--latency-ms", type=float, default=200.0, help="judge latency")
    parser.add_argument(
        "--concurrency", type=int, default=128, help="evaluations in flight (default 128)"
    )
    parser.add_argument(
        "--report",
        choices=("streamed", "whole"),
        default="streamed",
        help="write the JSON report a sample at a time as the CLI does (default), or as one "
        "string (the peak RSS of the old way)",
    )
    parser.add_argument(
        "--spool-after",
        default=str(DEFAULT_SPOOL_AFTER),
        help=f"spool runs of more samples than this (default {DEFAULT_SPOOL_AFTER}); 0 = "
        "always, 'never' = keep every judge call in memory",
    )
    parser.add_argument(
        "--html",
        action="store_true",
        help="also write the HTML report (a sample at a time, as the CLI writes it), after "
        "the JSON one: its size, and the peak RSS with it",
    )
    parser.add_argument(
        "--journal",
        action="store_true",
        help="journal the run in a SQLite run history, as the CLI does (resumable runs)",
    )
    parser.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        help="run each N in its own process and compare the RSS kept (e.g. 10000 30000)",
    )
    options = parser.parse_args()
    if options.sizes:
        compare_sizes(options)
        return
    spool_after = None if options.spool_after == "never" else int(options.spool_after)
    samples = agent_samples(options.n)
    print(
        f"dataset run: N={options.n} samples × {len(METRICS)} metrics × J={options.judges} "
        f"judges, latency {options.latency_ms:g} ms, concurrency {options.concurrency}, "
        f"spool-after {options.spool_after}"
    )
    with JudgeServer(latency_ms=options.latency_ms) as server, tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        settings = load_settings(
            write_settings(folder, server.base_url, options.judges, options.concurrency)
        )
        with create_container(settings) as container:
            metrics = [getattr(container, name)() for name in METRICS]
            evaluate_dataset(samples[:2], metrics)  # warm-up: imports, connections
            server.reset()
            history = journal = None
            if options.journal:
                history = RunHistory(url=f"sqlite:///{folder / 'history.db'}")
                journal = RunJournal.start(
                    history,
                    run_id=new_run_id(),
                    kind="evaluate",
                    config_fingerprint="sha256:bench",
                    dataset_fingerprint=dataset_fingerprint(samples),
                    samples=len(samples),
                )
            before = current_rss_mb()
            cpu, started = cpu_seconds(), time.perf_counter()
            run = evaluate_dataset(
                samples,
                metrics,
                concurrency=options.concurrency,
                spool_after=spool_after,
                journal=journal,
            )
            wall, cpu = time.perf_counter() - started, cpu_seconds() - cpu
            journal_size = None
            if journal is not None and history is not None:
                journal_size = (folder / "history.db").stat().st_size
                journal.close(run, keep=True)
                history.close()
            after_run = current_rss_mb()
            stats = server.stats()
            report = folder / "report.json"
            with report.open("w", encoding="utf-8") as file:
                if options.report == "whole":  # the whole document as one string
                    file.write(render_json(run))
                else:  # a sample at a time, as the CLI writes it
                    file.writelines(json_chunks(run))
            size = report.stat().st_size
            peak_json = peak_rss_mb()
            html_size = None
            if options.html:
                page = folder / "report.html"
                with page.open("w", encoding="utf-8") as file:  # a sample at a time, as the CLI
                    file.writelines(html_chunks(run))
                html_size = page.stat().st_size
            spooled = run.spooled
            run.close_spool()
        statuses: dict[str, int] = {}
        for sample in run.samples:
            for evaluation in sample.evaluations:
                statuses[evaluation.status] = statuses.get(evaluation.status, 0) + 1
    print(f"  wall of the run              {wall:.1f} s")
    print(f"  process CPU (client only)    {cpu:.1f} s")
    print(f"  judge calls (server)         {stats.count:,} ({stats.failed} non-200)")
    print(f"  CPU per judge call           {1000 * cpu / max(stats.count, 1):.2f} ms")
    print(f"  evaluations                  {statuses}")
    print(f"  spooled                      {'yes' if spooled else 'no'}")
    if journal_size is not None:
        evaluations = sum(statuses.values())
        print(
            f"  journal (history.db)         {journal_size / 2**20:.1f} MiB, "
            f"{journal_size / 1024 / evaluations:.2f} KiB per evaluation"
        )
    print(f"  RSS before the run           {before:.0f} MiB")
    print(f"  RSS after the run            {after_run:.0f} MiB")
    print(f"  peak RSS (run + JSON report) {peak_json:.0f} MiB")
    print(f"  JSON report                  {size / 2**20:.1f} MiB")
    if html_size is not None:
        print(f"  peak RSS with the HTML too   {peak_rss_mb():.0f} MiB")
        print(f"  HTML report                  {html_size / 2**20:.1f} MiB")
    print(f"  RSS per sample kept          {1024 * (after_run - before) / options.n:.1f} KiB")


def compare_sizes(options: argparse.Namespace) -> None:
    """One child run per N; a table of RSS after the run and peak, and the growth per sample."""
    rows: list[tuple[int, float, float, float]] = []
    for n in options.sizes:
        command = [
            sys.executable, __file__, "--n", str(n), "--judges", str(options.judges),
            "--latency-ms", str(options.latency_ms), "--concurrency", str(options.concurrency),
            "--spool-after", options.spool_after,
        ]  # fmt: skip
        output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        print(output, end="")
        figures = {
            name: float(re.search(rf"{name}\s+([0-9.]+) MiB", output).group(1))  # type: ignore[union-attr]
            for name in (
                "RSS before the run",
                "RSS after the run",
                r"peak RSS \(run \+ JSON report\)",
            )
        }
        values = list(figures.values())
        rows.append((n, values[0], values[1], values[2]))
    print("\n  N        before   after    peak     after-before per sample")
    for n, before, after, peak in rows:
        print(
            f"  {n:<8,} {before:5.0f} MiB {after:5.0f} MiB {peak:5.0f} MiB "
            f"{1024 * (after - before) / n:6.2f} KiB"
        )
    for (n1, b1, a1, _), (n2, b2, a2, _) in itertools.pairwise(rows):
        growth = 1024 * ((a2 - b2) - (a1 - b1)) / (n2 - n1)
        print(f"  kept per sample from N={n1:,} to N={n2:,}: {growth:.2f} KiB")


if __name__ == "__main__":
    main()
