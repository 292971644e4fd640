"""The subcommands: the built-in ones and those of plugins, registered the same way."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "ENTRY_POINT_GROUP",
    "Command",
    "register_command",
    "registered_commands",
    "unregister_command",
]

#: Entry-point group scanned for :func:`register_command` calls of other packages.
ENTRY_POINT_GROUP = "ragas_boot.commands"


@dataclass(frozen=True, slots=True)
class Command:
    """A subcommand: how to declare its arguments and how to run it.

    Attributes:
        name: the word after ``ragas-boot``.
        configure: adds the subcommand's arguments to its parser.
        run: runs it and returns the exit code.
        help: one line for ``ragas-boot --help``.
    """

    name: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    help: str = ""


_COMMANDS: dict[str, Command] = {}
_plugins_loaded = False


def register_command(
    name: str,
    configure: Callable[[argparse.ArgumentParser], None],
    run: Callable[[argparse.Namespace], int],
    *,
    help: str = "",
    replace: bool = False,
) -> Command:
    """Add a subcommand ``ragas-boot NAME`` (see :mod:`ragas_boot.cli`).

    Raises:
        ValueError: ``name`` is taken (pass ``replace=True`` to override it) or empty.
    """
    if not name or name.startswith("-") or " " in name:
        raise ValueError(f"invalid command name {name!r}")
    if name in _COMMANDS and not replace:
        raise ValueError(f"the command {name!r} is already registered")
    command = Command(name=name, configure=configure, run=run, help=help)
    _COMMANDS[name] = command
    return command


def unregister_command(name: str) -> None:
    """Remove a subcommand (no error when it is not registered)."""
    _COMMANDS.pop(name, None)


def registered_commands() -> list[Command]:
    """The subcommands, in registration order (entry points loaded first)."""
    _load_plugins()
    return list(_COMMANDS.values())


def _load_plugins() -> None:
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    from importlib.metadata import entry_points

    for entry in entry_points(group=ENTRY_POINT_GROUP):
        try:
            loaded = entry.load()
            if callable(loaded):
                loaded()
        except Exception as error:  # a broken plugin must not take the built-ins down
            print(
                f"ragas-boot: warning: command plugin {entry.name!r} ({entry.value}) failed "
                f"to load: {error}",
                file=sys.stderr,
            )
