"""Running a dataset (``evaluate``, ``compare``, ``calibrate``, ``suite run``): plan -> run ->
report -> exit code.

:func:`run_dataset` is those four calls; each is a function a test can drive with a
:class:`~ragas_boot.cli._options.RunOptions` and no argparse. The plan does everything that can
fail on bad input before a judge is asked (report paths, the dataset, the settings, the metric
names, calibration labels, the baseline); the run owns the container and the progress bar; the
report prints and writes what finished, then records it; the exit code applies the gate policy.

A suite file is a dataset with expectations (any of these commands takes one): the plan
compiles its cases to samples and finds its configuration (beside the suite when no
``--config``); the run first runs the suite's agent on every case (on the container's loop,
so a configured model can be the agent), then scores the samples like any dataset; the gate
also requires the suite's ``min-pass-rate`` of samples passing every metric.

``evaluate`` and ``compare`` never lose finished work: on SIGINT or SIGTERM they stop sending,
cancel the judge calls in flight, write every report of what finished (the rest marked
``interrupted``) and stop the local judge; a second signal aborts at once.
"""

from __future__ import annotations

import contextlib
import dataclasses
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragas_boot.cli._arguments import load_settings
from ragas_boot.cli._console import message, stderr, stdout
from ragas_boot.cli._errors import (
    EXIT_BAD_INPUT,
    EXIT_BUDGET,
    EXIT_GATE_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    UsageError,
)
from ragas_boot.cli._history import load_baseline, show_diff, store
from ragas_boot.cli._metrics import metric_names, needs_models, without_embedding_metrics
from ragas_boot.cli._options import RunLimits, RunOptions
from ragas_boot.cli._outputs import write_reports
from ragas_boot.cli._reports import REPORT_KINDS, report_paths
from ragas_boot.cli._shards import RunRecord, end_record, plan_record, start_record
from ragas_boot.cli._source import load_source, load_suite_source

if TYPE_CHECKING:
    from ragas_boot.config.settings import RagasSettings
    from ragas_boot.datasets import Dataset
    from ragas_boot.execution.cache import ResponseCache
    from ragas_boot.execution.spending import SpendMeter
    from ragas_boot.runs import ProgressCallback, RunControl, RunResult
    from ragas_boot.runs.history import StoredRun
    from ragas_boot.runs.regressions import RunDiff
    from ragas_boot.runs.suites.suite import AgentTestSuite

__all__ = [
    "Interrupts",
    "Reported",
    "RunPlan",
    "exit_code",
    "plan_run",
    "report_run",
    "run_dataset",
    "run_plan",
]


@dataclass(frozen=True, kw_only=True, slots=True)
class RunPlan:
    """A dataset run checked and resolved, before any judge is asked."""

    options: RunOptions
    settings: RagasSettings  # the flags applied over the YAML (RunOptions.over)
    limits: RunLimits
    dataset: Dataset
    metrics: list[str]  # bean names
    reports: list[tuple[Path, str]]  # each --out with its kind, checked writable
    baseline: StoredRun | None
    # A suite file as the dataset: its agent runs first; ``dataset`` holds its compiled cases.
    suite: AgentTestSuite | None = None
    # The chat model a suite run may use as its agent (the container then builds judges).
    agent_model: str | None = None
    # What the run found that its summary must show (an unusable response cache, corrupt
    # entries in it), one line each; filled by run_plan, printed by report_run.
    warnings: list[str] = field(default_factory=list)
    # How the run records itself as it goes (resume, shards); None: the history is off.
    record: RunRecord | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Reported:
    """What :func:`report_run` did that the exit code depends on."""

    unwritten: int  # reports that could not be written
    recorded: bool  # False: the history failed to record the run (a warning, not an exit code)
    diff: RunDiff | None  # against --baseline


@dataclass
class Interrupts:
    """SIGINT / SIGTERM received during a run: the run is told to stop, the signals kept."""

    control: RunControl
    signals: list[int] = field(default_factory=list)

    def stop(self, signum: int) -> None:
        self.signals.append(signum)
        self.control.stop("interrupted")


