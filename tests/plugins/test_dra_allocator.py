"""The structured DRA allocator: upstream's shared allocator test table, ported as data.

Upstream: ``staging/src/k8s.io/dynamic-resource-allocation/structured/internal/allocatortesting/
allocator_testing.go`` (release-1.34, ``TestAllocator``). The cases are in
``cases/dra_allocator.yaml``; its header explains the shorthands.

How a case runs, as upstream's harness does:

- The allocator gets the case's own ``features`` (missing = upstream's ``Features{}``, every gate
  off). Cases whose outcome is the same with v1.34's default gates run a second time with
  ``DEFAULT_FEATURES`` (ids ending in ``[defaults]``); the two ``gateOff`` cases switch a
  default-on gate off and run only with their own features.
- ``error`` is a substring of the error (upstream ``MatchError(ContainSubstring(...))``); without
  it the call must not fail.
- ``want`` lists the claims' results in any order (``ConsistOf``). An entry is upstream's
  ``allocationResult`` matcher (devices in any order, no config, node selector compared without
  regard to the order of terms, requirements and values) unless it says ``exact: true``, which is
  a literal AllocationResult compared as it is.
- ``numAllocateOne`` is upstream's ``expectNumAllocateOneInvocations``.
- The claims, slices, classes and allocated devices must come out of the call unchanged.

Selectors are compiled and evaluated by kschedctl's CEL (``kschedctl.cel``), a fresh
cache per run. The cases not ported are listed, with the reason, below the imports.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any, Iterator

import pytest

from kschedctl.plugins.dynamic_resources.allocator import AllocationError, Allocator
from kschedctl.cel import CelCache
from kschedctl.plugins.dynamic_resources.features import DEFAULT_FEATURES, Features
from kschedctl.plugins.dynamic_resources.pools import DeviceID, SliceIndex
from tests.plugins.harness import load_cases

# Not ported: the upstream cases that need an alpha gate (off by default in v1.34).
#
# DRAPartitionableDevices:
#   partitionable-devices-single-device
#   partitionable-devices-prioritized-list
#   partitionable-devices-multiple-devices
#   partitionable-devices-multiple-capacity-pools
#   partitionable-devices-multiple-counters
#   partitionable-devices-multiple-pools
#   partitionable-devices-unused-counters-in-counter-set
#   partitionable-devices-no-capacity-available
#   partitionable-devices-overallocated-capacity-pool
#   partitionable-devices-per-device-node-selection-nodename
#   partitionable-devices-per-device-node-selection-node-selector
#   partitionable-devices-per-device-node-selection-node-selector-multiple-devices
#   partitionable-devices-with-attribute-selector
# DRADeviceTaints:
#   tainted-two-devices
#   tainted-one-device-two-taints
#   tainted-two-devices-tolerated
#   tainted-one-device-two-taints-both-tolerated
#   tainted-prioritized-list
#   tainted-admin-access
#   tainted-all-devices-single
# DRADeviceBindingConditions (those marked + also DRAPartitionableDevices, ++ also DRADeviceTaints):
#   device-binding-conditions
#   binding-conditions-multiple-devices
#   device-binding-conditions-without-device-status-feature-gate
#   node-restriction
#   partitionable-devices-with-binding-conditions (+)
#   partitionable-devices-with-binding-conditions-multiple (+)
#   partitionable-devices-with-binding-conditions-some-devices-no-conditions (+)
#   partitionable-devices-with-binding-conditions-multi-slices (+)
#   partitionable-devices-with-binding-conditions-and-taints (++)
#   partitionable-devices-with-binding-conditions-and-taints-tolerated (++)
# DRAConsumableCapacity (the one marked + also DRAPartitionableDevices):
#   consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request
#   consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request-block
#   consumable-capacity-multi-allocatable-device-without-policy-with-capacity-request
#   consumable-capacity-multi-allocatable-device-with-policy-without-capacity-request
#   consumable-capacity-multi-allocatable-device-with-zero-request-policy
#   consumable-capacity-multi-allocatable-device-violates-zero-request-policy
#   consumable-capacity-multi-allocatable-device-with-range-policy-with-capacity-request
#   consumable-capacity-multi-allocatable-device-with-range-policy-step
#   consumable-capacity-multi-allocatable-device-with-valid-values-policy
#   consumable-capacity-multi-allocatable-device-with-valid-values-policy-round-up
#   consumable-capacity-multi-allocatable-device-with-exceeded-consumable-capacity-request
#   consumable-capacity-multi-allocatable-device-with-request-over-max-sharing-policy
#   consumable-capacity-multi-allocatable-device-with-some-remaining-consumable-capacity
#   consumable-capacity-with-multi-allocatable-device-backtrack
#   consumable-capacity-multi-allocatable-device-with-subrequest
#   consumable-capacity-multi-allocatable-device-with-no-available-consumable-capacity
#   consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-no-capacity
#   consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-insufficient-capacity
#   consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-sufficient
#   consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-sufficient
#   consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-insufficient
#   consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-insufficient
#   consumable-capacity-dedicated-device-with-consumable-capacity-request
#   consumable-capacity-dedicated-device-with-multiple-consumable-capacity-request
#   allow-multiple-allocations-exclude-multi-allocatable-device-by-class-selector
#   allow-multiple-allocations-not-allocate-multi-allocatable-device-which-already-dedicated
#   allow-multiple-allocations-not-allocate-dedicated-device-which-change-from-multi-allocatable
#   allow-multiple-allocations-with-partitionable-device (+)
#   distinct-constraint-one-multi-allocatable-device-with-distinct-constraint
#   distinct-constraint-two-multi-allocatable-devices-with-distinct-constraint
#
# Also not ported: the "interrupt" group's timeout, deadline and cancel subtests, which cancel the
# Go context during Allocate: kschedctl's allocator takes no context and reads no clock
# (DRASchedulerFilterTimeout is not applied, see kschedctl.plugins.dynamic_resources). Its "off"
# subtest is the case interrupt-off.


# ---------------------------------------------------------------------------- building the inputs
_FEATURE_FIELDS = {
    "AdminAccess": "admin_access",
    "PrioritizedList": "prioritized_list",
    "PartitionableDevices": "partitionable_devices",
    "DeviceTaints": "device_taints",
    "DeviceBinding": "device_binding",
    "DeviceStatus": "device_status",
    "ConsumableCapacity": "consumable_capacity",
}
_ALL_OFF = {field: False for field in _FEATURE_FIELDS.values()}


def _features(spec: dict | None) -> Features:
    """Upstream's ``Features{...}``: the named fields as given, every other one false."""
    values = dict(_ALL_OFF)
    for name, on in (spec or {}).items():
        values[_FEATURE_FIELDS[name]] = bool(on)
    return Features(**values)


