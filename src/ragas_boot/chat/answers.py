"""What a judge answered: the raw text checked into a :class:`~ragas_boot.chat.judge.JudgeAnswer`,
and the tokens a response reports (an OpenAI body's ``usage`` block, a LangChain message's
``usage_metadata``), as every transport reads them."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel

from ragas_boot.chat.judge import JudgeAnswer, TokenUsage
from ragas_boot.chat.structured import parse_structured
from ragas_boot.errors import JudgeOutputError

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

__all__ = ["body_usage", "checked_answer", "cut_answer", "usage_of"]

OutputT = TypeVar("OutputT", bound=BaseModel)


def usage_of(message: BaseMessage) -> TokenUsage:
    """The token usage a LangChain chat class reports on a message (zeros when none)."""
    metadata = getattr(message, "usage_metadata", None)
    if not metadata:
        return TokenUsage()
    details = metadata.get("input_token_details") or {}
    return TokenUsage(
        input_tokens=int(metadata.get("input_tokens", 0) or 0),
        output_tokens=int(metadata.get("output_tokens", 0) or 0),
        total_tokens=int(metadata.get("total_tokens", 0) or 0),
        cached_input_tokens=int(details.get("cache_read", 0) or 0),
    )


def body_usage(body: object) -> TokenUsage | None:
    """The ``usage`` block of an OpenAI response body (an error body may carry one too), or
    ``None`` when it has none that reads as token counts."""
    usage = body.get("usage") if isinstance(body, dict) else None
    if not isinstance(usage, dict):
        return None

    def count(value: object) -> int:
        return value if isinstance(value, int) and value >= 0 else 0

    details = usage.get("prompt_tokens_details")
    prompt = count(usage.get("prompt_tokens"))
    completion = count(usage.get("completion_tokens"))
    return TokenUsage(
        input_tokens=prompt,
        output_tokens=completion,
        total_tokens=count(usage.get("total_tokens")) or prompt + completion,
        cached_input_tokens=count(details.get("cached_tokens")) if isinstance(details, dict) else 0,
    )


def cut_answer(text: str, limit: int, total: str) -> str:
    """``text`` cut to ``limit`` characters, marked as cut (and how much there was)."""
    return text[:limit] + f" … [cut by ragas-boot at max-answer-chars {limit:,}; {total} in all]"


def checked_answer(
    raw: str | None,
    output_model: type[OutputT],
    *,
    judge_id: str,
    max_chars: int,
    usage: TokenUsage,
    latency_s: float,
) -> JudgeAnswer[OutputT]:
    """A judge's raw answer checked (at most ``max_chars`` characters, valid for
    ``output_model``) into a :class:`JudgeAnswer`; ``usage`` is billed either way.

    Raises:
        JudgeOutputError: the answer is too long (its start kept, marked as cut), empty,
            not JSON or not valid; ``usage`` rides on the error.
    """
    try:
        if raw is not None and len(raw) > max_chars:
            raise JudgeOutputError(
                f"the answer has {len(raw):,} characters, more than max-answer-chars {max_chars:,}",
                judge_id=judge_id,
                raw_text=cut_answer(raw, max_chars, f"{len(raw):,} characters"),
            )
        value = parse_structured(raw, output_model, judge_id=judge_id)
    except JudgeOutputError as error:
        error.usage = usage  # an answer that is unusable was generated and billed all the same
        raise
    return JudgeAnswer(value=value, raw_text=raw or "", usage=usage, latency_s=latency_s)
