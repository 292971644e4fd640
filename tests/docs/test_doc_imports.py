"""What the docs and examples teach to import is on a public face.

Every ``from ragas_boot... import ...`` (and ``import ragas_boot...``) in a ```` ```python ````
block of docs/*.md, README.md and examples/**/*.md, and in the examples' .py files, must:

- name something that exists there (on a public face: something in its ``__all__``);
- not import from a private module (a ``_x`` part in its path);
- not import from a deep module a name that a public face exports: a reader copies the
  import, and the deep module may move.
"""

from __future__ import annotations

import ast
import importlib
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: The public faces, one per concept (the package docstring of ``ragas_boot`` lists them).
FACES = (
    "ragas_boot",
    "ragas_boot.config",
    "ragas_boot.samples",
    "ragas_boot.chat",
    "ragas_boot.execution",
    "ragas_boot.metrics",
    "ragas_boot.container",
    "ragas_boot.datasets",
    "ragas_boot.runs",
    "ragas_boot.reporting",
    "ragas_boot.suites",
    "ragas_boot.testing",
    "ragas_boot.testing.fixtures",
    "ragas_boot.cli",
    "ragas_boot.errors",
)

_FENCE = re.compile(r"^(?P<indent>\s*)```(?P<lang>[\w-]*)\s*$")
#: An import line and, when it opens a parenthesis, its continuation up to the closing one.
_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+ragas_boot[\w.]*[ \t]+import[ \t]+(?:\([^)]*\)|[^\n]*)"
    r"|import[ \t]+ragas_boot[^\n]*)",
    re.MULTILINE,
)


@dataclass(frozen=True, slots=True)
class Import:
    """One imported name (``name`` None for ``import ragas_boot.x``) and where it is taught."""

    where: str
    module: str
    name: str | None


def python_blocks(text: str) -> list[tuple[int, str]]:
    """The ```` ```python ```` blocks of a Markdown text: (line of the fence, code)."""
    blocks: list[tuple[int, str]] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        fence = _FENCE.match(lines[index])
        if fence is None or fence.group("lang") not in ("python", "py"):
            index += 1
            continue
        indent, start, body = fence.group("indent"), index + 1, []
        index += 1
        while index < len(lines) and lines[index].strip() != "```":
            body.append(lines[index].removeprefix(indent))
            index += 1
        blocks.append((start, "\n".join(body)))
        index += 1
    return blocks


def imports_of(code: str, where: str) -> list[Import]:
    """The ``ragas_boot`` imports of ``code``; a block that is not whole Python (an excerpt
    with ``...`` or a console transcript) is read import statement by import statement."""
    try:
        statements = list(ast.walk(ast.parse(code)))
    except SyntaxError:
        statements = []
        for match in _IMPORT.finditer(code):
            statements.extend(ast.walk(ast.parse(match.group(0).strip())))
    found: list[Import] = []
    for node in statements:
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None:
            if node.module.split(".")[0] == "ragas_boot":
                found.extend(Import(where, node.module, alias.name) for alias in node.names)
        elif isinstance(node, ast.Import):
            found.extend(
                Import(where, alias.name, None)
                for alias in node.names
                if alias.name.split(".")[0] == "ragas_boot"
            )
    return found


def taught_imports() -> list[Import]:
    """Every ``ragas_boot`` import the docs, the README and the examples show."""
    found: list[Import] = []
    markdown = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
    markdown += sorted((ROOT / "examples").rglob("*.md"))
    for path in markdown:
        for line, code in python_blocks(path.read_text(encoding="utf-8")):
            found += imports_of(code, f"{path.relative_to(ROOT)}:{line}")
    for path in sorted((ROOT / "examples").rglob("*.py")):
        found += imports_of(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    return found


def face_exports() -> dict[tuple[str, int], str]:
    """(name, id of the object) -> the first face that exports it."""
    exported: dict[tuple[str, int], str] = {}
    for face in FACES:
        module = importlib.import_module(face)
        for name in module.__all__:
            exported.setdefault((name, id(getattr(module, name))), face)
    return exported


def problem(taught: Import, exported: dict[tuple[str, int], str]) -> str | None:
    """What is wrong with one taught import, or None."""
    private = [part for part in taught.module.split(".") if part.startswith("_")]
    if private:
        return f"imports from the private module {taught.module}"
    try:
        module: ModuleType = importlib.import_module(taught.module)
    except ImportError as error:
        return f"{taught.module} does not import: {error}"
    if taught.name is None:
        return None
    if taught.name == "*":
        return f"imports * from {taught.module}: name what it uses"
    if taught.module in FACES:
        if taught.name not in module.__all__:
            return f"{taught.name} is not on the face {taught.module} (its __all__)"
        return None
    if not hasattr(module, taught.name):
        return f"{taught.module} has no {taught.name}"
    face = exported.get((taught.name, id(getattr(module, taught.name))))
    if face is not None:
        return f"imports {taught.name} from the deep module {taught.module}: use {face}"
    return None


def test_the_scan_finds_the_imports_it_must_check():
    taught = taught_imports()
    places = {item.where.split(":")[0] for item in taught}
    # the README, a doc, an example's Markdown and an example's module are all read
    assert "README.md" in places
    assert "docs/history.md" in places
    assert "examples/10_production_sampling/README.md" in places
    assert "examples/05_custom_metric/src/acme_metrics/politeness.py" in places
    # an indented block (a list item's) is read too
    assert any(item.where.startswith("docs/trust.md") for item in taught)
    # a parenthesised import of several lines gives each of its names
    names = {(item.module, item.name) for item in taught}
    assert ("ragas_boot.runs", "open_history") in names


def test_an_excerpt_that_is_not_whole_python_is_still_read():
    code = (
        ">>> from ragas_boot.runs import (\n"
        "...     diff_runs,\n"
        "... )\n"
        "from ragas_boot.runs.history import (\n    open_history,\n    snapshot_run,\n)\n"
        "print(\n"
    )
    found = imports_of(code, "x.md:1")
    assert [(item.module, item.name) for item in found] == [
        ("ragas_boot.runs.history", "open_history"),
        ("ragas_boot.runs.history", "snapshot_run"),
    ]


@pytest.mark.parametrize(
    ("module", "name", "expected"),
    [
        ("ragas_boot.runs.history", "open_history", "from the deep module"),
        ("ragas_boot.runs._journal_store", "JournalStore", "private module"),
        ("ragas_boot.runs", "render_gantt", "not on the face"),
        ("ragas_boot.execution", "call_with_retries", "not on the face"),
        ("ragas_boot.metrics.nothing_here", "X", "does not import"),
        ("ragas_boot.runs.history", "no_such_name", "has no no_such_name"),
        ("ragas_boot.metrics", "*", "imports *"),
    ],
)
def test_a_bad_import_is_named(module, name, expected):
    found = problem(Import("x.md:1", module, name), face_exports())
    assert found is not None and expected in found


def test_a_good_import_passes():
    exported = face_exports()
    assert problem(Import("x.md:1", "ragas_boot.runs", "open_history"), exported) is None
    # a deep module's own name no face exports is fine (e.g. the calibration's parts)
    calibration = Import("x.md:1", "ragas_boot.runs.calibration", "JudgeCalibration")
    assert problem(calibration, exported) is None


def test_every_taught_import_is_on_a_public_face():
    exported = face_exports()
    problems = sorted(
        f"{item.where}: {found}"
        for item in taught_imports()
        if (found := problem(item, exported)) is not None
    )
    assert not problems, "\n".join(problems)
