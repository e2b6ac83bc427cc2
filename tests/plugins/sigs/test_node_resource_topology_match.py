"""NodeResourceTopologyMatch: upstream's filter, score and least-NUMA tables and kschedctl's own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from kschedctl.errors import InputError
from kschedctl.framework.cycle_state import CycleState
from kschedctl.k8s.quantity import nanos
from kschedctl.plugins.sigs import node_resource_topology_match as nrtm
from kschedctl.plugins.sigs.node_resource_topology_match import NodeResourceTopologyMatch
from kschedctl.plugins.sigs.numa_topology import NUMANode, topology_manager_of
from tests.plugins.harness import build, pod_info, run_filters, status_dict

DATA = yaml.safe_load((Path(__file__).parent / "cases" / "node_resource_topology_match.yaml").read_text())

#: The pod of upstream's score tables: 2 CPUs and 20 MiB, requests equal to limits.
SCORE_POD = {"containers": [{"cpu": "2", "memory": str(20 * 1024 * 1024)}]}


def cases(key: str) -> list[Any]:
    return [pytest.param(c, id=f"NodeResourceTopologyMatch_{key}_{c['name']}") for c in DATA[key]]


def _container(name: str, spec: dict) -> dict:
    if set(spec) <= {"requests", "limits"} and spec:
        return {"name": name, "resources": {k: dict(v) for k, v in spec.items()}}
    return {"name": name, "resources": {"requests": dict(spec), "limits": dict(spec)}}


def make_pod(spec: dict) -> dict:
    pod: dict = {"metadata": {"name": "testpod"},
                 "spec": {"containers": [_container(f"cnt-{i + 1}", c) for i, c in enumerate(spec.get("containers") or ())]}}
    if spec.get("init"):
        pod["spec"]["initContainers"] = [_container(f"init-{i + 1}", c) for i, c in enumerate(spec["init"])]
    return pod


def make_nrt(name: str, desc: dict, policy: str | None = None) -> dict:
    zones = []
    for zone_name, zone in desc["zones"].items():
        resources, costs = (zone["resources"], zone.get("costs") or {}) if "resources" in zone else (zone, {})
        zones.append({"name": zone_name, "type": "Node",
                      "resources": [{"name": r, "capacity": str(q), "allocatable": str(q), "available": str(q)}
                                    for r, q in resources.items()],
                      "costs": [{"name": n, "value": v} for n, v in costs.items()]})
    nrt: dict = {"apiVersion": "topology.node.k8s.io/v1alpha2", "kind": "NodeResourceTopology",
                 "metadata": {"name": name}, "zones": zones}
    if policy or desc.get("policy"):
        nrt["topologyPolicies"] = [policy or desc["policy"]]
    if desc.get("attributes"):
        nrt["attributes"] = [{"name": k, "value": v} for k, v in desc["attributes"].items()]
    return nrt


def make_node(name: str, desc: dict | None) -> dict:
    """Allocatable: the zones' available amounts summed, plus the extra node resources."""
    total: dict[str, int] = {}
    for zone in (desc or {}).get("zones", {}).values():
        for r, q in (zone["resources"] if "resources" in zone else zone).items():
            total[r] = total.get(r, 0) + nanos(q)
    allocatable = {r: f"{n}n" for r, n in total.items()}
    allocatable.update({r: str(q) for r, q in ((desc or {}).get("node") or {}).items()})
    return {"metadata": {"name": name}, "status": {"capacity": dict(allocatable), "allocatable": allocatable}}


def environment(case: dict, with_objects: list[str] | None = None) -> tuple[Any, dict]:
    topologies = case["topologies"]
    descs = DATA["topologies"][topologies] if isinstance(topologies, str) else topologies
    nodes = [make_node(n, d) for n, d in descs.items()]
    nodes += [make_node(n, None) for n in case.get("extraNodes") or ()]
    keep = descs if with_objects is None else with_objects
    objects = [make_nrt(n, d, case.get("policy")) for n, d in descs.items() if n in keep]
    return build(nodes, objects=objects), descs