def run_dataset(options: RunOptions) -> int:
    """Plan, run, report; the exit code. A signal stops the run and still reports it."""
    plan = plan_run(options)
    if options.dry_run:
        return _dry_run(plan)
    # The spool of a large run is closed (its unnamed file gone) once the reports are written.
    with _stop_on_signals() as interrupts, contextlib.ExitStack() as cleanup:
        cleanup.callback(end_record, plan.record, None)  # a run that raised stays resumable
        run = run_plan(plan, control=interrupts.control)
        cleanup.callback(run.close_spool)
        reported = report_run(plan, run)
    return exit_code(plan, run, reported, signals=interrupts.signals)


def plan_run(options: RunOptions) -> RunPlan:
    """Check and load everything the run needs; bad input fails here, before any judge call.

    Raises:
        UsageError: a bad ``--out`` or ``--metric``, ``--fail-on-regression`` without
            ``--baseline``.
        DatasetError: a dataset of no samples, unless ``allow_empty``.
        RagasBootError: a bad dataset, suite, configuration, criterion, label or baseline.
    """
    kinds = ("html", "json") if options.view == "calibrate" else tuple(REPORT_KINDS.values())
    reports = report_paths(options.out, follow_symlinks=options.follow_symlinks, kinds=kinds)
    metric_names(options.metrics)  # an unknown metric is reported before anything is loaded
    suite = load_suite_source(options)
    if suite is not None:
        from ragas_boot.runs.suites.runner import suite_dataset

        dataset = suite_dataset(suite, suite.samples(options.cases or None, repeat=options.plays))
        loaded, agent_model = _suite_settings(options, suite)
        if options.min_sample_pass_rate is None:
            options = dataclasses.replace(options, min_sample_pass_rate=suite.min_pass_rate)
    else:
        if options.view == "suite":
            raise UsageError(f"{options.dataset} is not a suite file (a mapping with 'cases')")
        dataset = load_source(options)
        agent_model = None
        if not len(dataset) and not options.allow_empty:
            from ragas_boot.errors import DatasetError

            raise DatasetError(
                "the dataset has no samples, so no gate could fail on it; check the file (a "
                "truncated export, a wrong filter?), or pass --allow-empty to accept it",
                file=options.dataset,
            )
        loaded = load_settings(options.config, options.profiles)
    settings, limits = options.over(loaded)
    if options.view == "suite":  # the suite's metrics, and those asked for besides
        from ragas_boot.runs.suites.scoring import SUITE_METRICS

        extra = metric_names(options.metrics, settings) if options.metrics else []
        names = list(dict.fromkeys([*SUITE_METRICS, *extra]))
    else:
        names = metric_names(options.metrics, settings, dataset.samples)
    if options.view == "calibrate":  # before any judge is asked: labels and the extra are needed
        from ragas_boot.runs.calibration import check_ready

        check_ready(dataset.samples, names)
    if options.fail_on_regression and not options.baseline:
        raise UsageError("--fail-on-regression needs --baseline RUN (a run id or 'latest')")
    # An unknown baseline fails before any judge call.
    baseline = load_baseline(settings, options.baseline) if options.baseline else None
    # A shard's samples and limits; the fingerprints a resumed run is checked against.
    dataset, settings, record = plan_record(
        options, settings, dataset, names, suite=suite is not None
    )
    return RunPlan(
        options=options,
        settings=settings,
        limits=limits,
        dataset=dataset,
        metrics=names,
        reports=reports,
        baseline=baseline,
        suite=suite,
        agent_model=agent_model,
        record=record,
    )


def _suite_settings(options: RunOptions, suite: AgentTestSuite) -> tuple[RagasSettings, str | None]:
    """A suite run's settings (``--config``, ``$RAGAS_CONFIG``, beside the suite, here; the
    defaults when there is none: a Python agent needs no configuration) and the chat model
    it may run as its agent (``--agent-model``, else the suite's ``agent-model``)."""
    from ragas_boot.config.settings import RagasSettings
    from ragas_boot.runs.suites.agents import suite_config_path

    if options.agent and options.agent_model:
        raise UsageError("give --agent or --agent-model, not both")
    config = suite_config_path(options.config, suite)
    if config is None:
        if options.agent_model:
            raise UsageError(
                f"--agent-model {options.agent_model} needs a configuration declaring it: "
                "pass --config"
            )
        if options.profiles:
            raise UsageError(
                f"--profile {','.join(options.profiles)} needs a configuration file: pass --config"
            )
        return RagasSettings(), None
    model = None if options.agent else options.agent_model or suite.agent_model
    return load_settings(str(config), options.profiles), model


