"""Java keys ragas-boot recognises but does not support: a warning each, never an error."""

from __future__ import annotations

import logging

import pytest

from ragas_boot.config import load_settings
from ragas_boot.errors import ConfigError

PROVIDER = "{ name: p, base-url: http://p, api-key: k }"


@pytest.fixture
def config_warnings(caplog):
    """The warning messages the loader logged."""
    caplog.set_level(logging.WARNING, logger="ragas_boot.config")

    def messages() -> list[str]:
        return [
            record.getMessage()
            for record in caplog.records
            if record.name == "ragas_boot.config" and record.levelno == logging.WARNING
        ]

    return messages


@pytest.mark.parametrize(
    ("yaml_text", "key"),
    [
        (
            "spring.ai.ragas.providers:\n  auto-detect-beans: false\n"
            "  external-starters.gigachat.embedding-models: [Embeddings]\n",
            "spring.ai.ragas.providers.external-starters.gigachat.embedding-models",
        ),
        (
            "spring.ai.gigachat.image.options.model: Kandinsky\n",
            "spring.ai.gigachat.image",
        ),
        ("spring.ai.chat.client.enabled: false\n", "spring.ai.chat"),
        ("spring.ai.model.chat: openai\n", "spring.ai.model"),
        ("spring.main.web-application-type: none\n", "spring.main"),
        ("spring.threads.virtual.enabled: true\n", "spring.threads"),
        ("logging.level.ai.qa.solutions: DEBUG\n", "logging"),
    ],
)
def test_an_unsupported_key_loads_with_one_warning(write_yaml, config_warnings, yaml_text, key):
    path = write_yaml(yaml_text)

    settings = load_settings(path, environ={})

    assert settings.source.unsupported_keys == [key]
    [message] = config_warnings()
    assert message.startswith(f"{key} is a Java key that ragas-boot does not support yet")
    assert str(path) in message


def test_external_starters_chat_models_are_read_not_reported(write_yaml, config_warnings):
    path = write_yaml(
        "spring.ai.ragas.providers.external-starters.gigachat.chat-models: [GigaChat-2-Max]\n"
    )

    settings = load_settings(path, environ={})

    # auto-detect-beans defaults to true, as in Java; both are supported now (GigaChat).
    assert settings.source.unsupported_keys == []
    assert config_warnings() == []
    [model] = settings.providers.external_starters["gigachat"].chat_models
    assert model.id == "GigaChat-2-Max"
    assert settings.providers.auto_detect_beans is True


def test_auto_detect_beans_alone_is_not_reported(write_yaml, config_warnings):
    path = write_yaml("spring.ai.ragas.providers.auto-detect-beans: true\n")

    settings = load_settings(path, environ={})

    assert settings.providers.auto_detect_beans is True
    assert settings.source.unsupported_keys == []
    assert config_warnings() == []


@pytest.mark.parametrize(
    "yaml_text",
    [
        "spring.ai.ragas.providers.external-starters: {}\n",
    ],
)
def test_empty_unsupported_keys_are_not_reported(write_yaml, config_warnings, yaml_text):
    settings = load_settings(write_yaml(yaml_text), environ={})

    assert settings.source.unsupported_keys == []
    assert config_warnings() == []


def test_each_key_is_reported_once_per_load(write_yaml, config_warnings):
    path = write_yaml(
        """\
        spring.threads.virtual.enabled: true
        logging.level.root: INFO
        ---
        spring.config.activate.on-profile: dev
        spring.threads.virtual.enabled: false
        logging.level.org: WARN
        """
    )

    settings = load_settings(path, "dev", environ={})

    assert settings.source.unsupported_keys == ["spring.threads", "logging"]
    assert len(config_warnings()) == 2
    load_settings(path, "dev", environ={"RAGAS_BOOT_JAVA_KEY_WARNINGS": "always"})
    assert len(config_warnings()) == 4


def test_keys_of_inactive_profiles_are_not_reported(write_yaml, config_warnings):
    path = write_yaml(
        "a: 1\n---\nspring.config.activate.on-profile: gigachat\n"
        "spring.ai.gigachat.auth.scope: GIGACHAT_API_CORP\n"
    )

    settings = load_settings(path, environ={})

    assert settings.source.unsupported_keys == []
    assert config_warnings() == []


def test_a_typo_under_spring_ai_ragas_is_still_an_error(write_yaml, config_warnings):
    path = write_yaml(
        """\
        spring.ai.gigachat.chat.options.model: GigaChat-2-Max
        spring.ai.ragas.providers:
          external-starters.gigachat.chat-models: [GigaChat-2-Max]
          externl-starters: {}
        """
    )

    with pytest.raises(ConfigError) as caught:
        load_settings(path, environ={})

    assert caught.value.key == "spring.ai.ragas.providers.externl-starters"
    assert caught.value.hint == "did you mean 'external-starters'?"


def test_unsupported_values_are_not_logged(write_yaml, caplog):
    caplog.set_level(logging.DEBUG, logger="ragas_boot.config")
    path = write_yaml(
        """\
        spring.ai.gigachat.auth.bearer.client-secret: gigachat-value-7f3a
        spring.ai.gigachat.image.options.size: 98765
        """
    )

    settings = load_settings(path, environ={})

    assert "spring.ai.gigachat.image" in caplog.text
    assert "gigachat-value-7f3a" not in caplog.text
    assert "gigachat-value-7f3a" not in repr(settings)
    assert "98765" not in caplog.text


JAVA_ONLY = "spring.main.web-application-type: none\nlogging.level.root: INFO\n"


def test_java_keys_are_reported_once_per_file_and_machine(write_yaml, config_warnings):
    path = write_yaml(JAVA_ONLY)

    first = load_settings(path, environ={})
    second = load_settings(path, environ={})

    assert (
        first.source.unsupported_keys
        == second.source.unsupported_keys
        == [
            "spring.main",
            "logging",
        ]
    )
    assert [m.split(" ", 1)[0] for m in config_warnings()] == ["spring.main", "logging"]
    assert "said once for this file" in config_warnings()[0]


def test_a_new_java_key_in_the_file_is_reported_again(write_yaml, config_warnings):
    path = write_yaml(JAVA_ONLY)
    load_settings(path, environ={})
    path.write_text(JAVA_ONLY + "spring.threads.virtual.enabled: true\n", encoding="utf-8")

    load_settings(path, environ={})

    assert len(config_warnings()) == 2 + 3


@pytest.mark.parametrize(("policy", "count"), [("always", 4), ("off", 0), ("OFF", 0)])
def test_the_warning_policy_repeats_or_silences(write_yaml, config_warnings, policy, count):
    path = write_yaml(JAVA_ONLY)
    environ = {"RAGAS_BOOT_JAVA_KEY_WARNINGS": policy}

    load_settings(path, environ=environ)
    load_settings(path, environ=environ)

    assert len(config_warnings()) == count


def test_an_unknown_warning_policy_is_an_error_naming_the_values(write_yaml):
    path = write_yaml(JAVA_ONLY)

    with pytest.raises(ConfigError, match="RAGAS_BOOT_JAVA_KEY_WARNINGS='never' is not one of"):
        load_settings(path, environ={"RAGAS_BOOT_JAVA_KEY_WARNINGS": "never"})
