"""The options of a dataset run (``evaluate``, ``compare``, ``calibrate``), and the one place
where a flag given on the command line wins over its YAML key.

:class:`RunOptions` holds what the command line said (``None``: not given, take the YAML's
value); :meth:`RunOptions.over` resolves it against the loaded settings once, into the
settings the run uses and its :class:`RunLimits`. Code and tests build :class:`RunOptions`
directly, without argparse.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ragas_boot.cli._arguments import (
    add_cache_dir,
    add_config_arguments,
    add_history_arguments,
    aggregation,
    comma_separated,
    duration,
    positive_float,
    positive_int,
    repeat_count,
    spool_after,
    unit_float,
)
from ragas_boot.cli._metrics import metric_choices

if TYPE_CHECKING:
    from ragas_boot.config.settings import RagasSettings
    from ragas_boot.datasets import SourceFormat
    from ragas_boot.runs import RunGate, RunResult

__all__ = [
    "RunLimits",
    "RunOptions",
    "View",
    "add_agent_arguments",
    "add_run_arguments",
    "add_shard_arguments",
    "add_source_arguments",
]

#: Which command runs the dataset: it chooses the console tables and the reports
#: (``suite``: ``suite run``, whose metrics are the suite's and whose gate is its pass rate).
View = Literal["evaluate", "compare", "calibrate", "suite"]


@dataclass(frozen=True, kw_only=True, slots=True)
class RunLimits:
    """The run's bounds, each the flag's value when given, else its YAML key's."""

    deadline_s: float | None
    evaluation_deadline_s: float | None
    max_cost: float | None
    spool_after: int | None


