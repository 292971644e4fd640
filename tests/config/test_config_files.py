"""Which file is read, and how unreadable or malformed files are reported."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from ragas_boot.config import RetrySettings, load_settings
from ragas_boot.errors import ConfigError

RETRY_3 = "spring.ai.retry.max-attempts: 3\n"
RETRY_4 = "spring.ai.retry.max-attempts: 4\n"


def test_path_argument_is_read(write_yaml):
    path = write_yaml(RETRY_3, "custom.yaml")

    settings = load_settings(path, environ={})

    assert settings.retry.max_attempts == 3
    assert settings.source.files == [str(path)]


def test_path_argument_may_be_a_string(write_yaml):
    path = write_yaml(RETRY_3, "custom.yaml")

    assert load_settings(str(path), environ={}).retry.max_attempts == 3


def test_ragas_config_variable_is_read_when_no_path_is_given(write_yaml):
    path = write_yaml(RETRY_3, "elsewhere.yaml")

    settings = load_settings(environ={"RAGAS_CONFIG": str(path)})

    assert settings.retry.max_attempts == 3
    assert settings.source.files == [str(path)]


def test_path_argument_wins_over_ragas_config(write_yaml):
    given = write_yaml(RETRY_3, "given.yaml")
    from_env = write_yaml(RETRY_4, "from-env.yaml")

    settings = load_settings(given, environ={"RAGAS_CONFIG": str(from_env)})

    assert settings.retry.max_attempts == 3


def test_application_yaml_in_working_directory_is_the_default(write_yaml, tmp_path, monkeypatch):
    write_yaml(RETRY_3, "application.yaml")
    monkeypatch.chdir(tmp_path)

    settings = load_settings(environ={})

    assert settings.retry.max_attempts == 3
    assert settings.source.files == ["application.yaml"]


def test_application_yml_is_read_when_there_is_no_application_yaml(
    write_yaml, tmp_path, monkeypatch
):
    write_yaml(RETRY_4, "application.yml")
    monkeypatch.chdir(tmp_path)

    assert load_settings(environ={}).retry.max_attempts == 4


def test_application_yaml_is_preferred_over_application_yml(write_yaml, tmp_path, monkeypatch):
    write_yaml(RETRY_3, "application.yaml")
    write_yaml(RETRY_4, "application.yml")
    monkeypatch.chdir(tmp_path)

    assert load_settings(environ={}).retry.max_attempts == 3


def test_a_directory_path_means_its_application_yaml(write_yaml, tmp_path):
    write_yaml(RETRY_4, "conf/application.yml")

    assert load_settings(tmp_path / "conf", environ={}).retry.max_attempts == 4


def test_no_file_anywhere_is_an_error_listing_what_was_tried(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    with pytest.raises(ConfigError) as caught:
        load_settings(environ={})

    message = str(caught.value)
    assert str(tmp_path / "application.yaml") in message
    assert str(tmp_path / "application.yml") in message
    assert "RAGAS_CONFIG" in message


def test_missing_path_argument_is_an_error_naming_the_path(tmp_path):
    missing = tmp_path / "nope.yaml"

    with pytest.raises(ConfigError) as caught:
        load_settings(missing, environ={})

    assert caught.value.file == str(missing)
    assert str(missing) in str(caught.value)
    assert "load_settings()" in str(caught.value)


def test_missing_ragas_config_file_is_an_error_naming_the_variable(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "application.yaml").write_text(RETRY_3)

    with pytest.raises(ConfigError) as caught:
        load_settings(environ={"RAGAS_CONFIG": str(tmp_path / "gone.yaml")})

    assert "RAGAS_CONFIG" in str(caught.value)
    assert str(tmp_path / "gone.yaml") in str(caught.value)


def test_directory_without_application_yaml_lists_both_names(tmp_path):
    with pytest.raises(ConfigError) as caught:
        load_settings(tmp_path, environ={})

    assert str(tmp_path / "application.yaml") in str(caught.value)
    assert str(tmp_path / "application.yml") in str(caught.value)


def test_invalid_yaml_names_the_file_and_the_line(write_yaml):
    path = write_yaml(
        """\
        spring:
          ai:
            retry: [429
          other: 1
        """
    )

    with pytest.raises(ConfigError) as caught:
        load_settings(path, environ={})

    assert caught.value.file == str(path)
    assert str(path) in str(caught.value)
    assert "line 4" in str(caught.value)
    assert "invalid YAML" in str(caught.value)


def test_a_key_written_twice_is_an_error_with_both_lines(write_yaml):
    path = write_yaml(
        """\
        spring:
          ai:
            retry:
              max-attempts: 3
              max-attempts: 4
        """
    )

    with pytest.raises(ConfigError) as caught:
        load_settings(path, environ={})

    message = str(caught.value)
    assert "'max-attempts' twice" in message
    assert "first at line 4" in message
    assert "line 5" in message
    assert caught.value.file == str(path)


def test_yaml_merge_keys_are_not_taken_for_duplicates(write_yaml):
    path = write_yaml(
        """\
        base: &base
          max-attempts: 3
          on-client-errors: true
        spring.ai.retry:
          <<: *base
          max-attempts: 5
        """
    )

    retry = load_settings(path, environ={}).retry

    assert (retry.max_attempts, retry.on_client_errors) == (5, True)


def test_a_file_that_is_not_utf8_is_an_error_naming_the_file(tmp_path):
    path = tmp_path / "application.yaml"
    path.write_bytes(b"spring:\n  ai: \xff\xfe\n")

    with pytest.raises(ConfigError) as caught:
        load_settings(path, environ={})

    assert caught.value.file == str(path)
    assert "UTF-8" in str(caught.value)


def test_an_unreadable_file_is_an_error_naming_the_file(write_yaml, monkeypatch):
    path = write_yaml(RETRY_3)
    real_read_text = Path.read_text

    def read_text(self: Path, *args: object, **kwargs: object) -> str:
        if self == path:
            raise PermissionError(13, "Permission denied")
        return real_read_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", read_text)

    with pytest.raises(ConfigError) as caught:
        load_settings(path, environ={})

    assert caught.value.file == str(path)
    assert "Permission denied" in str(caught.value)


def test_a_document_that_is_not_a_mapping_is_an_error(write_yaml):
    path = write_yaml("spring.ai.retry.max-attempts: 3\n---\n- a\n- b\n")

    with pytest.raises(ConfigError) as caught:
        load_settings(path, environ={})

    assert "document 2" in str(caught.value)
    assert "not a mapping" in str(caught.value)
    assert caught.value.file == str(path)


@pytest.mark.parametrize("text", ["", "# nothing yet\n", "---\n---\n", "\ufeff\n\n"])
def test_an_empty_file_is_an_error_naming_it(write_yaml, text):
    path = write_yaml(text)

    with pytest.raises(ConfigError, match="the configuration file is empty") as caught:
        load_settings(path, environ={})

    assert caught.value.file == str(path)


def test_a_file_with_only_an_empty_section_gives_the_defaults(write_yaml):
    path = write_yaml("spring.ai.ragas: {}\n")

    settings = load_settings(path, environ={})

    assert settings.retry == RetrySettings()
    assert settings.retry.backoff.initial_interval == timedelta(seconds=1)
    assert settings.providers.openai_compatible == []


def test_empty_documents_are_skipped(write_yaml):
    path = write_yaml("---\n---\nspring.ai.retry.max-attempts: 3\n---\n")

    assert load_settings(path, environ={}).retry.max_attempts == 3


def test_os_environ_is_the_default_environment(write_yaml, monkeypatch):
    path = write_yaml("spring.ai.openai.base-url: ${RAGAS_TEST_BASE_URL}\n")
    monkeypatch.setenv("RAGAS_TEST_BASE_URL", "http://from-os-environ")

    assert load_settings(path).openai.base_url == "http://from-os-environ"
