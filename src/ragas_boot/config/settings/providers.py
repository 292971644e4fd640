"""``spring.ai.ragas.providers``: where the judges come from (openai-compatible servers,
other starters, LangChain classes, ``spring.ai.openai``, the local model) and the defaults
every provider falls back to."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from pydantic import Field, SecretStr, field_validator, model_validator

from ragas_boot.config.settings._base import Duration, _Section
from ragas_boot.config.settings.batch import BatchSettings, ProviderBatchSettings
from ragas_boot.config.settings.limits import (
    CircuitBreakerSettings,
    GlobalRateLimitSettings,
    HedgingSettings,
    ProviderLimitSettings,
    RateLimitSettings,
)
from ragas_boot.config.settings.local import LocalProviderSettings
from ragas_boot.config.settings.models import (
    ChatModelEntry,
    ChatModelSettings,
    DefaultOptions,
    EmbeddingDefaultOptions,
    EmbeddingModelSettings,
)
from ragas_boot.config.settings.modes import StructuredOutputMode, Transport
from ragas_boot.config.urls import check_base_url

__all__ = [
    "DefaultProviderSettings",
    "ExternalStarterSettings",
    "LangChainProviderSettings",
    "OpenAICompatibleProviderSettings",
    "ProvidersSettings",
]


class _OpenAICompatibleKeys(_Section):
    """The keys of an ``openai-compatible`` entry listed before its limits."""

    name: str = Field(min_length=1, description="Provider name (logs, reports, rate limits).")
    base_url: str = Field(
        min_length=1, description="Base URL without /v1, e.g. https://openrouter.ai/api."
    )
    api_key: SecretStr = Field(description="API key; never printed.")
    completions_path: str = Field(
        default="/v1/chat/completions", description="Appended to base-url for chat calls."
    )
    max_prompt_tokens: int | None = Field(
        default=None,
        ge=1,
        description="Largest prompt sent to this provider's models, in estimated tokens; "
        "unset: providers.max-prompt-tokens.",
    )
    chat_models: list[ChatModelSettings] = Field(
        default_factory=list, description="Chat models; each becomes a judge."
    )
    embeddings_path: str = Field(
        default="/v1/embeddings", description="Appended to base-url for embedding calls."
    )
    embedding_models: list[EmbeddingModelSettings] = Field(
        default_factory=list, description="Embedding models of this provider."
    )
    hedging: HedgingSettings | None = Field(
        default=None, description="Hedged requests of this provider; unset = providers.hedging."
    )

    @field_validator("base_url")
    @classmethod
    def _absolute_url(cls, value: str) -> str:
        return check_base_url(value)

    @field_validator("completions_path", "embeddings_path")
    @classmethod
    def _leading_slash(cls, value: str) -> str:
        return value if value.startswith("/") else "/" + value


class OpenAICompatibleProviderSettings(ProviderLimitSettings, _OpenAICompatibleKeys):
    """One entry of ``spring.ai.ragas.providers.openai-compatible``."""

    structured_output: StructuredOutputMode | None = Field(
        default=None, description="How JSON is asked for; default providers.structured-output."
    )
    headers: dict[str, SecretStr] = Field(
        default_factory=dict,
        repr=False,
        description="Extra HTTP headers sent with every call; values are secrets, never shown.",
    )
    json_object_schema: bool = Field(
        default=True,
        description="json_object mode: also send the schema beside the type (llama.cpp and "
        "vLLM constrain decoding with it); false for servers that reject the extra key.",
    )
    transport: Transport | None = Field(
        default=None,
        description="How calls are sent (direct|langchain|batch); default providers.transport.",
    )
    batch: ProviderBatchSettings | None = Field(
        default=None,
        description="This provider's batch API keys (transport: batch); each unset one is "
        "providers.batch's.",
    )
    ca_bundle: str | None = Field(
        default=None,
        description="PEM file of extra CA certificates to trust for HTTPS (a company CA), on "
        "top of the system store and certifi's bundle.",
    )
    client_cert: str | None = Field(
        default=None,
        description="PEM client certificate for gateways that ask for one (mutual TLS); "
        "holds the key too unless client-key is set.",
    )
    client_key: str | None = Field(
        default=None, description="PEM private key of client-cert, when it is a separate file."
    )

    @model_validator(mode="after")
    def _key_needs_certificate(self) -> OpenAICompatibleProviderSettings:
        if self.client_key and not self.client_cert:
            raise ValueError("client-key is set without client-cert: set both, or neither")
        return self


_SECRET_ARGUMENT = re.compile(
    r"api.?key|secret|passw(?:or)?d|credential|authorization|token(?!s)", re.IGNORECASE
)


def _secret_arguments(arguments: dict[str, Any]) -> dict[str, Any]:
    """Arguments whose name is a credential's (``api-key``, ``credentials``) as ``SecretStr``."""
    return {
        key: SecretStr(str(value))
        if _SECRET_ARGUMENT.search(key) and isinstance(value, str | int)
        else value
        for key, value in arguments.items()
    }


