"""A real PostgreSQL server for the shared-history tests, started from the machine's
PostgreSQL binaries (``initdb`` + ``postgres``), listening on a Unix socket only (no TCP port
to collide on under ``pytest -n 2``); skipped with the reason when that is impossible."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest

#: The server's password: tests assert it never shows in output.
PASSWORD = "pg-history-S3CRET-pw"
USER = "ragas"


@dataclass(frozen=True)
class PostgresServer:
    """A running server: its socket folder and a SQLAlchemy URL with the password."""

    socket_dir: Path

    @property
    def url(self) -> str:
        socket = self.socket_dir / ".s.PGSQL.5432"
        return f"postgresql+pg8000://{USER}:{PASSWORD}@localhost/postgres?unix_sock={socket}"


def _binaries() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres")) or (
        [shutil.which("postgres")] if shutil.which("postgres") else []
    )
    return Path(found[-1]).parent if found else None


#: The unprivileged account the server runs as when the tests run as root (PostgreSQL refuses
#: root): ``.ci/run`` creates ``ragas-pg`` and names it here; else Debian's ``postgres``.
SERVER_USER = os.environ.get("RAGAS_BOOT_PG_USER", "postgres")


def _as_user(unavailable: Callable[[str, str], None]) -> list[str]:
    """The command prefix that runs a program as a user PostgreSQL accepts (never root)."""
    if os.geteuid() != 0:
        return []
    runuser = shutil.which("runuser")
    if runuser is None:
        unavailable("postgres", "PostgreSQL refuses to run as root and runuser is not available")
    try:
        import pwd

        pwd.getpwnam(SERVER_USER)
    except KeyError:
        unavailable(
            "postgres", f"PostgreSQL refuses to run as root and there is no {SERVER_USER!r} user"
        )
    return [str(runuser), "-u", SERVER_USER, "--"]


def _ready(pid_file: Path) -> bool:
    try:
        lines = pid_file.read_text(encoding="utf-8").split("\n")
    except OSError:
        return False
    return any(line.strip() == "ready" for line in lines)


@pytest.fixture(scope="session")
def postgres_server(unavailable: Callable[[str, str], None]) -> Iterator[PostgresServer]:
    """A PostgreSQL server for the session (one per xdist worker), removed afterwards."""
    pytest.importorskip("pg8000", reason="the PostgreSQL test needs pg8000 (the dev extra)")
    binaries = _binaries()
    if binaries is None:
        unavailable("postgres", "no PostgreSQL server binaries (initdb, postgres) on this machine")
    prefix = _as_user(unavailable)
    # Not under tmp_path: pytest's base folder is private to root, and the server's user
    # must reach its data folder and socket. A private folder of its own, removed at the end.
    root = Path(tempfile.mkdtemp(prefix="rb-pg-"))
    data, sockets = root / "data", root / "run"
    sockets.mkdir()
    password_file = root / "password"
    password_file.write_text(PASSWORD + "\n", encoding="utf-8")
    if prefix:
        shutil.chown(root, SERVER_USER)
        shutil.chown(sockets, SERVER_USER)
        shutil.chown(password_file, SERVER_USER)
    process = None
    stack = ExitStack()
    try:
        initdb = subprocess.run(
            [*prefix, str(binaries / "initdb"), "-D", str(data), "-U", USER,
             "--auth=scram-sha-256", f"--pwfile={password_file}", "-E", "UTF8"],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        if initdb.returncode != 0:
            unavailable("postgres", f"initdb failed: {initdb.stderr.strip()[-300:]}")
        log = stack.enter_context((root / "server.log").open("w", encoding="utf-8"))
        process = subprocess.Popen(
            [*prefix, str(binaries / "postgres"), "-D", str(data), "-k", str(sockets),
             "-c", "listen_addresses=", "-c", "fsync=off"],
            stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        pid_file = data / "postmaster.pid"
        for _ in range(1200):  # its last line says "ready" once the server takes logins
            if process.poll() is not None or _ready(pid_file):
                break
            time.sleep(0.05)
        if not _ready(pid_file):
            error = (root / "server.log").read_text(encoding="utf-8", errors="replace")
            unavailable("postgres", f"the PostgreSQL server did not start: {error.strip()[-300:]}")
        yield PostgresServer(socket_dir=sockets)
    finally:
        if process is not None and process.poll() is None:
            process.terminate()  # smart shutdown of our own server process
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        stack.close()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def root_conftest(request):
    """The tests' root conftest module (its judges_yaml helper)."""
    plugin = request.config.pluginmanager.get_plugin(
        str(Path(__file__).resolve().parents[1] / "conftest.py")
    )
    assert plugin is not None
    return plugin


@pytest.fixture
def run_cli(capsys, monkeypatch):
    """``run(*args)`` runs the CLI in process: (exit code, stdout, stderr)."""
    from ragas_boot.cli import main

    monkeypatch.setenv("COLUMNS", "200")

    def run(*args):
        capsys.readouterr()
        code = main([str(arg) for arg in args])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run
