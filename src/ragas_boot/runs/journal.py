"""A run's journal: its progress, written to the run history while it runs, so that a killed
run resumes (``--resume``) and the shards of a run merge (``runs merge``).

The cost and the bound. Each finished evaluation is one row: its full record (what the JSON
report shows of it: steps, prompts, answers) as zlib-compressed JSON, a few KiB. One writer
thread serialises and writes the rows in group commits: whatever finished while the last
commit ran goes into the next transaction, so a slow database costs the run one round trip
per batch, not per evaluation, and the event loop never waits on it. An evaluation counts as
finished (its place among the ``concurrency`` in flight is freed) only once its row is
committed, so a SIGKILL loses the evaluations in flight and nothing else: a resumed run
scores at most ``concurrency`` evaluations again. The rows of a run that finished are deleted
when it ends, unless it is a shard (``runs merge`` reads them); a killed or stopped run keeps
them until it is resumed to its end.

Two tables beside the history's, created on first use (no migration of the older ones):

- ``ragas_boot_run_journals``: one row per journaled run: its kind, status (``running``,
  ``stopped``, ``finished``), group and shard, the fingerprints of its configuration and
  dataset, its samples, when it started and last wrote, and once it ended its summary (the
  ``RunResult`` without its samples).
- ``ragas_boot_run_entries``: one row per run, kind and key: the run's samples (kind
  ``sample``, at their place in the whole dataset) and evaluations (kind ``evaluation``), or
  whatever else a run must not do twice (a provider batch it submitted), each data compressed
  JSON. :meth:`RunJournal.note` and :meth:`JournalStore.entries` write and read any kind.

A history that cannot be written does not stop a run: the journal says why
(:attr:`RunJournal.problem`) and stops writing; the run then cannot be resumed.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import queue
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ragas_boot.errors import HistoryError, RunJournalError
from ragas_boot.runs._journal_store import (
    Entry,
    JournalRun,
    JournalStore,
    RunStatus,
    entry_key,
    evaluation_data,
    read_evaluation,
    read_sample,
)
from ragas_boot.runs.records import Evaluation
from ragas_boot.samples import Sample

if TYPE_CHECKING:
    from ragas_boot.runs.history import RunHistory
    from ragas_boot.runs.results import RunResult

__all__ = [
    "Entry",
    "JournalRun",
    "JournalStore",
    "RunJournal",
    "RunStatus",
    "check_resumable",
    "config_fingerprint",
    "dataset_fingerprint",
    "entry_key",
    "read_evaluation",
    "read_sample",
]

log = logging.getLogger(__name__)

#: Rows one transaction of the writer takes at most.
_BATCH = 500
#: The summary of a run: its RunResult without the samples and what is computed from them.
_SUMMARY_FIELDS = {
    "dataset",
    "metrics",
    "judges",
    "concurrency",
    "started_at",
    "duration_s",
    "stopped",
    "max_cost",
}
#: Settings that say where this machine keeps things or how hard it may push a provider, not
#: what a run computes: a resumed run or a shard may change them.
_MACHINE_SECTIONS = ("source", "history", "cache", "run", "allure", "retry")
_MACHINE_KEYS = frozenset(
    {
        "rate_limit",
        "max_concurrency",
        "timeout",
        "hedging",
        "circuit_breaker",
        "limits_per_machine",
        "logging",
        "poll_interval",
        "max_poll_interval",
        "quiet_period",
    }
)


def _sha256(chunks: Iterable[bytes]) -> str:
    digest = hashlib.sha256()
    for chunk in chunks:
        digest.update(chunk)
    return f"sha256:{digest.hexdigest()}"


def dataset_fingerprint(samples: Iterable[Sample]) -> str:
    """A stable hash of the samples, in order (their JSON as the library writes it).

    Two runs have the same fingerprint when they read the same samples, whatever the file's
    format or the machine.
    """
    return _sha256(sample.model_dump_json().encode() + b"\n" for sample in samples)


def _without_machine_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            key: _without_machine_keys(item)
            for key, item in value.items()
            if key not in _MACHINE_KEYS
        }
    if isinstance(value, list):
        return [_without_machine_keys(item) for item in value]
    return value


def config_fingerprint(settings: BaseModel, **run: Any) -> str:
    """A stable hash of the effective configuration of a run, secrets excluded.

    ``settings`` is dumped as JSON (a secret dumps masked, so two keys hash alike), without
    what only says where this machine keeps things or how hard it may push a provider (the
    history, the cache, the run's bounds, retries, rate limits, concurrency, timeouts); ``run``
    adds what else decides the results (the metrics and the flags that override their
    configs).
    """
    dumped = settings.model_dump(mode="json", exclude=set(_MACHINE_SECTIONS))
    document = {"settings": _without_machine_keys(dumped), "run": run}
    return _sha256([json.dumps(document, sort_keys=True, default=str).encode()])


def check_resumable(
    run: JournalRun,
    *,
    kind: str,
    config_fingerprint: str,
    dataset_fingerprint: str,
    samples: int,
) -> None:
    """Refuse to resume ``run`` with a run of another kind, configuration, dataset or share
    of it, or one that finished.

    Raises:
        RunJournalError: why, naming the run (and the two values that differ).
    """
    name = f"run {run.run_id}"
    if run.status == "finished":
        raise RunJournalError(f"{name} finished: there is nothing to resume")
    mismatches = [
        (what, theirs, ours)
        for what, theirs, ours in (
            ("kind", run.kind, kind),
            ("configuration", run.config_fingerprint, config_fingerprint),
            ("dataset", run.dataset_fingerprint, dataset_fingerprint),
            ("samples", str(run.samples), str(samples)),
        )
        if theirs != ours
    ]
    if mismatches:
        what, theirs, ours = mismatches[0]
        raise RunJournalError(
            f"cannot resume {name}: its {what} differs from this run's ({theirs} there, "
            f"{ours} here); resume it with the same dataset, configuration and flags"
        )


@dataclass(slots=True)
class _Pending:
    """What the writer thread turns into rows: an evaluation (its sample too when it is the
    sample's first) or any other entry; ``done`` is called once it is written or given up."""

    done: Callable[[], object]
    entry: Entry | None = None
    sample: Sample | None = None
    sample_position: int | None = None
    metric: str | None = None
    evaluation: Evaluation | None = None

    def rows(self) -> list[Entry]:
        rows = [] if self.entry is None else [self.entry]
        if self.sample is not None:
            sample_id = self.sample.id or ""
            if self.sample_position is not None:
                rows.append(
                    Entry(
                        "sample",
                        entry_key(sample_id),
                        self.sample_position,
                        self.sample.model_dump_json().encode(),
                    )
                )
            if self.evaluation is not None and self.metric is not None:
                rows.append(
                    Entry(
                        "evaluation",
                        entry_key(sample_id, self.metric),
                        self.sample_position,
                        evaluation_data(sample_id, self.metric, self.evaluation),
                    )
                )
        return rows


class _Writer:
    """One thread that writes what the run hands it, in group commits (see the module
    docstring); a failure stops the writing and is kept as :attr:`problem`."""

    def __init__(self, store: JournalStore, run_id: str) -> None:
        self._store = store
        self._run_id = run_id
        self._queue: queue.SimpleQueue[_Pending | None] = queue.SimpleQueue()
        self.problem: str | None = None
        self._thread = threading.Thread(target=self._loop, name="ragas-boot-journal", daemon=True)
        self._thread.start()

    def submit(self, pending: _Pending) -> None:
        if self.problem is not None:
            pending.done()
            return
        self._queue.put(pending)

    def stop(self) -> None:
        """Write what is queued, then end the thread."""
        self._queue.put(None)
        self._thread.join()

    def _loop(self) -> None:
        while True:
            first = self._queue.get()
            stop = first is None
            batch = [] if first is None else [first]
            while not stop and len(batch) < _BATCH:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    stop = True
                else:
                    batch.append(item)
            if batch:
                self._write(batch)
            if stop:
                return

    def _write(self, batch: list[_Pending]) -> None:
        try:
            if self.problem is None:
                rows = [row for pending in batch for row in pending.rows()]
                if rows:
                    self._store.add(self._run_id, rows)
        except Exception as error:  # the run goes on; only its resumability is lost
            self.problem = (
                str(error) if isinstance(error, HistoryError) else f"{type(error).__name__}"
            )
            log.warning("the run's journal stopped writing: %s", self.problem)
        finally:
            for pending in batch:
                pending.done()


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class RunJournal:
    """The journal of one run while it runs: what earlier attempts finished
    (:meth:`finished`), and each evaluation as it finishes (:meth:`record`).

    Made by :meth:`start` (a new run) or :meth:`resume` (a run recorded before); closed by
    :meth:`close` with the run's result. The CLI makes one for every ``evaluate``, ``compare``
    and ``calibrate`` run that records its history; in Python, hand one to
    :func:`~ragas_boot.runs.evaluate_dataset` as ``journal=``.
    """

    def __init__(
        self,
        store: JournalStore,
        run: JournalRun,
        *,
        positions: Mapping[str, int] | None = None,
        written: set[str] | None = None,
    ) -> None:
        self._store = store
        self.run = run
        self._positions = positions
        #: A resumed run (its earlier attempts' entries are read back); a new one has none.
        self.resumed = written is not None
        self._written = written if written is not None else set()
        self._writer = _Writer(store, run.run_id)
        self._closed = False

    @classmethod
    def start(
        cls,
        history: RunHistory,
        *,
        run_id: str,
        kind: str,
        config_fingerprint: str,
        dataset_fingerprint: str,
        samples: int,
        positions: Mapping[str, int] | None = None,
        run_group: str | None = None,
        shard: tuple[int, int] | None = None,
    ) -> RunJournal:
        """Record a new run as started and return its journal.

        Args:
            history: the history to write to.
            run_id: the run's id (:func:`~ragas_boot.runs.history.new_run_id`).
            kind: what runs it (evaluate, compare, calibrate).
            config_fingerprint: :func:`config_fingerprint` of its configuration.
            dataset_fingerprint: :func:`dataset_fingerprint` of the whole dataset.
            samples: the samples it scores.
            positions: each sample id's place in the whole dataset (a shard's samples keep
                theirs, so that a merge puts them back in order); default: the run's order.
            run_group: the ``--run-group`` of a shard.
            shard: ``(index, count)`` of a shard (1-based).

        Raises:
            HistoryError: the history cannot be written.
        """
        store = JournalStore(history)
        now = datetime.now(UTC)
        run = JournalRun(
            run_id=run_id,
            kind=kind,
            status="running",
            run_group=run_group,
            shard_index=shard[0] if shard else None,
            shard_count=shard[1] if shard else None,
            config_fingerprint=config_fingerprint,
            dataset_fingerprint=dataset_fingerprint,
            samples=samples,
            started_at=now,
            updated_at=now,
        )
        store.begin(run)
        return cls(store, run, positions=positions)

    @classmethod
    def resume(
        cls,
        history: RunHistory,
        reference: str,
        *,
        kind: str,
        config_fingerprint: str,
        dataset_fingerprint: str,
        samples: int,
        positions: Mapping[str, int] | None = None,
    ) -> RunJournal:
        """The journal of a run recorded before, checked to be the same run, marked running.

        Args:
            history: the history it was recorded in.
            reference: its id, a unique prefix of one, or ``latest``.
            kind, config_fingerprint, dataset_fingerprint, samples, positions: as
                :meth:`start`, of the run that resumes it: each must match.

        Raises:
            RunJournalError: no such run; it finished; another kind, configuration, dataset
                or shard's share of it.
            HistoryError: the history cannot be read or written.
        """
        store = JournalStore(history)
        run = store.resolve(reference)
        check_resumable(
            run,
            kind=kind,
            config_fingerprint=config_fingerprint,
            dataset_fingerprint=dataset_fingerprint,
            samples=samples,
        )
        store.reopen(run.run_id)
        run = run.model_copy(update={"status": "running"})
        written = store.keys(run.run_id, "sample")
        return cls(store, run, positions=positions, written=written)

    @property
    def run_id(self) -> str:
        """The run's id."""
        return self.run.run_id

    @property
    def history(self) -> RunHistory:
        """The history the journal writes to."""
        return self._store.history

    @property
    def problem(self) -> str | None:
        """Why the journal stopped writing (the run then cannot be resumed); None while it
        writes."""
        return self._writer.problem

    def finished(self) -> Iterator[tuple[str, str, Evaluation]]:
        """``(sample id, metric, evaluation)`` of each evaluation an earlier attempt of the
        run finished, read a batch at a time (nothing for a new run)."""
        if not self.resumed:
            return
        for entry in self._store.entries(self.run_id, "evaluation"):
            yield read_evaluation(entry)

    async def record(self, index: int, sample: Sample, metric: str, evaluation: Evaluation) -> None:
        """Write a finished evaluation (its sample too, the first time); return once it is
        committed, or at once when the journal stopped writing.

        Args:
            index: the sample's place in the run (its place in the whole dataset is
                ``positions``' when given).
            sample: the sample.
            metric: the metric's name in the run.
            evaluation: what it gave.
        """
        if self._writer.problem is not None:
            return
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        sample_id = sample.id or ""
        key = entry_key(sample_id)
        first = key not in self._written
        self._written.add(key)
        position = self._positions.get(sample_id, index) if self._positions else index
        self._writer.submit(
            _Pending(
                done=lambda: loop.call_soon_threadsafe(_resolve, future),
                sample=sample,
                sample_position=position if first else None,
                metric=metric,
                evaluation=evaluation,
            )
        )
        await future

    def note(self, kind: str, key: str, data: Mapping[str, Any]) -> None:
        """Record anything else the run must not do twice when it is resumed (a submitted
        batch: ``note("batch", batch_id, {...})``); read back with
        ``JournalStore.entries(run_id, kind)``. Written in order with the evaluations."""
        entry = Entry(kind, key, None, json.dumps(dict(data)).encode())
        self._writer.submit(_Pending(done=lambda: None, entry=entry))

    async def anote(self, kind: str, key: str, data: Mapping[str, Any]) -> None:
        """:meth:`note`, returning once the entry is committed (or the journal stopped
        writing): a batch is recorded before it is waited on, so a kill while it runs loses
        nothing of it."""
        if self._writer.problem is not None:
            return
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        entry = Entry(kind, key, None, json.dumps(dict(data)).encode())
        self._writer.submit(
            _Pending(done=lambda: loop.call_soon_threadsafe(_resolve, future), entry=entry)
        )
        await future

    def noted(self, kind: str) -> Iterator[tuple[str, Any]]:
        """``(key, data)`` of each entry of ``kind`` earlier attempts of the run noted
        (nothing for a new run)."""
        if not self.resumed:
            return
        for entry in self._store.entries(self.run_id, kind):
            yield entry.key, json.loads(entry.data)

    def close(self, result: RunResult | None, *, keep: bool | None = None) -> None:
        """Write what is queued, end the writer, and mark the run ended with ``result``'s
        summary (``stopped`` or ``finished``); ``None`` (the run raised) leaves it
        ``running``, resumable. Idempotent. After the writer stopped part-way
        (:attr:`problem`), the run is still marked ended: a resume then scores again what was
        not written.

        Args:
            result: the run's result.
            keep: keep the entries (default: only a shard's, or a run that did not finish).

        Raises:
            HistoryError: the run's end cannot be written (the run then stays resumable).
        """
        if self._closed:
            return
        self._closed = True
        self._writer.stop()
        if result is None:
            return
        status: RunStatus = "finished" if result.stopped is None else "stopped"
        if keep is None:
            keep = status != "finished" or self.run.shard_index is not None
        keep = keep or self._writer.problem is not None  # the entries may be what broke
        summary = result.model_dump(mode="json", include=_SUMMARY_FIELDS)
        self._store.end(self.run_id, status, summary, keep=keep)
        self.run = self.run.model_copy(update={"status": status, "summary": summary})
