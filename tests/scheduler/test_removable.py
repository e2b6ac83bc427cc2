"""capacity --removable's search (kschedctl.analyses.removable): one case per cluster-autoscaler
rule from removable/cases.yaml, and the self-check over random clusters: every set the search
reports, drained through ``simulate --drain`` from scratch, keeps every pod scheduled."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from kschedctl.inputs.cluster import ClusterState
from kschedctl.analyses.removable import RemovableRules, removable_nodes, verify_removal

HERE = Path(__file__).parent / "removable"
CASES = yaml.safe_load((HERE / "cases.yaml").read_text(encoding="utf-8"))
#: Random clusters of the self-check: a few in CI; the documented run sets 200 or more.
RANDOM_CLUSTERS = int(os.environ.get("KSCHEDCTL_REMOVABLE_CLUSTERS", "25"))


def make_node(name: str, cpu: Any = 4, zone: str = "z1", annotations: dict | None = None) -> dict:
    meta: dict[str, Any] = {"name": name, "labels": {"kubernetes.io/hostname": name,
                                                     "topology.kubernetes.io/zone": zone}}
    if annotations:
        meta["annotations"] = dict(annotations)
    resources = {"cpu": str(cpu), "memory": "32Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node", "metadata": meta,
            "status": {"allocatable": resources, "capacity": dict(resources)}}


def make_pod(name: str, node: str, cpu: str = "1", owner: str | None = None, namespace: str = "default",
             labels: dict | None = None, annotations: dict | None = None, volumes: list | None = None,
             antiAffinity: str | None = None, spread: str | None = None, priority: int = 0) -> dict:
    """A running pod of ``owner`` (default: the ReplicaSet named after the pod's prefix);
    ``priority`` 100 is the PriorityClass ``high``."""
    app = name.rsplit("-", 1)[0]
    owner = owner or f"ReplicaSet/{app}"
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "labels": dict(labels or {"app": app})}
    if owner != "none":
        kind, owner_name = owner.split("/")
        meta["ownerReferences"] = [{"apiVersion": "apps/v1" if kind != "Custom" else "example.com/v1", "kind": kind,
                                    "name": owner_name, "uid": f"uid-{owner_name}", "controller": True}]
    if annotations:
        meta["annotations"] = dict(annotations)
    spec: dict[str, Any] = {"nodeName": node, "priority": priority, **({"priorityClassName": "high"} if priority else {}),
                            "containers": [
        {"name": "c", "image": "nginx", "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}]}
    if volumes:
        spec["volumes"] = volumes
    if antiAffinity:
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": antiAffinity}}, "topologyKey": "kubernetes.io/hostname"}]}}
    if spread:
        spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                              "whenUnsatisfiable": "DoNotSchedule",
                                              "labelSelector": {"matchLabels": {"app": spread}}}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": {"phase": "Running"}}


def replica_set(key: str, replicas: int) -> dict:
    namespace, _, name = key.rpartition("/")
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": name, "namespace": namespace or "default", "uid": f"uid-{name}"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}}}}


def pdb(key: str, app: str, **spec: Any) -> dict:
    namespace, _, name = key.rpartition("/")
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": name, "namespace": namespace or "default"},
            "spec": {**spec, "selector": {"matchLabels": {"app": app}}}}


def case_cluster(case: dict[str, Any]) -> ClusterState:
    objects = [make_node(name, **(spec or {})) for name, spec in case["nodes"].items()]
    objects += [make_pod(name, **spec) for name, spec in (case.get("pods") or {}).items()]
    objects += [replica_set(key, n) for key, n in (case.get("replicaSets") or {}).items()]
    objects += [pdb(key, **spec) for key, spec in (case.get("pdbs") or {}).items()]
    objects.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
                    "value": 100})
    return ClusterState().with_objects(objects)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_rule(case: dict[str, Any]) -> None:
    cluster = case_cluster(case)
    result = removable_nodes(cluster, rules=RemovableRules(**(case.get("rules") or {})), seed=1)
    assert result.removable == case["removable"]
    kept = {v.name: v.reason for v in result.nodes if not v.removed}
    assert kept == (case.get("kept") or {})
    for name, message in (case.get("message") or {}).items():
        assert next(v for v in result.nodes if v.name == name).message == message
    moves = {pod: node for v in result.nodes for pod, node in v.moves.items()}
    for pod, node in (case.get("moves") or {}).items():
        assert moves[pod] == node
    assert result.verified and not result.given_back
    data = result.to_dict()
    assert data["kind"] == "RemovableResult" and data["removable"] == case["removable"]


def test_candidates_follow_the_selector() -> None:
    cluster = case_cluster({"nodes": {"a": {"zone": "z1"}, "b": {"zone": "z2"}, "c": {"zone": "z2"}}})
    result = removable_nodes(cluster, candidates="topology.kubernetes.io/zone=z2")
    assert result.removable == ["b", "c"]
    assert result.zones == {"z1": {"nodes": 1, "candidates": 0, "removable": 0, "left": 1},
                            "z2": {"nodes": 2, "candidates": 2, "removable": 2, "left": 0}}


def test_a_zone_spread_keeps_one_node_per_zone() -> None:
    # maxSkew 1 over three zones with one pod each: any move makes a zone hold two, another none
    nodes = {"a": {"zone": "z1"}, "b": {"zone": "z2"}, "c": {"zone": "z3"}, "d": {"zone": "z1", "cpu": 16}}
    pods = {f"web-{i}": {"node": n, "labels": {"app": "web"}, "spread": "web"} for i, n in enumerate("abc")}
    pods["full-1"] = {"node": "d", "cpu": "9"}  # d is over the threshold: it stays, and takes a's pod
    cluster = case_cluster({"nodes": nodes, "pods": pods, "replicaSets": {"web": 3, "full": 1}})
    result = removable_nodes(cluster, seed=1)
    assert result.removable == ["a"]  # its pod goes to d, in the same zone
    verdicts = {v.name: v for v in result.nodes}
    assert verdicts["a"].moves == {"default/web-0": "d"}
    assert "didn't match pod topology spread constraints" in verdicts["b"].message


def test_a_failed_try_leaves_the_state_as_it_was() -> None:
    # b's pod does not fit anywhere: trying b must give back its pods, so that c's pod still fits on b
    nodes = {"a": {"cpu": 2}, "b": {"cpu": 2}, "c": {"cpu": 2}}
    pods = {"big-1": {"node": "b", "cpu": "900m"}, "big-2": {"node": "a", "cpu": "900m"},
            "small-1": {"node": "c", "cpu": "950m"}}
    cluster = case_cluster({"nodes": nodes, "pods": pods, "replicaSets": {"big": 2, "small": 1}})
    result = removable_nodes(cluster, seed=1)
    assert len(result.removable) == 1
    assert verify_removal(cluster, result.removable, seed=1)[0]


# -- the self-check over random clusters ------------------------------------------------------


def random_cluster(seed: int) -> ClusterState:
    """A small cluster of ReplicaSet apps (some with hostname anti-affinity, zone spread or a
    budget), DaemonSet pods, a few pods CA's rules block, on 3-9 nodes of mixed sizes."""
    rng = random.Random(seed)
    zones = [f"z{i}" for i in range(rng.randint(1, 3))]
    nodes = {f"n{i}": {"cpu": rng.choice([2, 4, 8]), "zone": rng.choice(zones)} for i in range(rng.randint(3, 9))}
    names = list(nodes)
    pods: dict[str, dict] = {}
    replica_sets: dict[str, int] = {}
    pdbs: dict[str, dict] = {}
    for a in range(rng.randint(1, 5)):
        app = f"app{a}"
        replicas = rng.randint(1, min(4, len(names)))
        style = rng.choice(["plain", "plain", "anti", "spread", "budget"])
        hosts = rng.sample(names, replicas) if style == "anti" else [rng.choice(names) for _ in range(replicas)]
        cpu = rng.choice(["100m", "250m", "500m", "900m", "1500m"])
        priority = rng.choice([0, 0, 100])
        for r, host in enumerate(hosts):
            spec: dict[str, Any] = {"node": host, "cpu": cpu, "labels": {"app": app}, "priority": priority}
            if style == "anti":
                spec["antiAffinity"] = app
            if style == "spread":
                spec["spread"] = app
            pods[f"{app}-{r}"] = spec
        replica_sets[app] = replicas
        if style == "budget":
            pdbs[app] = {"app": app, "maxUnavailable": rng.choice([0, 1])}
    for name in names:
        if rng.random() < 0.5:
            pods[f"agent-{name}"] = {"node": name, "cpu": "50m", "owner": "DaemonSet/agent"}
    if rng.random() < 0.3:
        pods["bare-0"] = {"node": rng.choice(names), "owner": "none", "cpu": "100m"}
    return case_cluster({"nodes": nodes, "pods": pods, "replicaSets": replica_sets, "pdbs": pdbs})


def _drained_in_turn(cluster: ClusterState, nodes: list[str], seed: int) -> tuple[bool, str]:
    """``kubectl drain N1``, then ``kubectl drain N2``, ... (each its own command: a node is
    cordoned only when its turn comes), each drain's replacements scheduled before the next, as
    the search tried them: whether every pod keeps a node off the drained ones."""
    from kschedctl.analyses.what_if import WhatIf
    from kschedctl.cluster.edits import Drain, NodeTarget

    state, drained = cluster, set()
    for name in nodes:
        state, report = WhatIf([Drain(NodeTarget(name))]).apply(state, None, seed=seed)
        drained.add(name)
        for record in report.records:
            if record.refused or record.blocked:
                return False, f"the drain of {name} stopped: {record.refused or record.blocked}"
            for pod, (node, why) in record.placements.items():
                if node is None or node in drained:
                    return False, f"draining {name}: {pod} {why or f'went to {node}'}"
    return True, ""


@pytest.mark.parametrize("seed", range(RANDOM_CLUSTERS))
def test_every_reported_set_passes_simulate_drain(seed: int) -> None:
    cluster = random_cluster(seed)
    # the search's own set, unchecked, drained node after node in the order the search removed
    # them in, each node cordoned when its turn comes (as the search tried it): every pod keeps a
    # node. Drained as one `simulate --drain N1 --drain N2` instead (every node cordoned first,
    # as kubectl drain of several nodes) it may not hold: a pod the search moved to a node it
    # removed later may find no room once that node is cordoned early; the command's self-check
    # below gives such nodes back.
    unchecked = removable_nodes(cluster, seed=1, verify=False).removable
    ok, why = _drained_in_turn(cluster, unchecked, seed=1)
    assert ok, f"cluster {seed}: {unchecked}: {why}"
    # the set the command reports (after its own check, all drains at once) holds both ways
    reported = removable_nodes(cluster, seed=1)
    assert set(reported.removable) <= set(unchecked)
    assert len(reported.given_back) == len(unchecked) - len(reported.removable)
    for one_by_one in (False, True):
        ok, why = verify_removal(cluster, reported.removable, seed=1, one_by_one=one_by_one)
        assert ok, f"cluster {seed}: {reported.removable} (one by one: {one_by_one}): {why}"


def test_placed_state_binds_what_the_run_placed() -> None:
    from kschedctl.analyses.removable import placed_state
    from kschedctl.scheduler.simulate import Simulator

    cluster = case_cluster({"nodes": {"a": {}, "b": {}}, "pods": {"web-1": {"node": "a"}}, "replicaSets": {"web": 1}})
    new = make_pod("new-1", "")
    del new["spec"]["nodeName"]
    huge = make_pod("huge-1", "", cpu="64")
    del huge["spec"]["nodeName"]
    result = Simulator(cluster, seed=1).run([new, huge], include_cluster_pending=False)
    after = placed_state(cluster, [new, huge], result)
    nodes = {f"{p['metadata']['namespace']}/{p['metadata']['name']}": p["spec"].get("nodeName") for p in after.pods}
    assert nodes["default/web-1"] == "a" and nodes["default/new-1"] in ("a", "b")
    assert "default/huge-1" not in nodes  # never placed: not part of the cluster after the run
    assert len(cluster.pods) == 1  # the state given is unchanged


def _replica(index: int, cpu: str = "1", claim: str | None = None) -> dict:
    """A StatefulSet replica's pending copy: its own PVC, hostname and per-replica labels."""
    from kschedctl.analyses.removable import _pending_copy

    claim = claim or f"data-db-{index}"
    pod = make_pod(f"db-{index}", "n1", cpu=cpu, owner="StatefulSet/db",
                   labels={"app": "db", "apps.kubernetes.io/pod-index": str(index),
                           "statefulset.kubernetes.io/pod-name": f"db-{index}"},
                   volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": claim}}])
    pod["spec"]["hostname"] = f"db-{index}"
    pod["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": f"db-{index}-gpu"}]
    return _pending_copy(pod)


@pytest.mark.parametrize("other, shared", [
    (lambda: _replica(7), True),                       # another replica: names and per-replica labels differ
    (lambda: _replica(7, cpu="2"), False),             # what NodeResourcesFit reads differs
    (lambda: {**_replica(7), "metadata": {**_replica(7)["metadata"],
                                          "labels": {"app": "other", "apps.kubernetes.io/pod-index": "7"}}}, False),
], ids=["another replica", "other requests", "another app's labels"])
def test_replicas_share_the_memo_key_of_node_local_answers(other: Any, shared: bool) -> None:
    """The search memoizes node-local answers under a key a StatefulSet's replicas share
    (without it each replica's scan asked every node's node-local filters again); what the
    node-local plugins read still tells pods apart."""
    from kschedctl.analyses.removable import _memo_signature

    assert (_memo_signature(_replica(3)) == _memo_signature(other())) is shared
