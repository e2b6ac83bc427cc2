"""The CLI shell: version, help, usage errors and their exit codes."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kschedctl import __version__
from tests.cli.helpers import run_cli


def test_version_prints_version_and_upstream_target() -> None:
    result = run_cli("--version")
    assert result.exit_code == 0
    assert __version__ in result.stdout
    assert "v1.34" in result.stdout


def test_help_lists_commands() -> None:
    result = run_cli("--help")
    assert result.exit_code == 0
    assert "Usage" in result.stdout


@pytest.mark.parametrize(
    "args",
    [("no-such-command",), ("--no-such-flag",)],
    ids=["unknown_command", "unknown_option"],
)
def test_usage_errors_exit_2_without_traceback(args: tuple[str, ...]) -> None:
    result = run_cli(*args)
    assert result.exit_code == 2
    assert "Traceback" not in result.stderr


def test_console_script_runs_as_module() -> None:
    proc = subprocess.run([sys.executable, "-m", "kschedctl", "--version"], capture_output=True, text=True)
    assert proc.returncode == 0
    assert __version__ in proc.stdout


def test_a_command_module_that_does_not_import_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    # every command exists: a missing one is a broken install or a bug, never a command left out of --help
    from kschedctl.cli import app

    monkeypatch.setattr(app, "_COMMAND_MODULES", ("explain", "no_such_command"))
    with pytest.raises(ModuleNotFoundError, match="kschedctl.cli.no_such_command"):
        app._register_commands()
