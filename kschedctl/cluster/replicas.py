"""Workloads -> the pods their controllers would create, for ``simulate``: a Deployment's
replicas with the names its ReplicaSet gives them, a StatefulSet's ordinals with their claims, a
Job's parallel pods, a DaemonSet's pod per node."""

from __future__ import annotations

import copy
from typing import Any, Iterable

from kschedctl.errors import InputError


def joined_batch(items: Any, cluster_state: Any) -> tuple[list[dict], Any]:
    """The join and expand steps of the load -> join -> expand pipeline, written once: the
    objects ``items`` (a ``PodsToExplain``) bring along join ``cluster_state``, then their
    workloads are expanded to replicas (``simulation_batch``). Every front end that schedules a
    batch (the API's simulate, sweep, scenarios, steps' create) goes through here."""
    return simulation_batch(items, items.joined(cluster_state))


def simulation_batch(items: Iterable[Any], cluster_state: Any) -> tuple[list[dict], Any]:
    """The pods of ``items`` (pods and workloads read from files) with workloads expanded to
    their replicas, in order, and the cluster state with their owners and other objects joined.
    A pod given twice is an input error naming where it was first given."""
    batch: list[dict] = []
    joined: list[dict] = []
    nodes = list(cluster_state.nodes)
    first_seen: dict[str, Any] = {}
    items = list(items)
    _check_pod_budget(items, len(nodes))
    for item in items:
        pods, objects = expand_replicas(item, nodes)
        for pod in pods:
            meta = pod.get("metadata") or {}
            key = f"{meta.get('namespace') or 'default'}/{meta.get('name')}"
            if key in first_seen:
                raise InputError(f"pod {key} is given twice (first at {first_seen[key].where})",
                                 item.source.file, item.source.line)
            first_seen[key] = item.source
        batch.extend(pods)
        joined.extend(item.owners + objects)
    if joined:
        cluster_state = cluster_state.with_objects(joined)
    return batch, cluster_state


def _check_pod_budget(items: list[Any], node_count: int) -> None:
    """InputError naming the workload past which the batch would hold more than the limit of pods,
    before any is made (the loader checks each load; a batch may join several)."""
    from kschedctl.inputs.workloads import MAX_PODS, controller_pod_count

    total = 0
    for item in items:
        source = getattr(item, "source", None)
        obj = getattr(source, "obj", None) or {}
        if obj.get("kind") == "Pod":
            continue  # pods given as such are bounded by the loader's object limit
        total += controller_pod_count(obj, node_count)
        if total > MAX_PODS:
            raise InputError(f"{total:,} pods from the workloads of this run so far, past the limit of "
                             f"{MAX_PODS:,}", getattr(source, "file", None), getattr(source, "line", None))


def expand_replicas(item: Any, nodes: Iterable[dict] = ()) -> tuple[list[dict], list[dict]]:
    """The pods a workload's controller would create, and the extra objects (PVCs) they need.

    ``item`` is a ``PodToExplain`` (inputs.workloads), whose pod is the controller's first pod.
    Deployment / ReplicaSet / ReplicationController: ``spec.replicas`` pods named
    ``<rs>-<5 chars>``; StatefulSet: ordinals ``start .. start+replicas-1`` with their labels,
    hostname and PVCs; Job (and a CronJob's Job): ``min(parallelism, completions)`` pods, by
    completion index when Indexed; DaemonSet: one pod per node it would run on, pinned to that
    node with the required node affinity the daemon controller writes. A Pod is itself.
    """
    source = getattr(item, "source", None)
    kind = getattr(source, "kind", None) or (getattr(source, "obj", {}) or {}).get("kind") or "Pod"
    obj = getattr(source, "obj", None) or {}
    pod = item.pod
    objects = list(getattr(item, "objects", None) or ())
    if kind == "Pod":
        return [pod], objects
    spec = obj.get("spec") or {}
    if kind in ("Deployment", "ReplicaSet", "ReplicationController"):
        n = _count(spec.get("replicas"), 1)
        return _replicas(pod, n), objects
    if kind == "StatefulSet":
        return _statefulset_pods(item, spec, objects)
    if kind in ("Job", "CronJob"):
        job_spec = _job_spec(kind, spec)
        n = _job_pod_count(job_spec)
        if job_spec.get("completionMode") == "Indexed":
            return [pod if i == 0 else _indexed_job_pod(pod, i) for i in range(n)], objects
        return _replicas(pod, n), objects
    if kind == "DaemonSet":
        return _daemonset_pods(pod, nodes), objects
    return [pod], objects


