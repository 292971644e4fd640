"""Which repeat of an evaluation is running, so layers below the metric can tell repeats apart.

A metric config with ``repeat: N`` (or ``ragas-boot evaluate --repeat N``) scores a sample N
times. Repeat 0 is an ordinary evaluation; repeats 1..N-1 exist to measure how much the judges'
verdicts vary, so a response cache must not answer them from an earlier call: a cache honours
:func:`bypass_cache`. The index travels in a context variable (set by the metric around each
repeat), so no step signature changes and every judge call made inside the repeat sees it;
each :class:`~ragas_boot.execution.results.StepRecord` records it as ``repeat``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["bypass_cache", "current_repeat", "repeat_scope"]

_REPEAT: ContextVar[int] = ContextVar("ragas_boot_repeat", default=0)


def current_repeat() -> int:
    """The 0-based index of the repeat running in this context (0 outside any repeat)."""
    return _REPEAT.get()


def bypass_cache() -> bool:
    """Whether judge calls made now must skip a response cache (every repeat after the first)."""
    return _REPEAT.get() > 0


@contextmanager
def repeat_scope(index: int) -> Iterator[None]:
    """Run the body as repeat ``index`` (0-based)."""
    if index < 0:
        raise ValueError(f"a repeat index is at least 0, got {index}")
    token = _REPEAT.set(index)
    try:
        yield
    finally:
        _REPEAT.reset(token)
