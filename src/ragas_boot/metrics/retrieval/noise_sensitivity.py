"""NoiseSensitivity: how often the response states wrong things it took from the contexts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import Field

from ragas_boot._enums import CaseInsensitiveEnum
from ragas_boot.chat.judge import JudgeModel
from ragas_boot.metrics.base import Metric, MetricConfig, ScoringOutcome
from ragas_boot.metrics.prompting import localized, render_prompt
from ragas_boot.metrics.steps import (
    Chain,
    Statements,
    Verdict,
    VerdictScale,
    contexts_of,
    decompose,
    judge_statements,
    mean_text,
    numbered_list,
    outcome_text,
)
from ragas_boot.samples import Sample

__all__ = [
    "TRUTH_VERDICTS",
    "NoiseSensitivityConfig",
    "NoiseSensitivityMetric",
    "NoiseSensitivityMode",
    "noise_sensitivity",
]

#: Whether a statement is true according to one given text (and only that text).
TRUTH_VERDICTS = VerdictScale(
    labels=(True, False),
    positive=frozenset({True}),
    meaning="true if every part of the statement matches the context, else false.",
)


class NoiseSensitivityMode(CaseInsensitiveEnum):
    """Which contexts' influence is measured."""

    RELEVANT = "RELEVANT"
    IRRELEVANT = "IRRELEVANT"


class NoiseSensitivityConfig(MetricConfig):
    """Config of :class:`NoiseSensitivityMetric`; the threshold is a maximum."""

    mode: NoiseSensitivityMode = Field(
        default=NoiseSensitivityMode.RELEVANT,
        description="RELEVANT (errors backed by relevant contexts, default) or IRRELEVANT.",
    )


def noise_sensitivity(
    mode: NoiseSensitivityMode,
    answer_correct: Sequence[bool],
    reference_in_context: Sequence[Sequence[bool]],
    answer_in_context: Sequence[Sequence[bool]],
) -> float:
    """The score from three verdict matrices (pure; ragas' and the Java library's algebra).

    Args:
        mode: RELEVANT or IRRELEVANT.
        answer_correct: per response statement, whether the reference supports it.
        reference_in_context: [reference statement][context] support.
        answer_in_context: [response statement][context] support.

    Returns:
        Share of response statements that are incorrect and supported by a relevant context
        (RELEVANT), or by an irrelevant context only (IRRELEVANT).
    """
    contexts = len(answer_in_context[0]) if answer_in_context else 0
    relevant = [any(row[c] for row in reference_in_context) for c in range(contexts)]
    noisy = 0
    for correct, row in zip(answer_correct, answer_in_context, strict=True):
        from_relevant = any(row[c] and relevant[c] for c in range(contexts))
        if mode is NoiseSensitivityMode.RELEVANT:
            counted = from_relevant
        else:
            counted = not from_relevant and any(row[c] and not relevant[c] for c in range(contexts))
        noisy += (not correct) and counted
    return noisy / len(answer_correct)


_TEXT = {
    "en": {
        "detail": "{noisy} of {total} response statements are wrong and come from {which} contexts",
        "relevant": "relevant",
        "irrelevant": "irrelevant",
        "no_contexts": "noise sensitivity is undefined: the sample has no retrieved contexts",
        "no_statements": "noise sensitivity is undefined: no judge found statements in both the "
        "response and the reference",
    },
    "ru": {
        "detail": "{noisy} из {total} утверждений ответа неверны и взяты из {which} контекстов",
        "relevant": "релевантных",
        "irrelevant": "нерелевантных",
        "no_contexts": "noise sensitivity не определена: в образце нет найденных контекстов",
        "no_statements": "noise sensitivity не определена: ни один судья не нашёл утверждений "
        "и в ответе, и в эталоне",
    },
}


