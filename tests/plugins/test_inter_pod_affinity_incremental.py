"""InterPodAffinity's sums kept across a simulate run give the run a fresh walk gives.

Seeded random clusters whose running pods carry required and preferred pod (anti-)affinity in
several namespaces (with namespace selectors), and batches of replicas with such terms, some of
high priority so that preemption removes victims: the run with the incremental sums
(the fast path ``FastPaths.incremental_affinity``) must equal, placement for placement and message for
message, the run that walks every pod in every PreFilter and PreScore.
"""

from __future__ import annotations

import copy
import random
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest

from kschedctl import fastpaths
from kschedctl.framework.types import NodeInfo, PodInfo
from kschedctl.plugins.inter_pod_affinity import filtering
from kschedctl.plugins.inter_pod_affinity import incremental as incremental_sums
from kschedctl.plugins.inter_pod_affinity.incremental import IncrementalSums
from kschedctl.scheduler.simulate import simulate

NAMESPACES = ("default", "shop", "batch")
APPS = ("web", "db", "cache", "queue", "api")
KEYS = ("kubernetes.io/hostname", "topology.kubernetes.io/zone", "rack")
CLASSES = {"high": {"metadata": {"name": "high"}, "value": 1000},
           "low": {"metadata": {"name": "low"}, "value": 10}}


def _term(rnd: random.Random) -> dict:
    term: dict[str, Any] = {"labelSelector": {"matchLabels": {"app": rnd.choice(APPS)}},
                            "topologyKey": rnd.choice(KEYS)}
    draw = rnd.random()
    if draw < 0.15:
        term["namespaceSelector"] = {"matchLabels": {"team": "x"}}
    elif draw < 0.25:
        term["namespaceSelector"] = {}
    elif draw < 0.35:
        term["namespaces"] = [rnd.choice(NAMESPACES)]
    return term


def _affinity(rnd: random.Random, odds: float) -> dict | None:
    affinity: dict[str, Any] = {}
    if rnd.random() < odds:
        affinity.setdefault("podAntiAffinity", {})["requiredDuringSchedulingIgnoredDuringExecution"] = [
            _term(rnd) for _ in range(rnd.randint(1, 2))]
    if rnd.random() < odds / 2:
        affinity.setdefault("podAffinity", {})["requiredDuringSchedulingIgnoredDuringExecution"] = [_term(rnd)]
    if rnd.random() < odds:
        affinity.setdefault("podAffinity", {})["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": rnd.randint(1, 100), "podAffinityTerm": _term(rnd)}]
    if rnd.random() < odds:
        affinity.setdefault("podAntiAffinity", {})["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": rnd.randint(1, 100), "podAffinityTerm": _term(rnd)}]
    return affinity or None


def _pod(name: str, namespace: str, app: str, cpu: str, affinity: dict | None, node: str = "",
         priority_class: str | None = None) -> dict:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "pause", "resources": {"requests": {"cpu": cpu}}}]}
    if node:
        spec["nodeName"] = node
    if affinity:
        spec["affinity"] = copy.deepcopy(affinity)
    if priority_class:
        spec["priorityClassName"] = priority_class
    else:
        spec["priority"] = 0
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{namespace}-{name}", "labels": {"app": app}},
            "spec": spec}


