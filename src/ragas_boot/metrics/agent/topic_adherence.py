"""TopicAdherence: does the conversation stay within the reference topics? (LLM judges)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, Field, create_model

from ragas_boot._enums import CaseInsensitiveEnum
from ragas_boot.chat.judge import JudgeModel
from ragas_boot.errors import SampleValidationError
from ragas_boot.execution.results import Exclusion
from ragas_boot.metrics.base import Metric, MetricConfig, ScoringOutcome
from ragas_boot.metrics.prompting import (
    bullet_list,
    localized,
    render_conversation,
    render_prompt,
)
from ragas_boot.samples import Sample

__all__ = [
    "ExtractedTopics",
    "TopicAdherenceConfig",
    "TopicAdherenceMetric",
    "TopicAdherenceMode",
    "TopicVerdict",
    "classification_model",
]


class TopicAdherenceMode(CaseInsensitiveEnum):
    """Which of precision, recall or their F1 is the score."""

    F1 = "F1"
    PRECISION = "PRECISION"
    RECALL = "RECALL"


class TopicAdherenceConfig(MetricConfig):
    """Config of :class:`TopicAdherenceMetric`."""

    mode: TopicAdherenceMode = Field(
        default=TopicAdherenceMode.F1, description="F1 (default), PRECISION or RECALL."
    )


class ExtractedTopics(BaseModel):
    """The topics a judge found in the conversation."""

    topics: list[str] = Field(description="Distinct topics discussed, each 2 to 5 words.")


class TopicVerdict(BaseModel):
    """A judge's verdict on one extracted topic."""

    topic: str = Field(description="The extracted topic, copied exactly.")
    on_topic: bool = Field(description="Whether it falls under an allowed topic.")
    matched_reference_topic: str | None = Field(
        description="The allowed topic it falls under, copied exactly; null when off-topic."
    )
    reason: str = Field(description="One short sentence.")


@lru_cache(maxsize=512)
def classification_model(topics: tuple[str, ...], reference: tuple[str, ...]) -> type[BaseModel]:
    """The output model of one judge's ClassifyTopics call.

    Its JSON schema lists one verdict per extracted topic, in order, each with the topic as a
    constant and the matched topic as one of the reference topics or null (``prefixItems``), so
    a judge with constrained decoding (json_schema) answers every topic exactly once and any
    other judge is shown exactly what to write. Validation stays lenient (any strings, the
    length pinned); verdicts are then aligned to topics case- and blank-insensitively.
    """
    allowed: list[str | None] = [*reference, None]
    verdict_fields = TopicVerdict.model_fields

    def one_per_topic(schema: dict[str, Any]) -> None:
        schema.pop("items", None)
        schema["prefixItems"] = [
            {
                "type": "object",
                "properties": {
                    "topic": {"const": topic, "description": verdict_fields["topic"].description},
                    "on_topic": {
                        "type": "boolean",
                        "description": verdict_fields["on_topic"].description,
                    },
                    "matched_reference_topic": {
                        "enum": allowed,
                        "description": verdict_fields["matched_reference_topic"].description,
                    },
                    "reason": {
                        "type": "string",
                        "description": verdict_fields["reason"].description,
                    },
                },
                "required": ["topic", "on_topic", "matched_reference_topic", "reason"],
                "additionalProperties": False,
            }
            for topic in topics
        ]

    count = len(topics)
    return create_model(
        f"TopicClassifications{count}",
        __doc__="One verdict per extracted topic, in order.",
        classifications=(
            Annotated[list[TopicVerdict], Field(min_length=count, max_length=count)],
            Field(
                description=f"Exactly {count} verdicts, one per extracted topic, in order.",
                json_schema_extra=one_per_topic,
            ),
        ),
    )


def _key(text: str) -> str:
    return " ".join(text.split()).casefold()


def _unique(items: Sequence[str]) -> list[str]:
    seen: dict[str, str] = {}
    for item in items:
        cleaned = " ".join(item.split())
        if cleaned and _key(cleaned) not in seen:
            seen[_key(cleaned)] = cleaned
    return list(seen.values())


def _f1(precision: float, recall: float) -> float:
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


