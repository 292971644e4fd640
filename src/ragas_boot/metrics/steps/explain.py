"""Explanation sentences the retrieval, response and NVIDIA metrics share (en/ru)."""

from __future__ import annotations

from collections.abc import Mapping

from ragas_boot.execution.results import Exclusion
from ragas_boot.metrics.prompting import localized

__all__ = ["mean_text", "outcome_text", "votes_pass"]

_TEXT = {
    "en": {
        "mean": "mean over {judges} judge(s): {score}",
        "excluded": "{count} judge(s) excluded",
        "lower": "lower is better",
    },
    "ru": {
        "mean": "среднее по судьям ({judges}): {score}",
        "excluded": "исключено судей: {count}",
        "lower": "чем ниже, тем лучше",
    },
}


def votes_pass(yes: int, total: int) -> bool:
    """Whether a yes/no explanation's headline says yes: at least half the judges said yes.

    The one tie rule of every yes/no metric's explanation (AgentGoalAccuracy, AspectCritic):
    a 1-of-2 split scores 0.5 and reads "achieved" / "met", as Java counted a score >= 0.5 as
    achieved. It words the explanation only; the score is the aggregation's.
    """
    return total > 0 and yes * 2 >= total


def mean_text(language: str, scores: Mapping[str, float]) -> str:
    """``mean over 3 judge(s): 0.67`` in ``language``."""
    mean = sum(scores.values()) / len(scores) if scores else 0.0
    return localized(_TEXT, language)["mean"].format(judges=len(scores), score=f"{mean:.2f}")


def outcome_text(
    language: str,
    parts: list[str],
    exclusions: list[Exclusion],
    *,
    lower_is_better: bool = False,
) -> str:
    """The sentences joined, with the excluded judges and the direction added."""
    text = localized(_TEXT, language)
    parts = [part for part in parts if part]
    if lower_is_better:
        parts.append(text["lower"])
    if exclusions:
        parts.append(text["excluded"].format(count=len({e.judge_id for e in exclusions})))
    return ". ".join(parts) + "."
