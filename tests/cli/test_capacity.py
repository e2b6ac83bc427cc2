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


# --- several files: whole sets (--ratio) ----------------------------------------------------


def test_mix_json(tmp_path: Path, cluster: str) -> None:
    # free cpu 2 + 3 + 4 = 9; a set of 3 x web (1) + 1 x db (500m) is 3.5: 2 sets
    web, db = write(tmp_path / "web.yaml", pod("web", "1")), write(tmp_path / "db.yaml", pod("db", "500m"))
    r = run_cli("capacity", web, db, "--ratio", "3:1", "--cluster", cluster, "--config", CONFIG, "-o", "json")
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["kind"] == "CapacityResult" and data["count"] == 2 and sum(data["perNode"].values()) == 8
    mix = data["mix"]
    assert mix["ratio"] == {"default/web": 3, "default/db": 1} and mix["stopPod"] == "default/db"
    assert mix["order"] == ["default/web", "default/web", "default/db", "default/web"]
    assert [t["count"] for t in mix["templates"]] == [6, 2]
    assert data["stopReason"] == "0/3 nodes are available: 3 Insufficient cpu."


def test_mix_ratio_from_replicas_and_table(tmp_path: Path, cluster: str) -> None:
    # no --ratio: the Deployment's 2 replicas and the Pod's 1; a set is 2 x 1 + 1 x 1 = 3 CPU: 3 sets
    d = write(tmp_path / "d.yaml", deployment("api", 2, "1"))
    p = write(tmp_path / "p.yaml", pod("cache", "1"))
    r = run_cli("capacity", d, "-f", p, "--cluster", cluster, "--config", CONFIG)
    assert r.exit_code == 0, r.stderr
    assert "Sets that fit" in r.stdout and "2 x default/api-" in r.stdout and "1 x default/cache" in r.stdout
    assert "Pods of whole sets per node" in r.stdout
    data = json.loads(run_cli("capacity", d, p, "--cluster", cluster, "--config", CONFIG, "-o", "json").stdout)
    assert data["count"] == 3 and list(data["mix"]["ratio"].values()) == [2, 1]


def test_mix_no_set_fits_is_the_answer_no(tmp_path: Path, cluster: str) -> None:
    small, huge = write(tmp_path / "s.yaml", pod("s", "100m")), write(tmp_path / "h.yaml", pod("h", "64"))
    r = run_cli("capacity", small, huge, "--cluster", cluster, "--config", CONFIG, "-o", "yaml")
    assert r.exit_code == 1
    data = yaml.safe_load(r.stdout)
    assert data["count"] == 0 and data["mix"]["stopPod"] == "default/h"
    assert data["mix"]["incompleteSet"] == {"default/s": 1, "default/h": 0}


def test_mix_max_counts_sets(tmp_path: Path, cluster: str) -> None:
    a, b = write(tmp_path / "a.yaml", pod("a", "10m")), write(tmp_path / "b.yaml", pod("b", "10m"))
    r = run_cli("capacity", a, b, "--ratio", "2:1", "--max", "4", "--cluster", cluster, "--config", CONFIG,
                "-o", "json")
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["count"] == 4 and data["limitReached"] and sum(data["perNode"].values()) == 12


@pytest.mark.parametrize("args, message", [
    (["--ratio", "3:x"], "error: --ratio 3:x: 'x' is not a positive whole number"),
    (["--ratio", "3"], "error: --ratio 3: 1 part(s) for 2 pod files"),
    (["--ratio", "0:1"], "error: --ratio 0:1: '0' is not a positive whole number"),
    (["--ratio", "6000:5000"], "error: --ratio 6000:5000: a set of 11,000 pods is more than 10,000"),
])
def test_bad_ratio_is_one_line_exit_2(tmp_path: Path, cluster: str, args: list[str], message: str) -> None:
    a, b = write(tmp_path / "a.yaml", pod("a")), write(tmp_path / "b.yaml", pod("b"))
    r = run_cli("capacity", a, b, *args, "--cluster", cluster, "--config", CONFIG)
    assert r.exit_code == 2
    assert r.stderr.strip().splitlines() == [message] or r.stderr.strip().startswith(message), r.stderr
    assert "Traceback" not in r.stderr


def test_ratio_needs_several_files(tmp_path: Path, cluster: str) -> None:
    a = write(tmp_path / "a.yaml", pod("a"))
    r = run_cli("capacity", a, "--ratio", "1:1", "--cluster", cluster, "--config", CONFIG)
    assert r.exit_code == 2 and "--ratio needs two or more pod files" in r.stderr


def test_zero_replicas_cannot_set_the_ratio(tmp_path: Path, cluster: str) -> None:
    d = write(tmp_path / "d.yaml", deployment("api", 0, "1"))
    p = write(tmp_path / "p.yaml", pod("cache", "1"))
    r = run_cli("capacity", d, p, "--cluster", cluster, "--config", CONFIG)
    assert r.exit_code == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip() == f"error: {d}: a workload of 0 replicas cannot set the ratio of a set; give --ratio"


@pytest.mark.parametrize("tie_break", ["random", "first"])
def test_tie_break_leaves_a_per_node_count_alone(tmp_path: Path, cluster: str, tie_break: str) -> None:
    p = write(tmp_path / "web.yaml", pod("web", "1"))
    r = run_cli("capacity", p, "--cluster", cluster, "--config", CONFIG, "--tie-break", tie_break, "-o", "json")
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["perNode"] == {"node-a": 2, "node-b": 3, "node-c": 4} and data["method"] == "perNode"
