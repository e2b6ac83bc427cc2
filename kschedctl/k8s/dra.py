"""Dynamic Resource Allocation objects (``resource.k8s.io``) in the shape of ``v1``, whatever
version a file was written in, as the API server of v1.34 serves them.

Kubernetes v1.34 serves ResourceClaim, ResourceClaimTemplate, DeviceClass and ResourceSlice as
``resource.k8s.io/v1`` (GA), ``v1beta2`` and ``v1beta1``; its internal shape is v1's. kschedctl
keeps every such object in the v1 shape, converting the older ones on the way in, following
upstream's conversions (``pkg/apis/resource/v1beta1/conversion.go``):

- ``v1beta2`` has v1's shape: only the apiVersion changes.
- ``v1beta1`` requests carry the device fields directly (``deviceClassName``, ``selectors``,
  ``allocationMode``, ``count``, ``adminAccess``, ``tolerations``, ``capacity``); when any of
  them is set they move into ``exactly`` (upstream: ``hasAnyMainRequestFieldsSet``), and
  ``firstAvailable`` stays as it is.
- ``v1beta1`` ResourceSlice devices wrap their fields in ``basic``; they are lifted to the
  device itself (upstream records the names of such devices in the annotation
  ``resource.k8s.io/basic-device-names``, which kschedctl sets too).
- Other versions (``v1alpha3``...) are not served for these kinds by v1.34: an input error.

The objects are converted in place (the dict read from the file becomes the v1 object).
"""

from __future__ import annotations

from typing import Any

from kschedctl.errors import InputError

__all__ = ["GROUP", "KINDS", "to_v1", "request_fields_v1beta1", "gated_fields"]

GROUP = "resource.k8s.io"
V1 = f"{GROUP}/v1"
KINDS = ("ResourceClaim", "ResourceClaimTemplate", "DeviceClass", "ResourceSlice")
SERVED = ("v1", "v1beta2", "v1beta1")
BASIC_DEVICE_NAMES_ANNOTATION = "resource.k8s.io/basic-device-names"

#: The fields of a v1beta1 DeviceRequest that v1 keeps in ``exactly``.
request_fields_v1beta1 = ("deviceClassName", "selectors", "allocationMode", "count", "adminAccess", "tolerations",
                          "capacity")


def to_v1(obj: dict) -> dict:
    """``obj`` (a resource.k8s.io object of a served version) as v1, in place; InputError for a
    version v1.34 does not serve or a shape the conversion cannot read."""
    kind = obj.get("kind")
    api_version = obj.get("apiVersion") or V1
    version = api_version.split("/", 1)[1] if "/" in api_version else api_version
    if version not in SERVED:
        raise InputError(f"{api_version} {kind} is not served by Kubernetes v1.34 (use resource.k8s.io/v1, "
                         f"v1beta2 or v1beta1)")
    if version == "v1beta1":
        if kind == "ResourceClaim":
            _claim_spec(obj.get("spec"), "spec")
        elif kind == "ResourceClaimTemplate":
            spec = obj.get("spec")
            if spec is not None and not isinstance(spec, dict):
                raise InputError("spec must be a mapping")
            _claim_spec((spec or {}).get("spec"), "spec.spec")
        elif kind == "ResourceSlice":
            _slice(obj)
    obj["apiVersion"] = V1
    return obj


def _mapping(value: Any, where: str) -> dict | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise InputError(f"{where} must be a mapping")
    return value


