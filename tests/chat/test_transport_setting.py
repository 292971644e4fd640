"""``transport``: the global default, a provider's own choice, and a wrong value named."""

from __future__ import annotations

import pytest

from ragas_boot import load_settings
from ragas_boot.chat import judge_specs
from ragas_boot.config.settings import Transport
from ragas_boot.errors import ConfigError

YAML = """\
spring.ai.ragas.providers:
  {default}
  openai-compatible:
    - name: a
      base-url: http://127.0.0.1:9
      api-key: k
      chat-models: [{{id: m-a}}]
    - name: b
      base-url: http://127.0.0.1:9
      api-key: k
      transport: {override}
      chat-models: [{{id: m-b}}]
"""


@pytest.mark.parametrize(
    ("default", "override", "expected"),
    [
        ("", "langchain", {"m-a": Transport.DIRECT, "m-b": Transport.LANGCHAIN}),
        ("transport: LangChain", "direct", {"m-a": Transport.LANGCHAIN, "m-b": Transport.DIRECT}),
    ],
)
def test_a_provider_takes_the_default_transport_unless_it_names_one(
    tmp_path, default, override, expected
):
    path = tmp_path / "application.yaml"
    path.write_text(YAML.format(default=default, override=override), encoding="utf-8")
    specs = judge_specs(load_settings(path, environ={}))
    assert {spec.id: spec.transport for spec in specs} == expected


def test_an_unknown_transport_is_named_with_its_key(tmp_path):
    path = tmp_path / "application.yaml"
    path.write_text(YAML.format(default="", override="httpx"), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"openai-compatible\[1\]\.transport"):
        load_settings(path, environ={})
