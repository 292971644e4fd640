"""Fan one step out to every selected judge at once; failures come back as data."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from pydantic import BaseModel

from ragas_boot.chat.judge import JudgeAnswer, JudgeModel, TokenUsage
from ragas_boot.chat.specs import LocalSpec
from ragas_boot.chat.structured import format_instructions, output_schema
from ragas_boot.config.settings import RetrySettings, StructuredOutputMode
from ragas_boot.errors import (
    JudgeError,
    JudgeHTTPError,
    JudgeNotFoundError,
    JudgeOutputError,
    PromptTooLargeError,
)
from ragas_boot.execution._runner import PortalRunner
from ragas_boot.execution.attempts import CallTally, call_with_retries
from ragas_boot.execution.bridge import LoopPortal
from ragas_boot.execution.cache import ResponseCache
from ragas_boot.execution.limits import ProviderGate, ProviderGates
from ragas_boot.execution.repeats import bypass_cache, current_repeat
from ragas_boot.execution.results import CacheOutcome, JudgeCall, StepRecord
from ragas_boot.execution.retry import RetryPolicy
from ragas_boot.execution.spending import CHARS_PER_TOKEN, SpendMeter, worst_case_cost

__all__ = ["DryAnswerer", "MultiModelExecutor", "OutputSource", "PromptSource"]

log = logging.getLogger(__name__)

OutputT = TypeVar("OutputT", bound=BaseModel)

#: A prompt for every judge, or a function making each judge's own prompt.
PromptSource = str | Callable[[JudgeModel], str]

#: Answers a call without sending it (a dry run): the judge, the step's prompt (what a
#: response cache is keyed on), the text as it would be sent (format block or schema
#: included) and the output model; returns the answer to feed the next step.
DryAnswerer = Callable[[JudgeModel, str, str, type[BaseModel]], BaseModel]

#: An output model for every judge, or a function giving each judge its own (e.g. a list
#: pinned to the length of that judge's own previous answer).
OutputSource = type[OutputT] | Callable[[JudgeModel], type[OutputT]]


def _failure_kind(error: BaseException) -> str:
    if isinstance(error, JudgeHTTPError):
        return error.kind_detail
    if isinstance(error, JudgeError):
        return error.kind
    return "internal_error"


def _beside(judge: JudgeModel, output_model: type[BaseModel]) -> str:
    # What travels with the prompt: the format block, or the schema in the native modes.
    if judge.spec.structured_output in (
        StructuredOutputMode.PROMPT,
        StructuredOutputMode.JSON_OBJECT,
    ):
        return format_instructions(output_model)
    return json.dumps(output_schema(output_model))


def _sent_text(judge: JudgeModel, prompt: str, output_model: type[BaseModel]) -> str:
    """The text a call sends, as far as tokens go: the prompt and the format block, or the
    schema that travels beside it in the native modes."""
    return prompt + _beside(judge, output_model)


def _prompt_tokens(judge: JudgeModel, prompt: str, output_model: type[BaseModel]) -> int:
    """:func:`~ragas_boot.execution.spending.estimate_tokens` of :func:`_sent_text` (without
    copying a large prompt)."""
    return math.ceil((len(prompt) + len(_beside(judge, output_model))) / CHARS_PER_TOKEN)


def _output_model(source: OutputSource[OutputT], judge: JudgeModel) -> type[BaseModel]:
    if isinstance(source, type):
        return source
    return source(judge)


@dataclass
class _Attempts(CallTally):
    """Mutable tally of one judge call (kept apart from the frozen JudgeCall it becomes)."""

    raw: list[str] = field(default_factory=list)
    usage: TokenUsage = field(default_factory=TokenUsage)
    billed: TokenUsage = field(default_factory=TokenUsage)
    cost: float | None = None


class MultiModelExecutor(PortalRunner):
    """Sends each step to several judges concurrently and returns every outcome in judge order.

    Per judge call: wait for the provider's rate-limit token and concurrency slot, make the
    HTTP attempt under the per-call timeout, retry per ``spring.ai.retry`` (tenacity), and
    re-ask up to ``output_retries`` times when the answer is not valid JSON for the schema.
    A judge that still fails becomes a failed :class:`JudgeCall`; nothing is raised. All
    I/O runs on the portal's loop, whichever loop or thread the caller is on.

    Args:
        judges: the judges, in the order results are reported.
        retry: the ``spring.ai.retry`` settings (or a ready policy).
        output_retries: re-asks after an invalid answer, counted apart from transport retries.
        portal: the loop that owns the I/O; a private one is made (and closed by
            :meth:`aclose`) when not given.
        gates: per-provider admission shared with other executors (embedding calls); a
            private set is made when not given.
        cache: the response cache: a covered judge's call is looked up before it is sent,
            and its valid answer stored; ``None`` = no cache.
    """

    def __init__(
        self,
        *,
        judges: Sequence[JudgeModel],
        retry: RetrySettings | RetryPolicy | None = None,
        output_retries: int = 1,
        portal: LoopPortal | None = None,
        gates: ProviderGates | None = None,
        cache: ResponseCache | None = None,
    ) -> None:
        super().__init__(
            retry=retry,
            output_retries=output_retries,
            portal=portal,
            gates=gates,
            portal_name="ragas-boot-executor",
        )
        self._judges = list(judges)
        self._cache = cache
        self._by_id = {judge.id: judge for judge in self._judges}
        self._by_model: dict[str, list[JudgeModel]] = {}
        for judge in self._judges:
            self._by_model.setdefault(judge.spec.model, []).append(judge)
        self._meter: SpendMeter | None = None
        self._dry: DryAnswerer | None = None

    @contextlib.contextmanager
    def dry(self, answerer: DryAnswerer) -> Iterator[None]:
        """Inside the block no call is sent: ``answerer`` answers each one (a dry run counts
        the calls and prompts a run would make). Do not run real evaluations meanwhile."""
        previous, self._dry = self._dry, answerer
        try:
            yield
        finally:
            self._dry = previous

    @contextlib.contextmanager
    def metered(self, meter: SpendMeter) -> Iterator[SpendMeter]:
        """Bill every call made inside the block to ``meter`` and obey its cap (a dataset
        run's ``max-cost``); the executor's previous meter comes back afterwards."""
        previous, self._meter = self._meter, meter
        try:
            yield meter
        finally:
            self._meter = previous

    def __repr__(self) -> str:
        return f"MultiModelExecutor(judges={self.judge_ids!r})"

    @property
    def judges(self) -> list[JudgeModel]:
        """All judges, in configuration order."""
        return list(self._judges)

    @property
    def cache(self) -> ResponseCache | None:
        """The response cache, if any."""
        return self._cache

    def would_answer_from_cache(
        self, judge: JudgeModel, prompt: str, output_model: type[BaseModel]
    ) -> bool:
        """Whether this call would be answered by the response cache (nothing is sent).

        For estimates before a run (a dry run): the same key and validation as a real call.
        """
        return self._cache is not None and self._cache.would_answer(judge, prompt, output_model)

    @property
    def judge_ids(self) -> list[str]:
        """All judge ids, in configuration order."""
        return [judge.id for judge in self._judges]

    def select(self, models: Sequence[str] | None = None) -> list[JudgeModel]:
        """The judges named by ``models`` (ids, aliases or unambiguous model ids); all if empty.

        Raises:
            JudgeNotFoundError: a name matches no judge (checked before any call is made).
        """
        if not models:
            return self.judges
        chosen: list[JudgeModel] = []
        for name in models:
            judge = self._by_id.get(name)
            if judge is None:
                candidates = self._by_model.get(name, [])
                if len(candidates) != 1:
                    raise JudgeNotFoundError(name, self.judge_ids)
                judge = candidates[0]
            if judge not in chosen:
                chosen.append(judge)
        return chosen

    def _gate(self, judge: JudgeModel) -> ProviderGate:
        # A judge that sends batches has a gate of its own (JudgeSpec.call_limits).
        return self._gates.gate(judge.spec.call_limits)

    async def run_step(
        self,
        step: str,
        judges: Sequence[JudgeModel],
        prompt: PromptSource,
        output_model: OutputSource[OutputT],
        *,
        index: int = 0,
    ) -> StepRecord:
        """Ask every judge in ``judges`` at once; return their outcomes in that order.

        Args:
            step: step name (``CompareOutcome``), recorded with each outcome.
            judges: who to ask; usually :meth:`select`'s result or a previous step's survivors.
            prompt: the prompt, or a function giving each judge its own prompt.
            output_model: the pydantic model each answer must validate as, or a function
                giving each judge its own.
            index: the step's position among the metric's steps.

        Returns:
            A :class:`StepRecord` with one :class:`JudgeCall` per judge, successes and failures
            side by side. It never raises for a judge's failure.
        """
        prompts = [prompt(judge) if callable(prompt) else prompt for judge in judges]
        models: list[type[BaseModel]] = [_output_model(output_model, judge) for judge in judges]
        return await self._portal.run(self._run_step(step, list(judges), prompts, models, index))

    async def _run_step(
        self,
        step: str,
        judges: list[JudgeModel],
        prompts: list[str],
        models: list[type[BaseModel]],
        index: int,
    ) -> StepRecord:
        # Cache lookups first: a judge answered from the cache is never prepared, so a rerun
        # that hits everywhere makes no HTTP client and imports no transport.
        looked_up = [
            self._look_up(judge, text, model)
            for judge, text, model in zip(judges, prompts, models, strict=True)
        ]
        for judge, (_, hit) in zip(judges, looked_up, strict=True):
            if hit is None and self._dry is None:  # a dry run starts no client, no local model
                judge.prepare()
        started = time.perf_counter()
        calls = await asyncio.gather(
            *(
                self._call(judge, step, text, model, started, found)
                for judge, text, model, found in zip(
                    judges, prompts, models, looked_up, strict=True
                )
            )
        )
        return StepRecord(
            name=step,
            index=index,
            calls=list(calls),
            duration_s=time.perf_counter() - started,
            repeat=current_repeat(),
        )

    def _look_up(
        self, judge: JudgeModel, prompt: str, output_model: type[BaseModel]
    ) -> tuple[CacheOutcome, tuple[JudgeAnswer[BaseModel], TokenUsage] | None]:
        cache = self._cache
        # A repeat after the first (--repeat N) must ask the judge again: that is its point.
        # A dry run asks its answerer about every call (its ``cached`` hook counts hits).
        if cache is None or self._dry is not None or bypass_cache() or not cache.applies_to(judge):
            return "off", None
        hit = cache.answer(judge, prompt, output_model)
        return ("hit" if hit is not None else "miss"), hit

    async def _call(
        self,
        judge: JudgeModel,
        step: str,
        prompt: str,
        output_model: type[BaseModel],
        step_started: float,
        looked_up: tuple[CacheOutcome, tuple[JudgeAnswer[BaseModel], TokenUsage] | None],
    ) -> JudgeCall:
        tally = _Attempts()
        started_s = time.perf_counter() - step_started
        common = {"judge_id": judge.id, "provider": judge.provider, "step": step, "prompt": prompt}
        outcome, found = looked_up
        if found is not None:
            hit, saved = found
            return JudgeCall(
                **common,
                ok=True,
                value=hit.value,
                raw_text=hit.raw_text,
                raw_attempts=[hit.raw_text],
                started_s=started_s,
                cache="hit",
                saved_usage=saved,
                saved_cost=None
                if judge.spec.call_price is None
                else saved.cost(judge.spec.call_price),
            )
        try:
            # Counted once: the size check, the spend reservation and a hedged copy's bill.
            tokens = _prompt_tokens(judge, prompt, output_model)
            self._check_size(judge, tokens)
            answer = None
            for output_attempt in range(self._output_retries + 1):
                try:
                    answer = await self._with_retries(judge, prompt, output_model, tally, tokens)
                    break
                except JudgeOutputError as error:
                    if error.raw_text is not None:
                        tally.raw.append(error.raw_text)
                    if output_attempt == self._output_retries:
                        raise
                    log.info("judge %s gave invalid output at %s; asking again", judge.id, step)
            assert answer is not None
            tally.raw.append(answer.raw_text)
            tally.usage = tally.usage + answer.usage
            if outcome == "miss" and self._cache is not None:
                self._cache.store(judge, prompt, output_model, answer)
            return JudgeCall(
                **common,
                ok=True,
                value=answer.value,
                raw_text=answer.raw_text,
                raw_attempts=tally.raw,
                attempts=tally.attempts,
                latency_s=tally.latency_s,
                wait_s=tally.wait_s,
                started_s=started_s,
                usage=tally.usage,
                billed_usage=tally.billed,
                cost=tally.cost,
                cache=outcome,
            )
        except asyncio.CancelledError:
            raise
        except Exception as error:
            kind = _failure_kind(error)
            if kind == "internal_error":
                log.exception("judge %s failed at %s with an unexpected error", judge.id, step)
            else:
                log.warning("Model %s failed at %s: %s", judge.id, step, error)
            return JudgeCall(
                **common,
                ok=False,
                raw_text=tally.raw[-1] if tally.raw else None,
                raw_attempts=tally.raw,
                error_kind=kind,
                error_message=str(error) or type(error).__name__,
                attempts=tally.attempts,
                latency_s=tally.latency_s,
                wait_s=tally.wait_s,
                started_s=started_s,
                usage=tally.usage,
                billed_usage=tally.billed,
                cost=tally.cost,
                cache=outcome,
            )

    def _check_size(self, judge: JudgeModel, tokens: int) -> None:
        # Before any slot, reservation or request: a prompt past the judge's bound (an
        # amplified or oversized sample) costs nothing and names the limit. A dry run counts
        # every prompt instead (its estimate shows the largest).
        if self._dry is not None:
            return
        if tokens > judge.spec.max_prompt_tokens:
            raise PromptTooLargeError(
                judge_id=judge.id,
                estimated_tokens=tokens,
                max_prompt_tokens=judge.spec.max_prompt_tokens,
            )

    async def _with_retries(
        self,
        judge: JudgeModel,
        prompt: str,
        output_model: type[OutputT],
        tally: _Attempts,
        tokens: int,
    ) -> JudgeAnswer[OutputT]:
        """One answer under the retry policy; ``tokens``: the prompt's estimate
        (:func:`_prompt_tokens`)."""
        if self._dry is not None:
            value = self._dry(judge, prompt, _sent_text(judge, prompt, output_model), output_model)
            return JudgeAnswer(value=value, raw_text="", usage=TokenUsage(), latency_s=0.0)  # type: ignore[arg-type]
        meter = self._meter
        spec = judge.spec
        price = spec.price
        worst = 0.0
        if meter is not None and meter.max_cost is not None:
            if spec.call_price is not None:
                worst = worst_case_cost(tokens, spec.max_tokens, spec.call_price)
            elif not isinstance(spec, LocalSpec):  # the embedded local model costs nothing
                meter.uncounted(judge.id)

        def bill(usage: object, batched: bool = False) -> None:
            # Every response that reports usage is billed, whatever became of it; what a
            # provider's batch answered, at the judge's batch price.
            if not isinstance(usage, TokenUsage):
                return
            tally.billed = tally.billed + usage
            charged = spec.batch_price if batched and spec.batch_price is not None else price
            if charged is not None:
                cost = usage.cost(charged)
                tally.cost = (tally.cost or 0.0) + cost
                if meter is not None:
                    meter.add(cost)

        async def attempt() -> JudgeAnswer[OutputT]:
            # The worst case is held before sending and let go once the real cost is counted:
            # calls in flight cannot carry the run past its cap by more than one of them.
            reserved = meter.reserve(judge.id, worst) if meter is not None else 0.0
            try:
                try:
                    answer = await judge.ainvoke_structured(prompt, output_model)
                except JudgeError as error:
                    bill(error.usage, error.batched)
                    raise
                bill(answer.usage, answer.batched)
                return answer
            finally:
                if meter is not None:
                    meter.release(reserved)

        def abandoned() -> None:
            # A hedged copy cancelled in flight reports no usage, but its provider had the
            # prompt (and bills it): count its estimated prompt tokens.
            bill(TokenUsage(input_tokens=tokens, total_tokens=tokens))

        return await call_with_retries(
            attempt,
            judge_id=judge.id,
            gate=self._gate(judge),
            policy=self._retry,
            timeout_s=spec.call_limits.call_timeout.total_seconds() or None,
            tally=tally,
            abandoned=abandoned if spec.call_limits.hedge else None,
        )

    async def _close_clients(self) -> None:
        await asyncio.gather(*(judge.aclose() for judge in self._judges), return_exceptions=True)
        if self._cache is not None:
            self._cache.close()
