"""TopologicalSort and NetworkOverhead: upstream's Less, Score and Filter tables and kschedctl's own."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interfaces import QueuedPodInfo
from kschedctl.plugins.sigs.network_overhead import NetworkOverhead
from kschedctl.plugins.sigs.networkaware import find_pod_order
from kschedctl.plugins.sigs.topological_sort import TopologicalSort
from tests.plugins.harness import build, pod_info, run_filters, run_scores, status_dict

DATA = yaml.safe_load((Path(__file__).parent / "cases" / "networkaware.yaml").read_text())

#: TestNetworkOverheadFilter's bound pods (p3 on n-8, unlike the Score table).
FILTER_PODS = [["p1", "basic", "n-2"], ["p2", "basic", "n-5"], ["p3", "basic", "n-8"]]


def cases(key: str) -> list[Any]:
    return [pytest.param(c, id=f"networkaware_{key}_{c['name']}") for c in DATA[key]]


def make_pod(selector: str, group: str, node: str | None = None, priority: int = 0, name: str = "") -> dict:
    pod: dict = {"kind": "Pod", "metadata": {"name": name or f"{selector}-deployment", "namespace": "default",
                              "labels": {"appgroup.diktyo.x-k8s.io": group,
                                         "appgroup.diktyo.x-k8s.io.workload": selector}},
                 "spec": {"priority": priority, "containers": [{"name": "c"}]}}
    if node:
        pod["spec"]["nodeName"] = node
    return pod


def objects(max_network_cost: int | None = None) -> list[dict]:
    out = []
    for name, body in DATA["appGroups"].items():
        obj = {"apiVersion": "appgroup.diktyo.x-k8s.io/v1alpha1", "kind": "AppGroup",
               "metadata": {"name": name, "namespace": "default"}, **copy.deepcopy(body)}
        if max_network_cost is not None:
            for workload in obj["spec"]["workloads"]:
                for dep in workload.get("dependencies") or ():
                    dep["maxNetworkCost"] = max_network_cost
        out.append(obj)
    out.append({"apiVersion": "networktopology.diktyo.x-k8s.io/v1alpha1", "kind": "NetworkTopology",
                "metadata": {"name": "nt-test", "namespace": "default"}, **copy.deepcopy(DATA["networkTopology"])})
    return out


def environment(pods: list, max_network_cost: int | None = None) -> Any:
    nodes = [{"metadata": {"name": n, "labels": {"topology.kubernetes.io/region": r, "topology.kubernetes.io/zone": z}},
              "status": {"allocatable": {"cpu": "8000m", "memory": "16Gi", "pods": "110"}}}
             for n, (r, z) in DATA["nodes"].items()]
    bound = [make_pod(s, g, n, name=f"{s}-{i}") for i, (s, g, n) in enumerate(pods)]
    return build(nodes, bound, objects(max_network_cost))


ARGS = {"namespaces": ["default"], "weightsName": "UserDefined", "networkTopologyName": "nt-test"}


@pytest.mark.parametrize("case", cases("topologicalSort"))
def test_less(case: dict) -> None:
    env = environment([])
    plugin = TopologicalSort({"namespaces": ["default"]}, env.handle)
    times = case.get("times") or [0, 0]
    a = QueuedPodInfo(pod_info(make_pod(case["a"][0], case["a"][1], priority=case["a"][2])), timestamp=times[0])
    b = QueuedPodInfo(pod_info(make_pod(case["b"][0], case["b"][1], priority=case["b"][2], name="other")),
                      timestamp=times[1])
    assert plugin.less(a, b) is case["want"]


@pytest.mark.parametrize("case", cases("score"))
def test_score(case: dict) -> None:
    env = environment(case["pods"])
    plugin = NetworkOverhead(ARGS, env.handle)
    pod = pod_info(make_pod(*case["pod"]))
    state = CycleState()
    _, status = plugin.pre_filter(state, pod, env.node_infos)
    assert status_dict(status) == {"code": "Success", "reasons": [case["preFilter"]]}
    raw, normalized = run_scores(plugin, pod, env, state=state)
    assert (raw, normalized) == (case["raw"], case["normalized"])


@pytest.mark.parametrize("case", cases("filter"))
def test_filter(case: dict) -> None:
    env = environment(FILTER_PODS, case.get("maxNetworkCost"))
    plugin = NetworkOverhead(ARGS, env.handle)
    got = run_filters(plugin, pod_info(make_pod(*case["pod"])), env)[case["node"]]
    want = {"code": "Unschedulable", "reasons": [case["want"]]} if case.get("want") else {"code": "Success", "reasons": []}
    assert status_dict(got) == want


def test_missing_objects_are_errors_where_upstream_panics() -> None:
    env = environment(FILTER_PODS)
    state = CycleState()
    _, status = NetworkOverhead({"networkTopologyName": "nt-other"}, env.handle).pre_filter(
        state, pod_info(make_pod("p1", "basic")), env.node_infos)
    assert status is not None and status.code.name == "Error"
    assert status.message().startswith("NetworkTopology nt-other not found in namespaces ['default']")
    _, status = NetworkOverhead(ARGS, env.handle).pre_filter(state, pod_info(make_pod("p1", "nogroup")), env.node_infos)
    assert status is not None and status.message().startswith("AppGroup nogroup not found")


def test_defaults() -> None:
    plugin = NetworkOverhead({"weightsName": ""}, None)
    assert (plugin.namespaces, plugin.weights_name, plugin.topology_name) == (["default"], "", "nt-default")
    plugin = NetworkOverhead({"namespaces": []}, None)
    assert (plugin.namespaces, plugin.weights_name) == (["default"], "UserDefined")
    assert TopologicalSort(None, None).namespaces == ["default"]


def test_find_pod_order_is_a_binary_search_over_the_list_as_stored() -> None:
    order = [{"workload": {"selector": s}, "index": i} for s, i in (("p3", 3), ("p1", 1), ("p2", 2))]
    # p1 sits before p3 in no sorted sense: the search from the middle (p1) finds it, p3 is missed.
    assert [find_pod_order(order, s) for s in ("p1", "p2", "p3")] == [1, 2, -1]


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda ag, nt: ag["spec"]["workloads"][0]["dependencies"][0].update(maxNetworkCost="ten"),
     "AppGroup default/basic: spec.workloads[0].dependencies[0].maxNetworkCost: must be an integer, not 'ten'"),
    (lambda ag, nt: ag["status"].update(topologyOrder="p1,p2"),
     "AppGroup default/basic: status.topologyOrder: must be a list of objects"),
    (lambda ag, nt: nt["spec"]["weights"][0]["topologyList"][0]["originList"][0]["costList"][0].update(networkCost=True),
     "NetworkTopology default/nt-test: spec.weights[0].topologyList[0].originList[0].costList[0].networkCost: "
     "must be an integer, not True"),
])
def test_malformed_objects_are_input_errors(mutate: Any, message: str) -> None:
    from kschedctl.errors import InputError

    env = environment([])
    cluster = env.handle.cluster()
    mutate(cluster.app_groups["default/basic"], cluster.network_topologies["default/nt-test"])
    with pytest.raises(InputError) as err:
        NetworkOverhead(ARGS, env.handle)
    assert err.value.message == message
