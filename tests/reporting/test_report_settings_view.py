"""The resolved configuration as YAML: secrets masked, origins named, valid YAML."""

from __future__ import annotations

from pathlib import Path

import yaml

from ragas_boot import load_settings
from ragas_boot.reporting import redact, render_settings_yaml, secret_values

CONFIGS = Path(__file__).resolve().parents[1] / "data" / "java-configs"


def test_the_java_multi_provider_config_renders_with_origins_and_no_secret(secret):
    file = CONFIGS / "multi-model-application-test.yml"
    settings = load_settings(
        file,
        environ={
            "OPENROUTER_API_KEY": secret,
            "CLOUD_RU_API_KEY": secret + "-ru",
            "SPRING_AI_RETRY_MAX_ATTEMPTS": "3",
        },
    )
    text = render_settings_yaml(settings)
    assert secret not in text
    assert "# not supported, ignored: " in text  # spring.ai.model, spring.threads
    lines = text.splitlines()
    assert "      max-attempts: 3  # env:SPRING_AI_RETRY_MAX_ATTEMPTS" in lines
    assert any(line.endswith(f"api-key: '**********'  # {file}") for line in lines)
    tree = yaml.safe_load(text)
    providers = tree["spring"]["ai"]["ragas"]["providers"]["openai-compatible"]
    assert len(providers) == 3
    assert sum(len(p["chat-models"]) for p in providers) == 12


def test_secret_values_collects_keys_and_credential_headers(secret):
    settings = load_settings(
        CONFIGS / "spring-boot-test-application.yml", environ={"OPENROUTER_API_KEY": secret}
    )
    assert secret in secret_values(settings)
    assert redact(f"key={secret}!", secret_values(settings)) == "key=****!"
    assert redact("short", ["abc"]) == "short"  # too short to be searched for
