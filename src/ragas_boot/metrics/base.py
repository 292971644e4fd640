"""The metric bean: what a metric declares, how its bean is built, and its public API.

:class:`Metric` is the one class users subclass (a custom metric declares its class
attributes and implements ``total_steps`` and ``_score``). It keeps the sync/async twins
(``evaluate`` / ``aevaluate``, ``multi_turn_score`` / ``multi_turn_ascore``, ...) and the
order of one evaluation (check the sample, select judges, score, check the quorum,
aggregate, build the result); each concern is a collaborator with one job:

* :mod:`~ragas_boot.metrics.configuration`: ``MetricConfig``, the YAML section and named
  criteria, a call's effective config and its JSON dump (``ConfigResolver``);
* :mod:`~ragas_boot.metrics.quorum`: the judges a config selects and the quorum check;
* :mod:`~ragas_boot.metrics.repeats`: ``repeat: N`` around the evaluation;
* :mod:`~ragas_boot.metrics.events`: what listeners are told;
* :mod:`~ragas_boot.metrics.outcome`: ``ScoringOutcome`` and the ``MetricResult`` made of it;
* :func:`~ragas_boot.execution.bridge.run_without_loop`: the sync twin of a judge-less
  metric, on the caller's thread.
"""

from __future__ import annotations

import enum
import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.config.settings import Aggregation, MetricsSettings, QuorumFailure
from ragas_boot.errors import AllJudgesFailedError, ConfigError, UndefinedScoreError
from ragas_boot.execution.aggregation import aggregate
from ragas_boot.execution.bridge import LoopPortal, run_without_loop
from ragas_boot.execution.embeddings import EmbeddingExecutor
from ragas_boot.execution.executor import MultiModelExecutor
from ragas_boot.execution.listeners import ListenerRegistry, MetricListener
from ragas_boot.execution.repeats import current_repeat
from ragas_boot.execution.results import Exclusion, StepRecord
from ragas_boot.metrics.configuration import (
    MAX_REPEATS,
    ConfigResolver,
    MetricConfig,
    declared_criteria,
    find_criterion,
    section_defaults,
    section_model,
)
from ragas_boot.metrics.events import notify_failed, notify_finished, notify_started
from ragas_boot.metrics.outcome import (
    ScoringOutcome,
    all_failed,
    build_result,
    exclusions_of,
    steps_of,
)
from ragas_boot.metrics.prompting import load_prompt
from ragas_boot.metrics.quorum import check_quorum, quorum_check, quorum_policy, select_judges
from ragas_boot.metrics.repeats import evaluate_repeats
from ragas_boot.metrics.results import MetricResult, Quorum
from ragas_boot.samples import Sample

__all__ = [
    "MAX_REPEATS",
    "Metric",
    "MetricConfig",
    "Need",
    "ScoringOutcome",
]

log = logging.getLogger("ragas_boot.metrics")

ConfigT = TypeVar("ConfigT", bound=MetricConfig)


class Need(enum.Enum):
    """What a metric needs from the container besides its config."""

    JUDGES = "judges"
    """Chat models (the multi-model executor)."""
    EMBEDDINGS = "embeddings"
    """Embedding models."""


