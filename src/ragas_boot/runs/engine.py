"""Run metric beans over a dataset: bounded concurrency, failures kept as data, progress.

>>> with create_container(settings) as container:                    # doctest: +SKIP
...     run = evaluate_dataset(
...         load_dataset("dataset.yaml"),
...         [container.agent_goal_accuracy(), container.tool_call_accuracy()],
...         concurrency=8,
...     )
...     run.metric_summary("agent_goal_accuracy").mean

Each (sample, metric) pair is one evaluation; ``concurrency`` of them are in flight at once
(each one fans out to its judges, under the providers' own limits). An evaluation that fails
(no judge answered, or the sample lacks a field the metric needs) is recorded as failed with
its error: every sample appears in the result, in dataset order.

A run can be bounded: ``evaluation_deadline_s`` per evaluation, ``deadline_s`` for the whole
run, and a :class:`RunControl` whose :meth:`~RunControl.stop` (safe from a signal handler or
another thread) ends it early. What finished is kept; every evaluation that did not finish is
failed with the kind ``deadline`` or ``interrupted``, and ``RunResult.stopped`` says why.

``max_cost`` caps what the judges' billed tokens may cost (judges with a price): once the run
has spent it, no judge call is sent; evaluations still running finish with what they have and
those not started are not run, each with the status ``budget`` and what was spent.

A run whose judges send batches runs every evaluation at once by default (each metric step
one round, one batch per judge), each a member of the run's batch scope, whose ledger is the
journal (:mod:`ragas_boot.chat.batching`: rounds; ``--resume`` polls what was submitted).

A run of more samples than ``spool_after`` (1,000 by default) spools: each finished
evaluation is written in full and as a slim copy (no steps, each judge call's facts) to two
unnamed temporary files, and the result keeps only where they are (``runs/spool.py``):
``RunResult.samples`` reads a sample back when asked, the summaries are computed in one pass
when the run ends, and the reports read the full records back (``RunResult.full_sample``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragas_boot.chat.batching import batch_run
from ragas_boot.chat.judge import JudgeModel
from ragas_boot.datasets import Dataset
from ragas_boot.datasets.model import default_sample_id
from ragas_boot.errors import AllJudgesFailedError, NoConsensusError, SampleValidationError
from ragas_boot.execution.results import Exclusion
from ragas_boot.execution.spending import SpendMeter
from ragas_boot.metrics.base import Metric, MetricConfig
from ragas_boot.runs._assembly import assemble_run
from ragas_boot.runs._batch_ledger import JournalLedger
from ragas_boot.runs._concurrency import RunControl, bounded_run, run_blocking
from ragas_boot.runs.evaluations import failed_evaluation, finished_evaluation
from ragas_boot.runs.records import DatasetInfo, Evaluation, EvaluationError, JudgeInfo, MetricInfo
from ragas_boot.runs.results import RunResult, StopReason
from ragas_boot.runs.spool import DEFAULT_SPOOL_AFTER, EvaluationSpool
from ragas_boot.samples import Sample

if TYPE_CHECKING:
    from ragas_boot.container import RagasContainer
    from ragas_boot.execution.bridge import LoopPortal
    from ragas_boot.runs.journal import RunJournal

__all__ = [
    "BATCH_CONCURRENCY",
    "DEFAULT_CONCURRENCY",
    "DEFAULT_SPOOL_AFTER",
    "ProgressCallback",
    "RunControl",
    "RunProgress",
    "aevaluate_dataset",
    "evaluate_dataset",
]

log = logging.getLogger(__name__)

#: Evaluations in flight at once when the caller does not say.
DEFAULT_CONCURRENCY = 8
#: Evaluations in flight at most by default when judges send batches (one batch file's worth).
BATCH_CONCURRENCY = 50_000

AnyMetric = Metric[Any]
#: Metric beans, or their bean names (``"agent_goal_accuracy"``, ``"aspect_critic:polite"``)
#: when a container is given to resolve them; or a mapping of name → bean.
MetricsArgument = Sequence[AnyMetric | str] | Mapping[str, AnyMetric]
ConfigsArgument = Mapping[str, MetricConfig | Mapping[str, Any]]


@dataclass(frozen=True, slots=True)
class RunProgress:
    """Where a run stands; sent to the progress callback after each evaluation.

    Attributes:
        samples_total: samples in the run.
        samples_done: samples whose every metric is done.
        evaluations_total: samples × metrics.
        evaluations_done: evaluations finished (scored, undefined or failed).
        failed_evaluations: evaluations that failed.
        judge_calls: judge calls made by the finished evaluations.
        failed_judge_calls: of those, calls without a valid answer.
        elapsed_s: seconds since the run started.
    """

    samples_total: int
    samples_done: int
    evaluations_total: int
    evaluations_done: int
    failed_evaluations: int
    judge_calls: int
    failed_judge_calls: int
    elapsed_s: float

    @property
    def eta_s(self) -> float | None:
        """Seconds left at the pace so far; None before the first evaluation ends."""
        if self.evaluations_done == 0:
            return None
        left = self.evaluations_total - self.evaluations_done
        return self.elapsed_s / self.evaluations_done * left


#: Receives a :class:`RunProgress` after each evaluation (and once at the start).
ProgressCallback = Callable[[RunProgress], None]


_STOP_MESSAGES: dict[StopReason, str] = {
    "deadline": "the run's deadline of {deadline} passed before this evaluation finished",
    "interrupted": "the run was interrupted before this evaluation finished",
    "budget": "the run's spend cap was reached before this evaluation finished",
}


def _unfinished(name: str, reason: StopReason, deadline_s: float | None) -> Evaluation:
    deadline = f"{deadline_s:g}s" if deadline_s is not None else "?"
    return Evaluation(
        metric=name,
        status="failed",
        error=EvaluationError(
            kind=reason,
            type="RunStopped",
            message=_STOP_MESSAGES[reason].format(deadline=deadline),
        ),
    )


def _over_budget(name: str, meter: SpendMeter, ran: Evaluation | None = None) -> Evaluation:
    """``ran`` (or an evaluation that never started) as cut short by the spend cap."""
    message = (
        f"the run's spend cap of {meter.max_cost:g} was reached ({meter.spent:.6g} spent) "
        + ("before this evaluation started" if ran is None else "before it finished")
    )
    steps = ran.steps if ran is not None else []
    failures = [Exclusion.from_call(call) for step in steps for call in step.calls if not call.ok]
    return Evaluation(
        metric=name,
        status="budget",
        score=ran.score if ran is not None else None,
        result=ran.result if ran is not None else None,
        error=EvaluationError(
            kind="budget",
            type="BudgetExceeded",
            message=message,
            failures=failures,
            steps=steps if ran is None or ran.result is None else [],
        ),
        duration_s=ran.duration_s if ran is not None else 0.0,
    )


def _refused(evaluation: Evaluation) -> bool:
    """Whether the spend cap refused any of the evaluation's judge calls."""
    return any(call.error_kind == "budget" for step in evaluation.steps for call in step.calls)


