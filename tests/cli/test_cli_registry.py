"""Other packages add subcommands with ``register_command`` (directly or by entry point)."""

from __future__ import annotations

import argparse
import importlib.metadata

import pytest

from ragas_boot import ConfigError, cli


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name")
    parser.add_argument("--fail", action="store_true")
    cli.add_config_arguments(parser)


def _run(args: argparse.Namespace) -> int:
    if args.fail:
        raise ConfigError("the suite is broken", key="suite.cases[0]", file="suite.yaml")
    if args.config:
        cli.settings_from_args(args)
    cli.stdout().print(f"hello {args.name}")
    return 3


@pytest.fixture
def greet():
    command = cli.register_command("greet", _configure, _run, help="say hello")
    yield command
    cli.unregister_command("greet")


def test_a_registered_command_is_in_the_help_and_runs(run_cli, greet):
    assert "say hello" in run_cli("--help").out
    result = run_cli("greet", "world")
    assert (result.code, result.out.strip()) == (3, "hello world")
    assert greet in cli.registered_commands()


def test_its_errors_exit_2_with_one_message_and_its_secrets_are_masked(
    run_cli, greet, config_file, secret
):
    failed = run_cli("greet", "x", "--fail")
    assert failed.code == 2
    assert "ragas-boot: error: suite.cases[0]: the suite is broken (in suite.yaml)" in failed.err
    shown = run_cli("greet", secret, "--config", config_file)
    assert shown.out.strip() == "hello ****"


def test_names_are_unique_unless_replaced(greet):
    with pytest.raises(ValueError, match="already registered"):
        cli.register_command("greet", _configure, _run)
    replaced = cli.register_command("greet", _configure, _run, replace=True)
    assert replaced.name == "greet"
    with pytest.raises(ValueError, match="invalid command name"):
        cli.register_command("--x", _configure, _run)


def register_from_entry_point() -> None:
    """What a plugin's entry point object does."""
    cli.register_command("plugged", _configure, _run, help="from an entry point")


def test_entry_points_of_the_commands_group_are_loaded_once(run_cli, monkeypatch):
    point = importlib.metadata.EntryPoint(
        name="plugged",
        value=f"{__name__}:register_from_entry_point",
        group=cli.ENTRY_POINT_GROUP,
    )
    broken = importlib.metadata.EntryPoint(
        name="broken", value="no_such_module_xyz:nothing", group=cli.ENTRY_POINT_GROUP
    )
    monkeypatch.setattr(cli._registry, "_plugins_loaded", False)
    monkeypatch.setattr(
        importlib.metadata,
        "entry_points",
        lambda group: [point, broken] if group == cli.ENTRY_POINT_GROUP else [],
    )
    try:
        result = run_cli("plugged", "there")
        assert (result.code, result.out.strip()) == (3, "hello there")
        assert "command plugin 'broken'" in result.err  # a broken plugin is only a warning
        assert run_cli("--help").err.count("broken") == 0  # loaded once per process
    finally:
        cli.unregister_command("plugged")


def _configure_actions(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True)
    go = actions.add_parser("go")
    go.add_argument("--fail", action="store_true")


def test_the_log_flags_reach_the_actions_of_a_command(run_cli, tmp_path):
    """``--debug`` / ``-v`` work after a command's own actions (``deploy go --debug``), as
    after the built-ins' (``cache stats -v``), without the command declaring them."""
    cli.register_command("deploy", _configure_actions, _run_action)
    try:
        quiet = run_cli("deploy", "go", "--fail")
        shown = run_cli("deploy", "go", "--fail", "--debug")
    finally:
        cli.unregister_command("deploy")
    assert (quiet.code, shown.code) == (2, 2)
    assert "Traceback" not in quiet.err and "run with --debug" in quiet.err
    assert "Traceback" in shown.err and "ConfigError" in shown.err
    stats = run_cli("cache", "stats", "--cache-dir", tmp_path / "none", "-v")
    assert stats.code == 0, stats.err


def _run_action(args: argparse.Namespace) -> int:
    if args.fail:
        raise ConfigError("cannot deploy", key="deploy.target")
    return 0
