"""BLEU, ROUGE, chrF and string similarity: our scores are the libraries' own figures."""

from __future__ import annotations

import pytest
from rapidfuzz.distance import Hamming, Jaro, JaroWinkler, Levenshtein
from rouge_score import rouge_scorer
from sacrebleu.metrics import BLEU, CHRF

from ragas_boot import MissingExtraError, Sample, SampleValidationError
from ragas_boot.metrics.nlp._text import require
from ragas_boot.metrics.nlp.bleu_score import BleuScoreConfig, BleuScoreMetric
from ragas_boot.metrics.nlp.chrf_score import ChrfScoreConfig, ChrfScoreMetric
from ragas_boot.metrics.nlp.rouge_score import (
    RougeScoreConfig,
    RougeScoreMetric,
    UnicodeTokenizer,
)
from ragas_boot.metrics.nlp.string_similarity import (
    StringSimilarityConfig,
    StringSimilarityMetric,
)

# Pairs from the Java unit and integration tests (spec §9), English and Russian.
PAIRS = [
    ("The quick brown fox jumps over the lazy dog", "The quick brown fox jumps over the lazy dog"),
    ("The quick brown fox jumps over the dog", "The quick brown fox jumps over the lazy dog"),
    ("The fox", "The quick brown fox jumps over the lazy dog"),
    ("Hello, world! How are you?", "Hello world How are you"),
    ("cat", "dog"),
    ("THE QUICK BROWN FOX", "the quick brown fox"),
    ("Москва является столицей России.", "Москва - столица Российской Федерации."),
    ("Кот сидит на коврике.", "Кот лежит на мягком коврике."),
    ("Я вижу красивый дом.", "Я вижу красивого дома."),
    ("прывет как дила", "привет как дела"),
]


def sample(response: str, reference: str) -> Sample:
    return Sample(response=response, reference=reference)


@pytest.mark.parametrize(("response", "reference"), PAIRS)
@pytest.mark.parametrize(
    "config",
    [
        BleuScoreConfig(),
        BleuScoreConfig(tokenizer="intl", lowercase=True),
        BleuScoreConfig(smoothing="add-k", smooth_value=1.0, max_ngram=2),
        BleuScoreConfig(tokenizer="char", smoothing="none"),
    ],
)
def test_bleu_equals_sacrebleu(response, reference, config):
    expected = BLEU(
        tokenize=config.tokenizer.value,
        lowercase=config.lowercase,
        smooth_method=config.smoothing.value,
        smooth_value=config.smooth_value,
        max_ngram_order=config.max_ngram,
        effective_order=True,
    ).sentence_score(response, [reference])
    result = BleuScoreMetric().evaluate(sample(response, reference), config)
    assert result.score == pytest.approx(expected.score / 100, abs=1e-12)
    assert result.metadata["brevity_penalty"] == expected.bp
    assert result.metadata["library"] == "sacrebleu"


def test_bleu_java_cases_by_value():
    metric = BleuScoreMetric()
    assert metric.single_turn_score(sample(*PAIRS[0])) == pytest.approx(1.0)
    assert metric.single_turn_score(sample(*PAIRS[2])) == pytest.approx(0.0214, abs=1e-4)
    # sacrebleu keeps case: the Java metric (always lowercased) said 1.0 here.
    assert metric.single_turn_score(sample(*PAIRS[5])) == 0.0
    assert metric.single_turn_score(sample(*PAIRS[5]), {"lowercase": True}) == pytest.approx(1.0)
    assert metric.single_turn_score(
        sample("Добрый день всем", "Добрый день всем")
    ) == pytest.approx(1.0)


@pytest.mark.parametrize(("response", "reference"), PAIRS)
@pytest.mark.parametrize(
    "config",
    [
        ChrfScoreConfig(),
        ChrfScoreConfig(word_ngram_order=2),
        ChrfScoreConfig(beta=1, lowercase=True, whitespace=True),
        ChrfScoreConfig(char_ngram_order=3, eps_smoothing=True),
    ],
)
def test_chrf_equals_sacrebleu(response, reference, config):
    expected = CHRF(
        char_order=config.char_ngram_order,
        word_order=config.word_ngram_order,
        beta=config.beta,
        lowercase=config.lowercase,
        whitespace=config.whitespace,
        eps_smoothing=config.eps_smoothing,
    ).sentence_score(response, [reference])
    result = ChrfScoreMetric().evaluate(sample(response, reference), config)
    assert result.score == pytest.approx(expected.score / 100, abs=1e-12)
    assert result.metadata["variant"] == ("chrF++" if config.word_ngram_order else "chrF")


