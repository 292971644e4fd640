"""The tables of the run journal (``runs/journal.py``) in a run history's database, and the
rows they hold: one per journaled run (:class:`JournalRun`), one per entry (:class:`Entry`:
a sample, an evaluation, anything else a run records), each entry's data zlib-compressed.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ragas_boot.errors import RunJournalError
from ragas_boot.runs.records import Evaluation
from ragas_boot.samples import Sample

if TYPE_CHECKING:
    from ragas_boot.runs.history import RunHistory

__all__ = [
    "Entry",
    "JournalRun",
    "JournalStore",
    "RunStatus",
    "entry_key",
    "evaluation_data",
    "read_evaluation",
    "read_sample",
]

#: ``running``: started and not ended (or killed); ``stopped``: ended early (deadline,
#: interrupted, budget); ``finished``: every evaluation done.
RunStatus = Literal["running", "stopped", "finished"]

#: Rows read back at a time.
_BATCH = 500
#: zlib's level for the rows: level 1 keeps the writer's CPU small (a few KiB per row).
_LEVEL = 1


def _pack(data: bytes) -> bytes:
    return zlib.compress(data, _LEVEL)


def _unpack(data: bytes) -> bytes:
    return zlib.decompress(data)


def entry_key(*parts: str) -> str:
    """The key of an entry named by ``parts`` (a sample id; a sample id and a metric): a hash,
    so that any id fits the column."""
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


_FROZEN = ConfigDict(frozen=True)


class JournalRun(BaseModel):
    """A journaled run as its row says."""

    model_config = _FROZEN

    run_id: str = Field(description="The run's id (its id in the history too).")
    kind: str = Field(description="evaluate, compare or calibrate.")
    status: RunStatus = Field(description="running, stopped or finished.")
    run_group: str | None = Field(default=None, description="The --run-group of its shards.")
    shard_index: int | None = Field(default=None, description="Its shard (1-based), if one.")
    shard_count: int | None = Field(default=None, description="Shards in its group, if one.")
    config_fingerprint: str = Field(description="Hash of its effective configuration.")
    dataset_fingerprint: str = Field(description="Hash of the whole dataset's samples.")
    samples: int = Field(description="Samples the run scores (a shard's share).")
    started_at: datetime = Field(description="When it first started (UTC).")
    updated_at: datetime = Field(description="When it last wrote (UTC).")
    summary: dict[str, Any] | None = Field(
        default=None,
        description="Once it ended: its RunResult without samples (dataset, metrics, judges, "
        "concurrency, started_at, duration_s, stopped, max_cost), as JSON.",
    )

    @property
    def shard(self) -> str | None:
        """``i/N``, or None for a run that is not a shard."""
        if self.shard_index is None or self.shard_count is None:
            return None
        return f"{self.shard_index}/{self.shard_count}"


def _tables(sa: Any) -> tuple[Any, Any, Any]:
    metadata = sa.MetaData()
    runs = sa.Table(
        "ragas_boot_run_journals",
        metadata,
        sa.Column("run_id", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("run_group", sa.String(200), nullable=True, index=True),
        sa.Column("shard_index", sa.Integer, nullable=True),
        sa.Column("shard_count", sa.Integer, nullable=True),
        sa.Column("config_fingerprint", sa.String(80), nullable=False),
        sa.Column("dataset_fingerprint", sa.String(80), nullable=False),
        sa.Column("samples", sa.Integer, nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False, index=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("summary", sa.Text, nullable=True),
    )
    entries = sa.Table(
        "ragas_boot_run_entries",
        metadata,
        sa.Column("run_id", sa.String(64), sa.ForeignKey(runs.c.run_id), primary_key=True),
        sa.Column("kind", sa.String(32), primary_key=True),
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("position", sa.Integer, nullable=True),
        sa.Column("data", sa.LargeBinary, nullable=False),
    )
    return metadata, runs, entries


def _utc(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of a run's journal: its kind, key, position and (uncompressed) data."""

    kind: str
    key: str
    position: int | None
    data: bytes


