"""CrossNodePreemption: upstream's TestFindCandidates ("resolve PodAntiAffinity constraint") and resource cases."""

from __future__ import annotations

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.runtime import Framework, FrameworkHandle, NodeToStatus
from kschedctl.framework.snapshot import Snapshot
from kschedctl.framework.status import Code, Status
from kschedctl.plugins.registry import Registry
from kschedctl.plugins.sigs.cross_node_preemption import MAX_PODS, CrossNodePreemption
from tests.plugins.harness import build, pod_info


def _pod(name: str, node: str = "", priority: int = 0, labels: dict | None = None, mem: str = "", **spec) -> dict:
    s: dict = {"priority": priority, "containers": [{"name": "c"}], **spec}
    if mem:
        s["containers"][0]["resources"] = {"requests": {"memory": mem}}
    if node:
        s["nodeName"] = node
    return {"kind": "Pod", "metadata": {"name": name, "namespace": "default", "uid": name, "labels": labels or {}},
            "spec": s}


def _framework(nodes: list[dict], pods: list[dict], plugin_names: list[str]):
    snapshot = Snapshot(nodes, [pod_info(p) for p in pods])
    handle = FrameworkHandle(snapshot, build([]).handle.cluster())
    registry = Registry()
    plugins = [registry.build(n, None, handle) for n in plugin_names]
    cross = CrossNodePreemption(None, handle)
    pre = [p for p in plugins if callable(getattr(p, "pre_filter", None))]
    Framework("p", {"preFilter": pre, "filter": plugins, "postFilter": [cross]}, handle=handle)
    return snapshot, handle, pre, cross


def _prefilter(pre, state, pod, snapshot) -> None:
    for p in pre:
        _, s = p.pre_filter(state, pod, snapshot.node_infos())
        if s is not None and s.code == Code.Skip:
            state.skip_filter_plugins.add(p.name)


def test_resolve_pod_anti_affinity_constraint() -> None:
    nodes = [{"metadata": {"name": "node-a", "labels": {"zone": "zone1", "node": "node-a"}},
              "status": {"allocatable": {"pods": "110"}}},
             {"metadata": {"name": "node-b", "labels": {"zone": "zone1", "node": "node-b"}},
              "status": {"allocatable": {"pods": "110"}}},
             {"metadata": {"name": "node-x", "labels": {"zone": "zone2", "node": "node-x"}},
              "status": {"allocatable": {"pods": "1"}}}]
    pods = [_pod("pod-a", "node-a", labels={"foo": ""}), _pod("pod-b", "node-b", labels={"foo": ""}),
            _pod("pod-x", "node-x", priority=100)]
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}, "topologyKey": "zone"}]}}
    snapshot, handle, pre, cross = _framework(nodes, pods, ["NodeResourcesFit", "InterPodAffinity"])
    preemptor = pod_info(_pod("p", priority=100, labels={"foo": ""}, affinity=anti))
    state = CycleState()
    _prefilter(pre, state, preemptor, snapshot)
    candidates = []
    from kschedctl.plugins.sigs.cross_node_preemption import _dfs

    lower = [pi for n in snapshot.node_infos() for pi in n.pods if pi.priority < 100]
    _dfs(lower, 0, [], lambda chosen: candidates.extend(cross._dry_run(state, preemptor, chosen)))
    got = sorted((c.name, sorted(v.name for v in c.victims)) for c in candidates)
    assert got == [("node-a", ["pod-a", "pod-b"]), ("node-b", ["pod-a", "pod-b"])]
    unschedulable = NodeToStatus({n: Status(Code.Unschedulable) for n in ("node-a", "node-b", "node-x")})
    result, status = cross.post_filter(state, preemptor, unschedulable)
    assert status.code == Code.Success and result.nominated_node_name in ("node-a", "node-b")


def test_preempts_a_lower_priority_pod() -> None:
    nodes = [{"metadata": {"name": "n1"}, "status": {"allocatable": {"memory": "100", "pods": "110"}}}]
    snapshot, handle, pre, cross = _framework(nodes, [_pod("low", "n1", mem="80")], ["NodeResourcesFit"])
    preemptor = pod_info(_pod("high", priority=10, mem="50"))
    state = CycleState()
    _prefilter(pre, state, preemptor, snapshot)
    result, status = cross.post_filter(state, preemptor, NodeToStatus({"n1": Status(Code.Unschedulable)}))
    assert status.code == Code.Success
    assert (result.nominated_node_name, result.victims) == ("n1", ["default/low"])


def test_no_candidate_and_too_many_pods() -> None:
    nodes = [{"metadata": {"name": "n1"}, "status": {"allocatable": {"memory": "100", "pods": "110"}}}]
    snapshot, handle, pre, cross = _framework(nodes, [_pod("same", "n1", priority=10, mem="80")], ["NodeResourcesFit"])
    preemptor = pod_info(_pod("high", priority=10, mem="50"))
    result, status = cross.post_filter(CycleState(), preemptor, NodeToStatus({"n1": Status(Code.Unschedulable)}))
    assert status.code == Code.Unschedulable and result is None
    many = [_pod(f"p{i}", "n1", mem="1") for i in range(MAX_PODS + 1)]
    snapshot, handle, pre, cross = _framework(nodes, many, ["NodeResourcesFit"])
    _, status = cross.post_filter(CycleState(), preemptor, NodeToStatus({"n1": Status(Code.Unschedulable)}))
    assert status.code == Code.Error and "2^17" in status.reasons[0]
