"""The shape of Faithfulness, ContextRecall and Hallucination: decompose a text, judge each
statement against the retrieved contexts, score the share of (un)supported statements."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, TypeVar

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.metrics.base import Metric, MetricConfig, ScoringOutcome
from ragas_boot.metrics.prompting import localized, render_prompt
from ragas_boot.metrics.steps.chain import Chain
from ragas_boot.metrics.steps.decompose import Statements
from ragas_boot.metrics.steps.explain import mean_text, outcome_text
from ragas_boot.metrics.steps.inputs import contexts_of
from ragas_boot.metrics.steps.pipelines import decompose_then_judge
from ragas_boot.metrics.steps.verdicts import VerdictScale, numbered_list
from ragas_boot.samples import Sample

__all__ = ["StatementShareMetric"]

ConfigT = TypeVar("ConfigT", bound=MetricConfig)


class StatementShareMetric(Metric[ConfigT]):
    """Base of the metrics scoring the share of a text's statements the contexts support.

    Each judge splits ``text_field`` into statements with ``extract_statements`` (step
    ``decompose_step``), then judges **its own** statements against the retrieved contexts
    (joined by a blank line) with ``judge_prompt`` in one call pinned to one verdict per
    statement (step ``judge_step``). Score per judge = share of statements whose verdict is
    positive (or not positive, with ``count_positive = False``). No contexts, or no
    statements from any judge: undefined, with the reason from ``texts``.
    """

    #: The sample field decomposed (``response`` or ``reference``).
    text_field: ClassVar[str]
    decompose_step: ClassVar[str]
    judge_step: ClassVar[str]
    #: Template name of the verdict step (placeholders: question, context, statements, count).
    judge_prompt: ClassVar[str]
    scale: ClassVar[VerdictScale]
    #: Count positive verdicts (True) or the others (False).
    count_positive: ClassVar[bool] = True
    #: Metadata key of the counted statements per judge.
    count_key: ClassVar[str]
    #: Per language: ``detail`` ({count}, {total}), ``no_contexts``, ``no_statements``.
    texts: ClassVar[Mapping[str, Mapping[str, str]]]

    def total_steps(self, config: ConfigT) -> int:
        """Decompose, then judge."""
        return 2

    async def _score(
        self, sample: Sample, config: ConfigT, judges: Sequence[JudgeModel]
    ) -> ScoringOutcome:
        language = self._language(config)
        text = localized(self.texts, language)
        lower = self.lower_is_better
        chain = Chain(self.executor, judges)
        contexts = contexts_of(sample)
        if not contexts:
            return chain.undefined(text["no_contexts"], language, lower_is_better=lower)
        template = self._template(config, self.judge_prompt)
        values = {"question": sample.user_input, "context": "\n\n".join(contexts)}
        judged = await decompose_then_judge(
            chain,
            judges,
            decompose_step=self.decompose_step,
            decompose_prompt=render_prompt(
                self._template(config, "extract_statements"),
                {"question": sample.user_input, "answer": getattr(sample, self.text_field)},
            ),
            output_model=Statements,
            judge_step=self.judge_step,
            judge_prompt=lambda judge, items: render_prompt(
                template, {**values, "statements": numbered_list(items)}, {"count": len(items)}
            ),
            scale=self.scale,
        )
        chain.ensure_alive(self)
        per_judge: dict[str, dict[str, Any]] = {}
        scores: dict[str, float | None] = {}
        for judge in chain.alive():
            found = judged.verdicts.get(judge.id, [])
            scores[judge.id] = judged.share(judge.id, positive=self.count_positive)
            per_judge[judge.id] = {
                **judged.detail(judge.id),
                self.count_key: sum(v.positive == self.count_positive for v in found),
                "total": len(found),
            }
        model_scores = chain.scored(scores)
        undefined = None if model_scores else text["no_statements"]
        parts = [undefined or mean_text(language, model_scores)]
        if model_scores:
            count = sum(d[self.count_key] for d in per_judge.values())
            total = sum(d["total"] for d in per_judge.values())
            parts.append(text["detail"].format(count=count, total=total))
        return chain.outcome(
            model_scores=model_scores,
            metadata={
                "judges": per_judge,
                "reasons": {
                    judge_id: "; ".join(
                        f"{v['statement']}: {v['verdict']} ({v['reason']})" for v in d["verdicts"]
                    )
                    for judge_id, d in per_judge.items()
                },
            },
            explanation=outcome_text(language, parts, chain.exclusions, lower_is_better=lower),
            undefined_reason=undefined,
        )
