"""The metric bean: typed config, async core, sync twins through the container's loop."""

from __future__ import annotations

import difflib
import enum
import functools
import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, Generic, TypeVar

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    create_model,
    field_validator,
)

from ragas_boot._validation import field_problems
from ragas_boot.chat.judge import JudgeModel, TokenUsage, no_tokens
from ragas_boot.config._problems import Problem, config_error
from ragas_boot.config.settings import Aggregation, Language, MetricsSettings, QuorumFailure
from ragas_boot.errors import (
    AllJudgesFailedError,
    ConfigError,
    JudgeFailureSummary,
    UndefinedScoreError,
)
from ragas_boot.execution.aggregation import aggregate, agreement
from ragas_boot.execution.bridge import LoopPortal
from ragas_boot.execution.embeddings import EmbeddingExecutor
from ragas_boot.execution.executor import MultiModelExecutor
from ragas_boot.execution.listeners import (
    EvaluationFinished,
    EvaluationStarted,
    ListenerRegistry,
    MetricListener,
)
from ragas_boot.execution.repeats import current_repeat, repeat_scope
from ragas_boot.execution.results import CallSpend, Exclusion, StepRecord
from ragas_boot.metrics.prompting import check_template, load_prompt
from ragas_boot.metrics.results import Details, MetricResult, Quorum, combine_repeats
from ragas_boot.samples import Sample

__all__ = [
    "MAX_REPEATS",
    "Metric",
    "MetricConfig",
    "Need",
    "ScoringOutcome",
]

log = logging.getLogger("ragas_boot.metrics")

#: The spend of a metric that calls no model.
_NO_SPEND = CallSpend.of(())
_ONE = agreement([])
"""The agreement of a result no judge voted on (unanimous)."""

ConfigT = TypeVar("ConfigT", bound="MetricConfig")

#: Most repeats one evaluation may ask for (a typo such as 500 should not cost 500 runs).
MAX_REPEATS = 100
T = TypeVar("T")


def _run_without_loop(coro: Coroutine[Any, Any, T]) -> T:
    """Drive a coroutine that never suspends (a metric with no I/O) to its result."""
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]
    coro.close()
    raise RuntimeError("a metric that needs nothing awaited I/O; declare what it needs")


def _section_error(
    key: str, config_type: type[MetricConfig], error: ValidationError
) -> ConfigError:
    """One ConfigError for a metric's YAML section, naming each key, with a did-you-mean."""
    allowed = [name.replace("_", "-") for name in config_type.model_fields]
    problems = [
        Problem(f"{key}.{problem.path}", problem.message, hint=problem.hint)
        for problem in field_problems(
            error, allowed_keys=lambda loc: allowed, spell=lambda name: name.replace("_", "-")
        )
    ]
    return config_error(problems)


class Need(enum.Enum):
    """What a metric needs from the container besides its config."""

    JUDGES = "judges"
    """Chat models (the multi-model executor)."""
    EMBEDDINGS = "embeddings"
    """Embedding models."""


def _lower(value: Any) -> Any:
    return value.strip().lower() if isinstance(value, str) else value


class MetricConfig(BaseModel):
    """Settings every metric shares; a metric's config adds its mode and options.

    Fields left unset fall back to ``spring.ai.ragas.metrics.<metric>`` in YAML, then to
    ``spring.ai.ragas.metrics`` (aggregation, language), then to the defaults below.
    """

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        populate_by_name=True,
        alias_generator=lambda name: name.replace("_", "-"),
    )

    models: list[str] = Field(
        default_factory=list, description="Judge ids (or aliases) to ask; empty means all."
    )
    aggregation: Aggregation | None = Field(
        default=None, description="How judges' scores combine; default from YAML (AVERAGE)."
    )
    consensus_tolerance: float | None = Field(
        default=None, ge=0.0, le=1.0, description="Allowed spread for CONSENSUS."
    )
    language: Annotated[Language | None, BeforeValidator(_lower)] = Field(
        default=None, description="Prompts and explanation language (en|ru); default from YAML."
    )
    threshold: float = Field(
        default=0.5, ge=0.0, le=1.0, description="Pass mark used by assertions and reports."
    )
    prompts: dict[str, str] = Field(
        default_factory=dict,
        description="Custom templates by prompt name (compare_outcome, ...); see docs.",
    )
    min_judges: int | None = Field(
        default=None,
        ge=1,
        description="Quorum: judges that must answer for a score to exist, else the score is "
        "undefined ('no quorum'); default from YAML (none: any one judge).",
    )
    quorum_failure: QuorumFailure | None = Field(
        default=None,
        description="What gates make of an evaluation without its quorum: FAIL (not passed) or "
        "SKIP (left out); default from YAML (FAIL).",
    )
    repeat: int = Field(
        default=1,
        ge=1,
        le=MAX_REPEATS,
        description="Score each sample this many times (repeats bypass the response cache) "
        "and report the pass rate, its Wilson interval and whether the sample is unstable.",
    )
    min_pass_rate: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="Gate on repeats: each sample's share of passing repeats must reach this "
        "(None: not checked).",
    )

    @field_validator("prompts", mode="before")
    @classmethod
    def _prompt_names(cls, value: Any) -> Any:
        # YAML writes keys in kebab-case; templates are looked up by their snake_case name.
        if isinstance(value, Mapping):
            return {str(k).replace("-", "_"): v for k, v in value.items()}
        return value

    @field_validator("prompts")
    @classmethod
    def _prompts_are_valid(cls, value: dict[str, str]) -> dict[str, str]:
        for name, template in value.items():
            check_template(name, template)
        return value


