"""``--request-timeout`` as kubectl spells it, on every command that reads a live cluster."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.helpers import run_cli
from tests.live.server import FakeApiServer

POD = str(Path(__file__).resolve().parents[2] / "fixtures" / "pods" / "pod.yaml")


@pytest.mark.parametrize("value", ["5s", "2m", "30", "0"])
def test_accepted(server: FakeApiServer, kubeconfig: str, value: str) -> None:
    result = run_cli("explain", "--kubeconfig", kubeconfig, "--request-timeout", value, POD, "-o", "json")
    assert result.exit_code == 0, result.stderr


@pytest.mark.parametrize("command", ["explain", "simulate", "capacity", "snapshot"])
def test_refused(kubeconfig: str, command: str) -> None:
    args = [] if command == "snapshot" else [POD]
    result = run_cli(command, "--kubeconfig", kubeconfig, "--request-timeout", "soon", *args)
    assert result.exit_code == 2
    assert "--request-timeout soon: not a duration" in result.stderr