_RANGE = re.compile(r"\{(\d+)\.\.(\d+)\}")


def _expand(text: str) -> list[str]:
    """``device-{0..2}`` -> device-0, device-1, device-2 (inclusive), else the text itself."""
    m = _RANGE.search(text)
    if m is None:
        return [text]
    first, last = int(m.group(1)), int(m.group(2))
    return [text[:m.start()] + str(i) + text[m.end():] for i in range(first, last + 1)]


def _node(name: str | None) -> dict | None:
    """Upstream ``node(name, region)``: node-N is in region-N, and every node is on earth."""
    if name is None:
        return None
    region = "region-" + name.rsplit("-", 1)[1]
    return {"kind": "Node", "metadata": {"name": name, "labels": {"region": region, "planet": "earth"}}}


def _class(spec: dict) -> dict:
    expression = spec.get("expression", f'device.driver == "{spec["driver"]}"')
    obj: dict[str, Any] = {"kind": "DeviceClass", "apiVersion": "resource.k8s.io/v1",
                           "metadata": {"name": spec["name"]},
                           "spec": {"selectors": [{"cel": {"expression": expression}}]}}
    if "config" in spec:  # upstream classWithConfig: one opaque config {"X": "XValue"}
        attribute = spec["config"]
        obj["spec"]["config"] = [{"opaque": {"driver": spec["driver"], "parameters": {attribute: attribute + "Value"}}}]
    return obj


def _with_defaults(request: dict) -> dict:
    """An ``exactly`` request or a subrequest as the API server defaults it (ExactCount, 1)."""
    request = dict(request)
    request.setdefault("allocationMode", "ExactCount")
    if request["allocationMode"] == "ExactCount":
        request.setdefault("count", 1)
    return request


def _claim(spec: dict) -> dict:
    requests = []
    for request in spec.get("requests") or ():
        request = dict(request)
        if "exactly" in request:
            request["exactly"] = _with_defaults(request["exactly"])
        if "firstAvailable" in request:
            request["firstAvailable"] = [_with_defaults(sub) for sub in request["firstAvailable"]]
        requests.append(request)
    devices: dict[str, Any] = {"requests": requests}
    for key in ("constraints", "config"):
        if key in spec:
            devices[key] = spec[key]
    return {"kind": "ResourceClaim", "apiVersion": "resource.k8s.io/v1", "metadata": {"name": spec["name"]},
            "spec": {"devices": devices}}


_SLICE_SPEC_FIELDS = ("nodeName", "allNodes", "nodeSelector", "perDeviceNodeSelection", "sharedCounters")


def _slice(spec: dict) -> dict:
    devices: list[dict] = []
    for device in spec.get("devices") or ():
        if isinstance(device, str):
            devices.extend({"name": name} for name in _expand(device))
        else:
            devices.append(device)
    out: dict[str, Any] = {
        "driver": spec["driver"],
        "pool": {"name": spec["pool"], "generation": spec.get("generation", 1),
                 "resourceSliceCount": spec.get("resourceSliceCount", 1)},
    }
    for key in _SLICE_SPEC_FIELDS:
        if key in spec:
            out[key] = spec[key]
    if devices:
        out["devices"] = devices
    return {"kind": "ResourceSlice", "apiVersion": "resource.k8s.io/v1", "metadata": {"name": spec["name"]},
            "spec": out}


