"""Hostile configuration files are refused quickly with the file and line: alias bombs, deep
nesting, oversized files; ordinary anchors and merge keys still load."""

from __future__ import annotations

import pytest

from ragas_boot._loading import CONFIG_LIMITS
from ragas_boot.config import load_settings
from ragas_boot.errors import ConfigError

BOMB = """\
spring.ai.ragas.metrics.enabled: true
ignored-by-us:
  a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
  b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
  c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
  d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
  e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
  f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
  g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
  h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]
  i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]
"""


def test_a_billion_laughs_under_an_ignored_key_is_refused_with_file_and_line(write_yaml):
    path = write_yaml(BOMB)

    with pytest.raises(ConfigError) as caught:
        load_settings(path, environ={})

    message = str(caught.value)
    assert "YAML aliases expand to more than 20,000 values" in message
    # Refused at the first line whose aliases cross the bound (e: 9 × 9,841 values), not later.
    assert "at line 7" in message
    assert caught.value.file == str(path)


def test_a_recursive_alias_is_refused(write_yaml):
    path = write_yaml("spring.ai.ragas.metrics.enabled: true\nloop: &x {self: *x}\n")

    with pytest.raises(ConfigError, match=r"at line 2: the alias \*x refers to a value"):
        load_settings(path, environ={})


@pytest.mark.parametrize("levels", [65, 5_000])
def test_deep_nesting_is_refused_not_a_recursion_error(write_yaml, levels):
    path = write_yaml("spring.ai.ragas.metrics.enabled: true\ndeep: " + "[" * levels + "]" * levels)

    with pytest.raises(ConfigError, match="at line 2: values nested deeper than 64 levels"):
        load_settings(path, environ={})


def test_nesting_within_the_bound_still_reads_as_an_unknown_key(write_yaml):
    path = write_yaml("spring.ai.ragas.metrics.enabled: true\ndeep: " + "[" * 60 + "]" * 60)

    assert load_settings(path, environ={}).metrics.enabled


def test_a_file_over_the_size_bound_is_refused_before_reading(write_yaml):
    path = write_yaml("spring.ai.ragas.metrics.enabled: true\n")
    with path.open("r+b") as file:  # sparse: the size without the bytes
        file.truncate(CONFIG_LIMITS.max_bytes + 1)

    with pytest.raises(ConfigError, match="4,194,305 bytes, more than the 4,194,304"):
        load_settings(path, environ={})


def test_ordinary_anchors_and_merge_keys_load(write_yaml):
    path = write_yaml(
        """\
        defaults: &defaults {options: {temperature: 0.2}}
        spring.ai.ragas.providers.openai-compatible:
          - name: p
            base-url: http://localhost:1
            api-key: k
            chat-models:
              - {<<: *defaults, id: m1}
              - {<<: *defaults, id: m2}
        """
    )

    settings = load_settings(path, environ={})

    models = settings.providers.openai_compatible[0].chat_models
    assert [(m.id, m.options.temperature) for m in models] == [("m1", 0.2), ("m2", 0.2)]


def test_config_check_exits_2_naming_the_file_and_line(write_yaml, tmp_path, capsys):
    from ragas_boot.cli import main

    path = write_yaml(BOMB)

    code = main(["config", "check", "--config", str(path)])

    err = capsys.readouterr().err
    assert code == 2
    assert "at line 7" in err and "application.yaml" in err
    assert "Traceback" not in err
