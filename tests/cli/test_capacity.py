"""`kschedctl capacity` end to end through the CLI: the count is the answer (exit 0), JSON shape,
--max, workloads, bad input (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.cli.helpers import run_cli
from tests.cli.test_simulate import CONFIG, deployment, node, pod, write


@pytest.fixture
def cluster(tmp_path: Path) -> str:
    return write(tmp_path / "cluster.yaml", node("node-a"), node("node-b"), node("node-c"),
                 pod("x", "2", "node-a"), pod("y", "1", "node-b"))


def test_count_json(tmp_path: Path, cluster: str) -> None:
    p = write(tmp_path / "web.yaml", pod("web", "1"))
    r = run_cli("capacity", p, "--cluster", cluster, "--config", CONFIG, "-o", "json")
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["kind"] == "CapacityResult" and data["pod"] == "default/web"
    assert data["count"] == 9 and data["perNode"] == {"node-a": 2, "node-b": 3, "node-c": 4}
    assert data["stopReason"] == "0/3 nodes are available: 3 Insufficient cpu."


def test_nothing_fits_is_the_answer_no(tmp_path: Path, cluster: str) -> None:
    p = write(tmp_path / "huge.yaml", pod("huge", "64"))
    r = run_cli("capacity", p, "--cluster", cluster, "--config", CONFIG, "-o", "yaml")
    assert r.exit_code == 1
    assert yaml.safe_load(r.stdout)["count"] == 0


def test_max_and_table(tmp_path: Path, cluster: str) -> None:
    p = write(tmp_path / "small.yaml", pod("small", "10m"))
    r = run_cli("capacity", p, "--cluster", cluster, "--config", CONFIG, "--max", "7")
    assert r.exit_code == 0, r.stderr
    assert "Copies that fit" in r.stdout and "7" in r.stdout and "--max 7" in r.stdout


def test_workload_template(tmp_path: Path, cluster: str) -> None:
    p = write(tmp_path / "d.yaml", deployment("web", 5, "2"))
    r = run_cli("capacity", p, "--cluster", cluster, "--config", CONFIG, "-o", "json")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["count"] == 1 + 1 + 2


def test_bad_input(tmp_path: Path, cluster: str) -> None:
    r = run_cli("capacity", str(tmp_path / "nope.yaml"), "--cluster", cluster)
    assert r.exit_code == 2 and "Traceback" not in r.stderr
    two = write(tmp_path / "two.yaml", pod("a"), pod("b"))
    r = run_cli("capacity", two, "--cluster", cluster, "--config", CONFIG)
    assert r.exit_code == 2 and "one pod" in r.stderr
    r = run_cli("capacity", "pod.yaml")
    assert r.exit_code == 2