class NoiseSensitivityMetric(Metric[NoiseSensitivityConfig]):
    """Share of the response's statements that are wrong and were taken from the contexts.

    **Lower is better**; a threshold is a maximum. Each judge splits the reference and the
    response into statements (two calls at once), then, in one more level sent at once, checks
    its response statements against the reference and its reference and response statements
    against each context (1 + 2C calls, each pinned to one true/false verdict per statement).
    A context is relevant when it supports a reference statement. RELEVANT: share of response
    statements that are incorrect and supported by a relevant context; IRRELEVANT: incorrect
    and supported only by irrelevant contexts. A judge failing any call is excluded (the Java
    library treated a failed context call as "supports nothing"); no statements or no
    contexts leave the score undefined (Java: 0.0, which reads as perfect).
    """

    bean_name: ClassVar[str] = "noise_sensitivity"
    name: ClassVar[str] = "NoiseSensitivityMetric"
    description: ClassVar[str] = "Share of response statements that are wrong and from contexts"
    config_type: ClassVar[type[MetricConfig]] = NoiseSensitivityConfig
    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "*": ("user_input", "response", "reference", "retrieved_contexts")
    }
    mode_field: ClassVar[str | None] = "mode"
    why: ClassVar[str] = "NoiseSensitivity compares the response, the reference and the contexts"
    lower_is_better: ClassVar[bool] = True

    def total_steps(self, config: NoiseSensitivityConfig) -> int:
        """Decompose (2 at once), then check (1 + 2 per context, at once)."""
        return 2

    async def _score(
        self, sample: Sample, config: NoiseSensitivityConfig, judges: Sequence[JudgeModel]
    ) -> ScoringOutcome:
        language = self._language(config)
        text = localized(_TEXT, language)
        mode = config.mode
        chain = Chain(self.executor, judges)
        contexts = contexts_of(sample)
        if not contexts:
            return chain.undefined(
                text["no_contexts"], language, lower_is_better=True, mode=mode.value
            )
        split = self._template(config, "extract_statements")
        reference_statements, response_statements = await chain.level(
            decompose(
                chain,
                "DecomposeReference",
                judges,
                render_prompt(split, {"question": sample.user_input, "answer": sample.reference}),
                Statements,
            ),
            decompose(
                chain,
                "DecomposeResponse",
                judges,
                render_prompt(split, {"question": sample.user_input, "answer": sample.response}),
                Statements,
            ),
        )
        chain.ensure_alive(self)
        both = [
            judge
            for judge in chain.alive()
            if reference_statements.get(judge.id) and response_statements.get(judge.id)
        ]
        answers = {judge.id: response_statements[judge.id] for judge in both}
        references = {judge.id: reference_statements[judge.id] for judge in both}
        check = self._template(config, "check_statements")

        def against(context: str) -> Any:
            return lambda judge, items: render_prompt(
                check,
                {"context": context, "statements": numbered_list(items)},
                {"count": len(items)},
            )

        checks = [
            judge_statements(
                chain,
                "EvaluateResponseAgainstReference",
                both,
                answers,
                against(sample.reference or ""),
                TRUTH_VERDICTS,
            )
        ]
        for number, context in enumerate(contexts, 1):
            checks.append(
                judge_statements(
                    chain,
                    f"EvaluateReferenceInContext_{number}",
                    both,
                    references,
                    against(context),
                    TRUTH_VERDICTS,
                )
            )
            checks.append(
                judge_statements(
                    chain,
                    f"EvaluateResponseInContext_{number}",
                    both,
                    answers,
                    against(context),
                    TRUTH_VERDICTS,
                )
            )
        results: list[dict[str, list[Verdict]]] = await chain.level(*checks)
        chain.ensure_alive(self)
        correct_by_judge = results[0]
        per_context = [(results[1 + 2 * c], results[2 + 2 * c]) for c in range(len(contexts))]
        scores: dict[str, float | None] = {}
        per_judge: dict[str, dict[str, Any]] = {}
        for judge in chain.alive():
            if judge.id not in answers:
                per_judge[judge.id] = {
                    "reference_statements": reference_statements.get(judge.id, []),
                    "response_statements": response_statements.get(judge.id, []),
                }
                scores[judge.id] = None
                continue
            correct = [v.positive for v in correct_by_judge[judge.id]]
            reference_in = [
                [per_context[c][0][judge.id][i].positive for c in range(len(contexts))]
                for i in range(len(references[judge.id]))
            ]
            answer_in = [
                [per_context[c][1][judge.id][j].positive for c in range(len(contexts))]
                for j in range(len(answers[judge.id]))
            ]
            relevant = [any(row[c] for row in reference_in) for c in range(len(contexts))]
            score = noise_sensitivity(mode, correct, reference_in, answer_in)
            scores[judge.id] = score
            per_judge[judge.id] = {
                "reference_statements": references[judge.id],
                "response_statements": answers[judge.id],
                "response_correct": correct,
                "relevant_contexts": relevant,
                "reference_in_context": reference_in,
                "response_in_context": answer_in,
                "noisy": round(score * len(correct)),
            }
        model_scores = chain.scored(scores)
        undefined = None if model_scores else text["no_statements"]
        parts = [undefined or mean_text(language, model_scores)]
        if model_scores:
            parts.append(
                text["detail"].format(
                    noisy=sum(per_judge[j]["noisy"] for j in model_scores),
                    total=sum(len(per_judge[j]["response_statements"]) for j in model_scores),
                    which=text[
                        "relevant" if mode is NoiseSensitivityMode.RELEVANT else "irrelevant"
                    ],
                )
            )
        return chain.outcome(
            model_scores=model_scores,
            metadata={
                "mode": mode.value,
                "context_count": len(contexts),
                "judges": per_judge,
                "reasons": {
                    judge_id: ", ".join(
                        f"{s}: {'correct' if ok else 'wrong'}"
                        for s, ok in zip(
                            d["response_statements"], d.get("response_correct", []), strict=False
                        )
                    )
                    for judge_id, d in per_judge.items()
                },
            },
            explanation=outcome_text(language, parts, chain.exclusions, lower_is_better=True),
            undefined_reason=undefined,
            mode=mode.value,
        )
