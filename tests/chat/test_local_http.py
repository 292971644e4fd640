"""The local model's endpoint shell (no model: its answers are the caller's), on the one
loop-in-a-thread shell. Unlike the test servers, stopping lets a running request finish."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import threading
import urllib.request
from typing import Any

from ragas_boot.chat.local.http import HOST, LocalHttp


def _post(port: int, body: dict[str, Any]) -> tuple[int, Any]:
    request = urllib.request.Request(
        f"http://{HOST}:{port}/v1/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, json.loads(response.read())


def test_it_serves_the_callers_answers_and_its_model_list() -> None:
    async def chat(raw: bytes, gone: Any) -> tuple[int, Any]:
        return 200, {"echo": json.loads(raw), "gone": gone()}

    shell = LocalHttp(
        chat=chat, models=lambda: {"data": ["m"]}, name="local-http-a", drain_seconds=5
    )
    port = shell.start()
    try:
        assert _post(port, {"model": "m", "ünï": "cödé"}) == (
            200,
            {"echo": {"model": "m", "ünï": "cödé"}, "gone": False},
        )
        with urllib.request.urlopen(f"http://{HOST}:{port}/v1/models", timeout=30) as response:
            assert json.loads(response.read()) == {"data": ["m"]}
    finally:
        shell.stop()
    assert shell.port is None
    assert not [t for t in threading.enumerate() if t.name == "local-http-a"]


def test_stop_lets_a_running_request_finish() -> None:
    entered, release = threading.Event(), threading.Event()

    async def chat(raw: bytes, gone: Any) -> tuple[int, Any]:
        entered.set()
        await asyncio.to_thread(release.wait, 30)
        return 200, {"finished": True}

    shell = LocalHttp(chat=chat, models=dict, name="local-http-b", drain_seconds=30)
    port = shell.start()
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        answer = pool.submit(_post, port, {"model": "m"})
        assert entered.wait(30)
        stopping = pool.submit(shell.stop)  # waits for the running request
        while shell.port is not None:  # stop has begun (it forgets the port first)
            threading.Event().wait(0.01)
        assert not stopping.done()
        release.set()
        stopping.result(60)
        assert answer.result(60) == (200, {"finished": True})


def test_a_stopped_shell_can_be_stopped_again() -> None:
    async def chat(raw: bytes, gone: Any) -> tuple[int, Any]:
        return 200, {}

    shell = LocalHttp(chat=chat, models=dict, name="local-http-c", drain_seconds=1)
    shell.stop()  # never started
    shell.start()
    shell.stop()
    shell.stop()
    assert shell.port is None
