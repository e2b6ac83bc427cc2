"""A/B of two profiles on the same pods and cluster: which pods move, and the plugin scores that moved them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kschedctl.config import load_config
from kschedctl.inputs.cluster import load_cluster
from kschedctl.inputs.workloads import load_pods
from kschedctl.analyses.diff import Side, diff_pods, diff_simulate

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = str(ROOT / "fixtures" / "cluster")
PODS = [str(ROOT / "fixtures" / "pods" / name) for name in ("pod.yaml", "too-big.yaml", "spread.yaml")]

#: Three profiles: the default one, one that differs by a weight (ImageLocality 1 -> 100), one
#: that differs by a disabled plugin (TaintToleration off at every extension point).
AB = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: base
- schedulerName: image-heavy
  plugins:
    multiPoint:
      enabled:
      - name: ImageLocality
        weight: 100
- schedulerName: no-taints
  plugins:
    multiPoint:
      disabled:
      - name: TaintToleration
"""


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    path = tmp_path_factory.mktemp("diff") / "ab.yaml"
    path.write_text(AB, encoding="utf-8")
    cluster = load_cluster([CLUSTER])
    return {"cfg": load_config(str(path)), "cluster": cluster, "items": load_pods(PODS, cluster)}


def _run(env: dict[str, Any], a: str, b: str) -> Any:
    return diff_pods(env["items"], env["cluster"], env["cfg"], env["cfg"], Side("A", None, a), Side("B", None, b))


def test_weight_change_moves_a_pod_by_image_locality(env: dict[str, Any]) -> None:
    result = _run(env, "base", "image-heavy")
    assert [(p.pod, p.a.node, p.b.node, p.moved) for p in result.pods] == [
        ("default/hello", "node-b2", "node-c1", True),
        ("default/too-big", None, None, False),
        ("default/report-extra", "node-c1", "node-c1", False)]
    hello = result.pods[0]
    sd = hello.score_diff
    assert (sd.from_node, sd.to_node) == ("node-b2", "node-c1")
    deciding = sd.deciding()
    assert [p.plugin for p in deciding] == ["ImageLocality"]
    il = deciding[0]
    assert (il.weight_a, il.weight_b) == (1, 100)
    assert (il.a_from, il.a_to, il.b_from, il.b_to) == (0, 1, 0, 100)
    assert (il.margin_a, il.margin_b, il.change) == (1, 100, 99)
    # Every other score plugin scores the two nodes the same way under both profiles.
    assert all(p.change == 0 for p in sd.plugins if p.plugin != "ImageLocality")
    assert sd.filter_notes == []
    assert hello.reason == "node-c1 gained over node-b2: ImageLocality +99"
    assert not result.identical


def test_disabled_plugin_opens_tainted_nodes(env: dict[str, Any]) -> None:
    result = _run(env, "base", "no-taints")
    hello = result.pods[0]
    assert (hello.a.node, hello.b.node) == ("node-b2", "gpu-b1")
    sd = hello.score_diff
    assert sd.filter_notes == [
        "gpu-b1 does not pass the filters under A: TaintToleration: node(s) had untolerated taint(s)"]
    tt = next(p for p in sd.plugins if p.plugin == "TaintToleration")
    # Under A it scored node-b2 (gpu-b1 was filtered out); under B it no longer runs.
    assert (tt.a_from, tt.a_to, tt.b_from, tt.b_to) == (300, None, None, None)
    assert sd.total_a["gpu-b1"] is None and sd.total_b["gpu-b1"] > sd.total_b["node-b2"]
    assert hello.reason.startswith("gpu-b1 does not pass the filters under A: TaintToleration")
    assert [p.pod for p in result.moved] == ["default/hello"]


def test_identical_profiles(env: dict[str, Any]) -> None:
    result = _run(env, "base", "base")
    assert result.identical
    assert all(p.score_diff is None and p.reason == "" for p in result.pods)
    data = result.to_dict()
    assert data["kind"] == "DiffResult" and data["identical"] is True
    assert data["summary"] == {"pods": 3, "moved": 0, "scheduledA": 2, "scheduledB": 2}


def test_json_of_a_moved_pod(env: dict[str, Any]) -> None:
    data = _run(env, "base", "image-heavy").to_dict()
    assert data["mode"] == "explain"
    assert data["a"] == {"label": "A", "config": None, "profile": "base"}
    hello = data["pods"][0]
    assert hello["a"] == {"outcome": "Scheduled", "node": "node-b2", "message": ""}
    first = hello["scoreDiff"]["plugins"][0]
    assert first == {"plugin": "ImageLocality", "weightA": 1, "weightB": 100, "a": {"from": 0, "to": 1},
                     "b": {"from": 0, "to": 100}, "marginA": 1, "marginB": 100, "change": 99}


def test_simulate_diff_spread_vs_pack() -> None:
    cluster = load_cluster([CLUSTER])
    from kschedctl.cluster.replicas import expand_replicas

    docs = load_pods([str(ROOT / "fixtures" / "pods" / "web-deployment.yaml")], cluster)
    batch: list[dict] = []
    for item in docs:
        pods, _ = expand_replicas(item, cluster.nodes)
        batch.extend(pods)
    cluster = cluster.with_objects([o for item in docs for o in item.owners])
    a = load_config(str(ROOT / "profiles" / "default.yaml"))
    b = load_config(str(ROOT / "profiles" / "bin-packing.yaml"))
    result = diff_simulate(batch, cluster, a, b, include_cluster_pending=False)
    assert result.mode == "simulate"
    assert [(p.a.node, p.b.node) for p in result.pods] == [("node-b2", "node-a1"), ("node-c1", "node-a1"),
                                                           ("node-a2", "node-a1")]
    assert result.first_divergence_index == 0 and result.first_divergence is result.pods[0]
    assert result.unschedulable_a == result.unschedulable_b == []
    assert (result.spread_a.nodes_used, result.spread_b.nodes_used) == (3, 1)
    assert result.spread_a.pods_per_zone == {"us-east-1a": 1, "us-east-1b": 1, "us-east-1c": 1}
    assert result.spread_b.pods_per_zone == {"us-east-1a": 3, "us-east-1b": 0, "us-east-1c": 0}
    assert (result.spread_a.zone_skew, result.spread_b.zone_skew) == (0, 3)
    node_a1 = next(n for n in result.nodes if n.name == "node-a1")
    assert (node_a1.a.placed, node_a1.b.placed, node_a1.zone) == (0, 3, "us-east-1a")
    assert node_a1.changed
    data = result.to_dict()
    assert data["firstDivergence"]["pod"] == result.pods[0].pod and data["firstDivergence"]["index"] == 0
    assert data["spread"]["b"]["maxPodsOnANode"] == 3

    same = diff_simulate(batch, cluster, a, a, include_cluster_pending=False)
    assert same.identical and same.first_divergence is None