@pytest.mark.parametrize(("response", "reference"), PAIRS)
@pytest.mark.parametrize("kind", ["ROUGE_1", "ROUGE_2", "ROUGE_L"])
@pytest.mark.parametrize("stemmer", ["NONE", "ENGLISH"])
def test_rouge_with_its_own_tokenizer_equals_rouge_score(response, reference, kind, stemmer):
    library = {"ROUGE_1": "rouge1", "ROUGE_2": "rouge2", "ROUGE_L": "rougeL"}[kind]
    expected = rouge_scorer.RougeScorer([library], use_stemmer=stemmer == "ENGLISH").score(
        reference, response
    )[library]
    metric = RougeScoreMetric()
    for mode, value in (
        ("FMEASURE", expected.fmeasure),
        ("PRECISION", expected.precision),
        ("RECALL", expected.recall),
    ):
        config = RougeScoreConfig(
            rouge_type=kind, mode=mode, tokenizer="ROUGE_SCORE", stemmer=stemmer
        )
        assert metric.evaluate(sample(response, reference), config).score == pytest.approx(value)


@pytest.mark.parametrize(("response", "reference"), PAIRS)
@pytest.mark.parametrize("stemmer", ["NONE", "RUSSIAN"])
def test_rouge_unicode_tokenizer_is_rouge_score_with_that_tokenizer(response, reference, stemmer):
    from nltk.stem import SnowballStemmer

    stem = SnowballStemmer("russian").stem if stemmer == "RUSSIAN" else None
    expected = rouge_scorer.RougeScorer(["rougeL"], tokenizer=UnicodeTokenizer(stem)).score(
        reference, response
    )["rougeL"]
    config = RougeScoreConfig(stemmer=stemmer)
    score = RougeScoreMetric().single_turn_score(sample(response, reference), config)
    assert score == pytest.approx(expected.fmeasure)


def test_rouge_keeps_cyrillic_where_rouge_scores_default_drops_it():
    pair = sample("Кот сидит на коврике.", "Кот лежит на мягком коврике.")
    metric = RougeScoreMetric()
    assert metric.single_turn_score(pair) == pytest.approx(0.6667, abs=1e-4)  # Java: 0.6667
    assert metric.single_turn_score(pair, {"tokenizer": "ROUGE_SCORE"}) == 0.0
    assert UnicodeTokenizer().tokenize("Ёлка, café naïve test_case 5:30") == [
        "ёлка",
        "café",
        "naïve",
        "test",
        "case",
        "5",
        "30",
    ]
    # Stemming makes inflected Russian forms meet.
    forms = sample("Красивый дом стоит на холме.", "Красивые дома стоят на холмах.")
    plain = metric.single_turn_score(forms, {"rouge_type": "ROUGE_1"})
    stemmed = metric.single_turn_score(forms, {"rouge_type": "ROUGE_1", "stemmer": "RUSSIAN"})
    assert stemmed > plain


def test_rouge_russian_stemmer_needs_the_unicode_tokenizer():
    with pytest.raises(ValueError, match="stemmer RUSSIAN needs tokenizer UNICODE"):
        RougeScoreConfig(tokenizer="ROUGE_SCORE", stemmer="RUSSIAN")


@pytest.mark.parametrize(("response", "reference"), [*PAIRS, ("hello", "hello world")])
@pytest.mark.parametrize("case_sensitive", [True, False])
def test_string_similarity_equals_rapidfuzz(response, reference, case_sensitive):
    metric = StringSimilarityMetric()
    a, b = (response, reference) if case_sensitive else (response.lower(), reference.lower())
    for measure, module in (
        ("LEVENSHTEIN", Levenshtein),
        ("HAMMING", Hamming),
        ("JARO", Jaro),
        ("JARO_WINKLER", JaroWinkler),
    ):
        config = StringSimilarityConfig(distance_measure=measure, case_sensitive=case_sensitive)
        score = metric.single_turn_score(sample(response, reference), config)
        assert score == pytest.approx(module.normalized_similarity(a, b))


