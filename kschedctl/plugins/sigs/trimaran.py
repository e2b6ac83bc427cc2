"""What the Trimaran plugins share: measured load, resource statistics, requests and limits.

Port of kubernetes-sigs/scheduler-plugins v0.34.7 ``pkg/trimaran/`` (``collector.go``,
``handler.go``, ``resourcestats.go``) for TargetLoadPacking, LoadVariationRiskBalancing and
LowRiskOverCommitment.

**Load.** Upstream asks a load watcher every 30 seconds; kschedctl reads its saved answer from
``--metrics FILE`` (``kschedctl.inputs.metrics``), kept on the cluster state as ``metrics``.
Without it, or for a node the answer does not name, a plugin scores the node
``MinNodeScore`` (0), as upstream does when the watcher is unreachable or silent about the
node, and kschedctl says so in the result's warnings.

**Recently assigned pods** (upstream ``PodAssignEventHandler``, used by TargetLoadPacking):
upstream remembers when its informer saw each pod bound to a node and adds the predicted usage
of the pods bound after the metrics window ended, or less than 60 seconds before its end (their
usage may not be measured yet). kschedctl takes the time a pod was bound from its
``PodScheduled=True`` condition (``lastTransitionTime``); pods a ``simulate`` run places get
that condition at the run's virtual time. A pod without the condition counts as bound long ago.
Upstream drops remembered pods older than 60 seconds every 5 minutes; kschedctl does not model
that clean-up, so its answer does not depend on when the command runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from kschedctl.framework.preemption import parse_time_ns
from kschedctl.inputs.metrics import AVERAGE, LATEST, STD, Metric, WatcherMetrics
from kschedctl.k8s.gomath import go_max, go_min
from kschedctl.k8s.quantity import int_value, milli_value

#: Bytes to MiB (upstream ``MegaFactor``).
MEGA_FACTOR = 1.0 / 1024.0 / 1024.0
#: Upstream ``metricsAgentReportingIntervalSeconds``.
METRICS_AGENT_REPORTING_INTERVAL_SECONDS = 60

#: MetricProvider types upstream's collector accepts without a watcher address.
METRIC_PROVIDER_TYPES = ("KubernetesMetricsServer", "Prometheus", "SignalFx")

#: Args every Trimaran plugin takes (upstream ``TrimaranSpec``) and its JSON schema.
TRIMARAN_SPEC_SCHEMA: dict[str, Any] = {
    "metricProvider": {
        "type": "object",
        "properties": {
            "type": {"type": "string"},
            "address": {"type": "string"},
            "token": {"type": "string"},
            "insecureSkipVerify": {"type": "boolean"},
        },
        "additionalProperties": False,
    },
    "watcherAddress": {"type": "string"},
}


def trimaran_spec_defaults(args: Mapping[str, Any]) -> dict[str, Any]:
    """Upstream SetDefaultTrimaranSpec: the metrics server when neither a type nor a watcher is set."""
    provider = dict(args.get("metricProvider") or {})
    if args.get("watcherAddress") is None and not provider.get("type"):
        provider["type"] = "KubernetesMetricsServer"
    if provider.get("type") == "Prometheus" and provider.get("insecureSkipVerify") is None:
        provider["insecureSkipVerify"] = True
    return provider


def check_specs(args: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """Upstream checkSpecs (run when the plugin is built): a known provider type unless a
    watcher address is given. Returns ``(field, type, message)`` findings."""
    if args.get("watcherAddress"):
        return []
    provider_type = trimaran_spec_defaults(args).get("type", "")
    if provider_type not in METRIC_PROVIDER_TYPES:
        return [("metricProvider.type", "Invalid", f"invalid MetricProvider.Type, got {provider_type}")]
    return []


# --------------------------------------------------------------------------- the load


def watcher_metrics(handle: Any) -> WatcherMetrics | None:
    """The load watcher's answer given to this run (``--metrics``), None without one."""
    cluster = handle.cluster() if handle is not None else None
    return getattr(cluster, "metrics", None)