def run_plan(plan: RunPlan, *, control: RunControl | None = None) -> RunResult:
    """Score the dataset (a suite's: its agent first): the container lives (and the local
    judge runs) only this long."""
    from ragas_boot.runs import evaluate_dataset

    options = plan.options
    with _wired(plan) as (container, beans, cache):
        dataset, configs = plan.dataset, options.metric_overrides(list(beans))
        simulated: SpendMeter | None = None
        if plan.suite is not None:
            dataset, configs, simulated = _run_agent(plan, container, beans, configs, control)
        enabled = options.progress and stderr().is_terminal
        journal = start_record(plan.record, plan.settings)
        with _progress(enabled, len(plan.dataset)) as callback:
            run = evaluate_dataset(
                dataset,
                beans,
                configs=configs,
                concurrency=options.concurrency,
                progress=callback,
                deadline_s=plan.limits.deadline_s,
                evaluation_deadline_s=plan.limits.evaluation_deadline_s,
                control=control,
                max_cost=_left(plan.limits.max_cost, simulated),
                spool_after=plan.limits.spool_after,
                journal=journal,
            )
        plan.warnings.extend(_cache_warnings(cache))
        if simulated is not None:  # one cap over the simulator's calls and the judges'
            stopped = run.stopped or ("budget" if simulated.refused else None)
            run = run.model_copy(update={"max_cost": simulated.max_cost, "stopped": stopped})
        return run


def _left(max_cost: float | None, spent: SpendMeter | None) -> float | None:
    """What the spend cap leaves the scoring after the simulator's calls (a sliver above 0
    when they used it all: every judge call is then refused, judge-less metrics still run)."""
    if max_cost is None or spent is None:
        return max_cost
    return max(max_cost - spent.spent, 1e-12)


def _run_agent(
    plan: RunPlan,
    container: Any,
    beans: dict[str, Any],
    configs: dict[str, Any],
    control: RunControl | None,
) -> tuple[Dataset, dict[str, Any], SpendMeter | None]:
    """A suite's agent on its cases (the container's model, when the suite runs one), and
    the configs of the metrics: the suite's ``scoring`` under the flags' overrides; with a
    spend cap and a simulator, the meter of the simulator's calls (capped by it)."""
    from ragas_boot.runs.suites.agents import choose_agent
    from ragas_boot.runs.suites.runner import run_agent, suite_configs, suite_dataset
    from ragas_boot.runs.suites.scenarios import simulation_role

    suite, options = plan.suite, plan.options
    assert suite is not None
    agent = choose_agent(
        suite,
        agent=options.agent,
        agent_model=options.agent_model,
        container=container if plan.agent_model is not None else None,
    )
    enabled = options.progress and stderr().is_terminal
    meter = None
    metering: contextlib.AbstractContextManager[Any] = contextlib.nullcontext()
    if plan.limits.max_cost is not None and suite.needs_simulator:
        from ragas_boot.execution.spending import SpendMeter

        meter = SpendMeter(max_cost=plan.limits.max_cost)
        metering = container.executor().metered(meter)
    with _agent_progress(enabled, len(plan.dataset)) as callback, metering:
        samples = run_agent(
            suite,
            agent,
            concurrency=options.agent_concurrency,
            cases=options.cases or None,
            portal=container.portal(),
            on_sample=callback,
            control=control,
            simulator=simulation_role(container) if suite.needs_simulator else None,
            max_turns=options.max_turns,
            repeat=options.plays,
        )
    merged = suite_configs(suite, configs)
    kept = {k: v for k, v in merged.items() if k in beans}
    return suite_dataset(suite, samples), kept, meter


