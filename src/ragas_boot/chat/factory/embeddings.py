"""From settings to embedding-model specs, as judge specs are made: the same providers, limits,
TLS files and unique ids (``chat/factory/providers.py``)."""

from __future__ import annotations

from ragas_boot.chat.embeddings.openai_compatible import EMBEDDINGS_SUFFIX
from ragas_boot.chat.factory.gigachat import gigachat_embedding_spec
from ragas_boot.chat.factory.local import local_embedding_specs
from ragas_boot.chat.factory.providers import (
    DEFAULT_PROVIDER_NAME,
    PREFIX,
    UniqueIds,
    provider_limits,
    provider_tls,
    resolve_limits,
)
from ragas_boot.chat.openai.endpoints import api_base_url
from ragas_boot.chat.specs import EmbeddingSpec
from ragas_boot.config.settings import RagasSettings
from ragas_boot.errors import ConfigError

__all__ = ["embedding_specs"]


def embedding_specs(settings: RagasSettings) -> list[EmbeddingSpec]:
    """Every embedding model the settings declare, in YAML order.

    ``embedding-models`` of each openai-compatible provider, then GigaChat's
    (``spring.ai.gigachat.embedding``), then the ``local`` provider's (when it is enabled; by
    default its bundled model). ``spring.ai.openai.embedding`` counts
    only when neither declares any.

    Raises:
        ConfigError: the same id twice (give one an ``alias``), an ``embeddings-path`` the
            OpenAI client cannot reach, an unknown local model, or
            ``spring.ai.openai.embedding`` without a base URL or key.
    """
    providers = settings.providers
    default_dimensions = providers.embedding_default_options.dimensions
    specs: list[EmbeddingSpec] = []
    ids = UniqueIds("embedding model")

    def add(spec: EmbeddingSpec, key: str) -> None:
        ids.claim(spec.id, key)
        specs.append(spec)

    for p_index, provider in enumerate(providers.openai_compatible):
        if not provider.embedding_models:
            continue
        p_key = f"{PREFIX}.openai-compatible[{p_index}]"
        try:
            api_base_url(
                provider.base_url,
                provider.embeddings_path,
                suffix=EMBEDDINGS_SUFFIX,
                key="embeddings-path",
            )
        except ValueError as error:
            raise ConfigError(str(error), key=f"{p_key}.embeddings-path") from None
        limits = provider_limits(providers, provider)
        for m_index, model in enumerate(provider.embedding_models):
            add(
                EmbeddingSpec(
                    id=model.embedding_id,
                    model=model.id,
                    provider=provider.name,
                    base_url=provider.base_url,
                    api_key=provider.api_key,
                    embeddings_path=provider.embeddings_path,
                    dimensions=model.dimensions
                    if model.dimensions is not None
                    else default_dimensions,
                    limits=limits,
                    headers=provider.headers,
                    tls=provider_tls(provider, p_key),
                ),
                f"{p_key}.embedding-models[{m_index}]",
            )

    gigachat = gigachat_embedding_spec(settings)
    if gigachat is not None:
        add(*gigachat)

    if providers.local.enabled:
        for spec, key in local_embedding_specs(settings):
            add(spec, key)

    fallback = settings.openai.embedding
    if not specs and fallback.options.model:
        openai = settings.openai
        base_url = fallback.base_url or openai.base_url
        api_key = fallback.api_key or openai.api_key
        if not base_url or api_key is None:
            missing = "base-url" if not base_url else "api-key"
            raise ConfigError(
                f"spring.ai.openai.embedding names a model but has no {missing} (nor has "
                "spring.ai.openai)",
                key=f"spring.ai.openai.embedding.{missing}",
                hint="Set it, or declare the model under an openai-compatible provider's "
                "embedding-models",
            )
        path = fallback.embeddings_path or "/v1/embeddings"
        try:
            api_base_url(base_url, path, suffix=EMBEDDINGS_SUFFIX, key="embeddings-path")
        except ValueError as error:
            raise ConfigError(
                str(error), key="spring.ai.openai.embedding.embeddings-path"
            ) from None
        add(
            EmbeddingSpec(
                id=fallback.options.model,
                model=fallback.options.model,
                provider=DEFAULT_PROVIDER_NAME,
                base_url=base_url,
                api_key=api_key,
                embeddings_path=path,
                dimensions=fallback.options.dimensions
                if fallback.options.dimensions is not None
                else default_dimensions,
                limits=resolve_limits(
                    providers, DEFAULT_PROVIDER_NAME, providers.default_provider.rate_limit
                ),
            ),
            "spring.ai.openai.embedding.options.model",
        )
    return specs
