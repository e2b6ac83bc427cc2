"""The options explain, simulate, capacity and diff share are declared once (kschedctl.cli.inputs)
and reach each command with the same flags, help and defaults."""

from __future__ import annotations

import importlib

import pytest
import typer.main

from kschedctl.cli.app import app
from kschedctl.cli.inputs import SHARED_OPTIONS, WHAT_IF_OPTIONS

#: Options a command declares its own way (diff compares two configurations, with seed 0).
OWN = {"capacity": {"report", "like"}, "diff": {"config", "profile", "seed", "no_extenders"},
       "simulate": {"output"}}


def _params(command: str) -> dict[str, object]:
    importlib.import_module(f"kschedctl.cli.{command}")
    importlib.import_module("kschedctl.cli.explain")
    click_app = typer.main.get_command(app)
    return {p.name: p for p in click_app.commands[command].params}  # type: ignore[attr-defined]


@pytest.mark.parametrize("command", ["explain", "simulate", "capacity", "diff"])
def test_the_shared_options_are_the_same_everywhere(command: str) -> None:
    params, reference = _params(command), _params("explain")
    for name in [*SHARED_OPTIONS, *WHAT_IF_OPTIONS]:
        if name in OWN.get(command, ()):
            continue
        if command == "capacity" and name == "output":
            continue  # capacity has no -o name, as simulate and diff
        mine, theirs = params[name], reference[name]
        assert (mine.opts, mine.help, mine.default, mine.metavar) == (  # type: ignore[attr-defined]
            theirs.opts, theirs.help, theirs.default, theirs.metavar), name  # type: ignore[attr-defined]


def test_capacity_has_a_report_and_diff_takes_two_configurations() -> None:
    assert _params("capacity")["report"].opts == ["--report"]  # type: ignore[attr-defined]
    assert _params("diff")["config"].multiple  # type: ignore[attr-defined]
    assert _params("diff")["seed"].default == 0  # type: ignore[attr-defined]