@dataclass(frozen=True, slots=True)
class _Plan:
    name: str
    metric: AnyMetric
    config: MetricConfig
    judges: list[JudgeModel]

    def info(self) -> MetricInfo:
        min_judges, quorum_failure = self.metric.quorum_policy(self.config)
        return MetricInfo(
            min_judges=min_judges,
            quorum_failure=quorum_failure,
            name=self.name,
            metric=self.metric.name,
            threshold=self.config.threshold,
            lower_is_better=self.metric.lower_is_better,
            judge_ids=[judge.id for judge in self.judges],
            config=self.config.model_dump(mode="json"),
        )


def _beans(
    metrics: MetricsArgument, container: RagasContainer | None
) -> Sequence[AnyMetric] | Mapping[str, AnyMetric]:
    """The beans to run: names resolved through ``container``, anything else refused by name."""
    if isinstance(metrics, str):
        metrics = [metrics]
    if isinstance(metrics, Mapping):
        given: list[tuple[str, object]] = list(metrics.items())
    else:
        given = [(f"metrics[{index}]", metric) for index, metric in enumerate(metrics)]
    beans: list[tuple[str, AnyMetric]] = []
    for where, metric in given:
        if isinstance(metric, str):
            if container is None:
                raise TypeError(
                    f"{where} is the name {metric!r}: pass container= to run metrics by bean "
                    f"name (evaluate_dataset(samples, [{metric!r}], container=container)), or "
                    f"give the bean itself (container.metric({metric!r}))"
                )
            name, _, criterion = metric.partition(":")
            metric = container.metric(name, criterion or None)
        if not isinstance(metric, Metric):
            raise TypeError(
                f"{where} is a {type(metric).__name__}; expected a metric bean "
                "(container.agent_goal_accuracy()) or, with container=, a bean name"
            )
        beans.append((where, metric))
    if isinstance(metrics, Mapping):
        return dict(beans)
    return [metric for _, metric in beans]


