"""The site's build hook (docs/_site/hooks.py): repository links and generated tables."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from ragas_boot.metrics import METRICS
from ragas_boot.reporting.metrics_table import (
    FIXTURES_END,
    FIXTURES_START,
    TABLE_END,
    TABLE_START,
    render_fixtures_table,
    render_metrics_table,
)

ROOT = Path(__file__).resolve().parents[2]
SITE_OF = {
    "README.md": "index.md",
    "docs/configuration.md": "configuration.md",
    "docs/data.md": "data.md",
    "examples/04_tool_suite/README.md": "examples/04_tool_suite/README.md",
    "benchmarks/README.md": "benchmarks/README.md",
}


@pytest.fixture(scope="module")
def hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("site_hooks", ROOT / "docs/_site/hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("repo", "site", "written", "expected"),
    [
        ("README.md", "index.md", "docs/configuration.md#profiles", "configuration.md#profiles"),
        ("README.md", "index.md", "examples/04_tool_suite", "examples/04_tool_suite/README.md"),
        ("docs/data.md", "data.md", "../benchmarks/README.md", "benchmarks/README.md"),
        ("docs/data.md", "data.md", "configuration.md", "configuration.md"),
        (
            "examples/04_tool_suite/README.md",
            "examples/04_tool_suite/README.md",
            "../../docs/data.md#from-the-command-line",
            "../../data.md#from-the-command-line",
        ),
        # Not pages of the site: left as written, for the strict build to report.
        ("docs/data.md", "data.md", "../src/ragas_boot/cli", "../src/ragas_boot/cli"),
        ("docs/data.md", "data.md", "nope.md", "nope.md"),
        ("docs/data.md", "data.md", "#an-anchor", "#an-anchor"),
        ("docs/data.md", "data.md", "https://example.org/a.md", "https://example.org/a.md"),
    ],
)
def test_repository_links_become_links_between_site_pages(hooks, repo, site, written, expected):
    markdown = f"See [the page]({written}) and ![a picture]({written}).\n"
    assert hooks.rewrite_links(markdown, repo, site, SITE_OF) == (
        f"See [the page]({expected}) and ![a picture]({expected}).\n"
    )


def test_links_inside_code_blocks_are_left_alone(hooks):
    markdown = (
        "Before [a](docs/data.md).\n"
        "```python\n"
        "table[0](docs/data.md)  # [x](docs/data.md)\n"
        "```\n"
        "~~~\n[y](docs/data.md)\n~~~\n"
        "After [b](docs/data.md).\n"
    )
    expected = markdown.replace("Before [a](docs/data.md)", "Before [a](data.md)").replace(
        "After [b](docs/data.md)", "After [b](data.md)"
    )
    assert hooks.rewrite_links(markdown, "README.md", "index.md", SITE_OF) == expected


def test_a_stale_generated_table_is_rendered_afresh(hooks):
    markdown = (
        f"# Metrics\n\n{TABLE_START}\n| old | table |\n{TABLE_END}\n\nText.\n\n"
        f"{FIXTURES_START}\n| stale |\n{FIXTURES_END}\n"
    )
    rendered = hooks.generated_tables(markdown)
    assert "| old | table |" not in rendered and "| stale |" not in rendered
    assert f"{TABLE_START}\n{render_metrics_table(METRICS)}\n{TABLE_END}\n\nText." in rendered
    assert f"{FIXTURES_START}\n{render_fixtures_table(METRICS)}\n{FIXTURES_END}\n" in rendered
    assert hooks.generated_tables("# No table\n") == "# No table\n"


def test_a_start_marker_without_its_end_is_an_error(hooks):
    with pytest.raises(ValueError, match=r"metrics-table:start.*without its.*metrics-table:end"):
        hooks.generated_tables(f"{TABLE_START}\n| a |\n")