def _cluster(rnd: random.Random) -> tuple[SimpleNamespace, list[dict]]:
    nodes = []
    for i in range(24):
        labels = {"kubernetes.io/hostname": f"n{i:02d}", "rack": f"r{i % 5}"}
        if i % 7:
            labels["topology.kubernetes.io/zone"] = f"z{i % 3}"
        nodes.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i:02d}", "labels": labels},
                      "status": {"allocatable": {"cpu": "4", "memory": "32Gi", "pods": "110"},
                                 "capacity": {"cpu": "4", "memory": "32Gi", "pods": "110"}}})
    running = [_pod(f"run-{i:03d}", rnd.choice(NAMESPACES), rnd.choice(APPS), rnd.choice(["500m", "1", "1500m"]),
                    _affinity(rnd, 0.3), node=f"n{rnd.randrange(24):02d}") for i in range(80)]
    namespaces = {"shop": {"metadata": {"name": "shop", "labels": {"team": "x"}}},
                  "batch": {"metadata": {"name": "batch", "labels": {"team": "y"}}},
                  "default": {"metadata": {"name": "default"}}}
    # The batch: replicas of a few workloads (one signature each), some preempting.
    batch = []
    for w in range(6):
        namespace, app = rnd.choice(NAMESPACES), rnd.choice(APPS)
        affinity = _affinity(rnd, 0.6)
        cpu = rnd.choice(["250m", "1", "2"])
        priority_class = "high" if w % 3 == 0 else None
        batch += [_pod(f"w{w}-{r:02d}", namespace, app, cpu, affinity, priority_class=priority_class)
                  for r in range(14)]
    rnd.shuffle(batch)
    cluster = SimpleNamespace(nodes=nodes, pods=running, priority_classes=CLASSES, namespaces=namespaces, warnings=[],
                              namespace_labels=lambda ns: {"kubernetes.io/metadata.name": ns})
    return cluster, batch


def _run(seed: int) -> dict:
    cluster, batch = _cluster(random.Random(seed))
    result = simulate(batch, cluster, None, seed=seed).to_dict()
    result["summary"].pop("seconds", None)
    return result