def _resolved(
    metrics: MetricsArgument, container: RagasContainer | None
) -> tuple[Sequence[AnyMetric] | Mapping[str, AnyMetric], LoopPortal | None]:
    """The beans to run (see :func:`_beans`) and the loop a sync twin runs them on: the
    judges' I/O loop when a metric calls judges; else None (a short-lived loop of our own)."""
    beans = _beans(metrics, container)
    values = beans.values() if isinstance(beans, Mapping) else beans
    return beans, next((bean.portal for bean in values if bean.needs), None)


def _plans(
    metrics: MetricsArgument,
    configs: ConfigsArgument | None,
    container: RagasContainer | None = None,
) -> list[_Plan]:
    beans = _beans(metrics, container)
    named: list[tuple[str, AnyMetric]] = (
        list(beans.items())
        if isinstance(beans, Mapping)
        else [(metric.bean_name, metric) for metric in beans]
    )
    if not named:
        raise ValueError("give at least one metric to run")
    names = [name for name, _ in named]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ValueError(f"metric {duplicates[0]!r} is given twice")
    unknown = sorted(set(configs or {}) - set(names))
    if unknown:
        raise ValueError(f"a config is given for {unknown[0]!r}, which is not run")
    plans = []
    for name, metric in named:
        config = metric.resolve_config((configs or {}).get(name))
        # Selecting now checks every judge id before any call is made.
        judges = metric.executor.select(config.models) if metric.uses_judges else []
        metric.check_quorum(config, judges)
        plans.append(_Plan(name=name, metric=metric, config=config, judges=judges))
    return plans


def _samples(dataset: Dataset | Sequence[Sample]) -> tuple[DatasetInfo, list[Sample]]:
    if isinstance(dataset, Dataset):
        info = DatasetInfo(name=dataset.name, path=dataset.path, size=len(dataset))
        given = list(dataset.samples)
    else:
        given = list(dataset)
        info = DatasetInfo(size=len(given))
    samples = [
        sample
        if sample.id is not None
        else sample.model_copy(update={"id": default_sample_id(index, len(given))})
        for index, sample in enumerate(given)
    ]
    seen: set[str] = set()
    for sample in samples:
        if sample.id in seen:
            raise ValueError(f"sample id {sample.id!r} is used twice; ids must be unique")
        seen.add(sample.id or "")
    return info, samples


async def _evaluate(plan: _Plan, sample: Sample, deadline_s: float | None = None) -> Evaluation:
    started = time.perf_counter()
    limit = asyncio.timeout(deadline_s)
    try:
        async with limit:
            result = await plan.metric.aevaluate(sample, plan.config)
    except asyncio.CancelledError:
        raise
    except Exception as error:
        if isinstance(error, TimeoutError) and limit.expired():
            return Evaluation(
                metric=plan.name,
                status="failed",
                error=EvaluationError(
                    kind="deadline",
                    type="DeadlineExceeded",
                    message=f"no result within the evaluation deadline of {deadline_s:g}s; "
                    "its judge calls were cancelled",
                ),
                duration_s=time.perf_counter() - started,
            )
        if not isinstance(error, AllJudgesFailedError | SampleValidationError | NoConsensusError):
            log.exception("%s failed on sample %s with an unexpected error", plan.name, sample.id)
        required, _ = plan.metric.quorum_policy(plan.config)
        return failed_evaluation(
            plan.name, error, min_judges=required, duration_s=time.perf_counter() - started
        )
    return finished_evaluation(
        plan.name,
        result,
        threshold=plan.config.threshold,
        duration_s=time.perf_counter() - started,
    )


@dataclass(frozen=True, slots=True)
class _Spooled:
    """What the run keeps of an evaluation it spooled while it runs: its status and the
    counts progress shows; the evaluation itself is read back from the spool."""

    status: str
    calls: int
    failed_calls: int

    @classmethod
    def of(cls, evaluation: Evaluation) -> _Spooled:
        calls = evaluation.judge_calls()
        return cls(evaluation.status, len(calls), sum(1 for call in calls if not call.ok))


