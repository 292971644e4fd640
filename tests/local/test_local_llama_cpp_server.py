"""The stock llama-cpp-python server (``python -m llama_cpp.server``, not our shim) as a judge in
``json_object`` mode: it rejects ``json_schema`` but constrains decoding to the schema sent
beside ``json_object``. The bundled SmolLM2-135M scores the quick start through it."""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragas_boot.chat.local.runtime import bundled_model_path

pytestmark = pytest.mark.local_llm

ROOT = Path(__file__).resolve().parents[2]
MODEL_ID = "smollm2-135m"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _ready(port: int) -> bool:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    try:
        connection.request("GET", "/v1/models")
        return connection.getresponse().status == 200
    except OSError:
        return False
    finally:
        connection.close()


@pytest.fixture(scope="module")
def stock_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``python -m llama_cpp.server`` on the bundled model, on a free port of 127.0.0.1."""
    pytest.importorskip(
        "llama_cpp.server.app", reason="needs llama-cpp-python[server] (the dev extra)"
    )
    port = _free_port()
    log = tmp_path_factory.mktemp("llama-cpp-server") / "server.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "llama_cpp.server",
                "--model",
                str(bundled_model_path()),
                "--model_alias",
                MODEL_ID,
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--n_ctx",
                "4096",
                "--n_threads",
                "2",
            ],
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 120
        while not _ready(port):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server did not start: {log.read_text(errors='replace')}")
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def config(stock_server: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("stock-config") / "application.yaml"
    path.write_text(
        f"""
spring:
  ai:
    retry:
      max-attempts: 2
      backoff: {{ initial-interval: 500ms, multiplier: 2, max-interval: 5s }}
    ragas:
      providers:
        default-options: {{ temperature: 0.0, max-tokens: 160 }}
        openai-compatible:
          - name: llamacpp
            base-url: {stock_server}
            api-key: no-key-needed
            structured-output: json_object
            max-concurrency: 1
            timeout: 300s
            chat-models:
              - {{ id: {MODEL_ID} }}
      metrics:
        logging:
          level: MINIMAL
""",
        encoding="utf-8",
    )
    return path


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SPRING_", "RAGAS_")) or k == "RAGAS_BOOT_HOME"
    }
    return subprocess.run(
        list(args),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        env=env | {"COLUMNS": "200", "NO_COLOR": "1"},
        check=False,
    )


def test_ping_finds_json_object_accepted_and_json_schema_refused(config):
    done = _run(
        sys.executable,
        "-c",
        "import sys; from ragas_boot.cli import main; sys.exit(main(sys.argv[1:]))",
        "config",
        "check",
        "--config",
        str(config),
        "--ping",
    )

    assert done.returncode == 0, done.stdout + done.stderr
    row = next(line for line in done.stdout.split("Ping")[1].splitlines() if MODEL_ID in line)
    assert " ok " in row
    assert row.split("│")[5].strip().startswith("json_object")
    assert "json_schema (HTTP 500)" in row  # the stock server takes only text / json_object


def test_the_stock_server_scores_the_quickstart_in_json_object_mode(config):
    # One sample of the three keeps it short; README-style full runs are in the docs.
    done = _run(
        sys.executable,
        "examples/quickstart/run.py",
        "--config",
        str(config),
        "--sample",
        "refund-12345",
    )

    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert f"judge {MODEL_ID} (llamacpp): http://127.0.0.1:" in out
    row = next(line for line in out.splitlines() if "refund-12345" in line)
    cells = [cell.strip() for cell in row.split("│")[2:5]]
    assert cells[0] == "1.00"  # ToolCallAccuracy needs no judge
    assert cells[1] in ("0.00", "1.00")  # AgentGoalAccuracy: a schema-valid verdict
    summary = next(line for line in out.splitlines() if "judge calls" in line)
    calls, answered = (
        summary.split(" judge calls (")[0],
        summary.split("(")[1].split(" answered")[0],
    )
    assert int(answered) >= 1 and int(calls) >= int(answered)
