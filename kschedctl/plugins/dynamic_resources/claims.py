"""A pod's ResourceClaims, the claims the resourceclaim controller generates, and the devices in use.

Upstream, read for release-1.34:
- ``k8s.io/dynamic-resource-allocation/resourceclaim`` (``Name``, ``IsForPod``, ``IsReservedForPod``);
- ``pkg/controller/resourceclaim/controller.go`` (a claim for a pod's template reference is created
  with ``generateName: <pod>-<claim>-``, both parts shortened in proportion beyond 57 characters,
  the pod as controlling owner, the annotation ``resource.kubernetes.io/pod-claim-name``, and
  recorded in ``pod.status.resourceClaimStatuses``);
- ``pkg/scheduler/framework/plugins/dynamicresources/dra_manager.go`` and ``allocateddevices.go``
  (the scheduler's view of claims: the informer's objects, assumed updates after its own API calls,
  claims with an allocation in flight between Reserve and PreBind, and every device allocated to
  any claim except admin-access results).

``DraState`` is that view for one kschedctl run, shared by every profile's plugin through the
snapshot: what PreBind writes (allocation, ``reservedFor``) is seen by the pods scheduled after.
Cluster objects are never changed; a claim that changes is copied first.

The controller acts before the scheduler sees a pod. kschedctl does its part when a pod's claim
is first looked up: for a template reference without an entry in ``resourceClaimStatuses`` and
an existing template it generates the claim. The name is remembered by the run, per pod uid and
pod claim name, instead of in the pod's status (the pod object is left as it is), and the API
server's random five-character suffix becomes one derived from the pod's uid and the claim name,
so that runs are reproducible. A missing template leaves the pod waiting, as in a cluster.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
from typing import Any, Iterable

from kschedctl.plugins.dynamic_resources.features import DEFAULT_FEATURES, Features
from kschedctl.plugins.dynamic_resources.pools import DeviceID, SliceIndex

__all__ = ["DraState", "ClaimLookupError", "claim_key", "generated_claim_name", "in_flight_key", "is_reserved_for_pod"]

#: Annotation the controller puts on a generated claim (podResourceClaimAnnotation).
POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name"
#: Characters the API server draws a generateName suffix from (utilrand's alphanums).
_SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_MAX_BASE_LEN = 57
#: Pool versions are drawn from one counter for every DraState, so a version is never reused,
#: not even by a fresh copy that starts again from the cluster's claims: an allocation memoized
#: for a node at some versions is right for any state that shows those versions.
_POOL_VERSIONS = itertools.count(1)


class ClaimLookupError(Exception):
    """A claim of the pod cannot be used (upstream's errors from foreachPodResourceClaim)."""


def claim_key(namespace: str, name: str) -> str:
    return f"{namespace}/{name}"


def _meta(obj: dict | None) -> dict:
    return (obj or {}).get("metadata") or {}


def in_flight_key(claim: dict) -> str:
    """The claim's key in the in-flight map: upstream keys it by uid, which the API server makes
    unique. Claims read from files often have no uid; keyed by an empty uid they would all be one
    entry (one pod's Reserve would make every other uid-less claim look "in the process of being
    allocated" and hide the devices of the others), so ``namespace/name`` stands in for it."""
    meta = _meta(claim)
    uid = meta.get("uid")
    if uid:
        return str(uid)
    return claim_key(meta.get("namespace") or "", meta.get("name") or "")


def is_reserved_for_pod(pod: dict, claim: dict) -> bool:
    uid = _meta(pod).get("uid")
    return any((r or {}).get("uid") == uid for r in ((claim.get("status") or {}).get("reservedFor") or ()))


def generated_claim_name(pod_name: str, pod_claim_name: str, seed: str) -> str:
    """The name the controller's generateName gives, with a reproducible suffix."""
    base = f"{pod_name}-{pod_claim_name}-"
    if len(base) > _MAX_BASE_LEN:
        base = (pod_name[:len(pod_name) * _MAX_BASE_LEN // len(base)] + "-"
                + pod_claim_name[:len(pod_claim_name) * _MAX_BASE_LEN // len(base)])
    digest = hashlib.sha256(seed.encode()).digest()
    return base + "".join(_SUFFIX_ALPHABET[b % len(_SUFFIX_ALPHABET)] for b in digest[:5])


def _allocated_devices(claim: dict) -> Iterable[DeviceID]:
    allocation = (claim.get("status") or {}).get("allocation")
    if not allocation:
        return ()
    return [DeviceID(r.get("driver", ""), r.get("pool", ""), r.get("device", ""))
            for r in ((allocation.get("devices") or {}).get("results") or ())
            if not r.get("adminAccess")]


class DraState:
    """Claims, classes and slices as the scheduler's DRA manager sees them during one run."""

    def __init__(self, cluster: Any, features: Features = DEFAULT_FEATURES, cel: Any = None) -> None:
        self.cluster = cluster
        self.features = features
        #: "namespace/name" -> the latest claim (the cluster's object until something changes it).
        self.claims: dict[str, dict] = dict(getattr(cluster, "resource_claims", None) or {})
        self.templates: dict[str, dict] = getattr(cluster, "resource_claim_templates", None) or {}
        self.classes: dict[str, dict] = getattr(cluster, "device_classes", None) or {}
        self.slices = SliceIndex((getattr(cluster, "resource_slices", None) or {}).values(), features)
        if cel is None:
            from kschedctl.cel import CelCache

            cel = CelCache()
        self.cel = cel
        #: in_flight_key(claim) -> the claim with the allocation Reserve chose (upstream's in-flight map).
        self.in_flight: dict[str, dict] = {}
        #: (pod uid, pod claim name) -> the name of the claim generated for it in this run.
        self.made_for: dict[tuple[str, str], str] = {}
        self._allocated: dict[DeviceID, int] = {}
        #: (driver, pool) -> how often a device of the pool was allocated or freed: an allocation
        #: computed for a node stays right while the versions of the node's pools are unchanged.
        self.pool_versions: dict[tuple[str, str], int] = {}
        #: (claims' signature, node name) -> (the node's pool versions, the allocator's answer).
        self.allocation_memo: dict[tuple[str, str], tuple[tuple[int, ...], Any]] = {}
        self._node_pool_keys: dict[str, list[tuple[str, str]]] = {}
        for claim in self.claims.values():
            self._count(claim, 1)
        # What the cluster gives, before any cycle changed it (``fresh``).
        self._origin = (dict(self.claims), dict(self._allocated), dict(self.pool_versions))

    def fresh(self) -> "DraState":
        """The view as the cluster gives it, before any cycle allocated, reserved, deallocated or
        generated a claim: where each explained pod starts (each is an independent question).
        What never changes is shared: classes, slices, CEL programs, and the allocation memo,
        whose entries stay right because pool versions are never reused."""
        other = copy.copy(self)
        claims, allocated, versions = self._origin
        other.claims, other._allocated, other.pool_versions = dict(claims), dict(allocated), dict(versions)
        other.in_flight = {}
        other.made_for = {}
        return other

    # ------------------------------------------------------------------ devices in use
    def _count(self, claim: dict, sign: int) -> None:
        allocated, versions = self._allocated, self.pool_versions
        for did in _allocated_devices(claim):
            n = allocated.get(did, 0) + sign
            if n > 0:
                allocated[did] = n
            else:
                allocated.pop(did, None)
            versions[(did.driver, did.pool)] = next(_POOL_VERSIONS)

    def node_pool_versions(self, node_name: str, node: dict | None) -> tuple[int, ...] | None:
        """The versions of the pools a node sees (None when its slices cannot be gathered)."""
        keys = self._node_pool_keys.get(node_name)
        if keys is None:
            try:
                pools = self.slices.pools_for(node)
            except Exception:  # noqa: BLE001 - the allocator reports the error itself
                return None
            keys = self._node_pool_keys[node_name] = [(p.driver, p.name) for p in pools]
        get = self.pool_versions.get
        return tuple([get(k, 0) for k in keys])

    def allocated_devices(self) -> set[DeviceID]:
        """Upstream ListAllAllocatedDevices: every device of an allocated or in-flight claim."""
        return set(self._allocated)

    # ------------------------------------------------------------------ claims
    def device_class(self, name: str) -> dict | None:
        return self.classes.get(name)

    def get(self, namespace: str, name: str) -> dict | None:
        return self.claims.get(claim_key(namespace, name))

    def claim_name(self, pod: dict, pod_claim: dict) -> tuple[str | None, bool]:
        """Upstream ``resourceclaim.Name`` (with the controller run first for templates):
        (name or None when intentionally not created, whether ownership must be checked)."""
        meta = _meta(pod)
        if pod_claim.get("resourceClaimName") is not None:
            return str(pod_claim["resourceClaimName"]), False
        if pod_claim.get("resourceClaimTemplateName") is not None:
            for status in ((pod.get("status") or {}).get("resourceClaimStatuses") or ()):
                if (status or {}).get("name") == pod_claim.get("name"):
                    name = status.get("resourceClaimName")
                    return (None if name is None else str(name)), True
            made = self.made_for.get((str(meta.get("uid") or ""), str(pod_claim.get("name") or "")))
            if made is None:
                made = self._generate(pod, pod_claim)
            if made is not None:
                return made, True
            raise ClaimLookupError(f'pod "{meta.get("namespace", "")}/{meta.get("name", "")}": '
                                   f"ResourceClaim not created yet")
        raise ClaimLookupError(f'pod "{meta.get("namespace", "")}/{meta.get("name", "")}", spec.resourceClaim '
                               f'"{pod_claim.get("name", "")}": none of the supported fields are set')

    def pod_claims(self, pod: dict) -> list[tuple[str, dict]]:
        """Upstream foreachPodResourceClaim: (pod claim name, claim) in spec order, entries whose
        claim was intentionally not created skipped; ClaimLookupError with upstream's text."""
        meta = _meta(pod)
        namespace = meta.get("namespace") or ""
        out = []
        for pod_claim in ((pod.get("spec") or {}).get("resourceClaims") or ()):
            pod_claim = pod_claim or {}
            name, must_check_owner = self.claim_name(pod, pod_claim)
            if name is None:
                continue
            claim = self.get(namespace, name)
            if claim is None:
                raise ClaimLookupError(f'could not find ResourceClaim "{namespace}/{name}"')
            if _meta(claim).get("deletionTimestamp"):
                raise ClaimLookupError(f'resourceclaim "{name}" is being deleted')
            if must_check_owner and not _controlled_by(claim, pod):
                raise ClaimLookupError(f"ResourceClaim {_meta(claim).get('namespace', '')}/{_meta(claim).get('name', '')} "
                                       f"was not created for pod {namespace}/{meta.get('name', '')} (pod is not owner)")
            out.append((str(pod_claim.get("name") or ""), claim))
        return out

    def _generate(self, pod: dict, pod_claim: dict) -> str | None:
        meta = _meta(pod)
        namespace = meta.get("namespace") or ""
        template = self.templates.get(claim_key(namespace, str(pod_claim.get("resourceClaimTemplateName"))))
        if template is None:
            return None
        pod_name, pod_claim_name = str(meta.get("name") or ""), str(pod_claim.get("name") or "")
        name = generated_claim_name(pod_name, pod_claim_name, f"{meta.get('uid', '')}/{pod_claim_name}")
        template_spec = template.get("spec") or {}
        template_meta = template_spec.get("metadata") or {}
        annotations = dict(template_meta.get("annotations") or {})
        annotations[POD_CLAIM_NAME_ANNOTATION] = pod_claim_name
        claim_meta: dict[str, Any] = {
            "name": name, "namespace": namespace, "uid": f"{meta.get('uid', '')}-{pod_claim_name}",
            "annotations": annotations,
            "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pod_name, "uid": meta.get("uid", ""),
                                 "controller": True, "blockOwnerDeletion": True}],
        }
        if template_meta.get("labels"):
            claim_meta["labels"] = dict(template_meta["labels"])
        claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": claim_meta,
                 "spec": copy.deepcopy(template_spec.get("spec") or {}), "status": {}}
        key = claim_key(namespace, name)
        self.claims[key] = claim
        # The controller records the name in pod.status.resourceClaimStatuses; kschedctl keeps it
        # here instead, so that the pod object (possibly the cluster state's own) is not changed.
        self.made_for[(str(meta.get("uid") or ""), pod_claim_name)] = name
        return name

    # ------------------------------------------------------------------ changes
    def has_pending_allocation(self, uid: str) -> bool:
        return uid in self.in_flight

    def signal_pending_allocation(self, claim: dict) -> None:
        uid = in_flight_key(claim)
        previous = self.in_flight.get(uid)
        if previous is not None:
            self._count(previous, -1)
        self.in_flight[uid] = claim
        self._count(claim, 1)

    def remove_pending_allocation(self, uid: str) -> bool:
        claim = self.in_flight.pop(uid, None)
        if claim is None:
            return False
        self._count(claim, -1)
        return True

    def update(self, claim: dict) -> None:
        """Store ``claim`` as the latest version (an API write the scheduler then assumes)."""
        key = claim_key(_meta(claim).get("namespace") or "", _meta(claim).get("name") or "")
        old = self.claims.get(key)
        if old is not None:
            self._count(old, -1)
        self.claims[key] = claim
        self._count(claim, 1)

    def pod_removed(self, pod: dict) -> list[str]:
        """A pod is deleted (a preemption victim): the controller drops it from ``reservedFor``,
        deallocates a claim nobody reserves any more, and the garbage collector deletes the claims
        generated for it. Returns the keys of the claims that were allocated and are not any more
        (upstream: a ResourceClaim update from allocated to deallocated)."""
        uid = _meta(pod).get("uid")
        deallocated = []
        for key, claim in list(self.claims.items()):
            status = claim.get("status") or {}
            was_allocated = status.get("allocation") is not None
            reserved = status.get("reservedFor") or ()
            if any(o.get("uid") == uid and o.get("controller") for o in (_meta(claim).get("ownerReferences") or ())):
                self._count(claim, -1)
                del self.claims[key]
                if was_allocated:
                    deallocated.append(key)
                continue
            if not any((r or {}).get("uid") == uid for r in reserved):
                continue
            updated = copy.copy(claim)
            status = dict(status)
            status["reservedFor"] = [r for r in reserved if (r or {}).get("uid") != uid]
            if not status["reservedFor"]:
                status.pop("reservedFor")
                status.pop("allocation", None)
                status.pop("devices", None)
                if was_allocated:
                    deallocated.append(key)
            updated["status"] = status
            self.update(updated)
        return deallocated


def _controlled_by(claim: dict, pod: dict) -> bool:
    pod_meta, claim_meta = _meta(pod), _meta(claim)
    if (claim_meta.get("namespace") or "") != (pod_meta.get("namespace") or ""):
        return False
    for ref in claim_meta.get("ownerReferences") or ():
        if ref.get("controller"):
            return ref.get("uid") == pod_meta.get("uid")
    return False
