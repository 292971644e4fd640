"""``spring.ai.ragas.metrics``: the defaults of every metric, and each metric's own section."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BeforeValidator, ConfigDict, Field, model_validator

from ragas_boot.config.settings._base import _Section, _snake_key
from ragas_boot.config.settings.modes import (
    Aggregation,
    Language,
    LoggingLevel,
    QuorumFailure,
    _lower_language,
)

__all__ = ["MetricsLoggingSettings", "MetricsSettings"]


class MetricsLoggingSettings(_Section):
    """``spring.ai.ragas.metrics.logging``: the logging listener."""

    enabled: bool = Field(default=True, description="Log a summary box per evaluation.")
    level: LoggingLevel = Field(default=LoggingLevel.VERBOSE, description="Detail of the box.")
    chart_width: int = Field(default=100, ge=60, le=400, description="Width of the box.")
    chart_height: int = Field(default=0, ge=0, description="Java only; unused.")


class MetricsSettings(_Section):
    """``spring.ai.ragas.metrics``: metric defaults.

    Besides the keys below, each registered metric has a section named after its bean
    (``tool-call-accuracy``, ``faithfulness``, a plugin's metric) holding defaults of that
    metric's config. :func:`~ragas_boot.config.load_settings` validates each section against
    the metric's config model (a typo is an error naming the key, with a hint); here the
    sections are kept as given, keyed by bean name: ``settings.metrics.tool_call_accuracy``
    or :meth:`section`.
    """

    model_config = ConfigDict(extra="allow")

    enabled: bool = Field(default=True, description="Master switch of the metric beans.")
    logging: MetricsLoggingSettings = Field(
        default_factory=MetricsLoggingSettings, description="Logging listener."
    )
    aggregation: Aggregation = Field(
        default=Aggregation.AVERAGE, description="Default aggregation of judges' scores."
    )
    consensus_tolerance: float = Field(
        default=0.1, ge=0.0, le=1.0, description="Allowed spread for CONSENSUS."
    )
    language: Annotated[Language, BeforeValidator(_lower_language)] = Field(
        default="en", description="Language of prompts and explanations."
    )
    min_judges: int | None = Field(
        default=None,
        ge=1,
        description="Default quorum: judges that must answer for a score to exist (None: any "
        "one); a metric's own min-judges wins.",
    )
    quorum_failure: QuorumFailure = Field(
        default=QuorumFailure.FAIL,
        description="Default for an evaluation without its quorum: FAIL (the gate fails) or "
        "SKIP (left out, like an undefined score).",
    )

    @model_validator(mode="before")
    @classmethod
    def _sections_by_bean_name(cls, data: Any) -> Any:
        # Metric sections arrive in kebab-case from YAML and in snake_case from code; they are
        # kept under the bean name so ``settings.metrics.<bean>`` reads one spelling. Whether a
        # section names a registered metric is checked by load_settings (with the file) and
        # when the container is built.
        if not isinstance(data, Mapping):
            return data
        own = {info.alias or name for name, info in cls.model_fields.items()} | set(
            cls.model_fields
        )
        return {
            (str(key) if key in own else _snake_key(str(key))): (
                {} if key not in own and value is None else value
            )
            for key, value in data.items()
        }

    @property
    def sections(self) -> dict[str, Any]:
        """Every metric section, by bean name (as given; validated by the metric's config)."""
        return dict(self.__pydantic_extra__ or {})

    def section(self, bean_name: str) -> Any:
        """The section of one metric (``{}`` when the YAML has none)."""
        section = (self.__pydantic_extra__ or {}).get(bean_name)
        return {} if section is None else section
