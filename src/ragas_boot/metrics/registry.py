"""The one list of metrics: built from the metric classes themselves.

A metric class declares its bean name, Java name, config model, what it needs (judges,
embedding models, nothing), the sample fields it reads and a one-line description (see
:class:`~ragas_boot.metrics.base.Metric`). The registry collects:

1. the built-in metrics: every concrete :class:`Metric` subclass defined in the modules of
   the ``ragas_boot.metrics`` sub-packages (``agent/``, ``general/``, ``nlp/``, ...);
2. metrics of installed packages, declared under the ``ragas_boot.metrics`` entry-point group
   (the entry point names a metric class, or a module whose metric classes are all taken);
3. metrics registered in code with :func:`register_metric`.

From it, and only from it, come the container's metric beans, the pytest fixtures,
``ragas_metric("...")``, the CLI's ``--metric`` choices, the typed
``spring.ai.ragas.metrics.<bean-name>`` YAML sections and the docs' metrics table.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import logging
import pkgutil
import threading
from collections.abc import Iterable, Iterator, Mapping
from importlib.metadata import entry_points
from types import ModuleType
from typing import Any, TypeVar

from pydantic import BaseModel

from ragas_boot.config.settings import RagasSettings
from ragas_boot.errors import ConfigError
from ragas_boot.metrics.base import Metric, MetricConfig, Need

__all__ = [
    "ENTRY_POINT_GROUP",
    "METRICS",
    "MetricRegistry",
    "check_metric_sections",
    "criterion_bean_name",
    "criterion_beans",
    "metric_class",
    "register_metric",
    "split_criterion",
]

log = logging.getLogger("ragas_boot.metrics")

#: Entry-point group through which installed packages contribute metrics.
ENTRY_POINT_GROUP = "ragas_boot.metrics"

#: Sub-packages of ``ragas_boot.metrics`` that hold built-in metrics.
_BUILTIN_PACKAGE = "ragas_boot.metrics"

M = TypeVar("M", bound=type[Metric])  # type: ignore[type-arg]

_DECLARED = ("bean_name", "name", "description", "config_type", "reads")


def check_declaration(cls: type[Any]) -> None:
    """Raise TypeError unless ``cls`` is a concrete metric class with a full declaration."""
    if not (isinstance(cls, type) and issubclass(cls, Metric)):
        raise TypeError(f"{cls!r} is not a Metric subclass")
    if inspect.isabstract(cls):
        missing = ", ".join(sorted(cls.__abstractmethods__))
        raise TypeError(f"{cls.__qualname__} is abstract (does not implement {missing})")
    absent = [attr for attr in _DECLARED if not hasattr(cls, attr)]
    if absent:
        raise TypeError(
            f"{cls.__qualname__} does not declare {', '.join(absent)}; a metric class declares "
            "bean_name, name, description, config_type and reads (see ragas_boot.metrics.Metric)"
        )
    bean = cls.bean_name
    if not bean.isidentifier() or bean != bean.lower() or bean.startswith("_"):
        raise TypeError(
            f"{cls.__qualname__}.bean_name '{bean}' must be a snake_case Python identifier"
        )
    if not (isinstance(cls.config_type, type) and issubclass(cls.config_type, MetricConfig)):
        raise TypeError(f"{cls.__qualname__}.config_type must be a MetricConfig subclass")
    if not all(isinstance(need, Need) for need in cls.needs):
        raise TypeError(f"{cls.__qualname__}.needs must hold Need members")


def _defined_metrics(module: ModuleType) -> Iterator[type[Metric]]:  # type: ignore[type-arg]
    for value in vars(module).values():
        if (
            isinstance(value, type)
            and issubclass(value, Metric)
            and value.__module__ == module.__name__
            and not inspect.isabstract(value)
            and "bean_name" in vars(value)
        ):
            yield value


class MetricRegistry(Mapping[str, type[Metric]]):  # type: ignore[type-arg]
    """Bean name → metric class; built-ins, entry points and registered classes, loaded once.

    Iteration follows registration order: built-ins by package and module, then entry
    points, then :func:`register_metric` calls.
    """

    def __init__(self) -> None:
        self._classes: dict[str, type[Metric]] = {}  # type: ignore[type-arg]
        self._registered: list[type[Metric]] = []  # type: ignore[type-arg]
        self._loaded = False
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ Mapping

    def __getitem__(self, bean_name: str) -> type[Metric]:  # type: ignore[type-arg]
        return self._all()[bean_name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def __repr__(self) -> str:
        return f"MetricRegistry({', '.join(self._all())})"

    # ------------------------------------------------------------------ registration

    def register(self, cls: M) -> M:
        """Add a metric class (also usable as a class decorator).

        Raises:
            TypeError: the class is not a concrete, fully declared metric.
            ValueError: another metric already has its bean name.
        """
        check_declaration(cls)
        with self._lock:
            self._all()
            if cls in self._registered:
                return cls
            self._add(cls, origin="register_metric")
            self._registered.append(cls)
        return cls

    def _add(self, cls: type[Metric], *, origin: str) -> None:  # type: ignore[type-arg]
        existing = self._classes.get(cls.bean_name)
        if existing is not None and existing is not cls:
            raise ValueError(
                f"metric bean name '{cls.bean_name}' of {cls.__module__}.{cls.__qualname__} "
                f"({origin}) is taken by {existing.__module__}.{existing.__qualname__}; "
                "choose another bean_name"
            )
        self._classes[cls.bean_name] = cls

    def _all(self) -> dict[str, type[Metric]]:  # type: ignore[type-arg]
        if not self._loaded:
            with self._lock:
                if not self._loaded:
                    self._load()
        return self._classes

    def _load(self) -> None:
        for cls in _builtin_metrics():
            self._add(cls, origin="built-in")
        for cls, origin in _entry_point_metrics():
            try:
                check_declaration(cls)
                self._add(cls, origin=origin)
            except (TypeError, ValueError) as error:
                raise ConfigError(
                    f"the metric from entry point {origin} cannot be used: {error}",
                    hint=f"Fix or uninstall the package that declares it in '{ENTRY_POINT_GROUP}'",
                ) from None
        for cls in self._registered:
            self._add(cls, origin="register_metric")
        self._loaded = True

    # ------------------------------------------------------------------ lookups

    def lookup(self, name: str) -> type[Metric]:  # type: ignore[type-arg]
        """The class for a bean name, a Java class name or a kebab-case name.

        Raises:
            KeyError: no such metric; the message lists the known ones with a did-you-mean.
        """
        classes = self._all()
        wanted = name.strip().replace("-", "_").lower()
        if wanted in classes:
            return classes[wanted]
        for cls in classes.values():
            if cls.name.lower() in (wanted, wanted + "metric", name.strip().lower()):
                return cls
        close = difflib.get_close_matches(wanted, list(classes), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise KeyError(f"unknown metric '{name}'{hint} known: {', '.join(sorted(classes))}")

    def section_models(self) -> dict[str, type[BaseModel]]:
        """Bean name → model of its YAML section, the config plus ``criteria`` for metrics
        with named criteria: what ``load_settings(metric_sections=...)`` validates by."""
        return {bean: cls.section_model() for bean, cls in self._all().items()}


def _builtin_metrics() -> Iterator[type[Metric]]:  # type: ignore[type-arg]
    package = importlib.import_module(_BUILTIN_PACKAGE)
    for info in pkgutil.walk_packages(package.__path__, prefix=_BUILTIN_PACKAGE + "."):
        leaf = info.name.rsplit(".", 1)[-1]
        if leaf.startswith("_") or info.name.count(".") < 3:
            continue  # private modules, and the framework modules (base, registry, ...)
        yield from _defined_metrics(importlib.import_module(info.name))


def _entry_point_metrics() -> Iterator[tuple[type[Any], str]]:
    for point in entry_points(group=ENTRY_POINT_GROUP):
        origin = f"'{point.name} = {point.value}'"
        try:
            loaded = point.load()
        except Exception as error:  # a broken plugin must be named, not crash deep inside
            raise ConfigError(
                f"the metric from entry point {origin} could not be imported: "
                f"{type(error).__name__}: {error}",
                hint=f"Fix or uninstall the package that declares it in '{ENTRY_POINT_GROUP}'",
            ) from error
        classes: Iterable[Any]
        if isinstance(loaded, ModuleType):
            classes = list(_defined_metrics(loaded))
        elif isinstance(loaded, list | tuple):
            classes = loaded
        else:
            classes = [loaded]
        for cls in classes:
            yield cls, origin


#: The registry of every metric (bean name → class), loaded on first use.
METRICS = MetricRegistry()


def register_metric(cls: M) -> M:
    """Make a metric class a bean, a pytest fixture, a CLI metric and a YAML section.

    Call it before the container is created (or use it as a class decorator). Installed
    packages can declare their metrics under the ``ragas_boot.metrics`` entry-point group
    instead, with no code to run.

    Raises:
        TypeError: the class is not a concrete, fully declared metric.
        ValueError: another metric already has its bean name.
    """
    return METRICS.register(cls)


def check_metric_sections(settings: RagasSettings) -> None:
    """Raise ConfigError for a ``spring.ai.ragas.metrics`` section that names no metric.

    :func:`~ragas_boot.load_settings` checks the same with the file's name; this covers
    settings built in code, or loaded without the metrics' section models.
    """
    known = list(METRICS)
    for bean in settings.metrics.sections:
        if bean not in METRICS:
            key = f"spring.ai.ragas.metrics.{bean.replace('_', '-')}"
            close = difflib.get_close_matches(bean, known, n=1)
            raise ConfigError(
                "is not a registered metric",
                key=key,
                hint=f"did you mean '{close[0].replace('_', '-')}'?"
                if close
                else "known: " + ", ".join(name.replace("_", "-") for name in known),
            )


def metric_class(name: str) -> type[Metric]:  # type: ignore[type-arg]
    """The metric class for a bean name, a Java class name or a kebab-case name.

    Raises:
        KeyError: no such metric; the message lists the known ones.
    """
    return METRICS.lookup(name)


def split_criterion(name: str) -> tuple[str, str | None]:
    """``"aspect_critic:no-profanity"`` → ``("aspect_critic", "no-profanity")``; no colon → None."""
    metric, colon, criterion = name.partition(":")
    if not colon:
        return name.strip(), None
    return metric.strip(), criterion.strip()


def criterion_bean_name(bean_name: str, criterion: str) -> str:
    """The bean (and pytest fixture) name of a named criterion: ``aspect_critic__no_profanity``.

    The double underscore keeps it apart from every metric's own bean name.
    """
    return f"{bean_name}__{criterion.strip().replace('-', '_').lower()}"


def criterion_beans(settings: RagasSettings) -> dict[str, tuple[type[Metric], str]]:  # type: ignore[type-arg]
    """Bean name → (metric class, criterion) of every named criterion the settings declare."""
    return {
        criterion_bean_name(bean, criterion): (cls, criterion)
        for bean, cls in METRICS.items()
        for criterion in cls.criteria(settings.metrics)
    }
