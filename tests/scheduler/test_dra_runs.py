"""Dynamic Resource Allocation across a run: devices taken by one pod are gone for the next
(simulate, capacity), a deleted pod's claims are released, and explain reports the devices.

The cluster is the bundled GPU fixture (profiles/scenarios/cluster/dra-gpus.yaml): a100-1 and
a100-2 with four 40Gi a100 each (a100-1's gpu-0 held by the running pod trainer-0), h100-1 with
two 80Gi h100, cpu-1 without devices.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from kschedctl.inputs.cluster import load_cluster
from kschedctl.inputs.loader import load_documents
from kschedctl.analyses.capacity import capacity
from kschedctl.analyses.explain import explain as explain_pod
from kschedctl.scheduler.simulate import Simulator

ROOT = Path(__file__).resolve().parents[2] / "profiles" / "scenarios"
CLUSTER = str(ROOT / "cluster" / "dra-gpus.yaml")


def _pod(name: str) -> dict:
    return load_documents([str(ROOT / "pods" / f"dra-{name}.yaml")])[0].obj


def _renamed(pod: dict, name: str) -> dict:
    pod = copy.deepcopy(pod)
    pod["metadata"]["name"] = name
    return pod


@pytest.fixture()
def cluster():
    return load_cluster([CLUSTER])


def test_simulate_takes_each_pods_devices_from_the_pool(cluster) -> None:
    pods = [_renamed(_pod("big-gpu"), f"big-{i}") for i in range(3)]
    result = Simulator(cluster, seed=1).run(pods)
    by_pod = {p.pod: p for p in result.placements}
    assert by_pod["default/big-0"].devices == ["gpu.example.com/h100-1/gpu-0"]
    assert by_pod["default/big-1"].devices == ["gpu.example.com/h100-1/gpu-1"]
    assert by_pod["default/big-2"].outcome == "Unschedulable"
    assert by_pod["default/big-2"].message == (
        "0/4 nodes are available: 4 cannot allocate all claims. still not schedulable, preemption: 0/4 nodes are "
        "available: 4 Preemption is not helpful for scheduling.")


def test_capacity_counts_the_free_devices(cluster) -> None:
    result = capacity(_pod("one-gpu"), cluster, seed=1)
    # 3 free a100 on a100-1 (gpu-0 is held), 4 on a100-2, 2 h100
    assert result.count == 9
    assert result.per_node == {"a100-1": 3, "a100-2": 4, "h100-1": 2}
    assert "cannot allocate all claims" in result.stop_reason


def test_explain_reports_the_devices_and_the_gap(cluster) -> None:
    result = explain_pod(_pod("big-gpu"), cluster, seed=1)
    assert result.selected_node == "h100-1"
    node = result.node("h100-1")
    assert node.allocations() == [{"claim": node.allocations()[0]["claim"], "devices": [
        {"request": "gpu", "driver": "gpu.example.com", "pool": "h100-1", "device": "gpu-0"}]}]
    assert node.allocations()[0]["claim"].startswith("default/big-model-gpu-")
    rejected = result.node("a100-2").verdict()
    assert rejected.plugin == "DynamicResources" and rejected.reasons == ["cannot allocate all claims"]
    gap = rejected.to_dict()["details"]["devices"]["requests"]
    assert [(r["request"], r["ofClass"], r["matching"], r["free"], r["needed"]) for r in gap] == [("gpu", 4, 0, 0, 1)]


def test_a_missing_template_leaves_the_pod_waiting_for_its_claim(cluster) -> None:
    pod = _pod("one-gpu")
    pod["spec"]["resourceClaims"][0]["resourceClaimTemplateName"] = "no-such-template"
    result = explain_pod(pod, cluster)
    assert result.outcome == "Gated"
    assert result.message == 'pod "default/inference": ResourceClaim not created yet'


def test_a_deleted_pods_claims_release_their_devices(cluster) -> None:
    """trainer-0 is preempted (for cpu): its generated claim is deleted with it, so a100-1's gpu-0
    is free for the pods after it."""
    from kschedctl.plugins.dynamic_resources import SHARED_KEY

    sim = Simulator(cluster, seed=1)
    trainer = next(pi for pi in sim.cluster_pod_infos if pi.name == "trainer-0")
    dra_pod = _pod("all-gpus")
    dra_pod["spec"]["nodeSelector"] = {"kubernetes.io/hostname": "a100-1"}
    before = sim.run([_renamed(dra_pod, "before")])
    assert before.placements[0].outcome == "Unschedulable"
    dra = sim.snapshot.shared[SHARED_KEY]
    sim.snapshot.forget_pod(trainer, "a100-1")
    sim._release_claims(trainer)
    assert not any(c["metadata"]["name"] == "trainer-0-gpu-x7k2p" for c in dra.claims.values())
    after = sim.run([_renamed(dra_pod, "after")])
    assert after.placements[0].outcome == "Scheduled"
    assert sorted(after.placements[0].devices) == [f"gpu.example.com/a100-1/gpu-{i}" for i in range(4)]


def test_a_claim_allocated_for_a_gone_node_is_deallocated_and_the_pod_retried(cluster) -> None:
    """The claim was allocated for a node that left the cluster: every node says "resourceclaim
    not available on the node", PostFilter deallocates it (upstream: a claim update, an event for
    the pod), and the next attempt allocates it afresh."""
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "stale", "namespace": "default", "uid": "uid-stale"},
             "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}},
             "status": {"allocation": {
                 "devices": {"results": [{"request": "gpu", "driver": "gpu.example.com", "pool": "gone",
                                          "device": "gpu-0"}]},
                 "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                     {"key": "metadata.name", "operator": "In", "values": ["gone"]}]}]}}}}
    cluster.add_object(claim)
    pod = _pod("one-gpu")
    pod["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": "stale"}]
    result = Simulator(cluster, seed=1).run([pod])
    placement = result.placements[0]
    assert (placement.outcome, placement.attempts) == ("Scheduled", 2)
    assert len(placement.devices) == 1 and placement.devices[0].startswith("gpu.example.com/")


def test_runs_on_one_cluster_state_do_not_share_generated_claims(cluster) -> None:
    """A pending pod of the cluster state is explained by two runs (as diff does): each run's
    controller makes its claim; the pod object is not changed by either."""
    pending = _pod("one-gpu")
    cluster.add_object(pending)
    first = Simulator(cluster, seed=1).run([], include_cluster_pending=True)
    second = Simulator(cluster, seed=1).run([], include_cluster_pending=True)
    assert [p.outcome for p in first.placements] == [p.outcome for p in second.placements] == ["Scheduled"]
    assert "resourceClaimStatuses" not in (pending.get("status") or {})


def test_a_victims_deallocated_claim_requeues_a_pod_waiting_for_devices(cluster) -> None:
    """all-in wants every GPU of a100-1, where trainer-0 holds gpu-0: Unschedulable. A
    high-priority pod then preempts trainer-0 (for cpu); its claim is deleted, which upstream sees
    as a claim update from allocated to deallocated: all-in is tried again and gets all four."""
    for name, value in (("top", 2000), ("high", 1000)):
        cluster.add_object({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                            "metadata": {"name": name}, "value": value})
    waiting = _pod("all-gpus")
    waiting["spec"]["nodeSelector"] = {"kubernetes.io/hostname": "a100-1"}
    waiting["spec"]["priorityClassName"] = "top"  # tried first, while gpu-0 is still held
    preemptor = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "big-cpu", "namespace": "default"},
                 "spec": {"priorityClassName": "high", "nodeSelector": {"kubernetes.io/hostname": "a100-1"},
                          "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "29"}}}]}}
    result = Simulator(cluster, seed=1).run([waiting, preemptor])
    by_pod = {p.pod: p for p in result.placements}
    assert [r.victims for r in result.preemptions] == [["default/trainer-0"]]
    assert by_pod["default/big-cpu"].outcome == "Scheduled"
    assert (by_pod["default/all-in"].outcome, by_pod["default/all-in"].attempts) == ("Scheduled", 2)
    assert sorted(by_pod["default/all-in"].devices) == [f"gpu.example.com/a100-1/gpu-{i}" for i in range(4)]
