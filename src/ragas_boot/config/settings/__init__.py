"""Typed settings: the ``spring.ai.*`` tree of ``application.yaml`` as pydantic models.

Every section takes its YAML keys in kebab-case (``base-url``) and its Python field names in
snake_case (``base_url``); unknown keys are errors. The root, :class:`RagasSettings`, is a
pydantic-settings ``BaseSettings`` whose sources are the YAML files (with profiles and
``${VAR:default}`` placeholders) and the environment (Spring's relaxed names); see
:mod:`ragas_boot.config.loader`.

YAML prefix of each root field, and the module of its section:

===================  ==========================  ======================
``retry``            ``spring.ai.retry``         :mod:`.retry`
``openai``           ``spring.ai.openai``        :mod:`.starters`
``gigachat``         ``spring.ai.gigachat``      :mod:`.starters`
``providers``        ``spring.ai.ragas.providers``  :mod:`.providers` (models, limits, local)
``metrics``          ``spring.ai.ragas.metrics``  :mod:`.metrics`
``allure``           ``spring.ai.ragas.allure``  :mod:`.runs`
``run``              ``spring.ai.ragas.run``     :mod:`.runs`
``cache``            ``spring.ai.ragas.cache``   :mod:`.runs`
``history``          ``spring.ai.ragas.history``  :mod:`.runs`
``simulation``       ``spring.ai.ragas.simulation``  :mod:`.roles`
``generation``       ``spring.ai.ragas.generation``  :mod:`.roles`
===================  ==========================  ======================

Every section class, mode enum and field type is exported here, and again on the public face
:mod:`ragas_boot.config`; import them from either, not from the modules, which may move. The
library's own constants and helpers (``ROOT_PREFIXES``, ``parse_duration``, the URL fields)
are importable from here too but are not part of the face.
"""

from ragas_boot.config.settings._base import REVEAL_URLS as REVEAL_URLS
from ragas_boot.config.settings._base import URL_FIELDS as URL_FIELDS
from ragas_boot.config.settings._base import Duration
from ragas_boot.config.settings._base import parse_duration as parse_duration
from ragas_boot.config.settings.batch import BatchSettings, ProviderBatchSettings
from ragas_boot.config.settings.limits import (
    CircuitBreakerSettings,
    GlobalRateLimitSettings,
    HedgingSettings,
    ProviderLimitSettings,
    RateLimitSettings,
)
from ragas_boot.config.settings.local import (
    LocalChatModelSettings,
    LocalEmbeddingModelSettings,
    LocalProviderSettings,
)
from ragas_boot.config.settings.metrics import MetricsLoggingSettings, MetricsSettings
from ragas_boot.config.settings.models import ChatModelEntry as ChatModelEntry
from ragas_boot.config.settings.models import (
    ChatModelSettings,
    ChatOptions,
    DefaultOptions,
    EmbeddingDefaultOptions,
    EmbeddingModelSettings,
    PriceSettings,
    PriceSource,
)
from ragas_boot.config.settings.modes import (
    Aggregation,
    Language,
    LocalDecoder,
    LoggingLevel,
    QuorumFailure,
    RateLimitStrategy,
    StructuredOutputMode,
    Transport,
)
from ragas_boot.config.settings.providers import (
    DefaultProviderSettings,
    ExternalStarterSettings,
    LangChainProviderSettings,
    OpenAICompatibleProviderSettings,
    ProvidersSettings,
)
from ragas_boot.config.settings.retry import BackoffSettings, RetrySettings
from ragas_boot.config.settings.roles import (
    GenerationSettings,
    ModelRoleSettings,
    SimulationSettings,
)
from ragas_boot.config.settings.root import ROOT_PREFIXES as ROOT_PREFIXES
from ragas_boot.config.settings.root import RagasSettings, SettingsSource
from ragas_boot.config.settings.runs import (
    AllureSettings,
    CacheSettings,
    HistorySettings,
    RunSettings,
)
from ragas_boot.config.settings.starters import GIGACHAT_AUTH_URL as GIGACHAT_AUTH_URL
from ragas_boot.config.settings.starters import GIGACHAT_BASE_URL as GIGACHAT_BASE_URL
from ragas_boot.config.settings.starters import (
    GigaChatAuthSettings,
    GigaChatBearerSettings,
    GigaChatChatOptions,
    GigaChatChatSettings,
    GigaChatEmbeddingOptions,
    GigaChatEmbeddingSettings,
    GigaChatSettings,
    OpenAIChatOptions,
    OpenAIChatSettings,
    OpenAIEmbeddingOptions,
    OpenAIEmbeddingSettings,
    OpenAISettings,
)
from ragas_boot.config.settings.starters import GigaChatCertsSettings as GigaChatCertsSettings

__all__ = [
    "Aggregation",
    "AllureSettings",
    "BackoffSettings",
    "BatchSettings",
    "CacheSettings",
    "ChatModelSettings",
    "ChatOptions",
    "CircuitBreakerSettings",
    "DefaultOptions",
    "DefaultProviderSettings",
    "Duration",
    "EmbeddingDefaultOptions",
    "EmbeddingModelSettings",
    "ExternalStarterSettings",
    "GenerationSettings",
    "GigaChatAuthSettings",
    "GigaChatBearerSettings",
    "GigaChatChatOptions",
    "GigaChatChatSettings",
    "GigaChatEmbeddingOptions",
    "GigaChatEmbeddingSettings",
    "GigaChatSettings",
    "GlobalRateLimitSettings",
    "HedgingSettings",
    "HistorySettings",
    "LangChainProviderSettings",
    "Language",
    "LocalChatModelSettings",
    "LocalDecoder",
    "LocalEmbeddingModelSettings",
    "LocalProviderSettings",
    "LoggingLevel",
    "MetricsLoggingSettings",
    "MetricsSettings",
    "ModelRoleSettings",
    "OpenAIChatOptions",
    "OpenAIChatSettings",
    "OpenAICompatibleProviderSettings",
    "OpenAIEmbeddingOptions",
    "OpenAIEmbeddingSettings",
    "OpenAISettings",
    "PriceSettings",
    "PriceSource",
    "ProviderBatchSettings",
    "ProviderLimitSettings",
    "ProvidersSettings",
    "QuorumFailure",
    "RagasSettings",
    "RateLimitSettings",
    "RateLimitStrategy",
    "RetrySettings",
    "RunSettings",
    "SettingsSource",
    "SimulationSettings",
    "StructuredOutputMode",
    "Transport",
]
