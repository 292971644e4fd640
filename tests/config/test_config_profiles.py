"""Profiles: which documents and profile files apply, and where the active profiles come from."""

from __future__ import annotations

import pytest

from ragas_boot.config import load_settings
from ragas_boot.errors import ConfigError

BASE_AND_DEV = """\
spring.ai.openai.base-url: http://base
---
spring.config.activate.on-profile: dev
spring.ai.openai.base-url: http://dev
"""


def base_url(path, profiles=None, environ=None):
    return load_settings(path, profiles, environ=environ or {}).openai.base_url


def test_a_profile_document_applies_only_when_its_profile_is_active(write_yaml):
    path = write_yaml(BASE_AND_DEV)

    assert base_url(path) == "http://base"
    assert base_url(path, ["dev"]) == "http://dev"
    assert base_url(path, ["prod"]) == "http://base"


def test_the_nested_form_of_on_profile_works(write_yaml):
    path = write_yaml(
        """\
        spring.ai.openai.base-url: http://base
        ---
        spring:
          config:
            activate:
              on-profile: dev
          ai.openai.base-url: http://dev
        """
    )

    assert base_url(path, "dev") == "http://dev"
    assert base_url(path) == "http://base"


@pytest.mark.parametrize(
    ("on_profile", "active", "applies"),
    [
        ("dev, staging", ["staging"], True),
        ("dev, staging", ["prod"], False),
        ("[dev, staging]", ["dev"], True),
        ("'!dev'", ["prod"], True),
        ("'!dev'", ["dev"], False),
        ("'!dev'", None, True),
        ("dev & eu", ["dev"], False),
        ("dev & eu", ["eu", "dev"], True),
        ("(dev | test) & !eu", ["test"], True),
        ("(dev | test) & !eu", ["test", "eu"], False),
        ("'!(dev | test)'", ["prod"], True),
    ],
)
def test_profile_expressions(write_yaml, on_profile, active, applies):
    path = write_yaml(
        f"""\
        spring.ai.openai.base-url: http://base
        ---
        spring.config.activate.on-profile: {on_profile}
        spring.ai.openai.base-url: http://chosen
        """
    )

    assert base_url(path, active) == ("http://chosen" if applies else "http://base")


@pytest.mark.parametrize("expression", ["dev &", "(dev", "dev)", "& dev", "dev ! test"])
def test_a_malformed_profile_expression_is_an_error(write_yaml, expression):
    path = write_yaml(f"---\nspring.config.activate.on-profile: '{expression}'\na: 1\n")

    with pytest.raises(ConfigError) as caught:
        load_settings(path, "dev", environ={})

    assert caught.value.key == "spring.config.activate.on-profile"
    assert caught.value.file == str(path)
    assert "profile expression" in str(caught.value)


def test_a_non_string_on_profile_is_an_error(write_yaml):
    path = write_yaml("spring.config.activate.on-profile: {dev: true}\n")

    with pytest.raises(ConfigError) as caught:
        load_settings(path, environ={})

    assert caught.value.key == "spring.config.activate.on-profile"


def test_documents_apply_in_file_order(write_yaml):
    path = write_yaml(
        """\
        spring.ai.openai.base-url: http://base
        ---
        spring.config.activate.on-profile: a
        spring.ai.openai.base-url: http://a
        ---
        spring.config.activate.on-profile: b
        spring.ai.openai.base-url: http://b
        """
    )

    # The document order decides, not the order of the profiles.
    assert base_url(path, ["b", "a"]) == "http://b"


def test_a_profile_file_applies_after_the_base_file(write_yaml):
    path = write_yaml(BASE_AND_DEV)
    write_yaml("spring.ai.openai.base-url: http://dev-file\n", "application-dev.yaml")

    settings = load_settings(path, "dev", environ={})

    assert settings.openai.base_url == "http://dev-file"
    assert settings.source.files == [str(path), str(path.with_name("application-dev.yaml"))]


def test_a_profile_file_is_not_read_when_its_profile_is_inactive(write_yaml):
    path = write_yaml(BASE_AND_DEV)
    write_yaml("spring.ai.openai.base-url: http://dev-file\n", "application-dev.yaml")

    settings = load_settings(path, environ={})

    assert settings.openai.base_url == "http://base"
    assert settings.source.files == [str(path)]


def test_a_yml_profile_file_is_found_beside_a_yaml_base(write_yaml):
    path = write_yaml("spring.ai.openai.base-url: http://base\n")
    write_yaml("spring.ai.openai.base-url: http://dev-yml\n", "application-dev.yml")

    assert base_url(path, "dev") == "http://dev-yml"


def test_profile_files_follow_the_base_file_name(write_yaml):
    path = write_yaml("spring.ai.openai.base-url: http://base\n", "judges.yml")
    write_yaml("spring.ai.openai.base-url: http://judges-dev\n", "judges-dev.yml")
    write_yaml("spring.ai.openai.base-url: http://application-dev\n", "application-dev.yaml")

    assert base_url(path, "dev") == "http://judges-dev"


def test_profile_files_apply_in_profile_order(write_yaml):
    path = write_yaml("spring.ai.retry.max-attempts: 1\n")
    write_yaml(
        "spring.ai.retry:\n  max-attempts: 2\n  on-http-codes: [500]\n", "application-a.yaml"
    )
    write_yaml("spring.ai.retry.max-attempts: 3\n", "application-b.yaml")

    ab = load_settings(path, ["a", "b"], environ={})
    ba = load_settings(path, ["b", "a"], environ={})

    assert (ab.retry.max_attempts, ab.retry.on_http_codes) == (3, [500])
    assert (ba.retry.max_attempts, ba.retry.on_http_codes) == (2, [500])
    assert ab.source.files[1:] == [
        str(path.with_name("application-a.yaml")),
        str(path.with_name("application-b.yaml")),
    ]


