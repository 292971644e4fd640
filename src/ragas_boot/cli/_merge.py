"""``runs merge GROUP``: the run of a group's shards (``runs/shards.py``), printed, recorded,
reported and gated through the dataset run's own ``report_run`` and ``exit_code``, so that it
says and exits what one machine's run of the whole dataset would."""

from __future__ import annotations

import argparse
import contextlib

from ragas_boot.cli._console import message
from ragas_boot.cli._dataset import RunPlan, exit_code, report_run

__all__ = ["merge_group"]


def merge_group(args: argparse.Namespace) -> int:
    """``runs merge GROUP``: the run of a group's shards, printed, recorded, reported and
    gated as one machine's run of the whole dataset would be (``report_run``, ``exit_code``).

    Raises:
        RunJournalError: a shard is missing, recorded twice or unfinished, or the shards ran
            another configuration or dataset (exit code 2, every reason named).
        UsageError: a bad ``--out``.
    """
    from ragas_boot.cli._arguments import comma_separated, settings_if_configured
    from ragas_boot.cli._options import RunOptions
    from ragas_boot.cli._reports import REPORT_KINDS, report_paths
    from ragas_boot.config.settings import RagasSettings
    from ragas_boot.datasets import Dataset
    from ragas_boot.runs.history import open_history
    from ragas_boot.runs.shards import merge_shards

    reports = report_paths(
        args.out, follow_symlinks=args.follow_symlinks, kinds=tuple(REPORT_KINDS.values())
    )
    settings = settings_if_configured(args) or RagasSettings()
    baseline = None
    with open_history(settings) as history:
        if args.baseline:  # resolved before the merged run is recorded, as a run's is
            baseline = history.load(args.baseline)
        merged = merge_shards(history, args.group, spool_after=settings.run.spool_after)
    run = merged.result
    with contextlib.ExitStack() as cleanup:
        cleanup.callback(run.close_spool)
        options = RunOptions(
            dataset=args.group,
            view="compare" if merged.kind == "compare" else "evaluate",
            config=args.config,
            profiles=tuple(comma_separated(args.profile)),
            out=tuple(args.out),
            fail_under=args.fail_under,
            min_pass_rate=args.min_pass_rate,
            min_sample_pass_rate=args.min_passed,
            follow_symlinks=args.follow_symlinks,
            baseline=args.baseline,
            fail_on_regression=args.fail_on_regression,
            tolerance=args.tolerance,
            history=not args.no_history,
        )
        settings, limits = options.over(settings)
        shards = ", ".join(f"{shard.shard} {shard.run_id}" for shard in merged.shards)
        message(f"Run group '{args.group}': {len(merged.shards)} shards merged ({shards})")
        plan = RunPlan(
            options=options,
            settings=settings,
            limits=limits,
            dataset=Dataset(name=run.dataset.name or args.group, path=run.dataset.path),
            metrics=[info.name for info in run.metrics],
            reports=reports,
            baseline=baseline,
        )
        reported = report_run(plan, run)
        return exit_code(plan, run, reported)
