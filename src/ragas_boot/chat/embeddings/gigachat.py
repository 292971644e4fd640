"""GigaChat's embedding model, through langchain-gigachat's ``GigaChatEmbeddings``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from pydantic import SecretStr

from ragas_boot.chat.embeddings.model import EmbeddingAnswer, embedded
from ragas_boot.chat.judge import ModelIdentity
from ragas_boot.chat.langchain.errors import translate_client_error
from ragas_boot.chat.loops import PerLoop
from ragas_boot.chat.specs import EmbeddingSpec
from ragas_boot.config.urls import append_path, mask_url

__all__ = ["GIGACHAT_EMBEDDINGS_CLASS", "GigaChatEmbeddingModel"]

#: The LangChain class GigaChat embedding models run on (the ``[gigachat]`` extra).
GIGACHAT_EMBEDDINGS_CLASS: Final = "langchain_gigachat.GigaChatEmbeddings"
_EMBEDDINGS_SUFFIX: Final = "/embeddings"


class GigaChatEmbeddingModel(ModelIdentity[EmbeddingSpec]):
    """GigaChat's embedding model through langchain-gigachat's ``GigaChatEmbeddings``.

    Built with the arguments of the chat judges (base URL, OAuth URL, credentials, scope, TLS
    settings; see :func:`~ragas_boot.chat.factory.gigachat.gigachat_arguments`), so one
    ``spring.ai.gigachat`` section serves both; the ``gigachat`` client under it gets a token
    and renews it on expiry or a 401. One instance per event loop (its httpx client is bound
    to the loop); ``max_retries=0``: retries belong to the executor's policy.

    Args:
        spec: the model's settings (``spec.langchain`` names the class and its arguments).
    """

    def __init__(self, *, spec: EmbeddingSpec) -> None:
        if spec.langchain is None:
            raise ValueError(f"embedding model '{spec.id}' has no LangChain class to build")
        self._spec = spec
        self._models: PerLoop[Any] = PerLoop(self._make)

    def __repr__(self) -> str:
        return (
            f"GigaChatEmbeddingModel(id={self.id!r}, provider={self.provider!r}, "
            f"model={self._spec.model!r}, url={self.endpoint!r})"
        )

    @property
    def endpoint(self) -> str:
        """The URL embeddings are posted to (credentials in it masked)."""
        return mask_url(append_path(self._spec.base_url, _EMBEDDINGS_SUFFIX))

    def _make(self) -> Any:
        from langchain_gigachat import GigaChatEmbeddings

        spec = self._spec
        assert spec.langchain is not None  # checked in __init__
        arguments = {
            name: value.get_secret_value() if isinstance(value, SecretStr) else value
            for name, value in spec.langchain.arguments
        }
        return GigaChatEmbeddings(
            **arguments,
            model=spec.model,
            timeout=spec.limits.call_timeout.total_seconds() or None,
            max_retries=0,
            max_connections=spec.limits.max_concurrency + 8,
        )

    def _client(self) -> Any:
        return self._models.get()

    def prepare(self) -> None:
        """Build this loop's client now (importing langchain-gigachat on first use)."""
        self._client()

    async def aembed(self, texts: Sequence[str]) -> EmbeddingAnswer:
        """Embed ``texts`` in one request (see :class:`EmbeddingModel`)."""
        model = self._client()
        batch = list(texts)
        request = model.aembed_documents(batch)
        return await embedded(
            request, len(batch), self.id, lambda e: translate_client_error(e, spec=self._spec)
        )

    async def aclose(self) -> None:
        """Close the HTTP clients made in the current loop (and those of loops still running)."""
        await self._models.aclose(_close_gigachat)


async def _close_gigachat(model: Any) -> None:
    # The gigachat client is a cached_property: there is one to close only once it was used.
    client = model.__dict__.get("_client")
    if client is not None:
        await client.aclose()
