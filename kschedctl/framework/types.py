"""PodInfo, NodeInfo and their parts: the scheduler's precomputed view of pods and nodes.

Upstream: pkg/scheduler/framework/types.go (NodeInfo, PodInfo, NewPodInfo, CalculateResource,
AddPodInfo / RemovePod / update, SetNode, SnapshotConcrete) and
staging/src/k8s.io/kube-scheduler/framework/types.go (AffinityTerm, WeightedAffinityTerm,
HostPortInfo, ImageStateSummary), v1.34.

A ``PodInfo`` is built once per pod and carries everything upstream recomputes per call or
caches (requests, non-zero requests, host ports, compiled affinity terms), so plugins read
attributes instead of walking the pod dict. ``NodeInfo`` aggregates the pods on one node.

Differences from upstream:
- ``NodeInfo.remove_pod`` returns False instead of an error when the pod is not on the node, and
  matches by UID, or by "namespace/name" when the pod has no UID (upstream requires a UID).
- ``NodeInfo.clone`` shares ``ImageStateSummary`` objects (they are never mutated here).
"""

from __future__ import annotations

import itertools
from collections import deque
from itertools import islice
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Mapping

from kschedctl.errors import InputError
from kschedctl.fastpaths import PROCESS as FAST_PATHS
from kschedctl.k8s.defaults import DEFAULT_SCHEDULER_NAME
from kschedctl.k8s.resources import (IN_PLACE_POD_VERTICAL_SCALING_ENABLED, Resource, node_allocatable,
                                    pod_resources, shared_request_parts)
from kschedctl.k8s.selectors import Selector
from kschedctl.k8s.shared_parts import is_shared

#: Upstream DefaultBindAllHostIP.
DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"
#: v1.ProtocolTCP, the default protocol of a container port.
DEFAULT_PROTOCOL = "TCP"

# NodeInfo generations only ever grow, across all NodeInfos (upstream nextGeneration).
_generation = itertools.count(1)


def next_generation() -> int:
    """A new, process-wide unique generation number."""
    return next(_generation)


class _ChangeLog:
    """The NodeInfos that changed most recently, in order, in a bounded log.

    Caches kept across the cycles of a simulate run (PodTopologySpread's domain totals) read the
    entries after their last position instead of walking every node; a reader that fell further
    behind than the log holds gets None and walks every node again.

    Beside each entry, what changed (``deltas_since``): the pod added (+1) or removed (-1), or
    None for anything else (node object set or removed), with the node's generation before and
    after. A reader whose count of a node is at the generation before can apply the one pod
    instead of counting the node's pods again.
    """

    __slots__ = ("deltas", "count")

    def __init__(self, size: int = 4096) -> None:
        self.deltas: deque = deque(maxlen=size)
        self.count = 0

    def add(self, node_info: "NodeInfo", pod_info: "PodInfo | None" = None, sign: int = 0,
            before: int = 0) -> None:
        self.deltas.append((node_info, pod_info, sign, before, node_info.generation))
        self.count += 1

    def since(self, position: int) -> list["NodeInfo"] | None:
        """The NodeInfo of each change after ``position``, in order (see ``deltas_since``)."""
        changed = self.deltas_since(position)
        return None if changed is None else [delta[0] for delta in changed]

    def deltas_since(self, position: int) -> list[tuple] | None:
        """``(node_info, pod_info or None, +1/-1/0, generation before, generation after)`` of
        each change after ``position``, in order; None when the log no longer holds them all."""
        behind = self.count - position
        if behind > len(self.deltas):
            return None
        return list(islice(reversed(self.deltas), behind))[::-1] if behind else []


#: Every NodeInfo change, process-wide (see ``_ChangeLog``).
NODE_CHANGES = _ChangeLog()


# --- affinity terms ------------------------------------------------------------------------------


class _TermLabelKeys:
    """Every pod label key the selector of an affinity term made in this process reads, and
    whether some term's selector could not say (not a plain ``Selector``). Only growing: a pod's
    labels outside ``keys`` match or miss every term alike (InterPodAffinity's sums key the
    incoming pod by the others, see its ``incremental``)."""

    __slots__ = ("keys", "opaque")

    def __init__(self) -> None:
        self.keys: set[str] = set()
        self.opaque = False

    def add(self, selector: Any) -> None:
        if type(selector) is Selector:
            self.keys.update(r.key for r in selector.requirements)
        else:
            self.opaque = True


