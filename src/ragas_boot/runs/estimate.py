"""A dry run: the judge calls a dataset run would make, their tokens and cost, with nothing sent.

>>> with create_container(settings) as container:                    # doctest: +SKIP
...     estimate = estimate_run(load_dataset("dataset.yaml"), [container.agent_goal_accuracy()])
...     estimate.totals.calls, estimate.totals.cost_max

Each metric runs its steps as in a real run, but the executor answers every call itself with
a minimal valid answer (the smallest instance of the output schema, with one item in each
list) instead of sending it, so
dependent steps (a verdict per extracted topic, strictness repeats, several judges) are
counted as the run would make them, as far as minimal answers lead. Prompt tokens are
estimated from the rendered prompts (the output-format block included) as characters / 4:
no tokenizer of these models is known offline. Output tokens are bounded by each judge's
``max-tokens``, so the cost is a range: ``cost_min`` (prompts only) to ``cost_max`` (every
answer as long as allowed). Metrics that need embedding models are not run (their calls go
to other endpoints) and are listed in ``not_estimated``.

``cached`` (a callable) says which calls a response cache would answer; they are counted in
``cached_calls`` and cost nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.chat.structured import output_schema
from ragas_boot.chat.wire.schemas import minimal_instance
from ragas_boot.datasets import Dataset
from ragas_boot.execution.repeats import bypass_cache
from ragas_boot.execution.spending import CHARS_PER_TOKEN, estimate_tokens
from ragas_boot.metrics.base import Need
from ragas_boot.runs._concurrency import run_blocking
from ragas_boot.runs.engine import (
    ConfigsArgument,
    MetricsArgument,
    _plans,
    _resolved,
    _samples,
)
from ragas_boot.runs.judges import JudgeInfo
from ragas_boot.samples import Sample

if TYPE_CHECKING:
    from ragas_boot.container import RagasContainer

__all__ = [
    "CHARS_PER_TOKEN",
    "TOKEN_METHOD",
    "CachedCall",
    "CallEstimate",
    "RunEstimate",
    "aestimate_run",
    "estimate_run",
]

#: How tokens are estimated, as reports say it.
TOKEN_METHOD = "characters / 4 (an approximation: no tokenizer of these models is known offline)"

#: Whether a response cache would answer this call: the judge, the prompt as it would be
#: sent (format block included) and the output model.
CachedCall = Callable[[JudgeModel, str, type[BaseModel]], bool]

_FROZEN = ConfigDict(frozen=True)


class CallEstimate(BaseModel):
    """The calls one judge would get for one metric (or, in totals, all of them)."""

    model_config = _FROZEN

    metric: str | None = Field(description="Bean name of the metric; None in totals.")
    judge_id: str | None = Field(description="The judge; None in totals.")
    calls: int = Field(description="Judge calls the run would make.")
    cached_calls: int = Field(default=0, description="Of those, calls a cache would answer.")
    input_tokens: int = Field(description="Estimated prompt tokens of the calls to send.")
    max_output_tokens: int = Field(description="Output tokens at most (max-tokens per call).")
    cost_min: float | None = Field(description="Cost of the prompts alone; None without price.")
    cost_max: float | None = Field(
        description="Cost with every answer as long as allowed; None without a price."
    )
    largest_prompt_tokens: int = Field(
        default=0, description="Estimated tokens of the largest prompt (format included)."
    )
    over_limit_calls: int = Field(
        default=0,
        description="Calls whose prompt is over the judge's max-prompt-tokens: a run would "
        "fail them unsent (their tokens and cost are still in the figures above).",
    )


class RunEstimate(BaseModel):
    """What a run would cost, before it is made (``ragas-boot evaluate --dry-run``)."""

    model_config = _FROZEN

    samples: int = Field(description="Samples in the dataset.")
    rows: list[CallEstimate] = Field(description="Per metric × judge, in run order.")
    totals: CallEstimate = Field(description="Over every metric and judge.")
    unpriced_judges: list[str] = Field(description="Judges without a price: tokens only.")
    judges: list[JudgeInfo] = Field(
        default_factory=list,
        description="The judges asked, with their transport, prices and where the prices came "
        "from (a judge on transport: batch is estimated at its batch price).",
    )
    not_estimated: list[str] = Field(
        description="Metrics not run dry (they need embedding models); their calls are not in "
        "the figures."
    )
    token_method: str = Field(default=TOKEN_METHOD, description="How tokens are estimated.")


@dataclass
class _Tally:
    calls: int = 0
    cached: int = 0
    input_tokens: int = 0
    max_output: int = 0
    cost_min: float | None = None
    cost_max: float | None = None
    largest: int = 0
    over_limit: int = 0

    def add(self, other: _Tally) -> None:
        self.largest = max(self.largest, other.largest)
        self.over_limit += other.over_limit
        self.calls += other.calls
        self.cached += other.cached
        self.input_tokens += other.input_tokens
        self.max_output += other.max_output
        for name in ("cost_min", "cost_max"):
            value = getattr(other, name)
            if value is not None:
                setattr(self, name, (getattr(self, name) or 0.0) + value)

    def row(self, metric: str | None, judge_id: str | None) -> CallEstimate:
        return CallEstimate(
            metric=metric,
            judge_id=judge_id,
            calls=self.calls,
            cached_calls=self.cached,
            input_tokens=self.input_tokens,
            max_output_tokens=self.max_output,
            cost_min=self.cost_min,
            cost_max=self.cost_max,
            largest_prompt_tokens=self.largest,
            over_limit_calls=self.over_limit,
        )


@dataclass
class _Recorder:
    cached: CachedCall | None
    current: dict[str, _Tally] = field(default_factory=dict)

    def __call__(
        self, judge: JudgeModel, prompt: str, text: str, output_model: type[BaseModel]
    ) -> BaseModel:
        # ``prompt`` is what the cache is keyed on; ``text`` what would be sent (the prompt
        # with its format block or schema), whose tokens are estimated.
        tally = self.current.setdefault(judge.id, _Tally())
        tally.calls += 1
        if judge.spec.call_price is not None and tally.cost_min is None:
            tally.cost_min = tally.cost_max = 0.0  # priced: a cached call costs nothing
        # A repeat after the first (--repeat N) skips the cache, so it is always sent.
        if (
            self.cached is not None
            and not bypass_cache()
            and self.cached(judge, prompt, output_model)
        ):
            tally.cached += 1
        else:
            tokens = estimate_tokens(text)
            tally.largest = max(tally.largest, tokens)
            tally.over_limit += tokens > judge.spec.max_prompt_tokens
            tally.input_tokens += tokens
            tally.max_output += judge.spec.max_tokens
            price = judge.spec.call_price
            if price is not None:
                low = price.cost(input_tokens=tokens, output_tokens=0)
                high = price.cost(input_tokens=tokens, output_tokens=judge.spec.max_tokens)
                tally.cost_min = (tally.cost_min or 0.0) + low
                tally.cost_max = (tally.cost_max or 0.0) + high
        return output_model.model_validate(
            minimal_instance(output_schema(output_model), min_items=1)
        )


async def aestimate_run(
    dataset: Dataset | Sequence[Sample],
    metrics: MetricsArgument,
    *,
    configs: ConfigsArgument | None = None,
    cached: CachedCall | None = None,
    container: RagasContainer | None = None,
) -> RunEstimate:
    """Run every metric on every sample dry (see the module docstring); nothing is sent.

    Args:
        dataset: the dataset, or samples.
        metrics: metric beans, or a mapping of name → bean (as :func:`evaluate_dataset`).
        configs: name → config overrides (as :func:`evaluate_dataset`).
        cached: says which calls a response cache would answer (counted, not priced).
        container: resolves metrics given by bean name (as :func:`evaluate_dataset`).

    Raises:
        JudgeNotFoundError: a config names an unknown judge.
        ValueError: as :func:`evaluate_dataset` for its arguments.
    """
    plans = _plans(metrics, configs, container)
    _, samples = _samples(dataset)
    recorder = _Recorder(cached)
    rows: list[CallEstimate] = []
    totals = _Tally()
    not_estimated: list[str] = []
    unpriced: dict[str, None] = {}
    judges: dict[str, JudgeInfo] = {}
    for plan in plans:
        if not plan.judges:
            continue
        if Need.EMBEDDINGS in plan.metric.needs:
            not_estimated.append(plan.name)
            continue
        recorder.current = {}
        with plan.metric.executor.dry(recorder):
            for sample in samples:
                try:
                    await plan.metric.aevaluate(sample, plan.config)
                except Exception:  # a sample the metric refuses makes no call
                    continue
        for judge in plan.judges:
            judges.setdefault(judge.id, JudgeInfo.of(judge))
            tally = recorder.current.get(judge.id, _Tally())
            if judge.spec.price is None:
                unpriced[judge.id] = None
            rows.append(tally.row(plan.name, judge.id))
            totals.add(tally)
    return RunEstimate(
        samples=len(samples),
        rows=rows,
        totals=totals.row(None, None),
        unpriced_judges=list(unpriced),
        judges=list(judges.values()),
        not_estimated=not_estimated,
    )


def estimate_run(
    dataset: Dataset | Sequence[Sample],
    metrics: MetricsArgument,
    *,
    configs: ConfigsArgument | None = None,
    cached: CachedCall | None = None,
    container: RagasContainer | None = None,
) -> RunEstimate:
    """Sync twin of :func:`aestimate_run`."""
    resolved, portal = _resolved(metrics, container)
    return run_blocking(
        aestimate_run(dataset, resolved, configs=configs, cached=cached),
        portal=portal,
        name="ragas-boot-estimate",
    )
