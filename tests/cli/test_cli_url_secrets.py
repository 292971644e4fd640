"""``config show`` / ``config check`` never print credentials inside a base-url, and a base-url
without a scheme is refused by ``config check`` (exit 2 naming the key), not at the first call."""

from __future__ import annotations

PASSWORD = "url-pass-27182818"
QUERY_KEY = "query-key-16180339"


def _config(tmp_path, base_url: str):
    path = tmp_path / "application.yaml"
    path.write_text(
        "spring.ai.ragas.providers.openai-compatible:\n"
        f"  - {{ name: p, base-url: '{base_url}', api-key: plain-key-value-123,"
        " headers: {X-Org: header-value-99887766}, chat-models: [{id: m}] }\n",
        encoding="utf-8",
    )
    return path


def test_config_show_and_check_mask_url_credentials(run_cli, tmp_path):
    config = _config(tmp_path, f"https://alice:{PASSWORD}@judge.example/api?key={QUERY_KEY}")

    for action in ("show", "check"):
        result = run_cli("config", action, "--config", config)
        assert result.code == 0, result.err
        for secret in (PASSWORD, QUERY_KEY, "plain-key-value-123", "header-value-99887766"):
            assert secret not in result.text, (action, secret)
        assert "alice:****@judge.example" in result.out.replace("\n", "")


def test_config_check_refuses_a_base_url_without_a_scheme(run_cli, tmp_path):
    result = run_cli("config", "check", "--config", _config(tmp_path, "localhost:8080"))

    assert result.code == 2
    assert "spring.ai.ragas.providers.openai-compatible[0].base-url: must be an absolute" in (
        result.err.replace("\n", " ")
    )