class Metric(ABC, Generic[ConfigT]):
    """Base of every metric bean.

    ``multi_turn_ascore`` / ``aevaluate`` are the implementation; the sync twins call them
    through the container's loop portal, so sync and async calls can be mixed freely (from
    scripts, pytest with or without pytest-asyncio, notebooks). Concurrent evaluations on one
    bean never see each other's results.

    Args:
        executor: the multi-model executor (``None`` for metrics that use no LLM).
        defaults: the config used when a call gives none, and for fields a call leaves unset.
        settings: ``spring.ai.ragas.metrics`` (global aggregation and language).
        listeners: evaluation listeners (logging, reports).
        portal: the loop that owns I/O; the executor's when there is one.
        embeddings: the embedding models' executor (metrics that need
            :attr:`Need.EMBEDDINGS`).
    """

    # A metric declares itself with these class attributes; the registry reads them to make
    # the container's bean, the pytest fixture, the CLI's --metric choice, the typed YAML
    # section and the docs table. Nothing else lists metrics.

    #: Bean name: ``container.<bean>()``, the fixture, ``--metric``, the YAML section (kebab).
    bean_name: ClassVar[str]
    #: Metric name, the Java class name (shows in logs, reports, listener events).
    name: ClassVar[str]
    #: One line on what the metric measures (CLI help, docs table).
    description: ClassVar[str]
    #: The config model of this metric.
    config_type: ClassVar[type[MetricConfig]]
    #: What the metric needs: judges, embedding models, both or nothing.
    needs: ClassVar[frozenset[Need]] = frozenset({Need.JUDGES})
    #: Sample fields read, by mode value (``"*"``: every mode); ``a|b`` means either. The
    #: one statement of them: :meth:`check_sample` requires them, :meth:`can_read` asks.
    reads: ClassVar[Mapping[str, tuple[str, ...]]]
    #: The config field whose value names the mode ``reads`` is keyed by (and that a
    #: SampleValidationError shows), or None.
    mode_field: ClassVar[str | None] = None
    #: Why the metric needs its sample fields: ends the SampleValidationError of a field it
    #: lacks (``{name}`` stands for the metric's name).
    why: ClassVar[str] = "{name} reads it"
    #: Whether a lower score is better (a threshold is then a maximum).
    lower_is_better: ClassVar[bool] = False
    #: YAML key of the metric's section that holds named variants (``criteria``), or None.
    #: Each variant is a config of this metric laid over the section's defaults, and becomes
    #: its own bean: ``container.metric("aspect_critic", "no-profanity")``, a pytest fixture
    #: ``aspect_critic__no_profanity``, ``--metric aspect_critic:no-profanity``.
    criteria_key: ClassVar[str | None] = None

    @classmethod
    def section_model(cls) -> type[BaseModel]:
        """The model of ``spring.ai.ragas.metrics.<bean-name>``: the config, plus the named
        criteria when the metric has them."""
        if cls.criteria_key is None:
            return cls.config_type
        return section_model(cls.config_type, cls.criteria_key)

    @classmethod
    def criteria(cls, settings: MetricsSettings) -> list[str]:
        """Names of the named criteria the YAML declares for this metric (in file order)."""
        if cls.criteria_key is None:
            return []
        return declared_criteria(settings, cls.bean_name, cls.criteria_key)

    @classmethod
    def find_criterion(cls, settings: MetricsSettings, criterion: str) -> str:
        """The declared criterion ``criterion`` names (kebab or snake case, any case).

        Raises:
            ConfigError: the metric takes no named criteria, or none of that name is declared
                (the message lists the declared ones).
        """
        return find_criterion(
            settings,
            criterion,
            metric=cls.name,
            bean_name=cls.bean_name,
            criteria_key=cls.criteria_key,
        )

    @classmethod
    def can_read(cls, sample: Sample) -> bool:
        """Whether ``sample`` has every field some mode of the metric reads (``reads``)."""
        # Imported here: the steps import this module (Chain), so a top-level import is a cycle.
        from ragas_boot.metrics.steps.inputs import has_field

        common = cls.reads.get("*", ())
        modes = [fields for mode, fields in cls.reads.items() if mode != "*"] or [()]
        return any(
            all(has_field(sample, field) for field in (*common, *fields)) for fields in modes
        )

    @classmethod
    def uses(cls, need: Need) -> bool:
        """Whether the metric needs ``need``."""
        return need in cls.needs

    @property
    def uses_judges(self) -> bool:
        """Whether the metric calls judges; one that does not runs on the caller's thread."""
        return self._uses_judges

    def __init__(
        self,
        *,
        executor: MultiModelExecutor | None = None,
        defaults: ConfigT | None = None,
        settings: MetricsSettings | None = None,
        listeners: Iterable[MetricListener] = (),
        portal: LoopPortal | None = None,
        embeddings: EmbeddingExecutor | None = None,
    ) -> None:
        self._executor = executor
        self._embeddings = embeddings
        # Read per evaluation: membership of an Enum in a frozenset hashes it in Python.
        self._uses_judges = Need.JUDGES in self.needs
        self._uses_embeddings = Need.EMBEDDINGS in self.needs
        self._criterion: str | None = None
        self._defaults: ConfigT = defaults or self.config_type()  # type: ignore[assignment]
        self._configs = ConfigResolver(self._defaults, self.config_type, self.name)
        self._settings = settings or MetricsSettings()
        self._listeners = ListenerRegistry(listeners)
        if portal is None:
            if executor is not None:
                portal = executor.portal
            elif embeddings is not None:
                portal = embeddings.portal
            else:
                portal = LoopPortal(name="ragas-boot")
        self._portal = portal

    def __repr__(self) -> str:
        named = f"criterion={self._criterion!r}, " if self._criterion else ""
        return f"{type(self).__name__}({named}defaults={self._defaults!r})"

    @property
    def criterion(self) -> str | None:
        """The named criterion this bean was built for (``None``: the metric's own bean)."""
        return self._criterion

    @property
    def label(self) -> str:
        """The name results, events and reports show: ``AspectCriticMetric:no-profanity`` for
        a named criterion's bean, else :attr:`name`."""
        return f"{self.name}:{self._criterion}" if self._criterion else self.name

    @property
    def _run_name(self) -> str:
        """The name a dataset run gives this bean's evaluations: the bean name, with
        ``:criterion`` for a named criterion's bean (``aspect_critic:no-profanity``, as
        ``--metric`` spells it)."""
        return f"{self.bean_name}:{self._criterion}" if self._criterion else self.bean_name

    @classmethod
    def from_settings(
        cls,
        *,
        settings: MetricsSettings,
        executor: MultiModelExecutor | None = None,
        listeners: Iterable[MetricListener] = (),
        portal: LoopPortal | None = None,
        embeddings: EmbeddingExecutor | None = None,
        criterion: str | None = None,
    ) -> Metric[ConfigT]:
        """Build the bean with its defaults from ``spring.ai.ragas.metrics.<metric>``.

        Args:
            criterion: a named criterion of the section (see :attr:`criteria_key`): its
                config is laid over the section's defaults.

        Raises:
            ConfigError: the YAML section does not fit the metric's config (names the key),
                or ``criterion`` is not declared (lists the declared ones).
        """
        defaults, criterion = section_defaults(
            settings,
            metric=cls.name,
            bean_name=cls.bean_name,
            config_type=cls.config_type,
            criteria_key=cls.criteria_key,
            criterion=criterion,
        )
        metric = cls(
            executor=executor,
            defaults=defaults,  # type: ignore[arg-type]
            settings=settings,
            listeners=listeners,
            portal=portal,
            embeddings=embeddings,
        )
        metric._criterion = criterion
        return metric

    # ------------------------------------------------------------------ configuration

    @property
    def defaults(self) -> ConfigT:
        """The config used for fields a call leaves unset."""
        return self._defaults

    @property
    def listeners(self) -> ListenerRegistry:
        """This bean's listeners."""
        return self._listeners

    def resolve_config(self, config: ConfigT | Mapping[str, Any] | None = None) -> ConfigT:
        """The effective config: fields set in ``config`` over this bean's defaults.

        Raises:
            TypeError: ``config`` is neither a mapping nor this metric's config type.
            ValidationError: a mapping that does not fit the config type.
        """
        return self._configs.resolve(config)

    def _language(self, config: MetricConfig) -> str:
        return config.language or self._settings.language

    def _template(self, config: MetricConfig, name: str) -> str:
        """The config's custom template ``name``, else the shipped one in its language."""
        return config.prompts.get(name) or load_prompt(name, self._language(config))

    def _aggregation(self, config: MetricConfig) -> Aggregation:
        return config.aggregation or self._settings.aggregation

    def _select(self, config: MetricConfig) -> list[JudgeModel]:
        """The judges ``config`` asks (none for a metric that uses none); a quorum they
        cannot reach is refused here, before any call."""
        if not self._uses_judges:
            return []
        judges = select_judges(self.executor, config, metric=self.name)
        self.check_quorum(config, judges)
        return judges

    def check_quorum(self, config: MetricConfig, judges: Sequence[JudgeModel]) -> None:
        """Raise when ``config``'s quorum exceeds the judges it asks (no run could reach it).

        Raises:
            ConfigError: naming ``min-judges``.
        """
        required, _ = self.quorum_policy(config)
        check_quorum(required, judges, metric=self.label, bean_name=self.bean_name)

    def quorum_policy(self, config: MetricConfig) -> tuple[int | None, QuorumFailure]:
        """The quorum ``config`` asks for (``min-judges``, None: any one judge) and what gates
        make of a missed one (``quorum-failure``), each falling back to the global YAML key."""
        return quorum_policy(config, self._settings, uses_judges=self._uses_judges)

    def _quorum(
        self, config: MetricConfig, judge_ids: Sequence[str], exclusions: Sequence[Exclusion]
    ) -> Quorum | None:
        required, on_failure = self.quorum_policy(config)
        if required is None:
            return None
        return quorum_check(required, on_failure, judge_ids, exclusions)

    @property
    def portal(self) -> LoopPortal:
        """The loop that owns this bean's I/O (the executor's when it has one)."""
        return self._portal

    def check_ready(self) -> None:
        """Raise now what the first call would: no judges or no embedding models for a metric
        that needs them, or a ``models`` default naming an unknown judge.

        Raises:
            ConfigError: a judge or embedding model this metric needs is not configured.
            JudgeNotFoundError: the bean's default ``models`` names an unknown judge.
        """
        if Need.EMBEDDINGS in self.needs:
            self.embeddings  # noqa: B018 - the property raises the error
        self._select(self._defaults)

    @property
    def embeddings(self) -> EmbeddingExecutor:
        """The embedding models' executor (only for metrics that use embeddings).

        Raises:
            ConfigError: no embedding model is configured (names ``embedding-models``).
        """
        if self._embeddings is None or not self._embeddings.models:
            raise ConfigError(
                f"no embedding models are configured, and {self.name} needs at least one",
                key="spring.ai.ragas.providers.openai-compatible[].embedding-models",
                hint="Declare embedding-models under an openai-compatible provider, or enable "
                "the local provider (spring.ai.ragas.providers.local.enabled: true) for its "
                "offline embedding model",
            )
        return self._embeddings

    @property
    def executor(self) -> MultiModelExecutor:
        """The executor (only for metrics that use judges)."""
        if self._executor is None:
            raise RuntimeError(f"{self.name} was built without an executor")
        return self._executor

    # ------------------------------------------------------------------ public API

    async def aevaluate(
        self, sample: Sample, config: ConfigT | Mapping[str, Any] | None = None
    ) -> MetricResult:
        """Score ``sample`` and return the full result.

        Raises:
            SampleValidationError: the sample lacks a field this metric (mode) needs.
            JudgeNotFoundError: ``config.models`` names an unknown judge.
            AllJudgesFailedError: no judge answered a step the metric cannot skip.
            NoConsensusError: CONSENSUS aggregation and the judges disagree too much.
        """
        effective = self.resolve_config(config)
        if not self.needs:
            return await self._evaluate_repeats(sample, effective)
        return await self._portal.run(self._evaluate_repeats(sample, effective))

    def evaluate(
        self, sample: Sample, config: ConfigT | Mapping[str, Any] | None = None
    ) -> MetricResult:
        """Sync twin of :meth:`aevaluate`."""
        if not self.needs:
            return run_without_loop(self._evaluate_repeats(sample, self.resolve_config(config)))
        return self._portal.call(self.aevaluate(sample, config))

    async def multi_turn_ascore(
        self, sample: Sample, config: ConfigT | Mapping[str, Any] | None = None
    ) -> float:
        """Score a multi-turn sample.

        Raises:
            UndefinedScoreError: the score is undefined for this sample (``aevaluate`` gives
                the result with ``score=None`` and the reason).
            ...: as :meth:`aevaluate`.
        """
        result = await self.aevaluate(sample, config)
        if result.score is None:
            raise UndefinedScoreError(self.name, result.undefined_reason or "no score")
        return result.score

    def multi_turn_score(
        self, sample: Sample, config: ConfigT | Mapping[str, Any] | None = None
    ) -> float:
        """Sync twin of :meth:`multi_turn_ascore`."""
        if not self.needs and not self._listeners:
            # Nobody sees the result: a judge-less metric stops at its score.
            effective = self.resolve_config(config)
            if not isinstance(sample, Sample):
                raise TypeError(f"{self.name} scores a Sample, got {type(sample).__name__}")
            unscored = _unscored_reason(sample)
            if unscored is not None:
                raise UndefinedScoreError(self.name, unscored)
            effective = self.check_sample(sample, effective)
            score = self._score_only(sample, effective)
            if score is not None:
                return float(score)
            outcome = run_without_loop(self._score(sample, effective, []))
            if outcome.score is None:
                raise UndefinedScoreError(self.name, outcome.undefined_reason or "no score")
            return float(outcome.score)
        result = self.evaluate(sample, config)
        if result.score is None:
            raise UndefinedScoreError(self.name, result.undefined_reason or "no score")
        return result.score

    def _score_only(self, sample: Sample, config: ConfigT) -> float | None:
        """A judge-less metric's score without its metadata and explanation, when it has a
        shortcut to it (``None``: score through :meth:`_score`). The sample is checked."""
        return None

    async def single_turn_ascore(
        self, sample: Sample, config: ConfigT | Mapping[str, Any] | None = None
    ) -> float:
        """Score a sample; agent metrics read the same fields as :meth:`multi_turn_ascore`."""
        return await self.multi_turn_ascore(sample, config)

    def single_turn_score(
        self, sample: Sample, config: ConfigT | Mapping[str, Any] | None = None
    ) -> float:
        """Sync twin of :meth:`single_turn_ascore`."""
        return self.multi_turn_score(sample, config)

    # ------------------------------------------------------------------ implementation

    def check_sample(self, sample: Sample, config: ConfigT) -> ConfigT:
        """Validate that ``sample`` has what ``config`` needs; return the config to run.

        By default: every field ``reads`` names for the config's mode (see ``mode_field``).
        Text must be present and not blank; ``retrieved_contexts`` present (an empty list is
        the metric's to report); any other field present and not empty; ``a|b``: either. One
        error names every field that fails (one field: its own message). A metric overrides
        this only for what ``reads`` cannot say (a mode that falls back, a field the config
        can stand in for).

        Raises:
            SampleValidationError: naming the missing field and the mode.
        """
        # Imported here: the steps import this module (Chain), so a top-level import is a cycle.
        from ragas_boot.metrics.steps.inputs import require_fields

        mode = None
        if self.mode_field is not None:
            mode = str(getattr(config, self.mode_field).value)
        per_mode = self.reads.get(mode, ()) if mode is not None else ()
        fields = (*self.reads.get("*", ()), *per_mode)
        require_fields(sample, fields, self.name, mode, self.why.format(name=self.name))
        return config

    @abstractmethod
    def total_steps(self, config: ConfigT) -> int:
        """How many steps a run with ``config`` takes."""

    @abstractmethod
    async def _score(
        self, sample: Sample, config: ConfigT, judges: Sequence[JudgeModel]
    ) -> ScoringOutcome:
        """Run the metric's steps and score; raise AllJudgesFailedError when it must."""

    def _all_failed(
        self, step: str, steps: Sequence[StepRecord], exclusions: Sequence[Exclusion]
    ) -> AllJudgesFailedError:
        """The error for a step nobody answered, carrying the steps run so far."""
        return all_failed(self.name, step, steps, exclusions)

    def _aggregate(self, config: ConfigT, scores: Mapping[str, float]) -> float:
        return aggregate(
            list(scores.values()),
            self._aggregation(config),
            tolerance=config.consensus_tolerance
            if config.consensus_tolerance is not None
            else self._settings.consensus_tolerance,
        )

    async def _evaluate_repeats(self, sample: Sample, config: ConfigT) -> MetricResult:
        """One evaluation, or ``config.repeat`` of them combined (metrics/repeats.py)."""
        if config.repeat <= 1:
            return await self._evaluate(sample, config)
        return await evaluate_repeats(
            self._evaluate,
            sample,
            config,
            listeners=self._listeners,
            metric=self.label,
            bean_name=self._run_name,
            min_judges=self.quorum_policy(config)[0],
            judge_ids=lambda: [judge.id for judge in self._select(config)],
        )

    def _unscored(self, sample: Sample, config: ConfigT, reason: str) -> MetricResult:
        """The undefined result of a sample no metric scores (see :func:`_unscored_reason`):
        no check of its fields, no judge asked."""
        outcome = ScoringOutcome(
            model_scores={},
            steps=[],
            exclusions=[],
            metadata={},
            explanation=reason,
            score=None,
            undefined_reason=reason,
            aggregated=False,
        )
        return build_result(
            outcome,
            metric=self.label,
            score=None,
            judge_ids=[],
            aggregation="NONE",
            language=self._language(config),
            config=self._configs.dump(config),
            undefined_reason=reason,
            duration_s=0.0,
            sample_id=sample.id,
            lower_is_better=self.lower_is_better,
            quorum=None,
            calls_models=bool(self.needs),
            criterion=self._criterion,
        )

    async def _evaluate(self, sample: Sample, config: ConfigT) -> MetricResult:
        """One evaluation: the sample checked, the judges selected, the metric's steps run,
        the quorum checked, the scores aggregated, the result built; listeners told."""
        if not isinstance(sample, Sample):
            raise TypeError(f"{self.name} scores a Sample, got {type(sample).__name__}")
        unscored = _unscored_reason(sample)
        if unscored is not None:
            return self._unscored(sample, config, unscored)
        config = self.check_sample(sample, config)
        if self._uses_embeddings:
            self.embeddings  # noqa: B018 - a missing embedding model fails before any call
        judges = self._select(config)
        judge_ids = [judge.id for judge in judges]
        started = time.perf_counter()
        listening = bool(self._listeners)
        label = self.label
        if listening:
            notify_started(
                self._listeners,
                metric=label,
                sample=sample,
                config=config,
                judge_ids=judge_ids,
                total_steps=self.total_steps(config),
            )
        outcome: ScoringOutcome | None = None
        try:
            outcome = await self._score(sample, config, judges)
            quorum = self._quorum(config, judge_ids, outcome.exclusions) if judge_ids else None
            score = outcome.score
            if quorum is not None and not quorum.met:
                # Too few judges answered to trust what they said: no score, and the reason.
                score = None
                log.warning("%s on sample %s: %s", label, sample.id, quorum.reason)
            elif outcome.aggregated and outcome.model_scores:
                score = self._aggregate(config, outcome.model_scores)
        except (AllJudgesFailedError, ArithmeticError) as error:
            if listening:
                notify_failed(
                    self._listeners,
                    metric=label,
                    bean_name=self._run_name,
                    sample=sample,
                    config=config,
                    judge_ids=judge_ids,
                    error=error,
                    steps=outcome.steps if outcome else steps_of(error),
                    exclusions=outcome.exclusions if outcome else exclusions_of(error),
                    model_scores=outcome.model_scores if outcome else None,
                    duration_s=time.perf_counter() - started,
                    repeat=current_repeat() if config.repeat > 1 else None,
                    min_judges=self.quorum_policy(config)[0],
                )
            raise
        result = build_result(
            outcome,
            metric=label,
            score=score,
            judge_ids=judge_ids,
            aggregation=self._aggregation(config).value if outcome.aggregated else "NONE",
            language=self._language(config),
            config=self._configs.dump(config),
            undefined_reason=quorum.reason
            if quorum is not None and not quorum.met
            else outcome.undefined_reason,
            duration_s=time.perf_counter() - started,
            sample_id=sample.id,
            lower_is_better=self.lower_is_better,
            quorum=quorum,
            calls_models=bool(self.needs),
            criterion=self._criterion,
        )
        if listening:
            notify_finished(
                self._listeners,
                metric=label,
                bean_name=self._run_name,
                sample=sample,
                config=config,
                result=result,
                repeat=current_repeat() if config.repeat > 1 else None,
                min_judges=self.quorum_policy(config)[0],
            )
        return result


def _unscored_reason(sample: Sample) -> str | None:
    """Why no metric scores ``sample``: its conversation was cut short by the simulated user
    (or a simulated tool) failing, which is not the agent's doing; None for any other."""
    run = sample.agent_run
    if run is None or run.simulation is None or not run.simulator_failed:
        return None
    why = run.simulation.reason or "no answer"
    return (
        f"not scored: the simulator failed, not the agent ({why.splitlines()[0]}); the case "
        "counts apart from the pass rate"
    )
