"""The node columns (kschedctl.scheduler.columns) give the per-node plugins' scores bit for bit:
random clusters, pods and scoring configurations, before and after pods are assumed and removed,
with huge amounts (left to the per-node code), zero and missing allocatable, extended resources;
node-object scores (taints, node affinity, images) asked again when a node object is replaced;
PodTopologySpread's scores and normalized scores; and a batch run with the columns scores every
node with every plugin, every cycle, and places every pod, as the plain per-node run does."""

from __future__ import annotations

import copy
import random
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
import yaml

from kschedctl.config import load_config
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.snapshot import Snapshot
from kschedctl.framework.status import Code, Status
from kschedctl.plugins.image_locality import ImageLocality
from kschedctl.plugins.inter_pod_affinity import columns as affinity_columns
from kschedctl.plugins.node_affinity import NodeAffinity
from kschedctl.plugins.node_resources_balanced_allocation import NodeResourcesBalancedAllocation
from kschedctl.plugins.node_resources_fit import NodeResourcesFit
from kschedctl.plugins.pod_topology_spread import columns as spread_columns
from kschedctl.plugins.taint_toleration import TaintToleration
from kschedctl.scheduler import columns as columns_module
from kschedctl.framework.twins import SAFE_AMOUNT
from kschedctl.scheduler.columns import NodeColumns, column_scores
from kschedctl.scheduler.setup import load_default_config
from kschedctl.framework.runtime import Framework
from kschedctl.scheduler.simulate import Simulator, _LeanFramework, pod_signature
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
    # what the node-object scores read: PreferNoSchedule taints, labels, images
    node["metadata"]["labels"]["tier"] = rnd.choice(["a", "b", "c"])
    if rnd.random() < 0.4:
        node["spec"] = {"taints": [{"key": rnd.choice(["spot", "slow"]), "value": "x", "effect": "PreferNoSchedule"}]}
    if rnd.random() < 0.5:
        node["status"]["images"] = [{"names": [rnd.choice(IMAGES)], "sizeBytes": rnd.choice([10, 300, 900]) * 2**20}]
    return node


IMAGES = ["nginx:1.25", "redis:7", "busybox:latest"]


def dress(rnd: random.Random, pod: dict) -> dict:
    """Tolerations, preferred node affinity and images, some of the time."""
    spec = pod["spec"]
    for c in spec["containers"]:
        c["image"] = rnd.choice(IMAGES)
    if rnd.random() < 0.5:
        spec["tolerations"] = [{"key": "spot", "operator": "Exists", "effect": "PreferNoSchedule"}]
    if rnd.random() < 0.5:
        spec["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": rnd.choice([1, 20, 100]), "preference": {"matchExpressions": [
                {"key": "tier", "operator": "In", "values": [rnd.choice(["a", "b"])]}]}}]}}
    if rnd.random() < 0.6:
        pod["metadata"]["labels"] = {"app": rnd.choice(["web", "db"])}
        spec["topologySpreadConstraints"] = [
            {"maxSkew": rnd.choice([1, 2, 5]), "topologyKey": key, "whenUnsatisfiable": "ScheduleAnyway",
             "labelSelector": {"matchLabels": {"app": rnd.choice(["web", "db"])}},
             **({"nodeTaintsPolicy": "Honor"} if rnd.random() < 0.3 else {})}
            for key in rnd.sample(["kubernetes.io/hostname", "topology.kubernetes.io/zone", "tier"],
                                  rnd.randint(1, 3))]
    return pod


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
    pod = make_pod(name, node=node, containers=containers)
    if rnd.random() < 0.2:
        # pod-level requests: BalancedAllocation scores them, NodeResourcesFit's score does not
        pod["spec"]["resources"] = {"requests": {"cpu": rnd.choice(["4", "12"]), "memory": rnd.choice(["8Gi", "16Gi"])}}
    return pod


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
    assert got.values.tolist() == want
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


OBJECT_PLUGINS = [TaintToleration, NodeAffinity, ImageLocality]


