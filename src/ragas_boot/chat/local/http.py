"""The local model's OpenAI-compatible endpoint: a small ``aiohttp.web`` app on 127.0.0.1.

Only where an endpoint is needed (the tool-suite agent runner, a user's own OpenAI client):
judges call the model in process. The app runs on an event loop of its own in a daemon
thread (:class:`~ragas_boot._loop_thread.LoopThread`), bound to a free port of ``127.0.0.1``
only; HTTP is aiohttp's, the answers are the caller's (``chat``: status and JSON body for a
request body; ``models``: the model list). Unlike the test servers, stopping lets running
requests finish (up to a drain time): a generation runs to its end on the model's worker.
"""

from __future__ import annotations

import socket
from collections.abc import Awaitable, Callable
from typing import Any, Final

from ragas_boot._loop_thread import LoopThread

__all__ = ["HOST", "LocalHttp"]

HOST: Final = "127.0.0.1"

#: Answers one ``POST /v1/chat/completions`` body: (status, JSON body). The callable it gets
#: tells whether the client has gone (checked when the request's turn comes).
ChatHandler = Callable[[bytes, Callable[[], bool]], Awaitable[tuple[int, Any]]]


class LocalHttp:
    """``POST /v1/chat/completions`` and ``GET /v1/models`` on ``127.0.0.1:port``.

    Args:
        chat: answers a chat-completion request body.
        models: the ``GET /v1/models`` body.
        name: the server thread's name.
        drain_seconds: how long :meth:`stop` lets running requests finish.
    """

    def __init__(
        self,
        *,
        chat: ChatHandler,
        models: Callable[[], Any],
        name: str,
        drain_seconds: float,
    ) -> None:
        self._chat = chat
        self._models = models
        self._name = name
        self._drain = drain_seconds
        self._thread: LoopThread | None = None
        self._runner: Any = None
        self.port: int | None = None

    async def _serve(self, sock: socket.socket) -> None:
        from aiohttp import web

        async def chat(request: web.Request) -> web.Response:
            body = await request.read()

            def gone() -> bool:
                transport = request.transport
                return transport is None or transport.is_closing()

            status, answer = await self._chat(body, gone)
            return web.json_response(answer, status=status)

        async def models(request: web.Request) -> web.Response:
            return web.json_response(self._models())

        app = web.Application()
        app.router.add_post("/v1/chat/completions", chat)
        app.router.add_get("/v1/models", models)
        runner = web.AppRunner(
            app, handle_signals=False, access_log=None, shutdown_timeout=self._drain
        )
        await runner.setup()
        await web.SockSite(runner, sock).start()
        self._runner = runner

    def start(self) -> int:
        """Bind a free port of ``127.0.0.1`` and serve from a daemon thread; return the port."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.bind((HOST, 0))
        except OSError:
            sock.close()
            raise
        thread = LoopThread(name=self._name)
        thread.start()
        try:
            thread.call(self._serve(sock))
        except BaseException:
            thread.stop(timeout=self._drain + 10.0)
            sock.close()
            raise
        self._thread = thread
        self.port = int(sock.getsockname()[1])
        return self.port

    def stop(self) -> None:
        """Stop accepting, let running requests finish (up to the drain time), close the
        connections and join the thread."""
        thread, runner = self._thread, self._runner
        self._thread = self._runner = None
        self.port = None
        if thread is None:
            return
        try:
            if runner is not None:
                thread.call(runner.cleanup(), timeout=self._drain + 10.0)
        finally:
            thread.stop(timeout=self._drain + 10.0)