class _Tracker:
    """Counts for progress; all updates happen on one loop."""

    def __init__(self, samples: int, metrics: int, callback: ProgressCallback | None) -> None:
        self._callback = callback
        self._left = [metrics] * samples
        self._started = time.perf_counter()
        self.samples_done = 0
        self.done = 0
        self.failed = 0
        self.calls = 0
        self.failed_calls = 0
        self.total = samples * metrics

    def finished(self, sample_index: int, evaluation: Evaluation | _Spooled) -> None:
        self.count(sample_index, evaluation)
        self.notify()

    def count(self, sample_index: int, evaluation: Evaluation | _Spooled) -> None:
        """Count a finished evaluation without telling the callback (a resumed run's)."""
        counts = evaluation if isinstance(evaluation, _Spooled) else _Spooled.of(evaluation)
        self.done += 1
        self.failed += counts.status == "failed"
        self.calls += counts.calls
        self.failed_calls += counts.failed_calls
        self._left[sample_index] -= 1
        self.samples_done += self._left[sample_index] == 0

    def notify(self) -> None:
        if self._callback is None:
            return
        progress = RunProgress(
            samples_total=len(self._left),
            samples_done=self.samples_done,
            evaluations_total=self.total,
            evaluations_done=self.done,
            failed_evaluations=self.failed,
            judge_calls=self.calls,
            failed_judge_calls=self.failed_calls,
            elapsed_s=time.perf_counter() - self._started,
        )
        try:
            self._callback(progress)
        except Exception:
            log.exception("the progress callback failed; the run goes on")


async def aevaluate_dataset(
    dataset: Dataset | Sequence[Sample],
    metrics: MetricsArgument,
    *,
    configs: ConfigsArgument | None = None,
    concurrency: int | None = None,
    progress: ProgressCallback | None = None,
    deadline_s: float | None = None,
    evaluation_deadline_s: float | None = None,
    control: RunControl | None = None,
    max_cost: float | None = None,
    spool_after: int | None = DEFAULT_SPOOL_AFTER,
    spool_dir: str | Path | None = None,
    container: RagasContainer | None = None,
    journal: RunJournal | None = None,
) -> RunResult:
    """Evaluate every sample with every metric and summarise.

    Args:
        dataset: a :class:`~ragas_boot.datasets.Dataset`, or samples (those without an id get
            ``sample-NNN``).
        metrics: metric beans (named by their bean name, e.g. ``agent_goal_accuracy``), bean
            names with ``container`` (``["agent_goal_accuracy", "aspect_critic:polite"]``),
            or a mapping of name → bean.
        configs: name → config (or a mapping of config fields) overriding the bean's defaults
            for this run, e.g. ``{"agent_goal_accuracy": {"models": ["a", "b"]}}``.
        concurrency: evaluations in flight at once (at least 1); default
            :data:`DEFAULT_CONCURRENCY`, or every evaluation (:data:`BATCH_CONCURRENCY` at
            most) when a judge sends batches.
        progress: called after each evaluation with a :class:`RunProgress`.
        deadline_s: seconds the whole run may take; then what is unfinished is cancelled
            and failed with the kind ``deadline``.
        evaluation_deadline_s: seconds one evaluation may take; then it is cancelled and
            failed with the kind ``deadline`` (the run goes on).
        control: lets a signal handler or another thread end the run early
            (:meth:`RunControl.stop`); unfinished evaluations are failed as ``interrupted``.
        max_cost: spend cap (in the judges' price currency): once the billed cost of the
            run's judge calls reaches it, no call is sent and every evaluation not finished
            gets the status ``budget``; ``stopped`` is then ``"budget"``.
        spool_after: a run of more samples than this spools (0: always; None: never): each
            finished evaluation goes to an unnamed temporary file in full and the result
            keeps a :class:`~ragas_boot.runs.records.SpooledEvaluation` (no steps, each judge
            call's facts; ``spooled``; read a sample back in full with ``full_sample``; the
            JSON report is the same either way). A spool that cannot be written (disk full)
            keeps the evaluations it could not take whole, with one warning.
        spool_dir: the folder of the spool file (default: the system's temporary folder).
        container: resolves metrics given by bean name.
        journal: writes each finished evaluation to the run history as it finishes (an
            evaluation holds its place among the ``concurrency`` until it is written), and
            gives back what an earlier attempt of the same run finished, which is then not
            scored again (:class:`~ragas_boot.runs.journal.RunJournal`; ``--resume``).

    Returns:
        The run: every sample × metric, scored, undefined or failed, and the summaries;
        ``stopped`` says whether (and why) it ended early.

    Raises:
        JudgeNotFoundError: a config names an unknown judge (before any call is made).
        ConfigError: a metric's quorum (min-judges) exceeds the judges it asks.
        ValueError: no metric, a metric given twice, duplicate sample ids, bad concurrency
            a deadline or ``max_cost`` that is not positive.
    """
    if concurrency is not None and concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    for name, value in (
        ("deadline_s", deadline_s),
        ("evaluation_deadline_s", evaluation_deadline_s),
    ):
        if value is not None and not value > 0:
            raise ValueError(f"{name} must be > 0, got {value}")
    if spool_after is not None and spool_after < 0:
        raise ValueError(f"spool_after must be >= 0 (or None: never), got {spool_after}")
    meter = SpendMeter(max_cost=max_cost)
    plans = _plans(metrics, configs, container)
    info, samples = _samples(dataset)
    if concurrency is None:
        concurrency = DEFAULT_CONCURRENCY
        if _sends_batches(plans):
            concurrency = max(1, min(len(samples) * len(plans), BATCH_CONCURRENCY))
    spool = (
        EvaluationSpool(spool_dir)
        if spool_after is not None and len(samples) > spool_after
        else None
    )
    try:
        run = await _run(
            plans,
            info,
            samples,
            spool=spool,
            concurrency=concurrency,
            progress=progress,
            deadline_s=deadline_s,
            evaluation_deadline_s=evaluation_deadline_s,
            control=control,
            meter=meter,
            journal=journal,
        )
    except BaseException:
        if spool is not None:
            spool.dispose()
        raise
    if spool is not None:
        run._spool = spool
    return run


