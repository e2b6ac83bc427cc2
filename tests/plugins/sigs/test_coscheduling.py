"""Coscheduling: upstream's PreFilter, Permit, PostFilter, reject-threshold and Less tables, and the backoff."""

from __future__ import annotations

import pytest

from kschedctl.errors import InputError
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interfaces import QueuedPodInfo
from kschedctl.framework.runtime import NodeToStatus
from kschedctl.framework.status import Code
from kschedctl.plugins.sigs.coscheduling import Coscheduling
from kschedctl.plugins.sigs.podgroup import POD_GROUP_LABEL
from tests.plugins.harness import build, pod_info
from tests.plugins.sigs._cases import load

BASE = 1_700_000_000  # "now" of upstream's tests, as epoch seconds


def _pod(spec: dict) -> dict:
    meta: dict = {"name": spec["name"], "namespace": spec.get("namespace", "ns"), "uid": spec["name"]}
    if spec.get("group"):
        meta["labels"] = {POD_GROUP_LABEL: spec["group"]}
    pod_spec: dict = {"containers": [{"name": "c"}]}
    if spec.get("node"):
        pod_spec["nodeName"] = spec["node"]
    if spec.get("gated"):
        pod_spec["schedulingGates"] = [{"name": "example-gate"}]
    if "prio" in spec:
        pod_spec["priority"] = spec["prio"]
    return {"kind": "Pod", "apiVersion": "v1", "metadata": meta, "spec": pod_spec}


