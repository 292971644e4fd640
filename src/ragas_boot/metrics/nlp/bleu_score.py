"""BleuScore: sentence BLEU of the response against the reference, computed by sacrebleu."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import Field, model_validator

from ragas_boot._enums import CaseInsensitiveEnum
from ragas_boot.metrics.base import MetricConfig
from ragas_boot.metrics.nlp._text import NlpMetric, NlpScore, require

__all__ = ["BleuScoreConfig", "BleuScoreMetric", "BleuSmoothing", "BleuTokenizer"]


class BleuTokenizer(CaseInsensitiveEnum):
    """sacrebleu's tokenizers that need no further package (``tokenize=``)."""

    T13A = "13a"
    """The WMT standard (mteval-v13a): splits punctuation off; any script, Cyrillic included."""
    INTL = "intl"
    """Splits on Unicode punctuation and symbols (mteval-v14 international)."""
    CHAR = "char"
    """Every character is a token."""
    NONE = "none"
    """Whitespace only."""
    ZH = "zh"
    """Chinese: characters of CJK blocks become tokens."""


class BleuSmoothing(CaseInsensitiveEnum):
    """sacrebleu's smoothing methods (``smooth_method=``)."""

    EXP = "exp"
    FLOOR = "floor"
    ADD_K = "add-k"
    NONE = "none"


class BleuScoreConfig(MetricConfig):
    """Config of :class:`BleuScoreMetric` (sacrebleu's ``BLEU`` arguments)."""

    tokenizer: BleuTokenizer = Field(
        default=BleuTokenizer.T13A, description="sacrebleu tokenizer: 13a, intl, char, none, zh."
    )
    lowercase: bool = Field(default=False, description="Lowercase both texts first.")
    max_ngram: int = Field(default=4, ge=1, le=8, description="Highest n-gram order.")
    smoothing: BleuSmoothing = Field(
        default=BleuSmoothing.EXP, description="Smoothing: exp, floor, add-k or none."
    )
    smooth_value: float | None = Field(
        default=None, gt=0.0, description="floor / add-k value; sacrebleu's default when unset."
    )

    @model_validator(mode="after")
    def _value_needs_method(self) -> BleuScoreConfig:
        if self.smooth_value is not None and self.smoothing not in (
            BleuSmoothing.FLOOR,
            BleuSmoothing.ADD_K,
        ):
            raise ValueError("smooth-value applies only to smoothing floor or add-k")
        return self


class BleuScoreMetric(NlpMetric[BleuScoreConfig]):
    """Sentence BLEU (0–1) from ``sacrebleu.metrics.BLEU(effective_order=True)``.

    The score is sacrebleu's ``sentence_score(response, [reference]).score / 100`` with the
    config's tokenizer, case, n-gram order and smoothing. The Java metric had its own
    tokenizer (letters outside Latin and Russian dropped), add-one smoothing on every order and
    skipped zero precisions; its numbers differ (see docs/metrics.md).
    """

    bean_name: ClassVar[str] = "bleu_score"
    name: ClassVar[str] = "BleuScoreMetric"
    description: ClassVar[str] = "Sentence BLEU of the response against the reference (sacrebleu)"
    config_type: ClassVar[type[MetricConfig]] = BleuScoreConfig
    step_name: ClassVar[str] = "ComputeBleu"
    library: ClassVar[str] = "sacrebleu"
    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {"*": ("response", "reference")}

    def compute(self, response: str, reference: str, config: BleuScoreConfig) -> NlpScore:
        """sacrebleu's sentence BLEU / 100 with the config's settings."""
        metrics = require("sacrebleu.metrics", "sacrebleu", self.name)
        kwargs: dict[str, Any] = {
            "tokenize": config.tokenizer.value,
            "lowercase": config.lowercase,
            "max_ngram_order": config.max_ngram,
            "smooth_method": config.smoothing.value,
            "effective_order": True,
        }
        if config.smooth_value is not None:
            kwargs["smooth_value"] = config.smooth_value
        result = metrics.BLEU(**kwargs).sentence_score(response, [reference])
        score = result.score / 100.0
        precisions = [round(p / 100.0, 6) for p in result.precisions]
        details = {
            "precisions": precisions,
            "brevity_penalty": result.bp,
            "response_length": result.sys_len,
            "reference_length": result.ref_len,
        }
        shown = ", ".join(f"{p:.3f}" for p in precisions)
        return NlpScore(
            score=score,
            details=details,
            summary_en=(
                f"BLEU {score:.4f}: n-gram precisions [{shown}], brevity penalty "
                f"{result.bp:.3f} ({result.sys_len} response / {result.ref_len} reference "
                f"tokens, tokenizer {config.tokenizer.value})."
            ),
            summary_ru=(
                f"BLEU {score:.4f}: точности n-грамм [{shown}], штраф за краткость "
                f"{result.bp:.3f} (токенов: ответ {result.sys_len}, эталон {result.ref_len}, "
                f"токенизатор {config.tokenizer.value})."
            ),
        )