@pytest.mark.parametrize("plugin_class", OBJECT_PLUGINS, ids=lambda c: c.__name__)
def test_node_object_scores_are_the_plugins_and_follow_node_changes(plugin_class) -> None:
    covered = 0
    for seed in range(25):
        rnd = random.Random(seed)
        nodes = [random_node(rnd, i, False) for i in range(rnd.choice([1, 4, 15]))]
        snapshot = Snapshot(nodes)
        handle = SimpleNamespace(snapshot=lambda: snapshot)
        plugin = plugin_class(None, handle) if plugin_class is ImageLocality else plugin_class()
        columns = NodeColumns(snapshot)
        node_infos = snapshot.node_infos()
        signatures = [dress(rnd, random_pod(rnd, f"t{k}")) for k in range(3)]
        for round_ in range(8):
            incoming = rnd.choice(signatures)
            pi = pod_info(incoming)
            state = CycleState()
            scored = rnd.sample(node_infos, rnd.randint(1, len(node_infos)))
            if getattr(plugin, "pre_score", None) is not None and plugin.pre_score(state, pi, scored) is not None:
                continue
            want = [plugin.score(state, pi, n)[0] for n in scored]
            assert columns.refresh()
            got = column_scores(columns, plugin, state, columns.positions(scored), pod_signature(incoming), pi)
            assert got.values.tolist() == want
            covered += 1
            # pods placed change nothing; a replaced node object is asked again
            snapshot.assume_pod(pod_info(random_pod(rnd, f"x{round_}")), rnd.choice(node_infos).name)
            if rnd.random() < 0.4:
                node_info = rnd.choice(node_infos)
                replaced = copy.deepcopy(node_info.node)
                replaced["metadata"]["labels"]["tier"] = rnd.choice(["a", "b", "c"])
                replaced["spec"] = {"taints": [{"key": "slow", "value": "x", "effect": "PreferNoSchedule"}]}
                node_info.set_node(replaced)
    assert covered > 60



