"""Every command's table fits 80, 100 and 120 columns without breaking a word or a number.

A cell narrower than one of its words is cut inside it (``defau`` / ``lt``, ``1589`` / ``0m``):
such a fragment is a token that the same table at its natural width does not have. So every
token of the narrow output must be a token of the wide one, or a short name that the output's
legend (``c1 = bin-packing[...]``) gives back in full.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.helpers import run_cli
from tests.scenarios.helpers import PODS, scenario, write

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = str(ROOT / "fixtures" / "cluster")
PENDING = str(ROOT / "fixtures" / "pending")
WEB = str(ROOT / "fixtures" / "pods" / "web-deployment.yaml")
POD = str(ROOT / "fixtures" / "pods" / "pod.yaml")
BIN_PACKING = str(ROOT / "profiles" / "bin-packing.yaml")
SPREADING = str(ROOT / "profiles" / "spreading.yaml")
SWEEP = str(ROOT / "profiles" / "sweeps" / "packing.yaml")
BAD_CONFIG = ("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
              "- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n"
              "        type: MostAllocated\n        resources:\n        - name: cpu\n          weight: 101\n"
              "  - name: NoSuchPlugin\n    args: {}\n")
FAILING = scenario("hello on a full node", pods=[str(PODS / "pod.yaml")],
                   expect=[{"node": "node-a1"}, {"outcome": "Scheduled"}])

COMMANDS = {
    "simulate": ["simulate", "--cluster", CLUSTER, WEB, "--seed", "1", "--wide"],
    "capacity": ["capacity", "--cluster", CLUSTER, POD, "--max", "40", "--seed", "1", "--wide"],
    "validate": ["validate", "{bad}"],
    "defaults": ["defaults", "--explain-origin", "-o", "table", str(ROOT / "profiles" / "two-profiles.yaml")],
    "plugins": ["plugins"],
    "test": ["test", "--allow-outside-paths", "{scenarios}"],
    "diff": ["diff", "--cluster", CLUSTER, "-c", BIN_PACKING, "-c", SPREADING, "--seed", "1", WEB, "--wide"],
    "diff --simulate": ["diff", "--simulate", "--cluster", CLUSTER, "-c", BIN_PACKING, "-c", SPREADING, "--seed", "1",
                        WEB, "--wide"],
    "sweep": ["sweep", SWEEP, "--no-timings"],
    "explain --pending": ["explain", "--pending", "-n", "shop", "--cluster", CLUSTER, "--cluster", PENDING],
}
WIDTHS = (80, 100, 120)
_LEGEND = re.compile(r"^\s*(\S+) = (.+)$")
_RULES = "─━═"
_TIMING = re.compile(r"\d[\d,.]*(?: pods/s|s\b)")
_BOX = re.compile("[\u2500-\u257f]")


def _args(name: str, tmp_path: Path) -> list[str]:
    bad = tmp_path / "bad.yaml"
    bad.write_text(BAD_CONFIG, encoding="utf-8")
    scenarios = tmp_path / "scenarios"
    scenarios.mkdir(exist_ok=True)
    write(scenarios / "failing.yaml", FAILING)
    return [a.format(bad=bad, scenarios=scenarios) for a in COMMANDS[name]]


def _tokens(text: str) -> set[str]:
    text = _TIMING.sub("T", text)  # durations and rates differ from run to run
    return set(_BOX.sub(" ", text).split())


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("inputs")


@pytest.fixture(scope="module")
def natural(inputs: Path) -> dict[str, str]:
    """Each command's output at a width every table fits."""
    tmp_path = inputs
    outputs = {}
    for name in COMMANDS:
        result = run_cli(*_args(name, tmp_path), "--width", "1000")
        assert result.exit_code in (0, 1), (name, result.stderr)
        outputs[name] = result.stdout
    return outputs


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_no_cell_breaks_inside_a_word(natural: dict[str, str], inputs: Path, name: str, width: int) -> None:
    result = run_cli(*_args(name, inputs), "--width", str(width))
    assert result.exit_code in (0, 1), result.stderr
    known = _tokens(natural[name])
    for line in result.stdout.splitlines():
        legend = _LEGEND.match(line)
        if legend and _tokens(legend.group(2)) <= known:
            known |= {legend.group(1), "="}  # a short name the legend spells out
    fragments = sorted(_tokens(result.stdout) - known)
    assert not fragments, f"{name} at {width} columns cut these words:\n{fragments}\n{result.stdout}"
    assert "…" not in result.stdout
    rules = [line for line in result.stdout.splitlines() if line.strip() and not line.strip(" " + _RULES)]
    assert max(map(len, rules), default=0) <= width


def test_sweep_shortens_long_config_names_with_a_legend() -> None:
    result = run_cli("sweep", SWEEP, "--no-timings", "--width", "120")
    assert "c1 = bin-packing[percentageOfNodesToScore=50]" in result.stdout
    wide = run_cli("sweep", SWEEP, "--no-timings", "--width", "1000")
    assert "c1" not in _tokens(wide.stdout) and "bin-packing[percentageOfNodesToScore=50]" in wide.stdout


def test_piped_output_follows_the_terminal_on_stderr() -> None:
    """``kschedctl sweep ... | less`` with COLUMNS not exported: the table fits the terminal."""
    pty = pytest.importorskip("pty")
    import fcntl
    import struct
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 90, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "FORCE_COLOR", "NO_COLOR")}
    env["PYTHONPATH"] = str(ROOT)
    try:
        done = subprocess.run([sys.executable, "-m", "kschedctl", "sweep", SWEEP, "--no-timings"], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=follower, stdin=subprocess.DEVNULL, timeout=120)
    finally:
        os.close(follower)
        os.close(leader)
    lines = done.stdout.decode().splitlines()
    assert done.returncode == 0
    assert max(map(len, lines)) <= 90, "\n".join(lines)


def test_rule_between_pods_is_no_wider_than_the_output(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    result = run_cli("explain", "--cluster", CLUSTER, POD, WEB)
    lines = result.stdout.splitlines()
    rules = [line for line in lines if line and not line.strip("─")]
    assert rules, result.stdout
    assert max(map(len, rules)) <= max(len(line) for line in lines if line not in rules)


@pytest.mark.parametrize("env,colour", [
    ({}, False),
    ({"FORCE_COLOR": "1"}, True),
    ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
])
def test_colour_in_a_pipe_follows_force_color_and_no_color(monkeypatch: pytest.MonkeyPatch, env: dict[str, str],
                                                           colour: bool) -> None:
    for name in ("FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    result = run_cli("simulate", "--cluster", CLUSTER, POD, "--seed", "1")
    assert result.exit_code == 0
    colours = re.findall(r"\x1b\[[0-9;]*3[0-7](?:;[0-9]+)*m|\x1b\[[0-9;]*38;", result.stdout)
    assert bool(colours) == colour, repr(result.stdout[:400])