@dataclass(frozen=True, kw_only=True, slots=True)
class RunOptions:
    """What the command line asks of a dataset run; ``None`` leaves a value to the YAML.

    Each field is the flag of the same name (``metrics`` is ``--metric``, ``out`` is
    ``--out``, ``progress`` / ``cache`` / ``history`` are the negations of ``--no-progress``,
    ``--no-cache`` and ``--no-history``; ``seed`` and ``resamples`` are ``calibrate``'s;
    ``source_format``, ``column_map``, ``sample`` and ``sample_seed`` are ``--from``, ``--map``,
    ``--sample`` and ``--seed`` of ``evaluate`` and ``compare``; ``min_sample_pass_rate`` is
    ``--min-passed`` (``suite run``'s ``--min-pass-rate``); ``agent``, ``agent_model``,
    ``cases`` and ``agent_concurrency`` are ``--agent``, ``--agent-model``, ``--case`` and
    ``suite run``'s ``--concurrency``, read when the dataset is a suite file; ``resume``,
    ``shard`` and ``run_group`` are ``--resume``, ``--shard`` and ``--run-group``;
    ``max_turns`` and ``plays`` are ``suite run``'s ``--max-turns`` and ``--repeat``, of
    scenario cases).
    """

    dataset: str
    view: View = "evaluate"
    metrics: tuple[str, ...] = ()
    config: str | None = None
    profiles: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    aggregation: str | None = None
    concurrency: int | None = None
    out: tuple[str, ...] = ()
    fail_under: float | None = None
    min_judges: int | None = None
    repeat: int | None = None
    min_pass_rate: float | None = None
    follow_symlinks: bool = False
    deadline_s: float | None = None
    evaluation_deadline_s: float | None = None
    max_cost: float | None = None
    spool_after: int | Literal["never"] | None = None
    dry_run: bool = False
    progress: bool = True
    cache: bool = True
    cache_dir: str | None = None
    baseline: str | None = None
    fail_on_regression: bool = False
    tolerance: float = 0.0
    history: bool = True
    allow_empty: bool = False
    seed: int = 0
    resamples: int = 1000
    source_format: SourceFormat | Literal["suite"] | None = None
    column_map: tuple[str, ...] = ()
    sample: int | None = None
    sample_seed: int | None = None
    min_sample_pass_rate: float | None = None
    agent: str | None = None
    agent_model: str | None = None
    cases: tuple[str, ...] = ()
    agent_concurrency: int | None = None
    resume: str | None = None
    shard: str | None = None
    run_group: str | None = None
    max_turns: int | None = None
    plays: int | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace, view: View) -> RunOptions:
        """The options parsed by :func:`add_run_arguments`."""
        return cls(
            dataset=args.dataset,
            view=view,
            metrics=tuple(args.metric),
            config=args.config,
            profiles=tuple(comma_separated(args.profile)),
            models=tuple(comma_separated(args.models)),
            aggregation=args.aggregation,
            concurrency=args.concurrency,
            out=tuple(args.out),
            fail_under=args.fail_under,
            min_judges=args.min_judges,
            repeat=args.repeat,
            min_pass_rate=args.min_pass_rate,
            follow_symlinks=args.follow_symlinks,
            deadline_s=args.deadline,
            evaluation_deadline_s=args.evaluation_deadline,
            max_cost=args.max_cost,
            spool_after=args.spool_after,
            dry_run=args.dry_run,
            progress=not args.no_progress,
            cache=not args.no_cache,
            cache_dir=args.cache_dir,
            baseline=args.baseline,
            fail_on_regression=args.fail_on_regression,
            tolerance=args.tolerance,
            history=not args.no_history,
            allow_empty=args.allow_empty,
            seed=getattr(args, "seed", 0),
            resamples=getattr(args, "resamples", 1000),
            source_format=getattr(args, "source_format", None),
            column_map=tuple(getattr(args, "column_map", None) or ()),
            sample=getattr(args, "sample", None),
            sample_seed=getattr(args, "sample_seed", None),
            min_sample_pass_rate=getattr(args, "min_passed", None),
            agent=getattr(args, "agent", None),
            agent_model=getattr(args, "agent_model", None),
            resume=getattr(args, "resume", None),
            shard=getattr(args, "shard", None),
            run_group=getattr(args, "run_group", None),
        )

    def gate(self, run: RunResult) -> RunGate:
        """The run's gate as the flags ask: ``--fail-under``, ``--min-pass-rate`` (repeats)
        and ``--min-passed`` (samples passing every metric; a suite's ``min-pass-rate``)."""
        return run.gate(
            self.fail_under,
            min_pass_rate=self.min_pass_rate,
            min_sample_pass_rate=self.min_sample_pass_rate,
        )

    def over(self, settings: RagasSettings) -> tuple[RagasSettings, RunLimits]:
        """The flags over the YAML: the settings with ``--no-cache`` / ``--cache-dir`` applied
        to ``spring.ai.ragas.cache``, and the run's limits (``spring.ai.ragas.run``)."""
        cache: dict[str, Any] = {}
        if not self.cache:
            cache["enabled"] = False
        if self.cache_dir:
            cache["dir"] = self.cache_dir
        if cache:
            settings = settings.model_copy(
                update={"cache": settings.cache.model_copy(update=cache)}
            )
        run = settings.run
        yaml_deadline = run.deadline.total_seconds() if run.deadline is not None else None
        yaml_evaluation_deadline = (
            run.evaluation_deadline.total_seconds() if run.evaluation_deadline is not None else None
        )
        spool: int | None = run.spool_after
        if self.spool_after is not None:
            spool = None if self.spool_after == "never" else int(self.spool_after)
        limits = RunLimits(
            deadline_s=self.deadline_s if self.deadline_s is not None else yaml_deadline,
            evaluation_deadline_s=(
                self.evaluation_deadline_s
                if self.evaluation_deadline_s is not None
                else yaml_evaluation_deadline
            ),
            max_cost=self.max_cost if self.max_cost is not None else run.max_cost,
            spool_after=spool,
        )
        return settings, limits

    def metric_overrides(self, names: list[str]) -> dict[str, dict[str, Any]]:
        """Per metric, the run settings the flags override (``--models``, ``--aggregation``,
        ``--min-judges``, ``--repeat``); the metrics' own YAML gives the rest."""
        override: dict[str, Any] = {}
        if self.models:
            override["models"] = list(self.models)
        if self.aggregation:
            override["aggregation"] = self.aggregation
        if self.min_judges is not None:
            override["min_judges"] = self.min_judges
        if self.repeat is not None:
            override["repeat"] = self.repeat
        return {name: dict(override) for name in names} if override else {}


