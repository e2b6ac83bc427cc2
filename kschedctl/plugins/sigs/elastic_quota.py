"""ElasticQuotaInfo: one namespace's ElasticQuota (min, max) and what its pods use.

Port of kubernetes-sigs/scheduler-plugins ``pkg/capacityscheduling/elasticquota.go`` (v0.34.7).
A namespace has at most one ElasticQuota; a quota without ``min`` has a min of 0 (cpu, memory,
ephemeral-storage), one without ``max`` has no limit (MaxInt64). ``used`` sums the requests of
the namespace's assigned pods, each counted once (by uid).
"""

from __future__ import annotations

from typing import Any, Mapping

from kschedctl.k8s.resources import Resource

UPPER_BOUND_OF_MAX = 2**63 - 1
LOWER_BOUND_OF_MIN = 0


def _bound(value: int) -> Resource:
    return Resource(milli_cpu=value, memory=value, ephemeral_storage=value)


def compute_pod_resource_request(pod: Mapping[str, Any]) -> Resource:
    """Upstream computePodResourceRequest: containers summed, init containers max'ed, overhead added."""
    spec = pod.get("spec") or {}
    result = Resource()
    for c in spec.get("containers") or ():
        result.add((c.get("resources") or {}).get("requests") or {})
    for c in spec.get("initContainers") or ():
        result.set_max_resource((c.get("resources") or {}).get("requests") or {})
    if spec.get("overhead"):
        result.add(spec["overhead"])
    return result


def _pod_key(pod: Mapping[str, Any]) -> str:
    meta = pod.get("metadata") or {}
    return meta.get("uid") or f"{meta.get('namespace') or 'default'}/{meta.get('name') or ''}"


class ElasticQuotaInfo:
    """A namespace's quota: ``min``, ``max`` and ``used`` Resources, and the pods counted in ``used``."""

    __slots__ = ("namespace", "pods", "min", "max", "used")

    def __init__(self, namespace: str, min: Resource | None, max: Resource | None, used: Resource | None = None,
                 pods: set[str] | None = None) -> None:
        self.namespace = namespace
        self.pods: set[str] = set(pods or ())
        self.min = min
        self.max = max
        self.used = used if used is not None else Resource()

    @classmethod
    def from_spec(cls, namespace: str, spec: Mapping[str, Any] | None) -> "ElasticQuotaInfo":
        """Upstream newElasticQuotaInfo from an ElasticQuota's ``spec`` (absent min/max: the bounds)."""
        spec = spec or {}
        mn = spec.get("min")
        mx = spec.get("max")
        return cls(namespace,
                   _bound(LOWER_BOUND_OF_MIN) if mn is None else Resource.from_list(mn),
                   _bound(UPPER_BOUND_OF_MAX) if mx is None else Resource.from_list(mx))

    def clone(self) -> "ElasticQuotaInfo":
        return ElasticQuotaInfo(self.namespace, None if self.min is None else self.min.clone(),
                                None if self.max is None else self.max.clone(), self.used.clone(), self.pods)

    def add_pod_if_not_present(self, pod: Mapping[str, Any]) -> None:
        key = _pod_key(pod)
        if key in self.pods:
            return
        self.pods.add(key)
        self.used.add(compute_pod_resource_request(pod))

    def delete_pod_if_present(self, pod: Mapping[str, Any]) -> None:
        key = _pod_key(pod)
        if key not in self.pods:
            return
        self.pods.discard(key)
        self.used.sub(compute_pod_resource_request(pod))

    def used_over_min_with(self, request: Resource) -> bool:
        if self.min is None:  # no min means the used values are over min (0)
            return True
        return cmp2(request, self.used, self.min, LOWER_BOUND_OF_MIN)

    def used_over_max_with(self, request: Resource) -> bool:
        if self.max is None:  # no max means no limit
            return False
        return cmp2(request, self.used, self.max, UPPER_BOUND_OF_MAX)

    def used_over_min(self) -> bool:
        if self.min is None:
            return True
        return cmp2(self.used, Resource(), self.min, LOWER_BOUND_OF_MIN)

    def __repr__(self) -> str:
        return f"ElasticQuotaInfo({self.namespace!r}, min={self.min!r}, max={self.max!r}, used={self.used!r})"


class ElasticQuotaInfos(dict):
    """Namespace -> ElasticQuotaInfo."""

    def clone(self) -> "ElasticQuotaInfos":
        return ElasticQuotaInfos({k: v.clone() for k, v in self.items()})

    def aggregated_used_over_min_with(self, request: Resource) -> bool:
        used = Resource()
        mn = Resource()
        for info in self.values():
            used.add(info.used)
            if info.min is not None:
                mn.add(info.min)
        used.add(request)
        return cmp2(used, Resource(), mn, LOWER_BOUND_OF_MIN)


def cmp2(x1: Resource, x2: Resource, y: Resource, bound: int) -> bool:
    """Upstream cmp2: whether x1 + x2 exceeds y in any resource (a scalar y lacks counts as ``bound``)."""
    if x1.milli_cpu + x2.milli_cpu > y.milli_cpu:
        return True
    if x1.memory + x2.memory > y.memory:
        return True
    if x1.ephemeral_storage + x2.ephemeral_storage > y.ephemeral_storage:
        return True
    if x1.allowed_pod_number + x2.allowed_pod_number > y.allowed_pod_number:
        return True
    for name, quantity in x1.scalar_resources.items():
        limit = y.scalar_resources.get(name, bound)
        if quantity + x2.scalar_resources.get(name, 0) > limit:
            return True
    return False
