"""Embed one batch of texts with every embedding model at once; failures come back as data.

The embedding counterpart of :class:`~ragas_boot.execution.executor.MultiModelExecutor`: each
model's call holds its provider's rate-limit token and concurrency slot (shared with the
provider's judges through :class:`~ragas_boot.execution.limits.ProviderGates`), runs under the
call timeout and is retried per ``spring.ai.retry`` — the same attempt loop as a judge's. The
texts of one batch go in one request per model; a text a model has already embedded in this
executor's lifetime (one container, i.e. one run) comes from a cache and is not sent again.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from ragas_boot.chat.embeddings.model import EmbeddingModel
from ragas_boot.config.settings import RetrySettings
from ragas_boot.errors import JudgeError, JudgeHTTPError, JudgeOutputError
from ragas_boot.execution._runner import PortalRunner
from ragas_boot.execution.attempts import CallTally, call_with_retries
from ragas_boot.execution.bridge import LoopPortal
from ragas_boot.execution.limits import ProviderGates
from ragas_boot.execution.results import Exclusion, JudgeCall, StepRecord
from ragas_boot.execution.retry import RetryPolicy

__all__ = ["DEFAULT_CACHE_SIZE", "EmbeddingExecutor", "EmbeddingOutcome", "EmbeddingStep"]

log = logging.getLogger(__name__)

#: Vectors kept per executor (least recently used ones go first).
DEFAULT_CACHE_SIZE = 20_000


@dataclass(frozen=True, slots=True)
class EmbeddingOutcome:
    """One embedding model's answer to one batch: a vector per text, or a failure.

    Attributes:
        model_id: the embedding model.
        provider: its provider.
        vectors: one vector per text of the batch, in order (``None`` on failure).
        error_kind: failure kind (``timeout``, ``http_429``, ``invalid_output``, ...).
        error_message: what went wrong.
        sent: texts sent over the wire (the others came from the cache or were repeats).
        cached: texts answered from the cache.
        attempts: HTTP attempts made (0 when everything came from the cache).
        latency_s: seconds spent in attempts.
        wait_s: seconds waiting for a rate-limit token or a concurrency slot.
    """

    model_id: str
    provider: str
    vectors: list[list[float]] | None
    error_kind: str | None = None
    error_message: str | None = None
    sent: int = 0
    cached: int = 0
    attempts: int = 0
    latency_s: float = 0.0
    wait_s: float = 0.0

    @property
    def ok(self) -> bool:
        """Whether every text got a vector."""
        return self.vectors is not None


@dataclass(frozen=True, slots=True)
class EmbeddingStep:
    """Every model's outcome for one batch, and the step record reports show."""

    outcomes: list[EmbeddingOutcome]
    record: StepRecord

    @property
    def successes(self) -> list[EmbeddingOutcome]:
        """Outcomes with vectors."""
        return [outcome for outcome in self.outcomes if outcome.ok]

    @property
    def exclusions(self) -> list[Exclusion]:
        """One exclusion per embedding model that failed, in model order."""
        return [
            Exclusion(
                judge_id=outcome.model_id,
                step=self.record.name,
                kind=outcome.error_kind or "error",
                message=outcome.error_message or "",
            )
            for outcome in self.outcomes
            if not outcome.ok
        ]


def _failure_kind(error: BaseException) -> str:
    if isinstance(error, JudgeHTTPError):
        return error.kind_detail
    if isinstance(error, JudgeError):
        return error.kind
    return "internal_error"


