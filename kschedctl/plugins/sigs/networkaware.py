"""What TopologicalSort and NetworkOverhead share: AppGroup and NetworkTopology objects, the
labels that tie pods to them, and upstream's lookups.

Port of kubernetes-sigs/scheduler-plugins v0.34.7 ``pkg/networkaware/util/util.go`` and the CRD
types of diktyo-io appgroup-api / networktopology-api v1.0.1-alpha:

- ``AppGroup`` (``appgroup.diktyo.x-k8s.io/v1alpha1``, namespaced): ``spec.workloads[]``
  (``workload.selector`` and ``dependencies[].workload.selector`` / ``maxNetworkCost``) and
  ``status.topologyOrder[]`` (``workload.selector``, ``index``), which the AppGroup controller
  keeps sorted by selector.
- ``NetworkTopology`` (``networktopology.diktyo.x-k8s.io/v1alpha1``, namespaced):
  ``spec.weights[]`` (``name``, ``topologyList[]`` of ``topologyKey`` and ``originList[]`` of
  ``origin`` and ``costList[]`` of ``destination`` / ``networkCost``).

A pod belongs to the AppGroup named by its label ``appgroup.diktyo.x-k8s.io`` and to the
workload whose selector is its label ``appgroup.diktyo.x-k8s.io.workload``. The objects are
looked up by name in the plugins' configured ``namespaces``, in order (never in the pod's own
namespace), from the cluster state (``app_groups`` / ``network_topologies``, keyed
``namespace/name``). Lookups by selector, topology key and origin are upstream's binary searches
over the lists as stored (after NetworkOverhead's sorts), so unsorted input behaves as upstream.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from kschedctl.errors import InputError
from kschedctl.plugins.helper import located

__all__ = [
    "APP_GROUP_LABEL",
    "APP_GROUP_SELECTOR_LABEL",
    "REGION_LABEL",
    "ZONE_LABEL",
    "NETPERF_COSTS",
    "app_group_name",
    "workload_selector",
    "find_object",
    "find_pod_order",
    "dependency_list",
    "find_topology_key",
    "find_origin_costs",
    "namespaces_arg",
    "check_objects",
]

APP_GROUP_LABEL = "appgroup.diktyo.x-k8s.io"
APP_GROUP_SELECTOR_LABEL = APP_GROUP_LABEL + ".workload"
REGION_LABEL = "topology.kubernetes.io/region"
ZONE_LABEL = "topology.kubernetes.io/zone"
#: The weights name whose lists upstream takes as already sorted.
NETPERF_COSTS = "NetperfCosts"

DEFAULT_NAMESPACES = ["default"]

#: What ``namespaces`` accepts in the args' schema.
NAMESPACES_SCHEMA: dict[str, Any] = {"type": "array", "items": {"type": "string"}}


def _labels(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return (obj.get("metadata") or {}).get("labels") or {}


def app_group_name(pod: Mapping[str, Any]) -> str:
    return str(_labels(pod).get(APP_GROUP_LABEL) or "")


def workload_selector(pod: Mapping[str, Any]) -> str:
    return str(_labels(pod).get(APP_GROUP_SELECTOR_LABEL) or "")


def namespaces_arg(args: Mapping[str, Any]) -> list[str]:
    """Upstream's default: an empty or missing list means ``[default]``."""
    return list(args.get("namespaces") or DEFAULT_NAMESPACES)


def find_object(objects: Mapping[str, Any], namespaces: Iterable[str], name: str) -> Any:
    """The first ``namespace/name`` found, trying the namespaces in order; None when none has it."""
    for namespace in namespaces:
        obj = objects.get(f"{namespace}/{name}")
        if obj is not None:
            return obj
    return None


def check_objects(cluster: Any, with_topologies: bool = True) -> None:
    """Refuse, with the object, field, file and line named, what the API server's CRD schemas
    would refuse and the plugins would trip over: lists that are not lists, costs and indices
    that are not integers."""
    app_groups: Mapping[str, Any] = getattr(cluster, "app_groups", None) or {}
    topologies: Mapping[str, Any] = (getattr(cluster, "network_topologies", None) or {}) if with_topologies else {}

    def fail(kind: str, key: str, where: str, what: str) -> None:
        raise located(InputError(f"{kind} {key}: {where}: {what}"), cluster, kind, key)

    def items(kind: str, key: str, where: str, value: Any) -> list[Any]:
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
            fail(kind, key, where, "must be a list of objects")
        return value

    def integer(kind: str, key: str, where: str, value: Any) -> None:
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            fail(kind, key, where, f"must be an integer, not {value!r}")

    for key, obj in app_groups.items():
        spec, status = obj.get("spec") or {}, obj.get("status") or {}
        for i, w in enumerate(items("AppGroup", key, "spec.workloads", spec.get("workloads"))):
            for j, d in enumerate(items("AppGroup", key, f"spec.workloads[{i}].dependencies", w.get("dependencies"))):
                integer("AppGroup", key, f"spec.workloads[{i}].dependencies[{j}].maxNetworkCost", d.get("maxNetworkCost"))
        for i, t in enumerate(items("AppGroup", key, "status.topologyOrder", status.get("topologyOrder"))):
            integer("AppGroup", key, f"status.topologyOrder[{i}].index", t.get("index"))
    for key, obj in topologies.items():
        for i, w in enumerate(items("NetworkTopology", key, "spec.weights", (obj.get("spec") or {}).get("weights"))):
            path = f"spec.weights[{i}].topologyList"
            for j, t in enumerate(items("NetworkTopology", key, path, w.get("topologyList"))):
                for k, o in enumerate(items("NetworkTopology", key, f"{path}[{j}].originList", t.get("originList"))):
                    costs = f"{path}[{j}].originList[{k}].costList"
                    for m, c in enumerate(items("NetworkTopology", key, costs, o.get("costList"))):
                        integer("NetworkTopology", key, f"{costs}[{m}].networkCost", c.get("networkCost"))


def _binary_search(items: list[Any], key: Any, target: str) -> Any:
    low, high = 0, len(items) - 1
    while low <= high:
        mid = (low + high) // 2
        value = key(items[mid])
        if value == target:
            return items[mid]
        if value < target:
            low = mid + 1
        else:
            high = mid - 1
    return None


def _selector(entry: Any) -> str:
    return str(((entry or {}).get("workload") or {}).get("selector") or "")


def find_pod_order(topology_order: list[Any], selector: str) -> int:
    """Upstream ``FindPodOrder``: the index of the workload with ``selector``, -1 when absent."""
    found = _binary_search(topology_order, _selector, selector)
    return -1 if found is None else int(found.get("index") or 0)


def dependency_list(pod: Mapping[str, Any], app_group: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Upstream ``GetDependencyList``: the dependencies of every workload of the group whose
    selector is the pod's workload label, in order."""
    selector = workload_selector(pod)
    out: list[Mapping[str, Any]] = []
    for workload in (app_group.get("spec") or {}).get("workloads") or ():
        if _selector(workload) == selector:
            out.extend(d for d in workload.get("dependencies") or () if isinstance(d, Mapping))
    return out


def find_topology_key(topology_list: list[Any], key: str) -> list[Any]:
    found = _binary_search(topology_list, lambda t: str((t or {}).get("topologyKey") or ""), key)
    return list((found or {}).get("originList") or [])


def find_origin_costs(origin_list: list[Any], origin: str) -> list[Any]:
    found = _binary_search(origin_list, lambda o: str((o or {}).get("origin") or ""), origin)
    return list((found or {}).get("costList") or [])