class _ExternalStarterKeys(_Section):
    """The keys of an ``external-starters`` entry listed before its limits."""

    enabled: bool = Field(default=True, description="false: this starter gives no judges.")
    chat_models: list[ChatModelEntry] = Field(
        default_factory=list,
        description="Model ids (or {id, alias, options}); each becomes a judge. Empty: the "
        "starter's default model.",
    )
    embedding_models: list[Any] = Field(
        default_factory=list, description="Recognised from the Java config; not supported yet."
    )
    include_embedding: bool = Field(default=True, description="Java only (never read there).")


class ExternalStarterSettings(ProviderLimitSettings, _ExternalStarterKeys):
    """One entry of ``spring.ai.ragas.providers.external-starters`` (e.g. ``gigachat``).

    In Java these pick the chat models of another Spring AI starter's bean; here the
    ``gigachat`` entry picks the judges of ``spring.ai.gigachat``, and the entry named after a
    chat model registered in code (``create_container(chat_models=...)``) gives its limits.
    """

    structured_output: StructuredOutputMode | None = Field(
        default=None, description="How JSON is asked for; default native."
    )


class _LangChainKeys(_Section):
    """The keys of a ``langchain`` entry listed before its limits."""

    name: str = Field(min_length=1, description="Provider name (logs, reports, rate limits).")
    class_path: str = Field(
        alias="class",
        min_length=3,
        pattern=r"^[A-Za-z_][\w.]*\.[A-Za-z_]\w*$",
        description="Dotted path of a BaseChatModel subclass "
        "(e.g. langchain_anthropic.ChatAnthropic).",
    )
    arguments: dict[str, Any] = Field(
        default_factory=dict,
        description="Keyword arguments of the class; credential-like ones are kept secret.",
    )
    model_argument: str = Field(
        default="model", min_length=1, description="The argument that takes the model id."
    )
    chat_models: list[ChatModelEntry] = Field(
        default_factory=list, description="Chat models; each becomes a judge."
    )

    @field_validator("arguments")
    @classmethod
    def _hide_secrets(cls, arguments: dict[str, Any]) -> dict[str, Any]:
        return _secret_arguments(arguments)


class LangChainProviderSettings(ProviderLimitSettings, _LangChainKeys):
    """One entry of ``spring.ai.ragas.providers.langchain``: judges on any LangChain chat class.

    The class is imported by its dotted path and built with ``arguments`` (kebab-case keys
    become keyword arguments: ``api-key`` → ``api_key``) plus, per chat model, the model id
    and the options (``temperature``, ``max-tokens``, ``top-p``) the class has fields for.
    """

    structured_output: StructuredOutputMode | None = Field(
        default=None,
        description="How JSON is asked for; default native (the class's with_structured_output, "
        "else prompt).",
    )


class DefaultProviderSettings(_Section):
    """``spring.ai.ragas.providers.default-provider``: judges on ``spring.ai.openai``."""

    enabled: bool = Field(default=True, description="Use spring.ai.openai for these models.")
    models: list[ChatModelSettings] = Field(
        default_factory=list, description="Models of the default provider."
    )
    rate_limit: RateLimitSettings | None = Field(default=None, description="Rate limit.")
    limits_per_machine: bool | None = Field(
        default=None,
        description="Shards keep this provider's rate limit whole rather than 1/N of it; "
        "unset = providers.limits-per-machine.",
    )