def report_run(plan: RunPlan, run: RunResult) -> Reported:
    """Print the run (and the people's labels), diff it, write every ``--out``, record it."""
    from ragas_boot.reporting import console_renderables

    options = plan.options
    calibration = _calibration(plan, run)
    if options.view == "calibrate":
        from ragas_boot.reporting.calibration import calibration_renderables

        parts = calibration_renderables(calibration) if calibration is not None else []
    else:
        parts = console_renderables(run, "compare" if options.view == "compare" else "evaluate")
        if calibration is not None:  # compare on a labelled dataset: the people too
            from ragas_boot.reporting.calibration import calibration_renderables

            parts += calibration_renderables(calibration)
    for part in parts:
        stdout().print(part)
    for warning in plan.warnings:  # right under the summary line, which it qualifies
        _warn(warning)
    snapshot = _snapshot(plan, run)
    diff = None
    if plan.baseline is not None:
        from ragas_boot.runs.regressions import diff_runs

        diff = show_diff(diff_runs(plan.baseline, snapshot, tolerance=options.tolerance))
    # The reports first: they never wait for the history (a lock held by another job) nor
    # depend on it (a home folder that cannot be made), which is a warning only.
    unwritten = write_reports(
        plan.reports,
        run,
        options=options,
        title=plan.dataset.name or options.dataset,
        diff=diff,
        calibration=calibration,
    )
    # A resumed run that stopped before was recorded then: this record replaces it.
    replace = plan.record is not None and plan.record.resume
    recorded = store(plan.settings.history, snapshot, enabled=options.history, replace=replace)
    end_record(plan.record, run)
    return Reported(unwritten=unwritten, recorded=recorded, diff=diff)


def exit_code(
    plan: RunPlan, run: RunResult, reported: Reported, *, signals: list[int] | None = None
) -> int:
    """Say why a run stopped early and how the gate went; the exit code of the run."""
    from ragas_boot.reporting.gates import run_gate_lines

    options = plan.options
    if run.stopped is not None:
        unfinished = sum(
            1
            for sample in run.samples
            for evaluation in sample.evaluations
            if evaluation.error is not None and evaluation.error.kind == run.stopped
        )
        total = run.dataset.size * len(run.metrics)
        cause = {
            "deadline": "the run's deadline passed",
            "budget": f"the spend cap of {run.max_cost or 0:g} was reached",
        }.get(run.stopped, "interrupted")
        message(
            f"STOPPED {cause}: {total - unfinished} of {total} evaluations finished, "
            f"{unfinished} marked '{run.stopped}'",
            "bold red",
        )
    if signals:
        return EXIT_TERMINATED if signals[0] == signal.SIGTERM else EXIT_INTERRUPTED
    if reported.unwritten:  # (the history not recorded is a warning only)
        return EXIT_BAD_INPUT
    if run.stopped == "budget":
        return EXIT_BUDGET
    gate = options.gate(run)
    if not gate.passed or run.stopped is None:  # no PASSED line for a run cut short
        for line in run_gate_lines(gate):
            message(line, "green" if gate.passed else "bold red")
    diff = reported.diff
    regressed = diff is not None and diff.regressed and options.fail_on_regression
    return EXIT_OK if gate.passed and run.stopped is None and not regressed else EXIT_GATE_FAILED


def _snapshot(plan: RunPlan, run: RunResult) -> StoredRun:
    """The run as the history keeps it (what a ``--baseline`` is compared with), whether or
    not it is recorded."""
    from ragas_boot.runs.history import RunKind, snapshot_run

    source = plan.settings.source
    kinds: dict[str, RunKind] = {"evaluate": "evaluate", "suite": "suite"}
    return snapshot_run(
        run,
        kind=kinds.get(plan.options.view, "compare"),
        config_files=source.files,
        profiles=source.active_profiles,
        run_id=plan.record.run_id if plan.record is not None else None,
    )


