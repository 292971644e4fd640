"""ChrfScore: chrF / chrF++ of the response against the reference, computed by sacrebleu."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from pydantic import Field

from ragas_boot.metrics.base import MetricConfig
from ragas_boot.metrics.nlp._text import NlpMetric, NlpScore, require

__all__ = ["ChrfScoreConfig", "ChrfScoreMetric"]


class ChrfScoreConfig(MetricConfig):
    """Config of :class:`ChrfScoreMetric` (sacrebleu's ``CHRF`` arguments, Java names)."""

    char_ngram_order: int = Field(default=6, ge=1, le=10, description="Character n-gram order.")
    word_ngram_order: int = Field(
        default=0, ge=0, le=4, description="Word n-gram order; 2 gives chrF++ (0: plain chrF)."
    )
    beta: int = Field(default=2, ge=1, le=10, description="Recall weight of the F-score.")
    lowercase: bool = Field(default=False, description="Lowercase both texts first.")
    whitespace: bool = Field(
        default=False, description="Keep whitespace in character n-grams (sacrebleu drops it)."
    )
    eps_smoothing: bool = Field(
        default=False, description="sacrebleu's epsilon smoothing (chrF++.py style) instead."
    )


class ChrfScoreMetric(NlpMetric[ChrfScoreConfig]):
    """chrF (0–1), chrF++ with ``word_ngram_order: 2``, from ``sacrebleu.metrics.CHRF``.

    The score is ``CHRF(...).sentence_score(response, [reference]).score / 100``. The Java
    metric kept whitespace, always lowercased and averaged per-order F-scores (see
    docs/metrics.md for the differences in numbers).
    """

    bean_name: ClassVar[str] = "chrf_score"
    name: ClassVar[str] = "ChrfScoreMetric"
    description: ClassVar[str] = "chrF / chrF++ of the response against the reference (sacrebleu)"
    config_type: ClassVar[type[MetricConfig]] = ChrfScoreConfig
    step_name: ClassVar[str] = "ComputeChrf"
    library: ClassVar[str] = "sacrebleu"
    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {"*": ("response", "reference")}

    def compute(self, response: str, reference: str, config: ChrfScoreConfig) -> NlpScore:
        """sacrebleu's sentence chrF / 100 with the config's settings."""
        metrics = require("sacrebleu.metrics", "sacrebleu", self.name)
        chrf = metrics.CHRF(
            char_order=config.char_ngram_order,
            word_order=config.word_ngram_order,
            beta=config.beta,
            lowercase=config.lowercase,
            whitespace=config.whitespace,
            eps_smoothing=config.eps_smoothing,
        )
        score = chrf.sentence_score(response, [reference]).score / 100.0
        label = "chrF++" if config.word_ngram_order else "chrF"
        orders = f"{config.char_ngram_order} char" + (
            f" + {config.word_ngram_order} word" if config.word_ngram_order else ""
        )
        orders_ru = f"символьные до {config.char_ngram_order}" + (
            f", словные до {config.word_ngram_order}" if config.word_ngram_order else ""
        )
        return NlpScore(
            score=score,
            details={"variant": label},
            summary_en=f"{label} {score:.4f} (n-gram orders: {orders}; beta {config.beta}).",
            summary_ru=f"{label} {score:.4f} (n-граммы: {orders_ru}; beta {config.beta}).",
        )
