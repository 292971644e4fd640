"""The docs' runnable snippets run, offline (STYLE habit 11).

A fenced block is run when the line before it is an HTML comment:

- ``<!-- runnable -->`` before a ```` ```python ```` block: executed as a script, in a fresh
  namespace, from a temporary working directory;
- ``<!-- runnable: pytest -->`` before a ```` ```python ```` block: saved as a test module and
  run by pytest in a subprocess (the ragas-boot plugin loads from its entry point);
- ``<!-- loads -->`` before a ```` ```yaml ```` block: loaded with ``load_settings`` (a dummy
  value for every ``${VAR}`` without default), and every metric bean resolved.

Snippets reach judges through :class:`ragas_boot.testing.FakeOpenAIServer`, never the network.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from ragas_boot import create_container, load_settings

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
#: Docs whose python snippets are checked, and whether each must have at least one.
SNIPPET_DOCS = (
    "testing.md",
    "metrics.md",
    "tool-suites.md",
    "providers.md",
    "trust.md",
    "calibration.md",
    "data.md",
    "batch.md",
)
YAML_DOCS = ("configuration.md", "providers.md", "trust.md", "batch.md")

_MARKER = re.compile(r"^<!--\s*(runnable(?::\s*(?P<kind>[\w-]+))?|loads)\s*-->\s*$")
_FENCE = re.compile(r"^```(?P<lang>\w*)\s*$")
_REQUIRED_PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_.-]*)\}")


@dataclass(frozen=True, slots=True)
class Snippet:
    """One marked block of a doc."""

    doc: str
    line: int
    kind: str
    """``script``, ``pytest`` or ``yaml``."""
    code: str

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"


def read_snippets(doc: str) -> list[Snippet]:
    """The marked blocks of ``docs/<doc>``, checked to be well-formed.

    Raises:
        AssertionError: a marker is not followed by a fenced block of the right language, or
            names an unknown kind.
    """
    lines = (DOCS / doc).read_text(encoding="utf-8").splitlines()
    found: list[Snippet] = []
    for index, line in enumerate(lines):
        marker = _MARKER.match(line.strip())
        if marker is None:
            continue
        where = f"docs/{doc}:{index + 1}"
        if marker.group(1) == "loads":
            kind, language = "yaml", "yaml"
        else:
            kind, language = marker.group("kind") or "script", "python"
            assert kind in ("script", "pytest"), f"{where}: unknown snippet kind '{kind}'"
        fence = _FENCE.match(lines[index + 1]) if index + 1 < len(lines) else None
        assert fence is not None and fence.group("lang") == language, (
            f"{where}: the marker must be followed by a ```{language} block"
        )
        end = next((j for j in range(index + 2, len(lines)) if lines[j].strip() == "```"), None)
        assert end is not None, f"{where}: the block is not closed"
        code = "\n".join(lines[index + 2 : end]) + "\n"
        found.append(Snippet(doc, index + 3, kind, code))
    return found


def _all(kind: str, docs: tuple[str, ...]) -> list[Snippet]:
    return [snippet for doc in docs for snippet in read_snippets(doc) if snippet.kind == kind]


SCRIPTS = _all("script", SNIPPET_DOCS)
PYTEST_MODULES = _all("pytest", SNIPPET_DOCS)
YAML_FILES = _all("yaml", YAML_DOCS)


@pytest.mark.parametrize("doc", SNIPPET_DOCS + YAML_DOCS)
def test_doc_has_runnable_snippets(doc: str) -> None:
    assert read_snippets(doc), f"docs/{doc} has no runnable snippet"


@pytest.mark.parametrize("snippet", SCRIPTS, ids=[snippet.id for snippet in SCRIPTS])
def test_script_snippet_runs(
    snippet: Snippet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code = compile(snippet.code, f"docs/{snippet.id}", "exec")
    exec(code, {"__name__": "__doc_snippet__"})


@pytest.mark.skipif(not PYTEST_MODULES, reason="no pytest snippets in the docs")
def test_pytest_snippets_pass(tmp_path: Path) -> None:
    for number, snippet in enumerate(PYTEST_MODULES):
        name = f"test_snippet_{number}_{Path(snippet.doc).stem}_{snippet.line}.py"
        (tmp_path / name).write_text(snippet.code, encoding="utf-8")
    (tmp_path / "pytest.ini").write_text(
        textwrap.dedent(
            """\
            [pytest]
            addopts = --strict-markers -p no:cacheprovider
            asyncio_default_fixture_loop_scope = function
            filterwarnings = error
            """
        ),
        encoding="utf-8",
    )
    environ = {
        key: value
        for key, value in os.environ.items()
        if key not in ("RAGAS_LIVE", "RAGAS_CONFIG", "SPRING_PROFILES_ACTIVE")
        and not key.startswith(("SPRING_AI_", "PYTEST_"))
    }
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", str(tmp_path)],
        cwd=tmp_path,
        env=environ,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output
    assert " passed" in output, output


@pytest.mark.parametrize("snippet", YAML_FILES, ids=[snippet.id for snippet in YAML_FILES])
def test_yaml_snippet_loads(snippet: Snippet, tmp_path: Path) -> None:
    path = tmp_path / "application.yaml"
    path.write_text(snippet.code, encoding="utf-8")
    environ = {name: "doc-value" for name in _REQUIRED_PLACEHOLDER.findall(snippet.code)}
    settings = load_settings(path, environ=environ)
    with create_container(settings) as container:
        assert container.judges()
        for bean in ("tool_call_accuracy", "agent_goal_accuracy", "topic_adherence"):
            getattr(container, bean)()
