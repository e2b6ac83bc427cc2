"""The scheduling queue of a batch: PreEnqueue gating, activeQ in QueueSort order with the
timestamp tie, unschedulable pods moved by the events their rejectors' hints care about,
backoff ordering, the attempts bound."""

from __future__ import annotations

import pytest

from kschedctl.framework.status import Code, Status
from kschedctl.plugins.priority_sort import PrioritySort
from kschedctl.scheduler.queue import (
    ASSIGNED_POD_ADD,
    ASSIGNED_POD_DELETE,
    QUEUE,
    QUEUE_SKIP,
    SchedulingQueue,
    queueing_hint,
)
from tests.framework.fakes import make_pod, pod_info

LESS = PrioritySort().less


def pi(name: str, priority: int = 0, **kw):
    return pod_info(make_pod(name, priority=priority, **kw))


def test_active_queue_pops_by_priority_then_arrival() -> None:
    q = SchedulingQueue(LESS)
    for name, prio in (("a", 0), ("b", 10), ("c", 0), ("d", 10), ("e", 5)):
        q.add(pi(name, prio))
    assert q.active_keys() == ["default/b", "default/d", "default/e", "default/a", "default/c"]
    popped = [q.pop().key for _ in range(5)]
    assert popped == ["default/b", "default/d", "default/e", "default/a", "default/c"]
    assert q.pop() is None


def test_pop_counts_attempts() -> None:
    q = SchedulingQueue(LESS)
    q.add(pi("a"))
    qp = q.pop()
    assert qp.attempts == 1


def test_pre_enqueue_gates_a_pod() -> None:
    def gate(qp):
        if qp.pod_info.name == "gated":
            return Status(Code.UnschedulableAndUnresolvable, "waiting for scheduling gates: [x]", plugin="SchedulingGates")
        return None

    q = SchedulingQueue(LESS, gate)
    g = q.add(pi("gated"))
    q.add(pi("free"))
    assert g.gated and g.unschedulable_plugins == {"SchedulingGates"}
    assert q.active_keys() == ["default/free"]
    q.pop()
    # no event releases a gated pod
    assert q.on_event(ASSIGNED_POD_DELETE, pi("victim", node="n")) == []


def test_failed_pod_waits_for_an_event_its_rejector_cares_about() -> None:
    q = SchedulingQueue(LESS)
    q.add(pi("big"))
    qp = q.pop()
    q.add_unschedulable(qp, {"NodeResourcesFit"})
    assert q.pending() == 0 and "default/big" in q.unschedulable
    # a pod placed never frees resources: stays
    assert q.on_event(ASSIGNED_POD_ADD, pi("other", node="n")) == []
    # an assigned pod deleted may: moved to the backoff queue (the batch outruns the backoff)
    moved = q.on_event(ASSIGNED_POD_DELETE, pi("victim", node="n"))
    assert [m.key for m in moved] == ["default/big"] and moved[0].where == "backoffQ"
    assert q.pop().key == "default/big"


def test_active_pods_come_before_backed_off_ones() -> None:
    q = SchedulingQueue(LESS)
    q.add(pi("retry", 100))
    first = q.pop()
    q.add_unschedulable(first, {"NodeResourcesFit"})
    q.on_event(ASSIGNED_POD_DELETE, pi("v", node="n"))
    q.add(pi("new", 0))
    assert [q.pop().key, q.pop().key] == ["default/new", "default/retry"]


def test_backoff_queue_orders_by_expiry_then_priority() -> None:
    q = SchedulingQueue(LESS)
    for name, prio in (("once-low", 0), ("once-high", 10), ("twice", 100)):
        q.add(pi(name, prio))
    pods = {}
    for _ in range(3):
        qp = q.pop()
        pods[qp.pod_info.name] = qp
    pods["twice"].attempts = 2  # a second failure: 2s backoff instead of 1s
    for qp in pods.values():
        q.add_unschedulable(qp, {"NodeResourcesFit"})
    q.on_event(ASSIGNED_POD_DELETE, pi("v", node="n"))
    assert q.backoff_keys() == ["default/once-high", "default/once-low", "default/twice"]


