"""The node columns (kschedctl.scheduler.columns) give the per-node plugins' scores bit for bit:
random clusters, pods and scoring configurations, before and after pods are assumed and removed,
with huge amounts (left to the per-node code), zero and missing allocatable, extended resources;
and a batch run with the columns places every pod as the plain per-node run does."""

from __future__ import annotations

import copy
import random

import pytest

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.snapshot import Snapshot
from kschedctl.plugins.node_resources_balanced_allocation import NodeResourcesBalancedAllocation
from kschedctl.plugins.node_resources_fit import NodeResourcesFit
from kschedctl.scheduler.columns import SAFE_AMOUNT, NodeColumns, column_scores
from kschedctl.scheduler.setup import load_default_config
from kschedctl.scheduler.simulate import Simulator
from tests.framework.fakes import make_node, make_pod, pod_info
from tests.scheduler.test_simulate import cluster

GPU = "example.com/gpu"
HUGEPAGES = "hugepages-2Mi"

PLUGINS = [
    ("least, default", lambda: NodeResourcesFit()),
    ("most, cpu memory gpu", lambda: NodeResourcesFit({"scoringStrategy": {
        "type": "MostAllocated",
        "resources": [{"name": "cpu", "weight": 3}, {"name": "memory", "weight": 1}, {"name": GPU, "weight": 5}]}})),
    ("least, every kind", lambda: NodeResourcesFit({"scoringStrategy": {
        "type": "LeastAllocated",
        "resources": [{"name": "cpu", "weight": 1}, {"name": "ephemeral-storage", "weight": 2},
                      {"name": GPU, "weight": 4}, {"name": HUGEPAGES, "weight": 1}, {"name": "pods", "weight": 1}]}})),
    ("requested to capacity ratio", lambda: NodeResourcesFit({"scoringStrategy": {
        "type": "RequestedToCapacityRatio",
        "resources": [{"name": "cpu", "weight": 2}, {"name": "memory", "weight": 3}, {"name": GPU, "weight": 1}],
        "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 0}, {"utilization": 30, "score": 7},
                                               {"utilization": 100, "score": 3}]}}})),
    ("requested to capacity ratio, one point", lambda: NodeResourcesFit({"scoringStrategy": {
        "type": "RequestedToCapacityRatio",
        "requestedToCapacityRatio": {"shape": [{"utilization": 50, "score": 5}]}}})),
    ("balanced, default", lambda: NodeResourcesBalancedAllocation()),
    ("balanced, four resources", lambda: NodeResourcesBalancedAllocation({"resources": [
        {"name": "cpu"}, {"name": "memory"}, {"name": GPU}, {"name": "ephemeral-storage"}]})),
]


def _amount(rnd: random.Random, unit: int, huge: bool) -> str:
    if huge and rnd.random() < 0.3:
        return str(SAFE_AMOUNT + rnd.randrange(2**60))
    return str(rnd.choice([0, 1, 2, 3, 7, 16, 64, 100]) * unit + rnd.choice([0, 0, 1, 999]))


def random_node(rnd: random.Random, i: int, huge: bool) -> dict:
    node = make_node(f"n{i:03d}", cpu=f"{rnd.choice([0, 1, 3, 4, 16, 64])}", memory=_amount(rnd, 2**30, huge),
                     pods=str(rnd.choice([0, 1, 5, 110])))
    alloc = node["status"]["allocatable"]
    if rnd.random() < 0.6:
        alloc["ephemeral-storage"] = _amount(rnd, 2**30, huge)
    if rnd.random() < 0.5:
        alloc[GPU] = str(rnd.choice([0, 1, 2, 8]))
    if rnd.random() < 0.3:
        alloc[HUGEPAGES] = _amount(rnd, 2**21, False)
    return node


def random_pod(rnd: random.Random, name: str, node: str = "") -> dict:
    containers = []
    for c in range(rnd.choice([1, 1, 2, 3])):
        requests: dict[str, str] = {}
        if rnd.random() < 0.7:
            requests["cpu"] = rnd.choice(["0", "1m", "100m", "250m", "1", "3"])
        if rnd.random() < 0.7:
            requests["memory"] = rnd.choice(["0", "1", "200Mi", "1Gi", "3Gi"])
        if rnd.random() < 0.3:
            requests["ephemeral-storage"] = rnd.choice(["1Gi", "10Gi"])
        if rnd.random() < 0.3:
            requests[GPU] = requests_limit = rnd.choice(["1", "2"])
            containers.append({"name": f"c{c}", "resources": {"requests": requests,
                                                                "limits": {GPU: requests_limit}}})
            continue
        containers.append({"name": f"c{c}", "resources": {"requests": requests}})
    return make_pod(name, node=node, containers=containers)


