"""``${VAR}`` and ``${VAR:default}`` placeholders."""

from __future__ import annotations

import pytest

from ragas_boot.config import load_settings
from ragas_boot.errors import ConfigError


def resolved_string(write_yaml, value, environ):
    # A plain string key (base-url itself must now be an http(s) URL).
    path = write_yaml(f"spring.ai.openai.chat.options.model: {value}\n")
    return load_settings(path, environ=environ).openai.chat.options.model


@pytest.mark.parametrize(
    ("value", "environ", "expected"),
    [
        ("${HOST}", {"HOST": "http://h"}, "http://h"),
        ("${HOST:http://fallback}", {}, "http://fallback"),
        ("${HOST:http://fallback}", {"HOST": "http://h"}, "http://h"),
        ("'${HOST:}'", {}, ""),
        ("${HOST:http://localhost:8080/api}", {}, "http://localhost:8080/api"),
        ("http://${HOST}:${PORT:8080}/v", {"HOST": "h"}, "http://h:8080/v"),
        ("http://${HOST}:${PORT:8080}/v", {"HOST": "h", "PORT": "9"}, "http://h:9/v"),
        ("prefix-${NAME}-suffix", {"NAME": "mid"}, "prefix-mid-suffix"),
        ("${A:${B:inner}}", {}, "inner"),
        ("${A:${B:inner}}", {"B": "b"}, "b"),
        ("${A:${B:inner}}", {"A": "a", "B": "b"}, "a"),
        ("'\\${LITERAL}'", {}, "${LITERAL}"),
        ("${UNCLOSED", {}, "${UNCLOSED"),
        ("${HOST:fallback}", {"HOST": ""}, ""),
    ],
    ids=[
        "env",
        "default",
        "env-over-default",
        "empty-default",
        "default-with-colons",
        "two-per-string-default",
        "two-per-string-env",
        "partial",
        "nested-default",
        "nested-default-inner-env",
        "nested-default-outer-env",
        "escaped",
        "unclosed",
        "empty-env-value-is-a-value",
    ],
)
def test_placeholders_resolve(write_yaml, value, environ, expected):
    assert resolved_string(write_yaml, value, environ) == expected


def test_a_resolved_value_is_converted_to_the_field_type(write_yaml):
    path = write_yaml(
        """\
        spring.ai.retry:
          max-attempts: ${ATTEMPTS:4}
          on-http-codes: ${CODES:429,503}
          backoff.initial-interval: ${INITIAL:PT5S}
        """
    )

    retry = load_settings(path, environ={"ATTEMPTS": "6"}).retry

    assert retry.max_attempts == 6
    assert retry.on_http_codes == [429, 503]
    assert retry.backoff.initial_interval.total_seconds() == 5


def test_a_property_reference_takes_the_value_of_that_key(write_yaml):
    path = write_yaml(
        """\
        app.judge-url: https://judges.example
        spring.ai.openai.base-url: ${app.judge-url}
        spring.ai.ragas.providers.openai-compatible:
          - name: p
            base-url: ${spring.ai.openai.base-url}/proxy
            api-key: ${spring.ai.openai.api-key:none}
        """
    )

    settings = load_settings(path, environ={"app.judge-url": "https://from-env"})

    # A key of the configuration comes before the environment (Spring resolves properties).
    assert settings.openai.base_url == "https://judges.example"
    provider = settings.providers.openai_compatible[0]
    assert provider.base_url == "https://judges.example/proxy"
    assert provider.api_key.get_secret_value() == "none"


def test_a_property_reference_sees_environment_overrides(write_yaml):
    path = write_yaml(
        """\
        spring.ai.openai.base-url: http://yaml
        spring.ai.ragas.providers.openai-compatible:
          - { name: p, base-url: "${spring.ai.openai.base-url}", api-key: k }
        """
    )

    settings = load_settings(path, environ={"SPRING_AI_OPENAI_BASEURL": "http://env"})

    assert settings.providers.openai_compatible[0].base_url == "http://env"


def test_a_property_reference_may_name_a_number_or_a_boolean(write_yaml):
    path = write_yaml(
        """\
        limits: { attempts: 7, strict: true }
        spring.ai.retry:
          max-attempts: ${limits.attempts}
          on-client-errors: ${limits.strict}
        """
    )

    retry = load_settings(path, environ={}).retry

    assert (retry.max_attempts, retry.on_client_errors) == (7, True)


def test_a_relaxed_environment_name_answers_a_property_reference(write_yaml):
    path = write_yaml("spring.ai.openai.base-url: ${app.judge-url}\n")

    settings = load_settings(path, environ={"APP_JUDGEURL": "http://relaxed"})

    assert settings.openai.base_url == "http://relaxed"


def test_an_unset_variable_without_default_names_key_variable_and_file(write_yaml):
    path = write_yaml(
        """\
        spring.ai.ragas.providers.openai-compatible:
          - name: p
            base-url: http://p
            api-key: ${JUDGE_API_KEY}
        """
    )

    with pytest.raises(ConfigError) as caught:
        load_settings(path, environ={})

    error = caught.value
    assert error.key == "spring.ai.ragas.providers.openai-compatible[0].api-key"
    assert error.file == str(path)
    assert "JUDGE_API_KEY" in str(error)
    assert error.key in str(error)
    assert str(path) in str(error)
    assert error.hint is not None
    assert "${JUDGE_API_KEY:value}" in error.hint


