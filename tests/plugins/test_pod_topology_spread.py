"""PodTopologySpread: upstream's filtering_test.go and scoring_test.go tables (release-1.34).

Cases live in ``cases/pod_topology_spread.yaml`` in a shorthand close to upstream's
``st.MakePod()`` / ``st.MakeNode()`` builders, expanded here by ``make_pod`` / ``make_node``.
Upstream reuses case names across its test functions, so ids here are
``pod_topology_spread_<kind>_<name>``.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interfaces import NodeScore, extension_points_of
from kschedctl.framework.snapshot import Snapshot
from kschedctl.framework.status import Code
from kschedctl.framework.types import PodInfo
from kschedctl.plugins.registry import in_tree_extension_points
from kschedctl.plugins.pod_topology_spread import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    PRE_FILTER_STATE_KEY,
    PRE_SCORE_STATE_KEY,
    PodTopologySpread,
)
from kschedctl.plugins.pod_topology_spread.filtering import CriticalPaths
from tests.plugins.harness import build, expected_status, load_cases, pod_info, run_filters, run_scores, status_dict
from tests.work import calls_made

_ALL = [p.values[0] for p in load_cases("pod_topology_spread")]


def _cases(*kinds: str) -> list[Any]:
    return [
        pytest.param(c, id=f"pod_topology_spread_{c['kind']}_{c['name']}") for c in _ALL if c["kind"] in kinds
    ]


# --- builders (upstream st.MakePod / st.MakeNode) ------------------------------------------------

_OWNER_API_VERSIONS = {
    "ReplicaSet": "apps/v1",
    "StatefulSet": "apps/v1",
    "ReplicationController": "v1",
}


def make_pod(d: dict) -> dict:
    """A Pod from the case shorthand (see the case file's header)."""
    meta: dict[str, Any] = {"name": d.get("name", "pod"), "namespace": d.get("namespace", "default")}
    if d.get("labels") is not None:
        meta["labels"] = dict(d["labels"])
    if d.get("terminating"):
        meta["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    if d.get("owner"):
        kind, name = d["owner"]
        meta["ownerReferences"] = [
            {"apiVersion": _OWNER_API_VERSIONS[kind], "kind": kind, "name": name, "controller": True}
        ]
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "pause"}]}
    if d.get("node"):
        spec["nodeName"] = d["node"]
    if d.get("nodeSelector") is not None:
        spec["nodeSelector"] = dict(d["nodeSelector"])
    expressions = []
    for key, values in (d.get("nodeAffinityIn") or {}).items():
        expressions.append({"key": key, "operator": "In", "values": list(values)})
    for key, values in (d.get("nodeAffinityNotIn") or {}).items():
        expressions.append({"key": key, "operator": "NotIn", "values": list(values)})
    if expressions:
        spec["affinity"] = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": expressions}]}
            }
        }
    if d.get("tolerations"):
        spec["tolerations"] = [{"key": k, "operator": "Exists", "effect": "NoSchedule"} for k in d["tolerations"]]
    if d.get("spread"):
        spec["topologySpreadConstraints"] = [_constraint(*args) for args in d["spread"]]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def _constraint(
    max_skew: int,
    key: str,
    when: str,
    selector: dict | None,
    min_domains: int | None = None,
    affinity_policy: str | None = None,
    taints_policy: str | None = None,
    match_label_keys: list[str] | None = None,
) -> dict:
    c: dict[str, Any] = {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": when}
    if selector is not None:
        c["labelSelector"] = selector
    if min_domains is not None:
        c["minDomains"] = min_domains
    if affinity_policy is not None:
        c["nodeAffinityPolicy"] = affinity_policy
    if taints_policy is not None:
        c["nodeTaintsPolicy"] = taints_policy
    if match_label_keys is not None:
        c["matchLabelKeys"] = list(match_label_keys)
    return c


def make_node(d: dict) -> dict:
    node: dict[str, Any] = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": d["name"], "labels": dict(d.get("labels") or {})}}
    if d.get("taints"):
        node["spec"] = {"taints": [dict(t) for t in d["taints"]]}
    return node


def _env(case: dict, extra_nodes: list[dict] | None = None) -> Any:
    nodes = [make_node(n) for n in (case.get("nodes") or []) + (extra_nodes or [])]
    pods = [make_pod(p) for p in case.get("existingPods") or []]
    return build(nodes, pods, case.get("objects") or [])


def _list_args(case: dict) -> dict:
    return {"defaultingType": "List", "defaultConstraints": case.get("defaultConstraints") or []}


# --- state comparison ---------------------------------------------------------------------------

_CONSTRAINT_DEFAULTS = {"minDomains": 1, "nodeAffinityPolicy": "Honor", "nodeTaintsPolicy": "Ignore"}


def _want_constraints(want: list[dict]) -> list[dict]:
    return [{**_CONSTRAINT_DEFAULTS, **c} for c in want]


def _sorted_paths(paths: list[list[list[Any]]]) -> list[list[list[Any]]]:
    """Upstream's test comparer: two paths with equal numbers may come in either order."""
    out = []
    for (v0, n0), (v1, n1) in paths:
        if n0 == n1 and v0 > v1:
            v0, v1 = v1, v0
        out.append([[v0, n0], [v1, n1]])
    return out


def _check_pre_filter_state(state: CycleState, want: dict) -> None:
    got = state.read(PRE_FILTER_STATE_KEY).to_dict()
    if "constraints" in want:
        assert got["constraints"] == _want_constraints(want["constraints"])
    assert got["tpValueToMatchNum"] == want["tpValueToMatchNum"]
    assert _sorted_paths(got["criticalPaths"]) == _sorted_paths(want["criticalPaths"])


# --- PreFilter, AddPod, RemovePod, Filter -----------------------------------------------------------


@pytest.mark.parametrize("case", _cases("prefilter"))
def test_pre_filter_state(case: dict) -> None:
    env = _env(case)
    plugin = PodTopologySpread(_list_args(case), env.handle)
    state = CycleState()
    result, status = plugin.pre_filter(state, pod_info(make_pod(case["pod"])), env.node_infos)
    assert result is None
    assert status_dict(status) == expected_status(case.get("wantStatus"))
    if status is None:
        _check_pre_filter_state(state, case["want"])


@pytest.mark.parametrize("case", _cases("addPod", "removePod"))
def test_pre_filter_extensions(case: dict) -> None:
    env = _env(case)
    plugin = PodTopologySpread({"defaultingType": "List"}, env.handle)
    pod = pod_info(make_pod(case["pod"]))
    state = CycleState()
    _, status = plugin.pre_filter(state, pod, env.node_infos)
    assert status is None
    if case["kind"] == "addPod":
        other = make_pod(case["addedPod"])
        status = plugin.add_pod(state, pod, pod_info(other), env.snapshot.get(other["spec"]["nodeName"]))
    else:
        other = make_pod(case["removedPod"])
        status = plugin.remove_pod(state, pod, pod_info(other), env.snapshot.get(other["spec"]["nodeName"]))
    assert status is None
    _check_pre_filter_state(state, case["want"])


_REASONS = {
    "Success": [],
    "Unschedulable": [ERR_REASON_CONSTRAINTS_NOT_MATCH],
    "UnschedulableAndUnresolvable": [ERR_REASON_NODE_LABEL_NOT_MATCH],
}


@pytest.mark.parametrize("case", _cases("filter"))
def test_filter(case: dict) -> None:
    env = _env(case)
    plugin = PodTopologySpread({"defaultingType": "List"}, env.handle)
    pod = pod_info(make_pod(case["pod"]))
    got = run_filters(plugin, pod, env)
    want = {name: {"code": code, "reasons": _REASONS[code]} for name, code in case["want"].items()}
    assert {name: status_dict(s) for name, s in got.items()} == want


@pytest.mark.parametrize("case", _cases("filterWithoutPreFilter"))
def test_filter_without_pre_filter(case: dict) -> None:
    env = _env(case)
    plugin = PodTopologySpread({"defaultingType": "List"}, env.handle)
    status = plugin.filter(CycleState(), pod_info(make_pod(case["pod"])), env.node_infos[0])
    assert status_dict(status) == expected_status(case["wantStatus"])


# --- PreScore, Score, NormalizeScore -------------------------------------------------------------


@pytest.mark.parametrize("case", _cases("prescore"))
def test_pre_score_state(case: dict) -> None:
    env = _env(case)
    plugin = PodTopologySpread(case.get("args"), env.handle)
    state = CycleState()
    status = plugin.pre_score(state, pod_info(make_pod(case["pod"])), env.node_infos)
    assert status_dict(status) == expected_status(case.get("wantStatus"))
    if status is not None:
        return
    want = case["want"]
    got = state.read(PRE_SCORE_STATE_KEY).to_dict()
    assert got["constraints"] == _want_constraints(want["constraints"])
    assert got["ignoredNodes"] == sorted(want["ignoredNodes"])
    assert got["topologyValueToPodCounts"] == want["topologyValueToPodCounts"]
    assert got["topologyNormalizingWeight"] == [math.log(size + 2) for size in want["weightSizes"]]


@pytest.mark.parametrize("case", _cases("prescore"))
def test_pre_score_state_from_the_node_columns(case: dict) -> None:
    """PreScore handed the feasible nodes with their places in the node columns (as simulate
    does) reads the domains as label codes: the same state, domains in the same order."""
    from kschedctl.framework.twins import ColumnNodes
    from kschedctl.scheduler.columns import NodeColumns

    env = _env(case)
    pod = make_pod(case["pod"])
    columns = NodeColumns(env.handle.snapshot())
    nodes = list(env.node_infos)
    states = []
    for given in (nodes, ColumnNodes(nodes, columns.positions(nodes), columns)):
        state = CycleState()
        status = PodTopologySpread(case.get("args"), env.handle).pre_score(state, pod_info(pod), given)
        states.append((status_dict(status), None if status is not None else state.read(PRE_SCORE_STATE_KEY).to_dict()))
    (want_status, want), (got_status, got) = states
    assert got_status == want_status
    if want is not None:
        assert got == want
        assert [list(m.items()) for m in got["topologyValueToPodCounts"]] == [
            list(m.items()) for m in want["topologyValueToPodCounts"]]


@pytest.mark.parametrize("case", _cases("score"))
def test_score(case: dict) -> None:
    env = _env(case, case.get("failedNodes"))
    plugin = PodTopologySpread(case.get("args", {"defaultingType": "System"}), env.handle)
    names = [n["name"] for n in case["nodes"]]
    _, normalized = run_scores(plugin, pod_info(make_pod(case["pod"])), env, nodes=names)
    assert normalized == case["want"]


# --- kschedctl's own checks -------------------------------------------------------------------------

_FOO = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}
_ZONES = [
    {"name": "node-a", "labels": {"zone": "zone1", "node": "node-a"}},
    {"name": "node-b", "labels": {"zone": "zone1", "node": "node-b"}},
    {"name": "node-x", "labels": {"zone": "zone2", "node": "node-x"}},
]


