"""How a dataset run records itself as it goes, so that it can be resumed (``--resume``) or
merged with its sibling shards (``--shard I/N --run-group NAME``, then ``runs merge NAME``).

:func:`plan_record` (in the plan, before any judge is asked) picks the shard's samples, gives
the shard its share of the providers' limits, fingerprints the configuration and the whole
dataset and, for ``--resume``, checks the run against the one recorded; :func:`start_record`
opens the run's journal in the history and says so in the run's header; :func:`end_record`
closes it with the run's result. A history that cannot be written costs the run only its
resumability, said in a warning; the reports never wait for it. ``runs merge`` is
``cli/_merge.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ragas_boot.cli._console import message
from ragas_boot.cli._errors import UsageError

if TYPE_CHECKING:
    from ragas_boot.cli._options import RunOptions
    from ragas_boot.config.settings import RagasSettings
    from ragas_boot.datasets import Dataset
    from ragas_boot.runs import RunResult
    from ragas_boot.runs.journal import JournalRun, RunJournal
    from ragas_boot.runs.shards import ShardSpec

__all__ = ["RunRecord", "end_record", "plan_record", "start_record"]


@dataclass(kw_only=True, slots=True)
class RunRecord:
    """A run's record as it goes: its id, what it is (fingerprints, shard, group), whether
    it resumes an earlier one; its journal while it runs."""

    run_id: str
    kind: str
    config_fingerprint: str
    dataset_fingerprint: str
    samples: int
    total: int  # samples in the whole dataset
    positions: dict[str, int] | None
    shard: ShardSpec | None = None
    group: str | None = None
    resume: bool = False
    limit_lines: list[str] = field(default_factory=list)
    journal: RunJournal | None = None


def _recording(options: RunOptions, settings: RagasSettings) -> bool:
    return options.history and settings.history.enabled and not options.dry_run


def plan_record(
    options: RunOptions,
    settings: RagasSettings,
    dataset: Dataset,
    metrics: list[str],
    *,
    suite: bool,
) -> tuple[Dataset, RagasSettings, RunRecord | None]:
    """The dataset and settings of this run (a shard's samples and limits), and its record
    (None: the history is off, or the run is a suite's).

    Raises:
        UsageError: ``--shard`` / ``--run-group`` / ``--resume`` where they cannot apply.
        RunJournalError: ``--resume`` names no run, a finished one, or one of another
            configuration, dataset or shard.
        HistoryError: ``--resume`` cannot read the history.
    """
    from ragas_boot.runs.history import new_run_id
    from ragas_boot.runs.journal import config_fingerprint, dataset_fingerprint
    from ragas_boot.runs.shards import ShardSpec

    asked = [
        flag
        for flag, value in (
            ("--resume", options.resume),
            ("--shard", options.shard),
            ("--run-group", options.run_group),
        )
        if value
    ]
    if asked and suite:
        raise UsageError(f"{asked[0]} applies to dataset runs, not to a suite's")
    if asked and not _recording(options, settings):
        why = (
            "--dry-run"
            if options.dry_run
            else "--no-history"
            if not options.history
            else "spring.ai.ragas.history.enabled: false"
        )
        raise UsageError(f"{asked[0]} needs the run history, which {why} leaves out")
    if suite or not _recording(options, settings):
        return dataset, settings, None
    shard = None
    if options.shard:
        try:
            shard = ShardSpec.parse(options.shard)
        except ValueError as error:
            raise UsageError(f"--shard: {error}") from None
        if not options.run_group:
            raise UsageError(
                f"--shard {shard} needs --run-group NAME: the group `ragas-boot runs merge "
                "NAME` merges"
            )
    elif options.run_group and not options.resume:
        raise UsageError(f"--run-group {options.run_group} names a group of shards: give --shard")
    resumed = None
    if options.resume:
        resumed = _recorded_run(settings, options.resume)
        if resumed.shard_index is not None and resumed.shard_count is not None:
            recorded = ShardSpec(resumed.shard_index, resumed.shard_count)
            if shard is not None and shard != recorded:
                raise UsageError(
                    f"--shard {shard}: run {resumed.run_id} is shard {recorded} of group "
                    f"'{resumed.run_group}' (leave --shard out to resume it as it was)"
                )
            shard = recorded
        elif shard is not None:
            raise UsageError(f"--shard {shard}: run {resumed.run_id} is not a shard")
    whole = dataset.samples
    positions = None
    lines: list[str] = []
    if shard is not None:
        from ragas_boot.runs.shards import shard_limits

        chosen = shard.select(whole)
        positions = {sample.id or "": position for position, sample in chosen}
        dataset = dataset.model_copy(update={"samples": [sample for _, sample in chosen]})
        settings, lines = shard_limits(settings, shard.count)
    fingerprint = config_fingerprint(
        settings,
        kind=options.view,
        metrics=metrics,
        overrides=options.metric_overrides(metrics),
    )
    record = RunRecord(
        run_id=resumed.run_id if resumed is not None else new_run_id(),
        kind=options.view,
        config_fingerprint=fingerprint,
        dataset_fingerprint=dataset_fingerprint(whole),
        samples=len(dataset),
        total=len(whole),
        positions=positions,
        shard=shard,
        group=resumed.run_group if resumed is not None else options.run_group,
        resume=resumed is not None,
        limit_lines=lines,
    )
    if resumed is not None:
        from ragas_boot.runs.journal import check_resumable

        check_resumable(
            resumed,
            kind=record.kind,
            config_fingerprint=record.config_fingerprint,
            dataset_fingerprint=record.dataset_fingerprint,
            samples=record.samples,
        )
    return dataset, settings, record


def _recorded_run(settings: RagasSettings, reference: str) -> JournalRun:
    from ragas_boot.runs.history import open_history
    from ragas_boot.runs.journal import JournalStore

    with open_history(settings) as history:
        return JournalStore(history).resolve(reference)


def start_record(record: RunRecord | None, settings: RagasSettings) -> RunJournal | None:
    """Open the run's journal (a new run, or the one it resumes) and print the run's header;
    None, with a warning saying why, when the history cannot take it."""
    if record is None:
        return None
    from ragas_boot.errors import HistoryError, MissingExtraError, RunJournalError
    from ragas_boot.runs.history import open_history
    from ragas_boot.runs.journal import RunJournal

    try:
        history = open_history(settings)
    except (HistoryError, MissingExtraError) as error:
        message(f"warning: this run cannot be resumed if it stops: {error}", "yellow")
        return None
    try:
        if record.resume:
            journal = RunJournal.resume(
                history,
                record.run_id,
                kind=record.kind,
                config_fingerprint=record.config_fingerprint,
                dataset_fingerprint=record.dataset_fingerprint,
                samples=record.samples,
                positions=record.positions,
            )
        else:
            journal = RunJournal.start(
                history,
                run_id=record.run_id,
                kind=record.kind,
                config_fingerprint=record.config_fingerprint,
                dataset_fingerprint=record.dataset_fingerprint,
                samples=record.samples,
                positions=record.positions,
                run_group=record.group,
                shard=(record.shard.index, record.shard.count) if record.shard else None,
            )
    except RunJournalError:
        history.close()
        raise
    except HistoryError as error:
        history.close()
        message(f"warning: this run cannot be resumed if it stops: {error}", "yellow")
        return None
    record.journal = journal
    _header(record)
    return journal


def _header(record: RunRecord) -> None:
    if record.resume:
        message(f"Run {record.run_id} resumed: what it finished before is not scored again")
    else:
        message(
            f"Run {record.run_id} started; if it stops or is killed, --resume {record.run_id} "
            "continues it",
            "dim",
        )
    if record.shard is not None:
        message(
            f"Shard {record.shard} of run group '{record.group}': {record.samples} of "
            f"{record.total} samples; `ragas-boot runs merge {record.group}` merges the group"
        )
        count = record.shard.count
        message(
            f"Limits of this shard (1/{count} of each provider's; limits-per-machine: true "
            "keeps them whole):"
        )
        for line in record.limit_lines:
            message(f"  {line}")


def end_record(record: RunRecord | None, run: RunResult | None) -> None:
    """Close the run's journal with its result (``None``: the run raised; it stays
    resumable); warn when it cannot be resumed."""
    from ragas_boot.errors import HistoryError

    journal = record.journal if record is not None else None
    if journal is None:
        return
    try:
        journal.close(run)
    except HistoryError as error:
        message(f"warning: the end of run {journal.run_id} was not recorded: {error}", "yellow")
    finally:
        journal.history.close()
    if journal.problem is not None:
        message(
            f"warning: run {journal.run_id}'s journal stopped writing part-way ("
            f"{journal.problem}): what it did not record would be scored again by --resume, "
            "and a shard's would not merge",
            "yellow",
        )
