"""Run history: every ``evaluate``, ``compare`` and ``suite run`` as rows of a SQL database.

By default the history is a SQLite file, ``history.db``, in ``$RAGAS_BOOT_HOME`` or else in
``.ragas-boot/`` of the working directory; ``spring.ai.ragas.history.url`` names any other
SQLAlchemy database (PostgreSQL through pg8000 for a team-shared history). SQLAlchemy is a
dependency of every install (recording is on by default) and is imported only when a history
is opened.

Three tables, created on first use:

- ``ragas_boot_runs``: one row per run (kind, dataset, config files and profiles, counts,
  tokens, cost);
- ``ragas_boot_run_metrics``: one row per run x metric (threshold, mean, pass rate, tokens,
  cost);
- ``ragas_boot_run_scores``: one row per run x sample x metric (status, score, passed, cost).

:func:`snapshot_run` turns a run's result (a suite run's too) into a :class:`StoredRun` (which
:func:`~ragas_boot.runs.regressions.diff_runs` compares, stored or not) and
:meth:`RunHistory.record` stores it.

Cost columns are nullable: they stay empty until a result carries a cost (a ``cost_usd``
attribute on its token usage), and a diff shows a cost change only where both runs have one.
A database URL may carry a password: it is never printed unmasked (:meth:`RunHistory.label`).
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ragas_boot._home import HOME_ENV, ragas_boot_home
from ragas_boot.config.urls import mask_url, url_secrets
from ragas_boot.errors import HistoryError, MissingExtraError

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection, Engine

    from ragas_boot.config.settings import HistorySettings, RagasSettings
    from ragas_boot.runs.results import RunResult

log = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_LOCK_TIMEOUT",
    "HISTORY_FILE",
    "HOME_ENV",
    "RunHistory",
    "RunKind",
    "StoredMetric",
    "StoredRun",
    "StoredScore",
    "default_history_url",
    "history_home",
    "new_run_id",
    "open_history",
    "snapshot_run",
]


#: File name of the default SQLite history inside the home folder.
HISTORY_FILE = "history.db"

#: Seconds recording a run retries a locked history (``spring.ai.ragas.history.lock-timeout``).
DEFAULT_LOCK_TIMEOUT = 30.0

#: What recorded a run.
RunKind = Literal["evaluate", "compare", "suite"]

_FROZEN = ConfigDict(frozen=True)


def history_home() -> Path:
    """``$RAGAS_BOOT_HOME``, else ``.ragas-boot`` in the working directory."""
    return ragas_boot_home()


def default_history_url() -> str:
    """The SQLAlchemy URL of the default SQLite history (the folder is made on first use)."""
    return f"sqlite:///{history_home() / HISTORY_FILE}"


class StoredMetric(BaseModel):
    """One metric of a recorded run."""

    model_config = _FROZEN

    metric: str = Field(
        description="Bean name of the metric (a suite run recorded by ragas-boot 0.1, which "
        "scored cases with its own scoring: 'suite')."
    )
    threshold: float = Field(description="Pass mark of the run.")
    lower_is_better: bool = Field(description="Whether lower scores are better.")
    evaluations: int = Field(description="Evaluations of the metric.")
    scored: int = Field(description="Evaluations with a score.")
    failed: int = Field(description="Evaluations that failed.")
    passed: int = Field(description="Scored evaluations that passed.")
    mean: float | None = Field(description="Mean score; None when nothing was scored.")
    pass_rate: float | None = Field(description="passed / scored; None when nothing was scored.")
    total_tokens: int = Field(description="Tokens the metric's judge calls used.")
    cost_usd: float | None = Field(description="Cost of the metric's calls; None when unknown.")


class StoredScore(BaseModel):
    """One sample x metric of a recorded run."""

    model_config = _FROZEN

    sample_id: str = Field(description="The sample's (or suite case's) id.")
    metric: str = Field(description="Bean name of the metric.")
    status: str = Field(description="scored, undefined or failed.")
    score: float | None = Field(description="The score, when scored.")
    passed: bool | None = Field(description="Whether it met the threshold; None unless scored.")
    cost_usd: float | None = Field(description="Cost of the evaluation; None when unknown.")


class StoredRun(BaseModel):
    """A recorded run: its row, and (when loaded in full) its metrics and scores."""

    model_config = _FROZEN

    id: str = Field(description="Run id (UTC time of recording and a random suffix).")
    kind: str = Field(description="evaluate, compare or suite.")
    recorded_at: datetime = Field(description="When the run was recorded (UTC).")
    started_at: datetime = Field(description="When the run started (UTC).")
    duration_s: float = Field(description="Wall time of the run.")
    dataset: str | None = Field(description="Dataset (or suite) name, else its file.")
    dataset_path: str | None = Field(description="The dataset or suite file.")
    samples: int = Field(description="Samples (or cases) in the run.")
    config_files: list[str] = Field(description="Configuration files read.")
    profiles: list[str] = Field(description="Profiles in effect.")
    judges: list[str] = Field(description="Judge ids that took part.")
    evaluations: int = Field(description="Samples x metrics.")
    scored: int = Field(description="Evaluations with a score.")
    failed: int = Field(description="Evaluations that failed.")
    total_tokens: int = Field(description="Tokens used by every judge call.")
    cost_usd: float | None = Field(description="Cost of the run; None when unknown.")
    stopped: str | None = Field(description="Why the run ended early, if it did.")
    metrics: list[StoredMetric] = Field(default_factory=list, description="Per metric.")
    scores: list[StoredScore] = Field(default_factory=list, description="Per sample x metric.")


def _sqlalchemy() -> Any:
    try:
        import sqlalchemy
    except ImportError:  # a dependency of every install: only a broken environment lacks it
        raise MissingExtraError("the run history", "history", "sqlalchemy") from None
    return sqlalchemy


def _tables(sa: Any) -> tuple[Any, Any, Any, Any]:
    metadata = sa.MetaData()
    runs = sa.Table(
        "ragas_boot_runs",
        metadata,
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False, index=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("duration_s", sa.Float, nullable=False),
        sa.Column("dataset", sa.Text),
        sa.Column("dataset_path", sa.Text),
        sa.Column("samples", sa.Integer, nullable=False),
        sa.Column("config_files", sa.Text, nullable=False),
        sa.Column("profiles", sa.Text, nullable=False),
        sa.Column("judges", sa.Text, nullable=False),
        sa.Column("evaluations", sa.Integer, nullable=False),
        sa.Column("scored", sa.Integer, nullable=False),
        sa.Column("failed", sa.Integer, nullable=False),
        sa.Column("total_tokens", sa.Integer, nullable=False),
        sa.Column("cost_usd", sa.Float, nullable=True),
        sa.Column("stopped", sa.String(16), nullable=True),
    )
    metrics = sa.Table(
        "ragas_boot_run_metrics",
        metadata,
        sa.Column("run_id", sa.String(64), sa.ForeignKey(runs.c.id), primary_key=True),
        sa.Column("position", sa.Integer, primary_key=True),
        sa.Column("metric", sa.Text, nullable=False),
        sa.Column("threshold", sa.Float, nullable=False),
        sa.Column("lower_is_better", sa.Boolean, nullable=False),
        sa.Column("evaluations", sa.Integer, nullable=False),
        sa.Column("scored", sa.Integer, nullable=False),
        sa.Column("failed", sa.Integer, nullable=False),
        sa.Column("passed", sa.Integer, nullable=False),
        sa.Column("mean", sa.Float, nullable=True),
        sa.Column("pass_rate", sa.Float, nullable=True),
        sa.Column("total_tokens", sa.Integer, nullable=False),
        sa.Column("cost_usd", sa.Float, nullable=True),
    )
    scores = sa.Table(
        "ragas_boot_run_scores",
        metadata,
        sa.Column("run_id", sa.String(64), sa.ForeignKey(runs.c.id), primary_key=True),
        sa.Column("position", sa.Integer, primary_key=True),
        sa.Column("sample_id", sa.Text, nullable=False),
        sa.Column("metric", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("score", sa.Float, nullable=True),
        sa.Column("passed", sa.Boolean, nullable=True),
        sa.Column("cost_usd", sa.Float, nullable=True),
    )
    return metadata, runs, metrics, scores


def _cost(result: Any) -> float | None:
    """What a result's billed tokens cost at its judges' prices (``None``: none priced)."""
    value = getattr(result, "cost", None)
    return float(value) if isinstance(value, int | float) else None


def _sum_costs(values: Sequence[float | None]) -> float | None:
    known = [value for value in values if value is not None]
    return sum(known) if known else None


def _new_id(now: datetime) -> str:
    return f"{now:%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"


class RunHistory:
    """A run history in a SQL database (SQLite by default).

    Args:
        url: a SQLAlchemy database URL (``sqlite:///path``, ``postgresql+pg8000://...``).
        lock_timeout: seconds opening and recording retry a database that another process
            holds locked, with exponential backoff (reading does not retry).

    Raises:
        MissingExtraError: SQLAlchemy is missing (a broken install).
        HistoryError: the database cannot be opened.
    """

    def __init__(self, *, url: str, lock_timeout: float = DEFAULT_LOCK_TIMEOUT) -> None:
        sa = _sqlalchemy()
        self._lock_timeout = max(0.0, lock_timeout)
        self._url = url
        self._secrets = url_secrets(url)
        self._metadata, self._runs, self._metrics, self._scores = _tables(sa)
        self._sa = sa
        try:
            parsed = sa.engine.make_url(url)
        except Exception:  # the message would quote the URL
            raise HistoryError(
                f"spring.ai.ragas.history.url is not a database URL: {mask_url(url)}"
            ) from None
        options: dict[str, Any] = {}
        if parsed.get_backend_name() == "sqlite":
            if parsed.database not in (None, "", ":memory:"):
                # A home that cannot be made (read-only, under a file) is a HistoryError like
                # any other, which a command turns into "run not recorded", never a lost run.
                with self._errors("open"):
                    Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
            # sqlite's own wait for a lock (5 s by default), a part of lock_timeout so that
            # the retries below have time left to wait the rest.
            options["connect_args"] = {"timeout": min(5.0, max(self._lock_timeout / 4, 0.05))}
        with self._errors("open"):
            self._engine: Engine = sa.create_engine(parsed, **options)
        try:
            # Two processes creating the tables at once: one of them sees them exist.
            self._retrying(
                "open", lambda: self._metadata.create_all(self._engine), _contended_or_created
            )
        except HistoryError:
            self._engine.dispose()
            raise

    def __repr__(self) -> str:
        return f"RunHistory({self.label})"

    @property
    def label(self) -> str:
        """The database URL with its password masked."""
        return mask_url(self._url)

    def close(self) -> None:
        """Release the database connections."""
        self._engine.dispose()

    def __enter__(self) -> RunHistory:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @contextmanager
    def _errors(self, action: str) -> Iterator[None]:
        try:
            yield
        except HistoryError:
            raise
        except Exception as error:
            # Drivers may quote the URL or its password: mask both, whatever their length.
            message = str(error).splitlines()[0] if str(error) else type(error).__name__
            message = message.replace(self._url, self.label)
            for secret in self._secrets:
                message = message.replace(secret, "****")
            raise HistoryError(
                f"cannot {action} the run history at {self.label}: {message}"
            ) from None

    def _retrying(
        self,
        action: str,
        attempt: Callable[[], object],
        transient: Callable[[BaseException], bool],
    ) -> None:
        """Run ``attempt``; while another process holds the database locked (or creates its
        tables at the same moment), again with exponential backoff for ``lock_timeout``."""
        from tenacity import (
            RetryCallState,
            Retrying,
            retry_if_exception,
            stop_after_delay,
            wait_exponential,
        )

        def waiting(state: RetryCallState) -> None:
            error = state.outcome.exception() if state.outcome else None
            log.warning(
                "the run history at %s is busy (%s); trying again in %.2f s",
                self.label,
                type(error).__name__,
                state.upcoming_sleep,
            )

        retrying = Retrying(
            retry=retry_if_exception(transient),
            wait=wait_exponential(multiplier=0.05, max=2.0),
            stop=stop_after_delay(self._lock_timeout),
            before_sleep=waiting,
            reraise=True,
        )
        with self._errors(action):
            for try_ in retrying:
                with try_:
                    attempt()

    @contextmanager
    def _begin(self, action: str) -> Iterator[Connection]:
        with self._errors(action), self._engine.begin() as connection:
            yield connection

    # ------------------------------------------- the run journal's access (runs/journal.py)

    @property
    def sqlalchemy(self) -> Any:
        """The SQLAlchemy module the history was opened with."""
        return self._sa

    def create_tables(self, metadata: Any) -> None:
        """Create the tables of ``metadata`` that do not exist yet (another module's tables in
        the same database), retried like opening.

        Raises:
            HistoryError: the database refused it.
        """
        self._retrying("open", lambda: metadata.create_all(self._engine), _contended_or_created)

    @contextmanager
    def transaction(self, action: str) -> Iterator[Connection]:
        """A connection in one transaction (committed at the end of the block); errors become
        :class:`HistoryError` naming ``action`` (``read``, ``write``), the URL masked."""
        with self._begin(action) as connection:
            yield connection

    def write(self, attempt: Callable[[Connection], object]) -> None:
        """Run ``attempt`` in one transaction; while another process holds the database
        locked, again in a new one, with backoff for ``lock_timeout``.

        Raises:
            HistoryError: the database refused it, or stayed locked.
        """

        def once() -> None:
            with self._engine.begin() as connection:
                attempt(connection)

        self._retrying("write", once, _contended)

    # ----------------------------------------------------------------- writing

    def record(self, run: StoredRun, *, replace: bool = False) -> str:
        """Store a snapshot (:func:`snapshot_run`); return its id.

        A database locked by another process is tried again with backoff for
        ``lock_timeout`` (:data:`DEFAULT_LOCK_TIMEOUT` by default), each wait logged as a warning.

        Args:
            run: the snapshot.
            replace: a run of the same id recorded before is replaced (a resumed run, which
                recorded itself when it stopped), in the same transaction.

        Raises:
            HistoryError: the database refused it (the id exists and ``replace`` is false, the
                server is gone, still locked after the retries, ...).
        """
        row = run.model_dump(exclude={"metrics", "scores"})
        for key in ("config_files", "profiles", "judges"):
            row[key] = json.dumps(row[key])
        metrics = [
            {"run_id": run.id, "position": position, **metric.model_dump()}
            for position, metric in enumerate(run.metrics)
        ]
        scores = [
            {"run_id": run.id, "position": position, **score.model_dump()}
            for position, score in enumerate(run.scores)
        ]

        def insert() -> None:
            with self._engine.begin() as connection:  # one transaction: all rows or none
                if replace:
                    for table in (self._scores, self._metrics):
                        connection.execute(table.delete().where(table.c.run_id == run.id))
                    connection.execute(self._runs.delete().where(self._runs.c.id == run.id))
                connection.execute(self._runs.insert(), [row])
                if metrics:
                    connection.execute(self._metrics.insert(), metrics)
                if scores:
                    connection.execute(self._scores.insert(), scores)

        self._retrying("write", insert, _contended)
        return run.id

    # ----------------------------------------------------------------- reading

    def list_runs(self, *, limit: int | None = 20, kind: str | None = None) -> list[StoredRun]:
        """The latest runs first (without their metrics and scores)."""
        query = self._sa.select(self._runs).order_by(
            self._runs.c.recorded_at.desc(), self._runs.c.id.desc()
        )
        if kind is not None:
            query = query.where(self._runs.c.kind == kind)
        if limit is not None:
            query = query.limit(limit)
        with self._begin("read") as connection:
            return [_stored_run(row._mapping) for row in connection.execute(query)]

    def resolve(self, reference: str) -> str:
        """The id that ``reference`` names: a run id (or a unique prefix of one), ``latest``,
        or ``previous`` (the run before the latest).

        Raises:
            HistoryError: no such run (the message lists the latest ids).
        """
        wanted = reference.strip()
        if wanted in ("latest", "previous"):
            ids = [run.id for run in self.list_runs(limit=2)]
            index = 0 if wanted == "latest" else 1
            if len(ids) > index:
                return ids[index]
        else:
            column = self._runs.c.id
            query = self._sa.select(column).where(column.startswith(wanted, autoescape=True))
            with self._begin("read") as connection:
                matches = sorted(str(row[0]) for row in connection.execute(query.limit(6)))
            if wanted in matches:
                return wanted
            if len(matches) == 1:
                return matches[0]
            if len(matches) > 1:
                raise HistoryError(
                    f"run id '{wanted}' is ambiguous: it starts {', '.join(matches[:5])}"
                )
        latest = ", ".join(run.id for run in self.list_runs(limit=5)) or "none recorded yet"
        raise HistoryError(f"no run '{wanted}' in the history at {self.label} (latest: {latest})")

    def load(self, reference: str) -> StoredRun:
        """A run in full (metrics and scores) by id, id prefix, ``latest`` or ``previous``.

        Raises:
            HistoryError: no such run.
        """
        run_id = self.resolve(reference)
        sa = self._sa
        with self._begin("read") as connection:
            row = connection.execute(sa.select(self._runs).where(self._runs.c.id == run_id)).one()
            metric_rows = connection.execute(
                sa.select(self._metrics)
                .where(self._metrics.c.run_id == run_id)
                .order_by(self._metrics.c.position)
            ).all()
            score_rows = connection.execute(
                sa.select(self._scores)
                .where(self._scores.c.run_id == run_id)
                .order_by(self._scores.c.position)
            ).all()
        metrics = [
            StoredMetric.model_validate(
                {k: v for k, v in m._mapping.items() if k not in ("run_id", "position")}
            )
            for m in metric_rows
        ]
        scores = [
            StoredScore.model_validate(
                {k: v for k, v in s._mapping.items() if k not in ("run_id", "position")}
            )
            for s in score_rows
        ]
        return _stored_run(row._mapping).model_copy(update={"metrics": metrics, "scores": scores})


def _utc(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _stored_run(row: Any) -> StoredRun:
    data = dict(row)
    for key in ("config_files", "profiles", "judges"):
        data[key] = json.loads(data[key] or "[]")
    for key in ("recorded_at", "started_at"):
        data[key] = _utc(data[key])
    return StoredRun.model_validate(data)


def new_run_id(now: datetime | None = None) -> str:
    """A new run id: the UTC time and a random suffix (``20261125-193012-4f2a``)."""
    return _new_id(now or datetime.now(UTC))


def snapshot_run(
    run: RunResult,
    *,
    kind: RunKind = "evaluate",
    config_files: Sequence[str] = (),
    profiles: Sequence[str] = (),
    run_id: str | None = None,
) -> StoredRun:
    """A dataset run as the history stores it (not stored yet), with ``run_id`` (the id its
    journal has: :func:`new_run_id`), else a new id."""
    recorded = datetime.now(UTC)
    # One pass over the samples (a spooled run reads each back from disk), keeping per
    # metric only its results' tokens and costs.
    tokens = {info.name: 0 for info in run.metrics}
    costs: dict[str, list[float | None]] = {info.name: [] for info in run.metrics}
    scores = []
    for sample in run.samples:
        for evaluation in sample.evaluations:
            cost = _cost(evaluation.result)
            scores.append(
                StoredScore(
                    sample_id=sample.sample_id,
                    metric=evaluation.metric,
                    status=evaluation.status,
                    score=evaluation.score,
                    passed=evaluation.passed,
                    cost_usd=cost,
                )
            )
            if evaluation.result is not None and evaluation.metric in tokens:
                tokens[evaluation.metric] += evaluation.result.billed_usage.total_tokens
                costs[evaluation.metric].append(cost)
    metrics = []
    for info, summary in zip(run.metrics, run.metric_summaries, strict=True):
        metrics.append(
            StoredMetric(
                metric=info.name,
                threshold=summary.threshold,
                lower_is_better=summary.lower_is_better,
                evaluations=summary.evaluations,
                scored=summary.scored,
                failed=summary.failed,
                passed=summary.passed,
                mean=summary.mean,
                pass_rate=summary.pass_rate,
                total_tokens=tokens[info.name],
                cost_usd=_sum_costs(costs[info.name]),
            )
        )
    return StoredRun(
        id=run_id or _new_id(recorded),
        kind=kind,
        recorded_at=recorded,
        started_at=run.started_at,
        duration_s=run.duration_s,
        dataset=run.dataset.name or run.dataset.path,
        dataset_path=run.dataset.path,
        samples=run.dataset.size,
        config_files=list(config_files),
        profiles=list(profiles),
        judges=[judge.id for judge in run.judges],
        evaluations=run.totals.evaluations,
        scored=run.totals.scored,
        failed=run.totals.failed,
        total_tokens=run.totals.usage.total_tokens,
        cost_usd=_sum_costs([metric.cost_usd for metric in metrics]),
        stopped=run.stopped,
        metrics=metrics,
        scores=scores,
    )


def open_history(settings: HistorySettings | RagasSettings | None = None) -> RunHistory:
    """The history the settings name (``spring.ai.ragas.history.url``), else the default file.

    Raises:
        MissingExtraError: SQLAlchemy is missing (a broken install).
        HistoryError: the database cannot be opened.
    """
    section = getattr(settings, "history", settings)
    url = getattr(section, "url", None) or default_history_url()
    wait = getattr(section, "lock_timeout", None)
    lock_timeout = wait.total_seconds() if wait is not None else DEFAULT_LOCK_TIMEOUT
    return RunHistory(url=url, lock_timeout=lock_timeout)


#: What a locked database says: SQLite's busy and locked errors, PostgreSQL's lock timeout,
#: serialization failure and deadlock.
_CONTENDED = (
    "database is locked",
    "database table is locked",
    "could not obtain lock",
    "could not serialize",
    "deadlock detected",
    "lock timeout",
)


def _contended(error: BaseException) -> bool:
    """Whether ``error`` says another process holds the database: worth waiting for."""
    from sqlalchemy.exc import DBAPIError

    return isinstance(error, DBAPIError) and any(
        text in str(error.orig).lower() for text in _CONTENDED
    )


def _contended_or_created(error: BaseException) -> bool:
    """:func:`_contended`, or the loser of two processes creating the tables at once."""
    from sqlalchemy.exc import DBAPIError

    return _contended(error) or (
        isinstance(error, DBAPIError) and "already exists" in str(error.orig).lower()
    )