def test_extension_points_match_upstream() -> None:
    assert extension_points_of(PodTopologySpread) == list(in_tree_extension_points()["PodTopologySpread"])


def test_filter_details_name_the_constraint_and_the_counts() -> None:
    case = {
        "nodes": _ZONES,
        "existingPods": [{"name": "p-a1", "node": "node-a", "labels": {"foo": ""}}],
    }
    env = _env(case)
    plugin = PodTopologySpread({"defaultingType": "List"}, env.handle)
    pod = pod_info(make_pod({"labels": {"foo": ""}, "spread": [[1, "zone", "DoNotSchedule", _FOO]]}))
    statuses = run_filters(plugin, pod, env)
    status = statuses["node-a"]
    assert status is not None and status.code == Code.Unschedulable
    assert status.details == {
        "topologyKey": "zone",
        "topologyValue": "zone1",
        "matchNum": 1,
        "selfMatchNum": 1,
        "minMatchNum": 0,
        "skew": 2,
        "maxSkew": 1,
        "domains": 2,
        "minDomains": 1,
    }
    assert statuses["node-x"] is None


def test_missing_label_details() -> None:
    env = _env({"nodes": [{"name": "n", "labels": {}}]})
    plugin = PodTopologySpread({"defaultingType": "List"}, env.handle)
    pod = pod_info(make_pod({"labels": {"foo": ""}, "spread": [[1, "zone", "DoNotSchedule", _FOO]]}))
    (status,) = run_filters(plugin, pod, env).values()
    assert status.code == Code.UnschedulableAndUnresolvable
    assert status.details == {"topologyKey": "zone"}