def _sends_batches(plans: list[_Plan]) -> bool:
    return any(judge.spec.sends_batches for plan in plans for judge in plan.judges)


def _evaluation_order(samples: int, metrics: int, concurrency: int) -> list[tuple[int, int]]:
    """The (sample, metric) pairs in the order they start: the samples in blocks of
    ``concurrency``, and within a block one metric over all its samples before the next.

    Calls of one metric step then reach a judge together, so a provider that keeps a shared
    prompt prefix (the local model's KV state, a hosted model's prompt cache) reads each
    metric's instructions once per block rather than once per call; samples still finish a
    block at a time, in dataset order, as the run streams.
    """
    block = max(1, concurrency)
    return [
        (sample, metric)
        for start in range(0, samples, block)
        for metric in range(metrics)
        for sample in range(start, min(start + block, samples))
    ]


async def _run(
    plans: list[_Plan],
    info: DatasetInfo,
    samples: list[Sample],
    *,
    spool: EvaluationSpool | None,
    concurrency: int,
    progress: ProgressCallback | None,
    deadline_s: float | None,
    evaluation_deadline_s: float | None,
    control: RunControl | None,
    meter: SpendMeter,
    journal: RunJournal | None = None,
) -> RunResult:
    """The run itself (see :func:`aevaluate_dataset`), evaluations spooled when ``spool``."""
    started_at = datetime.now(UTC)
    started = time.perf_counter()
    tracker = _Tracker(len(samples), len(plans), progress)
    pairs = _evaluation_order(len(samples), len(plans), concurrency)
    unspooled = 0  # evaluations the spool could not take (kept whole)
    resumed = _resumed(journal, plans, samples, spool) if journal is not None else {}
    if resumed:
        pairs = [pair for pair in pairs if pair not in resumed]
        for (sample_index, _), evaluation in resumed.items():
            tracker.count(sample_index, evaluation)
        log.info("resumed run: %d evaluations were finished before", len(resumed))

    batches = None
    if _sends_batches(plans):
        batches = batch_run(JournalLedger(journal) if journal is not None else None)

    async def evaluate(pair: tuple[int, int]) -> Evaluation | _Spooled:
        nonlocal unspooled
        plan = plans[pair[1]]
        if meter.exhausted and plan.judges:
            return _over_budget(plan.name, meter)
        with scope.member() if scope is not None else contextlib.nullcontext():
            evaluation = await _evaluate(plan, samples[pair[0]], evaluation_deadline_s)
        if _refused(evaluation):
            evaluation = _over_budget(plan.name, meter, evaluation)
        elif journal is not None:  # cut short by the cap: a resumed run scores it again
            await journal.record(pair[0], samples[pair[0]], plan.name, evaluation)
        if spool is None:
            return evaluation
        # Spooled as it finishes: the run keeps only its status until it is read back.
        try:
            return _Spooled.of(spool.put(pair, evaluation))
        except OSError as error:  # disk full: keep this one whole rather than lose the run
            if not unspooled:
                log.warning(
                    "cannot write the run's spool (%s); evaluations are kept in memory", error
                )
            unspooled += 1
            return evaluation

    def finished(index: int, evaluation: Evaluation | _Spooled) -> None:
        tracker.finished(pairs[index][0], evaluation)

    tracker.notify()
    executors = {id(plan.metric.executor): plan.metric.executor for plan in plans if plan.judges}
    with contextlib.ExitStack() as metering:
        if meter.max_cost is not None:
            for executor in executors.values():
                metering.enter_context(executor.metered(meter))
        scope = metering.enter_context(batches) if batches is not None else None
        done, stopped = await bounded_run(
            pairs,
            evaluate,
            concurrency=concurrency,
            on_done=finished,
            deadline_s=deadline_s,
            control=control,
        )
    if stopped is None and any(e.status == "budget" for e in done.values()):
        stopped = "budget"
    outcomes = {**resumed, **{pairs[index]: evaluation for index, evaluation in done.items()}}
    if stopped is not None:
        completed = sum(1 for e in outcomes.values() if e.status != "budget")
        log.warning(
            "run stopped (%s) with %d of %d evaluations finished",
            stopped,
            completed,
            tracker.total,
        )

    del done  # a spooled run keeps nothing per evaluation but where it is

    def held(key: tuple[int, int]) -> Evaluation:
        """The evaluation the run holds under ``key``: finished and not spooled, or not
        finished at all."""
        return _kept(outcomes.get(key)) or _unfinished(
            plans[key[1]].name, stopped or "interrupted", deadline_s
        )

    judges: dict[str, JudgeInfo] = {}
    for plan in plans:
        for judge in plan.judges:
            judges.setdefault(judge.id, JudgeInfo.of(judge))
    return assemble_run(
        dataset=info,
        samples=samples,
        metrics=[plan.info() for plan in plans],
        judges=list(judges.values()),
        held=held,
        spool=spool,
        concurrency=concurrency,
        started_at=started_at,
        duration_s=time.perf_counter() - started,
        stopped=stopped,
        max_cost=meter.max_cost,
    )


