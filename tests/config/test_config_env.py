"""Environment variables with Spring's relaxed names override YAML keys."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest

from ragas_boot.config import load_settings
from ragas_boot.errors import ConfigError

PROVIDERS = """\
spring.ai.ragas.providers.openai-compatible:
  - name: openrouter
    base-url: https://openrouter.ai/api
    api-key: ${OPENROUTER_API_KEY}
    headers: { X-Title: from-yaml }
    chat-models:
      - { id: a }
      - { id: b }
"""


def test_a_variable_sets_a_key_the_yaml_lacks(write_yaml):
    path = write_yaml("spring.ai.retry.max-attempts: 3\n")

    settings = load_settings(path, environ={"SPRING_AI_RETRY_BACKOFF_MULTIPLIER": "3"})

    assert settings.retry.backoff.multiplier == 3.0
    assert settings.retry.max_attempts == 3
    assert (
        settings.source.origins["spring.ai.retry.backoff.multiplier"]
        == "env:SPRING_AI_RETRY_BACKOFF_MULTIPLIER"
    )


def test_a_variable_wins_over_yaml_and_profile_documents(write_yaml):
    path = write_yaml(
        """\
        spring.ai.retry.backoff.multiplier: 2
        ---
        spring.config.activate.on-profile: dev
        spring.ai.retry.backoff.multiplier: 4
        """
    )

    settings = load_settings(path, "dev", environ={"SPRING_AI_RETRY_BACKOFF_MULTIPLIER": "3"})

    assert settings.retry.backoff.multiplier == 3.0


def test_a_variable_wins_over_a_profile_file(write_yaml):
    path = write_yaml("spring.ai.retry.max-attempts: 2\n")
    write_yaml("spring.ai.retry.max-attempts: 4\n", "application-dev.yaml")

    settings = load_settings(path, "dev", environ={"SPRING_AI_RETRY_MAXATTEMPTS": "6"})

    assert settings.retry.max_attempts == 6


def test_the_legacy_underscore_form_is_accepted(write_yaml):
    path = write_yaml("spring.ai.retry.max-attempts: 3\n")

    settings = load_settings(path, environ={"SPRING_AI_RETRY_MAX_ATTEMPTS": "7"})

    assert settings.retry.max_attempts == 7


def test_a_comma_string_fills_a_list(write_yaml):
    path = write_yaml("spring.ai.retry.on-http-codes: [429]\n")

    settings = load_settings(path, environ={"SPRING_AI_RETRY_ONHTTPCODES": "429, 503"})

    assert settings.retry.on_http_codes == [429, 503]
    assert settings.source.origins["spring.ai.retry.on-http-codes"] == (
        "env:SPRING_AI_RETRY_ONHTTPCODES"
    )


def test_an_index_changes_one_element_of_a_scalar_list(write_yaml):
    path = write_yaml("spring.ai.retry.on-http-codes: [429, 503]\n")

    settings = load_settings(path, environ={"SPRING_AI_RETRY_ONHTTPCODES_0": "500"})

    assert settings.retry.on_http_codes == [500, 503]


def test_an_index_reaches_into_a_provider_written_in_yaml(write_yaml):
    path = write_yaml(PROVIDERS)
    environ = {
        # With the key supplied here, the YAML placeholder is never needed.
        "SPRING_AI_RAGAS_PROVIDERS_OPENAICOMPATIBLE_0_APIKEY": "from-env",
        "SPRING_AI_RAGAS_PROVIDERS_OPENAICOMPATIBLE_0_CHATMODELS_1_ID": "b-from-env",
        "SPRING_AI_RAGAS_PROVIDERS_OPENAICOMPATIBLE_0_HEADERS_XTITLE": "title-from-env",
        "SPRING_AI_RAGAS_PROVIDERS_OPENAICOMPATIBLE_0_RATELIMIT_RPS": "5",
    }

    settings = load_settings(path, environ=environ)

    provider = settings.providers.openai_compatible[0]
    assert provider.api_key.get_secret_value() == "from-env"
    assert provider.name == "openrouter"
    assert [model.id for model in provider.chat_models] == ["a", "b-from-env"]
    assert provider.headers["X-Title"].get_secret_value() == "title-from-env"
    assert list(provider.headers) == ["X-Title"]
    assert provider.rate_limit is not None
    assert provider.rate_limit.rps == 5
    origins = settings.source.origins
    assert origins["spring.ai.ragas.providers.openai-compatible[0].api-key"] == (
        "env:SPRING_AI_RAGAS_PROVIDERS_OPENAICOMPATIBLE_0_APIKEY"
    )
    assert origins["spring.ai.ragas.providers.openai-compatible[0].name"] == str(path)


def test_variables_alone_can_declare_providers(write_yaml):
    path = write_yaml("spring.ai.retry.max-attempts: 3\n")
    prefix = "SPRING_AI_RAGAS_PROVIDERS_OPENAICOMPATIBLE"
    environ = {
        f"{prefix}_1_NAME": "second",
        f"{prefix}_1_BASEURL": "http://second",
        f"{prefix}_1_APIKEY": "k2",
        f"{prefix}_0_NAME": "first",
        f"{prefix}_0_BASEURL": "http://first",
        f"{prefix}_0_APIKEY": "k1",
        f"{prefix}_0_CHATMODELS_0_ID": "m",
    }

    providers = load_settings(path, environ=environ).providers.openai_compatible

    assert [(p.name, p.base_url) for p in providers] == [
        ("first", "http://first"),
        ("second", "http://second"),
    ]
    assert [m.id for m in providers[0].chat_models] == ["m"]


def test_an_index_past_the_end_of_the_list_is_an_error(write_yaml):
    path = write_yaml(PROVIDERS)
    variable = "SPRING_AI_RAGAS_PROVIDERS_OPENAICOMPATIBLE_2_APIKEY"

    with pytest.raises(ConfigError) as caught:
        load_settings(path, environ={"OPENROUTER_API_KEY": "k", variable: "x"})

    assert caught.value.key == "spring.ai.ragas.providers.openai-compatible[2]"
    assert caught.value.file == f"env:{variable}"
    assert "has 1 entries" in str(caught.value)


@pytest.mark.parametrize(
    ("variable", "value", "read", "expected"),
    [
        (
            "SPRING_AI_RETRY_BACKOFF_INITIALINTERVAL",
            "PT5S",
            lambda s: s.retry.backoff.initial_interval,
            timedelta(seconds=5),
        ),
        ("SPRING_AI_RETRY_ONCLIENTERRORS", "true", lambda s: s.retry.on_client_errors, True),
        (
            "SPRING_AI_RAGAS_METRICS_AGGREGATION",
            "median",
            lambda s: s.metrics.aggregation,
            "MEDIAN",
        ),
        ("SPRING_AI_RAGAS_ALLURE_LANGUAGE", "RU", lambda s: s.allure.language, "ru"),
        (
            "SPRING_AI_OPENAI_CHAT_OPTIONS_MODEL",
            "gpt-4o",
            lambda s: s.openai.chat.options.model,
            "gpt-4o",
        ),
        ("SPRING_AI_RAGAS_PROVIDERS_LOCAL_NCTX", "8192", lambda s: s.providers.local.n_ctx, 8192),
    ],
)
def test_variables_reach_every_consumed_section(write_yaml, variable, value, read, expected):
    settings = load_settings(write_yaml("a: 1\n"), environ={variable: value})

    assert read(settings) == expected


def test_variables_of_keys_outside_the_consumed_ones_are_ignored(write_yaml, caplog):
    caplog.set_level(logging.WARNING, logger="ragas_boot.config")
    path = write_yaml("spring.ai.retry.max-attempts: 3\n")
    environ = {
        "SPRING_AI_GIGACHAT_CHAT_OPTIONS_MODEL": "GigaChat",
        "SPRING_AI_OPENAI_EMBEDDING_APIKEY": "x",
        "SPRING_AI_RAGAS_PROVIDERS_TYPO": "1",
        "SPRING_AI_RETRY": "oops",
        "SPRING_MAIN_WEBAPPLICATIONTYPE": "none",
    }

    settings = load_settings(path, environ=environ)

    assert settings.retry.max_attempts == 3
    assert settings.source.unsupported_keys == []
    assert not [r for r in caplog.records if r.name == "ragas_boot.config"]


def test_an_invalid_value_from_a_variable_names_the_variable(write_yaml):
    path = write_yaml("spring.ai.retry.backoff.multiplier: 2\n")
    variable = "SPRING_AI_RETRY_BACKOFF_MULTIPLIER"

    with pytest.raises(ConfigError) as caught:
        load_settings(path, environ={variable: "fast"})

    assert caught.value.key == "spring.ai.retry.backoff.multiplier"
    assert caught.value.file == f"env:{variable}"
    assert f"env:{variable}" in str(caught.value)
    assert "'fast'" in str(caught.value)
