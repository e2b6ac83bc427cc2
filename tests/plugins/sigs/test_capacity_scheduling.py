"""CapacityScheduling: upstream's PreFilter, PostFilter, Reserve/Unreserve tables, and quotas from the cluster."""

from __future__ import annotations

import pytest

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.runtime import Framework, FrameworkHandle, NodeToStatus
from kschedctl.framework.snapshot import Snapshot
from kschedctl.framework.status import Code, Status
from kschedctl.k8s.resources import Resource
from kschedctl.plugins.node_resources_fit import NodeResourcesFit
from kschedctl.plugins.sigs.capacity_scheduling import (
    ELASTIC_QUOTA_SNAPSHOT_KEY,
    PRE_FILTER_STATE_KEY,
    CapacityScheduling,
    ElasticQuotaSnapshotState,
    PreFilterState,
)
from kschedctl.plugins.sigs.elastic_quota import ElasticQuotaInfo, ElasticQuotaInfos, compute_pod_resource_request
from tests.plugins.harness import build, pod_info

LOW, MID, HIGH = 0, 10, 100


def make_pod(name: str, namespace: str, mem: int, cpu: int = 0, priority: int = 0, node: str = "",
             gpu: int = 0) -> dict:
    spec: dict = {"priority": priority, "containers": [{"name": "pause", "resources": {"requests": {
        "memory": str(mem), "cpu": f"{cpu}m", "nvidia.com/gpu": str(gpu)}}}]}
    if node:
        spec["nodeName"] = node
    return {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": name, "namespace": namespace, "uid": name},
            "spec": spec}


def eq_info(ns: str, mn: int | None, mx: int | None, used: int) -> ElasticQuotaInfo:
    return ElasticQuotaInfo(ns, None if mn is None else Resource(memory=mn), None if mx is None else Resource(memory=mx),
                            Resource(memory=used))


PREFILTER = [
    ("pod subjects to ElasticQuota", [("ns1-p1", "ns1", 500), ("ns1-p2", "ns1", 1800)],
     {"ns1": (1000, 2000, 300)}, [Code.Success, Code.Unschedulable]),
    ("the sum of used is bigger than the sum of min", [("ns2-p1", "ns2", 500)],
     {"ns1": (1000, 2000, 1800), "ns2": (1000, 2000, 200)}, [Code.Unschedulable]),
    ("without elasticQuotaInfo", [("ns2-p1", "ns2", 500)], {}, [Code.Success]),
]


@pytest.mark.parametrize("name, pods, quotas, codes", PREFILTER, ids=[f"CapacityScheduling_{c[0]}" for c in PREFILTER])
def test_pre_filter(name: str, pods: list, quotas: dict, codes: list) -> None:
    env = build([])
    plugin = CapacityScheduling(None, env.handle)
    plugin.elastic_quota_infos = ElasticQuotaInfos({ns: eq_info(ns, *v) for ns, v in quotas.items()})
    state = CycleState()
    for (pname, ns, mem), code in zip(pods, codes):
        _, status = plugin.pre_filter(state, pod_info(make_pod(pname, ns, mem)), [])
        assert status.code == code, status


def test_pre_filter_reasons() -> None:
    env = build([])
    plugin = CapacityScheduling(None, env.handle)
    plugin.elastic_quota_infos = ElasticQuotaInfos({"ns1": eq_info("ns1", 1000, 2000, 300),
                                                    "ns2": eq_info("ns2", 100, 2000, 200)})
    _, over_max = plugin.pre_filter(CycleState(), pod_info(make_pod("p", "ns1", 1800)), [])
    assert over_max.reasons == ["Pod ns1/p is rejected in PreFilter because ElasticQuota ns1 is more than Max"]
    _, over_min = plugin.pre_filter(CycleState(), pod_info(make_pod("q", "ns1", 700)), [])
    assert over_min.reasons == ["Pod ns1/q is rejected in PreFilter because total ElasticQuota used is more than min"]


POSTFILTER = [
    ("in-namespace preemption", {"ns1": (50, 200, 50), "ns2": (200, 200, 100)}, ["ns1/t1-p2"]),
    ("cross-namespace preemption", {"ns1": (150, 200, 50), "ns2": (50, 200, 100)}, None),
    ("without elasticQuotas", {}, None),
]