TERM_LABEL_KEYS = _TermLabelKeys()


class AffinityTerm:
    """A pod (anti-)affinity term with its selectors compiled (upstream fwk.AffinityTerm)."""

    __slots__ = ("namespaces", "selector", "topology_key", "namespace_selector")

    def __init__(self, namespaces: set[str], selector: Any, topology_key: str, namespace_selector: Any) -> None:
        TERM_LABEL_KEYS.add(selector)
        self.namespaces = namespaces
        self.selector = selector
        self.topology_key = topology_key
        self.namespace_selector = namespace_selector

    def matches(self, pod_info: "PodInfo", ns_labels: Mapping[str, str] | None) -> bool:
        """The pod is in one of the term's namespaces (by name or namespace selector) and its
        labels match the term's selector (upstream AffinityTerm.Matches)."""
        if pod_info.namespace in self.namespaces or self.namespace_selector.matches(ns_labels or {}):
            return self.selector.matches(pod_info.labels)
        return False

    def __repr__(self) -> str:
        return (
            f"AffinityTerm(namespaces={sorted(self.namespaces)!r}, selector={self.selector!r}, "
            f"topology_key={self.topology_key!r}, namespace_selector={self.namespace_selector!r})"
        )


class WeightedAffinityTerm:
    """A preferred term and its weight (upstream fwk.WeightedAffinityTerm, which embeds the term)."""

    __slots__ = ("term", "weight")

    def __init__(self, term: AffinityTerm, weight: int) -> None:
        self.term = term
        self.weight = weight

    # The embedded term's fields, as Go's struct embedding exposes them.
    @property
    def namespaces(self) -> set[str]:
        return self.term.namespaces

    @property
    def selector(self) -> Any:
        return self.term.selector

    @property
    def topology_key(self) -> str:
        return self.term.topology_key

    @property
    def namespace_selector(self) -> Any:
        return self.term.namespace_selector

    def matches(self, pod_info: "PodInfo", ns_labels: Mapping[str, str] | None) -> bool:
        return self.term.matches(pod_info, ns_labels)

    def __repr__(self) -> str:
        return f"WeightedAffinityTerm({self.term!r}, weight={self.weight})"


def _label_selector(sel: Any) -> Any:
    # imported lazily: selectors is a sibling module and PodInfo needs it only for affinity terms
    from kschedctl.k8s.selectors import label_selector

    return label_selector(sel)


def _error_text(error: Exception) -> str:
    return getattr(error, "message", None) or str(error)


def _new_affinity_term(namespace: str, term: Mapping[str, Any]) -> AffinityTerm:
    selector = _label_selector(term.get("labelSelector"))
    names = term.get("namespaces") or ()
    ns_selector_spec = term.get("namespaceSelector")
    # no namespaces and no namespace selector: the term is about the pod's own namespace
    namespaces = {namespace} if not names and ns_selector_spec is None else set(names)
    ns_selector = _label_selector(ns_selector_spec)
    return AffinityTerm(namespaces, selector, term.get("topologyKey") or "", ns_selector)


def _affinity_terms(namespace: str, terms: Iterable[Mapping[str, Any]] | None) -> list[AffinityTerm]:
    # one bad term drops the whole list, as upstream getAffinityTerms returns nil with the error
    return [_new_affinity_term(namespace, t or {}) for t in terms or ()]


def _weighted_terms(namespace: str, terms: Iterable[Mapping[str, Any]] | None) -> list[WeightedAffinityTerm]:
    out = []
    for weighted in terms or ():
        weighted = weighted or {}
        term = _new_affinity_term(namespace, weighted.get("podAffinityTerm") or {})
        out.append(WeightedAffinityTerm(term, int(weighted.get("weight") or 0)))
    return out


def _aggregate_errors(messages: list[str]) -> str | None:
    """utilerrors.NewAggregate(...).Error(): one message as is, several deduplicated in brackets."""
    if not messages:
        return None
    if len(messages) == 1:
        return messages[0]
    unique = list(dict.fromkeys(messages))
    if len(unique) == 1:
        return unique[0]
    return "[" + ", ".join(unique) + "]"


