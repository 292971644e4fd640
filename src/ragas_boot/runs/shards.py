"""A run split across machines: each shard scores the samples whose id hashes to it, records
itself in the shared run history under one group, and the group merges into one run.

- :class:`ShardSpec` (``--shard i/N``) picks a sample by a stable hash of its id (SHA-256,
  the same on every machine and Python), so the shards of a dataset are disjoint and cover it
  whatever order the machines start in.
- :func:`shard_limits` gives each of N shards 1/N of every provider's ``rate-limit`` and
  ``max-concurrency``, so that N machines together stay within the provider's limits; a
  provider (or ``providers``) with ``limits-per-machine: true`` keeps its limits whole, and
  the embedded ``local`` provider always does (its model runs in each process).
- :func:`merge_shards` builds one :class:`~ragas_boot.runs.RunResult` from the journals of a
  group's shards (``runs merge GROUP``): the samples back in dataset order with their
  evaluations as each shard recorded them, summarised as the engine summarises one run, so
  its per-sample results, summaries, gate and reports are one machine's. It refuses, naming
  each, a shard that is missing, recorded twice or unfinished, and shards that ran another
  configuration or dataset.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragas_boot.config.settings import RateLimitSettings
from ragas_boot.errors import RunJournalError
from ragas_boot.runs._assembly import assemble_run
from ragas_boot.runs.journal import (
    JournalRun,
    JournalStore,
    read_evaluation,
    read_sample,
)
from ragas_boot.runs.records import DatasetInfo, Evaluation, JudgeInfo, MetricInfo
from ragas_boot.runs.results import RunResult
from ragas_boot.runs.spool import DEFAULT_SPOOL_AFTER, EvaluationSpool
from ragas_boot.samples import Sample

if TYPE_CHECKING:
    from ragas_boot.config.settings import RagasSettings
    from ragas_boot.runs.history import RunHistory

__all__ = ["MergedRun", "ShardSpec", "merge_shards", "shard_limits"]


@dataclass(frozen=True, slots=True)
class ShardSpec:
    """Shard ``index`` of ``count`` (1-based, as ``--shard 2/4`` and CI matrices count)."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if self.count < 1 or not 1 <= self.index <= self.count:
            raise ValueError(f"a shard is I/N with 1 <= I <= N, got {self.index}/{self.count}")

    @classmethod
    def parse(cls, text: str) -> ShardSpec:
        """``"2/4"`` → shard 2 of 4.

        Raises:
            ValueError: not ``I/N`` with ``1 <= I <= N``.
        """
        index, slash, count = text.strip().partition("/")
        if not slash or not index.strip().isdigit() or not count.strip().isdigit():
            raise ValueError(f"a shard is I/N (2/4: the second of four), got {text!r}")
        return cls(int(index), int(count))

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, sample_id: str) -> bool:
        """Whether the sample of this id belongs to this shard."""
        digest = hashlib.sha256(sample_id.encode()).digest()
        return int.from_bytes(digest[:8], "big") % self.count == self.index - 1

    def select(self, samples: Sequence[Sample]) -> list[tuple[int, Sample]]:
        """This shard's samples with their place in ``samples``, in order."""
        return [
            (position, sample)
            for position, sample in enumerate(samples)
            if self.holds(sample.id or "")
        ]


# ----------------------------------------------------------------------------- limits


def _divided_rps(rps: float | None, count: int) -> float | None:
    return rps / count if rps else rps