def test_invalid_selector_is_an_error_status() -> None:
    env = _env({"nodes": _ZONES})
    plugin = PodTopologySpread({"defaultingType": "List"}, env.handle)
    bad = {"matchExpressions": [{"key": "foo", "operator": "Bogus"}]}
    pod = pod_info(make_pod({"labels": {"foo": ""}, "spread": [[1, "zone", "DoNotSchedule", bad], [1, "zone", "ScheduleAnyway", bad]]}))
    _, status = plugin.pre_filter(CycleState(), pod, env.node_infos)
    assert status is not None and status.code == Code.Error
    assert status.reasons[0].startswith("get constraints from pod: obtaining pod's hard topology spread constraints: ")
    status = plugin.pre_score(CycleState(), pod, env.node_infos)
    assert status is not None and status.code == Code.Error
    assert status.reasons[0].startswith("calculating preScoreState: obtaining pod's soft topology spread constraints: ")


def test_score_without_pre_score_is_an_error() -> None:
    env = _env({"nodes": _ZONES})
    plugin = PodTopologySpread(None, env.handle)
    pod = pod_info(make_pod({}))
    score, status = plugin.score(CycleState(), pod, env.node_infos[0])
    assert score == 0 and status is not None and status.code == Code.Error
    assert status.reasons == ['error reading "PreScorePodTopologySpread" from cycleState: not found']


