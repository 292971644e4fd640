"""No secret value in an error message, a log line, or the settings' repr."""

from __future__ import annotations

import logging

import pytest

from ragas_boot.config import load_settings
from ragas_boot.errors import ConfigError

FAKE_KEY = "sk-or-v1-FAKE-0123456789abcdef"


def load_error(path, environ=None) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        load_settings(path, environ=environ or {})
    return caught.value


def test_loaded_keys_are_secret_in_repr_str_dump_and_logs(write_yaml, caplog):
    caplog.set_level(logging.DEBUG, logger="ragas_boot.config")
    path = write_yaml(
        """\
        spring.threads.virtual.enabled: true
        spring.ai.openai.api-key: ${JUDGE_KEY}
        spring.ai.gigachat.auth.bearer.api-key: ${JUDGE_KEY}
        spring.ai.ragas.providers.openai-compatible:
          - name: p
            base-url: http://p
            api-key: ${JUDGE_KEY}
        """
    )

    settings = load_settings(path, environ={"JUDGE_KEY": FAKE_KEY})

    assert settings.providers.openai_compatible[0].api_key.get_secret_value() == FAKE_KEY
    assert settings.openai.api_key is not None
    assert settings.openai.api_key.get_secret_value() == FAKE_KEY
    assert caplog.records, "the load logged nothing, so the log check would prove nothing"
    for text in (repr(settings), str(settings), settings.model_dump_json(), caplog.text):
        assert FAKE_KEY not in text


@pytest.mark.parametrize(
    "api_key",
    [f"[{FAKE_KEY}]", f"{{value: {FAKE_KEY}}}", "123456789012345678"],
    ids=["list", "map", "number"],
)
def test_a_wrong_typed_api_key_is_not_echoed(write_yaml, api_key):
    path = write_yaml(
        f"spring.ai.ragas.providers.openai-compatible:\n"
        f"  - {{ name: p, base-url: http://p, api-key: {api_key} }}\n"
        f"spring.ai.openai.api-key: {api_key}\n"
    )

    error = load_error(path)

    assert error.key == "spring.ai.openai.api-key"
    assert "spring.ai.ragas.providers.openai-compatible[0].api-key" in str(error)
    assert FAKE_KEY not in str(error)
    assert "123456789012345678" not in str(error)


def test_a_provider_error_does_not_echo_the_providers_key(write_yaml):
    path = write_yaml(
        f"spring.ai.ragas.providers.openai-compatible:\n"
        f"  - {{ name: p, api-key: {FAKE_KEY}, max-concurrency: lots }}\n"
    )

    error = load_error(path)

    assert "base-url" in str(error)
    assert "got 'lots'" in str(error)
    assert FAKE_KEY not in str(error)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("headers: { Authorization: 987654321987 }", "987654321987"),
        ("headers: { X-Access-Token: 987654321987 }", "987654321987"),
        ("headers: { X-Client-Secret: [a] }", "[a]"),
        # Every header value is a secret, whatever the header's name.
        ("headers: { X-Title: 987654321987 }", "987654321987"),
        ("headers: { X-Org: 987654321987 }", "987654321987"),
    ],
)
def test_values_of_secret_looking_keys_are_not_echoed(write_yaml, key, value):
    path = write_yaml(
        f"spring.ai.ragas.providers.openai-compatible:\n"
        f"  - {{ name: p, base-url: http://p, api-key: k, {key} }}\n"
    )

    error = load_error(path)

    assert "headers" in str(error)
    assert value not in str(error)


def test_a_misspelt_secret_key_is_reported_without_its_value(write_yaml):
    path = write_yaml(
        f"spring.ai.ragas.providers.openai-compatible:\n"
        f"  - {{ name: p, base-url: http://p, api-key: k, api-kye: {FAKE_KEY} }}\n"
    )

    error = load_error(path)

    assert error.key == "spring.ai.ragas.providers.openai-compatible[0].api-kye"
    assert error.hint == "did you mean 'api-key'?"
    assert FAKE_KEY not in str(error)


def test_a_yaml_syntax_error_does_not_quote_the_line(write_yaml):
    path = write_yaml(f"spring.ai.openai:\n  api-key: {FAKE_KEY}: oops\n")

    error = load_error(path)

    assert "line 2" in str(error)
    assert FAKE_KEY not in str(error)


def test_a_key_from_the_environment_is_not_echoed(write_yaml, caplog):
    caplog.set_level(logging.DEBUG, logger="ragas_boot.config")
    path = write_yaml(
        "spring.ai.ragas.providers.openai-compatible:\n  - { name: p, api-key: yaml-key }\n"
    )
    environ = {
        "SPRING_AI_RAGAS_PROVIDERS_OPENAICOMPATIBLE_0_APIKEY": FAKE_KEY,
        "SPRING_AI_OPENAI_APIKEY": FAKE_KEY,
        "SPRING_AI_RETRY_MAXATTEMPTS": "none",
    }

    error = load_error(path, environ)

    assert "env:SPRING_AI_RETRY_MAXATTEMPTS" in str(error)
    assert FAKE_KEY not in str(error)
    assert FAKE_KEY not in caplog.text


def test_values_of_ordinary_keys_are_echoed(write_yaml):
    # The counterpart of the tests above: the same mistake on a plain key shows the value.
    path = write_yaml(
        "spring.ai.ragas.providers.openai-compatible:\n"
        "  - { name: p, base-url: http://p, api-key: k,\n"
        "      chat-models: [{id: m, alias: 987654321987}] }\n"
    )

    error = load_error(path)

    assert "got 987654321987" in str(error)
