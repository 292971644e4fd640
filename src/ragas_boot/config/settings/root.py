"""The root of the settings, :class:`RagasSettings`, and the YAML prefix of each section."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from ragas_boot.config.settings._base import _kebab
from ragas_boot.config.settings.metrics import MetricsSettings
from ragas_boot.config.settings.providers import ProvidersSettings
from ragas_boot.config.settings.retry import RetrySettings
from ragas_boot.config.settings.roles import GenerationSettings, SimulationSettings
from ragas_boot.config.settings.runs import (
    AllureSettings,
    CacheSettings,
    HistorySettings,
    RunSettings,
)
from ragas_boot.config.settings.starters import GigaChatSettings, OpenAISettings

__all__ = ["ROOT_PREFIXES", "RagasSettings", "SettingsSource"]

#: YAML prefix of each field of :class:`RagasSettings` (used to name keys in errors).
ROOT_PREFIXES: dict[str, str] = {
    "retry": "spring.ai.retry",
    "openai": "spring.ai.openai",
    "gigachat": "spring.ai.gigachat",
    "providers": "spring.ai.ragas.providers",
    "metrics": "spring.ai.ragas.metrics",
    "allure": "spring.ai.ragas.allure",
    "run": "spring.ai.ragas.run",
    "cache": "spring.ai.ragas.cache",
    "history": "spring.ai.ragas.history",
    "simulation": "spring.ai.ragas.simulation",
    "generation": "spring.ai.ragas.generation",
}


class SettingsSource(BaseModel):
    """Where the settings came from (for reports, ``config show`` and error messages)."""

    model_config = ConfigDict(frozen=True)

    files: list[str] = Field(default_factory=list, description="YAML files read, in order.")
    active_profiles: list[str] = Field(default_factory=list, description="Profiles in effect.")
    unsupported_keys: list[str] = Field(
        default_factory=list, description="Java keys recognised but not supported (warned once)."
    )
    origins: dict[str, str] = Field(
        default_factory=dict,
        description="Dotted YAML key → 'file', 'file#profile' or 'env:NAME' it came from.",
    )


class RagasSettings(BaseSettings):
    """The whole configuration, as one typed object.

    Build it with :func:`ragas_boot.config.load_settings`; constructing it directly (with
    keyword arguments named after the fields) is supported for tests and scripts.
    """

    model_config = SettingsConfigDict(
        frozen=True,
        extra="forbid",
        populate_by_name=True,
        alias_generator=_kebab,
    )

    retry: RetrySettings = Field(default_factory=RetrySettings, description="spring.ai.retry")
    openai: OpenAISettings = Field(default_factory=OpenAISettings, description="spring.ai.openai")
    gigachat: GigaChatSettings = Field(
        default_factory=GigaChatSettings, description="spring.ai.gigachat"
    )
    providers: ProvidersSettings = Field(
        default_factory=ProvidersSettings, description="spring.ai.ragas.providers"
    )
    metrics: MetricsSettings = Field(
        default_factory=MetricsSettings, description="spring.ai.ragas.metrics"
    )
    allure: AllureSettings = Field(
        default_factory=AllureSettings, description="spring.ai.ragas.allure"
    )
    run: RunSettings = Field(default_factory=RunSettings, description="spring.ai.ragas.run")
    cache: CacheSettings = Field(default_factory=CacheSettings, description="spring.ai.ragas.cache")
    history: HistorySettings = Field(
        default_factory=HistorySettings, description="spring.ai.ragas.history"
    )
    simulation: SimulationSettings = Field(
        default_factory=SimulationSettings, description="spring.ai.ragas.simulation"
    )
    generation: GenerationSettings = Field(
        default_factory=GenerationSettings, description="spring.ai.ragas.generation"
    )
    source: SettingsSource = Field(
        default_factory=SettingsSource, description="Provenance; filled by load_settings."
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Only explicit arguments: load_settings() reads YAML and the environment itself, so
        # that it can name the YAML key (or variable) of every error. Building the object by
        # hand never picks up stray environment variables.
        return (init_settings,)
