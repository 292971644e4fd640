"""Options on the command line and in the ini file, and the report header they produce."""

from __future__ import annotations

import pytest

SETTINGS_TEST = """
def test_profiles(ragas_settings):
    print("PROFILES", ragas_settings.source.active_profiles)
    print("FILES", [f.rsplit("/", 2)[-2] + "/" + f.rsplit("/", 1)[-1]
                    for f in ragas_settings.source.files])
"""


@pytest.fixture
def configs(plain, judges_config):
    """Two config folders: ``one/`` (judge-a, b) with a ``fast`` profile file, ``two/`` (c)."""
    yaml = judges_config()
    plain.mkdir("one")
    (plain.path / "one" / "application.yaml").write_text(yaml, encoding="utf-8")
    (plain.path / "one" / "application-fast.yaml").write_text(
        "spring.ai.ragas.metrics.language: ru\n", encoding="utf-8"
    )
    plain.mkdir("two")
    (plain.path / "two" / "application.yaml").write_text(
        judges_config(("judge-c",)), encoding="utf-8"
    )
    plain.makepyfile(test_settings=SETTINGS_TEST)
    return plain


def test_the_command_line_names_the_config_and_profiles(configs):
    result = configs.runpytest(
        "-s", "--ragas-config", "one/application.yaml", "--ragas-profile", "fast,extra"
    )

    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "ragas-boot: config one/application.yaml, one/application-fast.yaml "
            "(profiles: fast, extra)",
            "ragas-boot: 2 judge(s) - local: judge-a, judge-b",
        ]
    )
    assert "PROFILES ['fast', 'extra']" in result.stdout.str()


def test_the_ini_file_names_them_relative_to_itself(configs, write_ini, monkeypatch):
    write_ini(
        """\
        ragas_config = two/application.yaml
        ragas_profile =
            a
            b
        """
    )
    elsewhere = configs.mkdir("elsewhere")
    monkeypatch.chdir(elsewhere)

    result = configs.runpytest("-s", str(configs.path))

    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "ragas-boot: config two/application.yaml (profiles: a, b)",
            "ragas-boot: 1 judge(s) - local: judge-c",
        ]
    )
    assert "PROFILES ['a', 'b']" in result.stdout.str()


def test_the_command_line_wins_over_the_ini_file(configs, write_ini):
    write_ini("ragas_config = two/application.yaml\nragas_profile = a\n")

    result = configs.runpytest(
        "-s", "--ragas-config=one/application.yaml", "--ragas-profile=x", "--ragas-profile=y"
    )

    result.stdout.fnmatch_lines(["ragas-boot: config one/application.yaml (profiles: x, y)"])
    assert "PROFILES ['x', 'y']" in result.stdout.str()


def test_without_options_there_is_no_header_and_no_yaml_is_read(plain):
    plain.makefile(".yaml", application="spring: [this is not: valid")
    plain.makepyfile("def test_plain(): pass")

    result = plain.runpytest()

    result.assert_outcomes(passed=1)
    assert "ragas-boot:" not in result.stdout.str()


def test_a_broken_config_shows_in_the_header_without_stopping_other_tests(plain, write_ini):
    write_ini("ragas_config = missing.yaml\n")
    plain.makepyfile(
        """
        def test_plain():
            pass

        def test_needs_settings(ragas_settings):
            pass
        """
    )

    result = plain.runpytest()

    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "ragas-boot: cannot load */missing.yaml: *",
            "*ragas-boot could not load its settings*",
        ]
    )


def test_the_options_are_documented_in_help(plain):
    result = plain.runpytest("--help")

    result.stdout.fnmatch_lines(
        [
            "ragas-boot*",
            "*--ragas-config=PATH*",
            "*--ragas-profile=NAME*",
            "*--ragas-report=PATH*",
            "*ragas_config (string):*",
            "*ragas_profile (linelist):*",
            "*ragas_report (string):*",
        ]
    )


def test_the_live_marker_is_declared_for_strict_markers(plain):
    result = plain.runpytest("--markers")

    assert "@pytest.mark.ragas_live(env=NAME | [NAMES]): talks to a live provider" in (
        result.stdout.str()
    )