@pytest.mark.parametrize("name, quotas, victims", POSTFILTER, ids=[f"CapacityScheduling_{c[0]}" for c in POSTFILTER])
def test_post_filter(name: str, quotas: dict, victims: list | None) -> None:
    preemptor = pod_info(make_pod("t1-p1", "ns1", 50, priority=HIGH))
    existing = [make_pod("t1-p2", "ns1", 50, priority=MID, node="node-a"),
                make_pod("t1-p3", "ns2", 50, priority=MID, node="node-a"),
                make_pod("t1-p4", "ns2", 50, priority=MID, node="node-a")]
    node = {"metadata": {"name": "node-a"}, "status": {"capacity": {"memory": "150", "pods": "110"},
                                                        "allocatable": {"memory": "150", "pods": "110"}}}
    snapshot = Snapshot([node], [pod_info(p) for p in existing])
    handle = FrameworkHandle(snapshot, build([]).handle.cluster())
    fit = NodeResourcesFit(None, handle)
    plugin = CapacityScheduling(None, handle)
    infos = ElasticQuotaInfos({ns: eq_info(ns, *v) for ns, v in quotas.items()})
    plugin.elastic_quota_infos = infos
    Framework("default-scheduler", {"preFilter": [fit], "filter": [fit], "postFilter": [plugin]}, handle=handle)
    state = CycleState()
    fit.pre_filter(state, preemptor, snapshot.node_infos())
    req = compute_pod_resource_request(preemptor.pod)
    state.write(PRE_FILTER_STATE_KEY, PreFilterState(req, req.clone(), req.clone()))
    state.write(ELASTIC_QUOTA_SNAPSHOT_KEY, ElasticQuotaSnapshotState(infos))
    result, status = plugin.post_filter(state, preemptor, NodeToStatus({"node-a": Status(Code.Unschedulable)}))
    assert status.code == Code.Success, status
    assert result.nominated_node_name == "node-a"
    if victims is not None:
        assert result.victims == victims


def test_post_filter_without_candidates_reports_a_fit_error() -> None:
    node = {"metadata": {"name": "node-a"}, "status": {"allocatable": {"memory": "150", "pods": "110"}}}
    snapshot = Snapshot([node], [pod_info(make_pod("t1-p2", "ns1", 50, priority=HIGH, node="node-a"))])
    handle = FrameworkHandle(snapshot, build([]).handle.cluster())
    plugin = CapacityScheduling(None, handle)
    Framework("p", {"postFilter": [plugin]}, handle=handle)
    state = CycleState()
    preemptor = pod_info(make_pod("t1-p1", "ns1", 200, priority=MID))
    plugin.pre_filter(state, preemptor, snapshot.node_infos())
    _, status = plugin.post_filter(state, preemptor, NodeToStatus({"node-a": Status(Code.Unschedulable)}))
    assert status.code == Code.Unschedulable
    assert status.reasons == ["0/1 nodes are available: 1 No victims found on node node-a for preemptor pod t1-p1."]


def test_reserve_and_unreserve() -> None:
    """Upstream TestReserve / TestUnreserve: only pods of a namespace with a quota count, once each."""
    plugin = CapacityScheduling(None, build([]).handle)
    plugin.elastic_quota_infos = ElasticQuotaInfos({"ns1": eq_info("ns1", 1000, 2000, 300)})
    p1 = pod_info(make_pod("t1-p1", "ns1", 50, priority=MID, node="node-a"))
    p2 = pod_info(make_pod("t1-p2", "ns2", 50, priority=MID, node="node-a"))
    for p in (p1, p2, p1):
        assert plugin.reserve(CycleState(), p, "node-a").code == Code.Success
        info = plugin.elastic_quota_infos["ns1"]
        assert info.pods == {"t1-p1"} and info.used.memory == 350
    plugin.unreserve(CycleState(), p1, "node-a")
    plugin.unreserve(CycleState(), p1, "node-a")
    assert plugin.elastic_quota_infos["ns1"].pods == set()
    assert plugin.elastic_quota_infos["ns1"].used.memory == 300


def test_quotas_come_from_the_cluster() -> None:
    eq = {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "ElasticQuota",
          "metadata": {"name": "quota1", "namespace": "quota1"}, "spec": {"max": {"cpu": "6"}, "min": {"cpu": "4"}}}
    nodes = [{"metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "16", "memory": "32Gi", "pods": "110"}}}]
    pods = [make_pod("a", "quota1", 0, cpu=3000, node="n1"), make_pod("b", "other", 0, cpu=1000, node="n1")]
    env = build(nodes, pods, [eq])
    plugin = CapacityScheduling(None, env.handle)
    info = plugin.elastic_quota_infos["quota1"]
    assert (info.min.milli_cpu, info.max.milli_cpu, info.used.milli_cpu) == (4000, 6000, 3000)
    # No memory in max: upstream reads that as a max of 0 memory, and 0 requested memory is within it.
    _, ok = plugin.pre_filter(CycleState(), pod_info(make_pod("c", "quota1", 0, cpu=1000)), env.node_infos)
    assert ok.code == Code.Success
    _, over = plugin.pre_filter(CycleState(), pod_info(make_pod("d", "quota1", 0, cpu=4000)), env.node_infos)
    assert over.reasons == ["Pod quota1/d is rejected in PreFilter because ElasticQuota quota1 is more than Max"]


def test_quota_without_min_and_max_uses_the_bounds() -> None:
    info = ElasticQuotaInfo.from_spec("ns", {})
    assert info.min == Resource() and info.max.memory == 2**63 - 1
    assert not info.used_over_max_with(Resource(milli_cpu=10**6))
