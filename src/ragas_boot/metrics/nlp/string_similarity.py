"""StringSimilarity: whole-string similarity of response and reference, computed by rapidfuzz."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from pydantic import Field

from ragas_boot._enums import CaseInsensitiveEnum
from ragas_boot.metrics.base import MetricConfig
from ragas_boot.metrics.nlp._text import NlpMetric, NlpScore, require

__all__ = ["DistanceMeasure", "StringSimilarityConfig", "StringSimilarityMetric"]


class DistanceMeasure(CaseInsensitiveEnum):
    """The measure (Java names); each is a ``rapidfuzz.distance`` module."""

    LEVENSHTEIN = "LEVENSHTEIN"
    HAMMING = "HAMMING"
    JARO = "JARO"
    JARO_WINKLER = "JARO_WINKLER"


_MODULE = {
    DistanceMeasure.LEVENSHTEIN: "Levenshtein",
    DistanceMeasure.HAMMING: "Hamming",
    DistanceMeasure.JARO: "Jaro",
    DistanceMeasure.JARO_WINKLER: "JaroWinkler",
}


class StringSimilarityConfig(MetricConfig):
    """Config of :class:`StringSimilarityMetric`."""

    distance_measure: DistanceMeasure = Field(
        default=DistanceMeasure.JARO_WINKLER,
        description="LEVENSHTEIN, HAMMING, JARO or JARO_WINKLER (default).",
    )
    case_sensitive: bool = Field(
        default=False, description="Compare case as is; false lowercases both strings."
    )


class StringSimilarityMetric(NlpMetric[StringSimilarityConfig]):
    """``rapidfuzz.distance.<Measure>.normalized_similarity(response, reference)`` (0–1).

    Whole strings, no tokenisation, characters counted as code points. Hamming compares
    strings of different lengths by counting every extra character as a mismatch (rapidfuzz's
    ``pad=True``); the Java metric padded with spaces, and its Jaro-Winkler kept fractional
    half-transpositions, so a few pairs score differently (see docs/metrics.md).
    """

    bean_name: ClassVar[str] = "string_similarity"
    name: ClassVar[str] = "StringSimilarityMetric"
    description: ClassVar[str] = (
        "Levenshtein, Hamming, Jaro or Jaro-Winkler similarity of response and reference"
    )
    config_type: ClassVar[type[MetricConfig]] = StringSimilarityConfig
    step_name: ClassVar[str] = "ComputeSimilarity"
    library: ClassVar[str] = "rapidfuzz"
    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {"*": ("response", "reference")}

    def compute(self, response: str, reference: str, config: StringSimilarityConfig) -> NlpScore:
        """rapidfuzz's normalized similarity for the config's measure."""
        distance = require("rapidfuzz.distance", "rapidfuzz", self.name)
        if not config.case_sensitive:
            response, reference = response.lower(), reference.lower()
        measure = getattr(distance, _MODULE[config.distance_measure])
        score = float(measure.normalized_similarity(response, reference))
        case = "case-sensitive" if config.case_sensitive else "case-insensitive"
        case_ru = "с учётом регистра" if config.case_sensitive else "без учёта регистра"
        name = config.distance_measure.value.replace("_", "-").title()
        return NlpScore(
            score=score,
            details={"characters": [len(response), len(reference)]},
            summary_en=(
                f"{name} similarity {score:.4f} ({case}; {len(response)} vs "
                f"{len(reference)} characters)."
            ),
            summary_ru=(
                f"Сходство {name} {score:.4f} ({case_ru}; символов: {len(response)} и "
                f"{len(reference)})."
            ),
        )
