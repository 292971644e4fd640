"""A metric's typed config: the shared fields, its YAML section, and a call's effective config.

One job: turning what the user wrote (``spring.ai.ragas.metrics.<bean-name>``, a named
criterion under it, the config a call passes) into the frozen config an evaluation runs
with. The cost it keeps: a loop scoring many samples with one config object pays for
neither the merge over the bean's defaults nor the config's JSON dump more than once
(:class:`ConfigResolver`).
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Mapping
from typing import Annotated, Any, Generic, TypeVar

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
from ragas_boot.config._problems import Problem, config_error
from ragas_boot.config.settings import Aggregation, Language, MetricsSettings, QuorumFailure
from ragas_boot.errors import ConfigError
from ragas_boot.metrics.prompting import check_template

__all__ = [
    "MAX_REPEATS",
    "ConfigResolver",
    "MetricConfig",
    "declared_criteria",
    "find_criterion",
    "section_defaults",
    "section_model",
]

#: Most repeats one evaluation may ask for (a typo such as 500 should not cost 500 runs).
MAX_REPEATS = 100

ConfigT = TypeVar("ConfigT", bound="MetricConfig")

#: Configs' JSON dumps kept per resolver; past it the cache starts again.
_MAX_DUMPS = 64


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
def section_model(config_type: type[MetricConfig], criteria_key: str) -> type[BaseModel]:
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


def _section_key(bean_name: str) -> str:
    return f"spring.ai.ragas.metrics.{bean_name.replace('_', '-')}"


def declared_criteria(settings: MetricsSettings, bean_name: str, criteria_key: str) -> list[str]:
    """Names of the named criteria the YAML declares under a metric's section (file order)."""
    section = settings.section(bean_name)
    declared = section.get(criteria_key) if isinstance(section, Mapping) else None
    return [str(name) for name in declared] if isinstance(declared, Mapping) else []


def find_criterion(
    settings: MetricsSettings,
    criterion: str,
    *,
    metric: str,
    bean_name: str,
    criteria_key: str | None,
) -> str:
    """The declared criterion ``criterion`` names (kebab or snake case, any case).

    Raises:
        ConfigError: the metric takes no named criteria, or none of that name is declared
            (the message lists the declared ones).
    """
    key = _section_key(bean_name)
    if criteria_key is None:
        raise ConfigError(
            f"{metric} has no named criteria, so '{criterion}' cannot be one", key=key
        )
    declared = declared_criteria(settings, bean_name, criteria_key)
    wanted = criterion.strip().replace("_", "-").lower()
    for name in declared:
        if name.replace("_", "-").lower() == wanted:
            return name
    close = difflib.get_close_matches(criterion, declared, n=1)
    listed = ", ".join(declared) if declared else "none"
    raise ConfigError(
        f"criterion '{criterion}' of {metric} is not declared (declared: {listed})",
        key=f"{key}.{criteria_key}",
        hint=f"Did you mean '{close[0]}'?" if close else f"Declare it under {key}.{criteria_key}",
    )


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


def _kebab(mapping: Any) -> dict[str, Any]:
    return {str(k).replace("_", "-"): v for k, v in dict(mapping or {}).items()}


def section_defaults(
    settings: MetricsSettings,
    *,
    metric: str,
    bean_name: str,
    config_type: type[MetricConfig],
    criteria_key: str | None,
    criterion: str | None = None,
) -> tuple[MetricConfig, str | None]:
    """A bean's defaults read from ``spring.ai.ragas.metrics.<bean-name>``, and the declared
    name of ``criterion`` (its config laid over the section's) when one is asked for.

    Raises:
        ConfigError: metric beans are switched off, the section does not fit the metric's
            config (names the key), or ``criterion`` is not declared (lists the declared).
    """
    if not settings.enabled:
        raise ConfigError(
            f"metric beans are switched off, so {metric} is not available",
            key="spring.ai.ragas.metrics.enabled",
            hint="Remove the key or set it to true",
        )
    section = settings.section(bean_name)
    key = _section_key(bean_name)
    named: Any = None
    if criteria_key is not None and isinstance(section, Mapping):
        section = dict(section)
        named = section.pop(criteria_key, None)
    try:
        defaults = config_type.model_validate(section)
    except ValidationError as error:
        raise _section_error(key, config_type, error) from None
    if criterion is None:
        return defaults, None
    found = find_criterion(
        settings, criterion, metric=metric, bean_name=bean_name, criteria_key=criteria_key
    )
    # Validated merged, so checks across fields (min-score < max-score) see both.
    try:
        defaults = config_type.model_validate({**_kebab(section), **_kebab(named[found])})
    except ValidationError as error:
        raise _section_error(f"{key}.{criteria_key}.{found}", config_type, error) from None
    return defaults, found


class ConfigResolver(Generic[ConfigT]):
    """A bean's effective configs: what a call sets over the bean's defaults, each dumped to
    JSON once.

    Remembers the last config object a caller passed with its effective config, and each
    effective config's JSON dump (configs are frozen), so scoring many samples with one
    config merges and dumps it once; every result still gets its own copy of the dump.

    Args:
        defaults: the bean's config for fields a call leaves unset.
        config_type: the config model a call's config must be (or validate to).
        metric: the metric's name, for the error of a config of another type.
    """

    __slots__ = ("_config_type", "_defaults", "_dumps", "_last", "_metric")

    def __init__(self, defaults: ConfigT, config_type: type[MetricConfig], metric: str) -> None:
        self._defaults = defaults
        self._config_type = config_type
        self._metric = metric
        self._last: tuple[object, ConfigT] | None = None
        self._dumps: dict[int, tuple[MetricConfig, dict[str, Any], tuple[str, ...]]] = {}

    @property
    def defaults(self) -> ConfigT:
        """The config used for fields a call leaves unset."""
        return self._defaults

    def resolve(self, config: ConfigT | Mapping[str, Any] | None) -> ConfigT:
        """The effective config: fields set in ``config`` over the defaults.

        Raises:
            TypeError: ``config`` is neither a mapping nor the metric's config type.
            ValidationError: a mapping that does not fit the config type.
        """
        if config is None:
            return self._defaults
        last = self._last
        if last is not None and last[0] is config:
            return last[1]
        given = config
        if isinstance(config, Mapping):
            config = self._config_type.model_validate(config)  # type: ignore[assignment]
        if not isinstance(config, self._config_type):
            raise TypeError(
                f"{self._metric} takes a {self._config_type.__name__}, got {type(config).__name__}"
            )
        update = {name: getattr(config, name) for name in config.model_fields_set}
        effective = self._defaults.model_copy(update=update)
        if not isinstance(given, Mapping):  # a mapping may be changed in place between calls
            self._last = (given, effective)
        return effective

    def dump(self, config: MetricConfig) -> dict[str, Any]:
        """``config.model_dump(mode="json")``, computed once per config object; each caller
        gets its own copy (lists and dicts one level down copied too)."""
        cached = self._dumps.get(id(config))
        if cached is None or cached[0] is not config:
            if len(self._dumps) >= _MAX_DUMPS:
                self._dumps.clear()
            dump = config.model_dump(mode="json")
            nested = tuple(key for key, value in dump.items() if isinstance(value, list | dict))
            cached = (config, dump, nested)
            self._dumps[id(config)] = cached
        copy = dict(cached[1])
        for key in cached[2]:  # the list and dict values, copied one level down
            copy[key] = copy[key].copy()
        return copy
