"""Configuration: a Spring-style ``application.yaml`` as one typed :class:`RagasSettings`.

>>> settings = load_settings("application.yaml", profiles=["openrouter"])  # doctest: +SKIP
"""

from ragas_boot.config.loader import load_settings
from ragas_boot.config.settings import (
    Aggregation,
    AllureSettings,
    BackoffSettings,
    ChatModelSettings,
    ChatOptions,
    DefaultOptions,
    DefaultProviderSettings,
    GlobalRateLimitSettings,
    LocalProviderSettings,
    LoggingLevel,
    MetricsLoggingSettings,
    MetricsSettings,
    OpenAIChatOptions,
    OpenAIChatSettings,
    OpenAICompatibleProviderSettings,
    OpenAISettings,
    ProvidersSettings,
    RagasSettings,
    RateLimitSettings,
    RateLimitStrategy,
    RetrySettings,
    SettingsSource,
    StructuredOutputMode,
)

__all__ = [
    "Aggregation",
    "AllureSettings",
    "BackoffSettings",
    "ChatModelSettings",
    "ChatOptions",
    "DefaultOptions",
    "DefaultProviderSettings",
    "GlobalRateLimitSettings",
    "LocalProviderSettings",
    "LoggingLevel",
    "MetricsLoggingSettings",
    "MetricsSettings",
    "OpenAIChatOptions",
    "OpenAIChatSettings",
    "OpenAICompatibleProviderSettings",
    "OpenAISettings",
    "ProvidersSettings",
    "RagasSettings",
    "RateLimitSettings",
    "RateLimitStrategy",
    "RetrySettings",
    "SettingsSource",
    "StructuredOutputMode",
    "load_settings",
]
