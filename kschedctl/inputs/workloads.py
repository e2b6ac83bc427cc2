"""The pods to explain: a Pod as written, or the pod a workload's controller would create.

For a workload the pod is made the way its controller makes it (upstream v1.34:
``pkg/controller/controller_utils.go`` GetPodFromTemplate, ``pkg/controller/deployment``,
``pkg/controller/statefulset/stateful_set_utils.go``, ``pkg/controller/daemon/util``,
``pkg/controller/job``, ``pkg/registry/batch/job/strategy.go``, ``pkg/controller/cronjob``):
template labels, annotations and finalizers, a controller owner reference, the controller's
own labels, and the name as it would be generated. The owner (and what else the controller
creates beside the pod, such as a StatefulSet's PVCs) joins the cluster state, so
owner-based behaviour such as default topology spreading is what the real cluster would do.

===================  ==============================================================
Deployment           ReplicaSet ``<deploy>-<pod-template-hash>`` (selector + hash label,
                     revision annotations) owning pod ``<rs>-<5 chars>``
ReplicaSet / RC      pod ``<rs>-<5 chars>`` owned by it
StatefulSet          pod ``<sts>-<first ordinal>`` with statefulset.kubernetes.io/pod-name,
                     apps.kubernetes.io/pod-index and controller-revision-hash labels,
                     hostname/subdomain, and one PVC per volumeClaimTemplate
DaemonSet            pod ``<ds>-<5 chars>`` with controller-revision-hash and
                     pod-template-generation labels and the daemon tolerations
Job                  pod ``<job>-<5 chars>`` (Indexed: ``<job>-0-<5 chars>`` with the
                     completion index) with job-name / controller-uid labels, both the
                     batch.kubernetes.io/ ones and the legacy ones, and the tracking finalizer
CronJob              its Job ``<cronjob>-<scheduled minute>``, then the Job's pod
===================  ==============================================================

Reproducibility and known differences: random parts are derived from a hash of the input
object, so the same file always gives the same names. They cannot match upstream byte for
byte: a generated name's 5 characters are random upstream; ``pod-template-hash`` and a
DaemonSet's ``controller-revision-hash`` are upstream an FNV-32a hash of a Go object dump
(here FNV-32a of the template's canonical JSON, encoded the same way, so they look alike);
a StatefulSet's revision hash follows upstream's recipe (FNV-32a of the revision patch JSON)
and matches only when the template carries every API-server default; a CronJob's Job name
uses a made-up scheduled minute. A DaemonSet pod is not pinned to a node (upstream adds a
required node affinity on ``metadata.name`` per node): explain shows every node.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterable

from kschedctl.errors import InputError
from kschedctl.inputs.cluster import DEFAULT_NAMESPACE, ClusterState, admit_pod, make_uid
from kschedctl.inputs.kinds import KIND_BY_NAME
from kschedctl.inputs.loader import Document, field_line, load_documents
from kschedctl.inputs.shapes import check_workload
from kschedctl.limits import WORKLOAD_MAX_PODS

__all__ = [
    "PodToExplain",
    "PodsToExplain",
    "WORKLOAD_KINDS",
    "pods_from_documents",
    "load_pods",
    "safe_encode",
    "fnv32a",
    "pod_template_hash",
    "random_suffix",
    "controller_pod_count",
    "mapping_at",
    "MAX_PODS",
]

#: Most pods the workloads of one load may stand for (kschedctl.limits.WORKLOAD_MAX_PODS).
MAX_PODS = WORKLOAD_MAX_PODS

# Label and annotation keys, as upstream spells them.
POD_TEMPLATE_HASH_LABEL = "pod-template-hash"  # apps.DefaultDeploymentUniqueLabelKey
CONTROLLER_REVISION_HASH_LABEL = "controller-revision-hash"  # apps.ControllerRevisionHashLabelKey
STATEFULSET_POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"
DAEMONSET_TEMPLATE_GENERATION_LABEL = "pod-template-generation"
JOB_NAME_LABEL = "batch.kubernetes.io/job-name"
LEGACY_JOB_NAME_LABEL = "job-name"
CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid"
LEGACY_CONTROLLER_UID_LABEL = "controller-uid"
JOB_COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
JOB_TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking"
REVISION_ANNOTATION = "deployment.kubernetes.io/revision"
DESIRED_REPLICAS_ANNOTATION = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS_ANNOTATION = "deployment.kubernetes.io/max-replicas"

#: Upstream names.MaxGeneratedNameLength (63 - 5 random characters).
MAX_GENERATED_NAME_LENGTH = 58
#: Alphabet of utilrand.String and rand.SafeEncodeString (no vowels, no confusable digits).
_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"

#: kind -> API groups accepted.
WORKLOAD_KINDS: dict[str, tuple[str, ...]] = {
    "Pod": ("",),
    "Deployment": ("apps",),
    "ReplicaSet": ("apps",),
    "ReplicationController": ("",),
    "StatefulSet": ("apps",),
    "DaemonSet": ("apps",),
    "Job": ("batch",),
    "CronJob": ("batch",),
}

#: Tolerations the daemon controller adds (util.AddOrUpdateDaemonPodTolerations), in order.
_DAEMON_TOLERATIONS = (
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
)
_DAEMON_HOST_NETWORK_TOLERATION = ("node.kubernetes.io/network-unavailable", "NoSchedule")


@dataclass
class PodToExplain:
    """A pod to explain and where it came from.

    ``owners`` are the objects that join the cluster state with the pod: the owner chain,
    direct owner first (a Deployment's pod: its ReplicaSet, then the Deployment); ``objects``
    what the controller creates beside the pod (a StatefulSet's PVCs). ``notes`` say what
    kschedctl made up or could not reproduce.
    """

    pod: dict
    owners: list[dict]
    source: Document
    objects: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        """``namespace/name`` of the pod."""
        meta = self.pod.get("metadata") or {}
        return f"{meta.get('namespace') or DEFAULT_NAMESPACE}/{meta.get('name', '')}"

    def cluster_objects(self) -> list[dict]:
        """Everything that joins the cluster state with this pod (owners, then other objects)."""
        return self.owners + self.objects

    def apply(self, cluster: ClusterState) -> ClusterState:
        """``cluster`` with this pod's owners and objects added (``cluster`` is unchanged)."""
        objs = self.cluster_objects()
        return cluster.with_objects(objs) if objs else cluster


class PodsToExplain(list):  # type: ignore[type-arg]
    """The pods of a file (a list of ``PodToExplain``) and warnings about skipped documents.

    ``bundled`` are the other objects the files hold that belong to the cluster state (a
    ResourceClaim, PVC, PriorityClass, PodGroup... next to the pod that uses it): ``kubectl apply
    -f`` would create them with the pod, so they join the cluster state for the run.
    """

    def __init__(self, items: Iterable[PodToExplain] = (), warnings: list[str] | None = None) -> None:
        super().__init__(items)
        self.warnings: list[str] = list(warnings or [])
        self.bundled: list[Document] = []
        #: The last ``joined`` answer and the state it was built on: admission already joined the
        #: caller's state, and copying a 50,000-pod state again would be wasted.
        self._joined: tuple[ClusterState, ClusterState] | None = None

    def extend(self, items: Iterable[PodToExplain]) -> None:
        """Adds ``items``; from another ``PodsToExplain`` its bundled objects and warnings too, so
        pods read file by file join the cluster state as pods read at once do."""
        super().extend(items)
        if isinstance(items, PodsToExplain):
            if items.bundled:
                self.bundled.extend(items.bundled)
                self._joined = None
            self.warnings.extend(items.warnings)

    def joined(self, cluster: ClusterState) -> ClusterState:
        """``cluster`` with the bundled objects added (replacing objects of the same name, as an
        apply would); ``cluster`` itself when there are none."""
        if not self.bundled:
            return cluster
        if self._joined is None or self._joined[0] is not cluster:
            self._joined = (cluster, cluster.with_documents(self.bundled))
        return self._joined[1]

    def bundled_notes(self) -> list[str]:
        """One line per file naming the objects that joined the cluster state."""
        by_file: dict[str, list[str]] = {}
        for doc in self.bundled:
            meta = doc.obj.get("metadata") or {}
            name = f"{meta['namespace']}/{meta.get('name')}" if meta.get("namespace") else str(meta.get("name"))
            by_file.setdefault(doc.file, []).append(f"{doc.kind} {name}")
        return [f"{file}: {', '.join(objs)} joined the cluster state for this run, as if applied before the pods"
                for file, objs in by_file.items()]


def load_pods(paths: Iterable[str], cluster: ClusterState | None = None, stdin: Any = None) -> PodsToExplain:
    """The pods to explain from ``paths``; an ``InputError`` when they hold none."""
    paths = [str(p) for p in paths]
    from kschedctl.inputs.api_checks import pod_files

    with pod_files():
        docs = load_documents(paths, stdin=stdin)
    if not docs:
        raise InputError("no objects found (expected a Pod or a workload)", ", ".join(paths) or None)
    return pods_from_documents(docs, cluster)


def pods_from_documents(docs: Iterable[Document], cluster: ClusterState | None = None) -> PodsToExplain:
    """One ``PodToExplain`` per Pod or workload document, in order.

    Other kinds are skipped with a warning; a list holding nothing to explain is an
    ``InputError``. With ``cluster``, each pod goes through admission (namespace, priority
    from the cluster's PriorityClasses) so errors point at the file and line.
    """
    out = PodsToExplain()
    skipped: dict[str, int] = {}
    docs = list(docs)
    workloads = []
    pods = 0
    for doc in docs:
        kind = doc.kind
        groups = WORKLOAD_KINDS.get(kind)
        if groups is not None and _group(doc.api_version) in groups:
            workloads.append(doc)
        elif _bundles_with_pods(doc):
            out.bundled.append(doc)
        else:
            label = kind if groups is None else f"{kind} ({doc.api_version})"
            skipped[label] = skipped.get(label, 0) + 1
    if cluster is not None and out.bundled:
        cluster = out.joined(cluster)  # a bundled PriorityClass counts at admission
    for doc in workloads:
        kind = doc.kind
        try:
            item = _convert(doc)
            # Counted before any replica is made: simulate and test expand these counts into pods.
            # A DaemonSet counts once here (its pods per node are counted where they are made).
            pods += controller_pod_count(doc.obj) if kind != "Pod" else 0
            if pods > MAX_PODS:
                raise InputError(f"{_described(doc.obj)}: {_count_field(kind)}: {pods:,} pods from the workloads "
                                 f"of this run so far, past the limit of {MAX_PODS:,}")
            if cluster is not None:
                admit_pod(item.pod, cluster)
        except InputError as exc:
            raise exc.at(doc.file, field_line(doc, exc.message)) from None
        out.append(item)
    for kind, n in sorted(skipped.items()):
        why = ("nodes are the cluster state: give the file with --cluster" if kind == "Node"
               else "not a Pod, a workload with a pod template, or an object of the cluster state")
        out.warnings.append(f"skipped {n} {kind} object(s): {why}")
    if not out:
        where = docs[0].file if docs else None
        kinds = ", ".join(sorted(skipped)) or "none"
        raise InputError(f"nothing to explain: no Pod or workload (Deployment, ReplicaSet, StatefulSet, "
                         f"DaemonSet, Job, CronJob) among the objects (kinds: {kinds})", where)
    return out


#: Kinds of the cluster state that a pod file never bundles: the pods and workloads are what it
#: explains, and nodes are the cluster itself.
_NOT_BUNDLED = frozenset({"Pod", "Node", "ReplicaSet", "ReplicationController", "StatefulSet"})


def _bundles_with_pods(doc: Document) -> bool:
    entry = KIND_BY_NAME.get(doc.kind)
    if entry is None or doc.kind in _NOT_BUNDLED:
        return False
    return _group(doc.api_version) in entry.groups


# ---------------------------------------------------------------------------- conversion


def _convert(doc: Document) -> PodToExplain:
    obj = doc.obj
    kind = doc.kind
    try:
        check_workload(obj)
    except InputError as exc:
        raise InputError(f"{_described(obj)}: {exc.message}") from None
    _check_counts(obj, kind)
    if kind == "Pod":
        return _from_pod(doc)
    obj = copy.deepcopy(obj)  # the document stays as read
    meta = _meta(obj, kind)
    if kind == "Deployment":
        return _from_deployment(obj, meta, doc)
    if kind in ("ReplicaSet", "ReplicationController"):
        pod = _pod_from_template(obj, meta, kind)
        pod["metadata"]["name"] = _generated_name(pod["metadata"]["generateName"], obj)
        return PodToExplain(pod, [obj], doc, notes=[_random_note(pod)])
    if kind == "StatefulSet":
        return _from_statefulset(obj, meta, doc)
    if kind == "DaemonSet":
        return _from_daemonset(obj, meta, doc)
    if kind == "Job":
        pod, notes = _pod_from_job(obj, meta)
        return PodToExplain(pod, [obj], doc, notes=notes)
    if kind == "CronJob":
        return _from_cronjob(obj, meta, doc)
    raise InputError(f"kind {kind} has no pod template")  # pragma: no cover - filtered before


def _described(obj: dict) -> str:
    """``Deployment web`` (``Pod default/web``) for messages; the name left out when it is not a string."""
    kind = str(obj.get("kind"))
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    name = meta.get("name") or meta.get("generateName")
    if not isinstance(name, str):
        return kind
    if kind == "Pod":
        namespace = meta.get("namespace")
        return f"Pod {namespace if isinstance(namespace, str) and namespace else DEFAULT_NAMESPACE}/{name}"
    return f"{kind} {name}"


#: The count fields of each kind's spec (int32 in the API), all validated as non-negative.
_COUNT_FIELDS: dict[str, tuple[str, ...]] = {
    "Deployment": ("replicas", "minReadySeconds"),
    "ReplicaSet": ("replicas", "minReadySeconds"),
    "ReplicationController": ("replicas", "minReadySeconds"),
    "StatefulSet": ("replicas", "minReadySeconds", "ordinals.start"),
    "Job": ("parallelism", "completions"),
    "CronJob": ("jobTemplate.spec.parallelism", "jobTemplate.spec.completions"),
}


def _check_counts(obj: dict, kind: str) -> None:
    """ValidateNonnegativeField on the counts (their types are checked by the shapes)."""
    for path in _COUNT_FIELDS.get(kind, ()):
        value: Any = obj.get("spec")
        for part in path.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if isinstance(value, int) and value < 0:
            raise InputError(f"{_described(obj)}: spec.{path}: Invalid value: {value}: "
                             f"must be greater than or equal to 0")


def _count_field(kind: str) -> str:
    return {"Job": "spec.parallelism", "CronJob": "spec.jobTemplate.spec.parallelism",
            "DaemonSet": "spec.template"}.get(kind, "spec.replicas")


def controller_pod_count(obj: dict, node_count: int = 1) -> int:
    """How many pods a workload's controller creates at once: ``spec.replicas`` (default 1) of a
    Deployment, ReplicaSet, ReplicationController or StatefulSet; ``min(parallelism, completions)``
    of a Job or a CronJob's Job; one per node (at most ``node_count``) for a DaemonSet; 1 for a Pod.
    ``obj`` has passed the load checks (a count that is not a non-negative integer counts as 1)."""
    kind = obj.get("kind")
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    if kind in ("Deployment", "ReplicaSet", "ReplicationController", "StatefulSet"):
        return _non_negative(spec.get("replicas"), 1)
    if kind in ("Job", "CronJob"):
        job = spec
        if kind == "CronJob":
            template = spec.get("jobTemplate")
            job = template.get("spec") if isinstance(template, dict) and isinstance(template.get("spec"), dict) else {}
        parallelism = _non_negative(job.get("parallelism"), 1)
        completions = job.get("completions")
        return min(parallelism, completions) if type(completions) is int and completions >= 0 else parallelism
    if kind == "DaemonSet":
        return node_count
    return 1


def mapping_at(parent: dict, key: str) -> dict:
    """``parent[key]``, a new empty mapping when absent or null (the API server decodes null as absent);
    the load checks have made sure it is not of another type."""
    value = parent.get(key)
    if value is None:
        value = parent[key] = {}
    return value


def _non_negative(value: Any, default: int) -> int:
    return value if type(value) is int and value >= 0 else default


def _from_pod(doc: Document) -> PodToExplain:
    pod = copy.deepcopy(doc.obj)
    meta = _meta(pod, "Pod")
    if not meta.get("name"):
        generate = meta.get("generateName")
        if not generate:
            raise InputError('Pod "" is invalid: metadata.name: Required value: name or generateName is required')
        meta["name"] = _generated_name(generate, doc.obj)
        return PodToExplain(pod, [], doc, notes=[_random_note(pod)])
    return PodToExplain(pod, [], doc)


def _meta(obj: dict, kind: str) -> dict:
    meta = obj.get("metadata")
    if meta is None:
        meta = obj["metadata"] = {}
    if not isinstance(meta, dict):
        raise InputError(f"{kind}: metadata must be a mapping")
    if kind != "Pod" and not meta.get("name"):
        raise InputError(f"{kind} has no metadata.name")
    if not meta.get("namespace"):
        meta["namespace"] = DEFAULT_NAMESPACE
    if not meta.get("uid"):
        meta["uid"] = make_uid(kind, meta["namespace"], meta.get("name") or meta.get("generateName") or "")
    return meta


def _spec(obj: dict, kind: str) -> dict:
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        raise InputError(f"{kind} {obj['metadata']['name']}: spec: Required value")
    return spec


def _template(spec: dict, kind: str, name: str, path: str = "spec.template") -> dict:
    template = spec.get("template")
    if not isinstance(template, dict):
        raise InputError(f"{kind} {name}: {path}: Required value")
    tmeta = template.get("metadata")
    if tmeta is None:
        tmeta = template["metadata"] = {}
    elif not isinstance(tmeta, dict):
        raise InputError(f"{kind} {name}: {path}.metadata must be a mapping")
    tspec = template.get("spec")
    if not isinstance(tspec, dict) or not tspec.get("containers"):
        raise InputError(f"{kind} {name}: {path}.spec.containers: Required value")
    return template


def _controller_ref(owner: dict) -> dict:
    """metav1.NewControllerRef: controller and blockOwnerDeletion set."""
    meta = owner["metadata"]
    return {
        "apiVersion": owner.get("apiVersion") or _default_api_version(owner.get("kind", "")),
        "kind": owner["kind"],
        "name": meta["name"],
        "uid": meta["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def _default_api_version(kind: str) -> str:
    groups = WORKLOAD_KINDS.get(kind, ("",))
    return "v1" if groups[0] == "" else f"{groups[0]}/v1"


def _pod_from_template(owner: dict, meta: dict, kind: str, template: dict | None = None) -> dict:
    """GetPodFromTemplate: labels, annotations, finalizers, generateName ``<owner>-``, spec."""
    if template is None:
        spec = _spec(owner, kind)
        template = _template(spec, kind, meta["name"])
        _check_selector(spec, template, kind, meta["name"])
    tmeta = template.get("metadata") or {}
    pod_meta: dict[str, Any] = {"generateName": _pods_prefix(meta["name"]), "namespace": meta["namespace"]}
    if tmeta.get("labels"):
        pod_meta["labels"] = dict(tmeta["labels"])
    if tmeta.get("annotations"):
        pod_meta["annotations"] = dict(tmeta["annotations"])
    if tmeta.get("finalizers"):
        pod_meta["finalizers"] = list(tmeta["finalizers"])
    pod_meta["ownerReferences"] = [_controller_ref(owner)]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta, "spec": copy.deepcopy(template["spec"])}


_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def _pods_prefix(controller_name: str) -> str:
    # getPodsPrefix: "<name>-" when that is a valid generateName prefix (validated with the
    # trailing dash masked, as a DNS subdomain), else the bare name.
    masked = controller_name + "a"
    if len(masked) > 253 or not _DNS1123_SUBDOMAIN.match(masked):
        return controller_name
    return controller_name + "-"


def _check_selector(spec: dict, template: dict, kind: str, name: str) -> None:
    """apps/v1 validation: a selector is required, non-empty, and matches the template labels."""
    selector = spec.get("selector")
    if kind == "ReplicationController":
        labels = (template.get("metadata") or {}).get("labels") or {}
        if not selector:
            if labels:
                spec["selector"] = dict(labels)
            return
        if not isinstance(selector, dict) or any(labels.get(k) != v for k, v in selector.items()):
            raise InputError(f"{kind} {name}: spec.template.metadata.labels: Invalid value: "
                             f"`selector` does not match template `labels`")
        return
    if not selector:
        raise InputError(f"{kind} {name}: spec.selector: Required value")
    if not isinstance(selector, dict):
        raise InputError(f"{kind} {name}: spec.selector must be a mapping")
    from kschedctl.k8s.selectors import label_selector

    try:
        sel = label_selector(selector)
    except ValueError as exc:
        raise InputError(f"{kind} {name}: spec.selector: {exc}") from None
    if getattr(sel, "empty", False):
        raise InputError(f"{kind} {name}: spec.selector: Invalid value: empty selector is invalid for "
                         f"{kind.lower()}")
    labels = (template.get("metadata") or {}).get("labels") or {}
    if not sel.matches(labels):
        raise InputError(f"{kind} {name}: spec.template.metadata.labels: Invalid value: "
                         f"`selector` does not match template `labels`")


def _from_deployment(deploy: dict, meta: dict, doc: Document) -> PodToExplain:
    name = meta["name"]
    spec = _spec(deploy, "Deployment")
    template = _template(spec, "Deployment", name)
    _check_selector(spec, template, "Deployment", name)
    collision = (deploy.get("status") or {}).get("collisionCount")
    hash_ = pod_template_hash(template, collision)
    rs_template = copy.deepcopy(template)
    rs_labels = dict((template.get("metadata") or {}).get("labels") or {})
    rs_labels[POD_TEMPLATE_HASH_LABEL] = hash_
    rs_template["metadata"]["labels"] = rs_labels
    selector = copy.deepcopy(spec["selector"])
    match_labels = dict(selector.get("matchLabels") or {})
    match_labels[POD_TEMPLATE_HASH_LABEL] = hash_
    selector["matchLabels"] = match_labels
    replicas = _non_negative(spec.get("replicas"), 1)
    rs_name = f"{name}-{hash_}"
    rs_spec: dict[str, Any] = {"replicas": replicas, "selector": selector, "template": rs_template}
    if spec.get("minReadySeconds"):
        rs_spec["minReadySeconds"] = spec["minReadySeconds"]
    rs: dict[str, Any] = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": rs_name,
            "namespace": meta["namespace"],
            "uid": make_uid("ReplicaSet", meta["namespace"], rs_name),
            "labels": dict(rs_labels),
            "annotations": {
                REVISION_ANNOTATION: "1",
                DESIRED_REPLICAS_ANNOTATION: str(replicas),
                MAX_REPLICAS_ANNOTATION: str(replicas + _max_surge(spec, replicas)),
            },
            "ownerReferences": [_controller_ref(deploy)],
        },
        "spec": rs_spec,
    }
    pod = _pod_from_template(rs, rs["metadata"], "ReplicaSet", rs_template)
    pod["metadata"]["name"] = _generated_name(pod["metadata"]["generateName"], deploy)
    notes = [f"pod-template-hash {hash_} is kschedctl's (upstream hashes a Go object dump)", _random_note(pod)]
    return PodToExplain(pod, [rs, deploy], doc, notes=notes)


def _max_surge(spec: dict, replicas: int) -> int:
    strategy = spec.get("strategy") or {}
    if strategy.get("type") == "Recreate":
        return 0
    surge = (strategy.get("rollingUpdate") or {}).get("maxSurge", "25%")
    return _scaled_int_or_percent(surge, replicas, round_up=True)


def _scaled_int_or_percent(value: Any, total: int, round_up: bool) -> int:
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.endswith("%"):
        try:
            pct = int(value[:-1])
        except ValueError:
            return 0
        scaled = pct * total / 100
        return math.ceil(scaled) if round_up else math.floor(scaled)
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return 0


def _from_statefulset(sts: dict, meta: dict, doc: Document) -> PodToExplain:
    name = meta["name"]
    spec = _spec(sts, "StatefulSet")
    template = _template(spec, "StatefulSet", name)
    _check_selector(spec, template, "StatefulSet", name)
    ordinal = ((spec.get("ordinals") or {}).get("start")) or 0
    if type(ordinal) is not int or ordinal < 0:
        raise InputError(f"StatefulSet {name}: spec.ordinals.start must be a non-negative integer")
    pod = _pod_from_template(sts, meta, "StatefulSet", template)
    pmeta = pod["metadata"]
    pod_name = f"{name}-{ordinal}"
    del pmeta["generateName"]
    pmeta["name"] = pod_name
    labels = mapping_at(pmeta, "labels")
    labels[STATEFULSET_POD_NAME_LABEL] = pod_name
    labels[POD_INDEX_LABEL] = str(ordinal)
    revision = f"{name}-{statefulset_revision_hash(template, (sts.get('status') or {}).get('collisionCount'))}"
    labels[CONTROLLER_REVISION_HASH_LABEL] = revision
    pspec = pod["spec"]
    pspec["hostname"] = pod_name
    if spec.get("serviceName"):
        pspec["subdomain"] = spec["serviceName"]
    claims = []
    volumes_from_claims = []
    match_labels = (spec.get("selector") or {}).get("matchLabels")
    for i, tmpl in enumerate(spec.get("volumeClaimTemplates") or ()):
        if not isinstance(tmpl, dict) or not (tmpl.get("metadata") or {}).get("name"):
            raise InputError(f"StatefulSet {name}: spec.volumeClaimTemplates[{i}].metadata.name: Required value")
        claim = copy.deepcopy(tmpl)
        template_name = claim["metadata"]["name"]
        claim_name = f"{template_name}-{name}-{ordinal}"
        claim["apiVersion"] = "v1"
        claim["kind"] = "PersistentVolumeClaim"
        claim["metadata"]["name"] = claim_name
        claim["metadata"]["namespace"] = meta["namespace"]
        claim["metadata"]["uid"] = make_uid("PersistentVolumeClaim", meta["namespace"], claim_name)
        # getPersistentVolumeClaims: the template's labels plus the selector's matchLabels.
        claim_labels = dict(claim["metadata"].get("labels") or {})
        claim_labels.update(match_labels or {})
        if claim_labels:
            claim["metadata"]["labels"] = claim_labels
        mapping_at(claim, "spec")
        claim["status"] = {"phase": "Pending"}
        claims.append(claim)
        volumes_from_claims.append(
            {"name": template_name, "persistentVolumeClaim": {"claimName": claim_name}})
    if volumes_from_claims:
        taken = {v["name"] for v in volumes_from_claims}
        pspec["volumes"] = volumes_from_claims + [v for v in pspec.get("volumes") or () if v.get("name") not in taken]
    notes = [f"controller-revision-hash {revision} follows upstream's recipe but matches only a template "
             f"with every API default filled in"]
    return PodToExplain(pod, [sts], doc, objects=claims, notes=notes)


def _from_daemonset(ds: dict, meta: dict, doc: Document) -> PodToExplain:
    name = meta["name"]
    spec = _spec(ds, "DaemonSet")
    template = _template(spec, "DaemonSet", name)
    _check_selector(spec, template, "DaemonSet", name)
    hash_ = pod_template_hash(template, (ds.get("status") or {}).get("collisionCount"))
    pod = _pod_from_template(ds, meta, "DaemonSet", template)
    labels = mapping_at(pod["metadata"], "labels")
    labels[DAEMONSET_TEMPLATE_GENERATION_LABEL] = str(meta.get("generation") or 1)
    labels[CONTROLLER_REVISION_HASH_LABEL] = hash_
    pspec = pod["spec"]
    tolerations = list(pspec.get("tolerations") or ())
    wanted = list(_DAEMON_TOLERATIONS)
    if pspec.get("hostNetwork") is True:
        wanted.append(_DAEMON_HOST_NETWORK_TOLERATION)
    for key, effect in wanted:
        new = {"key": key, "operator": "Exists", "effect": effect}
        # AddOrUpdateTolerationInPodSpec: an equal toleration (ignoring tolerationSeconds) is replaced.
        for i, t in enumerate(tolerations):
            if (t.get("key") == key and (t.get("operator") or "Equal") == "Exists"
                    and (t.get("value") or "") == "" and t.get("effect") == effect):
                tolerations[i] = new
                break
        else:
            tolerations.append(new)
    pspec["tolerations"] = tolerations
    pod["metadata"]["name"] = _generated_name(pod["metadata"]["generateName"], ds)
    notes = ["the daemon controller pins each pod to one node (required node affinity on metadata.name); "
             "here the pod is explained against every node",
             f"controller-revision-hash {hash_} is kschedctl's (upstream hashes a Go object dump)",
             _random_note(pod)]
    return PodToExplain(pod, [ds], doc, notes=notes)


def _pod_from_job(job: dict, meta: dict) -> tuple[dict, list[str]]:
    name = meta["name"]
    spec = _spec(job, "Job")
    template = _template(spec, "Job", name)
    uid = meta["uid"]
    if not spec.get("manualSelector"):
        # generateSelector (API server, on create): labels on the template, selector on the uid.
        labels = mapping_at(template["metadata"], "labels")
        for key in (LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL):
            labels.setdefault(key, name)
        for key in (LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL):
            labels.setdefault(key, uid)
        mapping_at(mapping_at(spec, "selector"), "matchLabels").setdefault(CONTROLLER_UID_LABEL, uid)
    else:
        _check_selector(spec, template, "Job", name)
    template = copy.deepcopy(template)
    indexed = spec.get("completionMode") == "Indexed"
    if indexed:
        index = 0
        mapping_at(template["metadata"], "annotations")[JOB_COMPLETION_INDEX] = str(index)
        mapping_at(template["metadata"], "labels")[JOB_COMPLETION_INDEX] = str(index)
        for field_ in ("initContainers", "containers"):
            for c in template["spec"].get(field_) or ():
                env = c["env"] = list(c.get("env") or ())
                if not any(e.get("name") == "JOB_COMPLETION_INDEX" for e in env):
                    env.append({"name": "JOB_COMPLETION_INDEX", "valueFrom": {
                        "fieldRef": {"fieldPath": f"metadata.labels['{JOB_COMPLETION_INDEX}']"}}})
        template["spec"]["hostname"] = f"{name}-{index}"
    finalizers = list(template["metadata"].get("finalizers") or ())
    if JOB_TRACKING_FINALIZER not in finalizers:
        finalizers.append(JOB_TRACKING_FINALIZER)
    template["metadata"]["finalizers"] = finalizers
    pod = _pod_from_template(job, meta, "Job", template)
    if indexed:
        append = "-0-"
        prefix = name + append
        if len(prefix) > MAX_GENERATED_NAME_LENGTH:
            prefix = prefix[: MAX_GENERATED_NAME_LENGTH - len(append)] + append
        pod["metadata"]["generateName"] = prefix
    pod["metadata"]["name"] = _generated_name(pod["metadata"]["generateName"], job)
    return pod, [_random_note(pod)]


def _from_cronjob(cj: dict, meta: dict, doc: Document) -> PodToExplain:
    name = meta["name"]
    spec = _spec(cj, "CronJob")
    job_template = spec.get("jobTemplate")
    if not isinstance(job_template, dict) or not isinstance(job_template.get("spec"), dict):
        raise InputError(f"CronJob {name}: spec.jobTemplate.spec: Required value")
    _template(job_template["spec"], "CronJob", name, "spec.jobTemplate.spec.template")
    minute = _scheduled_minute(cj)
    job_name = f"{name}-{minute}"
    jt_meta = job_template.get("metadata") or {}
    job_meta: dict[str, Any] = {
        "name": job_name,
        "namespace": meta["namespace"],
        "uid": make_uid("Job", meta["namespace"], job_name),
        "ownerReferences": [_controller_ref(cj)],
    }
    if jt_meta.get("labels"):
        job_meta["labels"] = dict(jt_meta["labels"])
    if jt_meta.get("annotations"):
        job_meta["annotations"] = dict(jt_meta["annotations"])
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": job_meta,
           "spec": copy.deepcopy(job_template["spec"])}
    pod, notes = _pod_from_job(job, job_meta)
    notes.insert(0, f"Job name {job_name} uses a made-up scheduled time (upstream: minutes since the epoch "
                    f"of the scheduled run)")
    return PodToExplain(pod, [job, cj], doc, notes=notes)