def _cordoned(node: dict) -> dict:
    """``node`` as kubectl cordon leaves it (a new object, labels and images as they were)."""
    spec = dict(node.get("spec") or {})
    spec["unschedulable"] = True
    spec["taints"] = [*(spec.get("taints") or ()), {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]
    return {**node, "spec": spec}


class _Asked:
    """A node-object plugin whose calls are counted per node (the columns must ask it)."""

    def __init__(self, plugin) -> None:
        self.plugin, self.name, self.asked = plugin, plugin.name, []

    def score(self, state, pod_info, node_info):
        self.asked.append(node_info.name)
        return self.plugin.score(state, pod_info, node_info)

    def filter(self, state, pod_info, node_info):
        self.asked.append(node_info.name)
        return self.plugin.filter(state, pod_info, node_info)


@pytest.mark.parametrize("case", [
    # (the plugin, filter or score, the pod tolerates the cordon's taint)
    ("TaintToleration", "filter", False), ("TaintToleration", "filter", True),
    ("NodeUnschedulable", "filter", False), ("NodeUnschedulable", "filter", True),
    ("TaintToleration", "score", False), ("NodeAffinity", "score", False), ("ImageLocality", "score", False),
], ids=lambda c: "-".join(map(str, c)))
def test_a_replaced_node_object_is_asked_again_alone(case) -> None:
    """A node cordoned (its object replaced) gets the plugin's new answer; the other nodes keep
    theirs without the plugin being asked again (a scale-down search cordons a node per try)."""
    from kschedctl.plugins.node_unschedulable import NodeUnschedulable

    name, kind, tolerates = case
    rnd = random.Random(7)
    nodes = [random_node(rnd, i, False) for i in range(12)]
    snapshot = Snapshot(nodes)
    handle = SimpleNamespace(snapshot=lambda: snapshot)
    built = {"TaintToleration": TaintToleration, "NodeUnschedulable": NodeUnschedulable, "NodeAffinity": NodeAffinity,
             "ImageLocality": lambda: ImageLocality(None, handle)}[name]()
    plugin = _Asked(built)
    incoming = random_pod(rnd, "p")
    incoming["spec"]["containers"][0]["image"] = IMAGES[0]
    incoming["spec"]["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 20, "preference": {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["a"]}]}}]}}
    if tolerates:
        incoming["spec"]["tolerations"] = [{"operator": "Exists"}]
    pi, signature = pod_info(incoming), pod_signature(incoming)
    columns = NodeColumns(snapshot)
    node_infos = snapshot.node_infos()
    at = columns.positions(node_infos)

    def state() -> CycleState:
        out = CycleState()
        if kind == "score" and getattr(built, "pre_score", None) is not None:
            assert built.pre_score(out, pi, node_infos) in (None, Status(Code.Skip))
        return out

    def answers() -> list:
        assert columns.refresh()
        if kind == "score":
            return columns.object_scores(plugin, signature, state(), pi, at).tolist()
        return columns.object_verdicts(plugin, signature, state(), pi, at).tolist()

    def plain() -> list:
        if kind == "score":
            return [built.score(state(), pi, n)[0] for n in node_infos]
        return [(lambda st: st is None or st.is_success())(built.filter(state(), pi, n)) for n in node_infos]

    assert answers() == plain() and len(plugin.asked) == len(nodes)
    plugin.asked.clear()
    target = node_infos[5]
    target.set_node(_cordoned(target.node))
    snapshot.assume_pod(pod_info(random_pod(rnd, "x")), node_infos[2].name)  # pods do not count
    got = answers()
    assert got == plain()
    assert plugin.asked == [target.name]
    if kind == "filter" and not tolerates:
        assert got[5] is False


def test_node_object_answers_keep_the_signatures_used_last(monkeypatch) -> None:
    """Past the room for them, the answers used least recently go first; every answer stays the
    plugin's."""
    monkeypatch.setattr(columns_module, "_OBJECT_CELLS", 3 * 12)  # room for 3 signatures of 12 nodes
    monkeypatch.setattr(columns_module, "_OBJECT_SCORE_SIGNATURES", 1)
    rnd = random.Random(3)
    snapshot = Snapshot([random_node(rnd, i, False) for i in range(12)])
    plugin = _Asked(TaintToleration())
    columns = NodeColumns(snapshot)
    node_infos = snapshot.node_infos()
    at = columns.positions(node_infos)
    pods = []
    for k in range(4):
        pod = random_pod(rnd, f"p{k}")
        pod["spec"]["tolerations"] = [{"key": f"k{k}", "operator": "Exists"}]  # four signatures
        pods.append(pod)

    def ask(pod: dict) -> int:
        plugin.asked.clear()
        state = CycleState()
        assert plugin.plugin.pre_score(state, pod_info(pod), node_infos) is None
        got = columns.object_scores(plugin, pod_signature(pod), state, pod_info(pod), at)
        assert got.tolist() == [plugin.plugin.score(state, pod_info(pod), n)[0] for n in node_infos]
        return len(plugin.asked)

    assert [ask(p) for p in pods[:3]] == [12, 12, 12]
    assert ask(pods[0]) == 0  # kept, and now the most recently used
    assert ask(pods[3]) == 12  # takes the room of pods[1], the least recently used
    assert ask(pods[0]) == 0 and ask(pods[2]) == 0
    assert ask(pods[1]) == 12

MOST_ALLOCATED_CONFIG = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [{"schedulerName": "default-scheduler", "pluginConfig": [{"name": "NodeResourcesFit", "args": {
        "scoringStrategy": {"type": "MostAllocated", "resources": [
            {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": GPU, "weight": 3}]}}}]}],
}


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("config_doc", [None, MOST_ALLOCATED_CONFIG], ids=["default", "most-allocated"])
def test_batch_with_columns_places_every_pod_as_the_plain_run(seed: int, config_doc, tmp_path,
                                                               monkeypatch) -> None:
    _compare_batches(seed, _config(config_doc, tmp_path), monkeypatch, node_count=24, pod_count=60)


@pytest.mark.parametrize("seed", range(3))
def test_batch_scanning_part_of_the_nodes_from_the_rotating_start(seed: int, tmp_path, monkeypatch) -> None:
    # 300 nodes, 10 %: each cycle scans from where the last one stopped until 100 nodes fit
    doc = copy.deepcopy(MOST_ALLOCATED_CONFIG)
    doc["percentageOfNodesToScore"] = 10
    _compare_batches(seed, _config(doc, tmp_path), monkeypatch, node_count=300, pod_count=40)


def _config(doc: dict | None, tmp_path):
    if doc is None:
        return load_default_config()
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(doc))
    return load_config(str(path))


def _compare_batches(seed: int, config, monkeypatch, node_count: int, pod_count: int) -> None:
    rnd = random.Random(seed)
    # identical nodes make ties, which the seeded tie-break must resolve alike
    nodes = [make_node(f"n{i:03d}", {"kubernetes.io/hostname": f"n{i:03d}"}, cpu="4", memory="16Gi")
             if i % 2 else random_node(rnd, i, False) for i in range(node_count)]
    for i, n in enumerate(nodes):
        n["status"]["allocatable"]["pods"] = "110"
        n["status"]["allocatable"].setdefault(GPU, "4")
        if i % 5:  # some nodes without a zone: ignored by the zone constraints' scores
            n["metadata"]["labels"]["topology.kubernetes.io/zone"] = f"z{i % 3}"
    names = [n["metadata"]["name"] for n in nodes]
    running_pods = [dress(rnd, random_pod(rnd, f"r{i}", rnd.choice(names))) for i in range(30)]
    template = dress(rnd, random_pod(rnd, "template"))
    batch = [dict(copy.deepcopy(template), metadata={"name": f"rep-{i:03d}", "namespace": "default"})
             for i in range(pod_count)] + [dress(rnd, random_pod(rnd, f"p{i:03d}")) for i in range(40)]
    checked = _check_every_cycle(monkeypatch)
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
    assert {"NodeResourcesFit", "TaintToleration", "PodTopologySpread"} <= checked["raw"]
    assert "PodTopologySpread" in checked["normalized"]
    assert checked["filters"]


def _count_twin_filter_calls(monkeypatch, module) -> list[int]:
    """How many nodes each call of ``module``'s column filter verdicts was asked about."""
    twin_filter = module.column_filter
    asked: list[int] = []

    def counting(cycle):
        answer = twin_filter(cycle)
        verdicts = answer.verdicts

        def counted(at):
            asked.append(len(at))
            return verdicts(at)

        answer.verdicts = counted
        return answer

    monkeypatch.setattr(module, "column_filter", counting)
    return asked


def _ints(values) -> list[int]:
    """Scores as Python ints, whether the columns gave an array or a list."""
    return values.tolist() if isinstance(values, np.ndarray) else list(values)


def _check_every_cycle(monkeypatch) -> dict[str, set]:
    """Makes every cycle of a batch compare what the columns answer (scores raw and normalized,
    filter verdicts) with what each plugin answers node by node."""
    checked: dict[str, set] = {"raw": set(), "normalized": set(), "filters": set()}
    expected_normalized: dict[str, list[int]] = {}
    known_scores = _LeanFramework.known_scores
    known_normalized = _LeanFramework.known_normalized

    def checking_known_scores(self, state, pod_info, nodes, plugins):
        known = known_scores(self, state, pod_info, nodes, plugins)
        names = [n.name for n in nodes]
        for pl in plugins:
            if known and pl.name in known:
                want, failure = Framework._plugin_scores(pl, state, pod_info, nodes)
                assert failure is None
                assert _ints(known[pl.name]) == want, pl.name
                checked["raw"].add(pl.name)
                normalized, failure = Framework._normalized(pl, state, pod_info, names, list(want))
                assert failure is None
                expected_normalized[pl.name] = normalized
        return known

    def checking_known_normalized(self, plugin, values):
        got = known_normalized(self, plugin, values)
        if got is not None:
            assert _ints(got) == expected_normalized[plugin.name], plugin.name
            checked["normalized"].add(plugin.name)
        return got

    filter_verdicts = _LeanFramework.filter_verdicts

    def checking_filter_verdicts(self, state, pod_info, nodes):
        verdicts = filter_verdicts(self, state, pod_info, nodes)
        if verdicts is not None:
            want = [self.run_filter_plugins(state, pod_info, n) is None for n in nodes]
            run = verdicts.run(0, len(nodes), len(nodes))  # every node visited, none cancels the scan
            assert run.rejected == [i for i, ok in enumerate(want) if not ok]
            assert run.passed_before(len(nodes)) == [i for i, ok in enumerate(want) if ok]
            checked["filters"].add(len(nodes))
        return verdicts

    monkeypatch.setattr(_LeanFramework, "filter_verdicts", checking_filter_verdicts)
    monkeypatch.setattr(_LeanFramework, "known_scores", checking_known_scores)
    monkeypatch.setattr(_LeanFramework, "known_normalized", checking_known_normalized)
    return checked


SPREAD_CASES = {
    "zone, maxSkew 1": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone"}],
    "zone with minDomains, tier": [
        {"maxSkew": 4, "topologyKey": "topology.kubernetes.io/zone", "minDomains": 4},
        {"maxSkew": 1, "topologyKey": "tier"}],
    "hostname and zone, nodes without a zone": [
        {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname"},
        {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "nodeTaintsPolicy": "Honor"}],
}


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("constraints", SPREAD_CASES.values(), ids=SPREAD_CASES.keys())
def test_spread_filter_verdicts_from_the_columns_are_the_plugins(seed: int, constraints: list, monkeypatch) -> None:
    """PodTopologySpread's DoNotSchedule Filter answered from the columns, after the node-local
    filters: every cycle's verdicts equal the plugin's node by node, and the whole batch places
    every pod as the run without memos or columns does."""
    rnd = random.Random(seed)
    nodes = []
    for i in range(30):
        node = make_node(f"n{i:03d}", {"kubernetes.io/hostname": f"n{i:03d}", "tier": rnd.choice("ab")},
                         cpu=rnd.choice(["2", "4", "8"]), memory="16Gi", pods="110")
        if i % 7:  # some nodes without a zone: rejected as UnschedulableAndUnresolvable
            node["metadata"]["labels"]["topology.kubernetes.io/zone"] = f"z{i % 3}"
        nodes.append(node)
    names = [n["metadata"]["name"] for n in nodes]
    running_pods = [make_pod(f"r{i}", node=rnd.choice(names), labels={"app": rnd.choice(["web", "db"])},
                             containers=[{"name": "c", "resources": {"requests": {"cpu": "500m"}}}])
                    for i in range(10)]
    spread = [{"whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "web"}}, **c}
              for c in constraints]
    batch = [make_pod(f"rep-{i:03d}", labels={"app": "web"},
                      containers=[{"name": "c", "resources": {"requests": {"cpu": "1"}}}],
                      topologySpreadConstraints=copy.deepcopy(spread)) for i in range(40)]
    checked = _check_every_cycle(monkeypatch)
    asked = _count_twin_filter_calls(monkeypatch, spread_columns)
    results = []
    for memoize in (True, False):
        sim = Simulator(cluster(copy.deepcopy(nodes), copy.deepcopy(running_pods)), load_default_config(),
                        seed=seed, memoize=memoize)
        results.append(sim.run(copy.deepcopy(batch)).to_dict())
    for d in results:
        d["summary"].pop("seconds")
    assert results[0] == results[1]
    assert results[0]["summary"]["scheduled"] > 0
    assert checked["filters"] and asked



def _term(key: str, app: str) -> dict:
    return {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key}


AFFINITY_CASES = {
    "anti-affinity to itself, hostname": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        _term("kubernetes.io/hostname", "web")]}},
    "anti-affinity to itself, zone (some nodes without one) and tier": {"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [_term("topology.kubernetes.io/zone", "new"),
                                                           _term("tier", "new")]}},
    "affinity to db by zone": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        _term("topology.kubernetes.io/zone", "db")]}},
    "affinity to itself by tier (the first of its group), anti-affinity by hostname": {
        "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [_term("tier", "new")]},
        "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [_term("kubernetes.io/hostname", "new")]}},
    "no terms: existing pods' anti-affinity alone": None,
    "preferred: toward db by zone, away from itself by hostname (scored on the columns)": {
        "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 40, "podAffinityTerm": _term("topology.kubernetes.io/zone", "db")}]},
        "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 7, "podAffinityTerm": _term("kubernetes.io/hostname", "new")}]}},
}


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("affinity", AFFINITY_CASES.values(), ids=AFFINITY_CASES.keys())
def test_pod_affinity_filter_verdicts_from_the_columns_are_the_plugins(seed: int, affinity: dict | None,
                                                                       monkeypatch) -> None:
    """InterPodAffinity's Filter (and Score, for preferred terms) answered from the columns:
    every cycle's verdicts and scores equal the plugin's node by node (the pod's affinity and
    anti-affinity, existing pods' anti-affinity against it, nodes without a topology key), and
    the whole batch places every pod as the run without memos or columns does."""
    rnd = random.Random(seed)
    nodes = []
    for i in range(30):
        node = make_node(f"n{i:03d}", {"kubernetes.io/hostname": f"n{i:03d}", "tier": rnd.choice("ab")},
                         cpu=rnd.choice(["2", "4", "8"]), memory="16Gi", pods="110")
        if i % 7:
            node["metadata"]["labels"]["topology.kubernetes.io/zone"] = f"z{i % 3}"
        nodes.append(node)
    names = [n["metadata"]["name"] for n in nodes]
    # existing pods: some with anti-affinity to the incoming app by hostname or zone
    running_pods = []
    for i in range(12):
        extra = {}
        if i % 3 == 0:
            extra["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                _term(rnd.choice(["kubernetes.io/hostname", "topology.kubernetes.io/zone"]),
                      ("web", "new")[i // 3 % 2])]}}
        running_pods.append(make_pod(f"r{i}", node=rnd.choice(names), labels={"app": ("web", "db")[i % 2]},
                                     containers=[{"name": "c", "resources": {"requests": {"cpu": "500m"}}}], **extra))
    app = "new" if affinity and "new" in str(affinity) else "web"
    batch = [make_pod(f"rep-{i:03d}", labels={"app": app},
                      containers=[{"name": "c", "resources": {"requests": {"cpu": "1"}}}],
                      **({"affinity": copy.deepcopy(affinity)} if affinity else {})) for i in range(30)]
    checked = _check_every_cycle(monkeypatch)
    asked = _count_twin_filter_calls(monkeypatch, affinity_columns)
    results = []
    for memoize in (True, False):
        sim = Simulator(cluster(copy.deepcopy(nodes), copy.deepcopy(running_pods)), load_default_config(),
                        seed=seed, memoize=memoize)
        results.append(sim.run(copy.deepcopy(batch)).to_dict())
    for d in results:
        d["summary"].pop("seconds")
    assert results[0] == results[1]
    assert results[0]["summary"]["scheduled"] > 0
    assert checked["filters"] and asked
    if affinity and "preferred" in str(affinity):
        assert "InterPodAffinity" in checked["raw"] and "InterPodAffinity" in checked["normalized"]
    if affinity and "preferred" in str(affinity):
        assert "InterPodAffinity" in checked["raw"] and "InterPodAffinity" in checked["normalized"]

def _nodes_filtered_by(plugin_class: Any, monkeypatch) -> list[str]:
    """The names of the nodes ``plugin_class``'s Filter is asked about from now on, in order."""
    asked: list[str] = []
    original = plugin_class.filter

    def counting(self, state, pod_info, node_info):
        asked.append(node_info.name)
        return original(self, state, pod_info, node_info)

    monkeypatch.setattr(plugin_class, "filter", counting)
    return asked


def test_a_successful_cycle_counts_its_rejected_nodes_without_asking_why(monkeypatch) -> None:
    """With verdicts from the columns, a simulated cycle that finds a node does not ask the
    filters why the other nodes failed (nothing shows it); a cycle that finds none still gives
    every node's reason, word for word."""
    from kschedctl.plugins.pod_topology_spread import PodTopologySpread

    asked = _nodes_filtered_by(PodTopologySpread, monkeypatch)
    nodes = [make_node(f"n{i}", {"kubernetes.io/hostname": f"n{i}", "topology.kubernetes.io/zone": f"z{i % 3}"},
                       cpu="8" if i % 3 == 0 else "2", memory="16Gi", pods="110") for i in range(6)]
    existing = [make_pod("r0", node="n0", labels={"app": "web"})]
    spread = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
               "labelSelector": {"matchLabels": {"app": "web"}}}]

    def replica(name: str, cpu: str) -> dict:
        return make_pod(name, labels={"app": "web"}, topologySpreadConstraints=copy.deepcopy(spread),
                        containers=[{"name": "c", "resources": {"requests": {"cpu": cpu}}}])

    result = Simulator(cluster(nodes, existing), load_default_config(), seed=1).run([replica("a", "1")])
    assert result.placements[0].outcome == "Scheduled" and result.placements[0].node in {"n1", "n2", "n4", "n5"}
    assert asked == []  # n0 and n3 (zone z0) were rejected without a status
    result = Simulator(cluster(nodes, existing), load_default_config(), seed=1).run([replica("big", "3")])
    assert result.placements[0].message == (
        "0/6 nodes are available: 2 node(s) didn't match pod topology spread constraints, "
        "4 Insufficient cpu. no new claims to deallocate, preemption: 0/6 nodes are available: "
        "2 No preemption victims found for incoming pod, 4 Preemption is not helpful for scheduling.")


@pytest.mark.parametrize("seed, nodes, plugins, high", [
    (0, 1, 1, 100), (1, 7, 3, 2), (2, 50, 5, 3), (3, 500, 4, 100), (4, 300, 2, 1), (5, 64, 1, 0),
])
def test_score_rows_pick_the_host_the_runtime_rows_pick(seed: int, nodes: int, plugins: int, high: int) -> None:
    """The totals summed as an array give selectHost the same top, ties, pick and random state
    as the runtime's rows, and the rows read from ScoreRows are the runtime's."""
    from kschedctl.framework.runtime import Framework
    from kschedctl.scheduler.columns import ScoreRows
    from kschedctl.scheduler.schedule_one import Scheduler

    from kschedctl.framework.runtime import NameView

    rng = random.Random(seed)
    names = NameView([SimpleNamespace(name=f"n{i}") for i in range(nodes)])
    plugin_names = [f"p{j}" for j in range(plugins)]
    weighted = [[rng.randint(0, high) * (j + 1) for _ in names] for j in range(plugins)]
    plain = Framework.score_rows(None, names, plugin_names, weighted)  # type: ignore[arg-type]
    rows = ScoreRows(names, plugin_names, weighted, lambda *a: Framework.score_rows(None, *a))  # type: ignore[arg-type]
    picks = []
    for scores in (plain, rows):
        scheduler = SimpleNamespace(rng=random.Random(seed), tie_break_first=False)
        picks.append((Scheduler.select_host(scheduler, scores), scheduler.rng.random()))  # type: ignore[arg-type]
    assert picks[0] == picks[1]
    assert rows.tied_at_top() == picks[0][0][1]
    assert [(r.name, r.total_score, r.scores) for r in rows] == [(r.name, r.total_score, r.scores) for r in plain]
    assert all(type(r.total_score) is int for r in rows)
    assert rows.tied_at_top() is None  # once made, the rows (extender scores added to them) are read instead


@pytest.mark.parametrize("big", [
    None,  # every amount held
    2**60,  # beyond SAFE_AMOUNT, within int64: those nodes are left to the object form
    2**70,  # beyond int64 itself (a sum of requests can be): the load goes node by node
])
def test_the_first_load_holds_what_loading_node_by_node_holds(big: int | None) -> None:
    nodes = [make_node(f"n{i}", cpu=str(i + 1), memory=f"{i + 1}Gi") for i in range(6)]
    pods = [make_pod(f"p{i}", node=f"n{i % 6}", containers=[{"name": "c", "resources": {"requests": {
        "cpu": "100m", "memory": "1Mi"}}}]) for i in range(9)]
    snapshot = Snapshot(nodes, [pod_info(p) for p in pods])
    infos = snapshot.node_infos()
    if big is not None:
        infos[2].requested.memory = big
        infos[4].allocatable.milli_cpu = big
    columns = NodeColumns(snapshot)
    one_by_one = NodeColumns(snapshot)
    one_by_one.fixed[:] = 0
    one_by_one._unsafe.clear()
    for i, node_info in enumerate(infos):
        one_by_one._load(i, node_info)
    assert columns.fixed.tolist() == one_by_one.fixed.tolist()
    assert columns._unsafe == one_by_one._unsafe == ({2, 4} if big else set())
    assert columns.all_safe is (big is None)
    assert columns.fixed[:, 0].tolist() != [0] * 10  # loaded at all


def _pinned_volume(name: str, key: str, values: list[str]) -> list[dict]:
    """A PV whose node affinity needs ``key`` In ``values``, and the claim bound to it."""
    pv = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
          "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "local",
                   "claimRef": {"namespace": "default", "name": f"claim-{name}"},
                   "nodeAffinity": {"required": {"nodeSelectorTerms": [
                       {"matchExpressions": [{"key": key, "operator": "In", "values": values}]}]}}},
          "status": {"phase": "Bound"}}
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
             "metadata": {"name": f"claim-{name}", "namespace": "default"},
             "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "local", "volumeName": name,
                      "resources": {"requests": {"storage": "1Gi"}}},
             "status": {"phase": "Bound"}}
    return [pv, claim]