def test_profile_file_documents_may_have_their_own_conditions(write_yaml):
    path = write_yaml("spring.ai.retry.max-attempts: 1\n")
    write_yaml(
        """\
        spring.ai.retry.max-attempts: 2
        ---
        spring.config.activate.on-profile: eu
        spring.ai.retry.max-attempts: 3
        """,
        "application-dev.yaml",
    )

    assert load_settings(path, "dev", environ={}).retry.max_attempts == 2
    assert load_settings(path, "dev,eu", environ={}).retry.max_attempts == 3


def test_active_profiles_from_the_yaml_string(write_yaml):
    path = write_yaml("spring.profiles.active: dev\n" + BASE_AND_DEV)

    settings = load_settings(path, environ={})

    assert settings.openai.base_url == "http://dev"
    assert settings.source.active_profiles == ["dev"]


@pytest.mark.parametrize("value", ["'eu, dev'", "[eu, dev]"])
def test_active_profiles_from_a_yaml_comma_string_or_list(write_yaml, value):
    path = write_yaml(f"spring.profiles.active: {value}\n" + BASE_AND_DEV)

    settings = load_settings(path, environ={})

    assert settings.source.active_profiles == ["eu", "dev"]
    assert settings.openai.base_url == "http://dev"


def test_active_profiles_in_the_yaml_may_use_a_placeholder(write_yaml):
    path = write_yaml("spring.profiles.active: ${APP_PROFILE:dev}\n" + BASE_AND_DEV)

    assert base_url(path) == "http://dev"
    assert base_url(path, environ={"APP_PROFILE": "prod"}) == "http://base"


def test_the_environment_wins_over_the_yaml(write_yaml):
    path = write_yaml("spring.profiles.active: prod\n" + BASE_AND_DEV)

    settings = load_settings(path, environ={"SPRING_PROFILES_ACTIVE": "dev, eu"})

    assert settings.openai.base_url == "http://dev"
    assert settings.source.active_profiles == ["dev", "eu"]


def test_the_argument_wins_over_the_environment(write_yaml):
    path = write_yaml(BASE_AND_DEV)

    settings = load_settings(path, ["dev"], environ={"SPRING_PROFILES_ACTIVE": "prod"})

    assert settings.source.active_profiles == ["dev"]
    assert settings.openai.base_url == "http://dev"


def test_a_comma_string_argument_names_several_profiles(write_yaml):
    path = write_yaml(BASE_AND_DEV)

    settings = load_settings(path, "eu, dev", environ={})

    assert settings.source.active_profiles == ["eu", "dev"]


@pytest.mark.parametrize("empty", ["", [], ()])
def test_an_empty_argument_counts_as_not_given(write_yaml, empty):
    path = write_yaml(BASE_AND_DEV)

    settings = load_settings(path, empty, environ={"SPRING_PROFILES_ACTIVE": "dev"})

    assert settings.source.active_profiles == ["dev"]


def test_the_default_profile_applies_when_none_is_active(write_yaml):
    path = write_yaml("spring.profiles.default: dev\n" + BASE_AND_DEV)

    settings = load_settings(path, environ={})

    assert settings.openai.base_url == "http://dev"
    assert settings.source.active_profiles == ["dev"]


def test_the_default_profile_is_ignored_when_a_profile_is_active(write_yaml):
    path = write_yaml("spring.profiles.default: dev\n" + BASE_AND_DEV)

    assert base_url(path, "prod") == "http://base"
    assert base_url(path, environ={"SPRING_PROFILES_ACTIVE": "prod"}) == "http://base"


def test_active_in_the_yaml_wins_over_default(write_yaml):
    path = write_yaml("spring.profiles:\n  default: dev\n  active: prod\n" + BASE_AND_DEV)

    assert base_url(path) == "http://base"


def test_without_any_profile_the_profile_named_default_is_active(write_yaml):
    path = write_yaml(
        """\
        spring.ai.openai.base-url: http://base
        ---
        spring.config.activate.on-profile: default
        spring.ai.openai.base-url: http://default
        """
    )
    write_yaml("spring.ai.retry.max-attempts: 2\n", "application-default.yaml")

    settings = load_settings(path, environ={})

    assert settings.source.active_profiles == ["default"]
    assert settings.openai.base_url == "http://default"
    assert settings.retry.max_attempts == 2
    assert base_url(path, "dev") == "http://base"


@pytest.mark.parametrize("key", ["spring.profiles.active", "spring.profiles.default"])
def test_choosing_profiles_in_a_profile_document_is_an_error(write_yaml, key):
    path = write_yaml(f"a: 1\n---\nspring.config.activate.on-profile: dev\n{key}: other\n")

    with pytest.raises(ConfigError) as caught:
        load_settings(path, "dev", environ={})

    assert caught.value.key == key
    assert caught.value.file == f"{path}#dev"
    assert "on-profile" in str(caught.value)


def test_choosing_profiles_in_a_profile_file_is_an_error(write_yaml):
    path = write_yaml("a: 1\n")
    profile_file = write_yaml("spring.profiles.active: other\n", "application-dev.yaml")

    with pytest.raises(ConfigError) as caught:
        load_settings(path, "dev", environ={})

    assert caught.value.key == "spring.profiles.active"
    assert caught.value.file == str(profile_file)


def test_a_cloud_platform_document_never_applies(write_yaml):
    path = write_yaml(
        """\
        spring.ai.openai.base-url: http://base
        ---
        spring.config.activate.on-cloud-platform: kubernetes
        spring.ai.openai.base-url: http://cloud
        """
    )

    assert base_url(path) == "http://base"