def _calibration(plan: RunPlan, run: RunResult) -> Any:
    """The run against the samples' labels (``calibrate``; ``compare`` when labelled)."""
    options = plan.options
    if options.view in ("evaluate", "suite") or not any(
        sample.labels for sample in plan.dataset.samples
    ):
        return None
    from ragas_boot.errors import MissingExtraError, SampleValidationError
    from ragas_boot.runs.calibration import calibrate

    try:
        return calibrate(run, seed=options.seed, resamples=options.resamples)
    except (MissingExtraError, SampleValidationError) as error:
        if options.view == "calibrate":
            raise
        # compare works without the extra, and on labels of metrics it did not run
        message(f"Not compared with the dataset's labels: {error}", "dim")
        return None


def _dry_run(plan: RunPlan) -> int:
    """``--dry-run``: the calls, tokens and cost the run would make; nothing is sent."""
    from ragas_boot.reporting.estimate import estimate_renderables
    from ragas_boot.runs.estimate import estimate_run

    with _wired(plan) as (_, beans, cache):
        estimate = estimate_run(
            plan.dataset,
            beans,
            configs=plan.options.metric_overrides(list(beans)),
            cached=cache.would_answer if cache is not None else None,
        )
        warnings = _cache_warnings(cache)
    for part in estimate_renderables(estimate):
        stdout().print(part)
    for warning in warnings:  # why the estimate counted fewer hits than it might
        _warn(warning)
    return EXIT_OK


def _cache_warnings(cache: ResponseCache | None) -> list[str]:
    """What the response cache met that the run's summary must show: files it could not use
    (the judges were asked directly), entries it would not read (see execution/cache.py)."""
    if cache is None:
        return []
    warnings = []
    if cache.problem is not None:
        warnings.append(f"cache unusable: {cache.problem}")
    if cache.corruption is not None:
        warnings.append(f"cache entries ignored: {cache.corruption}")
    return warnings


@contextlib.contextmanager
def _wired(plan: RunPlan) -> Iterator[tuple[Any, dict[str, Any], ResponseCache | None]]:
    """The container of a run or a dry run, while the block lasts, with the plan's metric
    beans, each checked ready (a missing judge or embedding model fails here, before any
    call), and the judges' response cache.

    Metrics that use no judge (ToolCallAccuracy, NLP) never build one: such a run needs
    neither the local judge's extra nor a reachable model. By default, metrics that need
    embedding models are left out when none is configured; asked for by name, they fail with
    an error naming embedding-models. The cache comes from its own provider: the executor's
    would build the judges.
    """
    from ragas_boot.container import create_container

    judged = (
        needs_models(plan.metrics)
        or (not plan.options.metrics and plan.options.view != "suite")
        or plan.agent_model is not None  # the agent model is one of the judges' entries
        or (plan.suite is not None and plan.suite.needs_simulator)  # a judge plays the user
    )
    with create_container(plan.settings, build_judges=judged) as container:
        names = plan.metrics
        if not plan.options.metrics and not container.embedding_models():
            names = without_embedding_metrics(names)
        beans = {name: container.metric(name) for name in names}
        for bean in beans.values():
            bean.check_ready()
        _check_spend_cap(plan, beans, _simulator_judges(plan, container))
        yield container, beans, container.execution.response_cache()


def _simulator_judges(plan: RunPlan, container: Any) -> list[Any]:
    """The judge that plays a suite's simulated users and tools, if it has any (the spend
    cap counts its calls too)."""
    if plan.suite is None or not plan.suite.needs_simulator or plan.limits.max_cost is None:
        return []
    from ragas_boot.runs.suites.scenarios import simulation_role

    return [simulation_role(container).judge]