@pytest.mark.parametrize("case", cases("filter"))
def test_filter(case: dict) -> None:
    env, _ = environment(case)
    plugin = NodeResourceTopologyMatch(None, env.handle)
    got = run_filters(plugin, pod_info(make_pod(case["pod"])), env)[case["node"]]
    want = {"code": "Unschedulable", "reasons": [case["want"]]} if case.get("want") else {"code": "Success", "reasons": []}
    assert status_dict(got) == want


def _scores(plugin: NodeResourceTopologyMatch, pod: dict, env: Any) -> dict[str, int]:
    out = {}
    info = pod_info(pod)
    for ni in env.node_infos:
        score, status = plugin.score(CycleState(), info, ni)
        assert status is None or status.is_success(), status
        out[ni.name] = score
    return out


@pytest.mark.parametrize("case", cases("score"))
def test_score(case: dict) -> None:
    env, _ = environment(case, case.get("only"))
    strategy: dict = {"type": case["strategy"]}
    if case.get("resources"):
        strategy["resources"] = case["resources"]
    plugin = NodeResourceTopologyMatch({"scoringStrategy": strategy}, env.handle)
    scores = _scores(plugin, make_pod(case.get("pod") or SCORE_POD), env)
    if "best" in case:
        node, score = case["best"]
        top = max(scores.values())
        assert (score, [n for n, s in scores.items() if s == top]) == (top, [node]), scores
    else:
        assert scores == case["want"]


@pytest.mark.parametrize("case", cases("leastNUMA"))
def test_least_numa(case: dict) -> None:
    env, _ = environment(case)
    plugin = NodeResourceTopologyMatch({"scoringStrategy": {"type": "LeastNUMANodes"}}, env.handle)
    assert _scores(plugin, make_pod(case["pod"]), env) == case["want"]


def _cells(spec: list) -> list[NUMANode]:
    return [NUMANode(c[0], {r: nanos(q) for r, q in c[1].items()}, dict(c[2]) if len(c) > 2 else {}) for c in spec]


@pytest.mark.parametrize("case", cases("numaNodesRequired"))
def test_numa_nodes_required(case: dict) -> None:
    mask, closest = nrtm._numa_nodes_required("Guaranteed", _cells(case["cells"]),
                                              {r: nanos(q) for r, q in case["request"].items()})
    ids = None if mask is None else nrtm._bits(mask)
    assert [ids, closest] == case["want"]


@pytest.mark.parametrize("case", cases("normalizeScore"))
def test_normalize_score(case: dict) -> None:
    assert nrtm._normalize(case["args"][0], case["args"][1], 8) == case["want"]


@pytest.mark.parametrize("case", cases("minDistance"))
def test_min_distance(case: dict) -> None:
    standard = {0: {0: 10, 1: 12, 2: 20, 3: 20}, 1: {0: 12, 1: 10, 2: 20, 3: 20},
                2: {0: 20, 1: 20, 2: 10, 3: 12}, 3: {0: 20, 1: 20, 2: 12, 3: 10}}
    cells = [NUMANode(i, {}, dict(standard[i]) if case["costs"] else {}) for i in range(4)]
    got = min(nrtm._avg_distance(cells, tuple(c)) for c in case["combinations"])
    assert got == nrtm._float32(case["want"])


@pytest.mark.parametrize("case", cases("topologyManager"))
def test_topology_manager(case: dict) -> None:
    conf = topology_manager_of(case["nrt"])
    assert [conf.policy, conf.scope, conf.max_numa_nodes] == case["want"]


def test_invalid_strategy() -> None:
    with pytest.raises(InputError) as err:
        NodeResourceTopologyMatch({"scoringStrategy": {"type": "Most"}}, None)
    assert str(err.value) == 'NodeResourceTopologyMatch args: scoringStrategy.type: Invalid value: "Most": ' \
                             'invalid ScoringStrategyType'
    problems = NodeResourceTopologyMatch.validate_args(NodeResourceTopologyMatch.defaulted({"scoringStrategy": {}}))
    assert problems == [("scoringStrategy.type", "Invalid", 'Invalid value: "": invalid ScoringStrategyType')]


