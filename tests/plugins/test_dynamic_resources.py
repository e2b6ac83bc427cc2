"""DynamicResources: upstream's TestPlugin table run step by step, plus kschedctl's own cases.

Cases are in ``cases/dynamic_resources.yaml`` (its header describes the format and the steps).
Every step checks the status and, through ``plugin.dra()``, the claims and the in-flight
allocations, as upstream's harness checks the API objects and the in-flight map after each step.

TestPlugin cases NOT ported (52 upstream, 31 ported):

- empty-with-extended-resources-enabled, extended-resource-name-wth-node-resource,
  extended-resource-name-no-resource, extended-resource-name-with-resources,
  extended-resource-name-with-resources-has-claim, extended-resource-name-with-resources-delete-claim,
  extended-resource-name-bind-failure, extended-resource-name-skip-bind: need DRAExtendedResource
  (alpha, off in v1.34); kschedctl implements no extended resources backed by DRA.
- tainted-device-enabled: needs DRADeviceTaints (alpha, off); the allocator reads no taints.
- DRA-disabled: needs DynamicResourceAllocation off; the plugin has no disabled mode (a profile
  disables the plugin instead).
- canceled: needs a caller-cancelled context; the plugin takes none.
- timeout: needs filterTimeout (1ns) applied; kschedctl's allocator has no wall clock and never
  times out.
- timeout_disabled: needs DRASchedulerFilterTimeout off (and so no args); it would run exactly as
  with-resources, since kschedctl applies no timeout either way.
- bound-claim-with-succeeded-binding-conditions, bound-claim-with-failed-binding,
  bound-claim-with-timed-out-binding, prebind-fail-with-binding-timeout,
  bound-claim-with-mixed-binding-conditions, bound-claim-without-binding-conditions,
  multi-claims-binding-conditions-all-success, multi-claims-binding-conditions-one-fail: need
  DRADeviceBindingConditions (alpha, off), wall-clock timestamps and PreBind polling.

Upstream's Test_isSchedulableAfterClaimChange / PodChange are ported as far as kschedctl's queue
has the events: a batch only produces AssignedPodAdd / AssignedPodDelete, and the DynamicResources
hints in ``kschedctl.scheduler.queue`` stand in for the claim updates such a pod causes (see
``test_queue_hint_*`` for which rows map and which do not). Test_createDeviceRequests and
Test_createRequestMappings belong to extended resources (not implemented).
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest
import yaml

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interfaces import extension_points_of
from kschedctl.framework.status import Code
from kschedctl.plugins.dynamic_resources.claims import DraState
from kschedctl.plugins.dynamic_resources.features import DEFAULT_FEATURES
from kschedctl.plugins.dynamic_resources import DynamicResources
from kschedctl.plugins.registry import in_tree_extension_points
from kschedctl.scheduler.queue import (
    ASSIGNED_POD_ADD,
    ASSIGNED_POD_DELETE,
    QUEUE,
    QUEUE_SKIP,
    RESOURCE_CLAIM_DEALLOCATED,
    queueing_hint,
)
from tests.plugins.harness import CASES_DIR, build, expected_status, load_cases, pod_info, status_dict

CASES = load_cases("dynamic_resources")
FIXTURES = yaml.safe_load((CASES_DIR / "dynamic_resources.yaml").read_text(encoding="utf-8"))["fixtures"]

_API = "resource.k8s.io/v1"
_KINDS = {"claims": "ResourceClaim", "classes": "DeviceClass", "slices": "ResourceSlice"}


# ---------------------------------------------------------------------------------------- objects
def _fixture(group: str, ref: Any) -> dict:
    obj = copy.deepcopy(FIXTURES[group][ref] if isinstance(ref, str) else ref)
    if group in _KINDS:
        obj.setdefault("apiVersion", _API)
        obj.setdefault("kind", _KINDS[group])
        if group == "claims":
            obj["metadata"].setdefault("namespace", "default")
    return obj


def _norm(claim: dict) -> dict:
    """A claim as upstream's harness compares it (no uid, resourceVersion, allocationTimestamp;
    an empty status is no status, as an empty Go struct)."""
    claim = copy.deepcopy(claim)
    meta = claim.get("metadata") or {}
    meta.pop("uid", None)
    meta.pop("resourceVersion", None)
    status = claim.get("status")
    if isinstance(status, dict):
        if isinstance(status.get("allocation"), dict):
            status["allocation"].pop("allocationTimestamp", None)
        if not status:
            del claim["status"]
    return claim


def _key(claim: dict) -> str:
    meta = claim.get("metadata") or {}
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"


def _claims(dra: DraState) -> list[dict]:
    return [_norm(c) for c in sorted(dra.claims.values(), key=_key)]


def _in_flight(dra: DraState) -> list[dict]:
    return [_norm(c) for c in sorted(dra.in_flight.values(), key=_key)]


def _expected(refs: list) -> list[dict]:
    return [_norm(c) for c in sorted((_fixture("claims", r) for r in refs), key=_key)]


def _setup(case: dict) -> tuple[DynamicResources, Any, Any]:
    nodes = [_fixture("nodes", n) for n in case.get("nodes") or ["worker"]]
    objects = [_fixture(group, ref) for group in ("claims", "classes", "slices") for ref in case.get(group) or ()]
    env = build(nodes, (), objects)
    plugin = DynamicResources(case.get("args"), env.handle)
    plugin.features = dataclasses.replace(DEFAULT_FEATURES, **(case.get("features") or {}))
    pod = case["pod"]
    pod = pod_info(_fixture("pods", pod) if isinstance(pod, str) else pod)
    return plugin, env, pod


# ---------------------------------------------------------------------------------------- TestPlugin
@pytest.mark.parametrize("case", CASES)
def test_plugin(case: dict) -> None:
    plugin, env, pod = _setup(case)
    want = case.get("want") or {}
    dra = plugin.dra()

    def check(step: str, status: Any, before: list[dict], spec: dict | None = None) -> None:
        spec = want.get(step) if spec is None else spec
        spec = spec or {}
        assert status_dict(status) == expected_status(spec), step
        wanted = _expected(spec["claims"]) if "claims" in spec else before
        assert _claims(dra) == wanted, f"{step}: claims"
        assert _in_flight(dra) == _expected(spec.get("inFlight") or []), f"{step}: in-flight claims"

    before = _claims(dra)
    status = plugin.pre_enqueue(pod)
    check("preenqueue", status, before)
    if status is not None and not status.is_success():
        return

    state = CycleState()
    before = _claims(dra)
    result, status = plugin.pre_filter(state, pod, env.node_infos)
    assert result is None
    check("prefilter", status, before)
    if status is not None and status.code == Code.Error:
        return  # the framework ends the cycle (no upstream case gets here)
    unschedulable = status is not None and status.is_rejected()

    potential = []
    if not unschedulable:
        filters = want.get("filter") or {}
        for ni in env.node_infos:
            before = _claims(dra)
            status = plugin.filter(state, pod, ni)
            check("filter", status, before, filters.get(ni.name) or {})
            if status is None or status.is_success():
                potential.append(ni.name)
            elif status.code == Code.Error:
                return  # upstream's harness stops at a Filter error
        unschedulable = not potential

    selected = potential[0] if potential else None
    if selected is not None:
        before = _claims(dra)
        status = plugin.reserve(state, pod, selected)
        check("reserve", status, before)
        if status is not None and not status.is_success():
            unschedulable = True

    if selected is not None:
        if unschedulable or case.get("unreserveBeforePreBind"):
            before = _claims(dra)
            assert plugin.unreserve(state, pod, selected) is None
            check("unreserve", None, before)
            return
        before = _claims(dra)
        status = plugin.pre_bind(state, pod, selected)
        check("prebind", status, before)
        if case.get("unreserveAfterBindFailure"):
            before = _claims(dra)
            assert plugin.unreserve(state, pod, selected) is None
            check("unreserve", None, before)
        return

    before = _claims(dra)
    result, status = plugin.post_filter(state, pod, None)
    assert result is None
    check("postfilter", status, before)


# ---------------------------------------------------------------------------------------- more steps
def _plain_env(claims: list, classes: list = (), slices: list = (), nodes: list = ("worker",)) -> tuple:
    return _setup({"pod": "foo", "nodes": list(nodes), "claims": claims, "classes": list(classes),
                   "slices": list(slices)})


def test_pod_without_claims() -> None:
    """Upstream's "empty" case reaches no PostFilter; the scheduler still calls it when other
    plugins reject every node."""
    plugin, env, pod = _plain_env([])
    assert plugin.pre_enqueue(pod) is None
    state = CycleState()
    assert status_dict(plugin.pre_filter(state, pod, env.node_infos)[1]) == {"code": "Skip", "reasons": []}
    result, status = plugin.post_filter(state, pod, None)
    assert result is None
    assert status_dict(status) == {"code": "Unschedulable", "reasons": ["no new claims to deallocate"]}


@pytest.mark.parametrize("step", ["filter", "post_filter", "reserve", "pre_bind", "unreserve"])
def test_without_pre_filter_state(step: str) -> None:
    """getStateData's error is the cycle state's ErrNotFound, whose text is "not found"; Unreserve
    says nothing."""
    plugin, env, pod = _plain_env([])
    state = CycleState()
    if step == "filter":
        status = plugin.filter(state, pod, env.node_infos[0])
    elif step == "post_filter":
        result, status = plugin.post_filter(state, pod, None)
        assert result is None
    elif step == "unreserve":
        assert plugin.unreserve(state, pod, "worker") is None
        return
    else:
        status = getattr(plugin, step)(state, pod, "worker")
    assert status_dict(status) == {"code": "Error", "reasons": ["not found"]}


def _claim(name: str) -> dict:
    return {"metadata": {"name": name},
            "spec": {"devices": {"requests": [{"name": "req-1", "exactly": {
                "deviceClassName": "my-resource-class", "allocationMode": "ExactCount", "count": 1}}]}}}


def _pod(name: str, uid: str, *claims: str) -> Any:
    return pod_info({"metadata": {"name": name, "uid": uid},
                     "spec": {"resourceClaims": [{"name": c, "resourceClaimName": c} for c in claims]}})


def _reserve(plugin: DynamicResources, env: Any, pod: Any) -> CycleState:
    state = CycleState()
    assert plugin.pre_filter(state, pod, env.node_infos) == (None, None)
    assert status_dict(plugin.filter(state, pod, env.node_infos[0]))["code"] == "Success"
    assert status_dict(plugin.reserve(state, pod, "worker"))["code"] == "Success"
    return state


def test_claim_in_flight_for_another_pod() -> None:
    """A pod sharing a claim whose allocation another pod holds between Reserve and PreBind
    waits (upstream: "is in the process of being allocated"); once bound, it only reserves."""
    plugin, env, _ = _plain_env([_claim("shared")], ["deviceClass"], ["workerNodeSlice"])
    first, second = _pod("first", "1", "shared"), _pod("second", "2", "shared")
    state = _reserve(plugin, env, first)
    result, status = plugin.pre_filter(CycleState(), second, env.node_infos)
    assert status_dict(status) == {"code": "UnschedulableAndUnresolvable",
                                   "reasons": ["resource claim default/shared is in the process of being allocated"]}
    assert plugin.pre_bind(state, first, "worker").is_success()
    state2 = CycleState()
    assert plugin.pre_filter(state2, second, env.node_infos) == (None, None)
    assert plugin.filter(state2, second, env.node_infos[0]) is None
    assert plugin.reserve(state2, second, "worker") is None
    plugin.pre_bind(state2, second, "worker")
    reserved = plugin.dra().get("default", "shared")["status"]["reservedFor"]
    assert [r["uid"] for r in reserved] == ["1", "2"]


def test_claims_without_uid_are_in_flight_separately() -> None:
    """Claims read from files have no uid: one pod's allocation in flight must neither block
    another pod's claim nor hide the devices it holds (fidelity fix: in-flight key)."""
    plugin, env, _ = _plain_env([_claim("a"), _claim("b")], ["deviceClass"], ["twoDeviceWorkerNodeSlice"])
    first, second = _pod("first", "1", "a"), _pod("second", "2", "b")
    _reserve(plugin, env, first)
    state = CycleState()
    assert plugin.pre_filter(state, second, env.node_infos) == (None, None)
    status = plugin.filter(state, second, env.node_infos[0])
    assert status.details["allocations"].to_dict()[0]["devices"][0]["device"] == "instance-2"


