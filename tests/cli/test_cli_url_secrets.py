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


def test_a_run_on_a_base_url_with_credentials_sends_them_as_basic_auth_and_never_shows_them(
    run_cli, tmp_path, judges, dataset_file, root_conftest, monkeypatch
):
    import base64

    monkeypatch.setenv("JUDGE_KEY", "plain-key-value-123")
    base_url = judges.base_url.replace("http://", f"http://alice:{PASSWORD}@")
    config = tmp_path / "application.yaml"
    config.write_text(
        root_conftest.judges_yaml(base_url, {"gateway": ["judge-a", "judge-b"]}), encoding="utf-8"
    )
    reports = [tmp_path / "run.json", tmp_path / "run.html", tmp_path / "run.csv"]
    outs = [part for path in reports for part in ("--out", path)]
    result = run_cli(
        "evaluate", dataset_file, "--metric", "agent_goal_accuracy", "--config", config,
        "--no-history", "--no-cache", *outs,
    )  # fmt: skip
    assert result.code in (0, 1), result.err  # scored (one sample fails its threshold)
    sent = {request.request.headers["authorization"] for request in judges.requests}
    assert sent == {"Basic " + base64.b64encode(f"alice:{PASSWORD}".encode()).decode()}
    assert judges.count() == 2 * 3
    token = base64.b64encode(f"alice:{PASSWORD}".encode()).decode()
    for text in (result.out, result.err, *(path.read_text(encoding="utf-8") for path in reports)):
        assert PASSWORD not in text and token not in text
