"""Spring-style injection into tests: ``@inject`` + ``metric=Provide["tool_call_accuracy"]``.

A test that declares such a default gets the ``ragas_inject`` fixture added to its fixtures at
collection, and that fixture wires the container to the test's module once per module. Only
tests whose markers name a ragas-boot metric bean are picked up, so tests wiring their own
application containers are left alone; other ids work once ``ragas_inject`` is requested
(``@pytest.mark.usefixtures("ragas_inject")``).

dependency-injector is looked up in ``sys.modules``, never imported here: a test module that
uses ``Provide`` has imported it already, and a run without one pays nothing.
"""

from __future__ import annotations

import difflib
import inspect
import sys
import warnings
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any

import pytest

__all__ = ["INJECT_FIXTURE", "add_inject_fixture", "marker_ids", "unwire_module", "wire_module"]

#: The fixture that wires the session container to a test's module.
INJECT_FIXTURE = "ragas_inject"

_WIRING = "dependency_injector.wiring"


def _wiring() -> ModuleType | None:
    return sys.modules.get(_WIRING)


def marker_ids(function: Any) -> list[Any]:
    """The ids of the ``Provide``/``Provider``/``Closing`` defaults of ``function``."""
    wiring = _wiring()
    if wiring is None:
        return []
    markers = (wiring.Provide, wiring.Provider, wiring.Closing)
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return []
    found = []
    for parameter in parameters:
        marker = parameter.default
        if isinstance(marker, wiring.Closing):
            marker = marker.provider
        if isinstance(marker, markers):
            found.append(marker.provider)
    return found


def _ours(value: str, names: set[str]) -> bool:
    # A near miss ("tool_call_acuracy") is ours too, so the test fails saying so instead of
    # getting the marker object as its argument.
    # A named criterion's bean ("aspect_critic__no_profanity") is declared in the YAML, which
    # is not read here: the metric's own bean name before "__" makes it ours.
    return (
        value in names
        or value.partition("__")[0] in names
        or bool(difflib.get_close_matches(value, names, n=1, cutoff=0.8))
    )


def _module_marker_ids(module: ModuleType) -> set[str]:
    functions = []
    for member in vars(module).values():
        if inspect.isfunction(member):
            functions.append(member)
        elif inspect.isclass(member) and member.__module__ == module.__name__:
            functions.extend(item for item in vars(member).values() if inspect.isfunction(item))
    return {
        value
        for function in functions
        if hasattr(function, "__wrapped__")
        for value in marker_ids(function)
        if isinstance(value, str)
    }


def _unknown(ids: Iterable[str], beans: Iterable[str]) -> list[str]:
    beans = list(beans)
    described = []
    for value in sorted(ids):
        if value.split(".", 1)[0] in beans:
            continue
        close = difflib.get_close_matches(value, beans, n=1)
        described.append(f"'{value}'" + (f" (did you mean '{close[0]}'?)" if close else ""))
    return described


def add_inject_fixture(
    items: Iterable[pytest.Item], bean_names: Callable[[], Iterable[str]]
) -> None:
    """Make tests injected with a ragas-boot bean use the ``ragas_inject`` fixture.

    Args:
        items: the collected tests.
        bean_names: the ids that trigger wiring (called only if some test is injected).
    """
    if _wiring() is None:
        return
    wanted: set[str] | None = None
    for item in items:
        function = getattr(item, "function", None)
        # @inject keeps the test behind __wrapped__; an undecorated test is never injected.
        if function is None or not hasattr(function, "__wrapped__"):
            continue
        ids = marker_ids(function)
        if not ids:
            continue
        if wanted is None:
            wanted = set(bean_names())
        if any(isinstance(value, str) and _ours(value, wanted) for value in ids):
            fixturenames: list[str] = getattr(item, "fixturenames", [])
            if INJECT_FIXTURE not in fixturenames:
                fixturenames.append(INJECT_FIXTURE)


def wire_module(container: Any, module: ModuleType) -> None:
    """Wire ``container`` to ``module``; fail the test when a marker names no bean.

    Warnings dependency-injector raises while it inspects the module's members (pydantic
    deprecations of imported models, for one) are not the test's business and are dropped.
    """
    wiring = _wiring()
    if wiring is None:  # pragma: no cover - a module with markers has imported it
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        container.wire(modules=[module], warn_unresolved=True)
    unresolved = sorted(
        {
            str(item.message)
            for item in caught
            if isinstance(item.message, wiring.UnresolvedMarkerWarning)
        }
    )
    if unresolved:
        wiring.unwire(modules=[module])
        beans = sorted(container.providers)
        unknown = _unknown(_module_marker_ids(module), beans) or unresolved
        pytest.fail(
            f"ragas-boot cannot inject into {module.__name__}: no bean named "
            + ", ".join(unknown)
            + f". The container's beans: {', '.join(beans)}",
            pytrace=False,
        )


def unwire_module(module: ModuleType) -> None:
    """Undo :func:`wire_module` (the test functions keep working, uninjected)."""
    wiring = _wiring()
    if wiring is not None:
        wiring.unwire(modules=[module])
