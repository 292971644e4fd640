"""Allure attachments: one HTML page per evaluation, on the test step that ran it.

Active only when allure-pytest is installed and reporting (``--alluredir``), and
``spring.ai.ragas.allure.enabled`` is not set to ``false``; ragas-boot does not depend on
allure. Allure keeps its "current step" per thread, while judge metrics finish on the
container's I/O thread, so a page is attached on the test's own thread: at once when the
evaluation ran there (computed metrics), else when the Allure step that was open at the time
closes, or at the end of the test phase. A metric run with ``repeat: N`` attaches a page per
repeat and, after the last, one of the repeats (pass rate, interval, stability).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import pytest

if TYPE_CHECKING:
    from ragas_boot.config.settings import AllureSettings, RagasSettings
    from ragas_boot.execution.listeners import EvaluationFinished, EvaluationStarted

__all__ = ["AllureAttacher", "allure_enabled", "start_allure"]

_ENABLED_KEY = "spring.ai.ragas.allure.enabled"


class AttacherState(Protocol):
    """What the attacher reads of the plugin's state (``_pytest/state.py``, which holds the
    attacher: a protocol, so neither module imports the other)."""

    @property
    def config(self) -> pytest.Config:
        """The run's pytest config."""
        ...

    @property
    def current_test(self) -> str | None:
        """Node id of the running test, None between tests."""
        ...

    @property
    def test_thread(self) -> int | None:
        """Thread id the running test runs on."""
        ...


def allure_enabled(config: pytest.Config, settings: RagasSettings) -> bool:
    """allure-pytest is reporting, and the YAML does not switch the attachments off.

    ``spring.ai.ragas.allure.enabled`` defaults to ``false`` in the Java library, where it
    also gates the Allure beans; here running with ``--alluredir`` is the opt-in, and only an
    explicit ``false`` turns the pages off.
    """
    if config.pluginmanager.get_plugin("allure_listener") is None:
        return False
    return settings.allure.enabled or _ENABLED_KEY not in settings.source.origins


class AllureAttacher:
    """A metric listener that attaches the evaluation's page
    (:func:`ragas_boot.reporting.allure_page.render_page`) to the test's Allure step.

    Args:
        state: the plugin's state (which test runs, on which thread).
        settings: ``spring.ai.ragas.allure`` (prompts and answers shown, cut lengths).
        attach: the Allure call, ``attach(html, name)``.
    """

    order = 101

    def __init__(self, *, state: AttacherState, settings: AllureSettings, attach: Any) -> None:
        self._state = state
        self._settings = settings
        self._attach = attach
        self._lock = threading.Lock()
        self._pending: list[tuple[str | None, str, str]] = []
        self._steps: list[str] = []

    def before_evaluation(self, event: EvaluationStarted) -> None:
        """Nothing to do before an evaluation."""

    def after_evaluation(self, event: EvaluationFinished) -> None:
        """Attach the page now on the test's thread, else keep it for that thread."""
        from ragas_boot.reporting.allure_page import (
            page_name,
            render_page,
            render_repeats_page,
            repeats_page_name,
        )

        combined = event.result
        if event.repeat is None and combined is not None and combined.repeats is not None:
            threshold = getattr(event.config, "threshold", 0.5)
            self._add(repeats_page_name(combined), render_repeats_page(combined, threshold))
        elif event.repeat is not None or getattr(event.config, "repeat", 1) <= 1:
            self._add(page_name(event), render_page(event, self._settings))

    def _add(self, name: str, page: str) -> None:
        """Attach now on the test's thread, else keep it for that thread."""
        if self._on_test_thread():
            self._attach(page, name)
            return
        with self._lock:
            step = self._steps[-1] if self._steps else None
            self._pending.append((step, name, page))

    def _on_test_thread(self) -> bool:
        state = self._state
        return state.current_test is not None and threading.get_ident() == state.test_thread

    def step_started(self, uuid: str) -> None:
        """An Allure step opened on the test's thread."""
        if self._on_test_thread():
            with self._lock:
                self._steps.append(uuid)

    def step_stopping(self, uuid: str) -> None:
        """An Allure step is about to close: attach the pages of evaluations made in it."""
        with self._lock:
            if uuid not in self._steps:
                return
            self._steps.remove(uuid)
            mine = [item for item in self._pending if item[0] == uuid]
            self._pending = [item for item in self._pending if item[0] != uuid]
        for _, name, page in mine:
            self._attach(page, name)

    def flush(self) -> None:
        """Attach every page still waiting (end of a test phase, on the test's thread)."""
        with self._lock:
            waiting, self._pending = self._pending, []
            self._steps.clear()
        for _, name, page in waiting:
            self._attach(page, name)


def start_allure(state: AttacherState, settings: RagasSettings) -> AllureAttacher | None:
    """Make the attacher and hook it into Allure's steps, when Allure reporting is on."""
    if not allure_enabled(state.config, settings):
        return None
    # Imported by name: allure ships no type information and is not a dependency.
    allure = importlib.import_module("allure")
    allure_commons = importlib.import_module("allure_commons")

    def attach(page: str, name: str) -> None:
        allure.attach(page, name=name, attachment_type=allure.attachment_type.HTML)

    attacher = AllureAttacher(state=state, settings=settings.allure, attach=attach)
    first: Callable[[Callable[..., None]], Callable[..., None]] = allure_commons.hookimpl(
        tryfirst=True
    )

    class _StepHooks:
        """Runs before allure-pytest's own step hooks, while the step is still current."""

        @first
        def start_step(self, uuid: str, title: str, params: Any) -> None:
            attacher.step_started(uuid)

        @first
        def stop_step(self, uuid: str, exc_type: Any, exc_val: Any, exc_tb: Any) -> None:
            attacher.step_stopping(uuid)

    hooks = _StepHooks()
    allure_commons.plugin_manager.register(hooks)
    state.config.add_cleanup(lambda: allure_commons.plugin_manager.unregister(hooks))
    return attacher
