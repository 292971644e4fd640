"""The documentation site (mkdocs.yml) builds strict and carries what a reader looks for.

The site is built once per module with ``mkdocs build --strict`` (a broken link or anchor, a
page left out of the navigation, an exported name missing from the API reference all fail
it), then read as files and, over HTTP on the loopback, in headless Chromium.
"""

from __future__ import annotations

import html
import importlib
import inspect
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from ragas_boot.metrics import METRICS
from ragas_boot.reporting.config_reference import config_reference_tables
from support.chromium import CHROMIUM, screenshot

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted(path.stem for path in (ROOT / "docs").glob("*.md"))
EXAMPLES = sorted(path.parent.name for path in (ROOT / "examples").glob("*/README.md"))
#: API page → the public face it documents.
FACES = {
    "ragas_boot": "ragas_boot",
    "config": "ragas_boot.config",
    "samples": "ragas_boot.samples",
    "chat": "ragas_boot.chat",
    "execution": "ragas_boot.execution",
    "metrics": "ragas_boot.metrics",
    "container": "ragas_boot.container",
    "datasets": "ragas_boot.datasets",
    "runs": "ragas_boot.runs",
    "reporting": "ragas_boot.reporting",
    "suites": "ragas_boot.suites",
    "testing": "ragas_boot.testing",
    "errors": "ragas_boot.errors",
}
_TAG = re.compile(r"<[^>]+>")
_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")
_MARKUP = re.compile(r"`|\[([^\]]*)\]\([^)]*\)")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    completed = subprocess.run(
        [
            sys.executable, "-m", "mkdocs", "build", "--strict",
            "--config-file", str(ROOT / "mkdocs.yml"), "--site-dir", str(out),
        ],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )  # fmt: skip
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output[-4000:]
    assert "WARNING" not in output, output[-4000:]
    return out


def _text(page: Path) -> str:
    """A built page's text: tags dropped, entities decoded, blanks collapsed."""
    return " ".join(html.unescape(_TAG.sub("", page.read_text(encoding="utf-8"))).split())


def _plain(docstring: str) -> str:
    """A docstring line as the page shows it: roles, code marks and link targets dropped."""
    return " ".join(_MARKUP.sub(r"\1", _ROLE.sub(r"\1", docstring)).split())


def test_every_docs_page_example_and_the_readme_is_a_page_in_the_navigation(site: Path):
    home = (site / "index.html").read_text(encoding="utf-8")
    pages = [*DOCS, *(f"examples/{name}" for name in EXAMPLES)]
    pages += ["benchmarks", "changelog", "configuration-keys", *(f"api/{page}" for page in FACES)]
    for page in pages:
        assert (site / page / "index.html").is_file(), page
        assert f'href="{page}/"' in home, f"{page} is not in the navigation"
    # The home page is the README, its first code block included.
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first_command = readme.split("```bash\n", 1)[1].split("\n", 1)[0]
    assert " ".join(first_command.split()) in _text(site / "index.html")
    assert "Test AI agents with metrics, configured the Spring Boot way." in _text(
        site / "index.html"
    )


def test_repository_links_lead_to_site_pages(site: Path):
    home = (site / "index.html").read_text(encoding="utf-8")
    assert 'href="configuration/#response-cache"' in home  # docs/configuration.md#...
    assert 'href="examples/05_custom_metric/"' in home  # a folder: its README
    assert 'href="benchmarks/"' in home
    trust = (site / "trust" / "index.html").read_text(encoding="utf-8")
    assert 'href="../benchmarks/' in trust  # ../benchmarks/README.md from docs/
    example = (site / "examples" / "04_tool_suite" / "index.html").read_text(encoding="utf-8")
    assert 'href="../../tool-suites/"' in example  # ../../docs/tool-suites.md
    for page in site.rglob("*.html"):
        hrefs = re.findall(r'href="([^"]+)"', page.read_text(encoding="utf-8"))
        left = [href for href in hrefs if "://" not in href and re.search(r"\.md(#|$)", href)]
        assert not left, f"{page.relative_to(site)}: links to Markdown files {left}"


def test_the_site_has_a_search_box_and_an_index_of_every_page(site: Path):
    home = (site / "index.html").read_text(encoding="utf-8")
    assert 'data-md-component="search-query"' in home
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    locations = {entry["location"].split("#")[0] for entry in index["docs"]}
    for page in [*DOCS, *(f"examples/{name}" for name in EXAMPLES), "api/runs"]:
        assert f"{page}/" in locations, page
    assert any(entry["title"] == "evaluate_dataset" for entry in index["docs"])


@pytest.mark.parametrize("page", list(FACES))
def test_each_public_face_has_an_api_page_from_its_docstrings(site: Path, page: str):
    face = importlib.import_module(FACES[page])
    built = (site / "api" / page / "index.html").read_text(encoding="utf-8")
    text = _text(site / "api" / page / "index.html")
    documented = 0
    for name in face.__all__:
        assert f'id="{face.__name__}.{name}"' in built, f"{face.__name__}.{name} has no entry"
        value = getattr(face, name)
        if not (inspect.isclass(value) or inspect.isfunction(value)) or not value.__doc__:
            continue
        summary = _plain(inspect.cleandoc(value.__doc__).split("\n\n")[0])
        assert summary in text, f"{face.__name__}.{name}: its docstring is not on the page"
        documented += 1
    assert documented >= 3
    # Pydantic's plumbing is not an attribute a user reads.
    assert '.model_config"' not in built


def test_the_generated_tables_are_the_registry_and_the_settings_models(site: Path):
    metrics = _text(site / "metrics" / "index.html")
    for bean, metric in METRICS.items():
        assert f"{metric.name} {bean}" in metrics, bean  # a row: class, then bean
    keys = _text(site / "configuration-keys" / "index.html")
    for prefix, _, _, rows in config_reference_tables(METRICS.section_models()):
        assert prefix in keys
        for key, _, _, _ in rows:
            assert key in keys, f"{prefix}.{key}"


@pytest.fixture
def served(site: Path) -> Iterator[str]:
    """The built site over HTTP on the loopback, as a host serves it (search needs it)."""
    handler = partial(_QuietHandler, directory=str(site))
    with ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}"
        finally:
            server.shutdown()
            thread.join()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.mark.parametrize("path", ["/", "/api/runs/"])
def test_chromium_renders_the_home_page_and_an_api_page(
    served: str, path: str, tmp_path: Path, unavailable
):
    if CHROMIUM is None:
        unavailable("chromium", "chromium is not installed (apt-get install chromium)")
    data = screenshot(served + path, tmp_path / "page.png", width=1280, height=2000)
    assert len(data) > 100_000  # a rendered page with navigation and text, not a blank one
