"""The chunker, averaging and cosine against the Java TextChunker's test table."""

from __future__ import annotations

import math

import pytest

from ragas_boot.metrics.embeddings.vectors import (
    LongTextStrategy,
    average_vectors,
    cosine_similarity,
    estimate_tokens,
    prepare_texts,
    split_into_chunks,
    truncate_to_tokens,
)


@pytest.mark.parametrize(
    ("text", "tokens"),
    [("123456789", 3), ("1234567890", 4), ("abc", 1), ("a", 1), ("", 0), (None, 0)],
)
def test_estimate_tokens_is_java_ceil_of_chars_over_three(text, tokens):
    assert estimate_tokens(text) == tokens


def test_truncate_keeps_max_tokens_times_chars_per_token():
    assert len(truncate_to_tokens("a" * 300, 10)) == 30
    assert len(truncate_to_tokens("a" * 300, 10, 2.0)) == 20
    short = "Short text."
    assert truncate_to_tokens(short, 10) is short


def test_a_short_text_is_one_unchanged_chunk():
    assert split_into_chunks("This is a short text.", 512) == ["This is a short text."]
    assert split_into_chunks("", 512) == [""]


def test_sentences_are_packed_greedily_within_the_budget():
    text = "First sentence here. Second sentence here. Third sentence here. Fourth one here."
    chunks = split_into_chunks(text, 20)
    assert len(chunks) == 2
    assert all(estimate_tokens(chunk) <= 20 for chunk in chunks)
    assert " ".join(chunks) == text


def test_a_piece_longer_than_the_budget_is_hard_split():
    chunks = split_into_chunks("a" * 300, 30)
    assert [len(chunk) for chunk in chunks] == [90, 90, 90, 30]
    assert "".join(chunks) == "a" * 300
    words = ("word " * 200).strip()
    chunks = split_into_chunks(words, 40)
    assert [len(chunk) for chunk in chunks] == [120] * 8 + [39]


def test_russian_text_splits_more_with_fewer_chars_per_token():
    text = "Это предложение на русском языке. " * 18
    assert len(split_into_chunks(text.strip(), 100, 3.0)) == 3
    assert len(split_into_chunks(text.strip(), 100, 2.0)) == 4
    cyrillic = ("Семантическое сходство текста проверяется на русском языке сегодня. " * 4)[:264]
    assert len(split_into_chunks(cyrillic, 100, 3.0)) == 1
    assert len(split_into_chunks(cyrillic, 100, 2.5)) > 1


def test_newlines_split_and_the_separators_are_dropped():
    chunks = split_into_chunks("line one\nline two\n\nline three", 4)
    assert chunks == ["line one", "line two", "line three"]


def test_java_semantic_similarity_chunk_counts():
    response = "This is a sentence about response. " * 60
    assert len(split_into_chunks(response, 512)) == 2
    assert len(split_into_chunks("Long sentence. " * 200, 50)) == 20


def test_prepare_texts_by_strategy():
    text = "a" * 300
    assert prepare_texts(text, LongTextStrategy.CHUNK, 30) == split_into_chunks(text, 30)
    assert prepare_texts(text, LongTextStrategy.TRUNCATE, 30) == ["a" * 90]
    assert prepare_texts(text, LongTextStrategy.FAIL_FAST, 30) == [text]


def test_average_vectors():
    assert average_vectors([[1, 2, 3], [3, 4, 5]]) == [2, 3, 4]
    assert average_vectors([[1.5, 2.5]]) == [1.5, 2.5]
    with pytest.raises(ValueError, match="must not be empty"):
        average_vectors([])
    with pytest.raises(ValueError, match="Expected 2 but got 3"):
        average_vectors([[1, 2], [1, 2, 3]])


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ([1, 0, 0], [1, 0, 0], 1.0),
        ([1, 0, 0], [0, 1, 0], 0.0),
        ([1, 0, 0], [0.866, 0.5, 0], 0.866 / math.hypot(0.866, 0.5)),
        ([1, 0], [-1, 0], -1.0),
        ([0, 0], [1, 0], 0.0),
    ],
)
def test_cosine_similarity(a, b, expected):
    assert cosine_similarity(a, b) == pytest.approx(expected)


def test_cosine_of_vectors_of_different_sizes_is_an_error():
    with pytest.raises(ValueError, match="differ in size"):
        cosine_similarity([1, 0], [1, 0, 0])
