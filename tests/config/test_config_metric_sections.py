"""Metric sections are validated by the models the caller passes, never by a hook.

The config layer knows nothing of metrics: ``load_settings(metric_sections=...)`` takes the
model of each ``spring.ai.ragas.metrics.<bean-name>`` section as an argument
(``ragas_boot.load_settings`` passes the registry's), and each call uses only what it is given.
"""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict, Field, SecretStr

from ragas_boot import ConfigError, create_container
from ragas_boot.config import load_settings


class WordBudget(BaseModel):
    """The section of a metric the registry has never heard of."""

    model_config = ConfigDict(
        extra="forbid", populate_by_name=True, alias_generator=lambda name: name.replace("_", "-")
    )

    most_words: int = Field(default=5, ge=1)
    labels: list[str] = Field(default_factory=list)
    token: SecretStr | None = None


SECTIONS = {"word_budget": WordBudget}


def test_a_section_is_validated_by_the_model_given_naming_key_and_file(write_yaml):
    path = write_yaml("spring.ai.ragas.metrics.word-budget:\n  most-wrds: 3\n")

    with pytest.raises(ConfigError) as error:
        load_settings(path, environ={}, metric_sections=SECTIONS)

    assert error.value.key == "spring.ai.ragas.metrics.word-budget.most-wrds"
    assert error.value.file == str(path)
    assert error.value.hint == "did you mean 'most-words'?"


def test_a_bad_value_in_a_given_section_is_named_and_a_secret_never_echoed(write_yaml):
    path = write_yaml(
        "spring.ai.ragas.metrics.word-budget:\n  most-words: 0\n  token: [s3cr3t-value]\n"
    )

    with pytest.raises(ConfigError) as error:
        load_settings(path, environ={}, metric_sections=SECTIONS)

    message = str(error.value)
    assert "spring.ai.ragas.metrics.word-budget.most-words" in message
    assert "spring.ai.ragas.metrics.word-budget.token" in message
    assert "s3cr3t-value" not in message


def test_a_given_section_takes_relaxed_names_comma_lists_and_the_environment(write_yaml):
    path = write_yaml(
        "spring.ai.ragas.metrics.wordBudget:\n  mostWords: 3\n  labels: короткий,длинный\n"
    )

    settings = load_settings(
        path,
        environ={"SPRING_AI_RAGAS_METRICS_WORDBUDGET_MOSTWORDS": "4"},
        metric_sections=SECTIONS,
    )

    assert settings.metrics.word_budget == {"most-words": "4", "labels": ["короткий", "длинный"]}
    origins = settings.source.origins
    assert origins["spring.ai.ragas.metrics.word-budget.most-words"] == (
        "env:SPRING_AI_RAGAS_METRICS_WORDBUDGET_MOSTWORDS"
    )


def test_each_call_uses_only_the_sections_it_is_given(write_yaml):
    path = write_yaml("spring.ai.ragas.metrics.word-budget.most-words: 3\n")

    assert load_settings(path, environ={}, metric_sections=SECTIONS).metrics.word_budget == {
        "most-words": 3
    }
    with pytest.raises(ConfigError) as error:
        load_settings(path, environ={}, metric_sections={"word_budgets": WordBudget})
    assert error.value.key == "spring.ai.ragas.metrics.word-budget"
    assert error.value.hint == "did you mean 'word-budgets'?"
    with pytest.raises(ConfigError, match="unknown key"):
        load_settings(path, environ={}, metric_sections={})
    # The first call's sections were not kept anywhere.
    assert load_settings(path, environ={}, metric_sections=SECTIONS).metrics.word_budget == {
        "most-words": 3
    }


def test_an_empty_section_given_is_its_defaults(write_yaml):
    path = write_yaml("spring.ai.ragas.metrics.word-budget:\n")

    settings = load_settings(path, environ={}, metric_sections=SECTIONS)

    assert settings.metrics.section("word_budget") == {}


def test_without_sections_they_are_kept_as_written_and_the_container_checks_them(write_yaml):
    path = write_yaml(
        """\
        spring.ai.ragas.metrics:
          aggregation: median
          word-budget:
            most-words: ${MOST:7}
            nested: {any: [keys]}
        """
    )

    settings = load_settings(path, environ={})

    assert settings.metrics.aggregation.value == "MEDIAN"
    assert settings.metrics.word_budget == {"most-words": "7", "nested": {"any": ["keys"]}}
    with pytest.raises(ConfigError) as error:
        create_container(settings, build_judges=False)
    assert error.value.key == "spring.ai.ragas.metrics.word-budget"
    assert "is not a registered metric" in str(error.value)
    # The section's own keys are checked all the same.
    bad = write_yaml("spring.ai.ragas.metrics:\n  word-budget: {}\n  logging.levl: MINIMAL\n")
    with pytest.raises(ConfigError, match=r"metrics\.logging\.levl: unknown key"):
        load_settings(bad, environ={})
