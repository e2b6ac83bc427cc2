"""The types of the fields the scheduler reads, checked as the API server's decoder would.

A Pod with ``affinity: true`` never reaches a real scheduler: the API server refuses to decode
it. Files are not an API server, so this module refuses such objects at load time, naming the
field, instead of letting a plugin fail on them later. Only the fields kschedctl reads are
described; unknown fields are left alone (they do not change scheduling), as is any field
that is absent. The walk visits only what is present, so a typical pod costs a few dict lookups.
"""

from __future__ import annotations

import json
from typing import Any

from kschedctl.errors import InputError

# A shape is one of: STR, INT, INT32, INT_OR_STR, BOOL, ANY_MAP, ANY, a dict {field: shape} (a
# mapping whose listed fields have those shapes), ListOf(shape) or MapOf(shape).
STR, INT, BOOL, ANY_MAP, ANY = "string", "integer", "boolean", "mapping", "any"
#: An int32 field of the API (replicas, parallelism, ...): Go's decoder refuses a number past its range.
INT32 = "int32"
#: intstr.IntOrString (a Deployment's maxSurge: 1 or "25%").
INT_OR_STR = "int-or-string"
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


class ListOf:
    __slots__ = ("item",)

    def __init__(self, item: Any) -> None:
        self.item = item


class MapOf:
    """A mapping of any keys to values of one shape; ``nulls=False`` refuses null values, as
    kschedctl's cluster reader refuses a label whose value is null."""

    __slots__ = ("value", "nulls")

    def __init__(self, value: Any, nulls: bool = True) -> None:
        self.value = value
        self.nulls = nulls


#: Labels and annotations: strings only.
STRING_MAP = MapOf(STR, nulls=False)


_REQUIREMENTS = ListOf({"key": STR, "operator": STR, "values": ListOf(STR)})
LABEL_SELECTOR = {"matchLabels": MapOf(STR), "matchExpressions": _REQUIREMENTS}
NODE_SELECTOR_TERM = {"matchExpressions": _REQUIREMENTS, "matchFields": _REQUIREMENTS}
POD_AFFINITY_TERM = {"labelSelector": LABEL_SELECTOR, "namespaceSelector": LABEL_SELECTOR, "namespaces": ListOf(STR),
                     "topologyKey": STR, "matchLabelKeys": ListOf(STR), "mismatchLabelKeys": ListOf(STR)}
_POD_AFFINITY = {
    "requiredDuringSchedulingIgnoredDuringExecution": ListOf(POD_AFFINITY_TERM),
    "preferredDuringSchedulingIgnoredDuringExecution": ListOf({"weight": INT, "podAffinityTerm": POD_AFFINITY_TERM}),
}
AFFINITY = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": ListOf(NODE_SELECTOR_TERM)},
        "preferredDuringSchedulingIgnoredDuringExecution": ListOf({"weight": INT, "preference": NODE_SELECTOR_TERM}),
    },
    "podAffinity": _POD_AFFINITY,
    "podAntiAffinity": _POD_AFFINITY,
}
RESOURCES = {"requests": ANY_MAP, "limits": ANY_MAP, "claims": ListOf({"name": STR, "request": STR})}
_CONTAINER = {"name": STR, "image": STR, "restartPolicy": STR, "resources": RESOURCES,
              "env": ListOf({"name": STR, "value": STR, "valueFrom": ANY_MAP}),
              "ports": ListOf({"containerPort": INT, "hostPort": INT, "protocol": STR, "hostIP": STR})}
_OBJECT_META = {"name": STR, "generateName": STR, "namespace": STR, "uid": STR, "labels": ANY_MAP,
                "annotations": ANY_MAP,
                "ownerReferences": ListOf({"apiVersion": STR, "kind": STR, "name": STR, "uid": STR,
                                           "controller": BOOL})}