def test_error_goes_to_the_error_backoff_queue() -> None:
    q = SchedulingQueue(LESS)
    q.add(pi("err"))
    qp = q.pop()
    q.add_unschedulable(qp)
    assert qp.where == "errorBackoffQ" and q.pop() is qp


def test_max_attempts_bounds_retries() -> None:
    q = SchedulingQueue(LESS, max_attempts=2)
    q.add(pi("p"))
    qp = q.pop()
    q.add_unschedulable(qp, {"NodeResourcesFit"})
    assert q.on_event(ASSIGNED_POD_DELETE, pi("v", node="n"))
    qp = q.pop()
    q.add_unschedulable(qp, {"NodeResourcesFit"})
    assert qp.attempts == 2 and q.on_event(ASSIGNED_POD_DELETE, pi("v", node="n")) == []


def spread_web() -> dict:
    return {"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable":
                                           "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "web"}}}]}


def test_hints() -> None:
    web = {"app": "web"}
    anti = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": web}, "topologyKey": "kubernetes.io/hostname"}]}}}
    aff = {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": web}, "topologyKey": "kubernetes.io/hostname"}]}}}
    matching, other = pi("m", node="n", labels=web), pi("o", node="n", labels={"app": "db"})
    assert queueing_hint("InterPodAffinity", ASSIGNED_POD_ADD, pi("p", **aff), matching) == QUEUE
    assert queueing_hint("InterPodAffinity", ASSIGNED_POD_ADD, pi("p", **aff), other) == QUEUE_SKIP
    assert queueing_hint("InterPodAffinity", ASSIGNED_POD_DELETE, pi("p", **anti), matching) == QUEUE
    assert queueing_hint("InterPodAffinity", ASSIGNED_POD_DELETE, pi("p", **anti), other) == QUEUE_SKIP
    # upstream matches all terms, and only the incoming pod's own terms: the deletion of an
    # existing pod whose anti-affinity rejected the pod does not requeue it
    two = {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": web}, "topologyKey": "kubernetes.io/hostname"},
        {"labelSelector": {"matchLabels": {"tier": "front"}}, "topologyKey": "kubernetes.io/hostname"}]}}}
    assert queueing_hint("InterPodAffinity", ASSIGNED_POD_ADD, pi("p", **two), matching) == QUEUE_SKIP
    blocker = pi("b", node="n", labels={"app": "db"}, **anti)
    assert queueing_hint("InterPodAffinity", ASSIGNED_POD_DELETE, pi("p", labels=web), blocker) == QUEUE_SKIP
    # a pending pod (one whose nomination moved, say) is not placed: these plugins skip it
    pending = pi("m2", labels=web)
    pending.nominated_node_name = "n"
    assert queueing_hint("InterPodAffinity", ASSIGNED_POD_DELETE, pi("p", **anti), pending) == QUEUE_SKIP
    assert queueing_hint("PodTopologySpread", ASSIGNED_POD_DELETE, pi("p", **spread_web()), pending) == QUEUE_SKIP
    assert queueing_hint("NodeResourcesFit", ASSIGNED_POD_DELETE, pi("p"), pending) == QUEUE
    assert queueing_hint("NodeResourcesFit", ASSIGNED_POD_DELETE, pi("p"), pi("q")) == QUEUE_SKIP
    claim = {"volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": "c"}}]}
    scratch = {"volumes": [{"name": "v", "emptyDir": {}}]}
    assert queueing_hint("NodeVolumeLimits", ASSIGNED_POD_DELETE, pi("p"), pi("v", node="n", **claim)) == QUEUE
    assert queueing_hint("NodeVolumeLimits", ASSIGNED_POD_DELETE, pi("p"), pi("v", node="n", **scratch)) == QUEUE_SKIP
    assert queueing_hint("NodeVolumeLimits", ASSIGNED_POD_DELETE, pi("p"), pi("v", **claim)) == QUEUE_SKIP
    ports = {"containers": [{"name": "c", "ports": [{"containerPort": 80, "hostPort": 80}]}]}
    assert queueing_hint("NodePorts", ASSIGNED_POD_DELETE, pi("p", **ports), pi("v", node="n", **ports)) == QUEUE
    assert queueing_hint("NodePorts", ASSIGNED_POD_DELETE, pi("p", **ports), other) == QUEUE_SKIP
    assert queueing_hint("TaintToleration", ASSIGNED_POD_DELETE, pi("p"), other) == QUEUE_SKIP
    spread = {"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable":
                                             "DoNotSchedule", "labelSelector": {"matchLabels": web}}]}
    assert queueing_hint("PodTopologySpread", ASSIGNED_POD_ADD, pi("p", **spread), matching) == QUEUE
    assert queueing_hint("PodTopologySpread", ASSIGNED_POD_ADD, pi("p", **spread), other) == QUEUE_SKIP
    # a plugin kschedctl does not know is asked about everything
    assert queueing_hint("MyPlugin", ASSIGNED_POD_ADD, pi("p"), other) == QUEUE