@pytest.mark.parametrize("max_entries", [None, 2], ids=["default size", "two entries"])
@pytest.mark.parametrize("seed", [1, 2, 3, 5, 6, 7, 8])
def test_incremental_sums_give_the_same_run_as_fresh_walks(seed: int, max_entries: int | None,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    if max_entries is not None:  # signatures dropped and built again mid-run
        monkeypatch.setattr(incremental_sums, "MAX_ENTRIES", max_entries)
    kept = []
    entry = IncrementalSums._entry

    def counting(self: IncrementalSums, *args: Any) -> Any:
        found = entry(self, *args)
        kept.append(found is not None)
        return found

    monkeypatch.setattr(IncrementalSums, "_entry", counting)
    incremental = _run(seed)
    assert sum(kept) > 50  # the sums were used, not only built

    kept.clear()
    with fastpaths.using(replace(fastpaths.settings(), incremental_affinity=False)):
        fresh = _run(seed)
    assert not kept

    assert incremental == fresh
    summary = fresh["summary"]
    assert summary["scheduled"] > 0 and summary["unschedulable"] > 0
    assert fresh["preemptions"], "victims removed mid-run are part of what is checked"


def _counting_builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The kinds of sums built from now on, one entry per build."""
    builds: list[str] = []
    build = incremental_sums._Entry.build

    def counting(self: Any, *args: Any) -> None:
        builds.append(type(self).__name__)
        build(self, *args)

    monkeypatch.setattr(incremental_sums._Entry, "build", counting)
    return builds


def _twelve_node_cluster(running: list[dict]) -> SimpleNamespace:
    """Twelve roomy nodes in three zones, with ``running`` on them."""
    nodes = [{"apiVersion": "v1", "kind": "Node",
              "metadata": {"name": f"n{i}", "labels": {"kubernetes.io/hostname": f"n{i}",
                                                      "topology.kubernetes.io/zone": f"z{i % 3}"}},
              "status": {"allocatable": {"cpu": "64", "memory": "256Gi", "pods": "200"}}} for i in range(12)]
    return SimpleNamespace(nodes=nodes, pods=running, priority_classes=CLASSES,
                           namespaces={"default": {"metadata": {"name": "default"}}}, warnings=[],
                           namespace_labels=lambda ns: {"kubernetes.io/metadata.name": ns})


def _assert_as_without_sums(result: dict, batch: list[dict], cluster: SimpleNamespace) -> None:
    """``result`` is the run the fresh walks give (the sums off), timing aside."""
    with fastpaths.using(replace(fastpaths.settings(), incremental_affinity=False)):
        fresh = simulate(batch, cluster, None, seed=1).to_dict()
    result["summary"].pop("seconds", None)
    fresh["summary"].pop("seconds", None)
    assert result == fresh


def test_sums_of_many_signatures_taken_in_turn_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """Twenty kinds of pods scheduled in turn (as a scale-down search moves every app's pods):
    each signature's sums are built once and brought up to date afterwards, not walked afresh
    every time its turn comes back."""
    builds = _counting_builds(monkeypatch)
    rnd = random.Random(4)
    running = [_pod(f"r{i}", "default", f"app{i % 20}", "100m", _affinity(rnd, 0.5), node=f"n{i % 12}")
               for i in range(60)]
    batch = [_pod(f"b{r}-{a}", "default", f"app{a}", "100m",
                  {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
                      "weight": 10, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": f"app{a}"}},
                                                        "topologyKey": "kubernetes.io/hostname"}}]}})
             for r in range(4) for a in range(20)]
    cluster = _twelve_node_cluster(running)
    result = simulate(batch, cluster, None, seed=1).to_dict()
    assert result["summary"]["scheduled"] == len(batch)
    # each signature's sums (existing pods' anti-affinity, PreScore's map) built once, on its
    # second pod; with room for too few, every pod would walk the pods afresh (and none be built)
    assert builds.count("_ScoresEntry") == 20 and builds.count("_CountsEntry") == 20
    _assert_as_without_sums(result, batch, cluster)


@pytest.mark.parametrize("slot_read", [False, True], ids=["no term reads it", "a term reads it"])
def test_replicas_differing_by_a_label_no_term_reads_share_the_sums(slot_read: bool,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A StatefulSet's replicas differ by per-replica labels. The sums key the incoming pod by
    the labels some affinity term reads: while none reads the per-replica one, the replicas of
    each workload share their sums (built once per workload); once a running pod's term reads
    it, each replica is a pod of its own (walked afresh, nothing built). Either way the run is
    the fresh walks' run."""
    slot = "example.com/replica-slot-read" if slot_read else "example.com/replica-slot-unread"
    builds = _counting_builds(monkeypatch)
    rnd = random.Random(9)
    running = [_pod(f"r{i}", "default", f"app{i % 3}", "100m", _affinity(rnd, 0.5), node=f"n{i % 12}")
               for i in range(36)]
    if slot_read:  # a running pod whose preferred term reads the per-replica label
        running.append(_pod("reader", "default", "app0", "100m", {"podAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 50, "podAffinityTerm": {
                "labelSelector": {"matchExpressions": [{"key": slot, "operator": "In", "values": ["2", "5"]}]},
                "topologyKey": "topology.kubernetes.io/zone"}}]}}, node="n4"))
    batch = []
    for r in range(8):
        for a in range(3):
            pod = _pod(f"s{a}-{r}", "default", f"app{a}", "100m",
                       {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
                           "weight": 10, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": f"app{a}"}},
                                                             "topologyKey": "kubernetes.io/hostname"}}]}})
            pod["metadata"]["labels"][slot] = str(r)
            batch.append(pod)
    cluster = _twelve_node_cluster(running)
    result = simulate(batch, cluster, None, seed=1).to_dict()
    assert result["summary"]["scheduled"] == len(batch)
    assert builds.count("_ScoresEntry") == (0 if slot_read else 3)
    _assert_as_without_sums(result, batch, cluster)


def _anti_pod(name: str, node: str) -> PodInfo:
    pod = _pod(name, "default", "web", "100m", {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}, node=node)
    return PodInfo(pod)


