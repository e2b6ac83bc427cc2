"""The snapshot: upstream's node_tree_test.go tables (cases/node_tree.yaml), and what the
snapshot precomputes (pods on nodes, image summaries, affinity lists, assume/forget)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from kschedctl.framework.snapshot import NodeNotFound, NodeTree, Snapshot, zone_key
from tests.framework.fakes import make_node, make_pod, pod_info

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "node_tree.yaml").read_text(encoding="utf-8"))
LABELS = {
    "region": "failure-domain.beta.kubernetes.io/region",
    "zone": "failure-domain.beta.kubernetes.io/zone",
    "stableRegion": "topology.kubernetes.io/region",
    "stableZone": "topology.kubernetes.io/zone",
}


def node(spec: dict) -> dict:
    labels = {LABELS[k]: v for k, v in spec.items() if k in LABELS}
    meta: dict[str, Any] = {"name": spec["name"]}
    if labels:
        meta["labels"] = labels
    return {"metadata": meta}


ALL = [node(s) for s in CASES["allNodes"]]


def cases(section: str) -> list[Any]:
    return [pytest.param(c, id=f"NodeTree_{section}_{c['name']}") for c in CASES[section]]


def tree_of(expected: dict) -> dict:
    return {k.replace("|", ":\x00:"): v for k, v in expected.items()}


def verify(nt: NodeTree, expected: dict) -> None:
    expected = tree_of(expected)
    assert nt.num_nodes == sum(len(v) for v in expected.values())
    assert nt.tree == expected
    assert sorted(nt.zones) == sorted(expected)


@pytest.mark.parametrize("case", cases("AddNode"))
def test_add_node(case: dict) -> None:
    nt = NodeTree()
    for i in case["add"]:
        nt.add_node(ALL[i])
    verify(nt, case["expectedTree"])


@pytest.mark.parametrize("case", cases("RemoveNode"))
def test_remove_node(case: dict) -> None:
    nt = NodeTree(ALL[i] for i in case["existing"])
    for i in case["remove"]:
        if case.get("expectError"):
            with pytest.raises(KeyError):
                nt.remove_node(ALL[i])
        else:
            nt.remove_node(ALL[i])
    verify(nt, case["expectedTree"])


@pytest.mark.parametrize("case", cases("UpdateNode"))
def test_update_node(case: dict) -> None:
    nt = NodeTree(ALL[i] for i in case["existing"])
    new = node(case["update"])
    old = next((n for n in ALL if n["metadata"]["name"] == new["metadata"]["name"]), {"metadata": {"name": "nonexisting-node"}})
    nt.update_node(old, new)
    verify(nt, case["expectedTree"])


@pytest.mark.parametrize("case", cases("List"))
def test_list(case: dict) -> None:
    assert NodeTree(ALL[i] for i in case["add"]).list() == case["expectedOutput"]


@pytest.mark.parametrize("case", cases("MultiOperations"))
def test_multi_operations(case: dict) -> None:
    nt = NodeTree()
    adds, removes = iter(case["add"]), iter(case["remove"])
    for op in case["operations"]:
        if op == "add":
            nt.add_node(ALL[next(adds)])
        else:
            nt.remove_node(ALL[next(removes)])
    assert nt.list() == case["expectedOutput"]


def test_zone_key_prefers_beta_labels() -> None:
    assert zone_key(ALL[9]) == "region-2:\x00:zone-2"
    assert zone_key({"metadata": {"labels": {"topology.kubernetes.io/zone": "z"}}}) == ":\x00:z"
    assert zone_key({"metadata": {}}) == ""


# -- the snapshot ----------------------------------------------------------------------------


def zoned(name: str, zone: str) -> dict:
    return make_node(name, {"topology.kubernetes.io/zone": zone})


def test_snapshot_lists_nodes_zone_interleaved() -> None:
    nodes = [zoned("a1", "A"), zoned("a2", "A"), zoned("a3", "A"), zoned("b1", "B")]
    assert [n.name for n in Snapshot(nodes).node_infos()] == ["a1", "b1", "a2", "a3"]


def test_snapshot_places_bound_pods_and_skips_others() -> None:
    nodes = [make_node("n1"), make_node("n2")]
    pods = [
        make_pod("running", node="n1", containers=[{"name": "c", "resources": {"requests": {"cpu": "500m"}}}]),
        make_pod("pending"),
        make_pod("done", node="n1", containers=[{"name": "c", "resources": {"requests": {"cpu": "1"}}}]),
        make_pod("elsewhere", node="gone"),
    ]
    pods[2]["status"] = {"phase": "Succeeded"}
    snap = Snapshot(nodes, [pod_info(p) for p in pods])
    n1 = snap.get("n1")
    assert [p.name for p in n1.pods] == ["running"]
    assert n1.requested.milli_cpu == 500
    assert [p.name for p in snap.orphan_pods] == ["elsewhere"]
    assert len(snap) == 2 and snap.num_nodes() == 2
    with pytest.raises(NodeNotFound, match='nodeinfo not found for node name "nope"'):
        snap.get("nope")
    assert snap.get_or_none("nope") is None


def test_snapshot_image_summaries_count_nodes() -> None:
    n1, n2, n3 = make_node("n1"), make_node("n2"), make_node("n3")
    n1["status"]["images"] = [{"names": ["gcr.io/10:v1", "gcr.io/10@sha256:x"], "sizeBytes": 10 * 1024 * 1024}]
    n2["status"]["images"] = [{"names": ["gcr.io/10:v1"], "sizeBytes": 20 * 1024 * 1024}]
    snap = Snapshot([n1, n2, n3])
    states = snap.get("n1").image_states
    assert states["gcr.io/10:v1"].num_nodes == 2
    assert states["gcr.io/10:v1"].size == 10 * 1024 * 1024  # the size first reported wins
    assert states["gcr.io/10@sha256:x"].num_nodes == 1
    assert snap.get("n3").image_states == {}


def test_snapshot_affinity_lists_pvcs_and_assume_forget() -> None:
    affinity = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"a": "b"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    pods = [make_pod("anti", node="n1", affinity=affinity),
            make_pod("claim", node="n2", volumes=[{"name": "v", "persistentVolumeClaim": {"claimName": "data"}}])]
    snap = Snapshot([make_node("n1"), make_node("n2")], [pod_info(p) for p in pods])
    assert [n.name for n in snap.have_pods_with_affinity_list()] == ["n1"]
    assert [n.name for n in snap.have_pods_with_required_anti_affinity_list()] == ["n1"]
    assert snap.is_pvc_used_by_pods("default/data")
    new = pod_info(make_pod("new", affinity={"podAffinity": {}}))
    snap.assume(new, "n2")
    assert [n.name for n in snap.have_pods_with_affinity_list()] == ["n1", "n2"]
    assert snap.forget(new, "n2")
    assert [n.name for n in snap.have_pods_with_affinity_list()] == ["n1"]
    assert not snap.forget(new, "n2")
