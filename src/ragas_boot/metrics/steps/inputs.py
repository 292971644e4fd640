"""Sample checks the retrieval and response metrics share."""

from __future__ import annotations

from ragas_boot.errors import SampleValidationError
from ragas_boot.samples import Sample

__all__ = ["contexts_of", "require_contexts", "require_text"]


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


def contexts_of(sample: Sample) -> list[str]:
    """The non-blank retrieved contexts, in order."""
    return [text for text in sample.retrieved_contexts or [] if text.strip()]