def test_counts_handed_to_a_cycle_are_its_own() -> None:
    """What one cycle was handed does not move when the sums move on, and what a cycle does to
    its counts (AddPod/RemovePod) does not reach the sums."""
    nodes = [NodeInfo({"metadata": {"name": f"n{i}", "labels": {"kubernetes.io/hostname": f"n{i}"}}})
             for i in range(3)]
    nodes[0].add_pod(_anti_pod("a", "n0"))
    incoming = _anti_pod("incoming", "")
    sums = IncrementalSums()

    def with_anti() -> list[NodeInfo]:
        return [n for n in nodes if n.pods_with_required_anti_affinity]

    def fresh() -> dict:
        return filtering.existing_anti_affinity_counts(incoming, {}, with_anti()).counts

    assert sums.existing_anti_affinity_counts(incoming, {}, nodes, with_anti) is None  # a signature's first pod
    first = sums.existing_anti_affinity_counts(incoming, {}, nodes, with_anti)
    assert first.counts == fresh() == {("kubernetes.io/hostname", "n0"): 1}
    assert first.pods_of(("kubernetes.io/hostname", "n0")) == ["default/a"]

    nodes[1].add_pod(_anti_pod("b", "n1"))
    victim = nodes[0].pods[0]
    nodes[0].remove_pod(victim)
    second = sums.existing_anti_affinity_counts(incoming, {}, nodes, with_anti)
    assert second.counts == fresh() == {("kubernetes.io/hostname", "n1"): 1}
    assert first.counts == {("kubernetes.io/hostname", "n0"): 1}
    assert first.pods_of(("kubernetes.io/hostname", "n0")) == ["default/a"]

    second.update({"kubernetes.io/hostname": "n2"}, "kubernetes.io/hostname", 1, "default/nominated")
    assert sums.existing_anti_affinity_counts(incoming, {}, nodes, with_anti).counts == fresh()


def _status(status: Any) -> Any:
    return status and (status.code, status.reasons, status.details)


def test_filter_node_answers_as_the_three_checks_in_turn() -> None:
    """Filter's shortcut (the node's values of the counted topology keys first) gives the status of
    check_pod_affinity, then check_pod_anti_affinity, then check_existing_anti_affinity."""
    rnd = random.Random(3)
    values = ("a", "b", "")

    def counts() -> filtering.TopologyCounts:
        pairs = {(rnd.choice(KEYS), rnd.choice(values)): rnd.choice([1, 2, -1]) for _ in range(rnd.randint(0, 4))}
        witnesses = {pair: {f"default/p{n}": 1} for n, pair in enumerate(pairs)}
        return filtering.TopologyCounts(pairs, witnesses)

    def terms() -> list:
        pod = _pod("t", "default", "web", "1", {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            _term(rnd) for _ in range(rnd.randint(0, 2))]}})
        return [filtering.merge_term_namespaces(t, {}) for t in PodInfo(pod).required_anti_affinity_terms]

    checked = rejected = 0
    for _ in range(400):
        incoming = PodInfo(_pod("in", "default", rnd.choice(APPS), "1", None))
        state = filtering.PreFilterState(incoming, terms(), terms(), {}, counts(), counts(), counts())
        for _ in range(5):
            labels = {k: rnd.choice(values) for k in KEYS if rnd.random() < 0.8}
            want = (filtering.check_pod_affinity(state, labels) or filtering.check_pod_anti_affinity(state, labels)
                    or filtering.check_existing_anti_affinity(state, labels))
            got = filtering.filter_node(state, labels)
            assert _status(got) == _status(want)
            checked += 1
            rejected += want is not None
    assert 0 < rejected < checked


def test_sums_agree_with_fresh_walks_on_random_clusters_changed_between_cycles() -> None:
    """``benchmarks.equivalence --fuzz``: pods added and removed, nodes relabelled, joining and
    leaving, counts handed out then changed, against fresh walks, PreScore's included."""
    from benchmarks.equivalence import fuzz_caches

    assert fuzz_caches(60, seed=11) == 0
