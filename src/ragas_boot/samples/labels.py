"""People's judgements of a sample, per metric: what ``ragas-boot calibrate`` compares judges to.

A sample's ``labels`` maps a metric's bean name (``agent_goal_accuracy``, or
``aspect_critic:no-profanity`` for a named criterion) to one :class:`HumanLabel`, or to a list
of them when several annotators labelled the sample::

    labels:
      agent_goal_accuracy: {verdict: pass}
      topic_adherence:
        - {annotator: ana, off_topic: [cryptocurrency investing]}
        - {annotator: ben, verdict: fail}

A label gives a ``verdict`` (pass/fail), a ``score`` in [0, 1], or, for TopicAdherence, the
subjects the conversation strayed into (``off_topic``; an empty list says it stayed on topic).
Labels are checked when the sample is built, and a problem names its path
(``labels.topic_adherence[1].score``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, Tag, field_validator, model_validator
from pydantic_core import PydanticCustomError

from ragas_boot.samples._base import SampleModel, short_repr

__all__ = ["HumanLabel", "LabelVerdict", "MetricLabels", "check_labels"]

#: A person's verdict on a sample; YAML booleans (``true``/``false``) read as pass/fail.
LabelVerdict = Literal["pass", "fail"]

_VERDICT_WORDS = {"pass": "pass", "passed": "pass", "fail": "fail", "failed": "fail"}


class HumanLabel(SampleModel):
    """One person's judgement of one metric on one sample.

    At least one of ``verdict``, ``score`` and ``off_topic`` is given. When a label has no
    verdict, calibration reads one from the score (at or above the metric's threshold is a
    pass) or from ``off_topic`` (empty is a pass: the conversation stayed on topic).
    """

    verdict: LabelVerdict | None = Field(
        default=None,
        description="pass or fail (true/false accepted); the verdict the metric should reach.",
    )
    score: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        allow_inf_nan=False,
        description="The score in [0, 1] the person would give (graded metrics).",
    )
    off_topic: list[str] | None = Field(
        default=None,
        description="TopicAdherence: subjects outside the allowed topics that the conversation "
        "went into; [] means it stayed on topic.",
    )
    on_topic: list[str] | None = Field(
        default=None,
        description="TopicAdherence: the allowed topics the conversation actually covered.",
    )
    annotator: str | None = Field(
        default=None, description="Who gave the label (for the annotators' own agreement)."
    )
    note: str | None = Field(default=None, description="Why, in the annotator's words.")

    @field_validator("verdict", mode="before")
    @classmethod
    def _verdict_words(cls, value: Any) -> Any:
        if isinstance(value, bool):
            return "pass" if value else "fail"
        if isinstance(value, str):
            word = _VERDICT_WORDS.get(value.strip().lower())
            if word is None:
                raise PydanticCustomError(
                    "label_verdict",
                    "expected pass or fail (or true/false), got {value}",
                    {"value": short_repr(value)},
                )
            return word
        return value

    @model_validator(mode="after")
    def _says_something(self) -> HumanLabel:
        if self.verdict is None and self.score is None and self.off_topic is None:
            raise PydanticCustomError(
                "empty_label",
                "a label needs a verdict, a score or off_topic",
                {},
            )
        return self

    def verdict_at(self, threshold: float, *, lower_is_better: bool = False) -> bool:
        """The label's verdict as a pass (True) or fail, given the metric's threshold.

        ``verdict`` when given; else the score against ``threshold`` (at most it when lower
        is better); else whether ``off_topic`` is empty.
        """
        if self.verdict is not None:
            return self.verdict == "pass"
        if self.score is not None:
            return self.score <= threshold if lower_is_better else self.score >= threshold
        return not self.off_topic


def check_labels(value: Any) -> Any:
    """Validate the ``labels`` mapping's keys and annotator names (pydantic ``before`` hook)."""
    if value is None or not isinstance(value, Mapping):
        return value
    for key, labels in value.items():
        if not isinstance(key, str) or not key.strip():
            raise PydanticCustomError(
                "label_metric",
                "label keys are metric names (agent_goal_accuracy, ...), got {key}",
                {"key": short_repr(key)},
            )
        if isinstance(labels, list) and not labels:
            raise PydanticCustomError(
                "empty_labels",
                "give at least one label, or leave the metric out",
                {"path": key},
            )
        if isinstance(labels, list):
            names = [
                entry.get("annotator") if isinstance(entry, Mapping) else None for entry in labels
            ]
            named = [name for name in names if name is not None]
            if len(set(named)) != len(named):
                raise PydanticCustomError(
                    "duplicate_annotator",
                    "annotator names must differ within one metric's labels",
                    {"path": key},
                )
    return value


def _labels_tag(value: Any) -> str:
    return "list" if isinstance(value, list | tuple) else "HumanLabel"


#: One metric's labels: one label, or a list of them (one per annotator).
MetricLabels = Annotated[
    Annotated[HumanLabel, Tag("HumanLabel")] | Annotated[list[HumanLabel], Tag("list")],
    Discriminator(_labels_tag),
]
