"""CaseExpectations: what a case expects beyond its tool calls, checked against the run (no LLM).

A *case* is a sample with ``expectations`` (see :class:`~ragas_boot.samples.CaseExpectations`):
keywords its final answer must contain, a tool-call budget, a latency budget. Each keyword
and each budget is one check; the score is the share of checks that passed, and the default
threshold (1.0) passes a case only when every check does. An agent that failed
(``agent_run.error``) scores 0 with that failure alone: its answer and calls are not its
behaviour. Tool calls themselves are ToolCallAccuracy's (``reference_tool_calls``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import Field

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.errors import SampleValidationError
from ragas_boot.execution.results import StepRecord
from ragas_boot.metrics.base import Metric, MetricConfig, Need, ScoringOutcome
from ragas_boot.samples import CaseExpectations, Sample

__all__ = ["CaseExpectationsConfig", "CaseExpectationsMetric", "FailedCheck", "check_case"]

FailedCheck = dict[str, Any]
"""One failed check as the result's metadata holds it: ``check`` (``agent_error``,
``conversation``, ``response_contains``, ``max_tool_calls``, ``max_latency_ms``),
``expected``, ``actual`` and a readable ``message``."""


class CaseExpectationsConfig(MetricConfig):
    """Config of :class:`CaseExpectationsMetric`: a case passes when every check does."""

    threshold: float = Field(
        default=1.0,
        ge=0.0,
        le=1.0,
        description="Share of checks that must pass (default 1.0: all of them).",
    )


_TEXT = {
    "en": {
        "passed": "{passed}/{total} checks passed",
        "none": "the case's expectations check nothing (no keywords, no budgets)",
        "agent_error": "the agent failed: {actual}",
        "response_contains": "the answer lacks {missing}",
        "max_tool_calls": "{actual} tool calls, over the budget of {expected}",
        "max_latency_ms": "latency {actual:.0f} ms, over the budget of {expected:.0f} ms",
        "not_concluded": "not concluded: {actual}",
        "gave_up": "the simulated user gave up: {actual}",
    },
    "ru": {
        "passed": "выполнено проверок: {passed} из {total}",
        "none": "ожидания кейса ничего не проверяют (нет ключевых слов и бюджетов)",
        "agent_error": "агент завершился с ошибкой: {actual}",
        "response_contains": "в ответе нет {missing}",
        "max_tool_calls": "вызовов инструментов {actual}, больше бюджета {expected}",
        "max_latency_ms": "задержка {actual:.0f} мс, больше бюджета {expected:.0f} мс",
        "not_concluded": "разговор не завершён: {actual}",
        "gave_up": "симулированный пользователь сдался: {actual}",
    },
}


def check_case(sample: Sample, language: str = "en") -> tuple[int, list[FailedCheck]]:
    """Check the sample's expectations against what the agent did.

    Returns:
        The number of checks, and the ones that failed (in the order ``agent_error``,
        ``conversation``, ``response_contains``, ``max_tool_calls``, ``max_latency_ms``; one
        entry for all the missing keywords). An agent error is one check, and the only one.
        A scenario's conversation is one check: it fails when the user was not done within
        its turns (``not_concluded``) or gave up.
    """
    texts = _TEXT["ru" if language == "ru" else "en"]
    expectations = sample.expectations or CaseExpectations()
    run = sample.agent_run
    if run is not None and run.error is not None:
        failure = {"check": "agent_error", "expected": None, "actual": run.error}
        return 1, [{**failure, "message": texts["agent_error"].format(actual=run.error)}]
    failed: list[FailedCheck] = []
    total = 0
    simulation = run.simulation if run is not None else None
    if simulation is not None:  # a scenario: the user must have been done, not given up
        total += 1
        ending = str(simulation.end)
        if ending in ("not_concluded", "gave_up"):
            why = simulation.reason or ending.replace("_", " ")
            failed.append(
                {
                    "check": "conversation",
                    "expected": "the user done (goal met, or the agent ended)",
                    "actual": ending,
                    "message": texts[ending].format(actual=why),
                }
            )
    keywords = expectations.response_contains
    if keywords:
        total += len(keywords)
        answer = (sample.final_response() or "").casefold()
        missing = [keyword for keyword in keywords if keyword.casefold() not in answer]
        if missing:
            failed.append(
                {
                    "check": "response_contains",
                    "expected": missing,
                    "actual": None,
                    "message": texts["response_contains"].format(
                        missing=", ".join(repr(keyword) for keyword in missing)
                    ),
                }
            )
    if expectations.max_tool_calls is not None:
        total += 1
        made = len(sample.actual_tool_calls())
        if made > expectations.max_tool_calls:
            failed.append(_failed(texts, "max_tool_calls", expectations.max_tool_calls, made))
    if expectations.max_latency_ms is not None:
        total += 1
        latency = run.latency_ms if run is not None else None
        if latency is not None and latency > expectations.max_latency_ms:
            failed.append(_failed(texts, "max_latency_ms", expectations.max_latency_ms, latency))
    return total, failed


def _failed(texts: Mapping[str, str], check: str, expected: Any, actual: Any) -> FailedCheck:
    message = texts[check].format(expected=expected, actual=actual)
    return {"check": check, "expected": expected, "actual": actual, "message": message}


class CaseExpectationsMetric(Metric[CaseExpectationsConfig]):
    """Share of a case's expectations met: keywords of the answer, tool-call and latency
    budgets; an agent error fails the case on its own.

    Reads ``expectations``; the answer (``response``, else the last AI message) when keywords
    are expected, the tool calls (``tool_calls`` or the AI messages) for a tool-call budget,
    and ``agent_run.latency_ms`` for a latency budget. Every failed check is in
    ``metadata["failed_checks"]`` with what was expected and what happened. No judge is called.
    """

    bean_name: ClassVar[str] = "case_expectations"
    name: ClassVar[str] = "CaseExpectationsMetric"
    description: ClassVar[str] = (
        "Share of a case's expectations met: answer keywords, tool-call and latency budgets"
    )
    config_type: ClassVar[type[MetricConfig]] = CaseExpectationsConfig
    needs: ClassVar[frozenset[Need]] = frozenset()
    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {"*": ("expectations",)}
    why: ClassVar[str] = "{name} checks what the case expects"

    def check_sample(
        self, sample: Sample, config: CaseExpectationsConfig
    ) -> CaseExpectationsConfig:
        """Needs ``expectations``, and what each expectation is checked against."""
        if sample.expectations is None:
            raise SampleValidationError(
                "is missing; CaseExpectations checks what a case expects (keywords, budgets)",
                field="expectations",
                metric=self.name,
            )
        if sample.agent_run is not None and sample.agent_run.error is not None:
            return config  # nothing else is read
        expectations = sample.expectations
        if expectations.response_contains and sample.final_response() is None:
            raise SampleValidationError(
                "is missing, and so is an AI message to take the answer from; "
                "expectations.response_contains checks the answer",
                field="response",
                metric=self.name,
            )
        if (
            expectations.max_tool_calls is not None
            and sample.tool_calls is None
            and sample.user_input_messages is None
        ):
            raise SampleValidationError(
                "is missing, and so is user_input_messages to take the calls from; "
                "expectations.max_tool_calls counts them",
                field="tool_calls",
                metric=self.name,
            )
        if expectations.max_latency_ms is not None and (
            sample.agent_run is None or sample.agent_run.latency_ms is None
        ):
            raise SampleValidationError(
                "is missing; expectations.max_latency_ms checks the agent's latency against it",
                field="agent_run.latency_ms",
                metric=self.name,
            )
        return config

    def total_steps(self, config: CaseExpectationsConfig) -> int:
        """One computed step: the checks."""
        return 1

    def _score_only(self, sample: Sample, config: CaseExpectationsConfig) -> float | None:
        total, failed = check_case(sample)
        return _score(total, failed)

    async def _score(
        self,
        sample: Sample,
        config: CaseExpectationsConfig,
        judges: Sequence[JudgeModel],
    ) -> ScoringOutcome:
        started = time.perf_counter()
        language = self._language(config)
        total, failed = check_case(sample, language)
        elapsed = time.perf_counter() - started
        score = _score(total, failed)
        texts = _TEXT["ru" if language == "ru" else "en"]
        metadata = {
            "checks": total,
            "passed_checks": total - _failed_count(failed),
            "failed_checks": failed,
            "tool_calls": len(sample.actual_tool_calls()),
            "latency_ms": sample.agent_run.latency_ms if sample.agent_run is not None else None,
            "expectations": sample.expectations.model_dump(mode="json")
            if sample.expectations is not None
            else None,
        }
        if score is None:
            explanation = texts["none"]
        else:
            explanation = texts["passed"].format(passed=total - _failed_count(failed), total=total)
            if failed:
                explanation += ": " + "; ".join(item["message"] for item in failed)
        return ScoringOutcome(
            model_scores={},
            steps=[StepRecord.computed("CheckExpectations", 0, elapsed)],
            exclusions=[],
            metadata={},
            explanation="",
            score=score,
            undefined_reason=texts["none"] if score is None else None,
            aggregated=False,
            details=lambda: (metadata, explanation),
        )


def _failed_count(failed: Sequence[FailedCheck]) -> int:
    """Checks failed: each missing keyword counts (they are one entry together)."""
    return sum(
        len(item["expected"]) if item["check"] == "response_contains" else 1 for item in failed
    )


def _score(total: int, failed: Sequence[FailedCheck]) -> float | None:
    if not total:
        return None
    return (total - _failed_count(failed)) / total
