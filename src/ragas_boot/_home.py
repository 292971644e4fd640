"""ragas-boot's home folder: the run history, the response cache and the once-only notes.

One reading of ``$RAGAS_BOOT_HOME`` for every part that keeps files there, so that they all
agree on where (a ``~`` in it expands, blanks count as unset).

Nothing here makes the folder: each part makes what it needs on first use, and a home that
cannot be made (read-only, a file in its place) costs that part only, as a warning. A run's
reports never live here, so they never depend on it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

__all__ = ["HOME_ENV", "ragas_boot_home"]

#: Environment variable naming the home folder (default ``./.ragas-boot``).
HOME_ENV: Final = "RAGAS_BOOT_HOME"


def ragas_boot_home() -> Path:
    """``$RAGAS_BOOT_HOME``, else ``.ragas-boot`` in the working directory."""
    configured = os.environ.get(HOME_ENV, "").strip()
    return Path(configured).expanduser() if configured else Path.cwd() / ".ragas-boot"