_CRITERION_NAME = r"^[A-Za-z0-9][A-Za-z0-9_-]*$"


@functools.cache
def _section_model(config_type: type[MetricConfig], criteria_key: str) -> type[BaseModel]:
    """A metric's YAML section model: its config plus ``<criteria_key>: {name: config}``."""
    name_type = Annotated[str, StringConstraints(pattern=_CRITERION_NAME)]
    fields: dict[str, Any] = {
        criteria_key: (
            dict[name_type, config_type],  # type: ignore[valid-type]
            Field(
                default_factory=dict,
                description="Named criteria: each a config of this metric over these "
                "defaults, and its own bean, fixture and CLI metric.",
            ),
        )
    }
    model: type[BaseModel] = create_model(
        f"{config_type.__name__}Section",
        __base__=config_type,
        __doc__=f"{config_type.__doc__ or ''} Named criteria under '{criteria_key}'.",
        **fields,
    )
    return model


@dataclass
class ScoringOutcome:
    """What a metric's scoring produced, before it becomes a :class:`MetricResult`."""

    model_scores: dict[str, float]
    steps: list[StepRecord]
    exclusions: list[Exclusion]
    metadata: dict[str, Any]
    explanation: str
    mode: str | None = None
    score: float | None = None
    undefined_reason: str | None = None
    aggregated: bool = True
    extra_usage: TokenUsage = field(default_factory=no_tokens)
    details: Details | None = None
    """A judge-less metric's metadata and explanation, built when the result's are first
    read (``metadata`` and ``explanation`` above are then left empty): the result is built
    from the figures alone, not validated again (:meth:`MetricResult.built`)."""


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
        return _section_model(cls.config_type, cls.criteria_key)

    @classmethod
    def criteria(cls, settings: MetricsSettings) -> list[str]:
        """Names of the named criteria the YAML declares for this metric (in file order)."""
        if cls.criteria_key is None:
            return []
        section = settings.section(cls.bean_name)
        declared = section.get(cls.criteria_key) if isinstance(section, Mapping) else None
        return [str(name) for name in declared] if isinstance(declared, Mapping) else []

    @classmethod
    def find_criterion(cls, settings: MetricsSettings, criterion: str) -> str:
        """The declared criterion ``criterion`` names (kebab or snake case, any case).

        Raises:
            ConfigError: the metric takes no named criteria, or none of that name is declared
                (the message lists the declared ones).
        """
        section = cls.bean_name.replace("_", "-")
        if cls.criteria_key is None:
            raise ConfigError(
                f"{cls.name} has no named criteria, so '{criterion}' cannot be one",
                key=f"spring.ai.ragas.metrics.{section}",
            )
        declared = cls.criteria(settings)
        wanted = criterion.strip().replace("_", "-").lower()
        for name in declared:
            if name.replace("_", "-").lower() == wanted:
                return name
        close = difflib.get_close_matches(criterion, declared, n=1)
        listed = ", ".join(declared) if declared else "none"
        raise ConfigError(
            f"criterion '{criterion}' of {cls.name} is not declared (declared: {listed})",
            key=f"spring.ai.ragas.metrics.{section}.{cls.criteria_key}",
            hint=f"Did you mean '{close[0]}'?"
            if close
            else f"Declare it under spring.ai.ragas.metrics.{section}.{cls.criteria_key}",
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
        self._settings = settings or MetricsSettings()
        self._listeners = ListenerRegistry(listeners)
        # The last config a caller passed and its effective config, and each effective
        # config's JSON dump: a loop scoring many samples with one config pays for neither
        # the merge nor the dump again (configs are frozen).
        self._last_config: tuple[object, ConfigT] | None = None
        self._config_dumps: dict[int, tuple[MetricConfig, dict[str, Any], tuple[str, ...]]] = {}
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
        if not settings.enabled:
            raise ConfigError(
                f"metric beans are switched off, so {cls.name} is not available",
                key="spring.ai.ragas.metrics.enabled",
                hint="Remove the key or set it to true",
            )
        section = settings.section(cls.bean_name)
        key = f"spring.ai.ragas.metrics.{cls.bean_name.replace('_', '-')}"
        named: Any = None
        if cls.criteria_key is not None and isinstance(section, Mapping):
            section = dict(section)
            named = section.pop(cls.criteria_key, None)
        try:
            defaults = cls.config_type.model_validate(section)
        except ValidationError as error:
            raise _section_error(key, cls.config_type, error) from None
        if criterion is not None:
            found = cls.find_criterion(settings, criterion)
            entry_key = f"{key}.{cls.criteria_key}.{found}"

            def kebab(mapping: Any) -> dict[str, Any]:
                return {str(k).replace("_", "-"): v for k, v in dict(mapping or {}).items()}

            # Validated merged, so checks across fields (min-score < max-score) see both.
            try:
                defaults = cls.config_type.model_validate({**kebab(section), **kebab(named[found])})
            except ValidationError as error:
                raise _section_error(entry_key, cls.config_type, error) from None
            criterion = found
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
        """The effective config: fields set in ``config`` over this bean's defaults."""
        if config is None:
            return self._defaults
        last = self._last_config
        if last is not None and last[0] is config:
            return last[1]
        given = config
        if isinstance(config, Mapping):
            config = self.config_type.model_validate(config)  # type: ignore[assignment]
        if not isinstance(config, self.config_type):
            raise TypeError(
                f"{self.name} takes a {self.config_type.__name__}, got {type(config).__name__}"
            )
        update = {name: getattr(config, name) for name in config.model_fields_set}
        effective = self._defaults.model_copy(update=update)
        if not isinstance(given, Mapping):  # a mapping may be changed in place between calls
            self._last_config = (given, effective)
        return effective

    def _config_dump(self, config: MetricConfig) -> dict[str, Any]:
        """``config.model_dump(mode="json")``, computed once per config object; each result
        gets its own copy (lists and dicts one level down copied too)."""
        cached = self._config_dumps.get(id(config))
        if cached is None or cached[0] is not config:
            if len(self._config_dumps) >= 64:
                self._config_dumps.clear()
            dump = config.model_dump(mode="json")
            nested = tuple(key for key, value in dump.items() if isinstance(value, list | dict))
            cached = (config, dump, nested)
            self._config_dumps[id(config)] = cached
        copy = dict(cached[1])
        for key in cached[2]:  # the list and dict values, copied one level down
            copy[key] = copy[key].copy()
        return copy

    def _language(self, config: MetricConfig) -> str:
        return config.language or self._settings.language

    def _template(self, config: MetricConfig, name: str) -> str:
        """The config's custom template ``name``, else the shipped one in its language."""
        return config.prompts.get(name) or load_prompt(name, self._language(config))

    def _aggregation(self, config: MetricConfig) -> Aggregation:
        return config.aggregation or self._settings.aggregation

    def _select(self, config: MetricConfig) -> list[JudgeModel]:
        if not self.uses_judges:
            return []
        if not self.executor.judges:
            raise ConfigError(
                f"no judges are configured, and {self.name} needs at least one",
                key="spring.ai.ragas.providers",
                hint="Declare chat-models under openai-compatible (or enable the local judge)",
            )
        judges = self.executor.select(config.models)
        self.check_quorum(config, judges)
        return judges

    def check_quorum(self, config: MetricConfig, judges: Sequence[JudgeModel]) -> None:
        """Raise when ``config``'s quorum exceeds the judges it asks (no run could reach it).

        Raises:
            ConfigError: naming ``min-judges``.
        """
        required, _ = self.quorum_policy(config)
        if required is not None and required > len(judges):
            # A quorum no run can reach is a mistake in the config, not a failing sample.
            raise ConfigError(
                f"{self.label} requires {required} answering judges (min-judges) but asks only "
                f"{len(judges)}",
                key=f"spring.ai.ragas.metrics.{self.bean_name.replace('_', '-')}.min-judges",
                hint=f"Lower min-judges to at most {len(judges)}, or select more judges",
            )

    def quorum_policy(self, config: MetricConfig) -> tuple[int | None, QuorumFailure]:
        """The quorum ``config`` asks for (``min-judges``, None: any one judge) and what gates
        make of a missed one (``quorum-failure``), each falling back to the global YAML key."""
        required = config.min_judges or self._settings.min_judges
        on_failure = config.quorum_failure or self._settings.quorum_failure
        return (required if self.uses_judges else None), on_failure

    def _quorum(
        self, config: MetricConfig, judge_ids: Sequence[str], exclusions: Sequence[Exclusion]
    ) -> Quorum | None:
        required, on_failure = self.quorum_policy(config)
        if required is None:
            return None
        # A judge excluded at any step did not answer the evaluation.
        excluded = {exclusion.judge_id for exclusion in exclusions}
        asked = list(dict.fromkeys(judge_ids))
        answered = len([judge_id for judge_id in asked if judge_id not in excluded])
        return Quorum(
            required=required,
            answered=answered,
            asked=len(asked),
            met=answered >= required,
            on_failure=on_failure,
        )

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
            return _run_without_loop(self._evaluate_repeats(sample, self.resolve_config(config)))
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
            effective = self.check_sample(sample, effective)
            score = self._score_only(sample, effective)
            if score is not None:
                return float(score)
            outcome = _run_without_loop(self._score(sample, effective, []))
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
        failures = [
            JudgeFailureSummary(judge_id=item.judge_id, kind=item.kind, message=item.message)
            for item in exclusions
            if item.step == step
        ]
        error = AllJudgesFailedError(self.name, step, failures)
        error.steps = list(steps)  # type: ignore[attr-defined]
        error.exclusions = list(exclusions)  # type: ignore[attr-defined]
        return error

    def _labelled(self, metadata: dict[str, Any]) -> dict[str, Any]:
        """``metadata`` with the bean's named criterion first, when it has one."""
        return {"criterion": self._criterion, **metadata} if self._criterion else metadata

    def _labelled_details(self, details: Details) -> Details:
        """``details`` whose metadata is :meth:`_labelled`."""
        if not self._criterion:
            return details

        def labelled() -> tuple[dict[str, Any], str]:
            metadata, explanation = details()
            return self._labelled(metadata), explanation

        return labelled

    def _aggregate(self, config: ConfigT, scores: Mapping[str, float]) -> float:
        return aggregate(
            list(scores.values()),
            self._aggregation(config),
            tolerance=config.consensus_tolerance
            if config.consensus_tolerance is not None
            else self._settings.consensus_tolerance,
        )

    async def _evaluate_repeats(self, sample: Sample, config: ConfigT) -> MetricResult:
        """One evaluation, or ``config.repeat`` of them, one after another, combined.

        Each repeat runs inside :func:`~ragas_boot.execution.repeats.repeat_scope`, so its
        judge calls bypass a response cache from the second repeat on, and its steps record
        the repeat. A repeat that raises (no judge answered, no consensus) counts as failed;
        only when every repeat raises does the error reach the caller.
        """
        if config.repeat <= 1:
            return await self._evaluate(sample, config)
        started = time.perf_counter()
        results: list[MetricResult | None] = []
        errors: list[Exception] = []
        for index in range(config.repeat):
            with repeat_scope(index):
                try:
                    results.append(await self._evaluate(sample, config))
                except (AllJudgesFailedError, ArithmeticError) as error:
                    errors.append(error)
                    results.append(None)
        if all(result is None for result in results):
            if self._listeners:  # the repeats together: the first error, every repeat's steps
                self._listeners.notify_after(
                    EvaluationFinished(
                        metric=self.label,
                        sample=sample,
                        config=config,
                        judge_ids=[judge.id for judge in self._select(config)],
                        score=None,
                        model_scores={},
                        steps=[step for e in errors for step in getattr(e, "steps", [])],
                        exclusions=[x for e in errors for x in getattr(e, "exclusions", [])],
                        duration_s=time.perf_counter() - started,
                        error=str(errors[0]),
                    )
                )
            raise errors[0]
        combined = combine_repeats(results, config.threshold)
        if self._listeners:
            self._listeners.notify_after(self._finished(sample, config, combined, None))
        return combined

    async def _evaluate(self, sample: Sample, config: ConfigT) -> MetricResult:
        if not isinstance(sample, Sample):
            raise TypeError(f"{self.name} scores a Sample, got {type(sample).__name__}")
        config = self.check_sample(sample, config)
        if self._uses_embeddings:
            self.embeddings  # noqa: B018 - a missing embedding model fails before any call
        judges = self._select(config)
        judge_ids = [judge.id for judge in judges]
        started = time.perf_counter()
        listening = bool(self._listeners)
        if listening:
            self._listeners.notify_before(
                EvaluationStarted(
                    metric=self.label,
                    sample=sample,
                    config=config,
                    judge_ids=judge_ids,
                    total_steps=self.total_steps(config),
                )
            )
        outcome: ScoringOutcome | None = None
        try:
            outcome = await self._score(sample, config, judges)
            quorum = self._quorum(config, judge_ids, outcome.exclusions) if judge_ids else None
            score = outcome.score
            if quorum is not None and not quorum.met:
                # Too few judges answered to trust what they said: no score, and the reason.
                score = None
                log.warning("%s on sample %s: %s", self.label, sample.id, quorum.reason)
            elif outcome.aggregated and outcome.model_scores:
                score = self._aggregate(config, outcome.model_scores)
        except (AllJudgesFailedError, ArithmeticError) as error:
            # What was run before the failure still reaches listeners (reports show it).
            self._listeners.notify_after(
                EvaluationFinished(
                    metric=self.label,
                    sample=sample,
                    config=config,
                    judge_ids=judge_ids,
                    score=None,
                    model_scores=outcome.model_scores if outcome else {},
                    steps=outcome.steps if outcome else getattr(error, "steps", []),
                    exclusions=outcome.exclusions if outcome else getattr(error, "exclusions", []),
                    duration_s=time.perf_counter() - started,
                    error=str(error),
                    repeat=current_repeat() if config.repeat > 1 else None,
                )
            )
            raise
        votes = agreement(list(outcome.model_scores.values())) if outcome.model_scores else _ONE
        # A metric that calls no model has no tokens to add up (the judge-less fast path).
        spend = (
            CallSpend.of(call for step in outcome.steps for call in step.calls)
            if self.needs
            else _NO_SPEND
        )
        values: dict[str, Any] = {
            "metric": self.label,
            "score": None if score is None else float(score),
            "model_scores": outcome.model_scores,
            "exclusions": outcome.exclusions,
            "steps": outcome.steps,
            "agreement": votes.share,
            "disagreement": votes.disagreement,
            "aggregation": self._aggregation(config).value if outcome.aggregated else "NONE",
            "judge_ids": judge_ids,
            "language": self._language(config),
            "mode": outcome.mode,
            "config": self._config_dump(config),
            "undefined_reason": quorum.reason
            if quorum is not None and not quorum.met
            else outcome.undefined_reason,
            "duration_s": time.perf_counter() - started,
            # A zero side of a sum is the other side itself: no new object without a model.
            "usage": outcome.extra_usage + spend.usage,
            "billed_usage": outcome.extra_usage + spend.billed_usage,
            "cost": spend.cost,
            "sample_id": sample.id,
            "lower_is_better": self.lower_is_better,
            "quorum": quorum,
            "repeats": None,
        }
        if outcome.details is not None:
            result = MetricResult.built(self._labelled_details(outcome.details), values)
        else:
            result = MetricResult(
                **values,
                metadata=self._labelled(outcome.metadata),
                explanation=outcome.explanation,
            )
        if listening:
            repeat = current_repeat() if config.repeat > 1 else None
            self._listeners.notify_after(self._finished(sample, config, result, repeat))
        return result

    def _finished(
        self, sample: Sample, config: ConfigT, result: MetricResult, repeat: int | None
    ) -> EvaluationFinished:
        """The listeners' event of a finished evaluation (or, ``repeat`` None with
        ``repeat: N``, of the repeats together)."""
        return EvaluationFinished(
            metric=self.label,
            sample=sample,
            config=config,
            judge_ids=result.judge_ids,
            score=result.score,
            model_scores=result.model_scores,
            steps=result.steps,
            exclusions=result.exclusions,
            duration_s=result.duration_s,
            result=result,
            metadata=result.metadata,
            repeat=repeat,
        )
