"""``transport``: the global default, a provider's own choice, and a wrong value named."""

from __future__ import annotations

import pytest

from ragas_boot import load_settings
from ragas_boot.chat import TlsFiles, judge_specs
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


TLS_YAML = """\
spring.ai.ragas.providers:
  openai-compatible:
    - name: corp
      base-url: {url}
      api-key: k
      {tls}
      chat-models: [{{id: m-corp}}]
      embedding-models: [{{id: e-corp}}]
"""


def _tls_settings(tmp_path, tls: str, url: str = "https://gateway.example.test"):
    path = tmp_path / "application.yaml"
    path.write_text(TLS_YAML.format(url=url, tls=tls), encoding="utf-8")
    return load_settings(path, environ={})


def test_tls_files_reach_the_judges_and_embedding_models_of_their_provider(tmp_path):
    import trustme

    from ragas_boot.chat.factory.embeddings import embedding_specs

    ca = trustme.CA()
    client = ca.issue_cert("client@example.test")
    ca.cert_pem.write_to_path(str(tmp_path / "ca.pem"))
    client.cert_chain_pems[0].write_to_path(str(tmp_path / "client.pem"))
    client.private_key_pem.write_to_path(str(tmp_path / "client.key"))
    settings = _tls_settings(
        tmp_path,
        f"ca-bundle: {tmp_path / 'ca.pem'}\n"
        f"      client-cert: {tmp_path / 'client.pem'}\n"
        f"      client-key: {tmp_path / 'client.key'}",
    )
    expected = TlsFiles(
        ca_bundle=str(tmp_path / "ca.pem"),
        client_cert=str(tmp_path / "client.pem"),
        client_key=str(tmp_path / "client.key"),
    )
    assert [spec.tls for spec in judge_specs(settings)] == [expected]
    assert [spec.tls for spec in embedding_specs(settings)] == [expected]


def test_a_tls_file_that_does_not_load_is_named_with_its_key(tmp_path):
    (tmp_path / "not-pem.pem").write_text("hello", encoding="utf-8")
    settings = _tls_settings(tmp_path, f"ca-bundle: {tmp_path / 'not-pem.pem'}")
    with pytest.raises(ConfigError, match=r"openai-compatible\[0\]\.ca-bundle.*not-pem\.pem"):
        judge_specs(settings)
    missing = _tls_settings(tmp_path, f"client-cert: {tmp_path / 'missing.pem'}")
    with pytest.raises(ConfigError, match=r"openai-compatible\[0\]\.client-cert.*missing\.pem"):
        judge_specs(missing)


@pytest.mark.parametrize("url", ["http://127.0.0.1:9", "HTTP://gateway.example.test/api"])
@pytest.mark.parametrize("which", ["ca-bundle", "client-cert"])
def test_a_tls_file_that_does_not_load_is_an_error_whatever_the_scheme(tmp_path, url, which):
    # The files are not used for an http:// base-url, but a garbage one is a mistake all the
    # same: found at start-up, not when the URL turns https.
    (tmp_path / "garbage.pem").write_bytes(b"\x00\xffnot a certificate")
    settings = _tls_settings(tmp_path, f"{which}: {tmp_path / 'garbage.pem'}", url=url)
    with pytest.raises(ConfigError) as caught:
        judge_specs(settings)
    assert caught.value.key == f"spring.ai.ragas.providers.openai-compatible[0].{which}"
    assert "garbage.pem" in str(caught.value)
    from ragas_boot.chat.factory.embeddings import embedding_specs

    with pytest.raises(ConfigError, match=rf"\[0\]\.{which}"):
        embedding_specs(settings)


def test_good_tls_files_beside_an_http_base_url_are_accepted(tmp_path):
    import trustme

    trustme.CA().cert_pem.write_to_path(str(tmp_path / "ca.pem"))
    settings = _tls_settings(tmp_path, f"ca-bundle: {tmp_path / 'ca.pem'}", url="http://h:8000")
    assert [spec.tls for spec in judge_specs(settings)] == [
        TlsFiles(ca_bundle=str(tmp_path / "ca.pem"))
    ]


def test_a_bad_ca_bundle_beside_a_good_client_certificate_is_the_one_named(tmp_path):
    import trustme

    client = trustme.CA().issue_cert("client@example.test")
    client.private_key_and_cert_chain_pem.write_to_path(str(tmp_path / "client.pem"))
    (tmp_path / "not-pem.pem").write_text("hello", encoding="utf-8")
    settings = _tls_settings(
        tmp_path,
        f"ca-bundle: {tmp_path / 'not-pem.pem'}\n      client-cert: {tmp_path / 'client.pem'}",
    )
    with pytest.raises(ConfigError) as caught:
        judge_specs(settings)
    assert caught.value.key.endswith("openai-compatible[0].ca-bundle")
    assert "not-pem.pem" in str(caught.value) and "client.pem" not in str(caught.value)


def test_a_client_key_without_its_certificate_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="client-key is set without client-cert"):
        _tls_settings(tmp_path, "client-key: key.pem")