def replica_count(obj: dict) -> int:
    """How many pods a workload object's controller creates at once (1 for a Pod or an unknown kind;
    a DaemonSet's count depends on the nodes: 1 here)."""
    from kschedctl.inputs.workloads import controller_pod_count

    return controller_pod_count(obj)


def _job_spec(kind: str, spec: dict) -> dict:
    """The Job spec of a Job, or of the Job a CronJob would create."""
    return ((spec.get("jobTemplate") or {}).get("spec") or {}) if kind == "CronJob" else spec


def _job_pod_count(job_spec: dict) -> int:
    """The pods a Job runs at once: ``min(parallelism, completions)``."""
    n = _count(job_spec.get("parallelism"), 1)
    completions = job_spec.get("completions")
    return min(n, completions) if isinstance(completions, int) and completions >= 0 else n


def _count(value: Any, default: int) -> int:
    # The loader has checked counts (types, signs, the pod limit); this guards callers that
    # build items some other way from making an unbounded number of pods.
    from kschedctl.inputs.workloads import MAX_PODS

    if value is None:
        return default
    if type(value) is not int or value < 0:
        raise InputError(f"replica count must be a non-negative integer, not {str(value)[:40]}")
    if value > MAX_PODS:
        raise InputError(f"replica count {value:,} is past the limit of {MAX_PODS:,} pods")
    return value


def _fresh_uid(pod: dict) -> None:
    from kschedctl.inputs.cluster import make_uid

    meta = pod["metadata"]
    meta["uid"] = make_uid("Pod", meta.get("namespace") or "default", meta["name"])


def _replicas(pod: dict, n: int) -> list[dict]:
    """``n`` pods of a generated-name pod: the first as given, the others renamed, every name unique."""
    taken = {pod["metadata"].get("name")}
    return [pod if i == 0 else _renamed(pod, i, taken) for i in range(n)]


def _renamed(pod: dict, i: int, taken: set[str]) -> dict:
    """Replica ``i`` of a generated-name pod: the same prefix, another 5-character suffix.

    The suffix is derived from the replica's index, so a run is reproducible; 5 characters of 27
    collide often enough at thousands of replicas (3% of 1,000-replica Deployments), so a taken
    name is drawn again, as the API server's name generator retries, deterministically here.
    """
    from kschedctl.inputs.workloads import random_suffix

    new = copy.deepcopy(pod)
    meta = new["metadata"]
    prefix = (meta.get("generateName") or (meta.get("name", "") + "-"))[:58]
    attempt = 0
    name = prefix + random_suffix([prefix, meta.get("uid"), i])
    while name in taken:
        attempt += 1
        name = prefix + random_suffix([prefix, meta.get("uid"), i, attempt])
    taken.add(name)
    meta["name"] = name
    _fresh_uid(new)
    return new


def _indexed_job_pod(pod: dict, index: int) -> dict:
    from kschedctl.inputs.workloads import JOB_COMPLETION_INDEX, mapping_at, random_suffix

    new = copy.deepcopy(pod)
    meta = new["metadata"]
    job = meta.get("labels", {}).get("batch.kubernetes.io/job-name") or meta.get("generateName", "").rsplit("-0-", 1)[0]
    prefix = f"{job}-{index}-"
    meta["generateName"] = prefix
    meta["name"] = prefix + random_suffix([prefix, meta.get("uid"), index])
    mapping_at(meta, "labels")[JOB_COMPLETION_INDEX] = str(index)
    mapping_at(meta, "annotations")[JOB_COMPLETION_INDEX] = str(index)
    spec = new["spec"]
    if spec.get("hostname"):
        spec["hostname"] = f"{job}-{index}"
    _fresh_uid(new)
    return new


