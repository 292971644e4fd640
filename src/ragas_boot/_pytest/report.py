"""Scored tests as rows (one per test x metric x criterion), and the ``--ragas-report`` file."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragas_boot._pytest.recording import EvaluationRecord, QuorumRecord, RepeatRecord, ScoreCheck
from ragas_boot.execution.results import JudgeCall
from ragas_boot.reporting.pytest_table import criterion_label

__all__ = ["REPORT_FORMAT", "ScoreRow", "score_rows", "write_report"]

#: Value of the report's ``format`` field; bumped when a field changes meaning.
REPORT_FORMAT = "ragas-boot.pytest/1"


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


@dataclass(slots=True)
class ScoreRow:
    """One test x metric: its evaluations (usually one) and what they add up to.

    With several evaluations in one row, ``score`` and each judge's score are means.
    """

    test: str | None
    metric: str
    evaluations: list[EvaluationRecord] = field(default_factory=list)

    @property
    def score(self) -> float | None:
        """The aggregated score (the mean over the row's evaluations that have one)."""
        return _mean([e.score for e in self.evaluations if e.score is not None])

    @property
    def model_scores(self) -> dict[str, float]:
        """Judge id → its score (mean over evaluations), in order of appearance."""
        seen: dict[str, list[float]] = {}
        for evaluation in self.evaluations:
            for judge, value in evaluation.model_scores.items():
                seen.setdefault(judge, []).append(value)
        return {judge: sum(values) / len(values) for judge, values in seen.items()}

    @property
    def excluded(self) -> list[str]:
        """Judges excluded from any evaluation of the row, in order."""
        return list(dict.fromkeys(x.judge_id for e in self.evaluations for x in e.exclusions))

    @property
    def checks(self) -> list[ScoreCheck]:
        """Thresholds checked by ``assert_score`` on the row's evaluations."""
        return [check for evaluation in self.evaluations for check in evaluation.checks]

    @property
    def errors(self) -> list[str]:
        """Why evaluations of the row failed, if any did."""
        return [e.error for e in self.evaluations if e.error]

    @property
    def calls(self) -> list[JudgeCall]:
        """Every judge call of the row's evaluations (tokens and cost)."""
        return [call for evaluation in self.evaluations for call in evaluation.calls]

    @property
    def repeats(self) -> list[RepeatRecord]:
        """The repeats of the row's evaluations that ran ``repeat: N``."""
        return [e.repeats for e in self.evaluations if e.repeats is not None]

    @property
    def quorums(self) -> list[QuorumRecord]:
        """The quorum checks of the row's evaluations (``min-judges`` set)."""
        return [e.quorum for e in self.evaluations if e.quorum is not None]

    def to_json(self) -> dict[str, Any]:
        """The row as a JSON-ready dict."""
        return {
            "test": self.test,
            "metric": self.metric,
            "score": self.score,
            "model_scores": self.model_scores,
            "excluded": self.excluded,
            "passed": all(check.passed for check in self.checks) if self.checks else None,
            "evaluations": [evaluation.to_json() for evaluation in self.evaluations],
        }


def score_rows(records: Sequence[EvaluationRecord]) -> list[ScoreRow]:
    """Group records by (test, metric, criterion), in order of first appearance.

    A criterion passed inline (five ``AspectCriticConfig(definition=...)`` checks in one test)
    gets a row of its own, named after it, so a failing one is named in the table.
    """
    rows: dict[tuple[str | None, str, str | None], ScoreRow] = {}
    for record in records:
        key = (record.test, record.metric, record.criterion)
        if key not in rows:
            label = criterion_label(record.metric, record.criterion)
            rows[key] = ScoreRow(test=record.test, metric=label)
        rows[key].evaluations.append(record)
    return list(rows.values())


def write_report(
    path: Path,
    rows: Sequence[ScoreRow],
    *,
    config_files: Sequence[str] = (),
    profiles: Sequence[str] = (),
) -> None:
    """Write the rows as JSON (``{"format", "config", "rows"}``), creating parent folders."""
    document = {
        "format": REPORT_FORMAT,
        "config": {"files": list(config_files), "profiles": list(profiles)},
        "rows": [row.to_json() for row in rows],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
