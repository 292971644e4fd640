"""ragas-boot's home folder: the run history, the response cache and the once-only notes.

One reading of ``$RAGAS_BOOT_HOME`` for every part that keeps files there, so that they all
agree on where (a ``~`` in it expands, blanks count as unset).
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
