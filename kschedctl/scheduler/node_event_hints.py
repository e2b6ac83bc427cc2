"""Which pending pods a node event can help: the replay retries only those.

Upstream's scheduling queue (pkg/scheduler/backend/queue of kube-scheduler v1.34.4, with
SchedulerQueueingHints on) moves an unschedulable pod back for a Node/Add or Node/Update event
only when one of the plugins that rejected it registers for that event and its queueing hint
says Queue: NodeResourcesFit's when the node's allocatable fits the pod's requests,
NodeAffinity's when the node matches the pod's nodeSelector and required node affinity,
TaintToleration's when the pod tolerates the node's NoSchedule and NoExecute taints,
NodeUnschedulable's when the node is schedulable or the pod tolerates its unschedulable taint.

The replay does not keep each pod's rejecting plugins from run to run, so it asks the question
the other way round, never skipping a pod upstream's retry could place: a pod is left out only
when the node the event is about surely cannot take it (it fails one of those four checks of an
enabled filter plugin), and when the event cannot change any other node for it. A new or changed
node changes other nodes only through the pods' topology (PodTopologySpread's domains and
minDomains, InterPodAffinity's topology keys): pods with spread constraints or pod (anti-)affinity
are always retried. A skipped retry's answer would have been the same; only its message, which
counts the nodes, stays the one of the pod's last attempt (where upstream, whose hint may say
Queue for another of the pod's rejectors, could have retried it and counted one node more).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from kschedctl.k8s.node_selectors import match_node_selector_terms
from kschedctl.k8s.quantity import nanos
from kschedctl.k8s.resources import pod_requests
from kschedctl.k8s.tolerations import tolerates

#: The filter plugins whose hints are asked here (upstream names).
NODE_RESOURCES_FIT = "NodeResourcesFit"
NODE_AFFINITY = "NodeAffinity"
TAINT_TOLERATION = "TaintToleration"
NODE_UNSCHEDULABLE = "NodeUnschedulable"
HINTED = frozenset({NODE_RESOURCES_FIT, NODE_AFFINITY, TAINT_TOLERATION, NODE_UNSCHEDULABLE})
_UNSCHEDULABLE_TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}


def node_may_help(pod: Mapping[str, Any], node: Mapping[str, Any], filters: Iterable[str]) -> bool:
    """Whether a Node/Add or Node/Update event about ``node`` may let ``pod`` (pending) in, under a
    profile whose filter plugins are ``filters``; False only when it surely cannot."""
    spec = pod.get("spec") or {}
    affinity = spec.get("affinity") or {}
    if spec.get("topologySpreadConstraints") or affinity.get("podAffinity") or affinity.get("podAntiAffinity"):
        return True  # the node may change the pod's topology on other nodes
    enabled = HINTED.intersection(filters)
    node_spec = node.get("spec") or {}
    if NODE_UNSCHEDULABLE in enabled and node_spec.get("unschedulable") is True:
        if not any(tolerates(t, _UNSCHEDULABLE_TAINT) for t in spec.get("tolerations") or ()):
            return False
    if TAINT_TOLERATION in enabled:
        tolerations = spec.get("tolerations") or ()
        for taint in node_spec.get("taints") or ():
            if taint.get("effect") in ("NoSchedule", "NoExecute") and not any(tolerates(t, taint) for t in tolerations):
                return False
    if NODE_AFFINITY in enabled and not _matches_node_affinity(spec, node):
        return False
    if NODE_RESOURCES_FIT in enabled and not _may_fit(pod, node):
        return False
    return True


def _matches_node_affinity(spec: Mapping[str, Any], node: Mapping[str, Any]) -> bool:
    labels = (node.get("metadata") or {}).get("labels") or {}
    for key, value in (spec.get("nodeSelector") or {}).items():
        if labels.get(key) != value:
            return False
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution")
    return required is None or match_node_selector_terms(node, required)


def _may_fit(pod: Mapping[str, Any], node: Mapping[str, Any]) -> bool:
    """False when the pod's cpu or memory request, or one more pod, passes the node's allocatable
    whatever runs there (extended resources may be ignored by the profile's arguments: not asked;
    an amount the node does not state: not asked either)."""
    allocatable = (node.get("status") or {}).get("allocatable") or {}
    try:
        requests = pod_requests(pod)
        for name, wanted, unit in (("cpu", requests.milli_cpu, 1_000_000), ("memory", requests.memory, 10**9),
                                   ("pods", 1, 10**9)):
            if name in allocatable and wanted > -(-nanos(allocatable[name]) // unit):
                return False
    except Exception:  # a value the loaders refuse later: let the scheduler say so
        return True
    return True


__all__ = ["node_may_help", "HINTED"]
