"""``create_container``: settings in, ready beans out, with one lifetime for all I/O."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar, overload

from ragas_boot.config.settings import RagasSettings
from ragas_boot.container.containers import application_container, bean_names
from ragas_boot.errors import ConfigError
from ragas_boot.metrics.base import Metric
from ragas_boot.metrics.registry import (
    METRICS,
    check_metric_sections,
    criterion_bean_name,
    criterion_beans,
    split_criterion,
)

M = TypeVar("M", bound=Metric[Any])

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

    def __init__(self, di: Any, *, build_judges: bool = True) -> None:
        self._di = di
        self._closed = False
        # Lazy judges (create_container(build_judges=False)): closing releases only the
        # judges and embedding models a bean made, never builds them to close them.
        self._made: list[list[Any]] | None = None
        if not build_judges:
            self._made = []
            for provider in (di.chat.judges, di.chat.embedding_models):
                provider.set_provides(_recording(provider.provides, self._made))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._di, name)

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"RagasContainer({state}, beans={bean_names()})"

    @overload
    def metric(self, metric: type[M], criterion: str | None = None) -> M: ...

    @overload
    def metric(self, metric: str, criterion: str | None = None) -> Metric[Any]: ...

    def metric(self, metric: type[M] | str, criterion: str | None = None) -> M | Metric[Any]:
        """The bean of a metric, typed by its class: ``container.metric(FaithfulnessMetric)``.

        Args:
            metric: the metric class, or a bean name, Java class name or kebab-case name;
                ``"aspect_critic:no-profanity"`` names a criterion too.
            criterion: a named criterion declared under the metric's YAML section
                (``container.metric("aspect_critic", "no-profanity")``).

        Raises:
            KeyError: no registered metric answers to ``metric`` (the message lists them).
            ConfigError: the bean cannot be built (metrics switched off, bad YAML section),
                or the criterion is not declared (the message lists the declared ones).
        """
        if isinstance(metric, str):
            metric, named = split_criterion(metric)
            criterion = criterion or named
        cls = METRICS.lookup(metric) if isinstance(metric, str) else metric
        if METRICS.get(cls.bean_name) is not cls:
            raise KeyError(
                f"{cls.__qualname__} is not a registered metric; register it with "
                "ragas_boot.metrics.register_metric before creating the container"
            )
        if cls.bean_name not in self._di.providers:
            raise ConfigError(
                f"{cls.name} was registered after this container was created",
                hint="Register metrics before create_container()",
            )
        name = cls.bean_name
        if criterion is not None:
            found = cls.find_criterion(self._di.settings().metrics, criterion)
            name = criterion_bean_name(cls.bean_name, found)
        bean: M | Metric[Any] = getattr(self._di, name)()
        return bean

    @property
    def di(self) -> Any:
        """The dependency-injector container (for wiring and overrides)."""
        return self._di

    @property
    def closed(self) -> bool:
        """Whether the container was closed."""
        return self._closed

    async def _close_judges(self) -> None:
        if self._made is None:
            clients = [*self._di.judges(), *self._di.embedding_models()]
        else:
            clients = [client for made in self._made for client in made]
        await asyncio.gather(*(client.aclose() for client in clients), return_exceptions=True)
        cache = self._di.execution.response_cache()
        if cache is not None:
            cache.close()  # on the loop's thread, whose SQLite connection it is

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
    settings: RagasSettings,
    *,
    chat_models: Mapping[str, BaseChatModel] | None = None,
    build_judges: bool = True,
) -> RagasContainer:
    """Build the application container from settings; judges and embedding models are checked.

    Building the judges and embedding models validates them (duplicate ids, unreachable
    paths) so a bad config fails at start-up, but no network traffic happens until the first
    call.

    Args:
        settings: the configuration.
        chat_models: LangChain chat models to judge with besides the configured ones, by
            judge id (the counterpart of Java's auto-detected ``ChatModel`` beans). Each
            judge's provider is named after its class (``ChatAnthropic`` → ``anthropic``);
            ``external-starters.<provider>`` gives its limits. The container calls them from
            its own event loop and leaves them open.
        build_judges: False: build the judges and embedding models only when a bean that
            needs them is made, so a run of metrics that use neither (ToolCallAccuracy, the
            NLP metrics) never needs the local judge's extra nor a reachable model file.

    Raises:
        ConfigError: the judges or embedding models cannot be built from the settings, or a
            registered id is taken.
    """
    check_metric_sections(settings)
    container_class = application_container(criterion_beans(settings))
    di = container_class(settings=settings, chat_models=dict(chat_models or {}))
    if build_judges:
        di.judges()
        di.embedding_models()
    return RagasContainer(di, build_judges=build_judges)


def _recording(build: Any, made: list[list[Any]]) -> Any:
    """``build`` (a judges or embedding-models factory) keeping what it returns in ``made``."""

    def recording(*args: Any, **kwargs: Any) -> Any:
        result = build(*args, **kwargs)
        made.append(result)
        return result

    return recording
