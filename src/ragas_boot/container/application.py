"""``create_container``: settings in, ready beans out, with one lifetime for all I/O."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any

from ragas_boot.config.settings import RagasSettings
from ragas_boot.container.containers import BEAN_NAMES, ApplicationContainer

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

__all__ = ["RagasContainer", "create_container"]


class RagasContainer:
    """The application container with a lifetime: ``async with`` / ``with`` closes it.

    Attribute access goes to the dependency-injector container underneath, so
    ``container.judges()``, ``container.agent_goal_accuracy()``,
    ``container.judges.override(...)`` and ``container.wire(...)`` all work as documented by
    dependency-injector. Closing shuts the judges' HTTP clients, stops the embedded local
    model servers (if any started) and the I/O loop.

    Args:
        di: the dependency-injector container (an :class:`ApplicationContainer` instance).
    """

    def __init__(self, di: Any) -> None:
        self._di = di
        self._closed = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._di, name)

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"RagasContainer({state}, beans={list(BEAN_NAMES)})"

    @property
    def di(self) -> Any:
        """The dependency-injector container (for wiring and overrides)."""
        return self._di

    @property
    def closed(self) -> bool:
        """Whether the container was closed."""
        return self._closed

    async def _close_judges(self) -> None:
        judges = self._di.judges()
        await asyncio.gather(*(judge.aclose() for judge in judges), return_exceptions=True)

    async def aclose(self) -> None:
        """Close judges' HTTP clients, stop local model servers and the I/O loop.

        Safe to call twice.
        """
        if self._closed:
            return
        self._closed = True
        portal = self._di.portal()
        try:
            await portal.run(self._close_judges())
        finally:
            try:
                await self._di.chat.local_models().aclose()
            finally:
                await asyncio.to_thread(portal.close)

    def close(self) -> None:
        """Sync twin of :meth:`aclose`."""
        if self._closed:
            return
        self._closed = True
        portal = self._di.portal()
        try:
            portal.call(self._close_judges())
        finally:
            try:
                self._di.chat.local_models().close()
            finally:
                portal.close()

    async def __aenter__(self) -> RagasContainer:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __enter__(self) -> RagasContainer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def create_container(
    settings: RagasSettings, *, chat_models: Mapping[str, BaseChatModel] | None = None
) -> RagasContainer:
    """Build the application container from settings; judges are checked here.

    Building the judges validates them (duplicate ids, unreachable completions paths) so a
    bad config fails at start-up, but no network traffic happens until the first call.

    Args:
        settings: the configuration.
        chat_models: LangChain chat models to judge with besides the configured ones, by
            judge id (the counterpart of Java's auto-detected ``ChatModel`` beans). Each
            judge's provider is named after its class (``ChatAnthropic`` → ``anthropic``);
            ``external-starters.<provider>`` gives its limits. The container calls them from
            its own event loop and leaves them open.

    Raises:
        ConfigError: the judges cannot be built from the settings, or a registered id is
            taken.
    """
    di = ApplicationContainer(settings=settings, chat_models=dict(chat_models or {}))
    di.judges()
    return RagasContainer(di)
