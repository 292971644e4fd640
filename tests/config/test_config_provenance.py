"""``settings.source``: files, profiles, unsupported keys and the origin of every key."""

from __future__ import annotations

import pytest

from ragas_boot import config
from ragas_boot.config import load_settings
from ragas_boot.config import settings as settings_module


def test_origins_name_the_file_the_profile_document_the_profile_file_and_the_variable(
    write_yaml,
):
    path = write_yaml(
        """\
        spring.ai.retry:
          max-attempts: 3
          on-http-codes: [429, 503]
        spring.ai.openai.base-url: http://base
        logging.level.root: INFO
        ---
        spring.config.activate.on-profile: dev
        spring.ai.openai.base-url: http://dev
        """
    )
    profile_file = write_yaml("spring.ai.openai.api-key: k\n", "application-dev.yaml")

    settings = load_settings(
        path, "dev", environ={"SPRING_AI_RETRY_BACKOFF_MULTIPLIER": "3", "UNRELATED": "x"}
    )

    assert settings.source.files == [str(path), str(profile_file)]
    assert settings.source.active_profiles == ["dev"]
    assert settings.source.unsupported_keys == ["logging"]
    assert settings.source.origins == {
        "spring.ai.retry.max-attempts": str(path),
        "spring.ai.retry.on-http-codes[0]": str(path),
        "spring.ai.retry.on-http-codes[1]": str(path),
        "spring.ai.openai.base-url": f"{path}#dev",
        "spring.ai.openai.api-key": str(profile_file),
        "spring.ai.retry.backoff.multiplier": "env:SPRING_AI_RETRY_BACKOFF_MULTIPLIER",
    }


def test_a_replaced_list_forgets_the_origins_of_the_old_elements(write_yaml):
    path = write_yaml(
        """\
        spring.ai.retry.on-http-codes: [429, 500, 503]
        ---
        spring.config.activate.on-profile: dev
        spring.ai.retry.on-http-codes: [418]
        """
    )

    origins = load_settings(path, "dev", environ={}).source.origins

    assert origins == {"spring.ai.retry.on-http-codes[0]": f"{path}#dev"}


def test_the_source_is_frozen(write_yaml):
    settings = load_settings(write_yaml("a: 1\n"), environ={})

    with pytest.raises(ValueError, match="frozen"):
        settings.source.files = []  # type: ignore[misc]


def test_the_public_names_are_sorted_and_importable():
    assert config.__all__ == sorted(config.__all__)
    for name in config.__all__:
        assert getattr(config, name) is not None


def test_every_settings_class_is_exported():
    # The face is every section, mode enum and field type, and the loader; the library's own
    # helpers are importable from config.settings but on neither list.
    helpers = {"ROOT_PREFIXES", "parse_duration"}

    assert set(config.__all__) == set(settings_module.__all__) | {"load_settings"}
    assert {"Duration", "Language", "LocalDecoder"} <= set(config.__all__)
    assert not helpers & (set(config.__all__) | set(settings_module.__all__))