POD = {
    "metadata": _OBJECT_META,
    "spec": {
        "nodeName": STR, "nodeSelector": MapOf(STR), "affinity": AFFINITY, "schedulerName": STR,
        "priority": INT, "priorityClassName": STR, "preemptionPolicy": STR, "hostNetwork": BOOL,
        "tolerations": ListOf({"key": STR, "operator": STR, "value": STR, "effect": STR, "tolerationSeconds": INT}),
        "topologySpreadConstraints": ListOf({"maxSkew": INT, "topologyKey": STR, "whenUnsatisfiable": STR,
                                             "labelSelector": LABEL_SELECTOR, "minDomains": INT,
                                             "nodeAffinityPolicy": STR, "nodeTaintsPolicy": STR,
                                             "matchLabelKeys": ListOf(STR)}),
        "schedulingGates": ListOf({"name": STR}),
        "containers": ListOf(_CONTAINER), "initContainers": ListOf(_CONTAINER),
        "volumes": ListOf({"name": STR, "persistentVolumeClaim": {"claimName": STR, "readOnly": BOOL},
                           "ephemeral": ANY_MAP}),
        "resourceClaims": ListOf(ANY_MAP), "overhead": ANY_MAP, "resources": RESOURCES,
        "hostname": STR, "subdomain": STR,
    },
    "status": {"nominatedNodeName": STR, "phase": STR, "conditions": ListOf(ANY_MAP),
               "resourceClaimStatuses": ListOf(ANY_MAP)},
}
NODE = {
    "metadata": _OBJECT_META,
    "spec": {"unschedulable": BOOL, "taints": ListOf({"key": STR, "value": STR, "effect": STR})},
    "status": {"allocatable": ANY_MAP, "capacity": ANY_MAP, "conditions": ListOf(ANY_MAP),
               "images": ListOf({"names": ListOf(STR), "sizeBytes": INT})},
}

# Workloads: what kschedctl reads of a controller to make its pods (inputs/workloads.py).
_WORKLOAD_META = {**_OBJECT_META, "labels": STRING_MAP, "annotations": STRING_MAP, "finalizers": ListOf(STR),
                  "generation": INT}
POD_TEMPLATE = {"metadata": _WORKLOAD_META, "spec": POD["spec"]}
_COLLISIONS = {"collisionCount": INT32}
_JOB_SPEC = {"parallelism": INT32, "completions": INT32, "completionMode": STR, "manualSelector": BOOL,
             "selector": LABEL_SELECTOR, "template": POD_TEMPLATE}
_REPLICATED = {"replicas": INT32, "minReadySeconds": INT32, "selector": LABEL_SELECTOR, "template": POD_TEMPLATE}
WORKLOAD_SHAPES: dict[str, Any] = {
    "Pod": POD,
    "Deployment": {"metadata": _WORKLOAD_META, "status": _COLLISIONS, "spec": {
        **_REPLICATED, "strategy": {"type": STR, "rollingUpdate": {"maxSurge": INT_OR_STR,
                                                                   "maxUnavailable": INT_OR_STR}}}},
    "ReplicaSet": {"metadata": _WORKLOAD_META, "spec": _REPLICATED},
    "ReplicationController": {"metadata": _WORKLOAD_META, "spec": {**_REPLICATED, "selector": STRING_MAP}},
    "StatefulSet": {"metadata": _WORKLOAD_META, "status": _COLLISIONS, "spec": {
        **_REPLICATED, "serviceName": STR, "ordinals": {"start": INT32},
        "volumeClaimTemplates": ListOf({"metadata": _WORKLOAD_META, "spec": ANY_MAP})}},
    "DaemonSet": {"metadata": _WORKLOAD_META, "status": _COLLISIONS,
                  "spec": {"selector": LABEL_SELECTOR, "template": POD_TEMPLATE}},
    "Job": {"metadata": _WORKLOAD_META, "spec": _JOB_SPEC},
    "CronJob": {"metadata": _WORKLOAD_META, "spec": {"jobTemplate": {"metadata": _WORKLOAD_META, "spec": _JOB_SPEC}}},
}

