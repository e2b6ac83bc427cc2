"""PodGroup and ElasticQuota lookups shared by the scheduler-plugins ports.

Upstream reads these CRDs (group ``scheduling.x-k8s.io``, version ``v1alpha1``) through a
controller-runtime client and the pods through the scheduler's pod informer; here they come
from the cluster state (``ClusterState.pod_groups`` / ``elastic_quotas``, keyed
``"namespace/name"``) and from the snapshot, so that pods a simulation has placed count.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Iterator

if TYPE_CHECKING:  # pragma: no cover
    from kschedctl.framework.types import PodInfo

#: The label that puts a pod in a PodGroup (upstream v1alpha1.PodGroupLabel).
POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"


def pod_group_label(pod: dict) -> str:
    return ((pod.get("metadata") or {}).get("labels") or {}).get(POD_GROUP_LABEL, "") or ""


def pod_group_full_name(pod: dict) -> str:
    """``namespace/group`` of a pod, "" when it names no group (upstream GetPodGroupFullName)."""
    name = pod_group_label(pod)
    if not name:
        return ""
    return f"{(pod.get('metadata') or {}).get('namespace') or 'default'}/{name}"


def get_pod_group(cluster: Any, pod: dict) -> tuple[str, dict | None]:
    """Upstream GetPodGroup: the full name (or "") and the PodGroup object (None when absent)."""
    full = pod_group_full_name(pod)
    if not full:
        return "", None
    groups = getattr(cluster, "pod_groups", None) or {}
    return full, groups.get(full)


def min_member(pg: dict) -> int:
    return int((pg.get("spec") or {}).get("minMember") or 0)


def parse_time(value: Any) -> float | None:
    """An RFC 3339 timestamp (metadata.creationTimestamp) as epoch seconds, None when absent or bad."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.timestamp()


def informer_pods(handle: Any, extra: "PodInfo | None" = None) -> Iterator[dict]:
    """Every pod the scheduler's pod informer would list (``handle.list_pods()``: the cluster's
    pods, pods a simulation placed, a simulated batch's pending pods) and ``extra`` (the pod
    being scheduled exists in the API server); each once, by ``namespace/name``."""
    seen: set[str] = set()
    lister = getattr(handle, "list_pods", None)
    for pod in (lister() if callable(lister) else ()):  # already one per namespace/name
        seen.add(_key(pod))
        yield pod
    if extra is not None and extra.key not in seen:
        yield extra.pod


def _key(pod: dict) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name') or ''}"
