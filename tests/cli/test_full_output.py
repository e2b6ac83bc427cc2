"""Table output is complete wherever it goes: piped (no terminal) with COLUMNS unset or 80, every
figure of the same run's ``-o json`` is in the table, and no line ends in spaces."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.cli.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = str(ROOT / "fixtures" / "cluster")
WEB = str(ROOT / "fixtures" / "pods" / "web-deployment.yaml")
POD = str(ROOT / "fixtures" / "pods" / "pod.yaml")
BIN_PACKING = str(ROOT / "profiles" / "bin-packing.yaml")
SPREADING = str(ROOT / "profiles" / "spreading.yaml")


def _figures(data: Any, keys: set[str], under: str | None = None) -> Iterator[int]:
    """Every integer in ``data`` held by one of ``keys`` (or any integer under a key in ``keys``)."""
    if isinstance(data, dict):
        for k, v in data.items():
            if k in keys and isinstance(v, int) and not isinstance(v, bool):
                yield v
            elif isinstance(v, dict) and k in keys:
                yield from (x for x in v.values() if isinstance(x, int) and not isinstance(x, bool))
            else:
                yield from _figures(v, keys)
    elif isinstance(data, list):
        for item in data:
            yield from _figures(item, keys)


CASES = {
    "explain": (["explain", "--cluster", CLUSTER, WEB, "--wide"],
                {"raw", "normalized", "weight", "weighted", "totalScore"}),
    "simulate": (["simulate", "--cluster", CLUSTER, WEB, "--wide", "--seed", "1"], set()),
    "capacity": (["capacity", "--cluster", CLUSTER, POD, "--max", "40", "--wide", "--seed", "1"], {"count", "perNode"}),
    "diff": (["diff", "--cluster", CLUSTER, "-c", BIN_PACKING, "-c", SPREADING, "--seed", "1", WEB, "--wide"],
             {"raw", "normalized", "weight", "weighted", "totalScore", "total", "delta"}),
    "plugins": (["plugins"], {"weight", "defaultWeight"}),
}


@pytest.mark.parametrize("columns", [None, "80"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_piped_tables_hold_every_figure(monkeypatch: pytest.MonkeyPatch, case: str, columns: str | None) -> None:
    args, keys = CASES[case]
    machine = run_cli(*args, "-o", "json")
    assert machine.exit_code in (0, 1), machine.stderr
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    table = run_cli(*args)
    assert table.exit_code == machine.exit_code
    shown = set(int(n) for n in re.findall(r"(?<![\d.])-?\d+(?![\d.])", table.stdout))
    wanted = set(_figures(json.loads(machine.stdout), keys))
    assert wanted <= shown, sorted(wanted - shown)
    assert "…" not in table.stdout
    assert all(line == line.rstrip() for line in table.stdout.splitlines())
    if columns is not None:
        # Tables fit: cells wrap rather than run past the width. (Free text lines are left long
        # on purpose: a pager or terminal wraps them, nothing is cut.)
        rows = [line for line in table.stdout.splitlines() if any(c in line for c in "│┃─━")]
        assert max(map(len, rows), default=0) <= int(columns)


def test_width_option(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    wide = run_cli("explain", "--cluster", CLUSTER, WEB, "--width", "200")
    narrow = run_cli("explain", "--cluster", CLUSTER, WEB, "--width", "60")
    assert max(map(len, narrow.stdout.splitlines())) <= 60 < max(map(len, wide.stdout.splitlines()))


@pytest.mark.parametrize("command", ["", "explain", "validate", "defaults", "simulate", "capacity", "diff",
                                     "plugins", "snapshot", "test"])
def test_help_is_plain_text(command: str) -> None:
    result = run_cli(*([command] if command else []), "--help")
    assert result.exit_code == 0
    text = result.stdout
    assert "``" not in text and "<bool>" not in text and "…" not in text
    if not command:
        assert "..." not in text.split("Commands:")[-1]
    assert "--wide true" not in text


def test_quantities_for_people_and_exact_in_json() -> None:
    too_big = str(ROOT / "fixtures" / "pods" / "too-big.yaml")
    table = run_cli("explain", "--cluster", CLUSTER, too_big).stdout
    assert "497Gi more memory" in table and "509222Mi" not in table
    assert "displayOnly" not in table
    data = json.loads(run_cli("explain", "--cluster", CLUSTER, too_big, "-o", "json").stdout)
    missing = [h for h in data["hints"] if h["node"] == "node-b2"]
    assert missing  # the ranked hints carry the text; the exact amounts stay in the nodes' hint details
    simulate = run_cli("simulate", "--cluster", CLUSTER, WEB, "--seed", "1").stdout
    assert "26.3Gi/91.6Gi" in simulate
    sim_json = json.loads(run_cli("simulate", "--cluster", CLUSTER, WEB, "--seed", "1", "-o", "json").stdout)
    assert any(n["allocatable"]["memory"].endswith("Mi") for n in sim_json["nodes"])


@pytest.mark.parametrize("role,text,line", [
    ("pod", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: q\nspec:\n  containers:\n  - name: c\n    image: i\n"
            "    resources:\n      requests:\n        cpu: abc\n", 11),
    ("pod", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  selector: {matchLabels: {a: b}}\n"
            "  template:\n    metadata: {labels: {a: b}}\n    spec:\n      containers:\n      - name: c\n"
            "        resources: {requests: {memory: lots}}\n", 11),
    ("cluster", "apiVersion: v1\nkind: Node\nmetadata:\n  name: n\nstatus:\n  allocatable:\n    cpu: 4\n"
                "    memory: lots\n", 8),
])
def test_bad_quantity_is_reported_at_its_own_line(tmp_path: Path, role: str, text: str, line: int) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    args = ["--cluster", CLUSTER, str(path)] if role == "pod" else ["--cluster", str(path), POD]
    result = run_cli("explain", *args)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {path}:{line}: ")
