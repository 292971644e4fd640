"""Sample checks the retrieval and response metrics share."""

from __future__ import annotations

from collections.abc import Sequence

from ragas_boot.errors import SampleValidationError
from ragas_boot.samples import Sample

__all__ = [
    "contexts_of",
    "has_field",
    "require_contexts",
    "require_field",
    "require_fields",
    "require_text",
]


def require_text(sample: Sample, field: str, metric: str, mode: str | None, why: str) -> str:
    """The text field ``field``, or SampleValidationError when it is missing or blank."""
    value = getattr(sample, field)
    if value is None or not str(value).strip():
        raise SampleValidationError(
            f"is {'missing' if value is None else 'empty'}; {why}",
            field=field,
            metric=metric,
            mode=mode,
        )
    return str(value)


def require_contexts(sample: Sample, metric: str, mode: str | None, why: str) -> None:
    """SampleValidationError when ``retrieved_contexts`` is missing (an empty list is allowed:
    the metric reports its score as undefined)."""
    if sample.retrieved_contexts is None:
        raise SampleValidationError(
            f"is missing; {why}", field="retrieved_contexts", metric=metric, mode=mode
        )


def require_field(sample: Sample, field: str, metric: str, mode: str | None, why: str) -> None:
    """SampleValidationError unless ``sample`` has ``field`` as a metric's ``reads`` means it:
    text present and not blank, ``retrieved_contexts`` present (may be empty), anything else
    present and not empty; ``a|b`` is met by either."""
    if "|" in field:
        if not has_field(sample, field):
            raise SampleValidationError(f"is missing; {why}", field=field, metric=metric, mode=mode)
        return
    if field == "retrieved_contexts":
        require_contexts(sample, metric, mode, why)
        return
    value = getattr(sample, field)
    if isinstance(value, str) or value is None:
        require_text(sample, field, metric, mode, why)
    elif not value:
        raise SampleValidationError(f"is empty; {why}", field=field, metric=metric, mode=mode)


def require_fields(
    sample: Sample, fields: Sequence[str], metric: str, mode: str | None, why: str
) -> None:
    """:func:`require_field` for each of ``fields``; one SampleValidationError naming every
    field that fails (a single failing field keeps its own message)."""
    failures: list[SampleValidationError] = []
    for field in fields:
        try:
            require_field(sample, field, metric, mode, why)
        except SampleValidationError as error:
            failures.append(error)
    if len(failures) == 1:
        raise failures[0]
    if failures:
        raise SampleValidationError(
            f"are missing or empty; {why}",
            field=", ".join(str(error.field) for error in failures),
            metric=metric,
            mode=mode,
        )


def has_field(sample: Sample, field: str) -> bool:
    """Whether ``sample`` has ``field`` not blank (text) or not empty (anything else); ``a|b``:
    either. The one presence test of :meth:`Metric.can_read` and :func:`require_field`."""
    for name in field.split("|"):
        value = getattr(sample, name, None)
        present = value.strip() if isinstance(value, str) else value
        if present:
            return True
    return False


def contexts_of(sample: Sample) -> list[str]:
    """The non-blank retrieved contexts, in order."""
    return [text for text in sample.retrieved_contexts or [] if text.strip()]
