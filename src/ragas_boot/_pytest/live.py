"""The ``ragas_live`` marker: tests that talk to a live provider run only when asked to."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pytest

__all__ = ["LIVE_ENV", "LIVE_MARKER", "live_skip_reason"]

#: The marker's name.
LIVE_MARKER = "ragas_live"
#: The variable that opts in to live tests (``1``, ``true``, ``yes`` or ``on``).
LIVE_ENV = "RAGAS_LIVE"
#: The marker's line for ``pytest --markers`` (and ``--strict-markers``).
LIVE_MARKER_HELP = (
    f"{LIVE_MARKER}(env=NAME | [NAMES]): talks to a live provider; runs only with "
    f"{LIVE_ENV}=1 and each named variable (the provider's API key) set, else skips"
)

_YES = frozenset({"1", "true", "yes", "on"})


def _names(values: Iterable[object]) -> list[str]:
    names: list[str] = []
    for value in values:
        if isinstance(value, str):
            names.append(value)
        elif isinstance(value, Iterable):
            names.extend(str(item) for item in value)
        else:
            raise TypeError(f"{LIVE_MARKER}: env names must be strings, got {value!r}")
    return names


def live_skip_reason(marker: pytest.Mark, environ: Mapping[str, str]) -> str | None:
    """Why a ``ragas_live`` test must skip in ``environ``, or ``None`` when it may run.

    Variables come as positional arguments or ``env=`` (a name or a list of names).

    Raises:
        TypeError: an unknown keyword (a typo such as ``envs=``) or a name that is no string.
    """
    unknown = set(marker.kwargs) - {"env"}
    if unknown:
        raise TypeError(
            f"{LIVE_MARKER}: unknown argument(s) {', '.join(sorted(unknown))}; "
            "use env='VAR' or env=['VAR', ...]"
        )
    env = marker.kwargs.get("env", ())
    names = _names([*marker.args, *([env] if isinstance(env, str) else env)])
    if environ.get(LIVE_ENV, "").strip().lower() not in _YES:
        needed = " and ".join([f"{LIVE_ENV}=1", *names])
        return f"live provider test: set {needed} to run it"
    missing = [name for name in names if not environ.get(name, "").strip()]
    if missing:
        verb = "is" if len(missing) == 1 else "are"
        return f"live provider test: {', '.join(missing)} {verb} not set"
    return None