def _spread(when: str, match_labels: dict, keys: tuple = ()) -> dict:
    c = {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": when,
         "labelSelector": {"matchLabels": match_labels}}
    if keys:
        c["matchLabelKeys"] = list(keys)
    return {"topologySpreadConstraints": [c]}


# upstream isSchedulableAfterPodChange asks getConstraints: the DoNotSchedule constraints only,
# their selectors with matchLabelKeys merged (the pending pod has version=v1)
@pytest.mark.parametrize("spec, placed_labels, want", [
    (_spread("DoNotSchedule", {"app": "cache"}, ("version",)), {"app": "cache", "version": "v1"}, QUEUE),
    (_spread("DoNotSchedule", {"app": "cache"}, ("version",)), {"app": "cache", "version": "v2"}, QUEUE_SKIP),
    (_spread("DoNotSchedule", {"app": "cache"}), {"app": "cache", "version": "v2"}, QUEUE),
    (_spread("ScheduleAnyway", {"app": "cache"}), {"app": "cache", "version": "v1"}, QUEUE_SKIP),
], ids=["matchLabelKeys-same-value", "matchLabelKeys-other-value", "no-matchLabelKeys", "schedule-anyway-only"])
def test_spread_hint_on_a_placed_pod_uses_the_hard_constraints_as_the_plugin_builds_them(
        spec: dict, placed_labels: dict, want: str) -> None:
    pending = pi("p", labels={"app": "cache", "version": "v1"}, **spec)
    placed = pi("m", node="n", labels=placed_labels)
    assert queueing_hint("PodTopologySpread", ASSIGNED_POD_ADD, pending, placed) == want
    assert queueing_hint("PodTopologySpread", ASSIGNED_POD_DELETE, pending, placed) == want


# -- PodsToActivate, and the events of a pod that waited at Permit ----------------------------


def test_activate_moves_unschedulable_and_backed_off_pods_to_active_q() -> None:
    q = SchedulingQueue(LESS, max_attempts=2)
    for name in ("waiting-for-event", "backing-off", "in-flight", "tired"):
        q.add(pi(name))
    popped = {qp.pod_info.name: qp for qp in (q.pop() for _ in range(4))}
    q.add_unschedulable(popped["waiting-for-event"], {"NodeResourcesFit"})
    q.add_unschedulable(popped["backing-off"], {"NodeResourcesFit"})
    q.on_event(ASSIGNED_POD_DELETE, pi("victim", node="n"))  # moves both; one is taken back below
    assert sorted(q.backoff_keys()) == ["default/backing-off", "default/waiting-for-event"]
    again = q.pop()
    q.add_unschedulable(again, {"NodeResourcesFit"})  # attempts 2: out of attempts now
    moved = q.activate([again.key, "default/backing-off", "default/waiting-for-event", "default/in-flight",
                        "default/nobody"])
    names = {qp.pod_info.name for qp in moved}
    assert again.pod_info.name not in names  # out of attempts
    assert "in-flight" not in names and len(moved) == 1
    assert q.active_keys() == [qp.key for qp in moved]
    assert q.backoff_keys() == []


def test_activate_leaves_gated_pods_alone() -> None:
    q = SchedulingQueue(LESS, lambda qp: Status(Code.UnschedulableAndUnresolvable, "gated", plugin="SchedulingGates"))
    gated = q.add(pi("gated"))
    assert q.activate([gated.key]) == []
    assert gated.gated and q.active_keys() == []


