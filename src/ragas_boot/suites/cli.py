"""Kept for installs whose entry-point metadata predates ``ragas-boot suite`` being built in.

``ragas-boot suite run`` is a command of :mod:`ragas_boot.cli` now; an environment installed
before that still lists ``suite = "ragas_boot.suites.cli:register"`` in the
``ragas_boot.commands`` entry-point group until it is reinstalled, so :func:`register` stays
and does nothing.
"""

from __future__ import annotations

__all__ = ["register"]


def register() -> None:
    """Nothing to do: the ``suite`` command is built into ``ragas-boot``."""
