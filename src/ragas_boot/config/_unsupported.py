"""Keys of the Java configs that ragas-boot recognises but does not implement (yet).

They must load, so that a Java user's ``application.yaml`` works unchanged: each one found in
the active configuration is reported as not supported; it is never an unknown-key error. A
typo elsewhere under ``spring.ai.ragas`` still is.

The report is a warning once per configuration file and machine (:func:`java_keys_to_report`,
a marker file in the ragas-boot home, as the note that runs are not recorded): a Java user's
``logging`` section should not print on every pytest run. ``RAGAS_BOOT_JAVA_KEY_WARNINGS``
says ``once`` (the default), ``always`` or ``off``.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from ragas_boot._home import ragas_boot_home
from ragas_boot.config._tree import KeyPath, Tree, find

#: Keys inside the consumed subtrees: the models keep their values, nothing uses them, and no
#: placeholder inside them is resolved. ``[]`` stands for any list index, ``{}`` for any map key.
UNSUPPORTED_FIELDS = (
    "spring.ai.gigachat.image",
    "spring.ai.ragas.providers.external-starters{}.embedding-models",
)

#: Sections outside them that Java apps carry for starters ragas-boot has no counterpart of.
UNSUPPORTED_SECTIONS = (
    "spring.ai.chat",
    "spring.ai.model",
    "spring.main",
    "spring.threads",
    "logging",
)

#: Environment variable: ``once`` (default), ``always`` or ``off``.
WARNINGS_ENV: Final = "RAGAS_BOOT_JAVA_KEY_WARNINGS"
_MARKERS: Final = "java-keys-reported"
_POLICIES: Final = ("once", "always", "off")

_ANY_INDEX = "*"
_ANY_KEY = "?"


def _pattern(text: str) -> tuple[str, ...]:
    return tuple(text.replace("[]", "." + _ANY_INDEX).replace("{}", "." + _ANY_KEY).split("."))


_FIELD_PATTERNS = tuple(_pattern(text) for text in UNSUPPORTED_FIELDS)


def is_unsupported(path: KeyPath) -> bool:
    """Whether ``path`` is, or lies under, one of :data:`UNSUPPORTED_FIELDS`."""
    return any(
        len(path) >= len(pattern)
        and all(
            isinstance(segment, int)
            if part == _ANY_INDEX
            else isinstance(segment, str)
            if part == _ANY_KEY
            else segment == part
            for part, segment in zip(pattern, path, strict=False)
        )
        for pattern in _FIELD_PATTERNS
    )


def find_unsupported(tree: Tree) -> list[KeyPath]:
    """The unsupported keys that hold something in ``tree``, in a stable order."""
    found: list[KeyPath] = []
    for text in UNSUPPORTED_SECTIONS:
        found.extend(path for path, value in _instances(tree, _pattern(text)) if _filled(value))
    for pattern in _FIELD_PATTERNS:
        found.extend(path for path, value in _instances(tree, pattern) if _filled(value))
    return found


def _instances(tree: Any, pattern: tuple[str, ...]) -> Iterator[tuple[KeyPath, Any]]:
    """Each concrete path of ``tree`` that ``pattern`` matches, with its value."""
    if not pattern:
        yield (), tree
        return
    head, rest = pattern[0], pattern[1:]
    if head == _ANY_INDEX:
        children: list[tuple[str | int, Any]] = (
            list(enumerate(tree)) if isinstance(tree, list) else []
        )
    elif head == _ANY_KEY:
        children = list(tree.items()) if isinstance(tree, dict) else []
    else:
        present, value = find(tree, (head,))
        children = [(head, value)] if present else []
    for segment, child in children:
        for path, value in _instances(child, rest):
            yield (segment, *path), value


def _filled(value: Any) -> bool:
    return value is not None and value != "" and value != {} and value != []


def java_keys_to_report(
    keys: Sequence[str], files: Sequence[str], env: Mapping[str, str]
) -> list[str]:
    """The unsupported ``keys`` of a configuration made of ``files`` to warn about now.

    All of them the first time this set of keys is found in these files on this machine (a
    marker file in ``$RAGAS_BOOT_HOME``, else ``./.ragas-boot``, records it; a home that cannot
    be written to means a warning each time), then none; all of them every time with
    ``RAGAS_BOOT_JAVA_KEY_WARNINGS=always``, none with ``off``.

    Raises:
        ValueError: ``RAGAS_BOOT_JAVA_KEY_WARNINGS`` holds something else (names the values).
    """
    policy = env.get(WARNINGS_ENV, "once").strip().lower() or "once"
    if policy not in _POLICIES:
        raise ValueError(f"{WARNINGS_ENV}={policy!r} is not one of {', '.join(_POLICIES)}")
    if not keys or policy == "off":
        return []
    if policy == "always":
        return list(keys)
    seen = "\n".join([*(str(Path(f).resolve()) for f in files), "", *sorted(keys)])
    name = hashlib.sha256(seen.encode("utf-8")).hexdigest()[:32]
    marker = ragas_boot_home() / _MARKERS / name
    if marker.exists():
        return []
    with contextlib.suppress(OSError):  # a read-only home: the warning shows each time
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(seen + "\n", encoding="utf-8")
    return list(keys)
