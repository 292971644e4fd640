"""The loop portal: one loop owns the I/O; sync and async callers from anywhere reach it."""

import asyncio
import threading

import pytest

from ragas_boot.execution.bridge import LoopPortal


async def _where():
    return threading.current_thread().name, asyncio.get_running_loop()


def test_sync_call_runs_on_the_portal_thread():
    portal = LoopPortal(name="test-portal")
    try:
        name, loop = portal.call(_where())
        assert name == "test-portal"
        assert loop is portal.loop
    finally:
        portal.close()


@pytest.mark.asyncio
async def test_async_callers_on_another_loop_are_bridged():
    portal = LoopPortal(name="test-portal")
    try:
        name, loop = await portal.run(_where())
        assert name == "test-portal"
        assert loop is not asyncio.get_running_loop()
    finally:
        await asyncio.to_thread(portal.close)


@pytest.mark.asyncio
async def test_a_sync_call_inside_a_running_loop_does_not_deadlock():
    portal = LoopPortal()
    try:
        # The caller's loop blocks while the portal does the work on its own thread.
        assert portal.call(asyncio.sleep(0.01, result=42)) == 42
    finally:
        portal.close()


def test_a_sync_call_from_the_portal_itself_is_refused_with_a_hint():
    portal = LoopPortal()

    async def nested():
        return portal.call(asyncio.sleep(0))

    try:
        with pytest.raises(RuntimeError, match="await the async twin"):
            portal.call(nested())
    finally:
        portal.close()


def test_errors_cross_the_bridge_unchanged():
    portal = LoopPortal()

    async def boom():
        raise KeyError("lost")

    try:
        with pytest.raises(KeyError, match="lost"):
            portal.call(boom())
    finally:
        portal.close()


def test_closed_portal_refuses_work_and_stops_its_thread():
    portal = LoopPortal(name="closing-portal")
    portal.call(asyncio.sleep(0))
    portal.close()
    assert not any(t.name == "closing-portal" for t in threading.enumerate())
    with pytest.raises(RuntimeError, match="closed"):
        portal.call(asyncio.sleep(0))


def test_several_event_loops_in_turn_share_one_portal():
    portal = LoopPortal()
    try:
        loops = {asyncio.run(portal.run(_where()))[1] for _ in range(3)}
        assert loops == {portal.loop}
    finally:
        portal.close()