def _statefulset_pods(item: Any, spec: dict, objects: list[dict]) -> tuple[list[dict], list[dict]]:
    from kschedctl.inputs.cluster import make_uid
    from kschedctl.inputs.workloads import POD_INDEX_LABEL, STATEFULSET_POD_NAME_LABEL, mapping_at

    pod = item.pod
    sts = item.owners[0]["metadata"]["name"] if getattr(item, "owners", None) else pod["metadata"]["name"].rsplit("-", 1)[0]
    start = ((spec.get("ordinals") or {}).get("start")) or 0
    n = _count(spec.get("replicas"), 1)
    pods: list[dict] = []
    extra: list[dict] = []
    suffix0 = f"-{sts}-{start}"
    for i in range(n):
        ordinal = start + i
        if i == 0:
            pods.append(pod)
            extra.extend(objects)
            continue
        new = copy.deepcopy(pod)
        name = f"{sts}-{ordinal}"
        meta = new["metadata"]
        meta["name"] = name
        labels = mapping_at(meta, "labels")
        labels[STATEFULSET_POD_NAME_LABEL] = name
        labels[POD_INDEX_LABEL] = str(ordinal)
        new["spec"]["hostname"] = name
        renames: dict[str, str] = {}
        for claim in objects:
            old = claim["metadata"]["name"]
            if not old.endswith(suffix0):
                continue
            claim_name = old[: -len(suffix0)] + f"-{sts}-{ordinal}"
            renames[old] = claim_name
            c = copy.deepcopy(claim)
            c["metadata"]["name"] = claim_name
            c["metadata"]["uid"] = make_uid("PersistentVolumeClaim", c["metadata"].get("namespace") or "default",
                                            claim_name)
            extra.append(c)
        for volume in new["spec"].get("volumes") or ():
            pvc = volume.get("persistentVolumeClaim")
            if pvc and pvc.get("claimName") in renames:
                pvc["claimName"] = renames[pvc["claimName"]]
        _fresh_uid(new)
        pods.append(new)
    return pods, extra


def _daemonset_pods(pod: dict, nodes: Iterable[dict]) -> list[dict]:
    """One pod per node the daemon controller would run it on (NodeAffinity/nodeSelector
    match and no untolerated NoSchedule/NoExecute taint: nodeShouldRunDaemonPod), each pinned
    with a required node affinity on metadata.name (ReplaceDaemonSetPodNodeNameNodeAffinity)."""
    from kschedctl.inputs.workloads import mapping_at, random_suffix
    from kschedctl.k8s.node_selectors import RequiredNodeAffinity
    from kschedctl.k8s.tolerations import find_matching_untolerated_taint

    required = RequiredNodeAffinity(pod)
    tolerations = (pod.get("spec") or {}).get("tolerations") or []
    out = []
    prefix = pod["metadata"].get("generateName") or pod["metadata"]["name"] + "-"
    for node in nodes:
        name = (node.get("metadata") or {}).get("name", "")
        if not required.match(node):
            continue
        taints = (node.get("spec") or {}).get("taints") or []
        if find_matching_untolerated_taint(
                taints, tolerations, lambda t: t.get("effect") in ("NoSchedule", "NoExecute")) is not None:
            continue
        new = copy.deepcopy(pod)
        new["metadata"]["name"] = prefix[:58] + random_suffix([prefix, name])
        node_affinity = mapping_at(mapping_at(new["spec"], "affinity"), "nodeAffinity")
        node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [name]}]}]}
        _fresh_uid(new)
        out.append(new)
    return out
