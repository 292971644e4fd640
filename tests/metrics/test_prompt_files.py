"""Shipped prompt templates: every prompt comes in both languages with the same placeholders."""

from __future__ import annotations

import pytest

from ragas_boot.metrics.prompting import check_template, load_prompt, prompt_placeholders

NAMES = sorted(prompt_placeholders())


def test_the_agent_metrics_prompts_are_found_from_their_files():
    assert {"classify_topics", "compare_outcome", "evaluate_outcome", "extract_topics"} <= set(
        NAMES
    )
    assert prompt_placeholders()["compare_outcome"] == {"reference", "conversation"}


@pytest.mark.parametrize("name", NAMES)
def test_each_prompt_has_a_russian_twin_with_the_same_placeholders(name):
    english = load_prompt(name, "en")
    russian = load_prompt(name, "ru")
    assert russian != english
    check_template(name, russian)
    assert prompt_placeholders()[name], f"{name}.txt uses no placeholder"


def test_an_unknown_prompt_name_lists_the_known_ones():
    with pytest.raises(ValueError, match=r"no prompt named 'nope'; known: .*compare_outcome"):
        check_template("nope", "{conversation}")
