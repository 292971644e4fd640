"""The configuration key reference of the docs site is the settings models', key for key."""

from __future__ import annotations

from datetime import timedelta

import pytest
from pydantic import BaseModel, Field, SecretStr

from ragas_boot.config import _schema
from ragas_boot.metrics import METRICS, MetricConfig
from ragas_boot.reporting.config_reference import config_reference_tables, render_config_reference

SHARED = "spring.ai.ragas.metrics.<metric>"


def _reference_keys(tables) -> set[str]:
    """Full YAML paths of the reference's value rows (sections are tables of their own)."""
    shared = {row[0] for prefix, _, _, rows in tables if prefix == SHARED for row in rows}
    keys = set()
    for prefix, _, _, rows in tables:
        for key, kind, _, _ in rows:
            if prefix != SHARED and kind not in ("section", "list of sections", "map of sections"):
                keys.add(f"{prefix}.{key}")
    metric_prefixes = {f"spring.ai.ragas.metrics.{bean.replace('_', '-')}" for bean in METRICS}
    return keys | {f"{prefix}.{key}" for prefix in metric_prefixes for key in shared}


def _loader_keys(node: _schema.Node, path: str) -> set[str]:
    """Full YAML paths of the keys the loader's key tree accepts (its leaves)."""
    if node.kind == "object":
        return {
            key
            for name, child in node.fields.items()
            for key in _loader_keys(child, f"{path}.{name}" if path else name)
        }
    item = node.item
    if node.kind in ("list", "map") and item is not None and item.kind == "object":
        return _loader_keys(item, path + ("[]" if node.kind == "list" else ".<name>"))
    return {path}


def test_every_key_the_loader_accepts_has_a_row_and_no_other():
    reference = _reference_keys(config_reference_tables(METRICS.section_models()))
    accepted = _loader_keys(_schema.root(METRICS.section_models()), "")
    assert accepted - reference == set(), "keys the loader accepts that the reference lacks"
    assert reference - accepted == set(), "rows for keys the loader does not accept"


def test_rows_give_type_bounds_default_and_description():
    text = render_config_reference(METRICS.section_models())
    lines = text.splitlines()
    attempts = "Attempts per call, the first included (Spring AI: 10)."
    assert f"| `max-attempts` | int ≥ 1 | `4` | {attempts} |" in lines
    first_wait = "| `backoff.initial-interval` | duration | `1s` | Wait before the first retry. |"
    assert first_wait in lines
    assert "| `api-key` | secret | required | API key; never printed. |" in lines
    assert "## `spring.ai.ragas.providers`" in lines
    assert "### `spring.ai.ragas.providers.openai-compatible[].chat-models[]`" in lines
    assert "### `spring.ai.ragas.providers.external-starters.<name>`" in lines
    # An enum lists its values; a shared metric key is written once, not per metric.
    strategy = next(line for line in lines if line.startswith("| `rate-limit.default-strategy` |"))
    assert "one of `WAIT`, `REJECT`" in strategy and "| `WAIT` |" in strategy
    section = text.split("### `spring.ai.ragas.metrics.tool-call-accuracy`", 1)[1].split("###")[0]
    assert "| `mode` |" in section and "| `threshold` |" not in section
    shared = text.split(f"### `{SHARED}`", 1)[1].split("###")[0]
    assert "| `threshold` | float ≥ 0.0, ≤ 1.0 | `0.5` |" in shared


class _Nested(BaseModel):
    """A nested section."""

    token: SecretStr = Field(description="A token | never shown.")
    wait: timedelta = Field(default=timedelta(milliseconds=250), description="Wait.")


class _PluginConfig(MetricConfig):
    """Config of a plugin's metric, with its :class:`~some.module.Thing`."""

    depth: int = Field(default=3, ge=1, le=9, description="How deep, in levels.")
    labels: dict[str, str] = Field(default_factory=dict, description="Названия по ключу.")
    nested: _Nested | None = Field(default=None, description="Optional nested settings.")
    choices: list[_Nested] = Field(default_factory=list, description="Several of them.")


def test_a_metric_of_a_plugin_gets_its_own_table_with_nested_sections():
    text = render_config_reference({"plugin_depth": _PluginConfig})
    section = text.split("### `spring.ai.ragas.metrics.plugin-depth`\n", 1)[1]
    lines = section.splitlines()
    assert lines[1] == "Config of a plugin's metric, with its `Thing`."
    assert "| `depth` | int ≥ 1, ≤ 9 | `3` | How deep, in levels. |" in lines
    assert "| `labels` | map of str | `{}` | Названия по ключу. |" in lines
    assert "| `nested` | section | unset | Optional nested settings. |" in lines
    # A pipe in a description is escaped, not a column break.
    assert "| `nested.token` | secret | required | A token \\| never shown. |" in lines
    assert "| `nested.wait` | duration | `250ms` | Wait. |" in lines
    assert "| `choices` | list of sections | `[]` | Several of them. |" in lines
    assert "### `spring.ai.ragas.metrics.plugin-depth.choices[]`" in lines
    assert "| `models` |" not in section.split("### ")[0]  # shared, listed once above


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (timedelta(0), "`0`"),
        (timedelta(seconds=90), "`90s`"),
        (timedelta(minutes=2), "`2m`"),
        (timedelta(hours=1), "`1h`"),
        (timedelta(milliseconds=1500), "`1500ms`"),
    ],
)
def test_durations_are_written_as_yaml_accepts_them(value: timedelta, shown: str):
    class Section(MetricConfig):
        pause: timedelta = Field(default=value, description="Pause.")

    text = render_config_reference({"pausing": Section})
    assert f"| `pause` | duration | {shown} | Pause. |" in text.splitlines()