class JournalStore:
    """The journal's tables in a run history's database (see the module docstring).

    Raises:
        HistoryError: the tables cannot be created.
    """

    def __init__(self, history: RunHistory) -> None:
        self._history = history
        self._sa = history.sqlalchemy
        metadata, self._runs, self._entries = _tables(self._sa)
        history.create_tables(metadata)

    @property
    def label(self) -> str:
        """The history's URL, its password masked."""
        return self._history.label

    @property
    def history(self) -> RunHistory:
        """The history the tables are in."""
        return self._history

    # ----------------------------------------------------------------- runs

    def begin(self, run: JournalRun) -> None:
        """Insert the row of a new run (status ``running``)."""
        row = run.model_dump(exclude={"summary"})
        self._history.write(lambda connection: connection.execute(self._runs.insert(), [row]))

    def reopen(self, run_id: str) -> None:
        """Mark a run ``running`` again (it is being resumed)."""
        self._set(run_id, status="running")

    def end(self, run_id: str, status: RunStatus, summary: dict[str, Any], *, keep: bool) -> None:
        """Mark a run ended with its summary; unless ``keep``, drop its entries (nothing will
        resume or merge it)."""
        entries = self._entries

        def attempt(connection: Any) -> None:
            connection.execute(
                self._runs.update()
                .where(self._runs.c.run_id == run_id)
                .values(
                    status=status,
                    summary=json.dumps(summary),
                    updated_at=datetime.now(UTC),
                )
            )
            if not keep:
                connection.execute(entries.delete().where(entries.c.run_id == run_id))

        self._history.write(attempt)

    def _set(self, run_id: str, **values: Any) -> None:
        statement = (
            self._runs.update()
            .where(self._runs.c.run_id == run_id)
            .values(updated_at=datetime.now(UTC), **values)
        )
        self._history.write(lambda connection: connection.execute(statement))

    def _run(self, row: Any) -> JournalRun:
        data = dict(row)
        data["summary"] = json.loads(data["summary"]) if data["summary"] else None
        for key in ("started_at", "updated_at"):
            data[key] = _utc(data[key])
        return JournalRun.model_validate(data)

    def resolve(self, reference: str) -> JournalRun:
        """The run that ``reference`` names: its id, a unique prefix of one, or ``latest``
        (the run started last).

        Raises:
            RunJournalError: no such run, or the prefix is ambiguous (the message lists ids).
        """
        wanted = reference.strip()
        column = self._runs.c.run_id
        query = self._sa.select(self._runs)
        if wanted == "latest":
            query = query.order_by(self._runs.c.started_at.desc(), column.desc()).limit(1)
        else:
            query = query.where(column.startswith(wanted, autoescape=True)).limit(6)
        with self._history.transaction("read") as connection:
            rows = [self._run(row._mapping) for row in connection.execute(query)]
        exact = [run for run in rows if run.run_id == wanted]
        if exact or len(rows) == 1:
            return (exact or rows)[0]
        if rows:
            ids = ", ".join(sorted(run.run_id for run in rows)[:5])
            raise RunJournalError(f"run id '{wanted}' is ambiguous: it starts {ids}")
        raise RunJournalError(
            f"no run '{wanted}' to resume in the history at {self.label}: a run is resumable "
            "when it was recorded as it started (the run header names it)"
        )

    def group(self, name: str) -> list[JournalRun]:
        """The runs of a ``--run-group``, in the order they started."""
        query = (
            self._sa.select(self._runs)
            .where(self._runs.c.run_group == name)
            .order_by(self._runs.c.started_at, self._runs.c.run_id)
        )
        with self._history.transaction("read") as connection:
            return [self._run(row._mapping) for row in connection.execute(query)]

    # ----------------------------------------------------------------- entries

    def add(self, run_id: str, entries: Sequence[Entry]) -> None:
        """Insert entries (compressed) in one transaction, and touch the run's row."""
        rows = [
            {
                "run_id": run_id,
                "kind": entry.kind,
                "key": entry.key,
                "position": entry.position,
                "data": _pack(entry.data),
            }
            for entry in entries
        ]
        touch = (
            self._runs.update()
            .where(self._runs.c.run_id == run_id)
            .values(updated_at=datetime.now(UTC))
        )

        def attempt(connection: Any) -> None:
            connection.execute(self._entries.insert(), rows)
            connection.execute(touch)

        self._history.write(attempt)

    def entries(self, run_id: str, kind: str) -> Iterator[Entry]:
        """A run's entries of ``kind``, by position then key, read a batch at a time."""
        table = self._entries
        query = (
            self._sa.select(table.c.kind, table.c.key, table.c.position, table.c.data)
            .where(table.c.run_id == run_id, table.c.kind == kind)
            .order_by(table.c.position, table.c.key)
            .execution_options(yield_per=_BATCH)
        )
        with self._history.transaction("read") as connection:
            for row in connection.execute(query):
                yield Entry(row.kind, row.key, row.position, _unpack(row.data))

    def keys(self, run_id: str, kind: str) -> set[str]:
        """The keys of a run's entries of ``kind``."""
        table = self._entries
        query = self._sa.select(table.c.key).where(table.c.run_id == run_id, table.c.kind == kind)
        with self._history.transaction("read") as connection:
            return {str(row[0]) for row in connection.execute(query)}


def evaluation_data(sample_id: str, metric: str, evaluation: Evaluation) -> bytes:
    """An ``evaluation`` entry's data: a JSON line naming the sample and the metric, then the
    evaluation's JSON as pydantic writes it (not quoted inside another document: one
    serialisation, read back without unescaping)."""
    return json.dumps([sample_id, metric]).encode() + b"\n" + evaluation.model_dump_json().encode()


def read_evaluation(entry: Entry) -> tuple[str, str, Evaluation]:
    """The sample id, the metric and the evaluation of an ``evaluation`` entry."""
    head, _, body = entry.data.partition(b"\n")
    sample_id, metric = json.loads(head)
    return sample_id, metric, Evaluation.model_validate_json(body)


def read_sample(entry: Entry) -> Sample:
    """The sample of a ``sample`` entry."""
    return Sample.model_validate_json(entry.data)