_TEXT = {
    "en": {
        "summary": "mean over {judges} judge(s): {mode} {score}, precision {precision}, "
        "recall {recall}",
        "undefined": "precision is undefined: no judge found any topic in the conversation",
        "none": "no topics found",
        "excluded": "{count} judge(s) excluded",
    },
    "ru": {
        "summary": "среднее по судьям ({judges}): {mode} {score}, precision {precision}, "
        "recall {recall}",
        "undefined": "precision не определена: ни один судья не нашёл тем в диалоге",
        "none": "темы не найдены",
        "excluded": "исключено судей: {count}",
    },
}


class TopicAdherenceMetric(Metric[TopicAdherenceConfig]):
    """Precision, recall or F1 of the conversation's topics against ``reference_topics``.

    Each judge extracts the topics (``ExtractTopics``), then classifies **its own** topics in
    one call (``ClassifyTopics``) whose schema pins the list to the number of topics; verdicts
    are matched to topics by the topic text, and a missing or extra verdict is that judge's
    failure. Precision = on-topic / extracted; recall = distinct reference topics covered /
    reference topics (never above 1: a matched topic not in the reference list covers
    nothing). With no topics extracted, recall and F1 are 0 and precision is undefined (the
    result says so; ``multi_turn_score`` raises :class:`UndefinedScoreError` in PRECISION).
    """

    bean_name: ClassVar[str] = "topic_adherence"
    name: ClassVar[str] = "TopicAdherenceMetric"
    description: ClassVar[str] = "Whether the conversation stays within the allowed topics"
    config_type: ClassVar[type[MetricConfig]] = TopicAdherenceConfig
    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "*": ("user_input_messages", "reference_topics")
    }

    def check_sample(self, sample: Sample, config: TopicAdherenceConfig) -> TopicAdherenceConfig:
        """Needs ``user_input_messages`` and ``reference_topics``."""
        if not sample.user_input_messages:
            raise SampleValidationError(
                "is missing or empty; TopicAdherence reads the conversation",
                field="user_input_messages",
                metric=self.name,
                mode=config.mode.value,
            )
        if not sample.reference_topics or not _unique(sample.reference_topics):
            raise SampleValidationError(
                "is missing or empty; TopicAdherence needs the allowed topics",
                field="reference_topics",
                metric=self.name,
                mode=config.mode.value,
            )
        return config

    def total_steps(self, config: TopicAdherenceConfig) -> int:
        """Extract, then classify."""
        return 2

    async def _score(
        self,
        sample: Sample,
        config: TopicAdherenceConfig,
        judges: Sequence[JudgeModel],
    ) -> ScoringOutcome:
        language = self._language(config)
        reference = _unique(sample.reference_topics or [])
        reference_by_key = {_key(topic): topic for topic in reference}
        conversation = render_conversation(sample.user_input_messages or [])
        exclusions: list[Exclusion] = []

        extract = await self.executor.run_step(
            "ExtractTopics",
            judges,
            render_prompt(self._template(config, "extract_topics"), {"conversation": conversation}),
            ExtractedTopics,
            index=0,
        )
        steps = [extract]
        topics: dict[str, list[str]] = {}
        for judge, call in zip(judges, extract.calls, strict=True):
            if call.ok:
                topics[judge.id] = _unique(call.value.topics)
            else:
                exclusions.append(Exclusion.from_call(call))
        if not topics:
            raise self._all_failed("ExtractTopics", steps, exclusions)

        classify_judges = [judge for judge in judges if topics.get(judge.id)]
        template = self._template(config, "classify_topics")
        per_judge: dict[str, dict[str, Any]] = {}
        if classify_judges:
            classify = await self.executor.run_step(
                "ClassifyTopics",
                classify_judges,
                lambda judge: render_prompt(
                    template,
                    {
                        "reference_topics": bullet_list(reference),
                        "extracted_topics": bullet_list(topics[judge.id]),
                    },
                    {"count": len(topics[judge.id])},
                ),
                lambda judge: classification_model(tuple(topics[judge.id]), tuple(reference)),
                index=1,
            )
            steps.append(classify)
            for call in classify.calls:
                if not call.ok:
                    exclusions.append(Exclusion.from_call(call))
                    continue
                detail = self._judge_scores(
                    topics[call.judge_id], call.value.classifications, reference_by_key
                )
                if isinstance(detail, str):
                    exclusions.append(
                        Exclusion(
                            judge_id=call.judge_id,
                            step=call.step,
                            kind="invalid_output",
                            message=detail,
                        )
                    )
                else:
                    per_judge[call.judge_id] = detail
        for judge_id, found in topics.items():
            if not found:
                per_judge[judge_id] = {
                    "topics": [],
                    "verdicts": [],
                    "precision": None,
                    "recall": 0.0,
                    "f1": 0.0,
                    "covered": [],
                }
        if not per_judge:
            raise self._all_failed("ClassifyTopics", steps, exclusions)

        scores: dict[str, float] = {}
        for judge_id, detail in per_judge.items():
            value = {
                TopicAdherenceMode.F1: detail["f1"],
                TopicAdherenceMode.PRECISION: detail["precision"],
                TopicAdherenceMode.RECALL: detail["recall"],
            }[config.mode]
            if value is not None:
                scores[judge_id] = value
        ordered = {judge.id: scores[judge.id] for judge in judges if judge.id in scores}
        undefined = None if ordered else localized(_TEXT, language)["undefined"]
        metadata: dict[str, Any] = {
            "mode": config.mode.value,
            "reference_topics": reference,
            "judges": {judge.id: per_judge[judge.id] for judge in judges if judge.id in per_judge},
            "reasons": {
                judge_id: "; ".join(f"{v['topic']}: {v['reason']}" for v in detail["verdicts"])
                for judge_id, detail in per_judge.items()
            },
        }
        return ScoringOutcome(
            model_scores=ordered,
            steps=steps,
            exclusions=exclusions,
            metadata=metadata,
            explanation=self._explain(language, config, per_judge, ordered, exclusions),
            mode=config.mode.value,
            undefined_reason=undefined,
        )

    @staticmethod
    def _judge_scores(
        topics: list[str],
        verdicts: Sequence[TopicVerdict],
        reference_by_key: dict[str, str],
    ) -> dict[str, Any] | str:
        by_topic: dict[str, TopicVerdict] = {}
        for verdict in verdicts:
            by_topic.setdefault(_key(verdict.topic), verdict)
        missing = [topic for topic in topics if _key(topic) not in by_topic]
        if missing:
            unknown = [v.topic for v in verdicts if _key(v.topic) not in {_key(t) for t in topics}]
            return f"verdicts do not match the extracted topics: missing {missing}" + (
                f", unexpected {unknown}" if unknown else ""
            )
        rows = []
        covered: list[str] = []
        on_topic = 0
        for topic in topics:
            verdict = by_topic[_key(topic)]
            matched = None
            if verdict.matched_reference_topic:
                matched = reference_by_key.get(_key(verdict.matched_reference_topic))
            if verdict.on_topic:
                on_topic += 1
                if matched and matched not in covered:
                    covered.append(matched)
            rows.append(
                {
                    "topic": topic,
                    "on_topic": verdict.on_topic,
                    "matched_reference_topic": matched,
                    "reason": verdict.reason,
                }
            )
        precision = on_topic / len(topics)
        recall = len(covered) / len(reference_by_key)
        return {
            "topics": topics,
            "verdicts": rows,
            "precision": precision,
            "recall": recall,
            "f1": _f1(precision, recall),
            "covered": covered,
        }

    def _explain(
        self,
        language: str,
        config: TopicAdherenceConfig,
        per_judge: dict[str, dict[str, Any]],
        scores: dict[str, float],
        exclusions: list[Exclusion],
    ) -> str:
        text = localized(_TEXT, language)
        if not scores:
            return text["undefined"] + "."
        precisions = [d["precision"] for d in per_judge.values() if d["precision"] is not None]
        recalls = [d["recall"] for d in per_judge.values()]
        precision = f"{sum(precisions) / len(precisions):.2f}" if precisions else "n/a"
        parts = [
            text["summary"].format(
                mode=config.mode.value,
                score=f"{sum(scores.values()) / len(scores):.2f}",
                precision=precision,
                recall=f"{sum(recalls) / len(recalls):.2f}",
                judges=len(scores),
            )
        ]
        if exclusions:
            parts.append(text["excluded"].format(count=len({e.judge_id for e in exclusions})))
        return ". ".join(parts) + "."