def _check_spend_cap(
    plan: RunPlan, beans: dict[str, Any], simulators: list[Any] | None = None
) -> None:
    """Refuse a spend cap that counts none of the models the run calls (no judge has a
    price); warn, before the first call, naming those whose calls it does not count.

    Raises:
        UsageError: ``--max-cost`` counts no model of the run.
        ConfigError: ``spring.ai.ragas.run.max-cost`` counts no model of the run.
    """
    from ragas_boot.execution.spending import cap_coverage
    from ragas_boot.metrics.base import Need

    max_cost = plan.limits.max_cost
    if max_cost is None:
        return
    overrides = plan.options.metric_overrides(list(beans))
    judges: dict[str, Any] = {}
    embedding_models: dict[str, Any] = {}
    for name, bean in beans.items():
        if bean.uses_judges:
            config = bean.resolve_config(overrides.get(name))
            judges.update((judge.id, judge) for judge in bean.executor.select(config.models))
        if Need.EMBEDDINGS in bean.needs:
            embedding_models.update((model.id, model) for model in bean.embeddings.models)
    judges.update((judge.id, judge) for judge in simulators or ())
    counted, uncounted = cap_coverage(judges.values(), embedding_models.values())
    if not uncounted:
        return  # every call is counted, or the run calls no model at all
    flag = plan.options.max_cost is not None
    source = f"--max-cost {max_cost:g}" if flag else f"spring.ai.ragas.run.max-cost: {max_cost:g}"
    if not counted:
        problem = (
            f"cannot cap this run: no judge it calls has a price ({', '.join(uncounted)}), so no "
            "call would count against it. Give their chat models a price: {input-per-million: "
            "..., output-per-million: ...}, or drop the cap"
        )
        if flag:
            raise UsageError(f"--max-cost {max_cost:g} {problem}")
        from ragas_boot.errors import ConfigError

        raise ConfigError(f"{max_cost:g} {problem}", key="spring.ai.ragas.run.max-cost")
    message(
        f"warning: {source} does not cap the calls of {', '.join(uncounted)} (no price): they "
        f"are sent and not counted; only {', '.join(counted)} are capped",
        "yellow",
    )


def _warn(text: str) -> None:
    """One ``warning:`` line on stdout, under the summary it qualifies (never wrapped)."""
    from ragas_boot.reporting._format import plain

    stdout().print(plain(f"warning: {text}", style="bold yellow"), soft_wrap=True)


@contextlib.contextmanager
def _progress(enabled: bool, total: int) -> Iterator[ProgressCallback | None]:
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn

    from ragas_boot.reporting import _format as fmt
    from ragas_boot.runs import RunProgress

    columns = (
        SpinnerColumn(),
        TextColumn("Evaluating"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("samples · {task.fields[detail]}"),
    )
    with Progress(*columns, console=stderr(), transient=True) as bar:
        task = bar.add_task("evaluate", total=total, detail="starting")

        def update(state: RunProgress) -> None:
            eta = fmt.seconds(state.eta_s) if state.eta_s is not None else "…"
            detail = (
                f"{state.judge_calls} judge calls ({state.failed_judge_calls} failed) · "
                f"{state.failed_evaluations} failed evaluations · ETA {eta}"
            )
            bar.update(task, completed=state.samples_done, detail=detail)

        yield update


@contextlib.contextmanager
def _agent_progress(enabled: bool, total: int) -> Iterator[Callable[[Any], None] | None]:
    """A progress bar of a suite's agent phase (cases run, agent errors)."""
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn

    columns = (
        SpinnerColumn(),
        TextColumn("Running the agent"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("cases · {task.fields[errors]} agent errors"),
    )
    errors = 0
    with Progress(*columns, console=stderr(), transient=True) as bar:
        task = bar.add_task("agent", total=total, errors=0)

        def update(sample: Any) -> None:
            nonlocal errors
            errors += sample.agent_run is not None and sample.agent_run.error is not None
            bar.update(task, advance=1, errors=errors)

        yield update


@contextlib.contextmanager
def _stop_on_signals() -> Iterator[Interrupts]:
    """Stop the run on SIGINT / SIGTERM (main thread only); restore the old handlers."""
    from ragas_boot.runs import RunControl

    interrupts = Interrupts(control=RunControl())
    if threading.current_thread() is not threading.main_thread():
        yield interrupts
        return

    def handler(signum: int, frame: object) -> None:
        if interrupts.signals:  # a second signal: stop waiting for a clean end
            raise KeyboardInterrupt
        interrupts.stop(signum)

    saved = {number: signal.signal(number, handler) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield interrupts
    finally:
        for number, previous in saved.items():
            signal.signal(number, previous)
