"""The consoles every command prints through: secrets of the loaded settings are masked.

A session lives while :func:`ragas_boot.cli.main` runs (or inside :func:`console_session`, for
code and tests that drive a command's steps without it); the settings a command loads add
their secrets to it, and every byte written to stdout or stderr goes through the mask.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import sys
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, TextIO, cast

if TYPE_CHECKING:
    from rich.console import Console

__all__ = [
    "add_secrets",
    "console_session",
    "message",
    "redact",
    "stderr",
    "stdout",
    "write",
]


class _RedactingWriter(io.TextIOBase):
    """A text stream that masks secrets on the way out."""

    def __init__(self, target: TextIO, secrets: set[str]) -> None:
        self._target = target
        self._secrets = secrets

    def write(self, text: str) -> int:
        from ragas_boot.reporting.redaction import redact

        self._target.write(redact(text, self._secrets) if self._secrets else text)
        return len(text)

    def flush(self) -> None:
        self._target.flush()

    def isatty(self) -> bool:
        return bool(getattr(self._target, "isatty", lambda: False)())

    def writable(self) -> bool:
        return True


@dataclass
class _Session:
    out: Console
    err: Console
    out_stream: _RedactingWriter
    secrets: set[str] = field(default_factory=set)


_SESSION: ContextVar[_Session] = ContextVar("ragas_boot_cli_session")


def _width(stream: TextIO) -> int | None:
    if getattr(stream, "isatty", lambda: False)():
        return None
    try:
        return max(80, int(os.environ.get("COLUMNS", "")))
    except ValueError:
        return 120


def _session() -> _Session:
    try:
        return _SESSION.get()
    except LookupError:
        raise RuntimeError("ragas-boot CLI output is only available while main() runs") from None


def _open_session() -> _Session:
    from rich.console import Console

    secrets: set[str] = set()
    out_stream = _RedactingWriter(sys.stdout, secrets)
    err_stream = _RedactingWriter(sys.stderr, secrets)
    out = Console(
        file=cast(IO[str], out_stream), width=_width(sys.stdout), highlight=False, emoji=False
    )
    err = Console(
        file=cast(IO[str], err_stream),
        width=_width(sys.stderr),
        highlight=False,
        emoji=False,
        soft_wrap=True,
    )
    return _Session(out=out, err=err, out_stream=out_stream, secrets=secrets)


@contextlib.contextmanager
def console_session(*, verbose: bool = False, debug: bool = False) -> Iterator[None]:
    """Consoles on the current ``sys.stdout`` / ``sys.stderr``, and the ``ragas_boot`` logs on
    stderr at the level ``-v`` / ``--debug`` ask for, until the block ends."""
    session = _open_session()
    token = _SESSION.set(session)
    try:
        with _logging(session.err, verbose=verbose, debug=debug):
            yield
    finally:
        _SESSION.reset(token)


def stdout() -> Console:
    """The console for results (stdout); secrets of loaded settings are masked."""
    return _session().out


def stderr() -> Console:
    """The console for progress, logs and errors (stderr); secrets are masked."""
    return _session().err


def add_secrets(values: Iterable[str]) -> None:
    """Mask ``values`` in everything printed from now on (nothing to do outside a session)."""
    with contextlib.suppress(RuntimeError):
        _session().secrets.update(values)


def write(text: str) -> None:
    """Raw text to stdout (JSON, YAML), masked, without rich's wrapping."""
    session = _session()
    session.out_stream.write(text)
    session.out_stream.flush()


def message(text: str, style: str = "") -> None:
    """One line to stderr, shown as written (no markup, control characters escaped)."""
    from ragas_boot.reporting._format import plain

    # Messages quote file names, sample ids and values from datasets and configs: shown as
    # written (no markup, control characters escaped), never interpreted by the terminal.
    stderr().print(plain(text, style=style))


def redact(text: str) -> str:
    """``text`` with the session's secrets masked (for report files)."""
    from ragas_boot.reporting.redaction import redact

    return redact(text, _session().secrets)


class _PrintableFormatter(logging.Formatter):
    """Log records may quote dataset or config text: control characters are shown escaped."""

    def format(self, record: logging.LogRecord) -> str:
        from ragas_boot._text import printable

        return printable(super().format(record))


class _QuietExecution(logging.Filter):
    """Each judge failure is in the results; its log line is noise unless asked for."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.ERROR or not record.name.startswith("ragas_boot.execution")


@contextlib.contextmanager
def _logging(err: Console, *, verbose: bool, debug: bool) -> Iterator[None]:
    from rich.logging import RichHandler

    logger = logging.getLogger("ragas_boot")
    level = logging.DEBUG if debug else logging.INFO if verbose else logging.WARNING
    handler = RichHandler(
        console=err, show_time=False, show_path=False, markup=False, rich_tracebacks=False
    )
    handler.setFormatter(_PrintableFormatter("%(message)s"))
    handler.setLevel(level)
    if not (verbose or debug):
        handler.addFilter(_QuietExecution())
    saved = (logger.level, logger.propagate)
    logger.addHandler(handler)
    logger.setLevel(level)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(saved[0])
        logger.propagate = saved[1]