def test_no_nodes_skips_pre_score() -> None:
    env = build([])
    plugin = PodTopologySpread(None, env.handle)
    pod = pod_info(make_pod({"spread": [[1, "zone", "ScheduleAnyway", _FOO]]}))
    assert plugin.pre_score(CycleState(), pod, []).code == Code.Skip


def test_none_args_mean_system_defaulting_through_a_service() -> None:
    """Default args (System) give every pod selected by a Service the two soft system constraints."""
    nodes = [
        {"name": "n1", "labels": {"kubernetes.io/hostname": "n1", "topology.kubernetes.io/zone": "z1"}},
        {"name": "n2", "labels": {"kubernetes.io/hostname": "n2", "topology.kubernetes.io/zone": "z2"}},
    ]
    case = {
        "nodes": nodes,
        "existingPods": [{"name": "old", "node": "n1", "labels": {"app": "web"}}],
        "objects": [{"kind": "Service", "apiVersion": "v1", "metadata": {"name": "web"}, "spec": {"selector": {"app": "web"}}}],
    }
    env = _env(case)
    plugin = PodTopologySpread(None, env.handle)
    pod = pod_info(make_pod({"name": "new", "labels": {"app": "web"}}))
    # No hard constraints among the system defaults: PreFilter skips.
    _, status = plugin.pre_filter(CycleState(), pod, env.node_infos)
    assert status is not None and status.code == Code.Skip
    raw, normalized = run_scores(plugin, pod, env)
    assert normalized["n2"] == 100 and normalized["n1"] < 100
    # Without the service the pod has no default selector: PreScore skips.
    env2 = _env({**case, "objects": []})
    assert run_scores(PodTopologySpread(None, env2.handle), pod, env2) == ({}, {})


def test_match_label_keys_merged_by_the_api_server_give_the_same_state() -> None:
    """v1.34's API server merges matchLabelKeys into labelSelector; merging again changes nothing."""
    case = {
        "nodes": _ZONES,
        "existingPods": [
            {"name": "p-a1", "node": "node-a", "labels": {"foo": "", "hash": "1"}},
            {"name": "p-x1", "node": "node-x", "labels": {"foo": "", "hash": "2"}},
        ],
    }
    env = _env(case)
    plugin = PodTopologySpread({"defaultingType": "List"}, env.handle)
    raw = make_pod({"labels": {"foo": "", "hash": "1"}, "spread": [[1, "zone", "DoNotSchedule", _FOO, None, None, None, ["hash"]]]})
    merged = make_pod({"labels": {"foo": "", "hash": "1"}, "spread": [[1, "zone", "DoNotSchedule", {
        "matchExpressions": [{"key": "foo", "operator": "Exists"}, {"key": "hash", "operator": "In", "values": ["1"]}]
    }, None, None, None, ["hash"]]]})
    states = []
    for pod in (raw, merged):
        state = CycleState()
        assert plugin.pre_filter(state, pod_info(pod), env.node_infos)[1] is None
        states.append(state.read(PRE_FILTER_STATE_KEY).to_dict()["tpValueToMatchNum"])
    assert states[0] == states[1] == [{"zone1": 1, "zone2": 0}]


