"""The sdist and the wheel as an index and a user get them (pyproject.toml).

Both are built from the checkout with ``python -m build`` (without isolation: the build
backend and its README plugin are in the dev extra), then read as an installer and an index
read them: the wheel's file list against the package's files, its metadata, ``twine check``.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from email.message import Message
from email.parser import Parser
from pathlib import Path

import pytest
import yaml

from ragas_boot import __version__

ROOT = Path(__file__).resolve().parents[2]
DIST_INFO = f"ragas_boot-{__version__}.dist-info"


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The wheel and the sdist of the checkout."""
    out = tmp_path_factory.mktemp("dist")
    completed = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, (completed.stdout + completed.stderr)[-4000:]
    (wheel,) = out.glob("*.whl")
    (sdist,) = out.glob("*.tar.gz")
    return wheel, sdist


@pytest.fixture(scope="module")
def metadata(dists: tuple[Path, Path]) -> Message:
    with zipfile.ZipFile(dists[0]) as wheel:
        return Parser().parsestr(wheel.read(f"{DIST_INFO}/METADATA").decode("utf-8"))


def _package_files() -> set[str]:
    """Every file under src/ragas_boot that git tracks or would (not ignored), as the wheel
    names it; what hatch packs is exactly this set."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "src/ragas_boot"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError) as error:
        pytest.skip(f"not a git checkout ({error}): the package's files cannot be listed")
    return {name.removeprefix("src/") for name in listed if (ROOT / name).is_file()}


def test_the_wheel_holds_every_file_of_the_package_and_nothing_else(dists):
    with zipfile.ZipFile(dists[0]) as wheel:
        packed = {name for name in wheel.namelist() if not name.startswith(DIST_INFO)}
    expected = _package_files()
    data = {name for name in expected if not name.endswith(".py")}
    # The data files a run reads (prompt templates), typing marker: the ones a wheel loses.
    assert "ragas_boot/py.typed" in data
    assert {"ragas_boot/metrics/prompts/en/compare_outcome.txt"} <= data
    assert sorted(expected - packed) == [], "package files left out of the wheel"
    assert sorted(packed - expected) == [], "files in the wheel that the package does not have"


def test_the_sdist_carries_the_sources_docs_and_license_but_not_ci_or_local_folders(dists):
    with tarfile.open(dists[1]) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    for required in (
        "pyproject.toml",
        "README.md",
        "CHANGELOG.md",
        "LICENSE",
        "mkdocs.yml",
        "docs/_site/hooks.py",
        "src/ragas_boot/py.typed",
        "src/ragas_boot/metrics/prompts/ru/compare_outcome.txt",
        "tests/conftest.py",
        "examples/quickstart/dataset.yaml",
        "benchmarks/README.md",
    ):
        assert required in names, required
    assert not any(name.startswith((".ci/", ".venv/", "site/", "dist/")) for name in names)


def test_the_metadata_has_what_an_index_page_shows(dists, metadata: Message):
    assert metadata["Name"] == "ragas-boot"
    assert metadata["Version"] == __version__  # src/ragas_boot/_version.py, its one place
    assert metadata["Summary"].startswith("Test AI agents with metrics")
    assert metadata["Requires-Python"] == ">=3.11"
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("License-File") == ["LICENSE"]
    with zipfile.ZipFile(dists[0]) as wheel:
        license_text = wheel.read(f"{DIST_INFO}/licenses/LICENSE").decode("utf-8")
        entry_points = wheel.read(f"{DIST_INFO}/entry_points.txt").decode("utf-8")
    assert license_text.startswith("MIT License\n")
    assert "ragas-boot = ragas_boot.cli:main" in entry_points
    assert "ragas_boot = ragas_boot.pytest_plugin" in entry_points
    keywords = metadata["Keywords"].split(",")
    assert {"llm", "evaluation", "pytest", "ragas"} <= set(keywords)
    classifiers = metadata.get_all("Classifier")
    for classifier in (
        "Typing :: Typed",
        "Framework :: Pytest",
        "Programming Language :: Python :: 3.11",
        "Development Status :: 4 - Beta",
    ):
        assert classifier in classifiers
    # No version classifier below the Requires-Python floor.
    versions = [c.rsplit(" ", 1)[1] for c in classifiers if re.fullmatch(r".*:: 3\.\d+", c)]
    assert versions and all(tuple(map(int, v.split("."))) >= (3, 11) for v in versions)


def test_the_description_is_the_readme_with_links_that_work_off_the_repository(metadata):
    assert metadata["Description-Content-Type"] == "text/markdown"
    description = metadata.get_payload()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert description.split("\n", 3)[:3] == readme.split("\n", 3)[:3]
    links = re.findall(r"\]\(([^)\s]+)\)", description)
    assert links and all(link.startswith(("https://", "#")) for link in links), links
    source = _project_urls(metadata)["Source"]
    assert f"]({source}/blob/main/docs/configuration.md)" in description
    assert f"]({source}/blob/main/examples/05_custom_metric)" in description


def _project_urls(metadata: Message) -> dict[str, str]:
    return dict(entry.split(", ", 1) for entry in metadata.get_all("Project-URL"))


def test_the_project_urls_agree_with_the_site(metadata):
    urls = _project_urls(metadata)
    assert set(urls) == {"Homepage", "Documentation", "Source", "Issues", "Changelog"}
    assert all(url.startswith("https://") for url in urls.values())
    assert urls["Issues"] == f"{urls['Source']}/issues"
    assert urls["Changelog"] == f"{urls['Source']}/blob/main/CHANGELOG.md"
    site = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert site["repo_url"] == urls["Source"]
    assert site["site_url"] == urls["Documentation"]
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    readme_hook = project["tool"]["hatch"]["metadata"]["hooks"]["fancy-pypi-readme"]
    (substitution,) = readme_hook["substitutions"]
    assert substitution["replacement"].startswith(f"]({urls['Source']}/blob/main/")


def test_twine_accepts_both_distributions(dists):
    completed = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, dists)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output
    assert output.count("PASSED") == 2, output


def test_the_newest_changelog_entry_is_this_version_and_lists_what_it_added():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    entries = re.split(r"^## ", text, flags=re.MULTILINE)[1:]
    assert entries, "CHANGELOG.md has no entry"
    heading, _, body = entries[0].partition("\n")
    assert heading.split()[0] == __version__, f"the newest entry is {heading!r}"
    assert len(re.findall(r"^- ", body, flags=re.MULTILINE)) >= 3