def node_metrics(plugin: Any, node_name: str) -> tuple[list[Metric] | None, WatcherMetrics | None]:
    """Upstream ``Collector.GetNodeMetrics``: the node's metrics and the whole answer.

    Warns (once per cycle) when there is no answer at all or none for this node.
    """
    handle = plugin.handle
    all_metrics = watcher_metrics(handle)
    if all_metrics is None or all_metrics.nodes is None:
        why = ("no load metrics were given (--metrics FILE)" if all_metrics is None
               else f"the load metrics ({all_metrics.origin}) have no NodeMetricsMap")
        _warn(handle, f"{plugin.name}: {why}; every node scores 0, as upstream does when the load watcher "
                      "has no data")
        return None, None
    metrics = all_metrics.node_metrics(node_name)
    if metrics is None:
        _warn(handle, f"{plugin.name}: the load metrics ({all_metrics.origin}) have no data for some nodes; "
                      "those score 0, as upstream")
        return None, all_metrics
    return metrics, all_metrics


def _warn(handle: Any, message: str) -> None:
    warn = getattr(handle, "warn", None)
    if callable(warn):
        warn(message)


# --------------------------------------------------------------------------- statistics


@dataclass
class ResourceStats:
    """A node's use of one resource (upstream ``ResourceStats``): millicores for CPU, MiB for memory."""

    used_avg: float = 0.0
    used_stdev: float = 0.0
    req: float = 0.0
    capacity: float = 0.0


def get_resource_data(metrics: Iterable[Metric], resource_type: str) -> tuple[float, float, bool]:
    """Upstream ``GetResourceData``: (average %, standard deviation %, found) of ``resource_type``.

    An ``AVG`` value wins over ``Latest`` (or no operator) whatever their order.
    """
    avg = std = 0.0
    avg_found = valid = False
    for metric in metrics:
        if metric.type != resource_type:
            continue
        if metric.operator == AVERAGE:
            avg, avg_found = metric.value, True
        elif metric.operator == STD:
            std = metric.value
        elif metric.operator in ("", LATEST) and not avg_found:
            avg = metric.value
        valid = True
    return avg, std, valid


def create_resource_stats(metrics: Iterable[Metric], node: Mapping[str, Any], request_milli_cpu: int,
                          request_memory: int, resource_name: str, metric_type: str) -> ResourceStats | None:
    """Upstream ``CreateResourceStats`` (None when the metrics say nothing about the resource)."""
    util, std, found = get_resource_data(metrics, metric_type)
    if not found:
        return None
    allocatable = ((node.get("status") or {}).get("allocatable") or {}).get(resource_name)
    rs = ResourceStats()
    if resource_name == "cpu":
        rs.capacity = float(milli_value(allocatable)) if allocatable is not None else 0.0
        rs.req = float(request_milli_cpu)
    else:
        rs.capacity = float(int_value(allocatable)) * MEGA_FACTOR if allocatable is not None else 0.0
        rs.req = float(request_memory) * MEGA_FACTOR
    rs.used_avg = util * rs.capacity / 100
    rs.used_stdev = std * rs.capacity / 100
    return rs


def get_mu_sigma(rs: ResourceStats) -> tuple[float, float]:
    """Upstream ``GetMuSigma``: mean and deviation of the use as fractions of capacity, in [0, 1]."""
    if rs.capacity <= 0:
        return 0.0, 0.0
    mu = go_max(go_min((rs.used_avg + rs.req) / rs.capacity, 1.0), 0.0)
    sigma = go_max(go_min(rs.used_stdev / rs.capacity, 1.0), 0.0)
    return mu, sigma


# --------------------------------------------------------------------------- requests and limits


@dataclass
class CpuMemory:
    """Millicores and bytes: the part of upstream's ``framework.Resource`` Trimaran reads."""

    milli_cpu: int = 0
    memory: int = 0


def _cpu_memory(resources: Mapping[str, Any] | None) -> CpuMemory:
    out = CpuMemory()
    if resources:
        if resources.get("cpu") is not None:
            out.milli_cpu = milli_value(resources["cpu"])
        if resources.get("memory") is not None:
            out.memory = int_value(resources["memory"])
    return out