def _compare(columns: NodeColumns, plugin, incoming: dict, nodes: list) -> bool:
    state = CycleState()
    pi = pod_info(incoming)
    status = plugin.pre_score(state, pi, nodes)
    if status is not None:
        return False  # skipped (a best-effort pod for BalancedAllocation): nothing to score
    want = []
    for node_info in nodes:
        value, status = plugin.score(state, pi, node_info)
        assert status is None
        want.append(value)
    assert columns.refresh()
    at = columns.positions(nodes)
    got = None if at is None else column_scores(columns, plugin, state, at)
    if got is None:
        return False
    assert got == want
    return True


@pytest.mark.parametrize("label, build", PLUGINS, ids=[p[0] for p in PLUGINS])
def test_columns_score_as_the_plugin_does_node_by_node(label: str, build) -> None:
    plugin = build()
    covered = 0
    for seed in range(40):
        rnd = random.Random(seed)
        huge = seed % 5 == 4
        nodes = [random_node(rnd, i, huge) for i in range(rnd.choice([1, 3, 20]))]
        names = [n["metadata"]["name"] for n in nodes]
        pods = [pod_info(random_pod(rnd, f"r{i}", rnd.choice(names))) for i in range(rnd.randrange(30))]
        snapshot = Snapshot(nodes, pods)
        columns = NodeColumns(snapshot)
        node_infos = snapshot.node_infos()
        for round_ in range(6):
            incoming = random_pod(rnd, f"p{seed}-{round_}")
            scored = rnd.sample(node_infos, rnd.randint(1, len(node_infos)))
            covered += _compare(columns, plugin, incoming, scored)
            # the next cycle sees this pod assumed somewhere, and sometimes one removed
            snapshot.assume_pod(pod_info(incoming), rnd.choice(names))
            if pods and rnd.random() < 0.3:
                victim = pods.pop(rnd.randrange(len(pods)))
                assert snapshot.forget_pod(victim, victim.node_name)
    assert covered > 100


def test_huge_amounts_are_left_to_the_per_node_code() -> None:
    nodes = [make_node("small"), make_node("huge", memory=str(SAFE_AMOUNT))]
    snapshot = Snapshot(nodes)
    columns = NodeColumns(snapshot)
    small, huge = snapshot.node_infos()
    assert columns.positions([small]) is not None
    assert columns.positions([small, huge]) is None
    plugin = NodeResourcesFit()
    state = CycleState()
    incoming = make_pod("p", containers=[{"name": "c", "resources": {"requests": {"memory": str(SAFE_AMOUNT)}}}])
    plugin.pre_score(state, pod_info(incoming), [small])
    assert column_scores(columns, plugin, state, columns.positions([small])) is None


def test_scratch_copies_are_not_in_the_columns() -> None:
    snapshot = Snapshot([make_node("a"), make_node("b")])
    columns = NodeColumns(snapshot)
    a, b = snapshot.node_infos()
    assert columns.positions([b, a]).tolist() == [1, 0]
    assert columns.positions([a.clone()]) is None


MOST_ALLOCATED_CONFIG = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [{"schedulerName": "default-scheduler", "pluginConfig": [{"name": "NodeResourcesFit", "args": {
        "scoringStrategy": {"type": "MostAllocated", "resources": [
            {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": GPU, "weight": 3}]}}}]}],
}


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("config_doc", [None, MOST_ALLOCATED_CONFIG], ids=["default", "most-allocated"])
def test_batch_with_columns_places_every_pod_as_the_plain_run(seed: int, config_doc, tmp_path) -> None:
    if config_doc is None:
        config = load_default_config()
    else:
        import yaml

        from kschedctl.config import load_config
        path = tmp_path / "config.yaml"
        path.write_text(yaml.safe_dump(config_doc))
        config = load_config(str(path))
    rnd = random.Random(seed)
    # identical nodes make ties, which the seeded tie-break must resolve alike
    nodes = [make_node(f"n{i:02d}", {"kubernetes.io/hostname": f"n{i:02d}"}, cpu="4", memory="16Gi")
             if i % 2 else random_node(rnd, i, False) for i in range(24)]
    for n in nodes:
        n["status"]["allocatable"]["pods"] = "110"
        n["status"]["allocatable"].setdefault(GPU, "4")
    names = [n["metadata"]["name"] for n in nodes]
    running_pods = [random_pod(rnd, f"r{i}", rnd.choice(names)) for i in range(20)]
    template = random_pod(rnd, "template")
    batch = [dict(copy.deepcopy(template), metadata={"name": f"rep-{i:03d}", "namespace": "default"})
             for i in range(60)] + [random_pod(rnd, f"p{i:03d}") for i in range(40)]
    results = []
    for memoize in (True, False):
        sim = Simulator(cluster(copy.deepcopy(nodes), copy.deepcopy(running_pods)), config, seed=seed,
                        memoize=memoize)
        results.append(sim.run(copy.deepcopy(batch)))
    a, b = (r.to_dict() for r in results)
    for d in (a, b):
        d["summary"].pop("seconds")
    assert a == b
    assert a["summary"]["scheduled"] > 0