# ---------------------------------------------------------------------------- names and hashes


def fnv32a(data: bytes) -> int:
    """FNV-1a, 32 bits (Go's hash/fnv New32a)."""
    h = 0x811C9DC5
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


def safe_encode(text: str) -> str:
    """rand.SafeEncodeString: each byte mapped into the vowel-free alphabet."""
    return "".join(_ALPHANUMS[b % len(_ALPHANUMS)] for b in text.encode())


def _canonical_json(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str).encode()


def _go_json(obj: Any) -> bytes:
    """json.Marshal of a map: sorted keys, compact, with Go's HTML-safe escapes."""
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    text = (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
    return text.encode()


def pod_template_hash(template: dict, collision_count: int | None = None) -> str:
    """A stand-in for controller.ComputeHash: FNV-32a of the template's canonical JSON (and
    the collision count), encoded as upstream encodes its hash."""
    data = _canonical_json(template)
    if collision_count is not None:
        data += str(collision_count).encode()
    return safe_encode(str(fnv32a(data)))


def statefulset_revision_hash(template: dict, collision_count: int | None = None) -> str:
    """history.HashControllerRevision of the revision a StatefulSet records: FNV-32a of the
    patch ``{"spec":{"template":{..., "$patch":"replace"}}}`` as Go marshals it."""
    patched = dict(template)
    patched["$patch"] = "replace"
    data = _go_json({"spec": {"template": patched}})
    if collision_count is not None:
        data += str(collision_count).encode()
    return safe_encode(str(fnv32a(data)))


def random_suffix(seed: Any, length: int = 5) -> str:
    """``length`` characters of utilrand.String's alphabet, derived from ``seed``'s hash."""
    digest = hashlib.sha256(_canonical_json(seed)).digest()
    return "".join(_ALPHANUMS[b % len(_ALPHANUMS)] for b in digest[:length])


def _generated_name(generate_name: str, seed: Any) -> str:
    """names.SimpleNameGenerator: the prefix cut to 58 characters plus 5 characters."""
    base = generate_name[:MAX_GENERATED_NAME_LENGTH]
    return base + random_suffix([generate_name, seed])


def _scheduled_minute(cj: dict) -> int:
    # Upstream: the scheduled time in minutes since the epoch; here a stable stand-in in the
    # same range (2020-2030), derived from the CronJob.
    digest = int.from_bytes(hashlib.sha256(_canonical_json(cj)).digest()[:4], "big")
    return 26_297_280 + digest % 5_259_600


def _random_note(pod: dict) -> str:
    return f"pod name {pod['metadata']['name']} ends in 5 characters upstream draws at random"


def _group(api_version: str) -> str:
    return api_version.split("/", 1)[0] if "/" in api_version else ""
