"""A run as JUnit XML, the test report every CI server reads (GitLab, Jenkins, Azure DevOps,
GitHub test reporters).

One ``<testsuite>`` per metric, one ``<testcase>`` per sample × metric (``classname`` the
metric's bean name, ``name`` the sample id). A score under the metric's threshold is a
``<failure>`` whose message gives the score, the threshold and each judge's score and reason;
an undefined score (no quorum, nothing to score) is ``<skipped>``; an evaluation that failed
(no judge answered, the sample lacks a field, a deadline, the spend cap) is an ``<error>``.
Each ``<testsuite>``'s properties are named after its metric (``agent_goal_accuracy.threshold``):
readers that gather every suite's properties into one table (xunitparser) refuse a name given
twice. The XML is written by :mod:`xml.etree.ElementTree`; text from a dataset, the
configuration or a judge goes through :func:`~ragas_boot._text.printable`, whose escapes
(``\\x00``) cover every character XML 1.0 cannot hold.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ragas_boot._text import printable
from ragas_boot.reporting import _format as fmt
from ragas_boot.runs.records import Evaluation, MetricInfo
from ragas_boot.runs.results import RunResult
from ragas_boot.runs.rows import evaluation_reason

__all__ = ["failure_message", "render_junit"]


def failure_message(evaluation: Evaluation, info: MetricInfo) -> str:
    """``score 0.250 < threshold 0.500; judges: a 0.000 (reason), b 0.500 (reason)``."""
    result = evaluation.result
    relation = ">" if info.lower_is_better else "<"
    head = f"score {fmt.score(evaluation.score)} {relation} threshold {info.threshold:g}"
    if result is None:
        return head
    reasons = result.reasons()
    judges = [
        f"{judge} {fmt.score(value)}"
        + (f" ({fmt.short(reasons[judge])})" if judge in reasons else "")
        for judge, value in result.model_scores.items()
    ]
    excluded = result.excluded_judges
    text = head + (f"; judges: {', '.join(judges)}" if judges else "")
    if excluded:
        text += f"; excluded: {', '.join(excluded)}"
    return text


def _details(evaluation: Evaluation) -> str:
    """The body of a failure: the metric's explanation and every judge's full reason."""
    result = evaluation.result
    lines = []
    reason = evaluation_reason(evaluation)
    if reason:
        lines.append(reason)
    if result is not None:
        reasons = result.reasons()
        for judge, value in result.model_scores.items():
            line = f"{judge}: {fmt.score(value)}"
            if judge in reasons:
                line += f" - {reasons[judge]}"
            lines.append(line)
        lines.extend(
            f"{exclusion.judge_id}: excluded at {exclusion.step} ({exclusion.kind}): "
            f"{exclusion.message}"
            for exclusion in result.exclusions
        )
    if evaluation.error is not None:
        lines.extend(
            f"{failure.judge_id}: {failure.kind}: {failure.message}"
            for failure in evaluation.error.failures
        )
    return "\n".join(lines)


def render_junit(run: RunResult) -> str:
    """The run as a JUnit XML document (see the module docstring)."""
    root = ET.Element("testsuites", name=printable(run.dataset.name or "ragas-boot"))
    timestamp = run.started_at.replace(microsecond=0, tzinfo=None).isoformat()
    suites: list[_Suite] = []
    for info in run.metrics:
        element = ET.SubElement(root, "testsuite", name=printable(info.name), timestamp=timestamp)
        properties = ET.SubElement(element, "properties")
        for name, shown in (
            ("metric", info.metric),
            ("threshold", f"{info.threshold:g}"),
            ("lower_is_better", str(info.lower_is_better).lower()),
            ("judges", ", ".join(info.judge_ids)),
        ):
            qualified = printable(f"{info.name}.{name}")
            ET.SubElement(properties, "property", name=qualified, value=printable(shown))
        suites.append(_Suite(info, element))
    # One pass over the samples: a spooled run reads each back from disk once.
    for sample in run.samples:
        for suite in suites:
            suite.add(sample.sample_id, sample.evaluation(suite.info.name))
    totals = dict.fromkeys(_COUNTS, 0)
    for suite in suites:
        for key, value in suite.counts.items():
            suite.element.set(key, str(value))
            totals[key] += value
        suite.element.set("time", f"{suite.elapsed:.3f}")
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("time", f"{run.duration_s:.3f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


_COUNTS = ("tests", "failures", "errors", "skipped")


class _Suite:
    """One metric's ``<testsuite>``, its test cases added a sample at a time."""

    def __init__(self, info: MetricInfo, element: ET.Element) -> None:
        self.info = info
        self.element = element
        self.counts = dict.fromkeys(_COUNTS, 0)
        self.elapsed = 0.0

    def add(self, sample_id: str, evaluation: Evaluation) -> None:
        info = self.info
        self.elapsed += evaluation.duration_s
        self.counts["tests"] += 1
        case = ET.SubElement(
            self.element,
            "testcase",
            classname=printable(info.name),
            name=printable(sample_id),
            time=f"{evaluation.duration_s:.3f}",
        )
        if evaluation.status == "scored" and evaluation.passed is False:
            self.counts["failures"] += 1
            failure = ET.SubElement(
                case,
                "failure",
                message=printable(failure_message(evaluation, info)),
                type="below_threshold" if not info.lower_is_better else "above_maximum",
            )
            failure.text = printable(_details(evaluation))
        elif evaluation.status == "undefined":
            self.counts["skipped"] += 1
            skipped = ET.SubElement(
                case, "skipped", message=printable(fmt.evaluation_label(evaluation))
            )
            skipped.text = printable(_details(evaluation))
        elif evaluation.status in ("failed", "budget"):
            self.counts["errors"] += 1
            kind = evaluation.error.kind if evaluation.error is not None else "error"
            error = ET.SubElement(
                case, "error", message=printable(evaluation_reason(evaluation) or kind), type=kind
            )
            error.text = printable(_details(evaluation))
        else:
            output = ET.SubElement(case, "system-out")
            output.text = printable(
                f"score {fmt.score(evaluation.score)} (threshold {info.threshold:g})\n"
                + _details(evaluation)
            )
