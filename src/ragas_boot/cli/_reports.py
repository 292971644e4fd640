"""Report files: ``--out`` paths checked before any work, and written atomically.

A report is written to a temporary file beside its target and renamed over it: a reader never
sees half a report, an interrupted write leaves the old one in place, and a symbolic link at
the target is replaced, never written through (unless ``--follow-symlinks`` resolved it).

A run killed while writing (``kill -9``, a power cut) leaves its temporary file
(``.NAME.XXXX.tmp``). A writer holds an exclusive ``flock`` on its temporary file until it is
renamed; the next write of the same report removes every such file whose lock it can take,
which is to say whose writer is gone (the kernel drops a dead process's locks), and never the
file of a write still under way in another process. Where ``flock`` does not exist
(Windows), leftovers stay.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from ragas_boot.cli._errors import UsageError

__all__ = [
    "REPORT_KINDS",
    "report_paths",
    "write_atomically",
    "write_file_atomically",
]

#: ``--out`` suffix → report kind.
REPORT_KINDS = {
    ".html": "html",
    ".htm": "html",
    ".json": "json",
    ".csv": "csv",
    ".parquet": "parquet",
    ".xml": "junit",
    ".md": "markdown",
}


def report_paths(
    values: Sequence[str],
    *,
    follow_symlinks: bool,
    kinds: Sequence[str] = ("html", "json"),
    flag: str = "--out",
) -> list[tuple[Path, str]]:
    """The ``--out`` paths with their kind (``html``, ``json``, ``csv``, ``parquet``,
    ``junit``, ``markdown``), each checked writable now: a bad one must not cost a whole run.

    Args:
        values: the ``--out`` values.
        follow_symlinks: ``--follow-symlinks``.
        kinds: the kinds the command writes (default: HTML and JSON; ``evaluate`` and
            ``compare`` write every kind of :data:`REPORT_KINDS`).
        flag: the option the paths came from, as errors name it.

    Raises:
        UsageError: a path with another suffix, a symbolic link (unless followed), a missing
            or unwritable directory, a non-file, or a path given twice.
    """
    accepted = {suffix: kind for suffix, kind in REPORT_KINDS.items() if kind in kinds}
    paths: list[tuple[Path, str]] = []
    for value in values:
        path = Path(value)
        kind = accepted.get(path.suffix.lower())
        if kind is None:
            *others, last = accepted
            raise UsageError(f"{flag} {value}: use a {', '.join(others)} or {last} file name")
        if path.is_symlink():
            if not follow_symlinks:
                raise UsageError(
                    f"{flag} {value} is a symbolic link (to {os.readlink(path)}); pass "
                    "--follow-symlinks to write to its target, or choose another name"
                )
            path = path.resolve()
        if not path.parent.is_dir():
            raise UsageError(f"{flag} {value}: the directory {path.parent} does not exist")
        if path.exists() and not path.is_file():
            raise UsageError(f"{flag} {value} exists and is not a file")
        if path.exists() and not os.access(path, os.W_OK):
            raise UsageError(f"{flag} {value} is not writable")
        try:  # the report is renamed into place: the directory must take a new file
            probe, probe_name = tempfile.mkstemp(
                dir=path.parent, prefix=".ragas-boot-", suffix=".tmp"
            )
            os.close(probe)
            os.unlink(probe_name)
        except OSError as error:
            raise UsageError(
                f"{flag} {value}: cannot write in {path.parent}: {error.strerror or error}"
            ) from None
        if any(path == earlier for earlier, _ in paths):
            raise UsageError(f"{flag} {value} is given twice")
        paths.append((path, kind))
    return paths


def write_atomically(path: Path, text: str | Iterable[str]) -> None:
    """Write ``text`` (or its pieces, one at a time) to a temporary file beside ``path``,
    then rename it over ``path``; first remove what killed writes of ``path`` left."""

    def write(temporary: Path) -> None:
        with temporary.open("w", encoding="utf-8") as file:
            for piece in (text,) if isinstance(text, str) else text:
                file.write(piece)

    write_file_atomically(path, write)


def write_file_atomically(path: Path, write: Callable[[Path], None]) -> None:
    """As :func:`write_atomically`, for a writer that opens a file by its name itself
    (pyarrow's Parquet writer): ``write`` is given the temporary file's path."""
    _remove_leftovers(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # The lock is held on mkstemp's descriptor until it is closed, while ``write`` fills
        # the file: the file of a live writer, which no other run's clean-up takes.
        locked = _try_lock(handle)
        try:
            write(Path(temporary))
            os.fsync(handle)  # (the file's data, whichever descriptor wrote it)
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)  # as a plain open() would (mkstemp makes 0600)
            if locked:  # renamed while still locked: no other run's clean-up can take it first
                os.replace(temporary, path)
        finally:
            os.close(handle)
        if not locked:  # (Windows renames no open file)
            os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _remove_leftovers(path: Path) -> None:
    """Remove the temporary files of writes of ``path`` whose writer is gone."""
    for candidate in _temporaries(path):
        with contextlib.suppress(OSError):  # gone meanwhile, or not ours to remove
            handle = os.open(candidate, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            try:
                if _try_lock(handle):  # else a write under way
                    os.unlink(candidate)
            finally:
                os.close(handle)


def _temporaries(path: Path) -> Iterator[Path]:
    """Files named as :func:`write_atomically` names its temporary files for ``path``."""
    prefix, suffix = f".{path.name}.", ".tmp"
    with contextlib.suppress(OSError):
        for entry in os.scandir(path.parent):
            name = entry.name
            # mkstemp's random part has no dot: .run.json.x1y2.tmp, never .run.json.old.x.tmp
            middle = name[len(prefix) : -len(suffix)]
            if (
                name.startswith(prefix)
                and name.endswith(suffix)
                and middle
                and "." not in middle
                and entry.is_file(follow_symlinks=False)
            ):
                yield Path(entry.path)


def _try_lock(handle: int) -> bool:
    """Take the exclusive lock if it is free (for a leftover: its writer is gone); False
    when it is held, or without flock."""
    try:
        import fcntl
    except ImportError:
        return False
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True