def _list(value: Any, where: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(f"{where} must be a list")
    return value


def _claim_spec(spec: Any, where: str) -> None:
    spec = _mapping(spec, where)
    devices = _mapping((spec or {}).get("devices"), f"{where}.devices")
    for i, request in enumerate(_list((devices or {}).get("requests"), f"{where}.devices.requests")):
        request = _mapping(request, f"{where}.devices.requests[{i}]")
        if request is None:
            continue
        exactly = {field: request.pop(field) for field in request_fields_v1beta1 if field in request}
        if exactly:
            request["exactly"] = exactly


def _slice(obj: dict) -> None:
    spec = _mapping(obj.get("spec"), "spec")
    basic_names = []
    for i, device in enumerate(_list((spec or {}).get("devices"), "spec.devices")):
        device = _mapping(device, f"spec.devices[{i}]")
        if device is None or "basic" not in device:
            continue
        basic = _mapping(device.pop("basic"), f"spec.devices[{i}].basic") or {}
        for key, value in basic.items():
            device.setdefault(key, value)
        basic_names.append(str(device.get("name", "")))
    if basic_names:
        meta = obj.setdefault("metadata", {})
        if isinstance(meta, dict):
            annotations = meta.setdefault("annotations", {})
            if isinstance(annotations, dict):
                annotations[BASIC_DEVICE_NAMES_ANNOTATION] = ",".join(basic_names)


#: Fields of DRA features that are off by default in v1.34: where they sit, their gate, and what
#: kube-scheduler v1.34 with its default gates does with a stored one (an API server with the gate
#: off refuses to set them on create, but keeps them on objects stored while it was on).
_IGNORED = "ignored"
_NEVER = "the device is never allocated"
_SLICE_SPEC_FIELDS = (("sharedCounters", "DRAPartitionableDevices", _IGNORED),
                      ("perDeviceNodeSelection", "DRAPartitionableDevices", "the whole slice is ignored"))
_DEVICE_FIELDS = (("consumesCounters", "DRAPartitionableDevices", _NEVER),
                  ("nodeName", "DRAPartitionableDevices", _IGNORED),
                  ("nodeSelector", "DRAPartitionableDevices", _IGNORED),
                  ("allNodes", "DRAPartitionableDevices", _IGNORED),
                  ("taints", "DRADeviceTaints", "ignored: the device is allocated as if it had no taints"),
                  ("bindingConditions", "DRADeviceBindingConditions", _NEVER),
                  ("bindingFailureConditions", "DRADeviceBindingConditions", _IGNORED),
                  ("bindsToNode", "DRADeviceBindingConditions", _IGNORED),
                  ("allowMultipleAllocations", "DRAConsumableCapacity",
                   "ignored: the device goes to one claim at a time"))
_REQUEST_FIELDS = (("tolerations", "DRADeviceTaints", _IGNORED),
                   ("capacity", "DRAConsumableCapacity",
                    "the allocator fails: has capacity requests, but the DRAConsumableCapacity feature is disabled"))
_CLASS_FIELDS = (("extendedResourceName", "DRAExtendedResource", _IGNORED),)
_DISTINCT = (("distinctAttribute", "DRAConsumableCapacity",
              "only devices with the attribute are allocated; their values are not compared (release-1.34)"),)


def gated_fields(obj: dict) -> list[tuple[str, str, str]]:
    """The fields of ``obj`` (v1 shape) that belong to a DRA feature gate off by default in v1.34:
    (field path, gate, what the v1.34 scheduler does with it). The object is not changed."""
    found: list[tuple[str, str, str]] = []

    def look(container: Any, fields: tuple, path: str) -> None:
        if isinstance(container, dict):
            found.extend((f"{path}.{field}", gate, effect) for field, gate, effect in fields if field in container)

    kind = obj.get("kind")
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return found
    if kind == "ResourceSlice":
        look(spec, _SLICE_SPEC_FIELDS, "spec")
        for i, device in enumerate(spec.get("devices") or ()):
            look(device, _DEVICE_FIELDS, f"spec.devices[{i}]")
            if isinstance(device, dict) and isinstance(device.get("capacity"), dict):
                for name, cap in device["capacity"].items():
                    look(cap, (("requestPolicy", "DRAConsumableCapacity", _IGNORED),),
                         f"spec.devices[{i}].capacity[{name}]")
    elif kind == "DeviceClass":
        look(spec, _CLASS_FIELDS, "spec")
    elif kind in ("ResourceClaim", "ResourceClaimTemplate"):
        claim_spec, path = (spec.get("spec"), "spec.spec") if kind == "ResourceClaimTemplate" else (spec, "spec")
        devices = (claim_spec or {}).get("devices") if isinstance(claim_spec, dict) else None
        if isinstance(devices, dict):
            for i, request in enumerate(devices.get("requests") or ()):
                if not isinstance(request, dict):
                    continue
                look(request.get("exactly"), _REQUEST_FIELDS, f"{path}.devices.requests[{i}].exactly")
                for j, sub in enumerate(request.get("firstAvailable") or ()):
                    look(sub, _REQUEST_FIELDS, f"{path}.devices.requests[{i}].firstAvailable[{j}]")
            for i, constraint in enumerate(devices.get("constraints") or ()):
                look(constraint, _DISTINCT, f"{path}.devices.constraints[{i}]")
    return found