# Dynamic Resource Allocation (resource.k8s.io/v1, after conversion from older versions).
_NODE_SELECTOR = {"nodeSelectorTerms": ListOf(NODE_SELECTOR_TERM)}
_CEL_SELECTORS = ListOf({"cel": {"expression": STR}})
_DEVICE_CONFIG = ListOf({"requests": ListOf(STR), "opaque": {"driver": STR, "parameters": ANY}})
_DEVICE_REQUEST = {"deviceClassName": STR, "selectors": _CEL_SELECTORS, "allocationMode": STR, "count": INT,
                   "adminAccess": BOOL, "tolerations": ListOf(ANY_MAP), "capacity": ANY_MAP}
_CLAIM_SPEC = {"devices": {
    "requests": ListOf({"name": STR, "exactly": _DEVICE_REQUEST,
                        "firstAvailable": ListOf({"name": STR, **_DEVICE_REQUEST})}),
    "constraints": ListOf({"requests": ListOf(STR), "matchAttribute": STR, "distinctAttribute": STR}),
    "config": _DEVICE_CONFIG,
}}
_ALLOCATION = {"devices": {"results": ListOf({"request": STR, "driver": STR, "pool": STR, "device": STR,
                                              "adminAccess": BOOL}),
                           "config": ListOf(ANY_MAP)},
               "nodeSelector": _NODE_SELECTOR}
DRA_SHAPES: dict[str, Any] = {
    "ResourceSlice": {"metadata": _OBJECT_META, "spec": {
        "driver": STR, "pool": {"name": STR, "generation": INT, "resourceSliceCount": INT},
        "nodeName": STR, "nodeSelector": _NODE_SELECTOR, "allNodes": BOOL, "perDeviceNodeSelection": BOOL,
        "devices": ListOf({"name": STR,
                           "attributes": MapOf({"int": INT, "bool": BOOL, "string": STR, "version": STR}),
                           "capacity": MapOf({"value": ANY}), "consumesCounters": ListOf(ANY_MAP),
                           "taints": ListOf(ANY_MAP), "bindingConditions": ListOf(STR)}),
        "sharedCounters": ListOf(ANY_MAP)}},
    "DeviceClass": {"metadata": _OBJECT_META, "spec": {"selectors": _CEL_SELECTORS, "config": _DEVICE_CONFIG}},
    "ResourceClaim": {"metadata": _OBJECT_META, "spec": _CLAIM_SPEC,
                      "status": {"allocation": _ALLOCATION,
                                 "reservedFor": ListOf({"resource": STR, "name": STR, "uid": STR})}},
    "ResourceClaimTemplate": {"metadata": _OBJECT_META, "spec": {"metadata": ANY_MAP, "spec": _CLAIM_SPEC}},
}


def _type_word(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False) if len(value) <= 40 else "a string"
    if isinstance(value, (int, float)):
        text = str(value)
        return text if len(text) <= 40 else "a number"
    return type(value).__name__


class _Mismatch(Exception):
    """A value of the wrong type; ``parts`` grows as it unwinds, so paths are built only on error."""

    def __init__(self, want: str, value: Any) -> None:
        super().__init__(want)
        self.want, self.value, self.parts = want, value, []  # parts innermost first