def effective_resource(pod: Mapping[str, Any], which: str) -> CpuMemory:
    """Upstream ``GetEffectiveResource``: containers summed, each init container's CPU and
    memory as a floor, plus the overhead (``which`` is ``requests`` or ``limits``)."""
    spec = pod.get("spec") or {}
    result = CpuMemory()
    for c in spec.get("containers") or ():
        r = _cpu_memory((c.get("resources") or {}).get(which))
        result.milli_cpu += r.milli_cpu
        result.memory += r.memory
    for c in spec.get("initContainers") or ():
        r = _cpu_memory((c.get("resources") or {}).get(which))
        result.milli_cpu = max(result.milli_cpu, r.milli_cpu)
        result.memory = max(result.memory, r.memory)
    overhead = _cpu_memory(spec.get("overhead"))
    result.milli_cpu += overhead.milli_cpu
    result.memory += overhead.memory
    return result


def requests_and_limits(pod: Mapping[str, Any]) -> tuple[CpuMemory, CpuMemory]:
    """The pod's effective requests, and its limits raised to them (upstream ``SetMaxLimits``)."""
    requests = effective_resource(pod, "requests")
    limits = effective_resource(pod, "limits")
    limits.milli_cpu = max(limits.milli_cpu, requests.milli_cpu)
    limits.memory = max(limits.memory, requests.memory)
    return requests, limits


@dataclass
class NodeRequestsAndLimits:
    """Upstream ``NodeRequestsAndLimits``: totals on a node with and without the pod, and capacity."""

    node_request: CpuMemory
    node_limit: CpuMemory
    node_request_minus_pod: CpuMemory
    node_limit_minus_pod: CpuMemory
    node_capacity: CpuMemory


def node_requests_and_limits(pod_infos_on_node: Iterable[Any], node: Mapping[str, Any], pod_requests: CpuMemory,
                             pod_limits: CpuMemory) -> NodeRequestsAndLimits:
    """Upstream ``GetNodeRequestsAndLimits``: requests capped at the node's allocatable, limits not."""
    allocatable = (node.get("status") or {}).get("allocatable") or {}
    capacity = _cpu_memory(allocatable)
    request, limit = CpuMemory(), CpuMemory()
    for pi in pod_infos_on_node:
        r, lim = requests_and_limits(pi.pod)
        request.milli_cpu += r.milli_cpu
        request.memory += r.memory
        limit.milli_cpu += lim.milli_cpu
        limit.memory += lim.memory
    request_minus_pod = CpuMemory(request.milli_cpu, request.memory)
    limit_minus_pod = CpuMemory(limit.milli_cpu, limit.memory)
    request.milli_cpu += pod_requests.milli_cpu
    request.memory += pod_requests.memory
    limit.milli_cpu += pod_limits.milli_cpu
    limit.memory += pod_limits.memory
    for r in (request, request_minus_pod):
        r.milli_cpu = min(r.milli_cpu, capacity.milli_cpu)
        r.memory = min(r.memory, capacity.memory)
    return NodeRequestsAndLimits(request, limit, request_minus_pod, limit_minus_pod, capacity)


# --------------------------------------------------------------------------- recently assigned pods


def bound_at_seconds(pod: Mapping[str, Any]) -> int | None:
    """When the pod was bound (its ``PodScheduled=True`` condition), in Unix seconds."""
    for condition in (pod.get("status") or {}).get("conditions") or ():
        if condition.get("type") == "PodScheduled":
            if condition.get("status") != "True" or not condition.get("lastTransitionTime"):
                return None
            try:
                return parse_time_ns(condition["lastTransitionTime"]) // 1_000_000_000
            except (TypeError, ValueError):
                return None
    return None


def recently_assigned(pod_infos_on_node: Iterable[Any], window_end: int) -> list[Any]:
    """The node's pods whose usage the metrics may not show yet (see the module docstring)."""
    out = []
    for pi in pod_infos_on_node:
        at = bound_at_seconds(pi.pod)
        if at is None:
            continue
        if at > window_end or window_end - at < METRICS_AGENT_REPORTING_INTERVAL_SECONDS:
            out.append(pi)
    return out
