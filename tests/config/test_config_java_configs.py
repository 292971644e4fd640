"""The Java project's real configs, and the seed's, load unchanged."""

from __future__ import annotations

import base64
import logging
from datetime import timedelta

import pytest

from ragas_boot.chat import judge_specs
from ragas_boot.chat.factory.embeddings import embedding_specs
from ragas_boot.config import load_settings
from ragas_boot.errors import ConfigError

FAKE_OPENROUTER = "sk-or-FAKE-openrouter-1111"
FAKE_CLOUD_RU = "FAKE-cloud-ru-2222"
FAKE_GIGACHAT = "RkFLRS1naWdhY2hhdDpzZWNyZXQ="


@pytest.fixture
def java(data_dir):
    return data_dir / "java-configs"


def chat_model_ids(settings):
    return [[m.id for m in p.chat_models] for p in settings.providers.openai_compatible]


def assert_java_retry(retry):
    assert retry.on_http_codes == [429]
    assert retry.on_client_errors is True
    assert retry.backoff.initial_interval == timedelta(milliseconds=2000)
    assert retry.backoff.max_interval == timedelta(milliseconds=30000)
    assert retry.backoff.multiplier == 2.0


def test_spring_boot_test_config_uses_its_default_profile_openrouter(java, caplog):
    caplog.set_level(logging.WARNING, logger="ragas_boot.config")
    path = java / "spring-boot-test-application.yml"

    settings = load_settings(path, environ={"OPENROUTER_API_KEY": FAKE_OPENROUTER})

    assert settings.source.active_profiles == ["openrouter"]
    [provider] = settings.providers.openai_compatible
    assert provider.name == "openrouter"
    assert provider.base_url == "https://openrouter.ai/api"
    assert provider.api_key.get_secret_value() == FAKE_OPENROUTER
    assert chat_model_ids(settings) == [
        [
            "deepseek/deepseek-v3.2",
            "google/gemini-3-flash-preview",
            "x-ai/grok-4.1-fast",
            "google/gemini-2.5-flash",
        ]
    ]
    assert len(provider.embedding_models) == 6
    assert settings.providers.auto_detect_beans is False
    assert settings.providers.default_provider.enabled is False
    assert settings.openai.chat.options.model == "google/gemini-2.5-flash"
    assert settings.allure.enabled is True
    assert_java_retry(settings.retry)
    assert settings.source.unsupported_keys == ["spring.ai.chat", "spring.threads"]
    assert [model.id for model in provider.embedding_models] == [
        "openai/text-embedding-3-large",
        "qwen/qwen3-embedding-8b",
        "qwen/qwen3-embedding-4b",
        "google/gemini-embedding-001",
        "baai/bge-m3",
        "baai/bge-base-en-v1.5",
    ]
    assert [model.dimensions for model in provider.embedding_models] == [
        3072,
        1024,
        1024,
        768,
        1024,
        768,
    ]
    assert FAKE_OPENROUTER not in caplog.text


def test_spring_boot_test_config_gigachat_profile_gives_two_gigachat_judges(java):
    path = java / "spring-boot-test-application.yml"
    environ = {"GIGACHAT_API_CLIENT_ID": "client-1", "GIGACHAT_API_CLIENT_SECRET": "FAKE-gc-3333"}

    settings = load_settings(path, "gigachat", environ=environ)
    specs = judge_specs(settings)

    assert settings.providers.openai_compatible == []
    assert [(s.id, s.provider) for s in specs] == [
        ("GigaChat-2-Max", "gigachat"),
        ("GigaChat-2-Pro", "gigachat"),
    ]
    arguments = dict(specs[0].langchain.arguments)
    assert arguments["scope"] == "GIGACHAT_API_CORP"
    assert arguments["verify_ssl_certs"] is False  # auth.unsafe-ssl: true
    # The authorization key is base64 of client-id:client-secret, as the Java starter makes it.
    assert base64.b64decode(arguments["credentials"].get_secret_value()) == b"client-1:FAKE-gc-3333"
    assert "FAKE-gc-3333" not in repr(specs[0])
    assert "spring.ai.gigachat.embedding" not in settings.source.unsupported_keys
    assert (
        "spring.ai.ragas.providers.external-starters.gigachat.embedding-models"
        in settings.source.unsupported_keys
    )


def test_spring_boot_test_config_gigachat_profile_without_credentials_names_the_key(java):
    settings = load_settings(java / "spring-boot-test-application.yml", "gigachat", environ={})

    with pytest.raises(ConfigError) as caught:
        judge_specs(settings)

    assert caught.value.key == "spring.ai.gigachat.auth.bearer.api-key"


def test_spring_boot_test_config_cloudru_profile_needs_its_key(java):
    path = java / "spring-boot-test-application.yml"

    with pytest.raises(ConfigError) as caught:
        load_settings(path, "cloudru", environ={"OPENROUTER_API_KEY": FAKE_OPENROUTER})

    assert "CLOUD_RU_API_KEY" in str(caught.value)
    assert caught.value.file == f"{path}#cloudru"
    settings = load_settings(path, "cloudru", environ={"CLOUD_RU_API_KEY": FAKE_CLOUD_RU})
    assert chat_model_ids(settings) == [
        ["t-tech/T-lite-it-1.0", "t-tech/T-pro-it-1.0", "GigaChat/GigaChat-2-Max"]
    ]


