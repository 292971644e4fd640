"""The one loop-in-a-thread shell (the portal, the local model's endpoint and the test servers
run on it): started once, reached from other threads and loops, stopped cleanly."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from ragas_boot._loop_thread import LoopThread


async def _where() -> tuple[str, asyncio.AbstractEventLoop]:
    return threading.current_thread().name, asyncio.get_running_loop()


def _threads(name: str) -> list[str]:
    return [thread.name for thread in threading.enumerate() if thread.name.startswith(name)]


def test_a_coroutine_runs_on_the_named_thread_and_stop_ends_it() -> None:
    shell = LoopThread(name="shell-a")
    loop = shell.start()
    name, running = shell.call(_where())
    assert (name, running) == ("shell-a", loop)
    assert shell.running and loop.is_running()
    shell.stop()
    assert not shell.running and shell.loop is None
    assert loop.is_closed()
    assert _threads("shell-a") == []


def test_stop_cancels_the_tasks_left_and_closes_async_generators() -> None:
    shell = LoopThread(name="shell-b")
    shell.start()
    seen: list[str] = []

    async def forever() -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise

    async def numbers():  # type: ignore[no-untyped-def]
        try:
            yield 1
            yield 2
        finally:
            seen.append("generator closed")

    async def start_both() -> None:
        asyncio.get_running_loop().create_task(forever())
        generator = numbers()
        await generator.__anext__()  # left suspended: only the loop's shutdown closes it
        shell.generator = generator  # type: ignore[attr-defined]  # kept alive until stop

    shell.call(start_both())
    shell.stop()
    assert sorted(seen) == ["cancelled", "generator closed"]


@pytest.mark.asyncio
async def test_a_caller_on_another_loop_awaits_it_and_its_cancellation_crosses_over() -> None:
    shell = LoopThread(name="shell-c")
    shell.start()
    started, cancelled = threading.Event(), threading.Event()

    async def slow() -> None:
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    try:
        name, loop = await shell.run(_where())
        assert name == "shell-c" and loop is not asyncio.get_running_loop()
        waiting = asyncio.ensure_future(shell.run(slow()))
        await asyncio.to_thread(started.wait, 10)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert await asyncio.to_thread(cancelled.wait, 10)
    finally:
        await asyncio.to_thread(shell.stop)


def test_its_own_workers_are_named_and_joined_by_stop() -> None:
    shell = LoopThread(name="shell-d", workers=2)
    shell.start()
    done: list[str] = []

    def blocking() -> str:
        time.sleep(0.05)
        done.append(threading.current_thread().name)
        return "ok"

    async def hand_off() -> str:
        return await asyncio.to_thread(blocking)

    assert shell.call(hand_off()) == "ok"
    assert done[0].startswith("shell-d-worker")
    shell.stop()
    assert _threads("shell-d") == []  # the workers too


def test_work_after_stop_is_refused_and_never_left_unawaited() -> None:
    shell = LoopThread(name="shell-e")
    shell.start()
    shell.stop()
    shell.stop()  # a second stop does nothing
    coroutine = _where()
    with pytest.raises(RuntimeError, match="shell-e is not running"):
        shell.call(coroutine)
    assert coroutine.cr_frame is None  # closed, so no "never awaited" warning


def test_it_cannot_be_started_twice_nor_stopped_from_its_own_thread() -> None:
    shell = LoopThread(name="shell-f")
    shell.start()
    try:
        with pytest.raises(RuntimeError, match="already running"):
            shell.start()

        async def stop_from_inside() -> None:
            shell.stop()

        with pytest.raises(RuntimeError, match="cannot be stopped from its own thread"):
            shell.call(stop_from_inside())
    finally:
        shell.stop()


def test_a_blocking_call_gives_up_after_its_timeout() -> None:
    shell = LoopThread(name="shell-g")
    shell.start()
    try:
        with pytest.raises(TimeoutError):
            shell.call(asyncio.sleep(5), timeout=0.05)
    finally:
        shell.stop()
