"""``--help`` of every command reads cleanly at 80 and 120 columns: arguments by their metavar
(``POD...``, ``[CONFIG]``), no Python types, and only the ``-o`` formats the command takes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kschedctl.cli.help import HELP_MAX_WIDTH
from tests.cli.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = str(ROOT / "fixtures" / "cluster")
POD = str(ROOT / "fixtures" / "pods" / "pod.yaml")
BIN_PACKING = str(ROOT / "profiles" / "bin-packing.yaml")
SPREADING = str(ROOT / "profiles" / "spreading.yaml")

#: A run of each command that reads only files (snapshot needs a live cluster: its help only).
RUNS = {
    "explain": ["--cluster", CLUSTER, POD],
    "simulate": ["--cluster", CLUSTER, POD, "--seed", "1"],
    "capacity": ["--cluster", CLUSTER, POD, "--max", "3"],
    "validate": [BIN_PACKING],
    "defaults": ["--explain-origin", BIN_PACKING],
    "snapshot": None,
    "plugins": [],
    "test": [str(ROOT / "profiles" / "scenarios" / "default.yaml")],
    "diff": ["--cluster", CLUSTER, "-c", BIN_PACKING, "-c", SPREADING, POD],
    "sweep": [str(ROOT / "profiles" / "sweeps" / "packing.yaml")],
}
#: What typer writes when left to itself: a Python type, a doubled bracket or ellipsis, braces.
BAD = ("<list[", "<str>", "<int>", "<path>", "...]...", "...}...", "{", "[[")


def _help(command: str, columns: int, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    result = run_cli(command, "--help")
    assert result.exit_code == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize("command", sorted(RUNS))
def test_help_has_no_type_names_or_doubled_brackets(monkeypatch: pytest.MonkeyPatch, command: str,
                                                     columns: int) -> None:
    text = _help(command, columns, monkeypatch)
    found = [bad for bad in BAD if bad in text]
    assert not found, f"{found} in:\n{text}"
    # Examples keep their lines (a command is copied as a whole); the rest is wrapped.
    prose = [line for line in text.splitlines() if "kschedctl " not in line and not line.strip().startswith("Example")]
    assert max(map(len, prose)) <= columns


@pytest.mark.parametrize("command,usage", [
    ("explain", "kschedctl explain [OPTIONS] [POD...]"),
    ("validate", "kschedctl validate [OPTIONS] CONFIG..."),
    ("defaults", "kschedctl defaults [OPTIONS] [CONFIG]"),
    ("sweep", "kschedctl sweep [OPTIONS] SWEEP.yaml"),
    ("diff", "kschedctl diff [OPTIONS] [PODS...]"),
])
def test_usage_line(monkeypatch: pytest.MonkeyPatch, command: str, usage: str) -> None:
    assert _help(command, 120, monkeypatch).splitlines()[0] == f"Usage: {usage}"


def test_help_follows_a_wide_terminal_up_to_a_maximum(monkeypatch: pytest.MonkeyPatch) -> None:
    assert max(map(len, _help("explain", 120, monkeypatch).splitlines())) > 80
    assert max(map(len, _help("explain", 300, monkeypatch).splitlines())) <= HELP_MAX_WIDTH


@pytest.mark.parametrize("command", sorted(c for c, run in RUNS.items() if run is not None))
def test_every_output_format_listed_is_accepted(monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    text = _help(command, 120, monkeypatch)
    listed = re.search(r"--output [<\[]([a-z|]+)[>\]]", text)  # click writes [a|b], newer typer <a|b>
    assert listed, text
    for fmt in listed.group(1).split("|"):
        result = run_cli(command, *RUNS[command], "-o", fmt)
        assert result.exit_code in (0, 1), (fmt, result.stderr)