def test_in_flight_devices_are_in_use() -> None:
    """Devices of an allocation in flight count as allocated for the next pod (upstream
    ListAllAllocatedDevices includes in-flight claims); Unreserve frees them."""
    plugin, env, _ = _plain_env([_claim("a"), _claim("b")], ["deviceClass"], ["workerNodeSlice"])
    first, second = _pod("first", "1", "a"), _pod("second", "2", "b")
    state1 = _reserve(plugin, env, first)
    state = CycleState()
    assert plugin.pre_filter(state, second, env.node_infos) == (None, None)
    assert status_dict(plugin.filter(state, second, env.node_infos[0])) == {
        "code": "UnschedulableAndUnresolvable", "reasons": ["cannot allocate all claims"]}
    plugin.unreserve(state1, first, "worker")
    state = CycleState()
    assert plugin.pre_filter(state, second, env.node_infos) == (None, None)
    assert plugin.filter(state, second, env.node_infos[0]).is_success()


def test_claim_generated_from_template() -> None:
    """kschedctl does the resourceclaim controller's part first: a template reference without a
    claim yet gets a claim owned by the pod, which is then allocated and reserved as usual."""
    template = {"apiVersion": _API, "kind": "ResourceClaimTemplate",
                "metadata": {"name": "my-pod-my-resource", "namespace": "default"},
                "spec": {"spec": copy.deepcopy(FIXTURES["claims"]["claim"]["spec"])}}
    nodes = [_fixture("nodes", "worker")]
    objects = [template, _fixture("classes", "deviceClass"), _fixture("slices", "workerNodeSlice")]
    env = build(nodes, (), objects)
    plugin = DynamicResources(None, env.handle)
    pod = pod_info(_fixture("pods", "podWithClaimTemplate"))
    assert plugin.pre_enqueue(pod) is None
    assert "resourceClaimStatuses" not in (pod.pod.get("status") or {})  # the pod object is left as it is
    (name,) = plugin.dra().made_for.values()
    assert name.startswith("my-pod-my-resource-") and len(name) == len("my-pod-my-resource-") + 5
    state = _reserve(plugin, env, pod)
    assert plugin.pre_bind(state, pod, "worker").is_success()
    claim = plugin.dra().get("default", name)
    assert claim["metadata"]["ownerReferences"] == [{"apiVersion": "v1", "kind": "Pod", "name": "my-pod",
                                                     "uid": "1234", "controller": True, "blockOwnerDeletion": True}]
    assert claim["metadata"]["finalizers"] == ["resource.kubernetes.io/delete-protection"]
    assert claim["status"]["reservedFor"] == [{"resource": "pods", "name": "my-pod", "uid": "1234"}]
    assert claim["status"]["allocation"]["devices"]["results"][0]["device"] == "instance-1"


