"""Resource names, the scheduler's ``Resource`` record, pod requests and QoS, as upstream v1.34.

Upstream:
- resource names: pkg/apis/core/v1/helper/helpers.go (IsExtendedResourceName,
  IsHugePageResourceName, IsPrefixedNativeResource, IsNativeResource, IsScalarResourceName);
- ``Resource``: pkg/scheduler/framework/types.go (NewResource, Add, SetMaxResource, Clone);
- pod requests: staging/src/k8s.io/component-helpers/resource/helpers.go (PodRequests,
  AggregateContainerRequests) called with the options of PodInfo.CalculateResource in v1.34:
  ``UseStatusResources`` on (InPlacePodVerticalScaling is beta and on by default since 1.33),
  pod-level resources honoured (PodLevelResources is beta and on by default in 1.34), restartable
  (sidecar) init containers always counted (SidecarContainers is GA), overhead included;
- non-zero requests: types.go getNonMissingContainerRequests with pkg/scheduler/util
  DefaultMilliCPURequest (100m) and DefaultMemoryRequest (200Mi);
- QoS: pkg/apis/core/v1/helper/qos/qos.go (GetPodQOS / ComputePodQOS as of v1.34, which sums
  container requests and limits; pod-level resources win when ``spec.resources`` is set).

Quantities are handled as exact integer nanos (see ``kschedctl.k8s.quantity``) and converted to
millicores / integers only at the end, as upstream converts a summed ``Quantity``.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache
from typing import Any, Iterable, Mapping

from kschedctl.fastpaths import PROCESS as FAST_PATHS
from kschedctl.k8s.quantity import (
    NANO,
    format_bytes,
    format_decimal,
    format_milli_cpu,
    milli_of_nanos,
    nanos,
    value_of_nanos,
)
from kschedctl.k8s.shared_parts import is_shared

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"

HUGEPAGES_PREFIX = "hugepages-"
#: v1.ResourceDefaultNamespacePrefix
DEFAULT_NAMESPACE_PREFIX = "kubernetes.io/"
#: v1.DefaultResourceRequestsPrefix
DEFAULT_RESOURCE_REQUESTS_PREFIX = "requests."
#: v1.ResourceAttachableVolumesPrefix
ATTACHABLE_VOLUMES_PREFIX = "attachable-volumes-"

#: pkg/scheduler/util: what a container without a cpu / memory request counts for in scoring.
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024

#: QoS classes (v1.PodQOSClass).
QOS_GUARANTEED = "Guaranteed"
QOS_BURSTABLE = "Burstable"
QOS_BEST_EFFORT = "BestEffort"

#: Feature gates at their v1.34 defaults, as the scheduler reads them.
POD_LEVEL_RESOURCES_ENABLED = True
IN_PLACE_POD_VERTICAL_SCALING_ENABLED = True

_SUPPORTED_POD_LEVEL = frozenset({CPU, MEMORY})
_QOS_RESOURCES = (CPU, MEMORY)

# apimachinery validation: IsQualifiedName / IsDNS1123Subdomain
_QUALIFIED_NAME_RE = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_DNS1123_SUBDOMAIN_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


# --- resource names ------------------------------------------------------------------------------


def _is_qualified_name(value: str) -> bool:
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix or len(prefix) > 253 or not _DNS1123_SUBDOMAIN_RE.match(prefix):
            return False
    else:
        return False
    return 0 < len(name) <= 63 and bool(_QUALIFIED_NAME_RE.match(name))


def is_prefixed_native_resource(name: str) -> bool:
    """Native resource in the kubernetes.io domain (``IsPrefixedNativeResource``)."""
    return DEFAULT_NAMESPACE_PREFIX in name


def is_native_resource(name: str) -> bool:
    """No domain, or the kubernetes.io domain (``IsNativeResource``)."""
    return "/" not in name or DEFAULT_NAMESPACE_PREFIX in name


def is_hugepage_resource_name(name: str) -> bool:
    """``hugepages-<size>`` (``IsHugePageResourceName``)."""
    return name.startswith(HUGEPAGES_PREFIX)


def is_attachable_volume_resource_name(name: str) -> bool:
    """``attachable-volumes-<plugin>`` (``IsAttachableVolumeResourceName``)."""
    return name.startswith(ATTACHABLE_VOLUMES_PREFIX)


@lru_cache(maxsize=4096)
def is_extended_resource_name(name: str) -> bool:
    """A fully-qualified name outside kubernetes.io that is valid under ``requests.`` for quota."""
    if is_native_resource(name) or name.startswith(DEFAULT_RESOURCE_REQUESTS_PREFIX):
        return False
    return _is_qualified_name(DEFAULT_RESOURCE_REQUESTS_PREFIX + name)


@lru_cache(maxsize=4096)
def is_scalar_resource_name(name: str) -> bool:
    """Extended, hugepages, prefixed native or attachable-volumes resource (``IsScalarResourceName``)."""
    return (
        is_extended_resource_name(name)
        or is_hugepage_resource_name(name)
        or is_prefixed_native_resource(name)
        or is_attachable_volume_resource_name(name)
    )


def is_supported_pod_level_resource(name: str) -> bool:
    """cpu, memory and hugepages-* may be set at pod level (``IsSupportedPodLevelResource``)."""
    return name in _SUPPORTED_POD_LEVEL or name.startswith(HUGEPAGES_PREFIX)


# --- Resource ------------------------------------------------------------------------------------


class Resource:
    """The scheduler's compute-resource record: millicores, bytes, pod count, scalars by name."""

    __slots__ = ("milli_cpu", "memory", "ephemeral_storage", "allowed_pod_number", "scalar_resources")

    def __init__(
        self,
        milli_cpu: int = 0,
        memory: int = 0,
        ephemeral_storage: int = 0,
        allowed_pod_number: int = 0,
        scalar_resources: dict[str, int] | None = None,
    ) -> None:
        self.milli_cpu = milli_cpu
        self.memory = memory
        self.ephemeral_storage = ephemeral_storage
        self.allowed_pod_number = allowed_pod_number
        self.scalar_resources: dict[str, int] = dict(scalar_resources) if scalar_resources else {}

    @classmethod
    def from_list(cls, resource_list: Mapping[str, Any] | None) -> "Resource":
        """``NewResource``: a resource list (name -> quantity) as a Resource.

        Names that are neither cpu, memory, ephemeral-storage, pods nor scalar are ignored.
        Raises ``QuantityError`` on a bad quantity.
        """
        r = cls()
        if resource_list:
            r._add_nanos({name: nanos(q) for name, q in resource_list.items()})
        return r

    @classmethod
    def _from_nanos(cls, amounts: Mapping[str, int]) -> "Resource":
        r = cls()
        r._add_nanos(amounts)
        return r

    def _add_nanos(self, amounts: Mapping[str, int]) -> None:
        for name, n in amounts.items():
            if name == CPU:
                self.milli_cpu += milli_of_nanos(n)
            elif name == MEMORY:
                self.memory += value_of_nanos(n)
            elif name == PODS:
                self.allowed_pod_number += value_of_nanos(n)
            elif name == EPHEMERAL_STORAGE:
                self.ephemeral_storage += value_of_nanos(n)
            elif is_scalar_resource_name(name):
                scalars = self.scalar_resources
                scalars[name] = scalars.get(name, 0) + value_of_nanos(n)

    def add(self, other: "Resource | Mapping[str, Any]") -> "Resource":
        """Add another Resource field by field, or a resource list as upstream ``Resource.Add``."""
        if isinstance(other, Resource):
            self.milli_cpu += other.milli_cpu
            self.memory += other.memory
            self.ephemeral_storage += other.ephemeral_storage
            self.allowed_pod_number += other.allowed_pod_number
            scalars = self.scalar_resources
            for name, v in other.scalar_resources.items():
                scalars[name] = scalars.get(name, 0) + v
        elif other:
            self._add_nanos({name: nanos(q) for name, q in other.items()})
        return self

    def sub(self, other: "Resource") -> "Resource":
        """Subtract another Resource field by field (scalars missing here count as 0)."""
        self.milli_cpu -= other.milli_cpu
        self.memory -= other.memory
        self.ephemeral_storage -= other.ephemeral_storage
        self.allowed_pod_number -= other.allowed_pod_number
        scalars = self.scalar_resources
        for name, v in other.scalar_resources.items():
            scalars[name] = scalars.get(name, 0) - v
        return self

    def add_scalar(self, name: str, quantity: int) -> None:
        self.scalar_resources[name] = self.scalar_resources.get(name, 0) + quantity

    def set_scalar(self, name: str, quantity: int) -> None:
        self.scalar_resources[name] = quantity

    def clone(self) -> "Resource":
        r = Resource.__new__(Resource)
        r.milli_cpu = self.milli_cpu
        r.memory = self.memory
        r.ephemeral_storage = self.ephemeral_storage
        r.allowed_pod_number = self.allowed_pod_number
        r.scalar_resources = dict(self.scalar_resources)
        return r

    def get(self, name: str) -> int:
        """The amount of one resource by its API name (cpu in millicores; "pods" = allowed pods)."""
        if name == CPU:
            return self.milli_cpu
        if name == MEMORY:
            return self.memory
        if name == EPHEMERAL_STORAGE:
            return self.ephemeral_storage
        if name == PODS:
            return self.allowed_pod_number
        return self.scalar_resources.get(name, 0)

    def set_max_resource(self, resource_list: Mapping[str, Any] | None) -> "Resource":
        """``SetMaxResource``: each field becomes the max of itself and the list's value.

        As upstream, "pods" and non-scalar names in the list are ignored.
        """
        if not resource_list:
            return self
        for name, q in resource_list.items():
            n = nanos(q)
            if name == MEMORY:
                self.memory = max(self.memory, value_of_nanos(n))
            elif name == CPU:
                self.milli_cpu = max(self.milli_cpu, milli_of_nanos(n))
            elif name == EPHEMERAL_STORAGE:
                self.ephemeral_storage = max(self.ephemeral_storage, value_of_nanos(n))
            elif is_scalar_resource_name(name):
                self.scalar_resources[name] = max(self.scalar_resources.get(name, 0), value_of_nanos(n))
        return self

    def to_list(self) -> dict[str, str]:
        """The record as a resource list of canonical quantity strings (upstream ResourceList())."""
        out = {
            CPU: format_milli_cpu(self.milli_cpu),
            MEMORY: format_bytes(self.memory),
            PODS: format_bytes(self.allowed_pod_number),
            EPHEMERAL_STORAGE: format_bytes(self.ephemeral_storage),
        }
        for name in sorted(self.scalar_resources):
            v = self.scalar_resources[name]
            out[name] = format_bytes(v) if is_hugepage_resource_name(name) else format_decimal(v)
        return out

    def is_zero(self) -> bool:
        return not (
            self.milli_cpu
            or self.memory
            or self.ephemeral_storage
            or self.allowed_pod_number
            or any(self.scalar_resources.values())
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Resource):
            return NotImplemented
        return (
            self.milli_cpu == other.milli_cpu
            and self.memory == other.memory
            and self.ephemeral_storage == other.ephemeral_storage
            and self.allowed_pod_number == other.allowed_pod_number
            and self.scalar_resources == other.scalar_resources
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        scalars = f", scalar_resources={self.scalar_resources!r}" if self.scalar_resources else ""
        return (
            f"Resource(milli_cpu={self.milli_cpu}, memory={self.memory}, "
            f"ephemeral_storage={self.ephemeral_storage}, allowed_pod_number={self.allowed_pod_number}{scalars})"
        )


# --- pod requests --------------------------------------------------------------------------------

def _to_nanos(resource_list: Mapping[str, Any] | None) -> dict[str, int]:
    if not resource_list:
        return {}
    return {name: nanos(q) for name, q in resource_list.items()}


def _add_into(target: dict[str, int], extra: Mapping[str, int]) -> None:
    for name, n in extra.items():
        target[name] = target.get(name, 0) + n


def _max_into(target: dict[str, int], other: Mapping[str, int]) -> None:
    for name, n in other.items():
        if name not in target or n > target[name]:
            target[name] = n


def _max_of(first: Mapping[str, int] | None, *others: Mapping[str, int] | None) -> dict[str, int]:
    result = dict(first) if first else {}
    for other in others:
        if other:
            _max_into(result, other)
    return result


def _container_spec_requests(container: Mapping[str, Any]) -> dict[str, int]:
    resources = container.get("resources")
    if not resources:
        return {}
    return _to_nanos(resources.get("requests"))


def is_pod_resize_infeasible(pod: Mapping[str, Any]) -> bool:
    """The pod's first PodResizePending condition says Infeasible (``IsPodResizeInfeasible``)."""
    for condition in (pod.get("status") or {}).get("conditions") or ():
        if condition.get("type") == "PodResizePending":
            return condition.get("reason") == "Infeasible"
    return False


class _StatusView:
    """Lazily built lookups into pod.status for in-place resize (UseStatusResources)."""

    __slots__ = ("pod", "_by_name", "_infeasible")

    def __init__(self, pod: Mapping[str, Any]) -> None:
        self.pod = pod
        self._by_name: dict[str, Mapping[str, Any]] | None = None
        self._infeasible: bool | None = None

    def status_of(self, name: str) -> Mapping[str, Any] | None:
        if self._by_name is None:
            status = self.pod.get("status") or {}
            by_name: dict[str, Mapping[str, Any]] = {}
            # init container statuses are entered last, so they win a name clash as upstream
            for cs in status.get("containerStatuses") or ():
                by_name[cs.get("name", "")] = cs
            for cs in status.get("initContainerStatuses") or ():
                by_name[cs.get("name", "")] = cs
            self._by_name = by_name
        return self._by_name.get(name)

    def infeasible(self) -> bool:
        if self._infeasible is None:
            self._infeasible = is_pod_resize_infeasible(self.pod)
        return self._infeasible


def _effective_requests(container: Mapping[str, Any], view: _StatusView | None) -> dict[str, int]:
    """A container's requests, raised to what its status reports while a resize is in flight."""
    spec_reqs = _container_spec_requests(container)
    if view is None:
        return spec_reqs
    cs = view.status_of(container.get("name", ""))
    if cs is None or cs.get("resources") is None:
        return spec_reqs
    actual = _to_nanos((cs.get("resources") or {}).get("requests"))
    allocated = _to_nanos(cs.get("allocatedResources"))
    if view.infeasible():
        return _max_of(actual, allocated)
    return _max_of(spec_reqs, actual, allocated)


def _apply_non_missing(reqs: Mapping[str, int], non_missing: Mapping[str, int]) -> dict[str, int]:
    out = dict(reqs)
    for name, n in non_missing.items():
        if name not in reqs:
            out[name] = n
    return out


def _has_status(pod: Mapping[str, Any]) -> bool:
    status = pod.get("status")
    return bool(status and (status.get("containerStatuses") or status.get("initContainerStatuses")))


def _container_entries(
    pod: Mapping[str, Any], use_status: bool
) -> tuple[list[dict[str, int]], list[tuple[bool, dict[str, int]]]]:
    """Each container's effective requests, and each init container's (restartable?, requests).

    Computed once per pod and aggregated as often as needed (requests and non-zero requests).
    """
    spec = pod.get("spec") or {}
    view = _StatusView(pod) if use_status and _has_status(pod) else None
    containers = [_effective_requests(c, view) for c in spec.get("containers") or ()]
    inits = []
    for c in spec.get("initContainers") or ():
        sidecar = c.get("restartPolicy") == "Always"
        inits.append((sidecar, _effective_requests(c, view) if sidecar else _container_spec_requests(c)))
    return containers, inits


def _aggregate_container_requests(
    containers: list[dict[str, int]],
    inits: list[tuple[bool, dict[str, int]]],
    non_missing: Mapping[str, int] | None,
) -> dict[str, int]:
    """``AggregateContainerRequests``: containers summed, init containers max'ed, sidecars summed.

    While init container i runs, the pod uses init container i plus every restartable init
    container before it; the pod needs the max of that over i, and at least the sum of its
    containers plus all restartable init containers.
    """
    result: dict[str, int] = {}
    for reqs in containers:
        if non_missing:
            reqs = _apply_non_missing(reqs, non_missing)
        _add_into(result, reqs)
    if inits:
        restartable: dict[str, int] = {}
        init_max: dict[str, int] = {}
        for sidecar, reqs in inits:
            if non_missing:
                reqs = _apply_non_missing(reqs, non_missing)
            if sidecar:
                _add_into(result, reqs)
                _add_into(restartable, reqs)
                in_use: Mapping[str, int] = restartable
            else:
                combined = dict(reqs)
                _add_into(combined, restartable)
                in_use = combined
            _max_into(init_max, in_use)
        _max_into(result, init_max)
    return result


def is_pod_level_requests_set(pod: Mapping[str, Any]) -> bool:
    """``spec.resources.requests`` names cpu, memory or hugepages (``IsPodLevelRequestsSet``)."""
    resources = (pod.get("spec") or {}).get("resources")
    if not resources:
        return False
    requests = resources.get("requests")
    if not requests:
        return False
    return any(is_supported_pod_level_resource(name) for name in requests)


def is_pod_level_resources_set(pod: Mapping[str, Any]) -> bool:
    """Pod-level requests or limits name a supported resource (``IsPodLevelResourcesSet``)."""
    resources = (pod.get("spec") or {}).get("resources")
    if not resources:
        return False
    names = list(resources.get("requests") or ()) + list(resources.get("limits") or ())
    return any(is_supported_pod_level_resource(name) for name in names)


def _pod_requests_nanos(
    pod: Mapping[str, Any],
    *,
    use_status_resources: bool = IN_PLACE_POD_VERTICAL_SCALING_ENABLED,
    skip_pod_level_resources: bool = not POD_LEVEL_RESOURCES_ENABLED,
    exclude_overhead: bool = False,
    non_missing: Mapping[str, int] | None = None,
    entries: tuple[list[dict[str, int]], list[tuple[bool, dict[str, int]]]] | None = None,
) -> dict[str, int]:
    """``resource.PodRequests`` with amounts in nanos."""
    if entries is None:
        entries = _container_entries(pod, use_status_resources)
    reqs = _aggregate_container_requests(entries[0], entries[1], non_missing)
    spec = pod.get("spec") or {}
    if not skip_pod_level_resources and is_pod_level_requests_set(pod):
        for name, q in spec["resources"]["requests"].items():
            if is_supported_pod_level_resource(name):
                reqs[name] = nanos(q)
    if not exclude_overhead:
        overhead = spec.get("overhead")
        if overhead:
            _add_into(reqs, _to_nanos(overhead))
    return reqs


def pod_request_list(
    pod: Mapping[str, Any],
    *,
    use_status_resources: bool = IN_PLACE_POD_VERTICAL_SCALING_ENABLED,
    skip_pod_level_resources: bool = not POD_LEVEL_RESOURCES_ENABLED,
    exclude_overhead: bool = False,
) -> dict[str, Fraction]:
    """``resource.PodRequests`` as a resource list of exact values (name -> Fraction).

    Defaults are those of the scheduler's PodInfo in v1.34. NodeResourcesFit's PreFilter uses
    ``use_status_resources=False`` (a pending pod has no resize in flight).
    """
    amounts = _pod_requests_nanos(
        pod,
        use_status_resources=use_status_resources,
        skip_pod_level_resources=skip_pod_level_resources,
        exclude_overhead=exclude_overhead,
    )
    return {name: Fraction(n, NANO) for name, n in amounts.items()}


_DEFAULT_NON_MISSING = {CPU: DEFAULT_MILLI_CPU_REQUEST * 1_000_000, MEMORY: DEFAULT_MEMORY_REQUEST * NANO}


def pod_resources(pod: Mapping[str, Any]) -> tuple[Resource, int, int]:
    """What PodInfo.CalculateResource computes: (requests, non-zero milli cpu, non-zero memory).

    Non-zero: every container missing a cpu / memory request counts 100m / 200Mi; when pod-level
    requests are set, only a resource missing from the pod's effective requests gets the default.
    Raises ``QuantityError`` on a bad quantity.
    """
    if _MEMOIZE:
        parts = shared_request_parts(pod)
        if parts is not None:
            found = _BY_PARTS.get(parts[0])
            if found is None:
                found = _pod_resources_by_template(pod)
                if len(_BY_PARTS) >= _BY_TEMPLATE_MAX:
                    _BY_PARTS.clear()
                _BY_PARTS[parts[0]] = (found[0].clone(), found[1], found[2], parts[1])
                return found
            requests, milli_cpu, memory, _held = found
            return requests.clone(), milli_cpu, memory
    return _pod_resources_by_template(pod)


def _pod_resources_by_template(pod: Mapping[str, Any]) -> tuple[Resource, int, int]:
    """``pod_resources`` without the memo keyed by shared parts (still by template text)."""
    key = _template_key(pod) if _MEMOIZE else None
    found = _BY_TEMPLATE.get(key) if key is not None else None
    if found is not None:
        requests, milli_cpu, memory = found
        return requests.clone(), milli_cpu, memory  # each pod its own Resource: callers may add to it
    nanos_requests, milli_cpu, memory = _pod_resource_nanos(pod)
    requests = Resource._from_nanos(nanos_requests)
    if key is not None:
        if len(_BY_TEMPLATE) >= _BY_TEMPLATE_MAX:
            _BY_TEMPLATE.clear()
        _BY_TEMPLATE[key] = (requests.clone(), milli_cpu, memory)
    return requests, milli_cpu, memory


def _pod_resource_nanos(pod: Mapping[str, Any]) -> tuple[dict[str, int], int, int]:
    entries = _container_entries(pod, IN_PLACE_POD_VERTICAL_SCALING_ENABLED)
    requests = _pod_requests_nanos(pod, entries=entries)
    if POD_LEVEL_RESOURCES_ENABLED and is_pod_level_requests_set(pod):
        non_missing = {name: n for name, n in _DEFAULT_NON_MISSING.items() if name not in requests}
    else:
        non_missing = _DEFAULT_NON_MISSING
    non0 = _pod_requests_nanos(pod, non_missing=non_missing, entries=entries) if non_missing else requests
    return requests, milli_of_nanos(non0.get(CPU, 0)), value_of_nanos(non0.get(MEMORY, 0))


# Pods of one ReplicaSet share their template, so their requests are computed once: keyed by the
# text of everything pod_resources reads (repr of plain data is equal only for equal data).
_MEMOIZE = FAST_PATHS.template_memos
_BY_TEMPLATE: dict[tuple[Any, ...], tuple[Resource, int, int]] = {}
_BY_TEMPLATE_MAX = 4096


#: The same, keyed by the identity of the parts pod_resources reads when they are parts the
#: cluster's pods share (``kschedctl.inputs.sharing``), which never change: no text to make.
#: Each entry holds those parts, so no other object can take their ids while it is kept.
_BY_PARTS: dict[tuple[int, ...], tuple[Resource, int, int, tuple[Any, ...]]] = {}


def shared_request_parts(pod: Mapping[str, Any]) -> tuple[tuple[int, ...], tuple[Any, ...]] | None:
    """The ids and the parts pod_resources reads, when each is shared or absent and the status
    cannot matter (no resize in flight to read); None otherwise."""
    spec = pod.get("spec")
    if spec.__class__ is not dict or (IN_PLACE_POD_VERTICAL_SCALING_ENABLED and _has_status(pod)):
        return None
    parts = (spec.get("containers"), spec.get("initContainers"), spec.get("resources"), spec.get("overhead"))
    for part in parts:
        if part is not None and not is_shared(part):
            return None
    return tuple(map(id, parts)), parts


def _template_key(pod: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """What pod_resources depends on, as a hashable key (None when the pod is not the plain data
    it expects): the requests of the spec, and what a resize in flight reads from the status."""
    try:
        spec = pod.get("spec") or {}
        key: tuple[Any, ...] = (
            tuple((c.get("name"), repr(c.get("resources"))) for c in spec.get("containers") or ()),
            tuple((c.get("name"), c.get("restartPolicy"), repr(c.get("resources")))
                  for c in spec.get("initContainers") or ()),
            repr(spec.get("resources")),
            repr(spec.get("overhead")),
        )
        if IN_PLACE_POD_VERTICAL_SCALING_ENABLED and _has_status(pod):
            status = pod["status"]
            key += (
                tuple((cs.get("name"), repr(cs.get("resources")), repr(cs.get("allocatedResources")))
                      for cs in (*(status.get("containerStatuses") or ()),
                                 *(status.get("initContainerStatuses") or ()))),
                is_pod_resize_infeasible(pod),
            )
        return key
    except (AttributeError, TypeError):
        return None


def pod_requests(pod: Mapping[str, Any]) -> Resource:
    """The pod's requests as the scheduler counts them (upstream PodRequests, v1.34 options)."""
    return Resource._from_nanos(_pod_requests_nanos(pod))


def pod_requests_for_scoring(
    pod: Mapping[str, Any], *, use_status_resources: bool, pod_level_resources: bool, non_zero: bool
) -> Resource:
    """``resource.PodRequests`` with the options a resource-allocation scorer passes (upstream
    noderesources/resource_allocation.go calculatePodResourceRequest): its own in-place-resize and
    pod-level flags, and with ``non_zero`` 100m / 200Mi for each container missing a cpu / memory
    request (pod-level requests, when honoured, still replace the containers' sum)."""
    amounts = _pod_requests_nanos(
        pod,
        use_status_resources=use_status_resources,
        skip_pod_level_resources=not (pod_level_resources and POD_LEVEL_RESOURCES_ENABLED),
        non_missing=_DEFAULT_NON_MISSING if non_zero else None,
    )
    return Resource._from_nanos(amounts)


def has_container_statuses(pod: Mapping[str, Any]) -> bool:
    """The pod's status reports containers, so status resources can differ from the spec's."""
    return _has_status(pod)


def pod_non_zero_requests(pod: Mapping[str, Any]) -> tuple[int, int]:
    """(milli_cpu, memory) with 100m / 200Mi for each container missing a request."""
    _, cpu, mem = pod_resources(pod)
    return cpu, mem


#: Nodes of one machine type report the same allocatable: read once per distinct list of
#: (name, quantity text) pairs, each node then getting a copy of its own.
_ALLOCATABLE: dict[tuple[tuple[str, str], ...], Resource] = {}
_ALLOCATABLE_MAX = 4096


def node_allocatable(node: Mapping[str, Any] | None) -> Resource:
    """``NewResource(node.Status.Allocatable)``; "pods" becomes ``allowed_pod_number``."""
    if not node:
        return Resource()
    allocatable = (node.get("status") or {}).get("allocatable")
    if allocatable.__class__ is not dict:
        return Resource.from_list(allocatable)
    key = tuple(allocatable.items())
    for _, quantity in key:
        if quantity.__class__ is not str:  # 1, 1.0 and True are one key: read them each time
            return Resource.from_list(allocatable)
    found = _ALLOCATABLE.get(key)
    if found is None:
        found = Resource.from_list(allocatable)
        if len(_ALLOCATABLE) >= _ALLOCATABLE_MAX:
            _ALLOCATABLE.clear()
        _ALLOCATABLE[key] = found
    return found.clone()


# --- QoS -----------------------------------------------------------------------------------------


def _positive_qos_amounts(resource_list: Mapping[str, Any] | None) -> dict[str, int]:
    out: dict[str, int] = {}
    if resource_list:
        for name in _QOS_RESOURCES:
            if name in resource_list:
                n = nanos(resource_list[name])
                if n > 0:
                    out[name] = n
    return out


def qos_class(pod: Mapping[str, Any]) -> str:
    """``GetPodQOS``: status.qosClass when set, else computed ("Guaranteed" | "Burstable" | "BestEffort").

    Only cpu and memory count. With pod-level resources (``spec.resources`` present) those alone
    decide; otherwise requests and limits are summed over containers and init containers, and the
    pod is Guaranteed only if every container limits both cpu and memory and the sums are equal.
    """
    status_class = (pod.get("status") or {}).get("qosClass")
    if status_class:
        return status_class
    spec = pod.get("spec") or {}
    requests: dict[str, int] = {}
    limits: dict[str, int] = {}
    guaranteed = True
    pod_level = spec.get("resources")
    if POD_LEVEL_RESOURCES_ENABLED and pod_level is not None:
        _add_into(requests, _positive_qos_amounts(pod_level.get("requests")))
        pod_limits = pod_level.get("limits")
        if pod_limits:
            found = _positive_qos_amounts(pod_limits)
            _add_into(limits, found)
            if len(found) < len(_QOS_RESOURCES):
                guaranteed = False
    else:
        containers: Iterable[Mapping[str, Any]] = list(spec.get("containers") or ()) + list(
            spec.get("initContainers") or ()
        )
        for container in containers:
            resources = container.get("resources") or {}
            _add_into(requests, _positive_qos_amounts(resources.get("requests")))
            found = _positive_qos_amounts(resources.get("limits"))
            _add_into(limits, found)
            if len(found) < len(_QOS_RESOURCES):
                guaranteed = False
    if not requests and not limits:
        return QOS_BEST_EFFORT
    if guaranteed:
        for name, req in requests.items():
            if limits.get(name) != req:
                guaranteed = False
                break
    if guaranteed and len(requests) == len(limits):
        return QOS_GUARANTEED
    return QOS_BURSTABLE


__all__ = [
    "CPU",
    "MEMORY",
    "EPHEMERAL_STORAGE",
    "PODS",
    "DEFAULT_MILLI_CPU_REQUEST",
    "DEFAULT_MEMORY_REQUEST",
    "Resource",
    "shared_request_parts",
    "is_scalar_resource_name",
    "is_extended_resource_name",
    "is_hugepage_resource_name",
    "is_native_resource",
    "is_prefixed_native_resource",
    "is_attachable_volume_resource_name",
    "is_supported_pod_level_resource",
    "is_pod_level_requests_set",
    "is_pod_level_resources_set",
    "is_pod_resize_infeasible",
    "pod_requests",
    "pod_request_list",
    "pod_non_zero_requests",
    "pod_resources",
    "node_allocatable",
    "qos_class",
]
