"""MkDocs hooks of the documentation site (``hooks:`` in mkdocs.yml).

The repository stays readable on a code host: the README, the examples' READMEs, the benchmarks
and the changelog live where they are, and docs/*.md link to them by their repository paths.
This hook brings those files into the site under stable site paths, rewrites every relative
link between repository files into a link between site pages (so a page is written once, for
both readers), and renders the generated parts (the metrics and fixture tables, the
configuration key reference) from the registry and the settings models at build time. A link
to a repository file the site does not carry is left as written, and MkDocs' link validation
(``strict``) fails the build on it.
"""

from __future__ import annotations

import importlib
import logging
import posixpath
import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parents[2]

#: Site page → repository file, for the pages that live outside docs/.
_OUTSIDE = {"index.md": "README.md", "changelog.md": "CHANGELOG.md"}
#: Site path of the configuration key reference, rendered from the settings models.
CONFIG_KEYS = "configuration-keys.md"

_LINK = re.compile(r"(\]\()([^)\s]+)(\))")
_FENCE = re.compile(r"^\s*(```|~~~)")
_AUTODOC = re.compile(r"^:::\s+(\S+)", re.MULTILINE)
#: A warning fails the strict build (MkDocs counts those of its own loggers).
log = logging.getLogger("mkdocs.hooks.ragas_boot_site")

#: Site page → repository file of every page (filled by ``on_files``).
_repo_of: dict[str, str] = {}
#: Repository file → site page: the inverse of ``_repo_of``.
_site_of: dict[str, str] = {}


def _outside_pages() -> dict[str, str]:
    """Site page → repository file, for every page that lives outside docs/."""
    pages = dict(_OUTSIDE)
    for readme in sorted(ROOT.glob("examples/*/README.md")):
        relative = readme.relative_to(ROOT).as_posix()
        pages[relative] = relative
    pages["benchmarks/README.md"] = "benchmarks/README.md"
    return pages


def on_files(files: Files, *, config: MkDocsConfig) -> Files:
    """Add the README, examples, benchmarks, changelog and the generated key reference."""
    from ragas_boot.metrics import METRICS
    from ragas_boot.reporting.config_reference import render_config_reference

    _repo_of.clear()
    for page in files.documentation_pages():
        _repo_of[page.src_uri] = f"docs/{page.src_uri}"
    for site, repo in _outside_pages().items():
        files.append(File.generated(config, site, abs_src_path=str(ROOT / repo)))
        _repo_of[site] = repo
    content = render_config_reference(METRICS.section_models())
    files.append(File.generated(config, CONFIG_KEYS, content=content))
    _repo_of[CONFIG_KEYS] = f"docs/{CONFIG_KEYS}"
    _site_of.clear()
    _site_of.update({repo: site for site, repo in _repo_of.items()})
    return files


def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Render the generated tables afresh and point repository links at site pages."""
    site = page.file.src_uri
    repo = _repo_of.get(site, f"docs/{site}")
    return rewrite_links(generated_tables(markdown), repo, site, _site_of)


def generated_tables(markdown: str) -> str:
    """Each table between its generated-table markers, rendered from the metric registry."""
    from ragas_boot.metrics import METRICS
    from ragas_boot.reporting import metrics_table as tables

    for start, end, render in (
        (tables.TABLE_START, tables.TABLE_END, tables.render_metrics_table),
        (tables.FIXTURES_START, tables.FIXTURES_END, tables.render_fixtures_table),
    ):
        if start not in markdown:
            continue
        head, rest = markdown.split(start, 1)
        if end not in rest:
            raise ValueError(f"a '{start}' marker without its '{end}'")
        tail = rest.split(end, 1)[1]
        markdown = f"{head}{start}\n{render(METRICS)}\n{end}{tail}"
    return markdown


def rewrite_links(markdown: str, repo_path: str, site_path: str, site_of: dict[str, str]) -> str:
    """Relative links between repository files rewritten as links between site pages.

    Args:
        markdown: the page, as written in the repository.
        repo_path: where the page is in the repository (``docs/trust.md``).
        site_path: where it is in the site (``trust.md``).
        site_of: repository file → site page, for every page of the site.
    """

    def target(match: re.Match[str]) -> str:
        link = match.group(2)
        if "://" in link or link.startswith(("#", "/", "mailto:")):
            return match.group(0)
        path, hash_, anchor = link.partition("#")
        repo = posixpath.normpath(posixpath.join(posixpath.dirname(repo_path), path))
        site = site_of.get(repo) or site_of.get(f"{repo}/README.md")
        if site is None:
            return match.group(0)
        relative = posixpath.relpath(site, posixpath.dirname(site_path) or ".")
        return f"{match.group(1)}{relative}{hash_}{anchor}{match.group(3)}"

    lines: list[str] = []
    fenced = False
    for line in markdown.splitlines(keepends=True):
        if _FENCE.match(line):
            fenced = not fenced
        lines.append(line if fenced else _LINK.sub(target, line))
    return "".join(lines)


def on_page_content(html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    """An API page must document every name its module exports.

    mkdocstrings renders what griffe finds public; a name in ``__all__`` that griffe cannot
    follow would otherwise just be missing from the page. Each is looked for by the anchor
    mkdocstrings gives it (``id="ragas_boot.runs.RunResult"``).
    """
    for identifier in _AUTODOC.findall(page.markdown or ""):
        exported = getattr(importlib.import_module(identifier), "__all__", None)
        if exported is None:
            log.warning("%s: %s has no __all__ to document", page.file.src_uri, identifier)
            continue
        for name in exported:
            if f'id="{identifier}.{name}"' not in html:
                log.warning(
                    "%s: %s.%s is in __all__ but not on the page",
                    page.file.src_uri,
                    identifier,
                    name,
                )
    return html