def test_spring_boot_test_config_without_the_key_names_it(java):
    with pytest.raises(ConfigError) as caught:
        load_settings(java / "spring-boot-test-application.yml", environ={})

    assert "OPENROUTER_API_KEY" in str(caught.value)


def test_multi_model_config_gives_twelve_judges_in_three_providers(java):
    path = java / "multi-model-application-test.yml"
    environ = {"OPENROUTER_API_KEY": FAKE_OPENROUTER, "CLOUD_RU_API_KEY": FAKE_CLOUD_RU}

    settings = load_settings(path, environ=environ)

    providers = settings.providers.openai_compatible
    assert [p.name for p in providers] == ["openrouter-premium", "openrouter-efficient", "cloudru"]
    assert [len(p.chat_models) for p in providers] == [4, 5, 3]
    assert sum(len(p.chat_models) for p in providers) == 12
    assert providers[2].api_key.get_secret_value() == FAKE_CLOUD_RU
    assert providers[2].base_url == "https://foundation-models.api.cloud.ru"
    assert_java_retry(settings.retry)
    assert settings.source.active_profiles == ["default"]
    # The embedding keys load (no warning for them) and list the two embedding models.
    assert settings.source.unsupported_keys == ["spring.ai.model", "spring.threads"]
    assert [[(m.id, m.dimensions) for m in p.embedding_models] for p in providers] == [
        [("openai/text-embedding-3-large", 3072)],
        [("openai/text-embedding-3-small", 1536)],
        [],
    ]
    assert settings.providers.embedding_default_options.dimensions == 1024
    assert settings.openai.embedding.options.model == "openai/text-embedding-3-small"
    assert settings.openai.embedding.api_key.get_secret_value() == FAKE_OPENROUTER


def test_gigachat_demo_loads_with_only_warnings_and_one_gigachat_judge(java, caplog):
    caplog.set_level(logging.WARNING, logger="ragas_boot.config")
    path = java / "gigachat-demo-application.yml"

    settings = load_settings(path, environ={"GIGACHAT_API_KEY": FAKE_GIGACHAT})
    [spec] = judge_specs(settings)

    assert settings.providers.openai_compatible == []
    assert settings.providers.default_options.max_tokens == 2000
    assert settings.allure.language == "ru"
    assert_java_retry(settings.retry)
    assert settings.source.unsupported_keys == ["spring.main", "logging"]
    warnings = [r for r in caplog.records if r.name == "ragas_boot.config"]
    assert [r.levelno for r in warnings] == [logging.WARNING] * 2
    # spring.ai.gigachat.embedding: GigaChat's embedding model on the judge's credentials.
    [embedding] = embedding_specs(settings)
    assert (embedding.id, embedding.provider) == ("EmbeddingsGigaR", "gigachat")
    assert dict(embedding.langchain.arguments)["credentials"].get_secret_value() == FAKE_GIGACHAT
    # auto-detect-beans: true and no external-starters: the starter's own chat model.
    assert (spec.id, spec.provider, spec.model) == ("GigaChat-2-Max", "gigachat", "GigaChat-2-Max")
    assert (spec.temperature, spec.max_tokens) == (0.0, 2000)
    arguments = dict(spec.langchain.arguments)
    assert arguments["credentials"].get_secret_value() == FAKE_GIGACHAT
    assert arguments["scope"] == "GIGACHAT_API_PERS"  # ${GIGACHAT_API_SCOPE:GIGACHAT_API_PERS}


def test_gigachat_demo_without_its_key_names_the_variable(java):
    with pytest.raises(ConfigError) as caught:
        load_settings(java / "gigachat-demo-application.yml", environ={})

    assert "GIGACHAT_API_KEY" in str(caught.value)
    assert caught.value.key == "spring.ai.gigachat.auth.bearer.api-key"


def test_the_seed_config_gives_four_openrouter_judges_and_the_retry(data_dir):
    path = data_dir / "seed-application.yaml"

    settings = load_settings(path, environ={"OPENROUTER_API_KEY": FAKE_OPENROUTER})

    [provider] = settings.providers.openai_compatible
    assert provider.name == "openrouter"
    assert [m.id for m in provider.chat_models] == [
        "anthropic/claude-3.5-sonnet",
        "google/gemini-2.5-flash",
        "openai/gpt-4o-mini",
        "deepseek/deepseek-v3.2",
    ]
    assert_java_retry(settings.retry)
    assert settings.providers.default_options.max_tokens == 1000


def test_spring_boot_test_config_all_profile_keeps_its_two_gigachat_judges(java):
    environ = {
        "OPENROUTER_API_KEY": FAKE_OPENROUTER,
        "GIGACHAT_API_CLIENT_ID": "client-1",
        "GIGACHAT_API_CLIENT_SECRET": "FAKE-gc-3333",
    }

    settings = load_settings(java / "spring-boot-test-application.yml", "all", environ=environ)

    assert [(s.provider, s.id) for s in judge_specs(settings)] == [
        ("openrouter", "deepseek/deepseek-v3.2"),
        ("openrouter", "google/gemini-3-flash-preview"),
        ("openrouter", "x-ai/grok-4.1-fast"),
        ("openrouter", "google/gemini-2.5-flash"),
        ("gigachat", "GigaChat-2-Max"),
        ("gigachat", "GigaChat-2-Pro"),
    ]
