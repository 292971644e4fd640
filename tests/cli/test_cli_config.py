"""``ragas-boot config show | check [--ping]`` and ``ragas-boot schema``."""

from __future__ import annotations

import json

import yaml

from ragas_boot.datasets import dataset_json_schema
from ragas_boot.reporting import report_json_schema
from ragas_boot.testing import Reply


def test_config_show_prints_resolved_yaml_with_origins_and_masked_secrets(
    run_cli, config_file, secret, monkeypatch
):
    monkeypatch.setenv("SPRING_AI_RETRY_MAX_ATTEMPTS", "5")
    config_file.with_name("application-ci.yaml").write_text(
        "spring.ai.ragas.metrics.aggregation: median\n", encoding="utf-8"
    )
    result = run_cli("config", "show", "--config", config_file, "--profile", "ci")
    assert result.code == 0, result.err
    out = result.out
    assert secret not in out
    assert f"# files: {config_file}, {config_file.with_name('application-ci.yaml')}" in out
    assert "# active profiles: ci" in out
    lines = out.splitlines()
    assert "      max-attempts: 5  # env:SPRING_AI_RETRY_MAX_ATTEMPTS" in lines
    aggregation = next(line for line in lines if line.strip().startswith("aggregation:"))
    assert aggregation.endswith("MEDIAN  # " + str(config_file.with_name("application-ci.yaml")))
    api_key = next(line for line in lines if "api-key:" in line)
    assert "'**********'" in api_key and str(config_file) in api_key
    assert any(line.strip() == "honor-retry-after: true" for line in lines)  # a default
    tree = yaml.safe_load(out)  # the output is valid YAML
    providers = tree["spring"]["ai"]["ragas"]["providers"]["openai-compatible"]
    assert [m["id"] for m in providers[0]["chat-models"]] == ["judge-a", "judge-b", "judge-c"]


def test_config_show_masks_every_header_value(run_cli, tmp_path):
    config = tmp_path / "application.yaml"
    config.write_text(
        "spring.ai.ragas.providers.openai-compatible:\n"
        "  - name: p\n"
        "    base-url: http://127.0.0.1:9\n"
        "    api-key: plain-key-value-123\n"
        "    headers: {X-Api-Key: header-secret-456789, HTTP-Referer: https://example.org}\n"
        "    chat-models: [{id: m}]\n",
        encoding="utf-8",
    )
    result = run_cli("config", "show", "--config", config)
    assert result.code == 0, result.err
    assert "plain-key-value-123" not in result.out
    assert "header-secret-456789" not in result.out
    assert "https://example.org" not in result.out
    assert "HTTP-Referer: '****'" in result.out


def test_config_check_lists_the_judges(run_cli, config_file, judges):
    result = run_cli("config", "check", "--config", config_file)
    assert result.code == 0, result.err
    assert "Configuration OK: 3 judge(s) in 1 provider(s)" in result.out
    assert f"{judges.base_url}/v1/chat/completions" in result.out.replace("\n", "")
    assert judges.count() == 0  # no --ping, no traffic


def test_config_check_ping_reports_each_judge(run_cli, config_file, judges):
    judges.fail_always("judge-c", Reply.error(401, "invalid key"))
    result = run_cli("config", "check", "--config", config_file, "--ping")
    assert result.code == 1
    rows = {line.split("│")[1].strip(): line for line in result.out.splitlines() if "│" in line}
    assert " ok " in rows["judge-a"] and " ms " in rows["judge-a"]
    assert "failed" in rows["judge-c"] and "auth" in rows["judge-c"]
    assert "FAILED 1 judge(s) did not answer: judge-c" in result.err
    # One request in the configured mode, one more for each other structured-output mode.
    assert judges.count("judge-a") == 4
    assert "prompt, json_object, json_schema, function_calling" in rows["judge-a"]
    assert "not: " in rows["judge-c"] and "HTTP 401" in rows["judge-c"]


def test_config_check_ping_all_ok(run_cli, config_file, judges):
    result = run_cli("config", "check", "--config", config_file, "--ping")
    assert result.code == 0, result.err
    assert judges.count() == 3 * 4  # each judge once per structured-output mode


def test_config_check_refuses_a_bad_metric_section(run_cli, config_file):
    with config_file.open("a", encoding="utf-8") as handle:
        handle.write("spring.ai.ragas.metrics.topic-adherence.mode: sideways\n")
    result = run_cli("config", "check", "--config", config_file)
    assert result.code == 2
    assert "spring.ai.ragas.metrics.topic-adherence.mode" in result.err


def test_schema_commands_print_the_json_schemas(run_cli):
    dataset = run_cli("schema", "dataset")
    assert dataset.code == 0
    assert json.loads(dataset.out) == dataset_json_schema()
    report = run_cli("schema", "report")
    assert json.loads(report.out) == report_json_schema()


def test_config_check_refuses_a_tls_file_that_does_not_load_for_an_http_base_url(
    run_cli, tmp_path, openai_server
):
    (tmp_path / "corp-root.pem").write_text("not PEM at all", encoding="utf-8")
    config = tmp_path / "application.yaml"
    config.write_text(
        "spring.ai.ragas.providers.openai-compatible:\n"
        "  - name: corp\n"
        f"    base-url: {openai_server.base_url}\n"
        "    api-key: k\n"
        f"    ca-bundle: {tmp_path / 'corp-root.pem'}\n"
        "    chat-models: [{id: judge-a}]\n",
        encoding="utf-8",
    )
    for command in (("config", "check"), ("config", "check", "--ping")):
        result = run_cli(*command, "--config", config)
        assert result.code == 2, result.out
        assert "spring.ai.ragas.providers.openai-compatible[0].ca-bundle" in result.err
        assert "corp-root.pem" in result.err
    assert openai_server.count() == 0  # refused before any call
