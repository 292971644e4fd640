"""The sections of other Spring AI starters that ragas-boot reads: ``spring.ai.openai`` (the
plain OpenAI connection of ``default-provider``) and ``spring.ai.gigachat`` (the GigaChat
starter's connection, whose models become judges). Keys of those starters that ragas-boot
does not use are ignored.
"""

from __future__ import annotations

from pydantic import ConfigDict, Field, SecretStr, field_validator

from ragas_boot.config.settings._base import _JavaSection, _Section
from ragas_boot.config.urls import check_base_url

__all__ = [
    "GIGACHAT_AUTH_URL",
    "GIGACHAT_BASE_URL",
    "GigaChatAuthSettings",
    "GigaChatBearerSettings",
    "GigaChatCertsSettings",
    "GigaChatChatOptions",
    "GigaChatChatSettings",
    "GigaChatEmbeddingOptions",
    "GigaChatEmbeddingSettings",
    "GigaChatSettings",
    "OpenAIChatOptions",
    "OpenAIChatSettings",
    "OpenAIEmbeddingOptions",
    "OpenAIEmbeddingSettings",
    "OpenAISettings",
]

# --------------------------------------------------------------------------- spring.ai.openai


class OpenAIChatOptions(_Section):
    """``spring.ai.openai.chat.options``."""

    model_config = ConfigDict(extra="ignore")

    model: str | None = Field(default=None, description="Model id of the default provider.")
    temperature: float | None = Field(default=None, description="Sampling temperature.")
    max_tokens: int | None = Field(default=None, description="Completion token cap.")
    top_p: float | None = Field(default=None, description="Nucleus sampling.")


class OpenAIChatSettings(_Section):
    """``spring.ai.openai.chat``."""

    model_config = ConfigDict(extra="ignore")

    options: OpenAIChatOptions = Field(
        default_factory=OpenAIChatOptions, description="Default chat options."
    )
    completions_path: str | None = Field(default=None, description="Path of chat completions.")


class OpenAIEmbeddingOptions(_Section):
    """``spring.ai.openai.embedding.options``."""

    model_config = ConfigDict(extra="ignore")

    model: str | None = Field(default=None, description="Embedding model id.")
    dimensions: int | None = Field(
        default=None, ge=1, description="Vector size to ask for (the OpenAI `dimensions` option)."
    )


class OpenAIEmbeddingSettings(_Section):
    """``spring.ai.openai.embedding``: an embedding model on the plain OpenAI connection.

    Used only when no provider declares ``embedding-models`` (the Java library never used it).
    """

    model_config = ConfigDict(extra="ignore")

    base_url: str | None = Field(
        default=None, description="Base URL, without /v1; default spring.ai.openai.base-url."
    )
    api_key: SecretStr | None = Field(
        default=None, description="API key; default spring.ai.openai.api-key."
    )
    embeddings_path: str | None = Field(
        default=None, description="Path of embeddings; default /v1/embeddings."
    )
    options: OpenAIEmbeddingOptions = Field(
        default_factory=OpenAIEmbeddingOptions, description="Model and dimensions."
    )

    @field_validator("base_url")
    @classmethod
    def _absolute_url(cls, value: str | None) -> str | None:
        # Empty is Spring's "not set" (``base-url: ${OPENAI_EMBEDDING_BASE_URL:}``).
        return check_base_url(value) if value else value


class OpenAISettings(_Section):
    """``spring.ai.openai``: the plain OpenAI connection used by ``default-provider``.

    Keys of Spring AI's OpenAI starter that ragas-boot does not use are ignored.
    """

    model_config = ConfigDict(extra="ignore")

    base_url: str | None = Field(default=None, description="Base URL, without /v1.")
    api_key: SecretStr | None = Field(default=None, description="API key.")
    chat: OpenAIChatSettings = Field(
        default_factory=OpenAIChatSettings, description="Chat model defaults."
    )
    embedding: OpenAIEmbeddingSettings = Field(
        default_factory=OpenAIEmbeddingSettings,
        description="Embedding model used when no provider declares embedding-models.",
    )

    @field_validator("base_url")
    @classmethod
    def _absolute_url(cls, value: str | None) -> str | None:
        # Empty is Spring's "not set" (``base-url: ${OPENAI_BASE_URL:}``).
        return check_base_url(value) if value else value


# --------------------------------------------------------------------------- spring.ai.gigachat

#: GigaChat's public endpoints (the Java starter's defaults).
GIGACHAT_BASE_URL = "https://gigachat.devices.sberbank.ru/api/v1"
GIGACHAT_AUTH_URL = "https://ngw.devices.sberbank.ru:9443/api/v2/oauth"


