"""What a pytest session with the ragas-boot plugin scored, as frozen data.

The plugin records each evaluation a test makes as a :class:`PytestEvaluation`: the same
:class:`~ragas_boot.runs.records.Evaluation` a dataset run keeps (status, score, the full
result or the error), plus the test that made it and the thresholds ``assert_score`` checked
on it. :class:`PytestReport` groups them into one row per test × metric (× criterion): the
session's score table and its ``--ragas-report`` document (``reporting/pytest_table.py``
renders both). Everything here crosses from pytest-xdist workers as JSON and back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from ragas_boot.execution.results import JudgeCall
from ragas_boot.metrics.results import Quorum, RepeatSummary
from ragas_boot.runs.records import CallFacts, Evaluation

__all__ = [
    "EQUALS_TOLERANCE",
    "PYTEST_REPORT_FORMAT",
    "PytestEvaluation",
    "PytestReport",
    "ScoreCheck",
    "ScoreRow",
    "SessionConfig",
    "criterion_label",
]

#: ``assert_score(equals=...)``'s default tolerance: float rounding only (not shown in labels).
EQUALS_TOLERANCE = 1e-9

#: Value of the report's ``format`` field; raised when a field is renamed or changes meaning.
PYTEST_REPORT_FORMAT: Final = "ragas-boot.pytest/2"

#: Characters of an inline criterion shown in a row's or an Allure page's name.
_CRITERION_WIDTH = 48

_FROZEN = ConfigDict(frozen=True)


def criterion_label(metric: str, definition: object) -> str:
    """A metric's name with the criterion it checked, so each criterion gets its own row.

    A named criterion's bean is already ``AspectCriticMetric:no-profanity``; a criterion
    passed inline (``AspectCriticConfig(definition=...)``, as Java tests do) adds its
    definition, cut to a readable width: ``AspectCriticMetric:AI Response содержит…``.
    """
    if ":" in metric or not isinstance(definition, str) or not definition.strip():
        return metric
    text = " ".join(definition.split())
    if len(text) > _CRITERION_WIDTH:
        text = text[: _CRITERION_WIDTH - 1].rstrip() + "…"
    return f"{metric}:{text}"


class ScoreCheck(BaseModel):
    """A threshold :func:`~ragas_boot.testing.assert_score` checked, and whether the score
    met it."""

    model_config = _FROZEN

    at_least: float | None = Field(description="The lowest passing score; None: no minimum.")
    at_most: float | None = Field(description="The highest passing score; None: no maximum.")
    passed: bool = Field(description="Whether the score lay within the bounds.")
    equals: float | None = Field(
        default=None,
        description="assert_score(equals=...): the score expected (at_least and at_most are "
        "then its bounds); None for bounds given as such.",
    )
    tolerance: float = Field(default=0.0, description="How far from equals the score may lie.")

    def label(self) -> str:
        """``>= 0.8``, ``<= 0.6``, ``0.2..0.8``, ``== 1`` or ``== 0.5 ± 0.05``."""
        if self.equals is not None:
            shown = self.tolerance > EQUALS_TOLERANCE
            return f"== {self.equals:g}" + (f" ± {self.tolerance:g}" if shown else "")
        if self.at_least is not None and self.at_most is not None:
            return f"{self.at_least:g}..{self.at_most:g}"
        if self.at_least is not None:
            return f">= {self.at_least:g}"
        return f"<= {self.at_most:g}"


class PytestEvaluation(Evaluation):
    """One evaluation a test made: the :class:`Evaluation` of a dataset run (``metric`` is
    the bean name, ``result`` the full result or ``error`` why there is none), with the test,
    the metric's class name and the checks made on it.

    Of ``repeat: N`` it stands for the repeats together (the result's ``repeats`` holds
    them; when every repeat failed, ``error`` holds every repeat's steps).
    """

    test: str | None = Field(
        description="Node id of the test that ran it; None when it ran outside a test."
    )
    label: str = Field(
        description="The metric's class name, with its named criterion "
        "(AspectCriticMetric:no-profanity): result.metric, also when it failed."
    )
    criterion: str | None = Field(
        default=None,
        description="The criterion's definition, when it was passed inline (definition=): "
        "such an evaluation gets a row of its own.",
    )
    checks: list[ScoreCheck] = Field(
        default_factory=list, description="Thresholds assert_score checked on it, in order."
    )

    @classmethod
    def of(
        cls,
        evaluation: Evaluation,
        *,
        test: str | None,
        label: str,
        criterion: str | None = None,
    ) -> PytestEvaluation:
        """``evaluation`` as made by ``test`` (its fields as they are, not validated again)."""
        fields = {name: getattr(evaluation, name) for name in Evaluation.model_fields}
        return cls.model_construct(**fields, test=test, label=label, criterion=criterion, checks=[])

    def with_check(self, check: ScoreCheck) -> PytestEvaluation:
        """This evaluation with ``check`` added to its checks."""
        return self.model_copy(update={"checks": [*self.checks, check]})

    @property
    def row(self) -> str:
        """The name of the row it is shown in: :func:`criterion_label` of its label."""
        return criterion_label(self.label, self.criterion)


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


class ScoreRow(BaseModel):
    """One test × metric (× inline criterion): its evaluations (usually one) and what they
    add up to; with several, the score and each judge's score are means."""

    model_config = _FROZEN

    test: str | None = Field(description="Node id of the test; None outside a test.")
    metric: str = Field(
        description="The row's name: the metric's class name, with its named or inline "
        "criterion (AspectCriticMetric:no-profanity)."
    )
    score: float | None = Field(
        description="Mean score of the row's evaluations that have one; None when none has."
    )
    model_scores: dict[str, float] = Field(
        description="Judge id → its mean score over the row's evaluations, in order of appearance."
    )
    excluded: list[str] = Field(
        description="Judges excluded from any evaluation of the row (failed ones included)."
    )
    passed: bool | None = Field(
        description="Whether every check on the row passed; None when nothing was checked."
    )
    evaluations: list[PytestEvaluation] = Field(description="The row's evaluations, in order.")

    @classmethod
    def of(cls, evaluations: Sequence[PytestEvaluation]) -> ScoreRow:
        """The row of ``evaluations`` (one test, one metric row, at least one evaluation)."""
        first = evaluations[0]
        judges: dict[str, list[float]] = {}
        excluded: list[str] = []
        for evaluation in evaluations:
            result = evaluation.result
            if result is not None:
                for judge, value in result.model_scores.items():
                    judges.setdefault(judge, []).append(value)
                exclusions = result.exclusions
            else:
                exclusions = evaluation.error.failures if evaluation.error is not None else []
            excluded.extend(item.judge_id for item in exclusions)
        checks = [check for evaluation in evaluations for check in evaluation.checks]
        return cls(
            test=first.test,
            metric=first.row,
            score=_mean([e.score for e in evaluations if e.score is not None]),
            model_scores={judge: sum(v) / len(v) for judge, v in judges.items()},
            excluded=list(dict.fromkeys(excluded)),
            passed=all(check.passed for check in checks) if checks else None,
            evaluations=list(evaluations),
        )

    @property
    def checks(self) -> list[ScoreCheck]:
        """Thresholds checked by ``assert_score`` on the row's evaluations."""
        return [check for evaluation in self.evaluations for check in evaluation.checks]

    @property
    def errors(self) -> list[str]:
        """Why evaluations of the row failed, if any did."""
        return [e.error.message for e in self.evaluations if e.error is not None]

    @property
    def calls(self) -> list[JudgeCall | CallFacts]:
        """Every judge call of the row's evaluations (tokens and cost)."""
        return [call for evaluation in self.evaluations for call in evaluation.judge_calls()]

    @property
    def repeats(self) -> list[RepeatSummary]:
        """The repeats of the row's evaluations that ran ``repeat: N``."""
        return [
            e.result.repeats
            for e in self.evaluations
            if e.result is not None and e.result.repeats is not None
        ]

    @property
    def quorums(self) -> list[Quorum]:
        """The quorum checks of the row's evaluations (``min-judges`` set)."""
        return [
            e.result.quorum
            for e in self.evaluations
            if e.result is not None and e.result.quorum is not None
        ]


class SessionConfig(BaseModel):
    """The configuration a session read (its pytest-xdist workers' included)."""

    model_config = _FROZEN

    files: list[str] = Field(description="Config files read, in load order.")
    profiles: list[str] = Field(description="Active profiles.")


class PytestReport(BaseModel):
    """What a pytest session scored: the ``--ragas-report`` document."""

    model_config = _FROZEN

    format: Literal["ragas-boot.pytest/2"] = Field(
        default=PYTEST_REPORT_FORMAT,
        description="This layout's name and version; raised when a field is renamed, removed "
        "or changes meaning.",
    )
    config: SessionConfig = Field(description="The config files and profiles read.")
    rows: list[ScoreRow] = Field(
        description="One per scored test × metric (× inline criterion), in order of first "
        "appearance."
    )

    @classmethod
    def of(
        cls,
        evaluations: Sequence[PytestEvaluation],
        *,
        files: Sequence[str] = (),
        profiles: Sequence[str] = (),
    ) -> PytestReport:
        """The report of ``evaluations``: grouped by (test, metric, criterion), in order of
        first appearance, so each of five inline criteria checked in one test has its row."""
        groups: dict[tuple[str | None, str, str | None], list[PytestEvaluation]] = {}
        for evaluation in evaluations:
            key = (evaluation.test, evaluation.label, evaluation.criterion)
            groups.setdefault(key, []).append(evaluation)
        return cls(
            config=SessionConfig(files=list(files), profiles=list(profiles)),
            rows=[ScoreRow.of(group) for group in groups.values()],
        )