def test_filter_failure_explains_the_devices() -> None:
    """kschedctl's addition to "cannot allocate all claims": device counts per request."""
    plugin, env, pod = _setup({"pod": "podWithClaimName", "claims": ["pendingClaim", "otherAllocatedClaim"],
                               "classes": ["deviceClass"], "slices": ["workerNodeSlice"]})
    state = CycleState()
    plugin.pre_filter(state, pod, env.node_infos)
    status = plugin.filter(state, pod, env.node_infos[0])
    assert status.details["devices"].texts() == [
        "claim default/my-pod-my-resource, request req-1: 1 of 1 devices on the node are of class "
        "my-resource-class, 0 of those free; needs 1"]


def test_extension_points_match_upstream() -> None:
    assert extension_points_of(DynamicResources) == list(in_tree_extension_points()["DynamicResources"])


# ---------------------------------------------------------------------------------------- queue hints
# Upstream's hint tests are about ResourceClaim Add/Update events and the pod's own update
# (UpdatePodGeneratedResourceClaim). A batch changes claims only by placing a pod (PreBind writes
# allocation and reservedFor: AssignedPodAdd) or removing a victim (its claims lose the
# reservation and are deallocated: AssignedPodDelete), so those are the rows that map:
#   queue-on-status-change  -> a placed pod reserved a claim the waiting pod uses: Queue
#   skip-unrelated-claim    -> a placed pod's claims are not the waiting pod's: QueueSkip
#   claim-deallocate        -> a claim is deallocated (by PostFilter, or its pod was deleted): Queue for
#                              any pod with claims; the deletion of a pod is not itself an event here
# Not mappable: queue-on-add (claims are created by kschedctl before the pod is queued),
# skip-adding-finalizer (no metadata-only updates happen alone), backoff-wrong-*-object (no typed
# events), skip-deletes / skip-wrong-claim (upstream QueueSkips because the waiting pod's claim
# lookup fails; such a pod is held at PreEnqueue in kschedctl and never asks), and every
# isSchedulableAfterPodChange row (a batch never updates a pending pod).
def _hint(event: str, waiting: Any, other: Any) -> str:
    return queueing_hint("DynamicResources", event, waiting, other, None)


