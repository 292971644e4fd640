"""The bounded loaders against generated documents: load within the bounds, or refuse.

Hypothesis writes YAML with anchors and aliases (billion-laughs shapes of every size) and
nested JSON/YAML values; the expected outcome is computed independently (expanded size,
alias count, nesting depth) and the loader must match it exactly: the value when it is within
the limits, a :class:`LoadLimitError` with a line inside the document when it is not.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragas_boot._loading import LoadLimitError, LoadLimits, load_json, load_yaml_documents

LIMITS = LoadLimits(max_bytes=200_000, max_depth=12, max_aliases=40, max_alias_values=500)


def laughs(levels: int, fan_out: int) -> tuple[str, int, int, int]:
    """A billion-laughs document; its alias count, the values they add, the expanded size."""
    lines = ['l0: &l0 "lol"']
    sizes = [1]
    aliases = added = 0
    for level in range(1, levels + 1):
        items = ", ".join([f"*l{level - 1}"] * fan_out)
        lines.append(f"l{level}: &l{level} [{items}]")
        aliases += fan_out
        added += fan_out * sizes[-1]
        sizes.append(1 + fan_out * sizes[-1])
    return "\n".join(lines) + "\n", aliases, added, sizes[-1]


def leaves(value: Any) -> int:
    if isinstance(value, list):
        return sum(leaves(item) for item in value)
    return 1


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(levels=st.integers(1, 9), fan_out=st.integers(1, 12))
def test_anchor_and_alias_documents_load_exactly_when_within_the_limits(levels, fan_out):
    text, aliases, added, _ = laughs(levels, fan_out)
    within = aliases <= LIMITS.max_aliases and added <= LIMITS.max_alias_values

    if within:
        [(_, data)] = load_yaml_documents(text, limits=LIMITS)
        assert leaves(data[f"l{levels}"]) == fan_out**levels
        assert data == yaml.safe_load(text)
    else:
        with pytest.raises(LoadLimitError) as caught:
            load_yaml_documents(text, limits=LIMITS)
        assert caught.value.line is not None
        assert 1 <= caught.value.line <= text.count("\n")
        # The line that crossed the bound is an alias line: refused while reading it.
        assert "*l" in text.splitlines()[caught.value.line - 1]


@settings(max_examples=60, deadline=None)
@given(name=st.from_regex(r"[a-z]{1,8}", fullmatch=True), nesting=st.integers(0, 3))
def test_a_recursive_alias_is_refused_not_followed(name, nesting):
    inner = f"*{name}"
    for _ in range(nesting):
        inner = f"[{inner}]"
    text = f"root: &{name} [1, {inner}]\n"

    with pytest.raises(LoadLimitError, match="recursive alias") as caught:
        load_yaml_documents(text, limits=LIMITS)
    assert caught.value.line == 1


JSON_SCALARS = st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab,:')
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(alphabet='ab[]{}"\\:é', max_size=3), inner)
    ),
    max_leaves=40,
)


def depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((depth(item) for item in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth(item) for item in value.values()), default=0)
    return 0


def wrap(value: Any, levels: int, shape: str) -> Any:
    for level in range(levels):
        value = [value] if shape[level % len(shape)] == "l" else {"k": value}
    return value


@settings(max_examples=200, deadline=None)
@given(
    value=JSON_VALUES,
    levels=st.integers(0, 20),
    shape=st.text(alphabet="ld", min_size=1, max_size=4),
    indent=st.sampled_from([None, 1]),
)
def test_nested_json_loads_exactly_when_within_the_depth(value, levels, shape, indent):
    document = wrap(value, levels, shape)
    text = json.dumps(document, indent=indent)

    if depth(document) <= LIMITS.max_depth:
        assert load_json(text, limits=LIMITS) == document
        # JSON is YAML: the YAML reader agrees.
        [(_, data)] = load_yaml_documents(text, limits=LIMITS)
        assert data == document
    else:
        for load in (
            lambda: load_json(text, limits=LIMITS),
            lambda: load_yaml_documents(text, limits=LIMITS),
        ):
            with pytest.raises(LoadLimitError, match="nested deeper than 12 levels") as caught:
                load()
            assert caught.value.line is not None
            assert 1 <= caught.value.line <= text.count("\n") + 1


@pytest.mark.parametrize("levels", [5_000, 100_000])
def test_thousands_of_levels_are_refused_not_a_recursion_error(levels):
    text = "[" * levels + "]" * levels

    with pytest.raises(LoadLimitError, match="nested deeper than 12"):
        load_json(text, limits=LIMITS)
    with pytest.raises(LoadLimitError, match="nested deeper than 12"):
        load_yaml_documents(text, limits=LIMITS)


def test_text_over_the_size_bound_is_refused_before_parsing():
    text = "a: " + "x" * LIMITS.max_bytes  # valid YAML, only too large

    with pytest.raises(LoadLimitError, match="more than the 200,000"):
        load_yaml_documents(text, limits=LIMITS)
    with pytest.raises(LoadLimitError, match="more than the 200,000"):
        load_json(json.dumps(text), limits=LIMITS)