def _compile(shape: Any) -> Any:
    """A function checking a non-null value against ``shape`` (raises _Mismatch)."""
    if shape is ANY:
        return None
    if shape is INT32:
        def int32(value: Any) -> None:
            if type(value) is not int or not _INT32_MIN <= value <= _INT32_MAX:
                raise _Mismatch("a 32-bit integer", value)
        return int32
    if shape is INT_OR_STR:
        def int_or_string(value: Any) -> None:
            if type(value) is not str and (type(value) is not int or not _INT32_MIN <= value <= _INT32_MAX):
                raise _Mismatch("a 32-bit integer or a string", value)
        return int_or_string
    if shape in (STR, INT, BOOL, ANY_MAP):
        want, exact = {STR: ("a string", str), INT: ("an integer", int), BOOL: ("true or false", bool),
                       ANY_MAP: ("a mapping", dict)}[shape]

        def scalar(value: Any) -> None:
            if type(value) is not exact:
                raise _Mismatch(want, value)
        return scalar
    if type(shape) is dict:
        fields = {key: fn for key, fn in ((key, _compile(sub)) for key, sub in shape.items()) if fn is not None}
        get_field = fields.get

        def mapping(value: Any) -> None:
            if type(value) is not dict:
                raise _Mismatch("a mapping", value)
            # Walk what the object holds (a few keys) rather than every field the shape knows.
            for key, item in value.items():
                fn = get_field(key)
                if fn is not None and item is not None:
                    try:
                        fn(item)
                    except _Mismatch as exc:
                        exc.parts.append(f".{key}")
                        raise
        return mapping
    if type(shape) is ListOf:
        item_fn = _compile(shape.item)
        null_want = "a string" if shape.item is STR else "a mapping"

        def listing(value: Any) -> None:
            if type(value) is not list:
                raise _Mismatch("a list", value)
            for i, item in enumerate(value):
                try:
                    if item is None:  # decodes to an empty struct the API server then refuses
                        raise _Mismatch(null_want, item)
                    if item_fn is not None:
                        item_fn(item)
                except _Mismatch as exc:
                    exc.parts.append(f"[{i}]")
                    raise
        return listing
    if type(shape) is MapOf:
        value_fn = _compile(shape.value)
        nulls = shape.nulls
        null_word = "a string" if shape.value is STR else "a mapping"

        def map_of(value: Any) -> None:
            if type(value) is not dict:
                raise _Mismatch("a mapping", value)
            for key, item in value.items():
                try:
                    if item is None:
                        if not nulls:
                            raise _Mismatch(null_word, item)
                    elif value_fn is not None:
                        value_fn(item)
                except _Mismatch as exc:
                    exc.parts.append(f".{key}")
                    raise
        return map_of
    raise TypeError(f"not a shape: {shape!r}")


def check(value: Any, shape: Any, path: str = "") -> None:
    """InputError naming the field if ``value`` does not have ``shape`` (null is always allowed)."""
    fn = _COMPILED.get(id(shape))
    if fn is None:
        fn = _COMPILED[id(shape)] = _compile(shape)
    _run(fn, value, path)


def _run(fn: Any, value: Any, path: str) -> None:
    if value is None or fn is None:
        return
    try:
        fn(value)
    except _Mismatch as exc:
        where = path + "".join(reversed(exc.parts))
        raise InputError(f"{where.lstrip('.')} must be {exc.want}, not {_type_word(exc.value)}") from None


_COMPILED: dict[int, Any] = {}
_POD_CHECK = _compile(POD)
_NODE_CHECK = _compile(NODE)


def check_pod(pod: dict) -> None:
    """The Pod's scheduling fields have the types the API server would have decoded."""
    _run(_POD_CHECK, pod, "")


def check_workload(obj: dict) -> None:
    """A Pod or workload (Deployment, ..., CronJob) has the field types the API server would decode,
    its pod template included."""
    shape = WORKLOAD_SHAPES.get(str(obj.get("kind")))
    if shape is not None:
        check(obj, shape)


def check_dra(obj: dict) -> None:
    """A resource.k8s.io object (v1 shape) has the field types the API server would decode."""
    shape = DRA_SHAPES.get(str(obj.get("kind")))
    if shape is not None:
        check(obj, shape)


def check_node(node: dict) -> None:
    """The Node's scheduling fields have the types the API server would have decoded."""
    _run(_NODE_CHECK, node, "")
