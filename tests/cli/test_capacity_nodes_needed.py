"""``kschedctl capacity WORKLOAD... --like NODE --nodes-needed`` end to end: the fewest nodes like
NODE that schedule every pod (full simulate runs: doubling, then bisecting), why one fewer leaves a
pod pending in the scheduler's words, shapes side by side, and ``--add-nodes`` against today."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kschedctl.inputs.cluster import load_cluster
from kschedctl.analyses.nodes_needed import nodes_needed
from tests.cli.helpers import run_cli
from tests.cli.test_simulate import CONFIG, deployment, node, pod, write

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def cluster(tmp_path: Path) -> str:
    # free cpu today: 2 on node-a, 3 on node-b; "small" nodes hold one 1-cpu pod, "big" ones four
    return write(tmp_path / "cluster.yaml", node("node-a"), node("node-b"), node("small", cpu="1500m"),
                 pod("x", "2", "node-a"), pod("y", "1", "node-b"), pod("z", "1", "small"))


# replicas of 1 cpu, --like, nodes needed, the simulate runs in the order made (nodes added)
CASES = [
    ("fits today", 5, "node-a", 0, [0]),
    ("one more", 6, "node-a", 1, [0, 1]),
    ("doubling stops at 2", 13, "node-a", 2, [0, 1, 2]),
    ("bisected between 2 and 4", 7, "node-b", 1, [0, 1]),
    ("small nodes: doubled to 4, bisected to 3", 8, "small", 3, [0, 1, 2, 4, 3]),
]


@pytest.mark.parametrize("name,replicas,like,needed,tries", [pytest.param(*c, id=c[0]) for c in CASES])
def test_the_fewest_nodes(tmp_path: Path, cluster: str, name: str, replicas: int, like: str, needed: int,
                          tries: list[int]) -> None:
    workload = write(tmp_path / "w.yaml", deployment("w", replicas))
    r = run_cli("capacity", workload, "--cluster", cluster, "--config", CONFIG, "--like", like, "--nodes-needed",
                "--seed", "1", "-o", "json")
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["kind"] == "NodesNeededResult" and data["pods"] == replicas and data["nodesToday"] == 3
    assert data["nodesNeeded"] == {like: needed}
    shape = data["shapes"][0]
    assert [t["nodes"] for t in shape["tries"]] == tries
    assert sum(shape["perNode"].values()) == replicas
    assert shape["newNodes"] == [f"{like}-new-{i}" for i in range(1, needed + 1)]
    if needed:
        fewer = shape["oneFewer"]
        assert fewer["nodes"] == needed - 1 and fewer["pending"] >= 1
        total = 3 + needed - 1
        assert fewer["message"].startswith(f"0/{total} nodes are available: ")
        assert "Insufficient cpu" in fewer["message"]
        assert fewer["pod"].startswith("default/w-")
    else:
        assert "oneFewer" not in shape


def test_shapes_side_by_side(tmp_path: Path, cluster: str) -> None:
    workload = write(tmp_path / "w.yaml", deployment("w", 13))
    args = ("capacity", workload, "--cluster", cluster, "--config", CONFIG, "--like", "node-a", "--like", "small",
            "--nodes-needed", "--seed", "1")
    r = run_cli(*args, "-o", "json")
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["nodesNeeded"] == {"node-a": 2, "small": 8}
    assert [t["nodes"] for t in data["shapes"][1]["tries"]] == [0, 1, 2, 4, 8, 6, 7]
    table = run_cli(*args).stdout
    assert "Pods per node with 2 added like node-a" in table and "Pods per node with 8 added like small" in table
    assert "like small, one fewer: with 7 added, 1 pod(s) stay pending" in " ".join(table.split())


def test_a_shape_that_never_helps(tmp_path: Path, cluster: str) -> None:
    big = write(tmp_path / "big.yaml", deployment("big", 1, cpu="3500m"))
    args = ("capacity", big, "--cluster", cluster, "--config", CONFIG, "--like", "small", "--like", "node-a",
            "--nodes-needed", "--seed", "1")
    r = run_cli(*args, "-o", "json")
    assert r.exit_code == 1, r.stderr  # no number of "small" nodes holds the 3.5-cpu pod
    data = json.loads(r.stdout)
    assert data["nodesNeeded"] == {"small": None, "node-a": 1}
    small = data["shapes"][0]
    assert small["hopeless"] and not small["limitReached"]
    assert [t["nodes"] for t in small["tries"]] == [0, 1]  # the added node stayed empty: no more tries
    assert small["oneFewer"]["pod"].startswith("default/big-")
    table = " ".join(run_cli(*args).stdout.split())
    assert "none helps" in table and "no number of nodes like small helps: with 1 added, small-new-1 stayed " \
                                      "empty while default/big-" in table


def test_the_search_stops_at_its_limit(tmp_path: Path, cluster: str) -> None:
    state = load_cluster([cluster])
    pods = [pod(f"p{i}", "1") for i in range(8)]
    result = nodes_needed(pods, state, ["small"], seed=1, limit=2)
    (answer,) = result.shapes
    assert answer.nodes_needed is None and answer.limit_reached and not answer.hopeless
    assert [t.nodes for t in answer.tries] == [0, 1, 2]
    assert not result.found


def test_every_try_uses_one_seed(tmp_path: Path, cluster: str) -> None:
    """No --seed: one is drawn and reported, and the same run gives the same answer with it."""
    workload = write(tmp_path / "w.yaml", deployment("w", 13))
    first = json.loads(run_cli("capacity", workload, "--cluster", cluster, "--config", CONFIG, "--like", "node-a",
                               "--nodes-needed", "-o", "json").stdout)
    again = json.loads(run_cli("capacity", workload, "--cluster", cluster, "--config", CONFIG, "--like", "node-a",
                               "--nodes-needed", "--seed", str(first["seed"]), "-o", "json").stdout)
    assert first == again


@pytest.mark.parametrize("args,message", [
    (("--nodes-needed",), "error: --nodes-needed needs --like NODE"),
    (("--nodes-needed", "--like", "node-a", "--add-nodes", "2"), "error: --nodes-needed finds the number of nodes"),
    (("--nodes-needed", "--like", "node-a", "--max", "2"), "error: --max counts copies"),
    (("--nodes-needed", "--like", "nope"), "error: --like nope: no node 'nope' in the cluster state"),
    (("--like", "node-a", "--like", "node-b", "--add-nodes", "1"), "error: --add-nodes takes one --like NODE"),
])
def test_misuse_is_bad_input(tmp_path: Path, cluster: str, args: tuple[str, ...], message: str) -> None:
    workload = write(tmp_path / "w.yaml", deployment("w", 2))
    r = run_cli("capacity", workload, "--cluster", cluster, "--config", CONFIG, *args)
    assert r.exit_code == 2 and r.stderr.startswith(message), r.stderr


def test_add_nodes_is_shown_against_today() -> None:
    args = ("capacity", str(ROOT / "fixtures/pods/pod.yaml"), "--cluster", str(ROOT / "fixtures/cluster"),
            "--add-nodes", "3", "--like", "node-a1")
    data = json.loads(run_cli(*args, "-o", "json").stdout)
    assert data["count"] == 286 and data["baseline"] == {"count": 169, "change": 117}
    assert "Copies that fit             286 (+117 over today's 169)" in run_cli(*args).stdout
    fewer = json.loads(run_cli("capacity", str(ROOT / "fixtures/pods/pod.yaml"), "--cluster",
                               str(ROOT / "fixtures/cluster"), "--without-node", "node-a1", "-o", "json").stdout)
    assert fewer["baseline"] == {"count": 169, "change": fewer["count"] - 169} and fewer["count"] < 169
    plain = json.loads(run_cli("capacity", str(ROOT / "fixtures/pods/pod.yaml"), "--cluster",
                               str(ROOT / "fixtures/cluster"), "-o", "json").stdout)
    assert "baseline" not in plain


def test_the_bundled_workers_need_two_nodes_like_node_a1() -> None:
    r = run_cli("capacity", str(ROOT / "fixtures/pods/workers-deployment.yaml"), "--cluster",
                str(ROOT / "fixtures/cluster"), "--like", "node-a1", "--nodes-needed", "--seed", "1", "-o", "json")
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["nodesNeeded"] == {"node-a1": 2}
    assert data["shapes"][0]["oneFewer"]["message"].startswith("0/9 nodes are available: 1 node(s) were "
                                                               "unschedulable, 2 node(s) had untolerated taint(s), "
                                                               "6 Insufficient cpu.")