@pytest.mark.parametrize(
    ("response", "reference", "measure", "case_sensitive", "expected"),
    [
        ("hello", "hallo", "LEVENSHTEIN", False, 0.8),
        ("kitten", "sitting", "levenshtein", False, 0.5714),
        ("martha", "marhta", "JARO", False, 0.9444),
        ("receive", "recieve", "JARO_WINKLER", False, 0.9667),
        ("HELLO", "hello", "JARO_WINKLER", False, 1.0),
        ("HELLO", "hello", "LEVENSHTEIN", True, 0.0),
        ("программирование", "программист", "JARO_WINKLER", False, 0.8761),
        ("ёлка", "елка", "JARO_WINKLER", False, 0.8333),
        ("hello", "hello world", "HAMMING", False, 0.4545),  # Java padded with spaces: 0.5455
        ("ccabb", "bcbcab", "JARO_WINKLER", False, 0.8778),  # Java (commons-text): 0.8444
    ],
)
def test_string_similarity_java_cases(response, reference, measure, case_sensitive, expected):
    config = {"distance_measure": measure, "case_sensitive": case_sensitive}
    score = StringSimilarityMetric().single_turn_score(sample(response, reference), config)
    assert score == pytest.approx(expected, abs=1e-4)


@pytest.mark.parametrize(
    "metric", [BleuScoreMetric, RougeScoreMetric, ChrfScoreMetric, StringSimilarityMetric]
)
@pytest.mark.parametrize(
    ("fields", "field", "what"),
    [
        ({"reference": "x"}, "response", "missing"),
        ({"response": "x"}, "reference", "missing"),
        ({"response": "", "reference": "x"}, "response", "empty"),
        ({"response": "x", "reference": " \n"}, "reference", "empty"),
    ],
)
def test_missing_or_empty_text_names_the_field(metric, fields, field, what):
    with pytest.raises(SampleValidationError, match=f"sample field '{field}': is {what}"):
        metric().evaluate(Sample(**fields))


@pytest.mark.parametrize(
    "metric", [BleuScoreMetric, RougeScoreMetric, ChrfScoreMetric, StringSimilarityMetric]
)
def test_result_shape_and_async_twin(metric):
    import asyncio

    bean = metric()
    pair = sample("Возврат 5500 руб. оформлен", "Возврат на сумму 5500 руб. оформлен")
    result = bean.evaluate(pair, {"language": "ru"})
    assert 0.0 < result.score <= 1.0
    assert result.judge_ids == []
    assert [step.kind for step in result.steps] == ["COMPUTE"]
    assert result.explanation and result.language == "ru"
    assert asyncio.run(bean.single_turn_ascore(pair)) == bean.single_turn_score(pair)


@pytest.mark.parametrize(
    ("config", "values"),
    [
        (BleuScoreConfig, {"max_ngram": 0}),
        (BleuScoreConfig, {"tokenizer": "ja-mecab"}),
        (BleuScoreConfig, {"smooth_value": 0.1}),
        (ChrfScoreConfig, {"char_ngram_order": 0}),
        (ChrfScoreConfig, {"beta": 0}),
        (StringSimilarityConfig, {"distance_measure": "cosine"}),
        (RougeScoreConfig, {"rouge_type": "ROUGE_3"}),
    ],
)
def test_bad_config_values(config, values):
    with pytest.raises(ValueError):  # noqa: PT011 - the message is pydantic's
        config(**values)


def test_a_missing_library_says_which_extra_to_install():
    with pytest.raises(MissingExtraError, match=r"pip install 'ragas-boot\[nlp\]'"):
        require("no_such_module_for_ragas_boot", "sacrebleu", "BleuScoreMetric")


def _docs_table_rows() -> list[list[str]]:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "metrics.md").read_text("utf-8")
    section = text.split("### Our scores beside the libraries", 1)[1].split("\n### ", 1)[0]
    rows = [line.strip("|").split(" | ") for line in section.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in row] for row in rows if row[0].strip() != "response"]


def test_the_docs_table_is_what_the_metrics_and_libraries_give():
    rows = _docs_table_rows()
    assert len(rows) == 10  # five English, five Russian
    lib_rouge = rouge_scorer.RougeScorer(["rougeL"])
    unicode_rouge = rouge_scorer.RougeScorer(["rougeL"], tokenizer=UnicodeTokenizer())
    for response, reference, *shown in rows:
        pair = sample(response, reference)
        computed = [
            BleuScoreMetric().single_turn_score(pair),
            BLEU(effective_order=True).sentence_score(response, [reference]).score / 100,
            RougeScoreMetric().single_turn_score(pair),
            lib_rouge.score(reference, response)["rougeL"].fmeasure,
            unicode_rouge.score(reference, response)["rougeL"].fmeasure,
            ChrfScoreMetric().single_turn_score(pair),
            CHRF().sentence_score(response, [reference]).score / 100,
            StringSimilarityMetric().single_turn_score(pair),
            JaroWinkler.normalized_similarity(response.lower(), reference.lower()),
        ]
        assert shown == [f"{value:.4f}" for value in computed], response