def _rejections_of_a_pod_no_node_takes(monkeypatch, statuses_known: bool) -> tuple[dict, list[str], str]:
    """Each node's status (plugin, code, reasons, details) in the cycle of a pod whose two bound
    volumes no node holds both of, on nodes some of which are cordoned, tainted or too small;
    the nodes VolumeBinding's Filter was asked about; the pod's message."""
    from kschedctl.inputs.cluster import ClusterState
    from kschedctl.plugins.volume_binding import VolumeBinding
    from kschedctl.scheduler import schedule_one, simulate

    nodes = []
    for i in range(10):
        node = make_node(f"n{i}", {"kubernetes.io/hostname": f"n{i}", "topology.kubernetes.io/zone": f"z{i % 2}"},
                         cpu="1" if i == 3 else "8")
        if i < 2:
            node["spec"] = {"unschedulable": True}
        if i == 2:
            node["spec"] = {"taints": [{"key": "dedicated", "value": "db", "effect": "NoSchedule"}]}
        nodes.append(node)
    # n5, n7, n9 (zone z1) fail the first volume; n4, n6, n8 (z0) the second, pinned to n1
    objects = [*nodes, *_pinned_volume("pv-a", "topology.kubernetes.io/zone", ["z0"]),
               *_pinned_volume("pv-b", "kubernetes.io/hostname", ["n1"])]
    the_pod = make_pod("stateful", containers=[{"name": "c", "image": "db",
                                                "resources": {"requests": {"cpu": "2"}}}],
                       volumes=[{"name": "a", "persistentVolumeClaim": {"claimName": "claim-pv-a"}},
                                {"name": "b", "persistentVolumeClaim": {"claimName": "claim-pv-b"}}])
    if not statuses_known:
        monkeypatch.setattr(simulate._ColumnVerdicts, "statuses", lambda self, positions: [None] * len(positions))
    asked = _nodes_filtered_by(VolumeBinding, monkeypatch)
    seen: dict = {}
    scan_verdicts = schedule_one.Scheduler._scan_verdicts

    def keeping(self, verdicts, scan, diagnosis, scan_nodes, *args, **kwargs):
        out = scan_verdicts(self, verdicts, scan, diagnosis, scan_nodes, *args, **kwargs)
        if not out and not seen:
            for name, s in diagnosis.node_to_status.items():
                seen[name] = (s.plugin, s.code, list(s.reasons), s.details)
        return out

    monkeypatch.setattr(schedule_one.Scheduler, "_scan_verdicts", keeping)
    result = Simulator(ClusterState().with_objects(objects), load_default_config(), seed=1).run([the_pod])
    monkeypatch.undo()
    return seen, asked, result.placements[0].message