def test_queue_hint_status_change_of_a_used_claim() -> None:
    assert _hint(ASSIGNED_POD_ADD, _pod("my-pod", "1234", "shared"), _pod("other", "9", "shared")) == QUEUE


def test_queue_hint_unrelated_claim() -> None:
    assert _hint(ASSIGNED_POD_ADD, _pod("my-pod", "1234", "mine"), _pod("other", "9", "theirs")) == QUEUE_SKIP


def test_queue_hint_same_claim_name_other_namespace() -> None:
    other = pod_info({"metadata": {"name": "other", "namespace": "elsewhere", "uid": "9"},
                      "spec": {"resourceClaims": [{"name": "c", "resourceClaimName": "shared"}]}})
    assert _hint(ASSIGNED_POD_ADD, _pod("my-pod", "1234", "shared"), other) == QUEUE_SKIP


def test_queue_hint_template_claims_by_status() -> None:
    """Generated claims are matched through pod.status.resourceClaimStatuses."""
    def templated(name: str, uid: str) -> Any:
        return pod_info({"metadata": {"name": name, "uid": uid},
                         "spec": {"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "t"}]},
                         "status": {"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": f"{name}-gpu"}]}})
    assert _hint(ASSIGNED_POD_ADD, templated("my-pod", "1234"), templated("other", "9")) == QUEUE_SKIP


def test_queue_hint_claim_deallocate() -> None:
    assert _hint(RESOURCE_CLAIM_DEALLOCATED, _pod("my-pod", "1234", "mine"), _pod("victim", "9", "theirs")) == QUEUE


def test_queue_hint_pod_deletion_is_not_a_claim_event() -> None:
    assert _hint(ASSIGNED_POD_DELETE, _pod("my-pod", "1234", "mine"), _pod("victim", "9", "theirs")) == QUEUE_SKIP
