"""The specs of the embedded ``local`` provider: its judges (a GGUF model each, the bundled
SmolLM2 by default) and its embedding model (in process)."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from pydantic import SecretStr

from ragas_boot.chat.embeddings.local import LOCAL_EMBEDDING_MODEL_ID, require_local_embeddings
from ragas_boot.chat.factory.providers import (
    LOCAL_PROVIDER_NAME,
    PREFIX,
    judge_fields,
    only_openai_compatible,
    resolve_limits,
)
from ragas_boot.chat.local.runtime import (
    BUNDLED_MODEL_ID,
    LOCAL_API_KEY,
    UNSTARTED_BASE_URL,
    require_local_runtime,
    resolve_model_path,
)
from ragas_boot.chat.specs import EmbeddingSpec, LocalModelSpec, LocalSpec, ProviderLimits
from ragas_boot.config.settings import (
    LocalChatModelSettings,
    LocalEmbeddingModelSettings,
    RagasSettings,
    StructuredOutputMode,
)
from ragas_boot.errors import ConfigError

__all__ = ["local_embedding_specs", "local_judge_specs", "local_limits"]

_LOCAL: Final = f"{PREFIX}.local"


def local_limits(settings: RagasSettings) -> ProviderLimits:
    """The local provider's limits (its judges and its embedding model share them)."""
    providers = settings.providers
    local = providers.local
    return resolve_limits(
        providers,
        LOCAL_PROVIDER_NAME,
        local.rate_limit,
        max_concurrency=local.max_concurrency,
        timeout=local.timeout,
    )


def local_judge_specs(
    settings: RagasSettings, structured_output: StructuredOutputMode | None
) -> list[tuple[LocalSpec, str]]:
    """The judges of ``providers.local`` with the YAML key of each (checks the extra).

    Args:
        settings: the settings.
        structured_output: the provider's mode (checked by the caller: not ``native``).

    Raises:
        ConfigError: an openai-compatible provider takes the name ``local``, or a
            ``model-path`` does not exist.
        MissingExtraError: the ``[local]`` extra is not installed.
    """
    providers = settings.providers
    local = providers.local
    if any(p.name == LOCAL_PROVIDER_NAME for p in providers.openai_compatible):
        # Judges share rate limits and concurrency by provider name.
        raise ConfigError(
            f"an openai-compatible provider is named '{LOCAL_PROVIDER_NAME}', the name of the "
            "embedded local provider",
            key=f"{PREFIX}.openai-compatible",
            hint="Rename it, or disable providers.local",
        )
    origins = settings.source.origins
    models = local.chat_models
    keys = [f"{_LOCAL}.chat-models[{index}]" for index in range(len(models))]
    if not models:
        default_id = Path(local.model_path).stem.lower() if local.model_path else BUNDLED_MODEL_ID
        models = [LocalChatModelSettings(id=default_id)]
        keys = [f"{_LOCAL}.chat-models"]
    limits = local_limits(settings)
    paths: dict[str | None, Path] = {}
    specs: list[tuple[LocalSpec, str]] = []
    for model, key in zip(models, keys, strict=True):
        only_openai_compatible(model, key)
        configured = model.model_path if model.model_path is not None else local.model_path
        if configured not in paths:
            if configured is None:
                require_local_runtime()  # before naming the model package, the bigger install
            path_key = (
                f"{key}.model-path" if model.model_path is not None else f"{_LOCAL}.model-path"
            )
            paths[configured] = resolve_model_path(
                configured, key=path_key, file=origins.get(path_key)
            )
        model_spec = LocalModelSpec(
            model_path=paths[configured],
            n_ctx=local.n_ctx,
            n_threads=local.n_threads,
            seed=local.seed,
            chat_format=local.chat_format,
            max_string_length=local.max_string_length,
            max_array_items=local.max_array_items,
            decoder=local.decoder.value,
            stop_loops=local.stop_loops,
        )
        spec = LocalSpec(
            **judge_fields(
                providers,
                model,
                provider=LOCAL_PROVIDER_NAME,
                limits=limits,
                structured_output=structured_output,
                max_tokens=local.max_tokens,
                context_tokens=model_spec.n_ctx,
                catalog=False,  # the embedded model costs nothing
            ),
            base_url=UNSTARTED_BASE_URL,
            api_key=SecretStr(LOCAL_API_KEY),
            local=model_spec,
        )
        specs.append((spec, key))
    require_local_runtime()  # a model-path typo is reported first: it needs no install to fix
    return specs


def local_embedding_specs(settings: RagasSettings) -> list[tuple[EmbeddingSpec, str]]:
    """The local provider's embedding models (by default its bundled one) with their keys.

    Raises:
        ConfigError: an unknown local model.
        MissingExtraError: the ``[local]`` extra is not installed.
    """
    local = settings.providers.local
    limits = local_limits(settings)
    models: list[LocalEmbeddingModelSettings] = list(local.embedding_models)
    keys = [f"{_LOCAL}.embedding-models[{i}]" for i in range(len(models))]
    if not models:
        models = [LocalEmbeddingModelSettings()]
        keys = [f"{_LOCAL}.embedding-models"]
    specs: list[tuple[EmbeddingSpec, str]] = []
    for model, key in zip(models, keys, strict=True):
        if model.id != LOCAL_EMBEDDING_MODEL_ID:
            raise ConfigError(
                f"'{model.id}' is not a local embedding model",
                key=f"{key}.id",
                hint=f"The local provider has one: {LOCAL_EMBEDDING_MODEL_ID}",
            )
        spec = EmbeddingSpec(
            id=model.embedding_id,
            model=model.id,
            provider=LOCAL_PROVIDER_NAME,
            base_url="in-process",
            api_key=SecretStr(""),
            limits=limits,
            local=True,
        )
        specs.append((spec, key))
    require_local_embeddings()
    return specs