def test_every_unset_variable_is_listed_in_one_error(write_yaml):
    path = write_yaml(
        """\
        spring.ai.openai.base-url: ${FIRST_URL}
        spring.ai.retry.backoff.multiplier: ${SECOND_FACTOR}
        """
    )

    with pytest.raises(ConfigError) as caught:
        load_settings(path, environ={})

    message = str(caught.value)
    assert "2 problems" in message
    assert "spring.ai.openai.base-url" in message
    assert "FIRST_URL" in message
    assert "spring.ai.retry.backoff.multiplier" in message
    assert "SECOND_FACTOR" in message
    assert caught.value.key == "spring.ai.retry.backoff.multiplier"


def test_an_unset_variable_in_a_profile_document_names_the_profile(write_yaml):
    path = write_yaml(
        "a: 1\n---\nspring.config.activate.on-profile: cloud\n"
        "spring.ai.openai.api-key: ${CLOUD_KEY}\n"
    )

    with pytest.raises(ConfigError) as caught:
        load_settings(path, "cloud", environ={})

    assert caught.value.file == f"{path}#cloud"
    assert caught.value.key == "spring.ai.openai.api-key"
    assert "CLOUD_KEY" in str(caught.value)


def test_placeholders_of_inactive_profiles_are_not_resolved(write_yaml):
    path = write_yaml(
        """\
        spring.ai.openai.base-url: http://base
        ---
        spring.config.activate.on-profile: cloudru
        spring.ai.openai.api-key: ${CLOUD_RU_API_KEY}
        """
    )

    settings = load_settings(path, environ={})

    assert settings.openai.api_key is None


def test_placeholders_outside_the_consumed_keys_are_not_resolved(write_yaml):
    path = write_yaml(
        """\
        spring.application.name: ${APP_NAME}
        spring.ai.gigachat.image.options.model: ${GIGACHAT_IMAGE}
        spring.ai.openai.organization: ${ORGANIZATION}
        spring.ai.ragas.providers:
          external-starters:
            gigachat: { embedding-models: ["${GIGACHAT_EMBEDDING_MODEL}"] }
        """
    )

    settings = load_settings(path, environ={})

    assert settings.providers.external_starters["gigachat"].embedding_models == [
        "${GIGACHAT_EMBEDDING_MODEL}"
    ]


def test_placeholders_in_the_embedding_keys_are_resolved(write_yaml):
    path = write_yaml(
        """\
        spring.ai.openai.embedding.api-key: ${EMBEDDING_KEY}
        spring.ai.ragas.providers:
          embedding-default-options: { dimensions: "${DIMENSIONS}" }
          openai-compatible:
            - name: p
              base-url: http://p
              api-key: k
              embedding-models: [{ id: "${EMBEDDING_MODEL}" }]
        """
    )
    environ = {"EMBEDDING_KEY": "ek", "DIMENSIONS": "256", "EMBEDDING_MODEL": "e5"}

    settings = load_settings(path, environ=environ)

    assert settings.providers.openai_compatible[0].embedding_models[0].id == "e5"
    assert settings.providers.embedding_default_options.dimensions == 256
    assert settings.openai.embedding.api_key.get_secret_value() == "ek"
    with pytest.raises(ConfigError) as caught:
        load_settings(path, environ={"EMBEDDING_KEY": "ek", "DIMENSIONS": "256"})
    assert "EMBEDDING_MODEL" in str(caught.value)


def test_placeholders_inside_free_form_maps_are_resolved(write_yaml):
    path = write_yaml(
        """\
        spring.ai.ragas:
          providers.openai-compatible:
            - name: p
              base-url: http://p
              api-key: k
              headers: { X-Title: "${TITLE:ragas}" }
          metrics.tool-call-accuracy:
            mode: ${TCA_MODE}
            models: ["${TCA_MODE}"]
        """
    )

    settings = load_settings(path, environ={"TCA_MODE": "flexible"})

    headers = settings.providers.openai_compatible[0].headers
    assert {name: value.get_secret_value() for name, value in headers.items()} == {
        "X-Title": "ragas"
    }
    assert settings.metrics.tool_call_accuracy == {"mode": "flexible", "models": ["flexible"]}


def test_placeholders_that_refer_to_each_other_are_an_error(write_yaml):
    path = write_yaml(
        """\
        app.a: ${app.b}
        app.b: ${app.a}
        spring.ai.openai.base-url: ${app.a}
        """
    )

    with pytest.raises(ConfigError) as caught:
        load_settings(path, environ={})

    assert caught.value.key == "spring.ai.openai.base-url"
    assert "app.a -> app.b -> app.a" in str(caught.value)


def test_an_unset_variable_in_a_default_is_still_an_error(write_yaml):
    path = write_yaml("spring.ai.openai.base-url: ${A:${B}}\n")

    with pytest.raises(ConfigError) as caught:
        load_settings(path, environ={})

    assert "${B}" in str(caught.value)
