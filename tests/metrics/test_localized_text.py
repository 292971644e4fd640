"""One reading of a language for every localized text: templates, explanations and labels."""

from __future__ import annotations

import pytest

from ragas_boot import Sample
from ragas_boot.metrics.general._judging import render_interaction
from ragas_boot.metrics.prompting import load_prompt, localized, prompt_language
from ragas_boot.metrics.steps.explain import mean_text, outcome_text

TABLE = {"en": "hello", "ru": "привет"}


@pytest.mark.parametrize(
    ("given", "resolved"),
    [
        ("ru", "ru"),
        ("RU", "ru"),
        (" Ru ", "ru"),
        ("en", "en"),
        ("de", "en"),
        ("", "en"),
        (None, "en"),
    ],
)
def test_a_language_resolves_to_a_translation_or_to_english(given, resolved):
    assert prompt_language(given) == resolved
    assert localized(TABLE, given) == TABLE[resolved]


def test_a_table_without_the_language_falls_back_to_english():
    assert localized({"en": ["only english"]}, "ru") == ["only english"]


def test_a_table_with_neither_the_language_nor_english_names_the_missing_key():
    with pytest.raises(KeyError, match="en"):
        localized({"ru": "только русский"}, "de")


@pytest.mark.parametrize("language", ["RU", "Ru"])
def test_explanations_and_labels_follow_the_language_as_templates_do(language):
    # The template loader always read "RU" as Russian; the explanation sentences and the
    # interaction's labels read it as English before they shared one reading.
    assert load_prompt("aspect_critic", language) == load_prompt("aspect_critic", "ru")
    assert mean_text(language, {"a": 1.0}) == mean_text("ru", {"a": 1.0})
    assert outcome_text(language, ["x"], [], lower_is_better=True) == outcome_text(
        "ru", ["x"], [], lower_is_better=True
    )
    sample = Sample(user_input="Где заказ?", response="Завтра.")
    assert render_interaction(sample, language) == render_interaction(sample, "ru")
    assert render_interaction(sample, language) != render_interaction(sample, "en")


def test_an_untranslated_language_is_english_everywhere():
    sample = Sample(user_input="Wo ist?", response="Morgen.")
    assert load_prompt("aspect_critic", "de") == load_prompt("aspect_critic", "en")
    assert mean_text("de", {"a": 0.5}) == "mean over 1 judge(s): 0.50"
    assert render_interaction(sample, "de") == render_interaction(sample, "en")