def test_an_event_can_exclude_the_pod_it_comes_from() -> None:
    # A pod rejected while waiting at Permit is forgotten: an AssignedPodDelete for the others,
    # not for itself (upstream handleBindingCycleError).
    q = SchedulingQueue(LESS)
    for name in ("rejected", "other"):
        q.add(pi(name))
    rejected, other = q.pop(), q.pop()
    q.add_unschedulable(rejected, {"NodeResourcesFit"})
    q.add_unschedulable(other, {"NodeResourcesFit"})
    rejected.pod_info.node_name = "n"  # it was assumed there
    moved = q.on_event(ASSIGNED_POD_DELETE, rejected.pod_info, exclude=rejected)
    assert [qp.key for qp in moved] == ["default/other"]
    assert "default/rejected" in q.unschedulable


def test_coscheduling_hint_queues_on_pod_add_only() -> None:
    waiting, placed = pi("w"), pi("p", node="n")
    assert queueing_hint("Coscheduling", ASSIGNED_POD_ADD, waiting, placed) == QUEUE
    assert queueing_hint("Coscheduling", ASSIGNED_POD_DELETE, waiting, placed) == QUEUE_SKIP


def test_initial_attempt_time_is_on_the_queue_clock() -> None:
    q = SchedulingQueue(LESS, origin=1_800_000_000.0)
    qp = q.add(pi("a"))
    assert qp.initial_attempt_timestamp == 1_800_000_000.0 + qp.timestamp
    q.advance_to(1_800_000_060.0)
    assert q.wall_time() == 1_800_000_060.0
    q.advance_to(1_800_000_000.0)  # time never goes back
    assert q.wall_time() == 1_800_000_060.0


def _volumes(*volumes: dict) -> dict:
    return {"volumes": list(volumes)}


_CLAIM_A = {"name": "a", "persistentVolumeClaim": {"claimName": "data-a"}}
_CLAIM_B = {"name": "b", "persistentVolumeClaim": {"claimName": "data-b"}}
_DISK = {"name": "d", "gcePersistentDisk": {"pdName": "disk-1"}}
_DISK_READ_ONLY = {"name": "d", "gcePersistentDisk": {"pdName": "disk-1", "readOnly": True}}


# upstream isSchedulableAfterPodDeleted: the removed pod must share a claim (by name, whatever its
# access mode) or a conflicting disk with the pod, in the pod's namespace (differential case
# 479600203/6: an unrelated victim requeued a pod its ReadWriteOncePod claim kept out)
@pytest.mark.parametrize("pending,removed,want", [
    (_volumes(_CLAIM_A), _volumes(_CLAIM_A), QUEUE),
    (_volumes(_CLAIM_A), _volumes(_CLAIM_B), QUEUE_SKIP),
    (_volumes(_CLAIM_A, _CLAIM_B), _volumes(_CLAIM_B), QUEUE),
    (_volumes(_CLAIM_A), {}, QUEUE_SKIP),
    ({}, _volumes(_CLAIM_A), QUEUE_SKIP),
    (_volumes(_DISK), _volumes(_DISK), QUEUE),
    (_volumes(_DISK_READ_ONLY), _volumes(_DISK_READ_ONLY), QUEUE_SKIP),  # read-only mounts share a disk
    (_volumes(_DISK_READ_ONLY), _volumes(_DISK), QUEUE),
], ids=["same-claim", "other-claim", "one-of-two-claims", "removed-has-none", "pending-has-none", "same-disk",
        "read-only-disk", "read-only-and-writable-disk"])
def test_volume_restrictions_hint_on_a_removed_pod(pending: dict, removed: dict, want: str) -> None:
    assert queueing_hint("VolumeRestrictions", ASSIGNED_POD_DELETE, pi("p", **pending),
                         pi("v", node="n", **removed)) == want


def test_volume_restrictions_hint_skips_a_pod_of_another_namespace() -> None:
    other = pi("v", node="n", **_volumes(_CLAIM_A))
    other.namespace = "elsewhere"
    assert queueing_hint("VolumeRestrictions", ASSIGNED_POD_DELETE, pi("p", **_volumes(_CLAIM_A)), other) == QUEUE_SKIP