# --- PodInfo -------------------------------------------------------------------------------------


def _as_int(value: Any, what: str) -> int:
    if type(value) is int:
        return value
    if isinstance(value, bool) or value is None:
        raise InputError(f"{what} must be an integer, got {value!r}")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise InputError(f"{what} must be an integer, got {value!r}") from None


_EMPTY: tuple = ()

# Pods of one template carry the same affinity: their terms are compiled once, keyed by the
# namespace and the text of the two affinity mappings (repr of plain data is equal only for equal
# data; a namespace-less term means the pod's own namespace).
_MEMOIZE_TERMS = FAST_PATHS.template_memos
_TERMS_BY_TEMPLATE: dict[tuple[Any, ...], tuple[list, list, list, list, str | None, Any]] = {}
_TERMS_BY_TEMPLATE_MAX = 4096
#: Everything a pod's record holds that its template decides (requests, host ports, claims,
#: affinity terms), by the namespace (claims and terms name it) and the identity of the parts it
#: is computed from (``_shared_template_parts``), when each is one the pods of the cluster share
#: (``inputs.sharing``: they never change) or absent. Each entry holds those parts, so no other
#: object takes their ids while it is kept: a key found is the same parts, shared.
_FACTS_BY_TEMPLATE: dict[tuple[Any, ...], tuple[Any, ...]] = {}