def add_run_arguments(parser: argparse.ArgumentParser, *, metric_required: bool) -> None:
    """The arguments of a dataset run, read back by :meth:`RunOptions.from_args`."""
    parser.add_argument(
        "dataset",
        metavar="DATASET",
        help="dataset file (.yaml, .json, .jsonl, .csv, .parquet), a directory saved by "
        "datasets.Dataset.save_to_disk, or OTLP JSON traces with --from otlp",
    )
    parser.add_argument(
        "--metric",
        action="append",
        default=[],
        metavar="NAME",
        required=metric_required,
        help=f"metric to run: {metric_choices()}; METRIC:CRITERION runs a named criterion "
        "of the YAML (aspect_critic:no-profanity); repeat"
        + (
            ""
            if metric_required
            else "; default: every metric that uses judges and can read the dataset's samples"
        ),
    )
    add_config_arguments(parser)
    parser.add_argument(
        "--models",
        action="append",
        default=[],
        metavar="A,B",
        help="only these judges (ids or aliases, comma-separated); default: all",
    )
    parser.add_argument(
        "--aggregation",
        type=aggregation,
        metavar="NAME",
        help="how judges' scores combine: average, median, min, max, majority_voting, consensus",
    )
    parser.add_argument(
        "--concurrency",
        type=positive_int,
        default=None,
        metavar="N",
        help="evaluations in flight at once (default: 8; every evaluation, up to 50,000, "
        "when a judge sends batches)",
    )
    parser.add_argument(
        "--out",
        action="append",
        default=[],
        metavar="FILE",
        help="write a report: .html (self-contained) or .json; evaluate and compare also "
        ".csv / .parquet (one row per sample × metric), .xml (JUnit) and .md (a Markdown "
        "summary, appended to $GITHUB_STEP_SUMMARY when set); repeat for several",
    )
    parser.add_argument(
        "--fail-under",
        type=unit_float,
        metavar="X",
        help="exit 1 when the mean score of any metric is under X (a CI gate); for "
        "lower-is-better metrics (noise_sensitivity, hallucination), over 1 - X",
    )
    parser.add_argument(
        "--min-judges",
        type=positive_int,
        metavar="K",
        help="quorum: a score needs K answering judges, else it is undefined ('no quorum') "
        "and fails the gate unless quorum-failure is SKIP (default: the YAML's min-judges)",
    )
    parser.add_argument(
        "--repeat",
        type=repeat_count,
        metavar="N",
        help="score each sample N times (repeats bypass the response cache); reports show "
        "each sample's pass rate, its 95%% Wilson interval and 'unstable' when the repeats "
        "disagree (default: the YAML's repeat, else 1)",
    )
    parser.add_argument(
        "--min-pass-rate",
        type=unit_float,
        metavar="X",
        help="exit 1 when any sample's share of passing repeats is under X, 0.8 or 80%% "
        "(default: each metric's min-pass-rate)",
    )
    parser.add_argument(
        "--min-passed",
        type=unit_float,
        metavar="X",
        help="exit 1 when the share of samples that pass every metric is under X, 0.9 or 90%% "
        "(default: a suite file's min-pass-rate, else not checked)",
    )
    parser.add_argument(
        "--follow-symlinks",
        action="store_true",
        help="--out may be a symbolic link: write to its target (default: refuse)",
    )
    parser.add_argument(
        "--deadline",
        type=duration,
        metavar="DURATION",
        help="longest time the whole run may take (30s, 10m, 1h); then what is unfinished is "
        "cancelled and reported as 'deadline' (default: spring.ai.ragas.run.deadline)",
    )
    parser.add_argument(
        "--evaluation-deadline",
        type=duration,
        metavar="DURATION",
        help="longest time one sample × metric may take (default: "
        "spring.ai.ragas.run.evaluation-deadline)",
    )
    parser.add_argument(
        "--max-cost",
        type=positive_float,
        metavar="AMOUNT",
        help="spend cap of the run, in the judges' price currency: once the priced judges' "
        "billed tokens cost AMOUNT no judge call is sent, what is unfinished is reported as "
        "'budget' and the exit code is 3 (default: spring.ai.ragas.run.max-cost)",
    )
    parser.add_argument(
        "--spool-after",
        type=spool_after,
        metavar="N",
        help="a run of more than N samples keeps its judge calls' prompts and raw answers in "
        "an unnamed temporary file instead of memory (the JSON report is the same; the HTML "
        "report shows them for the first and the failing samples); 0 = always, 'never' = keep "
        "everything in memory (default: spring.ai.ragas.run.spool-after, 1000)",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="send nothing: print the judge calls the run would make per metric and judge, "
        "their estimated tokens and cost, and exit 0",
    )
    parser.add_argument(
        "--no-progress", action="store_true", help="no live progress bar (auto off when piped)"
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="neither read nor write the response cache (default: spring.ai.ragas.cache.enabled)",
    )
    parser.add_argument(
        "--allow-empty",
        action="store_true",
        help="run a dataset of no samples (exit 0 unless --fail-under asks for a mean "
        "score, which no sample gives); default: exit 2, so that a truncated export or a "
        "wrong filter does not pass the gate",
    )
    add_cache_dir(parser)
    add_history_arguments(parser)
    add_shard_arguments(parser)


