"""Fixtures of the configuration tests."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

WriteYaml = Callable[..., Path]


@pytest.fixture
def write_yaml(tmp_path: Path) -> WriteYaml:
    """Write dedented YAML text to ``tmp_path / name`` and return the path."""

    def write(text: str, name: str = "application.yaml") -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    return write


@pytest.fixture
def data_dir() -> Path:
    """``tests/data``."""
    return Path(__file__).resolve().parent.parent / "data"