def _resumed(
    journal: RunJournal, plans: list[_Plan], samples: list[Sample], spool: EvaluationSpool | None
) -> dict[tuple[int, int], Evaluation | _Spooled]:
    """What earlier attempts of the run finished, by (sample, metric) index; spooled as they
    are read when the run spools."""
    sample_index = {sample.id: index for index, sample in enumerate(samples)}
    metric_index = {plan.name: index for index, plan in enumerate(plans)}
    found: dict[tuple[int, int], Evaluation | _Spooled] = {}
    for sample_id, metric, evaluation in journal.finished():
        key = (sample_index.get(sample_id), metric_index.get(metric))
        if key[0] is None or key[1] is None:  # not part of this run: scored as usual
            continue
        pair = (key[0], key[1])
        try:
            found[pair] = evaluation if spool is None else _Spooled.of(spool.put(pair, evaluation))
        except OSError:  # disk full: keep it whole, as the run does
            found[pair] = evaluation
    return found


def _kept(outcome: Evaluation | _Spooled | None) -> Evaluation | None:
    """An evaluation the run holds (not spooled); None for a spooled one or none at all."""
    return outcome if isinstance(outcome, Evaluation) else None


def evaluate_dataset(
    dataset: Dataset | Sequence[Sample],
    metrics: MetricsArgument,
    *,
    configs: ConfigsArgument | None = None,
    concurrency: int | None = None,
    progress: ProgressCallback | None = None,
    deadline_s: float | None = None,
    evaluation_deadline_s: float | None = None,
    control: RunControl | None = None,
    max_cost: float | None = None,
    spool_after: int | None = DEFAULT_SPOOL_AFTER,
    spool_dir: str | Path | None = None,
    container: RagasContainer | None = None,
    journal: RunJournal | None = None,
) -> RunResult:
    """Sync twin of :func:`aevaluate_dataset`; the run happens on the judges' I/O loop.

    ``progress`` is then called from that loop's thread.
    """
    resolved, portal = _resolved(metrics, container)
    run = aevaluate_dataset(
        dataset,
        resolved,
        configs=configs,
        concurrency=concurrency,
        progress=progress,
        deadline_s=deadline_s,
        evaluation_deadline_s=evaluation_deadline_s,
        control=control,
        max_cost=max_cost,
        spool_after=spool_after,
        spool_dir=spool_dir,
        journal=journal,
    )
    return run_blocking(run, portal=portal, name="ragas-boot-run")