def add_shard_arguments(parser: argparse.ArgumentParser) -> None:
    """``--resume``, ``--shard`` and ``--run-group``: a run continued, or split across
    machines (see runs/shards.py)."""
    parser.add_argument(
        "--resume",
        metavar="RUN",
        help="continue a run that was stopped or killed (its id, a unique prefix, or latest): "
        "what it finished is not scored again; same dataset, configuration and flags",
    )
    parser.add_argument(
        "--shard",
        metavar="I/N",
        help="score only shard I of N (1 <= I <= N): the samples whose id hashes to it; each "
        "shard takes 1/N of every provider's rate-limit and max-concurrency unless "
        "limits-per-machine: true; needs --run-group",
    )
    parser.add_argument(
        "--run-group",
        metavar="NAME",
        help="the group the shards of one run record themselves under; `ragas-boot runs "
        "merge NAME` builds the run from them",
    )


def add_agent_arguments(parser: argparse.ArgumentParser, *, suite_only: bool = False) -> None:
    """``--agent`` and ``--agent-model``: which agent a suite's cases run (a suite file as
    DATASET for ``evaluate`` / ``compare``; ``suite run``)."""
    where = "" if suite_only else "with a suite file: "
    parser.add_argument(
        "--agent",
        metavar="MODULE:FUNCTION",
        help=f"{where}a Python agent callable (default: the suite's agent or agent-model)",
    )
    parser.add_argument(
        "--agent-model",
        metavar="ID",
        help=f"{where}a chat model id (or alias) of the configuration to run as the agent",
    )


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    """``--from``, ``--map``, ``--sample`` and ``--seed``: how the dataset is read
    (``evaluate`` and ``compare``; ``calibrate``'s ``--seed`` is its bootstrap's); and, for a
    suite file, ``--agent`` / ``--agent-model``."""
    formats = ("yaml", "jsonl", "csv", "parquet", "hf", "otlp", "suite")
    parser.add_argument(
        "--from",
        dest="source_format",
        choices=formats,
        metavar="FORMAT",
        help=f"how to read DATASET: {', '.join(formats)} (default: by its suffix; a "
        "directory is a saved Hugging Face dataset; a YAML or JSON file with 'cases' is a "
        "suite); otlp reads OpenTelemetry traces exported as OTLP JSON, one trace = one "
        "sample; suite runs the suite's agent on its cases first",
    )
    parser.add_argument(
        "--map",
        dest="column_map",
        action="append",
        default=[],
        metavar="COLUMN=FIELD",
        help="tables (csv, parquet, hf): read COLUMN as the sample field FIELD "
        "(question=user_input; team=metadata.team keeps it as metadata); repeat",
    )
    parser.add_argument(
        "--sample",
        type=positive_int,
        metavar="N",
        help="score N samples (traces) chosen at random, in their order (default: all)",
    )
    parser.add_argument(
        "--seed",
        dest="sample_seed",
        type=int,
        metavar="S",
        help="with --sample: the random seed; the same seed picks the same samples",
    )
    add_agent_arguments(parser)