class ProvidersSettings(_Section):
    """``spring.ai.ragas.providers``: where the judges come from."""

    auto_detect_beans: bool = Field(
        default=True,
        description="Judge with the models of spring.ai.gigachat (Java: wrap other starters' "
        "ChatModel beans).",
    )
    openai_compatible: list[OpenAICompatibleProviderSettings] = Field(
        default_factory=list, description="OpenAI-compatible providers."
    )
    default_provider: DefaultProviderSettings = Field(
        default_factory=DefaultProviderSettings, description="Judges on spring.ai.openai."
    )
    default_options: DefaultOptions = Field(
        default_factory=DefaultOptions, description="Options every judge starts from."
    )
    embedding_default_options: EmbeddingDefaultOptions = Field(
        default_factory=EmbeddingDefaultOptions,
        description="Options every embedding model starts from.",
    )
    external_starters: dict[str, ExternalStarterSettings] = Field(
        default_factory=dict,
        description="Judges of other chat starters by name: gigachat (spring.ai.gigachat), or "
        "the provider name of chat models registered in code.",
    )
    langchain: list[LangChainProviderSettings] = Field(
        default_factory=list, description="Providers on any LangChain chat model class."
    )
    max_prompt_tokens: int | None = Field(
        default=None,
        ge=1,
        description="Largest prompt sent to any judge, in estimated tokens; unset: a local "
        "model's n-ctx, else 32768.",
    )
    rate_limit: GlobalRateLimitSettings = Field(
        default_factory=GlobalRateLimitSettings, description="Rate-limit defaults."
    )
    local: LocalProviderSettings = Field(
        default_factory=LocalProviderSettings, description="Embedded local judge."
    )
    timeout: Duration = Field(
        default=timedelta(seconds=120), description="Default per-call timeout."
    )
    max_concurrency: int = Field(
        default=16, ge=1, description="Default calls in flight at once per provider."
    )
    limits_per_machine: bool = Field(
        default=False,
        description="Shards (--shard I/N) keep every provider's rate-limit and max-concurrency "
        "whole instead of taking 1/N each (a provider's own limits-per-machine wins).",
    )
    structured_output: StructuredOutputMode = Field(
        default=StructuredOutputMode.PROMPT, description="Default way to ask for JSON."
    )
    transport: Transport = Field(
        default=Transport.DIRECT,
        description="How OpenAI-compatible judges send calls: direct (a lean aiohttp session "
        "with pre-serialised requests), langchain (ChatOpenAI) or batch (the provider's "
        "batch API, see batch).",
    )
    batch: BatchSettings = Field(
        default_factory=BatchSettings,
        description="How judges on transport: batch send their calls through a provider's "
        "batch API (/v1/files, /v1/batches).",
    )
    price_catalog: bool = Field(
        default=True,
        description="Price the judges of known models (OpenAI, Anthropic, Google, OpenRouter, "
        "...) from the genai-prices catalog when their model sets no price; false: only "
        "configured prices.",
    )
    output_retries: int = Field(
        default=1, ge=0, description="Re-asks after an empty/unparseable/invalid answer."
    )
    hedging: HedgingSettings = Field(
        default_factory=HedgingSettings,
        description="Hedged requests (off by default), for every provider without its own.",
    )
    circuit_breaker: CircuitBreakerSettings = Field(
        default_factory=CircuitBreakerSettings, description="Fail fast while a judge is down."
    )
    max_answer_chars: int = Field(
        default=100_000,
        ge=1_000,
        description="Longest judge answer read and kept, in characters; a longer one is cut "
        "(marked as cut) and that judge's call fails.",
    )

    @field_validator("openai_compatible")
    @classmethod
    def _unique_provider_names(
        cls, providers: list[OpenAICompatibleProviderSettings]
    ) -> list[OpenAICompatibleProviderSettings]:
        # Checked here, not on the root, so that the error's location is this list and the
        # loader can name the YAML key.
        first_index: dict[str, int] = {}
        for index, provider in enumerate(providers):
            if provider.name in first_index:
                raise ValueError(
                    f"provider name '{provider.name}' is used by entries "
                    f"[{first_index[provider.name]}] and [{index}]; names must be unique"
                )
            first_index[provider.name] = index
        return providers