def test_clone_keeps_add_pod_changes_apart() -> None:
    env = _env({"nodes": _ZONES})
    plugin = PodTopologySpread({"defaultingType": "List"}, env.handle)
    pod = pod_info(make_pod({"labels": {"foo": ""}, "spread": [[1, "zone", "DoNotSchedule", _FOO]]}))
    state = CycleState()
    plugin.pre_filter(state, pod, env.node_infos)
    copy = state.clone()
    other = pod_info(make_pod({"name": "o", "node": "node-x", "labels": {"foo": ""}}))
    assert plugin.add_pod(copy, pod, other, env.snapshot.get("node-x")) is None
    assert state.read(PRE_FILTER_STATE_KEY).to_dict()["tpValueToMatchNum"] == [{"zone1": 0, "zone2": 0}]
    assert copy.read(PRE_FILTER_STATE_KEY).to_dict()["tpValueToMatchNum"] == [{"zone1": 0, "zone2": 1}]
    assert plugin.filter(copy, pod, env.snapshot.get("node-x")).code == Code.Unschedulable
    assert plugin.remove_pod(copy, pod, other, env.snapshot.get("node-x")) is None
    assert plugin.filter(copy, pod, env.snapshot.get("node-x")) is None


def test_critical_paths_keep_upstream_update_rules() -> None:
    p = CriticalPaths()
    for value, num in (("a", 0), ("b", 0), ("c", 0)):
        p.update(value, num)
    assert p.as_list() == [["a", 0], ["b", 0]]
    p.update("a", 1)  # a moves up, b becomes the minimum
    assert p.as_list() == [["b", 0], ["a", 1]]
    p.update("b", 1)  # c (0) is not tracked any more: upstream's approximation after updates
    assert p.as_list() == [["b", 1], ["a", 1]]


def _spread_cycle_calls(nodes_count: int) -> int:
    nodes = [
        {"metadata": {"name": f"n{i}", "labels": {"kubernetes.io/hostname": f"n{i}", "zone": f"z{i % 10}"}}}
        for i in range(nodes_count)
    ]
    pods = [
        PodInfo({"metadata": {"name": f"p{j}", "namespace": "default", "labels": {"app": f"a{j % 7}"}},
                 "spec": {"nodeName": f"n{j % nodes_count}"}})
        for j in range(nodes_count * 10)
    ]
    snapshot = Snapshot(nodes, pods)
    plugin = PodTopologySpread({"defaultingType": "List"}, None)
    pod = pod_info(make_pod({"labels": {"app": "a1"}, "spread": [
        [1, "zone", "DoNotSchedule", {"matchLabels": {"app": "a1"}}],
        [1, "kubernetes.io/hostname", "DoNotSchedule", {"matchLabels": {"app": "a1"}}],
    ]}))

    def cycle() -> Any:
        state = CycleState()
        status = plugin.pre_filter(state, pod, snapshot.node_infos())[1]
        for ni in snapshot.node_infos():
            plugin.filter(state, pod, ni)
        return status

    status, calls = calls_made(cycle)
    assert status is None
    return calls


def test_large_cluster_pre_filter_and_filter_are_fast() -> None:
    """One walk over the nodes in PreFilter; Filter is a few lookups per node: four times the
    nodes and pods make at most five times the calls (counted, not timed)."""
    small, large = _spread_cycle_calls(250), _spread_cycle_calls(1000)
    assert large <= 5 * small, (small, large)