def test_a_cycle_no_node_takes_reports_the_statuses_the_twins_know(monkeypatch) -> None:
    """A pod every node rejects: each node's status, word for word and in the same order, is the
    one asking the filters node by node gives, but the plugins whose twins know their statuses
    (VolumeBinding's; those kept per node object) are not asked again node by node."""
    known, asked_known, message = _rejections_of_a_pod_no_node_takes(monkeypatch, statuses_known=True)
    plain, asked_plain, plain_message = _rejections_of_a_pod_no_node_takes(monkeypatch, statuses_known=False)
    assert list(known.items()) == list(plain.items())
    assert message == plain_message
    assert {name: status[0] for name, status in known.items()} == {
        "n0": "NodeUnschedulable", "n1": "NodeUnschedulable", "n2": "TaintToleration", "n3": "NodeResourcesFit",
        **{f"n{i}": "VolumeBinding" for i in range(4, 10)}}
    assert {name: status[3]["volume"] for name, status in known.items() if status[0] == "VolumeBinding"} == {
        "n4": "pv-b", "n5": "pv-a", "n6": "pv-b", "n7": "pv-a", "n8": "pv-b", "n9": "pv-a"}
    assert sorted(set(asked_plain)) == [f"n{i}" for i in range(4, 10)]
    assert asked_known == []