def _allocated(ids: list[str] | None) -> frozenset[DeviceID]:
    return frozenset(DeviceID(*text.split("/")) for text in ids or ())


# ---------------------------------------------------------------------------- expected results
def _device_results(entries: list[str]) -> list[dict]:
    """``req-0 driver-a/pool-1/device-1 [admin]`` -> DeviceRequestAllocationResults."""
    out = []
    for entry in entries:
        request, where, *flags = entry.split()
        assert flags in ([], ["admin"]), entry
        for expanded in _expand(where):
            driver, pool, device = expanded.split("/")
            result: dict[str, Any] = {"request": request, "driver": driver, "pool": pool, "device": device}
            if flags:
                result["adminAccess"] = True
            out.append(result)
    return out


def _node_selector(spec: dict) -> dict | None:
    """``local: N`` is upstream's localNodeSelector(N); ``nodeSelector`` a literal; else none."""
    if "local" in spec:
        return {"nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": [spec["local"]]}]}]}
    return spec.get("nodeSelector")


def _literal(spec: dict) -> dict:
    devices: dict[str, Any] = {"results": _device_results(spec.get("results") or [])}
    if spec.get("config"):
        devices["config"] = spec["config"]
    out: dict[str, Any] = {"devices": devices}
    selector = _node_selector(spec)
    if selector is not None:
        out["nodeSelector"] = selector
    return out


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _selector_key(selector: dict | None) -> Any:
    """A node selector up to the order of its terms, requirements and values."""
    if selector is None:
        return None
    assert set(selector) == {"nodeSelectorTerms"}, selector

    def requirements(reqs: list[dict] | None) -> list[str]:
        return sorted(_canonical({**r, "values": sorted(r.get("values") or [])}) for r in reqs or ())

    terms = []
    for term in selector["nodeSelectorTerms"]:
        assert set(term) <= {"matchExpressions", "matchFields"}, term
        terms.append(_canonical([requirements(term.get("matchExpressions")),
                                 requirements(term.get("matchFields"))]))
    return sorted(terms)


def _matches(spec: dict, actual: dict) -> bool:
    if spec.get("exact"):
        return actual == _literal(spec)
    # upstream's allocationResult matcher: results in any order, Config nil, no timestamp
    if set(actual) - {"devices", "nodeSelector"} or set(actual.get("devices") or {}) - {"results"}:
        return False
    want = sorted(_canonical(r) for r in _device_results(spec.get("results") or []))
    got = sorted(_canonical(r) for r in (actual.get("devices") or {}).get("results") or [])
    return want == got and _selector_key(_node_selector(spec)) == _selector_key(actual.get("nodeSelector"))


def _consist_of(specs: list[dict], actual: list[dict]) -> bool:
    """Gomega's ConsistOf: each expected entry matches a different actual result."""
    if len(specs) != len(actual):
        return False

    def place(i: int, used: frozenset[int]) -> bool:
        if i == len(specs):
            return True
        return any(place(i + 1, used | {j}) for j in range(len(actual))
                   if j not in used and _matches(specs[i], actual[j]))

    return place(0, frozenset())


# ---------------------------------------------------------------------------- the table
def _runs() -> Iterator[Any]:
    for param in load_cases("dra_allocator"):
        case = param.values[0]
        own = _features(case.get("features"))
        yield pytest.param(case, own, id=param.id)
        if not case.get("gateOff") and own != DEFAULT_FEATURES:
            yield pytest.param(case, DEFAULT_FEATURES, id=f"{param.id}[defaults]")


@pytest.mark.parametrize("case,features", list(_runs()))
def test_allocator(case: dict, features: Features) -> None:
    claims = [_claim(c) for c in case.get("claims") or ()]
    classes = [_class(c) for c in case.get("classes") or ()]
    slices = [_slice(s) for s in case.get("slices") or ()]
    allocated = _allocated(case.get("allocated"))
    before = copy.deepcopy((claims, classes, slices, allocated))

    def lookup(name: str) -> dict | None:
        return next((c for c in classes if c["metadata"]["name"] == name), None)

    allocator = Allocator(claims, allocated, lookup, SliceIndex(slices, features), CelCache(), features)
    try:
        results = allocator.allocate(_node(case.get("node")))
        error = None
    except AllocationError as err:
        results, error = None, str(err)

    if "error" in case:
        assert error is not None and case["error"] in error, error
    else:
        assert error is None, error
    want = case.get("want") or []
    assert _consist_of(want, results or []), json.dumps(results, indent=1)
    if "numAllocateOne" in case:
        assert allocator.num_allocate_one == case["numAllocateOne"]
    assert (claims, classes, slices, allocated) == before