def _spread_pod(name: str, app: str, node: str | None = None) -> PodInfo:
    spec: dict[str, Any] = {"topologySpreadConstraints": [{
        "maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"app": "web"}}}]}
    if node is not None:
        spec["nodeName"] = node
    return PodInfo({"metadata": {"name": name, "namespace": "default", "labels": {"app": app}}, "spec": spec})


@pytest.mark.parametrize("changes", ["pods added", "pods added and removed", "a node moved zone", "log overrun"])
def test_pre_filter_cache_read_from_the_change_log_counts_as_a_fresh_walk(changes: str) -> None:
    """The cache over a snapshot's node list recounts only the nodes the change log names; after
    each change its counts equal a walk without the cache (a zone change or a log overrun
    recounts everything)."""
    from kschedctl.framework.types import NODE_CHANGES
    from kschedctl.plugins.pod_topology_spread.filtering import PreFilterCache, calculate_pre_filter_state

    nodes = [{"metadata": {"name": f"n{i}", "labels": {"zone": f"z{i % 3}"}},
              "status": {"allocatable": {"cpu": "4", "memory": "4Gi", "pods": "110"}}} for i in range(9)]
    snapshot = Snapshot(nodes, [_spread_pod(f"e{i}", "web" if i % 2 else "db", f"n{i % 9}") for i in range(12)])
    plugin = PodTopologySpread()
    incoming = _spread_pod("incoming", "web")
    constraints = plugin.get_constraints(incoming, "DoNotSchedule")
    cache = PreFilterCache()
    node_infos = snapshot.node_infos()

    def both() -> tuple[Any, Any]:
        cached = calculate_pre_filter_state(constraints, incoming, node_infos, cache)
        fresh = calculate_pre_filter_state(constraints, incoming, node_infos, None)
        return cached.tp_value_to_match_num, fresh.tp_value_to_match_num

    assert both()[0] == both()[1]
    added = []
    for step in range(6):
        pod = _spread_pod(f"p{step}", "web" if step % 3 else "db", f"n{(step * 4) % 9}")
        node_infos[(step * 4) % 9].add_pod(pod)
        added.append(((step * 4) % 9, pod))
        if changes == "pods added and removed" and step % 2:
            i, gone = added.pop(0)
            node_infos[i].remove_pod(gone)
        if changes == "a node moved zone" and step == 3:
            moved = dict(nodes[5], metadata={"name": "n5", "labels": {"zone": "z9"}})
            node_infos[5].set_node(moved)
        if changes == "log overrun" and step == 2:
            spare = Snapshot(nodes[:1]).node_infos()[0]
            for _ in range(NODE_CHANGES.deltas.maxlen + 1):
                spare.remove_node()
        cached, fresh = both()
        assert cached == fresh, step
    assert sum(cached[0].values()) > 6  # the pods placed were counted


def test_default_constraints_are_built_once_per_pod_shape_and_cluster() -> None:
    """The system default constraints of a pod with no constraints of its own take their selector
    from the cluster's Services and the pod's controller: built once per pod shape (namespace,
    labels, controller) and cluster; a pod of another shape, or another cluster (one with a new
    Service), gets its own."""
    from types import SimpleNamespace

    def service(name: str, app: str) -> dict:
        return {"kind": "Service", "metadata": {"name": name, "namespace": "default"}, "spec": {"selector": {"app": app}}}

    def replica(name: str, app: str, owner: str = "web-rs") -> PodInfo:
        return PodInfo({"metadata": {"name": name, "namespace": "default", "labels": {"app": app},
                                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                                          "name": owner, "controller": True}]}, "spec": {}})

    cluster = SimpleNamespace(services=[service("web", "web")], replication_controllers=[], replica_sets=[],
                              stateful_sets=[])
    handle = SimpleNamespace(cluster=lambda: cluster)
    plugin = PodTopologySpread(None, handle)
    first = plugin.get_constraints(replica("a", "web"), "ScheduleAnyway")
    assert [(c.topology_key, c.selector.label_set) for c in first] == [
        ("kubernetes.io/hostname", {"app": "web"}), ("topology.kubernetes.io/zone", {"app": "web"})]
    again = plugin.get_constraints(replica("b", "web"), "ScheduleAnyway")
    assert again == first and again is not first and all(x is y for x, y in zip(again, first))
    assert plugin.get_constraints(replica("c", "db"), "ScheduleAnyway") == []  # no Service, no selector
    assert plugin.get_constraints(replica("a", "web"), "DoNotSchedule") == []  # none of that action
    cluster = SimpleNamespace(services=[service("web", "web"), service("all", "db")], replication_controllers=[],
                              replica_sets=[], stateful_sets=[])
    assert [c.selector.label_set for c in plugin.get_constraints(replica("c", "db"), "ScheduleAnyway")] == [
        {"app": "db"}, {"app": "db"}]
