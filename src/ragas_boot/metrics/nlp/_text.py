"""What the NLP metrics share: the two texts they compare, the lazy library import, the result."""

from __future__ import annotations

import importlib
import time
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, ClassVar, TypeVar

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.errors import MissingExtraError
from ragas_boot.execution.results import StepRecord
from ragas_boot.metrics.base import Metric, MetricConfig, Need, ScoringOutcome
from ragas_boot.metrics.prompting import localized
from ragas_boot.samples import Sample

__all__ = ["NlpMetric", "NlpScore", "require"]

ConfigT = TypeVar("ConfigT", bound=MetricConfig)


def require(module: str, package: str, feature: str) -> ModuleType:
    """Import ``module`` of the ``[nlp]`` extra.

    Raises:
        MissingExtraError: it is not installed; the message gives the pip command.
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtraError(feature, "nlp", package) from None


@dataclass
class NlpScore:
    """A computed score with the figures behind it and a one-line account (en, ru)."""

    score: float
    details: dict[str, Any] = field(default_factory=dict)
    summary_en: str = ""
    summary_ru: str = ""


class NlpMetric(Metric[ConfigT]):
    """Compares ``response`` with ``reference`` through a text-similarity library; no judges.

    A missing, empty or whitespace-only ``response`` or ``reference`` is a
    :class:`SampleValidationError` naming the field (the Java metrics returned ``null``).
    """

    needs: ClassVar[frozenset[Need]] = frozenset()
    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {"*": ("response", "reference")}
    why: ClassVar[str] = "{name} compares the response with the reference text"
    #: Name of the computing step (``ComputeBleu``...).
    step_name: ClassVar[str]
    #: The library that computes the score (recorded in the metadata).
    library: ClassVar[str]

    def total_steps(self, config: ConfigT) -> int:
        """One computed step."""
        return 1

    @abstractmethod
    def compute(self, response: str, reference: str, config: ConfigT) -> NlpScore:
        """The score of ``response`` against ``reference`` (sync, no I/O).

        Raises:
            MissingExtraError: the ``[nlp]`` extra is not installed.
        """

    def _settings_metadata(self, config: ConfigT) -> dict[str, Any]:
        """The config fields that decide the score, for the result's metadata."""
        shared = set(MetricConfig.model_fields)
        return {
            name: value
            for name, value in config.model_dump(mode="json").items()
            if name not in shared
        }

    async def _score(
        self, sample: Sample, config: ConfigT, judges: Sequence[JudgeModel]
    ) -> ScoringOutcome:
        started = time.perf_counter()
        response, reference = sample.response or "", sample.reference or ""
        computed = self.compute(response, reference, config)
        elapsed = time.perf_counter() - started
        language = self._language(config)

        def details() -> tuple[dict[str, Any], str]:
            metadata: dict[str, Any] = {
                "library": self.library,
                **self._settings_metadata(config),
                **computed.details,
            }
            summaries = {"en": computed.summary_en, "ru": computed.summary_ru}
            return metadata, localized(summaries, language)

        return ScoringOutcome(
            model_scores={},
            steps=[StepRecord.computed(self.step_name, 0, elapsed)],
            exclusions=[],
            metadata={},
            explanation="",
            score=min(1.0, max(0.0, computed.score)),
            aggregated=False,
            details=details,
        )
