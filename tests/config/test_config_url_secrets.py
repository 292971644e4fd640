"""Header values and credentials inside base URLs are secrets; base-url must be http(s)."""

from __future__ import annotations

import pytest

from ragas_boot.config import load_settings
from ragas_boot.config.urls import mask_url, url_secrets
from ragas_boot.container import create_container
from ragas_boot.errors import ConfigError

HEADER_SECRET = "hdr-value-31415926"
URL_PASSWORD = "url-pass-27182818"
QUERY_KEY = "query-key-16180339"
BASE = f"https://alice:{URL_PASSWORD}@judge.example:8443/api?key={QUERY_KEY}&v=2"


def provider_yaml(base_url: str, headers: str = "{}") -> str:
    return (
        "spring.ai.ragas.providers.openai-compatible:\n"
        f"  - {{ name: p, base-url: '{base_url}', api-key: k, headers: {headers},"
        " chat-models: [{id: m}] }\n"
    )


def test_header_values_never_show_in_dumps_or_reprs(write_yaml):
    path = write_yaml(provider_yaml("http://p", f"{{X-Org: {HEADER_SECRET}, X-Title: t}}"))

    settings = load_settings(path, environ={})

    provider = settings.providers.openai_compatible[0]
    for text in (
        str(settings.model_dump()),
        settings.model_dump_json(),
        repr(settings),
        repr(provider),
        str(provider.headers),
    ):
        assert HEADER_SECRET not in text
    assert provider.headers["X-Org"].get_secret_value() == HEADER_SECRET
    with create_container(settings) as container:
        [judge] = container.judges()
        assert HEADER_SECRET not in repr(judge) + repr(judge.spec)


def _basic(user: str, password: str) -> str:
    import base64

    return base64.b64encode(f"{user}:{password}".encode()).decode()


def test_url_credentials_are_found_and_masked():
    # The password, the Basic token it is sent as (a server may echo the header), the query.
    assert url_secrets(BASE) == [URL_PASSWORD, _basic("alice", URL_PASSWORD), QUERY_KEY, "2"]
    assert mask_url(BASE) == "https://alice:****@judge.example:8443/api?key=****&v=****"
    assert url_secrets("https://TOKEN123456@host/x") == ["TOKEN123456", _basic("TOKEN123456", "")]
    # Percent-escaped as written and decoded, as a server may echo either.
    assert url_secrets("https://bob:p%C3%A4ss%3A1@h/") == [
        "p%C3%A4ss%3A1",
        "päss:1",
        _basic("bob", "päss:1"),
    ]
    assert mask_url("https://TOKEN123456@host/x") == "https://****@host/x"
    assert mask_url("http://localhost:8080/v1") == "http://localhost:8080/v1"
    assert url_secrets("http://localhost:8080/v1") == []


def test_azures_api_version_is_no_secret_but_a_key_beside_it_is():
    url = f"https://x.openai.azure.com/openai/deployments/d?api-version=2024-06-01&key={QUERY_KEY}"

    assert url_secrets(url) == [QUERY_KEY]
    assert mask_url(url) == (
        "https://x.openai.azure.com/openai/deployments/d?api-version=2024-06-01&key=****"
    )


def test_judges_show_their_endpoint_with_credentials_masked(write_yaml):
    path = write_yaml(provider_yaml(BASE))

    with create_container(load_settings(path, environ={})) as container:
        [judge] = container.judges()
        shown = repr(judge) + judge.endpoint

    assert URL_PASSWORD not in shown and QUERY_KEY not in shown
    assert "alice:****@judge.example:8443" in judge.endpoint


@pytest.mark.parametrize(
    "base_url",
    ["localhost:8080", "api.openai.com/v1", "ftp://files.example", "/v1", "http://", "https:///x"],
)
def test_a_base_url_that_is_not_absolute_http_is_a_config_error_naming_the_key(
    write_yaml, base_url
):
    path = write_yaml(provider_yaml(base_url))

    with pytest.raises(ConfigError) as caught:
        load_settings(path, environ={})

    assert caught.value.key == "spring.ai.ragas.providers.openai-compatible[0].base-url"
    assert "must be an absolute http(s) URL" in str(caught.value)


def test_a_rejected_base_url_is_echoed_with_its_credentials_masked(write_yaml):
    path = write_yaml(provider_yaml(f"ftp://bob:{URL_PASSWORD}@host/?token={QUERY_KEY}"))

    with pytest.raises(ConfigError) as caught:
        load_settings(path, environ={})

    assert URL_PASSWORD not in str(caught.value) and QUERY_KEY not in str(caught.value)
    assert "got 'ftp://bob:****@host/?token=****'" in str(caught.value)


def test_spring_openai_base_url_may_be_empty_but_not_relative(write_yaml):
    assert load_settings(write_yaml("spring.ai.openai.base-url: ''\n"), environ={}).openai
    with pytest.raises(ConfigError, match=r"spring\.ai\.openai\.base-url: must be an absolute"):
        load_settings(write_yaml("spring.ai.openai.base-url: api.openai.com\n"), environ={})


HISTORY_PASSWORD = "hist-pass-14142135"
GIGA_PASSWORD = "giga-pass-17320508"
HOSTILE = f"""\
spring.ai.ragas:
  providers:
    openai-compatible:
      - name: p
        base-url: '{BASE}'
        api-key: k
        headers: {{X-Org: {HEADER_SECRET}}}
        chat-models: [{{id: m}}]
        embedding-models: [{{id: e}}]
  history:
    url: 'postgresql+pg8000://bob:{HISTORY_PASSWORD}@db.example/runs'
spring.ai.openai:
  base-url: '{BASE}'
  api-key: k2
spring.ai.gigachat:
  base-url: 'https://carol:{GIGA_PASSWORD}@giga.example/api/v1'
  auth: {{bearer: {{api-key: gk}}}}
"""
SECRETS = (URL_PASSWORD, QUERY_KEY, HEADER_SECRET, HISTORY_PASSWORD, GIGA_PASSWORD)


def _shown(value: object) -> list[str]:
    """Every way a settings object is printed or dumped, for it and each section in it."""
    texts = [repr(value), str(value)]
    if hasattr(value, "model_dump"):
        texts += [str(value.model_dump()), value.model_dump_json()]  # type: ignore[attr-defined]
        for name in type(value).model_fields:  # type: ignore[attr-defined]
            texts += _shown_field(getattr(value, name))
    return texts


def _shown_field(value: object) -> list[str]:
    if isinstance(value, list | tuple):
        return [text for item in value for text in _shown_field(item)]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _shown_field(item)]
    return _shown(value) if hasattr(value, "model_dump") else []


def test_no_printed_or_dumped_settings_object_shows_a_credential(write_yaml):
    settings = load_settings(write_yaml(HOSTILE), environ={})
    texts = _shown(settings)
    assert len(texts) > 50  # every section was walked
    for text in texts:
        for secret in SECRETS:
            assert secret not in text
    # The attributes keep the real URLs for the code that connects; a dump can ask for them.
    provider = settings.providers.openai_compatible[0]
    assert provider.base_url == BASE
    assert provider.model_dump(context={"reveal_urls": True})["base_url"] == BASE
    with create_container(settings) as container:
        shown = [repr(container), *map(repr, container.judges())]
        shown += [repr(judge.spec) for judge in container.judges()]
        shown += [repr(model) for model in container.embedding_models()]
        for text in shown:
            for secret in SECRETS:
                assert secret not in text