def test_defaults() -> None:
    plugin = NodeResourceTopologyMatch({"scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu"}]}})
    assert (plugin.strategy_type, plugin.weights, plugin.cache.mode) == ("MostAllocated", {"cpu": 1}, "Passthrough")
    plugin = NodeResourceTopologyMatch({"cacheResyncPeriodSeconds": 5})
    assert (plugin.strategy_type, plugin.weights, plugin.cache.mode) == \
        ("LeastAllocated", {"cpu": 1, "memory": 1}, "OverReserve")
    assert NodeResourceTopologyMatch({"discardReservedNodes": True, "cacheResyncPeriodSeconds": 5}).cache.mode == \
        "DiscardReserved"


def _one_node(policy: str = "SingleNUMANodeContainerLevel") -> dict:
    return {"topologies": {"n1": {"policy": policy, "zones": {"node-0": {"cpu": "4", "memory": Gi_},
                                                             "node-1": {"cpu": "4", "memory": Gi_}}}}}


Gi_ = "4Gi"


def test_over_reserve_takes_reserved_pods_off_every_cell() -> None:
    env, _ = environment(_one_node())
    plugin = NodeResourceTopologyMatch({"cacheResyncPeriodSeconds": 60}, env.handle)
    three = pod_info(make_pod({"containers": [{"cpu": "3", "memory": "1Gi"}]}))
    assert status_dict(run_filters(plugin, three, env)["n1"])["code"] == "Success"
    plugin.reserve(CycleState(), three, "n1")
    plugin.post_bind(CycleState(), three, "n1")
    # 3 CPUs came off both cells (over-reserving): 1 CPU is left on each.
    two = pod_info(make_pod({"containers": [{"cpu": "2", "memory": "1Gi"}]}))
    assert status_dict(run_filters(plugin, two, env)["n1"]) == {"code": "Unschedulable",
                                                                "reasons": ["cannot align container"]}
    plugin.unreserve(CycleState(), three, "n1")
    assert status_dict(run_filters(plugin, two, env)["n1"])["code"] == "Success"


def test_passthrough_never_changes_the_objects() -> None:
    env, _ = environment(_one_node())
    plugin = NodeResourceTopologyMatch(None, env.handle)
    three = pod_info(make_pod({"containers": [{"cpu": "3", "memory": "1Gi"}]}))
    plugin.reserve(CycleState(), three, "n1")
    assert status_dict(run_filters(plugin, three, env)["n1"])["code"] == "Success"


def test_discard_reserved_nodes_until_the_pod_is_bound() -> None:
    env, _ = environment(_one_node())
    plugin = NodeResourceTopologyMatch({"discardReservedNodes": True}, env.handle)
    one = pod_info(make_pod({"containers": [{"cpu": "1", "memory": "1Gi"}]}))
    plugin.reserve(CycleState(), one, "n1")
    assert status_dict(run_filters(plugin, one, env)["n1"]) == {"code": "Unschedulable",
                                                                "reasons": ["invalid node topology data"]}
    assert plugin.score(CycleState(), one, env.node_infos[0]) == (0, None)
    plugin.post_bind(CycleState(), one, "n1")
    assert status_dict(run_filters(plugin, one, env)["n1"])["code"] == "Success"


def test_a_bad_quantity_in_an_object_is_an_input_error() -> None:
    env = build([make_node("n1", None)], objects=[{
        "apiVersion": "topology.node.k8s.io/v1alpha2", "kind": "NodeResourceTopology", "metadata": {"name": "n1"},
        "zones": [{"name": "node-0", "type": "Node", "resources": [{"name": "cpu", "available": "lots"}]}]}])
    with pytest.raises(InputError) as err:
        NodeResourceTopologyMatch(None, env.handle)
    assert err.value.message.startswith("NodeResourceTopology n1: invalid quantity 'lots'")


def test_a_numa_id_past_the_cell_table_is_an_error_where_upstream_panics() -> None:
    case = {"topologies": {"n1": {"policy": "SingleNUMANodePodLevel",
                                  "zones": {"node-3": {"cpu": "4", "memory": "4Gi"}}}}}
    env, _ = environment(case)
    plugin = NodeResourceTopologyMatch(None, env.handle)
    score, status = plugin.score(CycleState(), pod_info(make_pod(SCORE_POD)), env.node_infos[0])
    assert status is not None and status.code.name == "Error" and "NUMA cell 3 of 1" in status.message()