def _shared_template_parts(pod: Mapping[str, Any], spec: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """The parts of ``pod``'s spec its template's facts are computed from (containers, init
    containers, pod-level resources, overhead, volumes, affinity), or None when one is the pod's
    own (or its status may change its requests: a resize in flight)."""
    requests = shared_request_parts(pod)
    if requests is None:
        return None
    volumes, affinity = spec.get("volumes"), spec.get("affinity")
    if (volumes is not None and not is_shared(volumes)) or (affinity is not None and not is_shared(affinity)):
        return None
    return (*requests[1], volumes, affinity)


class PodInfo:
    """A pod with the facts the scheduler needs precomputed (upstream NewPodInfo + CalculateResource).

    ``parse_error`` holds upstream NewPodInfo's error text when an affinity term's selector is
    invalid (the terms of that kind are then empty, as upstream). A bad quantity in the pod
    raises ``QuantityError`` (message only; the caller adds file and line).
    """

    __slots__ = (
        "pod",
        "name",
        "namespace",
        "key",
        "uid",
        "labels",
        "priority",
        "scheduler_name",
        "node_name",
        "nominated_node_name",
        "is_terminating",
        "start_time",
        "requests",
        "non_zero_milli_cpu",
        "non_zero_memory",
        "host_ports",
        "tolerations",
        "has_affinity",
        "has_required_anti_affinity",
        "required_affinity_terms",
        "required_anti_affinity_terms",
        "preferred_affinity_terms",
        "preferred_anti_affinity_terms",
        "parse_error",
        "pvc_names",
        "pvc_keys",
    )

    def __init__(self, pod: dict) -> None:
        self.pod = pod
        meta = pod.get("metadata") or {}
        spec = pod.get("spec") or {}
        status = pod.get("status") or {}
        name = meta.get("name") or ""
        namespace = meta.get("namespace") or ""
        self.name: str = name
        self.namespace: str = namespace
        self.key: str = f"{namespace}/{name}"
        self.uid: str = meta.get("uid") or ""
        self.labels: dict[str, str] = meta.get("labels") or {}
        priority = spec.get("priority")
        self.priority: int = (priority if priority.__class__ is int
                              else 0 if priority is None else _as_int(priority, "spec.priority"))
        self.scheduler_name: str = spec.get("schedulerName") or DEFAULT_SCHEDULER_NAME
        self.node_name: str = spec.get("nodeName") or ""
        self.nominated_node_name: str = status.get("nominatedNodeName") or ""
        self.is_terminating: bool = meta.get("deletionTimestamp") is not None
        self.start_time: str | None = status.get("startTime")
        self.tolerations: list[dict] = spec.get("tolerations") or []
        self.requests: Resource
        key: tuple[Any, ...] | None = None
        found = parts = None
        if _MEMOIZE_TERMS:
            # The identities of ``_shared_template_parts``, spelled out: this runs for every pod.
            key = (namespace, id(spec.get("containers")), id(spec.get("initContainers")),
                   id(spec.get("resources")), id(spec.get("overhead")), id(spec.get("volumes")),
                   id(spec.get("affinity")))
            found = _FACTS_BY_TEMPLATE.get(key)
            if IN_PLACE_POD_VERTICAL_SCALING_ENABLED and (
                    status.get("containerStatuses") or status.get("initContainerStatuses")):
                key = found = None  # a resize in flight may change this pod's requests
            elif found is None:
                parts = _shared_template_parts(pod, spec)
                if parts is None:
                    key = None
        if found is not None:
            # A replica: what its template's first pod computed (each pod its own lists and Resource).
            (requests, self.non_zero_milli_cpu, self.non_zero_memory, host_ports, pvc_names, pvc_keys,
             required, required_anti, preferred, preferred_anti, self.parse_error, self.has_affinity,
             self.has_required_anti_affinity, _held) = found
            self.requests = requests.clone()
            self.host_ports: list[tuple[str, str, int]] = list(host_ports)
            self.pvc_names: list[str] = list(pvc_names)
            self.pvc_keys: list[str] = list(pvc_keys)
            self.required_affinity_terms: list[AffinityTerm] = list(required)
            self.required_anti_affinity_terms: list[AffinityTerm] = list(required_anti)
            self.preferred_affinity_terms: list[WeightedAffinityTerm] = list(preferred)
            self.preferred_anti_affinity_terms: list[WeightedAffinityTerm] = list(preferred_anti)
            return
        self.requests, self.non_zero_milli_cpu, self.non_zero_memory = pod_resources(pod)
        self.host_ports = _host_ports(spec)

        pvc_names = []
        for volume in spec.get("volumes") or _EMPTY:
            claim = volume.get("persistentVolumeClaim")
            if claim is not None:
                pvc_names.append(claim.get("claimName") or "")
        self.pvc_names = pvc_names
        self.pvc_keys = [f"{namespace}/{c}" for c in pvc_names]

        self.required_affinity_terms = []
        self.required_anti_affinity_terms = []
        self.preferred_affinity_terms = []
        self.preferred_anti_affinity_terms = []
        self.parse_error: str | None = None
        affinity = spec.get("affinity")
        pod_affinity = affinity.get("podAffinity") if affinity else None
        pod_anti_affinity = affinity.get("podAntiAffinity") if affinity else None
        self.has_affinity: bool = pod_affinity is not None or pod_anti_affinity is not None
        self.has_required_anti_affinity: bool = bool(
            pod_anti_affinity and pod_anti_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
        )
        if self.has_affinity:
            self._compile_affinity(pod_affinity or {}, pod_anti_affinity or {}, affinity)
        if key is not None:
            if len(_FACTS_BY_TEMPLATE) >= _TERMS_BY_TEMPLATE_MAX:
                _FACTS_BY_TEMPLATE.clear()
            _FACTS_BY_TEMPLATE[key] = (
                self.requests.clone(), self.non_zero_milli_cpu, self.non_zero_memory, tuple(self.host_ports),
                tuple(pvc_names), tuple(self.pvc_keys), tuple(self.required_affinity_terms),
                tuple(self.required_anti_affinity_terms), tuple(self.preferred_affinity_terms),
                tuple(self.preferred_anti_affinity_terms), self.parse_error, self.has_affinity,
                self.has_required_anti_affinity, parts)

    def _compile_affinity(self, pod_affinity: Mapping[str, Any], pod_anti_affinity: Mapping[str, Any],
                          affinity: Any = None) -> None:
        key: Any = None
        if _MEMOIZE_TERMS:
            # A shared affinity never changes: its identity is key enough (the entry holds it, so
            # no other object takes its id while the entry is kept).
            key = ((self.namespace, id(affinity)) if is_shared(affinity)
                   else (self.namespace, repr(pod_affinity), repr(pod_anti_affinity)))
        found = _TERMS_BY_TEMPLATE.get(key) if key is not None else None
        if found is None:
            self._parse_affinity(pod_affinity, pod_anti_affinity)
            if key is not None:
                if len(_TERMS_BY_TEMPLATE) >= _TERMS_BY_TEMPLATE_MAX:
                    _TERMS_BY_TEMPLATE.clear()
                _TERMS_BY_TEMPLATE[key] = (self.required_affinity_terms, self.required_anti_affinity_terms,
                                           self.preferred_affinity_terms, self.preferred_anti_affinity_terms,
                                           self.parse_error, affinity)
            return
        required, required_anti, preferred, preferred_anti, self.parse_error, _held = found
        # The terms are never changed once built, so pods of one template share them; the lists are
        # each pod's own.
        self.required_affinity_terms = list(required)
        self.required_anti_affinity_terms = list(required_anti)
        self.preferred_affinity_terms = list(preferred)
        self.preferred_anti_affinity_terms = list(preferred_anti)

    def _parse_affinity(self, pod_affinity: Mapping[str, Any], pod_anti_affinity: Mapping[str, Any]) -> None:
        errors: list[str] = []
        ns = self.namespace
        parts = (
            ("requiredAffinityTerms", "required_affinity_terms", _affinity_terms,
             pod_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")),
            ("requiredAntiAffinityTerms", "required_anti_affinity_terms", _affinity_terms,
             pod_anti_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")),
            ("preferredAffinityTerms", "preferred_affinity_terms", _weighted_terms,
             pod_affinity.get("preferredDuringSchedulingIgnoredDuringExecution")),
            ("preferredAntiAffinityTerms", "preferred_anti_affinity_terms", _weighted_terms,
             pod_anti_affinity.get("preferredDuringSchedulingIgnoredDuringExecution")),
        )
        for label, attr, build, terms in parts:
            if not terms:
                continue
            try:
                setattr(self, attr, build(ns, terms))
            except ValueError as e:  # SelectorError
                errors.append(f"{label}: {_error_text(e)}")
        self.parse_error = _aggregate_errors(errors)

    def __repr__(self) -> str:
        return f"PodInfo({self.key!r}, uid={self.uid!r})"


def _host_ports(spec: Mapping[str, Any]) -> list[tuple[str, str, int]]:
    """schedutil.GetHostPorts: ports with hostPort > 0 of sidecars (restartable init containers)
    first, then of the containers, as (hostIP, protocol, hostPort) exactly as written."""
    ports: list[tuple[str, str, int]] = []
    for container in spec.get("initContainers") or _EMPTY:
        if container.get("restartPolicy") != "Always":
            continue  # only init containers that run for the pod's whole life hold a port
        _collect_ports(container, ports)
    for container in spec.get("containers") or _EMPTY:
        _collect_ports(container, ports)
    return ports


def _collect_ports(container: Mapping[str, Any], out: list[tuple[str, str, int]]) -> None:
    for port in container.get("ports") or _EMPTY:
        host_port = port.get("hostPort")
        if host_port is None:
            continue
        host_port = _as_int(host_port, "hostPort")
        if host_port > 0:
            out.append((port.get("hostIP") or "", port.get("protocol") or "", host_port))


# --- HostPortInfo --------------------------------------------------------------------------------


class HostPortInfo:
    """Host ports in use: ip -> {(protocol, port)}; 0.0.0.0 conflicts with every ip.

    Empty ip means 0.0.0.0 and empty protocol means TCP; ports <= 0 are ignored (upstream
    fwk.HostPortInfo). It is a set, not a count: removing a port frees it even if another pod
    added the same one, as upstream.
    """

    __slots__ = ("_ports",)

    def __init__(self) -> None:
        self._ports: dict[str, set[tuple[str, int]]] = {}

    def add(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        key = (protocol or DEFAULT_PROTOCOL, port)
        ip = ip or DEFAULT_BIND_ALL_HOST_IP
        entry = self._ports.get(ip)
        if entry is None:
            self._ports[ip] = {key}
        else:
            entry.add(key)

    def remove(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip = ip or DEFAULT_BIND_ALL_HOST_IP
        entry = self._ports.get(ip)
        if entry is not None:
            entry.discard((protocol or DEFAULT_PROTOCOL, port))
            if not entry:
                del self._ports[ip]

    def check_conflict(self, ip: str, protocol: str, port: int) -> bool:
        """Would (ip, protocol, port) clash with a port in use?"""
        if port <= 0:
            return False
        key = (protocol or DEFAULT_PROTOCOL, port)
        ip = ip or DEFAULT_BIND_ALL_HOST_IP
        if ip == DEFAULT_BIND_ALL_HOST_IP:
            return any(key in entry for entry in self._ports.values())
        for candidate in (DEFAULT_BIND_ALL_HOST_IP, ip):
            entry = self._ports.get(candidate)
            if entry is not None and key in entry:
                return True
        return False

    def __len__(self) -> int:
        return sum(len(entry) for entry in self._ports.values())

    def __iter__(self) -> Iterator[tuple[str, str, int]]:
        """(ip, protocol, port) triples in a stable order."""
        for ip in sorted(self._ports):
            for protocol, port in sorted(self._ports[ip]):
                yield ip, protocol, port

    def clone(self) -> "HostPortInfo":
        c = HostPortInfo()
        c._ports = {ip: set(entry) for ip, entry in self._ports.items()}
        return c

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HostPortInfo):
            return NotImplemented
        return self._ports == other._ports

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"HostPortInfo({list(self)!r})"


# --- ImageStateSummary ---------------------------------------------------------------------------


@dataclass(slots=True)
class ImageStateSummary:
    """An image on a node: its size in bytes and on how many nodes it is (upstream fwk type)."""

    size: int
    num_nodes: int


# --- NodeInfo ------------------------------------------------------------------------------------


def _same_pod(a: PodInfo, b: PodInfo) -> bool:
    if b.uid:
        return a.uid == b.uid
    return a.key == b.key


def _remove_from(pods: list[PodInfo], target: PodInfo) -> PodInfo | None:
    """Remove ``target`` from ``pods`` as upstream does: the last pod takes its place."""
    for i, candidate in enumerate(pods):
        if _same_pod(candidate, target):
            last = pods.pop()
            if i < len(pods):
                pods[i] = last
            return candidate
    return None


class NodeInfo:
    """A node and the pods on it, with their requests, ports and PVC references summed.

    ``NodeInfo(node, pods)`` sets the node (if any) and adds the pods in order. A NodeInfo being
    built is not in the change log (``NODE_CHANGES``): its readers tell the NodeInfos they counted
    by identity, so none can hold a count of a new one (``add_pod_before_use`` likewise).
    """

    __slots__ = (
        "node",
        "name",
        "labels",
        "taints",
        "pods",
        "pods_with_affinity",
        "pods_with_required_anti_affinity",
        "used_ports",
        "requested",
        "non_zero_requested",
        "allocatable",
        "image_states",
        "pvc_ref_counts",
        "generation",
    )

    def __init__(self, node: dict | None = None, pods: Iterable[PodInfo] = ()) -> None:
        self.node: dict | None = None
        self.name: str = ""
        self.labels: dict[str, str] = {}
        self.taints: list[dict] = []
        self.pods: list[PodInfo] = []
        self.pods_with_affinity: list[PodInfo] = []
        self.pods_with_required_anti_affinity: list[PodInfo] = []
        self.used_ports = HostPortInfo()
        self.requested = Resource()
        self.non_zero_requested = Resource()
        self.allocatable = Resource()
        self.image_states: dict[str, ImageStateSummary] = {}
        self.pvc_ref_counts: dict[str, int] = {}
        self.generation: int = next_generation()
        if node is not None:
            self._set_node_object(node)
        for pod_info in pods:
            self.add_pod_before_use(pod_info)

    def set_node(self, node: dict) -> None:
        """Set the node object; allocatable comes from ``status.allocatable``."""
        self._set_node_object(node)
        before = self.generation
        self.generation = next_generation()
        NODE_CHANGES.add(self, None, 0, before)

    def _set_node_object(self, node: dict) -> None:
        self.node = node
        meta = node.get("metadata") or {}
        self.name = meta.get("name") or ""
        self.labels = meta.get("labels") or {}
        self.taints = (node.get("spec") or {}).get("taints") or []
        self.allocatable = node_allocatable(node)

    def remove_node(self) -> None:
        """Forget the node object but keep the pods (upstream RemoveNode)."""
        self.node = None
        before = self.generation
        self.generation = next_generation()
        NODE_CHANGES.add(self, None, 0, before)

    def add_pod(self, pod_info: PodInfo) -> None:
        """Add a pod: it counts towards requested resources, ports and PVC references."""
        before = self.generation
        self.add_pod_before_use(pod_info)
        self.generation = next_generation()
        NODE_CHANGES.add(self, pod_info, 1, before)

    def add_pod_before_use(self, pod_info: PodInfo) -> None:
        """``add_pod`` for a NodeInfo still being built, that no reader has seen (a snapshot's):
        neither logged nor given a new generation, as nobody can hold a count of it yet."""
        self.pods.append(pod_info)
        if pod_info.has_affinity:
            self.pods_with_affinity.append(pod_info)
        if pod_info.has_required_anti_affinity:
            self.pods_with_required_anti_affinity.append(pod_info)
        self._count(pod_info, 1)

    def remove_pod(self, pod_info: PodInfo) -> bool:
        """Remove a pod (matched by UID, or by namespace/name without one); False if absent."""
        if pod_info.has_affinity:
            _remove_from(self.pods_with_affinity, pod_info)
        if pod_info.has_required_anti_affinity:
            _remove_from(self.pods_with_required_anti_affinity, pod_info)
        removed = _remove_from(self.pods, pod_info)
        if removed is None:
            return False
        # the stored PodInfo's figures are subtracted, as upstream uses its cached resources
        before = self.generation
        self._count(removed, -1)
        self.generation = next_generation()
        NODE_CHANGES.add(self, removed, -1, before)
        return True

    def _count(self, pod_info: PodInfo, sign: int) -> None:
        """The pod's requests, ports and PVC references added (``sign`` 1) or taken out (-1)."""
        res = pod_info.requests
        requested = self.requested
        requested.milli_cpu += sign * res.milli_cpu
        requested.memory += sign * res.memory
        requested.ephemeral_storage += sign * res.ephemeral_storage
        if res.scalar_resources:
            scalars = requested.scalar_resources
            for name, amount in res.scalar_resources.items():
                scalars[name] = scalars.get(name, 0) + sign * amount
        non_zero = self.non_zero_requested
        non_zero.milli_cpu += sign * pod_info.non_zero_milli_cpu
        non_zero.memory += sign * pod_info.non_zero_memory

        if pod_info.host_ports:
            ports = self.used_ports
            change = ports.add if sign > 0 else ports.remove
            for ip, protocol, port in pod_info.host_ports:
                change(ip, protocol, port)
        if pod_info.pvc_keys:
            counts = self.pvc_ref_counts
            for key in pod_info.pvc_keys:
                if sign > 0:
                    counts[key] = counts.get(key, 0) + 1
                else:
                    left = counts.get(key, 0) - 1
                    if left <= 0:
                        counts.pop(key, None)
                    else:
                        counts[key] = left

    def clone(self) -> "NodeInfo":
        """A copy whose lists, maps and totals can change independently; PodInfos are shared."""
        c = NodeInfo.__new__(NodeInfo)
        c.node = self.node
        c.name = self.name
        c.labels = self.labels
        c.taints = self.taints
        c.pods = list(self.pods)
        c.pods_with_affinity = list(self.pods_with_affinity)
        c.pods_with_required_anti_affinity = list(self.pods_with_required_anti_affinity)
        c.used_ports = self.used_ports.clone()
        c.requested = self.requested.clone()
        c.non_zero_requested = self.non_zero_requested.clone()
        c.allocatable = self.allocatable.clone()
        c.image_states = dict(self.image_states)
        c.pvc_ref_counts = dict(self.pvc_ref_counts)
        c.generation = self.generation
        return c

    def __repr__(self) -> str:
        return (
            f"NodeInfo(name={self.name!r}, pods={[p.name for p in self.pods]!r}, "
            f"requested={self.requested!r}, non_zero_requested={self.non_zero_requested!r}, "
            f"used_ports={self.used_ports!r}, allocatable={self.allocatable!r})"
        )


__all__ = [
    "AffinityTerm",
    "WeightedAffinityTerm",
    "PodInfo",
    "HostPortInfo",
    "ImageStateSummary",
    "NodeInfo",
    "next_generation",
    "DEFAULT_BIND_ALL_HOST_IP",
]
