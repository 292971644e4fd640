"""Key forms: nested, dotted, indexed, relaxed; merging of documents."""

from __future__ import annotations

from datetime import timedelta

import pytest

from ragas_boot.config import DefaultProviderSettings, load_settings

NESTED = """\
spring:
  ai:
    retry:
      max-attempts: 3
      backoff:
        multiplier: 4
"""
DOTTED_TOP = """\
spring.ai.retry:
  max-attempts: 3
  backoff:
    multiplier: 4
"""
DOTTED_LEAVES = """\
spring.ai.retry.max-attempts: 3
spring.ai.retry.backoff.multiplier: 4
"""
DOTTED_INSIDE = """\
spring:
  ai.retry:
    max-attempts: 3
    backoff.multiplier: 4
"""


@pytest.mark.parametrize("text", [NESTED, DOTTED_TOP, DOTTED_LEAVES, DOTTED_INSIDE])
def test_nested_and_dotted_keys_mean_the_same(write_yaml, text):
    retry = load_settings(write_yaml(text), environ={}).retry

    assert retry.max_attempts == 3
    assert retry.backoff.multiplier == 4.0


def test_nested_and_dotted_forms_of_one_section_merge(write_yaml):
    path = write_yaml(
        """\
        spring:
          ai:
            retry:
              max-attempts: 3
        spring.ai.retry.backoff.multiplier: 4
        spring.ai.openai:
          chat.options:
            model: gpt-4o-mini
        """
    )

    settings = load_settings(path, environ={})

    assert settings.retry.max_attempts == 3
    assert settings.retry.backoff.multiplier == 4.0
    assert settings.openai.chat.options.model == "gpt-4o-mini"


@pytest.mark.parametrize(
    "text",
    [
        "spring.ai.retry.maxAttempts: 3\nspring.ai.retry.onHttpCodes: [503]\n",
        "spring.ai.retry.max_attempts: 3\nspring.ai.retry.on_http_codes: [503]\n",
        "spring.ai.retry.MAX_ATTEMPTS: 3\nspring.ai.retry.ON_HTTP_CODES: [503]\n",
        "spring.ai.retry.max-attempts: 3\nspring.ai.retry.on-http-codes: [503]\n",
    ],
    ids=["camelCase", "snake_case", "UPPER_CASE", "kebab-case"],
)
def test_relaxed_key_forms_are_accepted(write_yaml, text):
    retry = load_settings(write_yaml(text), environ={}).retry

    assert retry.max_attempts == 3
    assert retry.on_http_codes == [503]


def test_relaxed_forms_work_deep_in_provider_lists(write_yaml):
    path = write_yaml(
        """\
        spring.ai.ragas.providers:
          autoDetectBeans: false
          openAICompatible:
            - name: p
              baseUrl: http://localhost:1
              api_key: k
              completionsPath: /chat
              chatModels:
                - id: m
                  options: { maxTokens: 5, top_p: 0.5 }
              rateLimit: { rps: 2, strategy: reject }
        spring.ai.openai.chat.options.maxTokens: 7
        """
    )

    settings = load_settings(path, environ={})

    provider = settings.providers.openai_compatible[0]
    assert settings.providers.auto_detect_beans is False
    assert provider.base_url == "http://localhost:1"
    assert provider.api_key.get_secret_value() == "k"
    assert provider.completions_path == "/chat"
    assert provider.chat_models[0].options.max_tokens == 5
    assert provider.chat_models[0].options.top_p == 0.5
    assert provider.rate_limit is not None
    assert provider.rate_limit.rps == 2
    assert settings.openai.chat.options.max_tokens == 7


def test_relaxed_and_kebab_forms_of_a_key_override_each_other_across_documents(write_yaml):
    path = write_yaml(
        """\
        spring.ai.openai.base-url: http://base
        ---
        spring.config.activate.on-profile: dev
        spring.ai.openai.baseUrl: http://dev
        """
    )

    assert load_settings(path, "dev", environ={}).openai.base_url == "http://dev"
    assert load_settings(path, environ={}).openai.base_url == "http://base"


