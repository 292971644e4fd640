"""``repeat: N``: one evaluation run N times, one after another, and combined.

One job: the loop around a bean's evaluation when its config asks for repeats. Each repeat
runs inside :func:`~ragas_boot.execution.repeats.repeat_scope`, so its judge calls bypass a
response cache from the second repeat on and its steps record the repeat. A repeat that
raises (no judge answered, no consensus) counts as failed; only when every repeat raises does
the error reach the caller. The results are combined by
:func:`~ragas_boot.metrics.results.combine_repeats`; listeners hear of each repeat and then
of the repeats together. The cost it keeps: N repeats cost N evaluations, run one after
another.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from ragas_boot.errors import AllJudgesFailedError
from ragas_boot.execution.listeners import ListenerRegistry
from ragas_boot.execution.repeats import repeat_scope
from ragas_boot.metrics.configuration import MetricConfig
from ragas_boot.metrics.events import notify_failed, notify_finished
from ragas_boot.metrics.outcome import exclusions_of, steps_of
from ragas_boot.metrics.results import MetricResult, combine_repeats
from ragas_boot.samples import Sample

__all__ = ["evaluate_repeats"]

ConfigT = TypeVar("ConfigT", bound=MetricConfig)


async def evaluate_repeats(
    evaluate: Callable[[Sample, ConfigT], Awaitable[MetricResult]],
    sample: Sample,
    config: ConfigT,
    *,
    listeners: ListenerRegistry,
    metric: str,
    bean_name: str,
    min_judges: int | None,
    judge_ids: Callable[[], list[str]],
) -> MetricResult:
    """``config.repeat`` evaluations of ``sample`` by ``evaluate``, combined.

    Args:
        evaluate: one evaluation (it tells listeners of each repeat itself).
        listeners: told of the repeats together once they are done.
        metric: the metric's label in events.
        bean_name: its name in a run, in events.
        min_judges: the quorum asked for, in events.
        judge_ids: the judges asked, for the event of repeats that all failed.

    Raises:
        AllJudgesFailedError: (or ArithmeticError) the first repeat's, when every repeat
            raised.
    """
    started = time.perf_counter()
    results: list[MetricResult | None] = []
    errors: list[Exception] = []
    for index in range(config.repeat):
        with repeat_scope(index):
            try:
                results.append(await evaluate(sample, config))
            except (AllJudgesFailedError, ArithmeticError) as error:
                errors.append(error)
                results.append(None)
    if all(result is None for result in results):
        if listeners:  # the repeats together: the first error, every repeat's steps
            notify_failed(
                listeners,
                metric=metric,
                bean_name=bean_name,
                sample=sample,
                config=config,
                judge_ids=judge_ids(),
                error=errors[0],
                steps=[step for error in errors for step in steps_of(error)],
                exclusions=[item for error in errors for item in exclusions_of(error)],
                duration_s=time.perf_counter() - started,
                min_judges=min_judges,
            )
        raise errors[0]
    combined = combine_repeats(results, config.threshold)
    if listeners:
        notify_finished(
            listeners,
            metric=metric,
            bean_name=bean_name,
            sample=sample,
            config=config,
            result=combined,
            repeat=None,
            min_judges=min_judges,
        )
    return combined
