"""``diff --simulate`` and trace diffs name the plugins that decided each moved pod, as pod mode
does; a move that is the random tie-break's is called a tie; diff on a workload points to --simulate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import run_cli
from tests.cli.test_simulate import node, pod, write

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
AB = ("-c", str(ROOT / "profiles/bin-packing.yaml"), "-c", str(ROOT / "profiles/spreading.yaml"))


def test_a_batch_diff_names_the_deciding_plugins() -> None:
    r = run_cli("diff", *AB, "--cluster", str(FIXTURES / "cluster"), str(FIXTURES / "pods/web-deployment.yaml"),
                "--simulate", "--seed", "1", "-o", "json")
    assert r.exit_code == 1, r.stderr
    moved = [p for p in json.loads(r.stdout)["pods"] if p["moved"]]
    assert len(moved) == 3
    for p in moved:
        sd = p["scoreDiff"]
        assert sd is not None and sd["from"] == p["a"]["node"] and sd["to"] == p["b"]["node"]
        deciding = [c["plugin"] for c in sd["plugins"] if (c["change"] or 0) > 0]
        assert deciding and p["reason"].startswith(f"{sd['to']} gained over {sd['from']}: {deciding[0]} +")
    assert [p["reason"].split(": ", 1)[1].split(" (")[0] for p in moved] == [
        "NodeResourcesFit +24", "PodTopologySpread +250, NodeResourcesFit +10",
        "PodTopologySpread +250, NodeResourcesFit +14"]


def test_a_trace_diff_names_the_deciding_plugins_or_the_filter() -> None:
    r = run_cli("diff", *AB, str(FIXTURES / "traces/small.jsonl"), "-o", "json")
    assert r.exit_code == 1, r.stderr
    reasons = {p["pod"]: p["reason"] for p in json.loads(r.stdout)["pods"] if p["moved"]}
    assert reasons["default/batch-0"] == "node-2 gained over node-1: NodeResourcesFit +100"
    assert reasons["default/big-1"].startswith("node-1 was not feasible under A when the pod was placed: node-2 "
                                               "was the only feasible node")


NO_SCORES = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      disabled: [{name: "*"}]
      enabled: [{name: ImageLocality}]   # no node has the image: every node scores 0
"""


@pytest.mark.parametrize("mode", [(), ("--simulate",)], ids=["pod mode", "batch mode"])
def test_a_move_made_by_the_tie_break_is_called_a_tie(tmp_path: Path, mode: tuple[str, ...]) -> None:
    """B scores every node the same, so they all tie under B: whatever B picks over A's node is a tie-break."""
    cluster = write(tmp_path / "cluster.yaml", node("n1"), node("n2"), node("n3"), pod("busy", "3", "n1"),
                    pod("half", "2", "n2"))
    b = tmp_path / "b.yaml"
    b.write_text(NO_SCORES, encoding="utf-8")
    p = write(tmp_path / "p.yaml", pod("p", "100m"))
    for seed in range(20):
        r = run_cli("diff", "-c", str(ROOT / "profiles/default.yaml"), "-c", str(b), "--cluster", cluster, p,
                    "--seed", str(seed), *mode, "-o", "json")
        (d,) = [x for x in json.loads(r.stdout)["pods"] if x["pod"] == "default/p"]
        if d["moved"]:
            break
    else:
        pytest.fail("no seed moved the pod")
    assert d["a"]["node"] == "n3"
    assert d["reason"] == (f"a tie under B: n3 and {d['b']['node']} score the same at the top, the random "
                           f"tie-break picked {d['b']['node']}")
    assert d["scoreDiff"]["tie"] == d["reason"]


def test_diff_on_a_workload_points_to_simulate() -> None:
    r = run_cli("diff", *AB, "--cluster", str(FIXTURES / "cluster"), str(FIXTURES / "pods/web-deployment.yaml"))
    assert ("warning: Deployment web has 3 replicas: diff shows its first pod, which stands for all of them; add "
            "--simulate to compare every replica, each seeing the ones before it, under both sides") in r.stderr