def _divided_concurrency(value: int, count: int) -> int:
    return max(1, value // count)


def shard_limits(settings: RagasSettings, count: int) -> tuple[RagasSettings, list[str]]:
    """The settings of one of ``count`` shards: each provider's rate limit (requests per
    second) and ``max-concurrency`` divided by ``count`` (concurrency rounded down, at least
    1), unless it (or ``providers``) says ``limits-per-machine: true``; and one line per
    provider saying what it gets, for the run's header.
    """
    providers = settings.providers
    every = providers.limits_per_machine
    default_rps = providers.rate_limit.default_rps
    default_concurrency = providers.max_concurrency
    lines: list[str] = []

    def limited(section: Any, name: str) -> Any:
        whole = section.limits_per_machine if section.limits_per_machine is not None else every
        own = section.rate_limit
        rps = own.rps if own is not None and own.rps is not None else default_rps
        concurrency = getattr(section, "max_concurrency", None) or default_concurrency
        new_rps = rps if whole else _divided_rps(rps, count)
        new_concurrency = concurrency if whole else _divided_concurrency(concurrency, count)
        update: dict[str, Any] = {}
        if rps:
            update["rate_limit"] = (own or RateLimitSettings()).model_copy(update={"rps": new_rps})
        if "max_concurrency" in type(section).model_fields:
            update["max_concurrency"] = new_concurrency
        else:  # providers.max-concurrency, divided for all or for none
            new_concurrency = concurrency if every else _divided_concurrency(concurrency, count)
        lines.append(_limit_line(name, whole, rps, new_rps, concurrency, new_concurrency, count))
        return section.model_copy(update=update)

    compatible = [limited(item, item.name) for item in providers.openai_compatible]
    langchain = [limited(item, item.name) for item in providers.langchain]
    starters = {key: limited(item, key) for key, item in providers.external_starters.items()}
    update: dict[str, Any] = {
        "openai_compatible": compatible,
        "langchain": langchain,
        "external_starters": starters,
    }
    if providers.default_provider.models:  # its concurrency is providers.max-concurrency
        update["default_provider"] = limited(providers.default_provider, "default-provider")
    if not every:
        # Providers with no section of their own (spring.ai.openai's, spring.ai.gigachat's
        # without external-starters) take the defaults: divide those too, but not for the
        # local model, whose limits are its own machine's.
        update["rate_limit"] = providers.rate_limit.model_copy(
            update={"default_rps": _divided_rps(default_rps, count)}
        )
        update["max_concurrency"] = _divided_concurrency(default_concurrency, count)
        if default_rps:
            own = providers.local.rate_limit or RateLimitSettings()
            if own.rps is None:
                update["local"] = providers.local.model_copy(
                    update={"rate_limit": own.model_copy(update={"rps": default_rps})}
                )
    return settings.model_copy(update={"providers": providers.model_copy(update=update)}), lines


def _limit_line(
    name: str,
    whole: bool,
    rps: float | None,
    new_rps: float | None,
    concurrency: int,
    new_concurrency: int,
    count: int,
) -> str:
    if whole:
        rate = f"{rps:g} rps" if rps else "no rate limit"
        return f"{name}: {rate}, max-concurrency {concurrency} (limits-per-machine: whole)"
    rate = f"rate-limit {new_rps:g} rps (of {rps:g})" if rps and new_rps else "no rate limit"
    share = f"max-concurrency {new_concurrency} (of {concurrency})"
    if concurrency < count:
        share += f"; at least 1 each, so {count} together"
    return f"{name}: {rate}, {share}"


# ----------------------------------------------------------------------------- merge


def _problems(runs: list[JournalRun], group: str) -> list[str]:
    """Why the group's runs cannot be merged, one reason each (none: they can)."""
    counts = sorted({run.shard_count for run in runs if run.shard_count is not None})
    if len(counts) > 1:
        spelled = ", ".join(
            f"{count} ({', '.join(run.run_id for run in runs if run.shard_count == count)})"
            for count in counts
        )
        return [f"its shards disagree on how many there are: {spelled}"]
    if not counts:
        return [f"no run of group '{group}' is a shard (record them with --shard I/N)"]
    count = counts[0]
    problems = []
    for index in range(1, count + 1):
        mine = [run for run in runs if run.shard_index == index]
        finished = [run for run in mine if run.status == "finished"]
        if len(finished) > 1:
            ids = " and ".join(run.run_id for run in finished)
            problems.append(f"shard {index}/{count} is recorded twice: runs {ids}")
        elif not finished and mine:
            latest = mine[-1]
            problems.append(
                f"shard {index}/{count} did not finish: run {latest.run_id} is "
                f"{latest.status} (continue it with --resume {latest.run_id})"
            )
        elif not mine:
            problems.append(f"shard {index}/{count} is missing: no run of the group recorded it")
    for what, attribute in (
        ("kind", "kind"),
        ("configuration", "config_fingerprint"),
        ("dataset", "dataset_fingerprint"),
    ):
        values: dict[str, list[str]] = {}
        for run in runs:
            if run.status == "finished":
                values.setdefault(getattr(run, attribute), []).append(
                    f"shard {run.shard} (run {run.run_id})"
                )
        if len(values) > 1:
            spelled = "; ".join(
                f"{value[:19]} in {', '.join(where)}" for value, where in values.items()
            )
            problems.append(f"the shards ran different {what}s: {spelled}")
    return problems


@dataclass(frozen=True, slots=True)
class MergedRun:
    """A group's shards merged: the run, and the shards it was built from (in shard order)."""

    result: RunResult
    shards: list[JournalRun]
    kind: str


def merge_shards(
    history: RunHistory,
    group: str,
    *,
    spool_after: int | None = DEFAULT_SPOOL_AFTER,
    spool_dir: str | Path | None = None,
) -> MergedRun:
    """One run from the shards of ``group`` in ``history`` (see the module docstring).

    Args:
        history: the run history the shards recorded themselves in.
        group: their ``--run-group``.
        spool_after: a merged run of more samples than this spools, as a run does.
        spool_dir: the folder of its spool.

    Raises:
        RunJournalError: the group has no shard, or a shard is missing, recorded twice or
            unfinished, or the shards ran another kind, configuration or dataset (every
            reason in one message).
        HistoryError: the history cannot be read.
    """
    store = JournalStore(history)
    runs = store.group(group)
    if not runs:
        raise RunJournalError(
            f"no shard of run group '{group}' in the history at {store.label}: each shard "
            f"records itself there with --shard I/N --run-group {group}"
        )
    problems = _problems(runs, group)
    if problems:
        raise RunJournalError(f"cannot merge run group '{group}': " + "; ".join(problems))
    shards = sorted(
        (run for run in runs if run.status == "finished"), key=lambda run: run.shard_index or 0
    )
    summaries = [run.summary or {} for run in shards]
    first = summaries[0]
    metrics = [MetricInfo.model_validate(info) for info in first["metrics"]]
    judges = [JudgeInfo.model_validate(info) for info in first["judges"]]
    placed: list[tuple[int, Sample]] = []
    for run in shards:
        placed.extend(
            (entry.position or 0, read_sample(entry))
            for entry in store.entries(run.run_id, "sample")
        )
    placed.sort(key=lambda item: item[0])
    samples = [sample for _, sample in placed]
    index = {sample.id: position for position, sample in enumerate(samples)}
    metric_index = {info.name: position for position, info in enumerate(metrics)}
    spool = (
        EvaluationSpool(spool_dir)
        if spool_after is not None and len(samples) > spool_after
        else None
    )
    held: dict[tuple[int, int], Evaluation] = {}
    try:
        for run in shards:
            for entry in store.entries(run.run_id, "evaluation"):
                sample_id, metric, evaluation = read_evaluation(entry)
                key = (index[sample_id], metric_index[metric])
                if spool is None:
                    held[key] = evaluation
                else:
                    spool.put(key, evaluation)
        missing = [
            (samples[sample].id or "", metrics[metric].name)
            for sample in range(len(samples))
            for metric in range(len(metrics))
            if (sample, metric) not in held and (spool is None or (sample, metric) not in spool)
        ]
        if missing:
            absent_sample, absent_metric = missing[0]
            raise RunJournalError(
                f"cannot merge run group '{group}': {len(missing)} evaluations are not in its "
                f"shards' journals (the first: {absent_metric} of sample {absent_sample})"
            )
        starts = [run.started_at for run in shards]
        ends = [
            run.started_at + timedelta(seconds=float(summary.get("duration_s", 0.0)))
            for run, summary in zip(shards, summaries, strict=True)
        ]
        dataset = DatasetInfo.model_validate(first["dataset"]).model_copy(
            update={"size": len(samples)}
        )
        result = assemble_run(
            dataset=dataset,
            samples=samples,
            metrics=metrics,
            judges=judges,
            held=held.__getitem__,
            spool=spool,
            concurrency=int(first.get("concurrency", 1)),
            started_at=min(starts),
            duration_s=(max(ends) - min(starts)).total_seconds(),
            stopped=None,
            max_cost=first.get("max_cost"),
        )
    except BaseException:
        if spool is not None:
            spool.dispose()
        raise
    if spool is not None:
        result._spool = spool
    return MergedRun(result=result, shards=shards, kind=shards[0].kind)
