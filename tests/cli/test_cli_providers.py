"""``ragas-boot config check`` on GigaChat and LangChain judges, and what ``--ping`` says of the
structured-output modes each judge takes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ragas_boot.testing import ChatRequest, FakeOpenAIServer, Reply
from support.fakes import FakeGigaChatServer, gigachat_key

pytest.importorskip("langchain_gigachat")

ROOT = Path(__file__).resolve().parents[2]
KEY = gigachat_key("demo-client", "FAKE-demo-secret-9090")


def rows(out: str) -> dict[str, str]:
    return {line.split("│")[1].strip(): line for line in out.splitlines() if "│" in line}


@pytest.fixture
def gigachat_demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The Java gigachat-demo config as is, its GigaChat URLs pointed at a local fake."""
    path = tmp_path / "gigachat-demo-application.yml"
    shutil.copy(ROOT / "tests" / "data" / "java-configs" / path.name, path)
    with FakeGigaChatServer(credentials=KEY) as server:
        monkeypatch.setenv("GIGACHAT_API_KEY", KEY)
        # Spring's relaxed environment names override the YAML, as for a Java app.
        monkeypatch.setenv("SPRING_AI_GIGACHAT_BASE_URL", server.base_url)
        monkeypatch.setenv("SPRING_AI_GIGACHAT_AUTH_BEARER_URL", server.auth_url)
        yield path, server


def test_config_check_on_the_gigachat_demo_lists_the_gigachat_judge(run_cli, gigachat_demo):
    path, server = gigachat_demo

    result = run_cli("config", "check", "--config", path)

    assert result.code == 0, result.err
    assert "Configuration OK: 1 judge(s) in 1 provider(s)" in result.out
    row = rows(result.out)["GigaChat-2-Max"]
    assert "gigachat" in row and "native" in row
    assert "langchain_gigachat.GigaChat" in result.out
    # The demo's spring.ai.gigachat.embedding: a GigaChat embedding model, no longer ignored.
    embedding = rows(result.out.split("Embedding models")[1])["EmbeddingsGigaR"]
    assert "gigachat" in embedding
    assert "Configuration OK" in result.out and "response_relevancy" not in result.err
    assert server.requests == []  # no --ping, no traffic
    assert KEY not in result.text


def test_config_check_ping_reaches_the_fake_gigachat(run_cli, gigachat_demo):
    path, server = gigachat_demo

    result = run_cli("config", "check", "--config", path, "--ping")

    assert result.code == 0, result.err
    row = rows(result.out.split("Ping")[1])["GigaChat-2-Max"]
    assert " ok " in row
    assert "native, prompt, json_object, json_schema, function_calling" in row
    assert server.token_requests >= 1
    assert server.count("GigaChat-2-Max") == 5  # one call per structured-output mode
    assert KEY not in result.text


def test_ping_tells_a_json_object_only_server_from_the_others(run_cli, tmp_path):
    # As llama-cpp-python's stock server: response_format json_schema is a 500.
    def refuses_json_schema(request: ChatRequest) -> bool:
        return (request.response_format or {}).get("type") == "json_schema"

    with FakeOpenAIServer() as server:
        server.when(
            refuses_json_schema, Reply.error(500, "Input should be 'text' or 'json_object'")
        )
        path = tmp_path / "application.yaml"
        path.write_text(
            f"""
spring.ai.ragas.providers.openai-compatible:
  - name: llamacpp
    base-url: {server.base_url}
    api-key: no-key-needed
    structured-output: json_object
    chat-models: [{{ id: smollm2 }}]
""",
            encoding="utf-8",
        )

        result = run_cli("config", "check", "--config", path, "--ping")

    assert result.code == 0, result.err
    row = rows(result.out.split("Ping")[1])["smollm2"]
    assert "json_object, prompt, function_calling; not: json_schema (HTTP 500)" in row