class GigaChatBearerSettings(_JavaSection):
    """``spring.ai.gigachat.auth.bearer``: OAuth credentials exchanged for access tokens."""

    url: str | None = Field(default=None, description="OAuth token URL (auth-url).")
    api_key: SecretStr | None = Field(
        default=None, description="Authorization key: base64 of client-id:client-secret."
    )
    client_id: str | None = Field(default=None, description="Client id (with client-secret).")
    client_secret: SecretStr | None = Field(default=None, description="Client secret.")


class GigaChatCertsSettings(_JavaSection):
    """``spring.ai.gigachat.auth.certs``: mutual TLS instead of bearer tokens."""

    client_certificate: str | None = Field(default=None, description="Client certificate file.")
    client_key: str | None = Field(default=None, description="Client key file.")


class GigaChatAuthSettings(_JavaSection):
    """``spring.ai.gigachat.auth``."""

    scope: str | None = Field(
        default=None, description="GIGACHAT_API_PERS, GIGACHAT_API_B2B or GIGACHAT_API_CORP."
    )
    unsafe_ssl: bool | None = Field(
        default=None, description="Skip TLS certificate checks (GigaChat's Russian CA)."
    )
    ca_certs: str | None = Field(default=None, description="CA bundle file to trust.")
    bearer: GigaChatBearerSettings = Field(
        default_factory=GigaChatBearerSettings, description="OAuth credentials."
    )
    certs: GigaChatCertsSettings = Field(
        default_factory=GigaChatCertsSettings, description="Client certificate (mTLS)."
    )


class GigaChatChatOptions(_JavaSection):
    """``spring.ai.gigachat.chat.options`` (also read flat, as ``spring.ai.gigachat.chat``)."""

    model: str | None = Field(default=None, description="Default model, e.g. GigaChat-2-Max.")
    temperature: float | None = Field(default=None, ge=0.0, le=2.0, description="Temperature.")
    max_tokens: int | None = Field(default=None, ge=1, description="Completion token cap.")
    top_p: float | None = Field(default=None, gt=0.0, le=1.0, description="Nucleus sampling.")
    repetition_penalty: float | None = Field(default=None, description="Repetition penalty.")
    profanity_check: bool | None = Field(default=None, description="GigaChat's censorship.")


class GigaChatChatSettings(GigaChatChatOptions):
    """``spring.ai.gigachat.chat``."""

    options: GigaChatChatOptions = Field(
        default_factory=GigaChatChatOptions, description="Chat options."
    )


class GigaChatEmbeddingOptions(_JavaSection):
    """``spring.ai.gigachat.embedding.options`` (also read flat, one level up)."""

    model: str | None = Field(default=None, description="Embedding model, e.g. EmbeddingsGigaR.")


class GigaChatEmbeddingSettings(GigaChatEmbeddingOptions):
    """``spring.ai.gigachat.embedding``: GigaChat's embedding model, on the chat's connection."""

    options: GigaChatEmbeddingOptions = Field(
        default_factory=GigaChatEmbeddingOptions, description="Embedding options."
    )


class GigaChatSettings(_JavaSection):
    """``spring.ai.gigachat``: the GigaChat connection (keys of the Java GigaChat starter).

    Its chat models become judges when ``auto-detect-beans`` is on (the Java default): those
    listed in ``external-starters.gigachat.chat-models``, else ``chat.options.model``;
    ``embedding.options.model`` becomes an embedding model on the same credentials.
    """

    base_url: str | None = Field(default=None, description="API base URL, with /api/v1.")
    auth: GigaChatAuthSettings = Field(
        default_factory=GigaChatAuthSettings, description="Authentication."
    )
    chat: GigaChatChatSettings = Field(
        default_factory=GigaChatChatSettings, description="Chat model options."
    )
    embedding: GigaChatEmbeddingSettings = Field(
        default_factory=GigaChatEmbeddingSettings,
        description="Embedding model (ResponseRelevancy, SemanticSimilarity, ...).",
    )
    unsafe_ssl: bool = Field(default=False, description="Skip TLS certificate checks.")
    # The starter's older, flat spellings (deprecated there, still read).
    auth_url: str | None = Field(default=None, description="Deprecated: auth.bearer.url.")
    client_id: str | None = Field(default=None, description="Deprecated: auth.bearer.client-id.")
    client_secret: SecretStr | None = Field(
        default=None, description="Deprecated: auth.bearer.client-secret."
    )
    scope: str | None = Field(default=None, description="Deprecated: auth.scope.")

    @property
    def configured(self) -> bool:
        """Whether any credential is set (Java creates the GigaChat bean only then)."""
        bearer = self.auth.bearer
        return bool(
            (bearer.api_key and bearer.api_key.get_secret_value())
            or (bearer.client_id and bearer.client_secret)
            or (self.client_id and self.client_secret)
            or (self.auth.certs.client_certificate and self.auth.certs.client_key)
        )
