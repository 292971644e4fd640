"""RougeScore: ROUGE-1/2/L of the response against the reference, computed by rouge-score."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from pydantic import Field, model_validator

from ragas_boot._enums import CaseInsensitiveEnum
from ragas_boot.metrics.base import MetricConfig
from ragas_boot.metrics.nlp._text import NlpMetric, NlpScore, require

__all__ = [
    "RougeMode",
    "RougeScoreConfig",
    "RougeScoreMetric",
    "RougeStemmer",
    "RougeTokenizer",
    "UnicodeTokenizer",
]


class RougeType(CaseInsensitiveEnum):
    """Which ROUGE (the Java names)."""

    ROUGE_1 = "ROUGE_1"
    ROUGE_2 = "ROUGE_2"
    ROUGE_L = "ROUGE_L"


_LIBRARY_TYPE = {
    RougeType.ROUGE_1: "rouge1",
    RougeType.ROUGE_2: "rouge2",
    RougeType.ROUGE_L: "rougeL",
}


class RougeMode(CaseInsensitiveEnum):
    """Which figure is the score."""

    FMEASURE = "FMEASURE"
    PRECISION = "PRECISION"
    RECALL = "RECALL"


class RougeTokenizer(CaseInsensitiveEnum):
    """How texts become tokens."""

    UNICODE = "UNICODE"
    """Lowercase, then runs of Unicode letters and digits (Cyrillic, accents, any script)."""
    ROUGE_SCORE = "ROUGE_SCORE"
    """rouge-score's default: lowercase, keeps only ``[a-z0-9]`` (drops Cyrillic entirely)."""


class RougeStemmer(CaseInsensitiveEnum):
    """Stemming of tokens longer than three characters (as rouge-score does)."""

    NONE = "NONE"
    ENGLISH = "ENGLISH"
    """Porter (rouge-score's ``use_stemmer=True``)."""
    RUSSIAN = "RUSSIAN"
    """nltk's Snowball stemmer for Russian (UNICODE tokenizer only)."""


class RougeScoreConfig(MetricConfig):
    """Config of :class:`RougeScoreMetric`."""

    rouge_type: RougeType = Field(
        default=RougeType.ROUGE_L, description="ROUGE_1, ROUGE_2 or ROUGE_L (LCS)."
    )
    mode: RougeMode = Field(
        default=RougeMode.FMEASURE, description="FMEASURE (default), PRECISION or RECALL."
    )
    tokenizer: RougeTokenizer = Field(
        default=RougeTokenizer.UNICODE,
        description="UNICODE (any script) or ROUGE_SCORE (rouge-score's own, [a-z0-9] only).",
    )
    stemmer: RougeStemmer = Field(
        default=RougeStemmer.NONE, description="NONE, ENGLISH (Porter) or RUSSIAN (Snowball)."
    )

    @model_validator(mode="after")
    def _stemmer_fits_tokenizer(self) -> RougeScoreConfig:
        if self.tokenizer is RougeTokenizer.ROUGE_SCORE and self.stemmer is RougeStemmer.RUSSIAN:
            raise ValueError(
                "stemmer RUSSIAN needs tokenizer UNICODE: rouge-score's own tokenizer drops "
                "Cyrillic letters"
            )
        return self


_WORD = re.compile(r"[^\W_]+")


class UnicodeTokenizer:
    """A rouge-score tokenizer (duck-typed ``tokenize``) that keeps every script.

    Lowercases, takes runs of Unicode letters and digits (so ``"Привет, мир!"`` gives
    ``["привет", "мир"]`` where rouge-score's default gives nothing), and stems tokens longer
    than three characters when given a stemmer, as rouge-score's own tokenizer does.
    """

    def __init__(self, stem: Callable[[str], str] | None = None) -> None:
        self._stem = stem

    def tokenize(self, text: str) -> list[str]:
        """The tokens of ``text``."""
        tokens = _WORD.findall(text.lower())
        if self._stem is not None:
            stem = self._stem
            tokens = [stem(token) if len(token) > 3 else token for token in tokens]
        return tokens


def _stemmer(kind: RougeStemmer, feature: str) -> Callable[[str], str] | None:
    if kind is RougeStemmer.NONE:
        return None
    stem = require("nltk.stem", "rouge-score", feature)
    if kind is RougeStemmer.ENGLISH:
        return stem.porter.PorterStemmer().stem  # type: ignore[no-any-return]
    return stem.SnowballStemmer("russian").stem  # type: ignore[no-any-return]


class RougeScoreMetric(NlpMetric[RougeScoreConfig]):
    """ROUGE-1, ROUGE-2 or ROUGE-L (F-measure, precision or recall) from rouge-score.

    The score is ``rouge_scorer.RougeScorer([type], tokenizer=...).score(reference,
    response)``. By default the tokenizer is :class:`UnicodeTokenizer`: rouge-score's own
    keeps only ``[a-z0-9]``, so Russian text would score 0 (choose ``tokenizer: ROUGE_SCORE``
    to get rouge-score's default exactly).
    """

    bean_name: ClassVar[str] = "rouge_score"
    name: ClassVar[str] = "RougeScoreMetric"
    description: ClassVar[str] = "ROUGE-1/2/L of the response against the reference (rouge-score)"
    config_type: ClassVar[type[MetricConfig]] = RougeScoreConfig
    step_name: ClassVar[str] = "ComputeRouge"
    library: ClassVar[str] = "rouge-score"
    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {"*": ("response", "reference")}

    def scorer(self, config: RougeScoreConfig) -> Any:
        """The ``rouge_scorer.RougeScorer`` this config computes with."""
        rouge_scorer = require("rouge_score.rouge_scorer", "rouge-score", self.name)
        kind = _LIBRARY_TYPE[config.rouge_type]
        if config.tokenizer is RougeTokenizer.ROUGE_SCORE:
            return rouge_scorer.RougeScorer(
                [kind], use_stemmer=config.stemmer is RougeStemmer.ENGLISH
            )
        tokenizer = UnicodeTokenizer(_stemmer(config.stemmer, self.name))
        return rouge_scorer.RougeScorer([kind], tokenizer=tokenizer)

    def compute(self, response: str, reference: str, config: RougeScoreConfig) -> NlpScore:
        """rouge-score's figure for the config's type and mode."""
        kind = _LIBRARY_TYPE[config.rouge_type]
        figures = self.scorer(config).score(reference, response)[kind]
        values = {
            RougeMode.PRECISION: float(figures.precision),
            RougeMode.RECALL: float(figures.recall),
            RougeMode.FMEASURE: float(figures.fmeasure),
        }
        score = values[config.mode]
        precision, recall, fmeasure = values.values()
        label = config.rouge_type.value.replace("_", "-")
        return NlpScore(
            score=score,
            details={"precision": precision, "recall": recall, "fmeasure": fmeasure},
            summary_en=(
                f"{label} {config.mode.value.lower()} {score:.4f} (precision {precision:.4f}, "
                f"recall {recall:.4f}, F1 {fmeasure:.4f}; tokenizer {config.tokenizer.value}, "
                f"stemmer {config.stemmer.value})."
            ),
            summary_ru=(
                f"{label} {config.mode.value.lower()} {score:.4f} (точность {precision:.4f}, "
                f"полнота {recall:.4f}, F1 {fmeasure:.4f}; токенизатор "
                f"{config.tokenizer.value}, стемминг {config.stemmer.value})."
            ),
        )
