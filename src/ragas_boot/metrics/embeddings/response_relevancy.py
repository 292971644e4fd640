"""ResponseRelevancy: do the questions a response answers match what the user asked?"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.execution.results import Exclusion
from ragas_boot.metrics.base import Metric, MetricConfig, Need, ScoringOutcome
from ragas_boot.metrics.embeddings.vectors import cosine_similarity
from ragas_boot.metrics.prompting import localized, render_prompt
from ragas_boot.samples import Sample

__all__ = [
    "GeneratedQuestion",
    "GeneratedQuestions",
    "ResponseRelevancyConfig",
    "ResponseRelevancyMetric",
    "questions_model",
]


class ResponseRelevancyConfig(MetricConfig):
    """Config of :class:`ResponseRelevancyMetric`."""

    number_of_questions: int = Field(
        default=3, ge=1, le=10, description="Questions each judge generates from the response."
    )


class GeneratedQuestion(BaseModel):
    """A question the response answers."""

    question: str = Field(description="A question the response answers.")
    noncommittal: bool = Field(
        description="True when the response is evasive or vague about it (I don't know, ...)."
    )


class GeneratedQuestions(BaseModel):
    """The questions a judge reads off the response."""

    questions: list[GeneratedQuestion] = Field(
        min_length=1, description="Questions the response answers."
    )


@functools.cache
def questions_model(count: int) -> type[GeneratedQuestions]:
    """:class:`GeneratedQuestions` whose schema asks for at most ``count`` questions.

    The cap in the schema keeps a grammar-constrained model from filling its array limit with
    repeats; extra questions a model sends anyway are dropped, not a failure.
    """

    def cap(schema: dict[str, Any]) -> None:
        schema["properties"]["questions"]["maxItems"] = count

    class Pinned(GeneratedQuestions):
        model_config = ConfigDict(json_schema_extra=cap)

        @field_validator("questions", mode="before")
        @classmethod
        def _at_most(cls, value: Any) -> Any:
            return value[:count] if isinstance(value, list) else value

    Pinned.__name__ = Pinned.__qualname__ = "GeneratedQuestions"
    return Pinned


_TEXT = {
    "en": {
        "headline": "Relevancy of the response to the user input",
        "judges": "{count} judge(s) generated {questions} question(s)",
        "noncommittal": "{count} judge(s) found the response noncommittal (scored 0)",
        "embeddings": "compared with {count} embedding model(s)",
        "excluded": "{count} model(s) excluded",
    },
    "ru": {
        "headline": "Релевантность ответа запросу пользователя",
        "judges": "судей: {count}, сгенерировано вопросов: {questions}",
        "noncommittal": "судей, счёвших ответ уклончивым (оценка 0): {count}",
        "embeddings": "сравнение на моделях эмбеддингов: {count}",
        "excluded": "исключено моделей: {count}",
    },
}


class ResponseRelevancyMetric(Metric[ResponseRelevancyConfig]):
    """Mean cosine of the user input and the questions each judge reads off the response.

    ``GenerateQuestions``: each judge writes ``number-of-questions`` questions the response
    answers, each flagged noncommittal or not. A judge whose questions are all noncommittal
    scores 0.0. ``ComputeEmbeddings``: the user input and every judge's questions go to every
    embedding model in one request. A judge's score is the mean cosine of the user input and
    its questions, averaged over the embedding models that answered (Java used the first
    successful model only); judges' scores are then aggregated. A judge or embedding model
    that fails is excluded, never scored 0.0.
    """

    bean_name: ClassVar[str] = "response_relevancy"
    name: ClassVar[str] = "ResponseRelevancyMetric"
    description: ClassVar[str] = (
        "Whether the response addresses the user input (questions + embeddings)"
    )
    config_type: ClassVar[type[MetricConfig]] = ResponseRelevancyConfig
    needs: ClassVar[frozenset[Need]] = frozenset({Need.JUDGES, Need.EMBEDDINGS})
    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {"*": ("user_input", "response")}
    why: ClassVar[str] = (
        "ResponseRelevancy compares the user input with questions read off the response"
    )

    def total_steps(self, config: ResponseRelevancyConfig) -> int:
        """Question generation, then embeddings."""
        return 2

    async def _score(
        self, sample: Sample, config: ResponseRelevancyConfig, judges: Sequence[JudgeModel]
    ) -> ScoringOutcome:
        user_input = (sample.user_input or "").strip()
        prompt = render_prompt(
            self._template(config, "generate_questions"),
            {
                "user_input": user_input,
                "response": sample.response,
            },
            {"count": config.number_of_questions},
        )
        generate = await self.executor.run_step(
            "GenerateQuestions",
            judges,
            prompt,
            questions_model(config.number_of_questions),
            index=0,
        )
        steps = [generate]
        exclusions: list[Exclusion] = []
        questions: dict[str, list[str]] = {}
        flags: dict[str, list[bool]] = {}
        scores: dict[str, float] = {}
        for call in generate.calls:
            if not call.ok:
                exclusions.append(Exclusion.from_call(call))
                continue
            asked = [item for item in call.value.questions if item.question.strip()]
            if not asked:
                exclusions.append(
                    Exclusion(
                        judge_id=call.judge_id,
                        step=call.step,
                        kind="invalid_output",
                        message="every generated question is blank",
                    )
                )
                continue
            questions[call.judge_id] = [item.question.strip() for item in asked]
            flags[call.judge_id] = [item.noncommittal for item in asked]
            if all(item.noncommittal for item in asked):
                scores[call.judge_id] = 0.0
        if not questions:
            raise self._all_failed("GenerateQuestions", steps, exclusions)

        committal = [judge for judge in questions if judge not in scores]
        similarities: dict[str, dict[str, float]] = {}
        embedding_ids: list[str] = []
        if committal:
            texts = list(
                dict.fromkeys([user_input, *(q for judge in committal for q in questions[judge])])
            )
            position = {text: index for index, text in enumerate(texts)}
            step = await self.embeddings.embed("ComputeEmbeddings", texts, index=1)
            steps.append(step.record)
            exclusions.extend(step.exclusions)
            for outcome in step.outcomes:
                if outcome.vectors is None:
                    continue
                embedding_ids.append(outcome.model_id)
                user_vector = outcome.vectors[position[user_input]]
                for judge in committal:
                    cosines = [
                        cosine_similarity(user_vector, outcome.vectors[position[question]])
                        for question in questions[judge]
                    ]
                    similarities.setdefault(judge, {})[outcome.model_id] = math.fsum(cosines) / len(
                        cosines
                    )
            if not embedding_ids and not scores:
                raise self._all_failed(step.record.name, steps, exclusions)
            # With no embedding model but some noncommittal judges, those judges' 0.0 stands
            # and the committal ones go unscored (the embedding failures are excluded above).
            for judge in committal:
                per_model = similarities.get(judge)
                if per_model:
                    scores[judge] = math.fsum(per_model.values()) / len(per_model)
                else:
                    exclusions.append(
                        Exclusion(
                            judge_id=judge,
                            step=step.record.name,
                            kind="embeddings_failed",
                            message="no embedding model embedded this judge's questions",
                        )
                    )

        metadata: dict[str, Any] = {
            "generated_questions": questions,
            "noncommittal": flags,
            "similarities": similarities,
            "embedding_models": embedding_ids,
            "number_of_questions": config.number_of_questions,
        }
        return ScoringOutcome(
            model_scores=scores,
            steps=steps,
            exclusions=exclusions,
            metadata=metadata,
            explanation=self._explain(
                config, questions, scores, committal, embedding_ids, exclusions
            ),
        )

    def _explain(
        self,
        config: ResponseRelevancyConfig,
        questions: Mapping[str, list[str]],
        scores: Mapping[str, float],
        committal: Sequence[str],
        embedding_ids: Sequence[str],
        exclusions: Sequence[Exclusion],
    ) -> str:
        text = localized(_TEXT, self._language(config))
        parts = [
            text["headline"],
            text["judges"].format(
                count=len(questions), questions=sum(len(q) for q in questions.values())
            ),
        ]
        noncommittal = len(questions) - len(committal)
        if noncommittal:
            parts.append(text["noncommittal"].format(count=noncommittal))
        if embedding_ids:
            parts.append(text["embeddings"].format(count=len(embedding_ids)))
        if exclusions:
            parts.append(text["excluded"].format(count=len({item.judge_id for item in exclusions})))
        return ". ".join(parts) + "."