class EmbeddingExecutor(PortalRunner):
    """Runs embedding batches on several models concurrently, with the judges' house rules.

    Args:
        models: the embedding models, in the order results are reported.
        retry: the ``spring.ai.retry`` settings (or a ready policy).
        output_retries: re-asks after an invalid answer (wrong count, mixed sizes, NaN).
        portal: the loop that owns the I/O; a private one is made when not given.
        gates: per-provider admission, shared with the judges' executor.
        cache_size: vectors kept for identical texts; 0 turns the cache off.
    """

    def __init__(
        self,
        *,
        models: Sequence[EmbeddingModel],
        retry: RetrySettings | RetryPolicy | None = None,
        output_retries: int = 1,
        portal: LoopPortal | None = None,
        gates: ProviderGates | None = None,
        cache_size: int = DEFAULT_CACHE_SIZE,
    ) -> None:
        if cache_size < 0:
            raise ValueError("cache_size must be >= 0")
        super().__init__(
            retry=retry,
            output_retries=output_retries,
            portal=portal,
            gates=gates,
            portal_name="ragas-boot-embeddings",
        )
        self._models = list(models)
        self._cache: OrderedDict[tuple[str, str], list[float]] = OrderedDict()
        self._cache_size = cache_size

    def __repr__(self) -> str:
        return f"EmbeddingExecutor(models={self.model_ids!r})"

    @property
    def models(self) -> list[EmbeddingModel]:
        """All embedding models, in configuration order."""
        return list(self._models)

    @property
    def model_ids(self) -> list[str]:
        """All embedding model ids, in configuration order."""
        return [model.id for model in self._models]

    @property
    def cached_vectors(self) -> int:
        """How many vectors the cache holds."""
        return len(self._cache)

    async def embed(
        self,
        step: str,
        texts: Sequence[str],
        *,
        models: Sequence[EmbeddingModel] | None = None,
        index: int = 0,
    ) -> EmbeddingStep:
        """Embed ``texts`` with every model in ``models`` (all by default) at once.

        Returns:
            One outcome per model, in model order; a failed model is an outcome with its error,
            never an exception.
        """
        chosen = list(models) if models is not None else self.models
        return await self._portal.run(self._embed(step, list(texts), chosen, index))

    async def _embed(
        self, step: str, texts: list[str], models: list[EmbeddingModel], index: int
    ) -> EmbeddingStep:
        for model in models:
            model.prepare()
        started = time.perf_counter()
        runs = await asyncio.gather(*(self._one(model, texts, started) for model in models))
        prompt = "\n".join(texts)
        calls = [
            JudgeCall(
                judge_id=outcome.model_id,
                provider=outcome.provider,
                step=step,
                prompt=prompt,
                ok=outcome.ok,
                value={
                    "texts": len(texts),
                    "sent": outcome.sent,
                    "cached": outcome.cached,
                    "dimensions": len(outcome.vectors[0]) if outcome.vectors else 0,
                }
                if outcome.ok
                else None,
                error_kind=outcome.error_kind,
                error_message=outcome.error_message,
                attempts=outcome.attempts,
                latency_s=outcome.latency_s,
                wait_s=outcome.wait_s,
                started_s=began,
            )
            for outcome, began in runs
        ]
        record = StepRecord(
            name=step,
            index=index,
            kind="EMBEDDING",
            calls=calls,
            duration_s=time.perf_counter() - started,
        )
        return EmbeddingStep(outcomes=[outcome for outcome, _ in runs], record=record)

    async def _one(
        self, model: EmbeddingModel, texts: list[str], step_started: float
    ) -> tuple[EmbeddingOutcome, float]:
        began = time.perf_counter() - step_started
        found: dict[str, list[float]] = {}
        for text in texts:
            vector = self._cached(model.id, text)
            if vector is not None:
                found[text] = vector
        hits = sum(1 for text in texts if text in found)
        missing = list(dict.fromkeys(text for text in texts if text not in found))
        tally = CallTally()
        try:
            if missing:
                vectors = await self._with_output_retries(model, missing, tally)
                for text, vector in zip(missing, vectors, strict=True):
                    found[text] = vector
                    self._remember(model.id, text, vector)
            sizes = {len(vector) for vector in found.values()}
            if len(sizes) > 1:
                # Only possible across calls: the provider changed the model's size mid-run.
                raise JudgeOutputError(
                    f"vectors of different sizes {sorted(sizes)} for one batch",
                    judge_id=model.id,
                    raw_text=None,
                )
            outcome = EmbeddingOutcome(
                model_id=model.id,
                provider=model.provider,
                vectors=[found[text] for text in texts],
                sent=len(missing),
                cached=hits,
                attempts=tally.attempts,
                latency_s=tally.latency_s,
                wait_s=tally.wait_s,
            )
        except asyncio.CancelledError:
            raise
        except Exception as error:
            kind = _failure_kind(error)
            if kind == "internal_error":
                log.exception("embedding model %s failed with an unexpected error", model.id)
            else:
                log.warning("Embedding model %s failed: %s", model.id, error)
            outcome = EmbeddingOutcome(
                model_id=model.id,
                provider=model.provider,
                vectors=None,
                error_kind=kind,
                error_message=str(error) or type(error).__name__,
                sent=len(missing),
                attempts=tally.attempts,
                latency_s=tally.latency_s,
                wait_s=tally.wait_s,
            )
        return outcome, began

    async def _with_output_retries(
        self, model: EmbeddingModel, texts: list[str], tally: CallTally
    ) -> list[list[float]]:
        for output_attempt in range(self._output_retries + 1):
            try:
                answer = await call_with_retries(
                    lambda: model.aembed(texts),
                    judge_id=model.id,
                    gate=self._gates.gate(model.spec.limits),
                    policy=self._retry,
                    timeout_s=model.spec.limits.call_timeout.total_seconds() or None,
                    tally=tally,
                )
                return answer.vectors
            except JudgeOutputError:
                if output_attempt == self._output_retries:
                    raise
                log.info("embedding model %s gave invalid output; asking again", model.id)
        raise AssertionError("unreachable")  # pragma: no cover

    def _cached(self, model_id: str, text: str) -> list[float] | None:
        if not self._cache_size:
            return None
        vector = self._cache.get((model_id, text))
        if vector is not None:
            self._cache.move_to_end((model_id, text))
        return vector

    def _remember(self, model_id: str, text: str, vector: list[float]) -> None:
        if not self._cache_size:
            return
        self._cache[(model_id, text)] = vector
        self._cache.move_to_end((model_id, text))
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)

    def clear_cache(self) -> None:
        """Forget every cached vector."""
        self._cache.clear()

    async def _close_clients(self) -> None:
        await asyncio.gather(*(model.aclose() for model in self._models), return_exceptions=True)
