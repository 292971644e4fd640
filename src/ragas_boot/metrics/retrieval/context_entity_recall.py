"""ContextEntityRecall: the share of the reference's entities that the contexts mention."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.metrics.base import Metric, MetricConfig, ScoringOutcome
from ragas_boot.metrics.prompting import localized, render_prompt
from ragas_boot.metrics.steps import (
    Chain,
    Entities,
    contexts_of,
    decompose,
    item_key,
    mean_text,
    outcome_text,
)
from ragas_boot.samples import Sample

__all__ = ["ContextEntityRecallConfig", "ContextEntityRecallMetric"]


class ContextEntityRecallConfig(MetricConfig):
    """Config of :class:`ContextEntityRecallMetric` (the shared settings only)."""


_TEXT = {
    "en": {
        "detail": "{found} of {total} reference entities found in the contexts",
        "no_contexts": "context entity recall is undefined: the sample has no retrieved contexts",
        "no_entities": "context entity recall is undefined: no judge found an entity in the "
        "reference",
    },
    "ru": {
        "detail": "в контекстах найдено {found} из {total} сущностей эталона",
        "no_contexts": "context entity recall не определена: в образце нет найденных контекстов",
        "no_entities": "context entity recall не определена: ни один судья не нашёл сущностей "
        "в эталоне",
    },
}


class ContextEntityRecallMetric(Metric[ContextEntityRecallConfig]):
    """Share of the reference's named entities that the retrieved contexts also mention.

    Each judge extracts the entities of the reference and of the contexts, two calls sent at
    once (one dependent step); entities match ignoring case and blanks. Score per judge =
    |reference ∩ contexts| / |reference|. A reference without entities, or no contexts,
    leaves the score undefined (the Java library returned 0.0).
    """

    bean_name: ClassVar[str] = "context_entity_recall"
    name: ClassVar[str] = "ContextEntityRecallMetric"
    description: ClassVar[str] = "Share of the reference's entities the contexts mention"
    config_type: ClassVar[type[MetricConfig]] = ContextEntityRecallConfig
    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {"*": ("reference", "retrieved_contexts")}
    why: ClassVar[str] = "ContextEntityRecall looks for the reference's entities in the contexts"

    def total_steps(self, config: ContextEntityRecallConfig) -> int:
        """Reference and context entities (sent at once)."""
        return 2

    async def _score(
        self, sample: Sample, config: ContextEntityRecallConfig, judges: Sequence[JudgeModel]
    ) -> ScoringOutcome:
        language = self._language(config)
        text = localized(_TEXT, language)
        chain = Chain(self.executor, judges)
        contexts = contexts_of(sample)
        if not contexts:
            return chain.undefined(text["no_contexts"], language)
        template = self._template(config, "extract_entities")
        reference_entities, context_entities = await chain.level(
            decompose(
                chain,
                "ExtractReferenceEntities",
                judges,
                render_prompt(template, {"text": sample.reference}),
                Entities,
            ),
            decompose(
                chain,
                "ExtractContextEntities",
                judges,
                render_prompt(template, {"text": "\n\n".join(contexts)}),
                Entities,
            ),
        )
        chain.ensure_alive(self)
        per_judge: dict[str, dict[str, Any]] = {}
        scores: dict[str, float | None] = {}
        for judge in chain.alive():
            wanted = reference_entities[judge.id]
            present = {item_key(entity) for entity in context_entities[judge.id]}
            found = [entity for entity in wanted if item_key(entity) in present]
            scores[judge.id] = len(found) / len(wanted) if wanted else None
            per_judge[judge.id] = {
                "reference_entities": wanted,
                "context_entities": context_entities[judge.id],
                "found": found,
                "missing": [entity for entity in wanted if entity not in found],
            }
        model_scores = chain.scored(scores)
        undefined = None if model_scores else text["no_entities"]
        parts = [undefined or mean_text(language, model_scores)]
        if model_scores:
            parts.append(
                text["detail"].format(
                    found=sum(len(d["found"]) for d in per_judge.values()),
                    total=sum(len(d["reference_entities"]) for d in per_judge.values()),
                )
            )
        return chain.outcome(
            model_scores=model_scores,
            metadata={
                "judges": per_judge,
                "reasons": {
                    judge_id: "missing: " + ", ".join(d["missing"]) if d["missing"] else "all found"
                    for judge_id, d in per_judge.items()
                },
            },
            explanation=outcome_text(language, parts, chain.exclusions),
            undefined_reason=undefined,
        )
