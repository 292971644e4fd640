"""Validation: every problem as one ConfigError naming the YAML key, the file and a hint."""

from __future__ import annotations

import logging
import traceback
from datetime import timedelta

import pytest

from ragas_boot.config import Aggregation, RateLimitStrategy, load_settings
from ragas_boot.errors import ConfigError, RagasBootError


def load_error(path, profiles=None, environ=None) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        load_settings(path, profiles, environ=environ or {})
    return caught.value


def test_a_wrong_type_names_key_file_expectation_and_value(write_yaml):
    path = write_yaml("spring.ai.retry.backoff.multiplier: fast\n")

    error = load_error(path)

    assert error.key == "spring.ai.retry.backoff.multiplier"
    assert error.file == str(path)
    message = str(error)
    assert message.startswith("spring.ai.retry.backoff.multiplier: ")
    assert "valid number" in message
    assert "got 'fast'" in message
    assert f"(in {path})" in message


def test_a_value_out_of_range_is_an_error(write_yaml):
    error = load_error(write_yaml("spring.ai.retry.backoff.multiplier: 0.5\n"))

    assert error.key == "spring.ai.retry.backoff.multiplier"
    assert "greater than or equal to 1" in str(error)
    assert "got 0.5" in str(error)


def test_the_error_is_a_clean_config_error(write_yaml):
    error = load_error(write_yaml("spring.ai.retry.max-attempts: many\n"))

    assert isinstance(error, ValueError)
    assert isinstance(error, RagasBootError)
    assert error.__cause__ is None
    assert error.__suppress_context__ is True
    # What a user sees: no pydantic traceback (its inputs could hold secrets).
    printed = "".join(traceback.format_exception(error))
    assert "ValidationError" not in printed
    assert "spring.ai.retry.max-attempts" in printed


@pytest.mark.parametrize(
    ("yaml_text", "key", "suggestion"),
    [
        ("spring.ai.ragas.provders: {}\n", "spring.ai.ragas.provders", "providers"),
        ("spring.ai.ragas.metric.enabled: true\n", "spring.ai.ragas.metric", "metrics"),
        ("spring.ai.retry.max-attemps: 3\n", "spring.ai.retry.max-attemps", "max-attempts"),
        ("spring.ai.retry.maxAttemps: 3\n", "spring.ai.retry.maxAttemps", "max-attempts"),
        (
            "spring.ai.retry.backoff.initial-intreval: 1s\n",
            "spring.ai.retry.backoff.initial-intreval",
            "initial-interval",
        ),
        (
            "spring.ai.ragas.providers.default-option.temperature: 0\n",
            "spring.ai.ragas.providers.default-option",
            "default-options",
        ),
        (
            "spring.ai.ragas.providers.openai-compatible:\n"
            "  - { name: p, base-ur: http://p, base-url: http://p, api-key: k }\n",
            "spring.ai.ragas.providers.openai-compatible[0].base-ur",
            "base-url",
        ),
        (
            "spring.ai.ragas.metrics.logging.levl: MINIMAL\n",
            "spring.ai.ragas.metrics.logging.levl",
            "level",
        ),
    ],
)
def test_an_unknown_key_is_an_error_with_a_did_you_mean_hint(
    write_yaml, yaml_text, key, suggestion
):
    path = write_yaml(yaml_text)

    error = load_error(path)

    assert error.key == key
    assert error.file == str(path)
    assert error.hint == f"did you mean '{suggestion}'?"
    assert key in str(error)
    assert "unknown key" in str(error)
    assert f"did you mean '{suggestion}'?" in str(error)


def test_an_unknown_key_without_a_close_match_lists_the_allowed_keys(write_yaml):
    error = load_error(write_yaml("spring.ai.ragas.zzz: 1\n"))

    assert error.hint == (
        "allowed keys: allure, cache, generation, history, metrics, providers, run, simulation"
    )


def test_an_unknown_key_in_a_profile_file_names_that_file(write_yaml):
    path = write_yaml("a: 1\n")
    profile_file = write_yaml("spring.ai.retry.max-attemps: 3\n", "application-dev.yaml")

    error = load_error(path, "dev")

    assert error.file == str(profile_file)


def test_a_missing_required_key_names_its_path_and_the_file(write_yaml):
    path = write_yaml(
        "a: 1\n---\nspring.config.activate.on-profile: dev\n"
        "spring.ai.ragas.providers.openai-compatible:\n  - { name: p, api-key: k }\n"
    )

    error = load_error(path, "dev")

    assert error.key == "spring.ai.ragas.providers.openai-compatible[0].base-url"
    assert error.file == f"{path}#dev"
    assert "base-url: required but missing" in str(error)


def test_all_problems_are_listed_in_one_error(write_yaml):
    path = write_yaml(
        """\
        spring.ai.retry:
          max-attempts: 0
          backoff.multiplier: fast
        spring.ai.ragas:
          provders: {}
          metrics.aggregation: mean
        """
    )

    error = load_error(path)

    message = str(error)
    assert "4 problems" in message
    for key in (
        "spring.ai.retry.max-attempts",
        "spring.ai.retry.backoff.multiplier",
        "spring.ai.ragas.provders",
        "spring.ai.ragas.metrics.aggregation",
    ):
        assert f"  - {key}: " in message
    assert "did you mean 'providers'?" in message
    assert error.key == "spring.ai.ragas.provders"
    assert error.file == str(path)
    assert error.hint == "did you mean 'providers'?"


