"""What the plugin keeps per pytest run (one per ``pytest.Config``, so nested runs of
``pytester`` never see each other's settings, container or scores)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import pytest

from ragas_boot._pytest.options import RagasOptions
from ragas_boot._pytest.recording import ScoreRecorder

if TYPE_CHECKING:
    from ragas_boot._pytest.allure import AllureAttacher
    from ragas_boot.config.settings import RagasSettings
    from ragas_boot.container import RagasContainer

__all__ = ["STATE_KEY", "RagasPluginState", "plugin_state"]


class RagasPluginState:
    """Options, the settings (loaded once), the session container and the score recorder."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.options = RagasOptions.from_config(config)
        self.current_test: str | None = None
        self.test_thread: int | None = None
        self.recorder = ScoreRecorder(current_test=lambda: self.current_test)
        self.container: RagasContainer | None = None
        self.allure: AllureAttacher | None = None
        # Config files and profiles pytest-xdist workers used (see _pytest/workers.py).
        self.worker_files: list[str] = []
        self.worker_profiles: list[str] = []
        self._settings: RagasSettings | None = None
        self._settings_error: Exception | None = None

    def enter_test(self, nodeid: str) -> None:
        """Evaluations from now on belong to ``nodeid``."""
        self.current_test = nodeid
        self.test_thread = threading.get_ident()

    def leave_test(self) -> None:
        """Evaluations from now on belong to no test."""
        self.current_test = None

    @property
    def settings_loaded(self) -> bool:
        """Whether the YAML was read (successfully or not)."""
        return self._settings is not None or self._settings_error is not None

    def settings(self) -> RagasSettings:
        """The settings from the options, loaded on first use (and the error, if any, kept).

        Raises:
            ConfigError: the file is missing or invalid.
        """
        if self._settings is None and self._settings_error is None:
            from ragas_boot.container import load_settings

            try:
                self._settings = load_settings(self.options.config_path, self.options.profiles)
            except Exception as error:
                self._settings_error = error
        if self._settings_error is not None:
            raise self._settings_error
        assert self._settings is not None
        return self._settings

    def secrets(self) -> list[str]:
        """Every secret of the loaded settings (none when no settings were loaded, or they
        failed to load), to mask in what the plugin writes."""
        if not self.settings_loaded:
            return []
        try:
            settings = self.settings()
        except Exception:  # the header and the fixtures have reported it already
            return []
        from ragas_boot.reporting.redaction import secret_values

        return secret_values(settings)

    def listeners(self) -> list[Any]:
        """The listeners every bean handed out gets: the recorder, and Allure's when active."""
        found: list[Any] = [self.recorder]
        if self.allure is not None:
            found.append(self.allure)
        return found

    def adopt(self, bean: Any) -> Any:
        """Register the plugin's listeners on ``bean`` (once), then return it."""
        registry = getattr(bean, "listeners", None)
        add = getattr(registry, "add", None)
        if add is not None:
            present = registry.listeners  # type: ignore[union-attr]
            for listener in self.listeners():
                if not any(item is listener for item in present):
                    add(listener)
        return bean


STATE_KEY = pytest.StashKey[RagasPluginState]()


def plugin_state(config: pytest.Config) -> RagasPluginState:
    """The state of this run (made on first use)."""
    state = config.stash.get(STATE_KEY, None)
    if state is None:
        state = config.stash[STATE_KEY] = RagasPluginState(config)
    return state
