"""``ragas-boot cache stats | clear [--expired]``: the judges' response cache.

A cache whose files are unusable (corrupt, unreadable) is never silent: ``stats`` prints why
and exits 1; ``clear`` (with or without ``--expired``) removes the cache's own files, which
cannot be read entry by entry, and says which; the next run starts a fresh cache. Entries
that are not ragas-boot's JSON are counted by ``stats`` as corrupt, never loaded.
"""

from __future__ import annotations

import argparse
from typing import Any

from ragas_boot.cli._arguments import (
    add_cache_dir,
    add_config_arguments,
    settings_if_configured,
)
from ragas_boot.cli._console import message, write
from ragas_boot.cli._errors import EXIT_GATE_FAILED, EXIT_OK
from ragas_boot.cli._registry import register_command

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    """The ``stats`` and ``clear`` actions."""
    actions = parser.add_subparsers(dest="cache_command", metavar="ACTION", required=True)
    stats = actions.add_parser("stats", help="entries, size and models of the response cache")
    clear = actions.add_parser("clear", help="remove the response cache's entries")
    clear.add_argument("--expired", action="store_true", help="only entries past their ttl")
    for action in (stats, clear):
        add_config_arguments(action)
        add_cache_dir(action)


def _cache_settings(args: argparse.Namespace) -> Any:
    from ragas_boot.config.settings import CacheSettings

    if args.cache_dir:
        return CacheSettings(dir=args.cache_dir)
    settings = settings_if_configured(args)
    return settings.cache if settings is not None else CacheSettings()  # the default folder


def run(args: argparse.Namespace) -> int:
    """Print the cache's figures, or remove its (expired) entries; exit 1 when ``stats``
    finds the cache's files unusable."""
    from ragas_boot.execution.cache import ResponseCache, resolve_cache_dir

    settings = _cache_settings(args)
    directory = resolve_cache_dir(settings.dir)
    if not directory.is_dir():
        write(f"No response cache at {directory}\n")
        return EXIT_OK
    cache = ResponseCache(directory=directory, ttl=settings.ttl)
    try:
        problem = cache.check()
        if problem is not None:
            return _unusable(cache, problem, clear=args.cache_command == "clear")
        if args.cache_command == "clear":
            removed = cache.clear(expired_only=args.expired)
            kind = "expired entries" if args.expired else "entries"
            write(f"Removed {removed} {kind} from {directory}\n")
            return EXIT_OK
        stats = cache.stats()
    finally:
        cache.close()
    lines = [
        f"Response cache: {stats.directory}",
        f"Entries: {stats.entries} · size {stats.size_bytes / 1024:,.1f} KiB · "
        f"{stats.tokens:,} tokens when first asked (saved by each hit on them)",
        *(f"  {model}: {count}" for model, count in stats.models.items()),
    ]
    if stats.corrupt:
        lines.append(
            f"Corrupt entries: {stats.corrupt} (not ragas-boot's JSON: never loaded, a miss in "
            "every run; written by an older ragas-boot, or altered; `ragas-boot cache clear` "
            "removes them)"
        )
    if not settings.enabled:
        lines.append("(spring.ai.ragas.cache.enabled is false: runs neither read nor write it)")
    write("\n".join(lines) + "\n")
    return EXIT_OK


def _unusable(cache: Any, problem: str, *, clear: bool) -> int:
    """A cache whose files cannot be read: ``clear`` removes them, ``stats`` says so (exit 1)."""
    if not clear:
        message(f"ragas-boot: error: {problem}", "bold red")
        return EXIT_GATE_FAILED
    removed = cache.discard()  # unreadable entry by entry: the files themselves go
    names = ", ".join(path.name for path in removed) or "none"
    write(
        f"The response cache at {cache.directory} was unusable; removed its files: {names} "
        "(the next run starts an empty cache)\n"
    )
    return EXIT_OK


register_command("cache", configure, run, help="show or clear the judges' response cache")