def test_two_providers_with_one_name_are_an_error(write_yaml):
    path = write_yaml(
        """\
        spring.ai.ragas.providers.openai-compatible:
          - { name: same, base-url: http://a, api-key: k }
          - { name: same, base-url: http://b, api-key: k }
        """
    )

    error = load_error(path)

    assert error.key == "spring.ai.ragas.providers.openai-compatible"
    assert "'same' is used by entries [0] and [1]" in str(error)


def test_a_model_written_as_a_bare_string_is_an_error(write_yaml):
    path = write_yaml(
        "spring.ai.ragas.providers.openai-compatible:\n"
        "  - { name: p, base-url: http://p, api-key: k, chat-models: [gpt-4o] }\n"
    )

    error = load_error(path)

    assert error.key == "spring.ai.ragas.providers.openai-compatible[0].chat-models[0]"
    assert "valid dictionary" in str(error)


def test_spring_ai_ragas_must_be_a_mapping(write_yaml):
    error = load_error(write_yaml("spring.ai.ragas: enabled\n"))

    assert error.key == "spring.ai.ragas"
    assert "mapping" in str(error)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2000ms", timedelta(seconds=2)),
        ("30s", timedelta(seconds=30)),
        ("2m", timedelta(minutes=2)),
        ("1h", timedelta(hours=1)),
        ("PT30S", timedelta(seconds=30)),
        ("PT1M30S", timedelta(seconds=90)),
        ("1500", timedelta(milliseconds=1500)),
        ("'1500'", timedelta(milliseconds=1500)),
        ("0", timedelta(0)),
    ],
)
def test_durations(write_yaml, value, expected):
    path = write_yaml(f"spring.ai.retry.backoff.initial-interval: {value}\n")

    assert load_settings(path, environ={}).retry.backoff.initial_interval == expected


@pytest.mark.parametrize("value", ["fast", "10 parsecs", "-5s", "-5", "-0.5", "PT", "5 s s"])
def test_a_bad_duration_is_an_error_naming_the_key(write_yaml, value):
    path = write_yaml(f"spring.ai.ragas.providers.timeout: {value}\n")

    error = load_error(path)

    assert error.key == "spring.ai.ragas.providers.timeout"
    assert "is not a duration" in str(error)
    assert "500ms, 30s, 2m, PT30S" in str(error)


@pytest.mark.parametrize(
    "key",
    [
        "spring.ai.ragas.history.lock-timeout",
        "spring.ai.retry.backoff.initial-interval",
        "spring.ai.ragas.providers.rate-limit.default-timeout",
    ],
)
def test_a_negative_number_of_milliseconds_is_refused_for_every_duration(write_yaml, key):
    path = write_yaml(f"{key}: -1000\n")

    error = load_error(path)

    assert error.key == key
    assert "'-1000' is not a duration: it is negative" in str(error)


def test_enums_are_case_insensitive(write_yaml):
    path = write_yaml(
        """\
        spring.ai.ragas:
          metrics.aggregation: majority_voting
          providers.rate-limit.default-strategy: reject
        """
    )

    settings = load_settings(path, environ={})

    assert settings.metrics.aggregation is Aggregation.MAJORITY_VOTING
    assert settings.providers.rate_limit.default_strategy is RateLimitStrategy.REJECT


def test_keys_of_other_spring_sections_are_ignored_silently(write_yaml, caplog):
    caplog.set_level(logging.DEBUG, logger="ragas_boot.config")
    path = write_yaml(
        """\
        spring:
          application.name: demo
          datasource.url: jdbc:h2:mem:x
          ai.vectorstore.pgvector.index-type: HNSW
          ai.ragass.typo: 1
        management.endpoints.web.exposure.include: "*"
        server.port: 8080
        spring.ai.openai.organization-id: org-1
        spring.ai.openai.chat.options.frequency-penalty: 0.5
        """
    )

    settings = load_settings(path, environ={})

    assert settings.source.unsupported_keys == []
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


@pytest.mark.parametrize(
    ("value", "expected"),
    [("-1", "greater than or equal to 0"), ("lots", "valid integer"), ("2.5", "valid integer")],
)
def test_a_bad_spool_after_names_the_key(write_yaml, value, expected):
    error = load_error(write_yaml(f"spring.ai.ragas.run.spool-after: {value}\n"))

    assert error.key == "spring.ai.ragas.run.spool-after"
    assert expected in str(error) and f"got {value}" in str(error).replace("'", "")


@pytest.mark.parametrize(("value", "expected"), [("0", 0), ("5000", 5000), ("null", None)])
def test_spool_after_takes_a_count_or_null_for_never(write_yaml, value, expected):
    settings = load_settings(write_yaml(f"spring.ai.ragas.run.spool-after: {value}\n"), environ={})
    assert settings.run.spool_after == expected


def test_spool_after_defaults_to_1000(write_yaml):
    assert (
        load_settings(write_yaml("spring.ai.ragas.run: {}\n"), environ={}).run.spool_after == 1000
    )