def test_counted_keeps_its_answer_for_a_frozen_dict_only() -> None:
    """``counted`` of a frozen dict (lent by sums kept across cycles, never changed again) is
    answered again from the answer kept for that very dict; another dict, a dict not frozen, or
    relabelled nodes are counted anew."""
    nodes = [make_node(f"n{i}", {"kubernetes.io/hostname": f"n{i}", "zone": f"z{i % 2}"}) for i in range(4)]
    snapshot = Snapshot(nodes)
    columns = NodeColumns(snapshot)
    frozen = {("zone", "z0"): 2, ("kubernetes.io/hostname", "n1"): 1}
    first = columns.counted("zone", frozen, frozen=True)
    assert first.tolist() == [True, False, False]  # z0, z1, then nodes without the label
    assert columns.counted("zone", frozen, frozen=True) is first
    assert columns.counted("zone", dict(frozen), frozen=True) is not first
    loose = dict(frozen)
    assert columns.counted("zone", loose).tolist() == [True, False, False]
    loose[("zone", "z1")] = 1
    assert columns.counted("zone", loose).tolist() == [True, True, False]
    with pytest.raises(ValueError):
        first[0] = False  # the kept answer is read-only
    # a node relabelled: the label codes and the answers kept over them are dropped
    node = snapshot.get("n0")
    relabelled = copy.deepcopy(node.node)
    relabelled["metadata"]["labels"]["zone"] = "z9"
    columns._replaced(0, SimpleNamespace(node=relabelled, labels=relabelled["metadata"]["labels"]))
    assert columns.counted("zone", frozen, frozen=True) is not first