def test_list_indexes_in_dotted_keys_build_lists(write_yaml):
    path = write_yaml(
        """\
        spring.ai.ragas.providers.openai-compatible[0].name: a
        spring.ai.ragas.providers.openai-compatible[0].base-url: http://a
        spring.ai.ragas.providers.openai-compatible[0].api-key: ka
        spring.ai.ragas.providers.openai-compatible[0].chat-models[0].id: m1
        spring.ai.ragas.providers.openai-compatible[1]:
          name: b
          base-url: http://b
          api-key: kb
        """
    )

    providers = load_settings(path, environ={}).providers.openai_compatible

    assert [p.name for p in providers] == ["a", "b"]
    assert [m.id for m in providers[0].chat_models] == ["m1"]


def test_free_form_map_keys_keep_their_spelling(write_yaml):
    path = write_yaml(
        """\
        spring.ai.ragas.providers.openai-compatible:
          - name: p
            base-url: http://p
            api-key: k
            headers:
              X-Title: ragas
              HTTP-Referer: https://example.org
              "[X.Dotted]": yes-it-is
        """
    )

    headers = load_settings(path, environ={}).providers.openai_compatible[0].headers

    assert {name: value.get_secret_value() for name, value in headers.items()} == {
        "X-Title": "ragas",
        "HTTP-Referer": "https://example.org",
        "X.Dotted": "yes-it-is",
    }


def test_an_empty_section_leaves_the_defaults(write_yaml):
    path = write_yaml(
        """\
        spring.ai.ragas.providers:
          default-provider:
          openai-compatible:
        spring.ai.retry:
        """
    )

    settings = load_settings(path, environ={})

    assert settings.providers.default_provider == DefaultProviderSettings()
    assert settings.providers.openai_compatible == []
    assert settings.retry.max_attempts == 4


def test_later_documents_merge_maps_and_replace_lists(write_yaml):
    path = write_yaml(
        """\
        spring.ai.retry:
          on-http-codes: [429, 500]
          backoff:
            initial-interval: 1s
            multiplier: 2
        ---
        spring.config.activate.on-profile: dev
        spring.ai.retry:
          on-http-codes: [503]
          backoff:
            multiplier: 3
        """
    )

    retry = load_settings(path, "dev", environ={}).retry

    assert retry.on_http_codes == [503]
    assert retry.backoff.multiplier == 3.0
    assert retry.backoff.initial_interval == timedelta(seconds=1)


def test_an_empty_map_in_a_later_document_does_not_clear_the_map(write_yaml):
    path = write_yaml(
        """\
        spring.ai.ragas.metrics.tool-call-accuracy:
          mode: flexible
        ---
        spring.config.activate.on-profile: dev
        spring.ai.ragas.metrics.tool-call-accuracy: {}
        """
    )

    metrics = load_settings(path, "dev", environ={}).metrics

    assert metrics.tool_call_accuracy == {"mode": "flexible"}


def test_an_empty_list_in_a_later_document_clears_the_list(write_yaml):
    path = write_yaml(
        """\
        spring.ai.ragas.providers.openai-compatible:
          - { name: p, base-url: http://p, api-key: k }
        ---
        spring.config.activate.on-profile: none
        spring.ai.ragas.providers.openai-compatible: []
        """
    )

    assert len(load_settings(path, environ={}).providers.openai_compatible) == 1
    assert load_settings(path, "none", environ={}).providers.openai_compatible == []


@pytest.mark.parametrize(
    ("value", "expected"),
    [("429, 503", [429, 503]), ("429", [429]), ("429,", [429]), ("[]", [])],
)
def test_comma_strings_and_lone_values_fill_list_keys(write_yaml, value, expected):
    path = write_yaml(f"spring.ai.retry.on-http-codes: {value}\n")

    assert load_settings(path, environ={}).retry.on_http_codes == expected


def test_yaml_11_booleans_are_read_as_spring_reads_them(write_yaml):
    path = write_yaml("spring.ai.retry:\n  on-client-errors: yes\n  honor-retry-after: off\n")

    retry = load_settings(path, environ={}).retry

    assert retry.on_client_errors is True
    assert retry.honor_retry_after is False