def _pg(spec: dict) -> dict:
    meta: dict = {"name": spec["name"], "namespace": spec.get("namespace", "ns")}
    if "created" in spec:
        from datetime import datetime, timezone

        meta["creationTimestamp"] = datetime.fromtimestamp(BASE + spec["created"], timezone.utc).strftime(
            "%Y-%m-%dT%H:%M:%SZ")
    pg_spec = {k: v for k, v in spec.items() if k in ("minMember", "minResources", "scheduleTimeoutSeconds")}
    return {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup", "metadata": meta, "spec": pg_spec}


def _env(case: dict, nodes: list[str]):
    node_objs = [{"metadata": {"name": n}, "status": {"allocatable": {"cpu": "4", "pods": "110"},
                                                      "capacity": {"cpu": "4", "pods": "110"}}} for n in nodes]
    pods = [_pod(p) for p in case.get("pods") or []]
    return build(node_objs, pods, [_pg(pg) for pg in case.get("pgs") or []])


def _plugin(env, **args) -> Coscheduling:
    return Coscheduling({"permitWaitingTimeSeconds": 10, **args}, env.handle)


@pytest.mark.parametrize("case", load(__file__, "coscheduling", "Coscheduling", "prefilter"))
def test_pre_filter(case: dict) -> None:
    env = _env(case, ["node-a", "node-b"])
    _, status = _plugin(env).pre_filter(CycleState(), pod_info(_pod(case["pod"])), env.node_infos)
    assert (status.code == Code.Success) is case["success"]
    if not case["success"]:
        assert status.code == Code.UnschedulableAndUnresolvable
    if "reason" in case:
        assert status.reasons == [case["reason"]]


@pytest.mark.parametrize("case", load(__file__, "coscheduling", "Coscheduling", "permit"))
def test_permit(case: dict) -> None:
    env = _env(case, ["node"])
    status, timeout = _plugin(env).permit(CycleState(), pod_info(_pod(case["pod"])), "node")
    assert status.code.name == case["code"]
    assert status.reasons == case.get("reasons", [] if case["code"] == "Wait" else status.reasons)
    assert timeout == case.get("timeout", 0)


@pytest.mark.parametrize("case", load(__file__, "coscheduling", "Coscheduling", "postfilter"))
def test_post_filter(case: dict) -> None:
    env = _env(case, ["node"])
    result, status = _plugin(env).post_filter(CycleState(), pod_info(_pod(case["pod"])), NodeToStatus())
    assert status.code == Code.Unschedulable
    assert status.reasons == case["reasons"]
    assert result is not None and result.nominated_node_name == ""


@pytest.mark.parametrize("case", load(__file__, "coscheduling", "Coscheduling", "reject_threshold"))
def test_post_filter_reject_threshold(case: dict) -> None:
    assigned = [{"name": f"assigned-{i}", "group": "pg1", "node": "node"} for i in range(case["assigned"])]
    env = _env({"pods": assigned, "pgs": [{"name": "pg1", "minMember": case["minMember"]}]}, ["node"])
    plugin = _plugin(env, podGroupRejectPercentage=case["percentage"])
    _, status = plugin.post_filter(CycleState(), pod_info(_pod({"name": "p", "group": "pg1"})), NodeToStatus())
    want = ["PodGroup ns/pg1 gets rejected due to Pod p is unschedulable even after PostFilter"] if case["reject"] else []
    assert status.code == Code.Unschedulable and status.reasons == want


@pytest.mark.parametrize("case", load(__file__, "coscheduling", "Coscheduling", "less"))
def test_less(case: dict) -> None:
    env = _env({"pgs": case.get("pgs")}, ["node"])
    plugin = _plugin(env)

    def queued(name: str, spec: dict) -> QueuedPodInfo:
        pod = _pod({"name": name, "namespace": spec["ns"], "prio": spec["prio"], "group": spec.get("group")})
        return QueuedPodInfo(pod_info(pod), timestamp=float(BASE + spec.get("t", 0)))

    assert plugin.less(queued("p1", case["p1"]), queued("p2", case["p2"])) is case["want"]


def test_less_after_schedule_failure() -> None:
    """Upstream TestLessAfterScheduleFailure: a failed group goes behind, until the failure is cleared."""
    env = _env({"pgs": [{"name": "pg1", "minMember": 3, "created": -10},
                        {"name": "pg2", "minMember": 3, "created": -5}]}, ["node"])
    plugin = _plugin(env)
    p1 = QueuedPodInfo(pod_info(_pod({"name": "p1", "prio": 100, "group": "pg1"})), timestamp=float(BASE))
    p2 = QueuedPodInfo(pod_info(_pod({"name": "p2", "prio": 100, "group": "pg2"})), timestamp=float(BASE))
    assert plugin.less(p1, p2)
    plugin.mark_pod_group_schedule_failure("ns/pg1")
    assert not plugin.less(p1, p2) and plugin.less(p2, p1)
    plugin.clear_pod_group_schedule_failure("ns/pg1")
    assert plugin.less(p1, p2)


def test_pod_group_backoff_time() -> None:
    """Upstream TestPodGroupBackoffTime: after a PostFilter rejection the group backs off at PreFilter."""
    pods = [{"name": f"pod{i}", "group": "pg1"} for i in (1, 2, 3)]
    env = _env({"pods": pods, "pgs": [{"name": "pg1", "minMember": 3}]}, ["node"])
    plugin = _plugin(env, podGroupBackoffSeconds=1)
    status, _ = plugin.permit(CycleState(), pod_info(_pod(pods[0])), "test")
    assert status.code == Code.Wait
    plugin.post_filter(CycleState(), pod_info(_pod(pods[1])), NodeToStatus())
    _, status = plugin.pre_filter(CycleState(), pod_info(_pod(pods[2])), env.node_infos)
    assert status.code == Code.UnschedulableAndUnresolvable
    assert status.reasons == ["podGroup ns/pg1 failed recently"]


@pytest.mark.parametrize("args, message", [
    ({"permitWaitingTimeSeconds": -1}, "permitWaitingTimeSeconds: Invalid value: -1: must be greater than 0"),
    ({"podGroupBackoffSeconds": -1}, "podGroupBackoffSeconds: Invalid value: -1: must be greater than 0"),
    ({"podGroupRejectPercentage": 101}, "podGroupRejectPercentage: Invalid value: 101: must be between 0 and 100"),
], ids=["Coscheduling_negative wait", "Coscheduling_negative backoff", "Coscheduling_percentage over 100"])
def test_args(args: dict, message: str) -> None:
    with pytest.raises(InputError) as err:
        Coscheduling(args, None)
    assert message in str(err.value)


# -- what Coscheduling does to the pods waiting at Permit (coscheduling.go v0.34.7) ------------


def _waiting(env, *specs: dict) -> list:
    from kschedctl.framework.runtime import WaitingPod

    out = []
    for spec in specs:
        wp = WaitingPod(pod_info(_pod(spec)), spec["node"], {"Coscheduling": 10.0})
        env.handle.waiting_pods.add(wp)
        out.append(wp)
    return out


def _group_env(assigned: int, waiting_specs: list[dict], min_member: int = 3):
    """``assigned`` bound pods of pg1, and pods waiting at Permit (assumed on the node, so they
    count as assigned too, as upstream's assignedPodsByPG counts them)."""
    waiting_specs = [{"group": "pg1", "namespace": "ns", "node": "node", **s} for s in waiting_specs]
    pods = [{"name": f"a{i}", "group": "pg1", "node": "node"} for i in range(assigned)] + waiting_specs
    pgs = [{"name": "pg1", "minMember": min_member}, {"name": "pg2", "minMember": 1}]
    env = _env({"pods": pods, "pgs": pgs}, ["node"])
    return env, _waiting(env, *waiting_specs)


def test_permit_at_quorum_allows_the_waiting_pods_of_its_group_only() -> None:
    env, (mine, other_group) = _group_env(1, [{"name": "w"}, {"name": "x", "group": "pg2"}])
    status, _ = _plugin(env).permit(CycleState(), pod_info(_pod({"name": "p", "group": "pg1"})), "node")
    assert status.code == Code.Success
    assert mine.status is not None and mine.status.code == Code.Success
    assert other_group.status is None


def test_permit_below_quorum_waits_and_asks_for_the_siblings() -> None:
    from kschedctl.framework.cycle_state import PODS_TO_ACTIVATE_KEY, PodsToActivate

    env = _env({"pods": [{"name": "p", "group": "pg1"}, {"name": "s1", "group": "pg1"},
                         {"name": "s2", "group": "pg1"}, {"name": "z", "group": "pg2"}],
                "pgs": [{"name": "pg1", "minMember": 3}, {"name": "pg2", "minMember": 1}]}, ["node"])
    state = CycleState()
    state.write(PODS_TO_ACTIVATE_KEY, PodsToActivate())
    status, timeout = _plugin(env).permit(state, pod_info(_pod({"name": "p", "group": "pg1"})), "node")
    assert (status.code, timeout) == (Code.Wait, 10.0)
    assert sorted(state.read(PODS_TO_ACTIVATE_KEY).map) == ["ns/s1", "ns/s2"]


def test_only_the_first_pod_to_wait_asks_for_the_siblings() -> None:
    from kschedctl.framework.cycle_state import PODS_TO_ACTIVATE_KEY, PodsToActivate

    env = _env({"pods": [{"name": "a0", "group": "pg1", "node": "node"}, {"name": "p", "group": "pg1"},
                         {"name": "s1", "group": "pg1"}], "pgs": [{"name": "pg1", "minMember": 3}]}, ["node"])
    state = CycleState()
    state.write(PODS_TO_ACTIVATE_KEY, PodsToActivate())
    status, _ = _plugin(env).permit(state, pod_info(_pod({"name": "p", "group": "pg1"})), "node")
    assert status.code == Code.Wait and state.read(PODS_TO_ACTIVATE_KEY).map == {}


def test_post_filter_rejects_the_waiting_pods_of_the_group() -> None:
    env, (mine, same_name_other_ns, other_group) = _group_env(
        0, [{"name": "w"}, {"name": "v", "namespace": "elsewhere"}, {"name": "x", "group": "pg2"}])
    _, status = _plugin(env).post_filter(CycleState(), pod_info(_pod({"name": "p", "group": "pg1"})), NodeToStatus())
    assert status.reasons == ["PodGroup ns/pg1 gets rejected due to Pod p is unschedulable even after PostFilter"]
    assert (mine.status.code, mine.status.message(), mine.status.plugin) == (
        Code.Unschedulable, "optimistic rejection in PostFilter", "Coscheduling")
    assert same_name_other_ns.status is None and other_group.status is None


def test_post_filter_with_enough_pods_assigned_rejects_nobody() -> None:
    env, (mine,) = _group_env(2, [{"name": "w"}], min_member=3)
    _, status = _plugin(env).post_filter(CycleState(), pod_info(_pod({"name": "p", "group": "pg1"})), NodeToStatus())
    assert status.reasons == [] and mine.status is None


def test_unreserve_rejects_the_waiting_pods_of_the_group() -> None:
    env, (mine, other_group) = _group_env(0, [{"name": "w"}, {"name": "x", "group": "pg2"}])
    _plugin(env).unreserve(CycleState(), pod_info(_pod({"name": "p", "group": "pg1"})), "node")
    assert (mine.status.code, mine.status.message()) == (Code.Unschedulable, "rejection in Unreserve")
    assert other_group.status is None
