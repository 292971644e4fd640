"""One embedding model of an OpenAI-compatible provider, through ``OpenAIEmbeddings``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from ragas_boot.chat.embeddings.model import EmbeddingAnswer, embedded
from ragas_boot.chat.failures import call_failure
from ragas_boot.chat.judge import ModelIdentity
from ragas_boot.chat.loops import PerLoop
from ragas_boot.chat.openai.clients import (
    idle_sync_client,
    openai_embeddings_class,
    openai_http_client,
)
from ragas_boot.chat.openai.endpoints import api_base_url, openai_client_target
from ragas_boot.chat.specs import EmbeddingSpec
from ragas_boot.config.urls import append_path, mask_url

if TYPE_CHECKING:
    from langchain_openai import OpenAIEmbeddings

__all__ = ["EMBEDDINGS_SUFFIX", "OpenAICompatibleEmbeddingModel"]

#: What the OpenAI client appends to its base URL for embedding calls.
EMBEDDINGS_SUFFIX: Final = "/embeddings"


class _LoopEmbeddings:
    __slots__ = ("http", "model")

    def __init__(self, model: OpenAIEmbeddings, http: Any) -> None:
        self.model = model
        self.http = http

    async def aclose(self) -> None:
        await self.http.aclose()


class OpenAICompatibleEmbeddingModel(ModelIdentity[EmbeddingSpec]):
    """One embedding model of an OpenAI-compatible provider, through ``OpenAIEmbeddings``.

    Texts go as they are (``check_embedding_ctx_length=False``: no tiktoken, which would
    download its tables and which other providers' models do not share) with
    ``encoding_format: float``; the texts of one call go in one request. ``max_retries=0``:
    retries belong to the executor's policy.

    Args:
        spec: the model's settings.
    """

    def __init__(self, *, spec: EmbeddingSpec) -> None:
        self._spec = spec
        self._api_base = api_base_url(
            spec.base_url, spec.embeddings_path, suffix=EMBEDDINGS_SUFFIX, key="embeddings-path"
        )
        self._clients = PerLoop(self._make)

    def __repr__(self) -> str:
        return (
            f"OpenAICompatibleEmbeddingModel(id={self.id!r}, provider={self.provider!r}, "
            f"model={self._spec.model!r}, url={self.endpoint!r})"
        )

    @property
    def endpoint(self) -> str:
        """The URL embeddings are posted to (credentials in it masked)."""
        return mask_url(append_path(self._api_base, EMBEDDINGS_SUFFIX))

    def _make(self) -> _LoopEmbeddings:
        spec = self._spec
        timeout = spec.limits.call_timeout.total_seconds() or None
        http = openai_http_client(self._api_base, spec.limits, spec.tls)
        # As for chat judges: the query as default_query, URL credentials as Authorization.
        api_base, query, headers, api_key = openai_client_target(
            self._api_base, spec.api_key, spec.headers
        )
        model = openai_embeddings_class()(
            model=spec.model,
            openai_api_base=api_base,
            default_query=query or None,
            openai_api_key=api_key,
            dimensions=spec.dimensions,
            max_retries=0,
            request_timeout=timeout,
            default_headers=headers or None,
            http_async_client=http,
            http_client=idle_sync_client(),
            check_embedding_ctx_length=False,
            model_kwargs={"encoding_format": "float"},
        )
        return _LoopEmbeddings(model, http)

    def _client(self) -> OpenAIEmbeddings:
        return self._clients.get().model

    def prepare(self) -> None:
        """Create this loop's HTTP client now (importing langchain-openai on first use)."""
        self._client()

    async def aembed(self, texts: Sequence[str]) -> EmbeddingAnswer:
        """Embed ``texts`` in one request (see :class:`EmbeddingModel`)."""
        model = self._client()
        batch = list(texts)
        # chunk_size: one request per call, whatever the batch size.
        request = model.aembed_documents(batch, chunk_size=max(1, len(batch)))
        return await embedded(
            request, len(batch), self.id, lambda e: call_failure(e, spec=self._spec)
        )

    async def aclose(self) -> None:
        """Close the HTTP clients made in the current loop (and those of loops still running)."""
        await self._clients.aclose(_LoopEmbeddings.aclose)
