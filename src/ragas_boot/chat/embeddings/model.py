"""Embedding models: configured like chat models, called like judges.

An :class:`EmbeddingModel` turns a batch of texts into one vector each, in one request. Three
kinds exist, one module each:

* :mod:`~ragas_boot.chat.embeddings.openai_compatible`: an ``embedding-models`` entry of an
  openai-compatible provider (or ``spring.ai.openai.embedding``), reached over HTTP through
  langchain-openai's ``OpenAIEmbeddings`` with openai's aiohttp transport, one client per
  event loop;
* :mod:`~ragas_boot.chat.embeddings.gigachat`: ``spring.ai.gigachat.embedding``
  (``EmbeddingsGigaR``...), through langchain-gigachat's ``GigaChatEmbeddings`` on the chat
  judges' credentials, scope and connection settings, one client per event loop;
* :mod:`~ragas_boot.chat.embeddings.local`: the ``local`` provider's offline model, Google's
  Universal Sentence Encoder multilingual v3 run in-process with numpy.

Like a judge, a model makes exactly one attempt per call and raises judge errors
(:class:`~ragas_boot.errors.JudgeHTTPError`, ...); retries, rate limits, concurrency and
timeouts belong to :class:`~ragas_boot.execution.embeddings.EmbeddingExecutor`. Their specs
(:class:`~ragas_boot.chat.specs.EmbeddingSpec`) come from ``chat/factory/``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ragas_boot.chat.failures import await_translated
from ragas_boot.chat.specs import EmbeddingSpec
from ragas_boot.errors import JudgeOutputError

__all__ = ["EmbeddingAnswer", "EmbeddingModel", "check_vectors", "embedded"]


@dataclass(frozen=True, slots=True)
class EmbeddingAnswer:
    """One embedding call's vectors, one per text in the order sent.

    Attributes:
        vectors: the vectors.
        latency_s: seconds from sending the request to having the vectors.
    """

    vectors: list[list[float]]
    latency_s: float


@runtime_checkable
class EmbeddingModel(Protocol):
    """A model that embeds a batch of texts in one call; used like a judge."""

    @property
    def id(self) -> str:
        """The model's id in results and reports."""
        ...

    @property
    def provider(self) -> str:
        """Name of the provider it belongs to."""
        ...

    @property
    def spec(self) -> EmbeddingSpec:
        """The settings it was built from."""
        ...

    def prepare(self) -> None:
        """Make what the first call in the running loop needs (client, imports, weights)."""
        ...

    async def aembed(self, texts: Sequence[str]) -> EmbeddingAnswer:
        """Embed ``texts`` in one call.

        Raises:
            JudgeHTTPError: the server answered with an error status.
            JudgeTimeoutError: no answer in time.
            JudgeConnectionError: the server could not be reached.
            JudgeOutputError: the answer has the wrong number of vectors, vectors of different
                sizes, empty or non-finite vectors.
        """
        ...

    async def aclose(self) -> None:
        """Close the model's HTTP clients."""
        ...


def check_vectors(vectors: Any, count: int, *, model_id: str) -> list[list[float]]:
    """``vectors`` as a list of ``count`` equal-sized, finite, non-empty float lists.

    Raises:
        JudgeOutputError: anything else (the provider's failure to answer, not the caller's).
    """

    def invalid(message: str) -> JudgeOutputError:
        return JudgeOutputError(message, judge_id=model_id, raw_text=None)

    if not isinstance(vectors, list) or len(vectors) != count:
        got = len(vectors) if isinstance(vectors, list) else type(vectors).__name__
        raise invalid(f"expected {count} vectors, got {got}")
    checked: list[list[float]] = []
    size: int | None = None
    for index, vector in enumerate(vectors):
        try:
            values = list(vector)
            # One C-level pass: a non-number raises, a NaN or infinity makes the sum non-finite.
            total = sum(values, 0.0)
        except (TypeError, ValueError):
            raise invalid(f"vector {index} is not a list of numbers") from None
        if not values:
            raise invalid(f"vector {index} is empty")
        if not math.isfinite(total):
            raise invalid(f"vector {index} holds NaN or infinite values")
        if size is None:
            size = len(values)
        elif len(values) != size:
            raise invalid(
                f"vectors differ in size: vector 0 has {size} dimensions, vector {index} "
                f"has {len(values)}"
            )
        checked.append(values)
    return checked


async def embedded(
    request: Awaitable[list[list[float]]],
    count: int,
    model_id: str,
    translate: Callable[[Exception], BaseException],
) -> EmbeddingAnswer:
    """A LangChain embeddings call timed, its vectors checked, a client error translated into
    the judge error the attempt loop understands (``translate`` returns anything else as is)."""
    started = time.perf_counter()
    vectors = await await_translated(request, translate)
    latency = time.perf_counter() - started
    return EmbeddingAnswer(
        vectors=check_vectors(vectors, count, model_id=model_id), latency_s=latency
    )
