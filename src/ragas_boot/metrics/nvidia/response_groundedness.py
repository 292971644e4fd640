"""ResponseGroundedness: a 0/1/2 rating of how well the contexts support the response."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import ClassVar

from pydantic import Field

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.metrics.base import Metric, MetricConfig, ScoringOutcome
from ragas_boot.metrics.prompting import localized, render_prompt
from ragas_boot.metrics.steps import (
    Chain,
    contexts_of,
    mean_text,
    outcome_text,
    rate,
)
from ragas_boot.samples import Sample

__all__ = ["ResponseGroundednessConfig", "ResponseGroundednessMetric", "verbatim_in_contexts"]


class ResponseGroundednessConfig(MetricConfig):
    """Config of :class:`ResponseGroundednessMetric`."""

    use_heuristic_shortcuts: bool = Field(
        default=True,
        description="Score 1.0 without asking judges when a context contains the response "
        "verbatim (whole words, case and blanks ignored).",
    )


def verbatim_in_contexts(response: str, contexts: Sequence[str]) -> bool:
    """Whether some context contains the whole response as whole words (case/blanks ignored).

    The Java library used a plain substring test, so "not" matched inside "cannot".
    """
    words = response.casefold().split()
    if not words:
        return False
    pattern = re.compile(r"(?<!\w)" + r"\s+".join(re.escape(w) for w in words) + r"(?!\w)")
    return any(pattern.search(context.casefold()) for context in contexts)


_TEXT = {
    "en": {
        "heuristic": "a context contains the response verbatim: grounded without asking judges",
        "ratings": "ratings {ratings} (0 not, 1 partly, 2 fully grounded)",
        "no_contexts": "response groundedness is undefined: the sample has no retrieved contexts",
    },
    "ru": {
        "heuristic": "контекст дословно содержит ответ: обоснован без обращения к судьям",
        "ratings": "оценки {ratings} (0 не обоснован, 1 частично, 2 полностью)",
        "no_contexts": "response groundedness не определена: в образце нет найденных контекстов",
    },
}


class ResponseGroundednessMetric(Metric[ResponseGroundednessConfig]):
    """How well the retrieved contexts support the response: a 0/1/2 rating per judge (/2).

    With ``use_heuristic_shortcuts`` (default) a response found verbatim (whole words) in a
    context scores 1.0 with no judge call. Otherwise each judge rates the response against
    all contexts joined (``EvaluateGroundedness``). An empty response is a
    SampleValidationError and no contexts an undefined score (Java: 0.0 or null depending on
    the heuristics flag).
    """

    bean_name: ClassVar[str] = "response_groundedness"
    name: ClassVar[str] = "ResponseGroundednessMetric"
    description: ClassVar[str] = "How well the contexts support the response (0/1/2 rating)"
    config_type: ClassVar[type[MetricConfig]] = ResponseGroundednessConfig
    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {"*": ("response", "retrieved_contexts")}
    why: ClassVar[str] = "ResponseGroundedness rates the response against the contexts"

    def total_steps(self, config: ResponseGroundednessConfig) -> int:
        """One rating step (none when the heuristic decides)."""
        return 1

    async def _score(
        self, sample: Sample, config: ResponseGroundednessConfig, judges: Sequence[JudgeModel]
    ) -> ScoringOutcome:
        language = self._language(config)
        text = localized(_TEXT, language)
        chain = Chain(self.executor, judges)
        contexts = contexts_of(sample)
        response = sample.response or ""
        if not contexts:
            return chain.undefined(text["no_contexts"], language)
        if config.use_heuristic_shortcuts and verbatim_in_contexts(response, contexts):
            outcome = chain.outcome(
                model_scores={},
                metadata={"heuristic_match": True},
                explanation=outcome_text(language, [text["heuristic"]], []),
            )
            outcome.score = 1.0
            outcome.aggregated = False
            return outcome
        ratings = await rate(
            chain,
            "EvaluateGroundedness",
            judges,
            render_prompt(
                self._template(config, "rate_response_groundedness"),
                {"response": response, "context": "\n\n".join(contexts)},
            ),
        )
        chain.ensure_alive(self)
        model_scores = chain.scored({j: r.score for j, r in ratings.items()})
        parts = [
            mean_text(language, model_scores),
            text["ratings"].format(ratings=", ".join(str(ratings[j].raw) for j in model_scores)),
        ]
        return chain.outcome(
            model_scores=model_scores,
            metadata={
                "heuristic_match": False,
                "judges": {j: ratings[j].as_dict() for j in model_scores},
                "reasons": {j: ratings[j].reason for j in model_scores},
            },
            explanation=outcome_text(language, parts, chain.exclusions),
        )
