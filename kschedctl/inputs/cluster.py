"""The cluster state: every object the scheduler reads, as the API server would hold it.

``ClusterState.from_documents(docs)`` sorts documents by kind into collections, applies the
defaults and admission the API server would have applied (so hand-written fixtures behave
like objects read from a live cluster), and checks the fields a user can get wrong with a
``file:line`` error. Objects stay plain dicts; the loader's dicts are changed in place (no
copies: 50,000 pods must load in seconds).

What the API server would add, and kschedctl adds when missing:

- Pod: ``metadata.namespace`` "default", ``metadata.uid`` (made from namespace and name so
  runs are reproducible), ``spec.schedulerName`` "default-scheduler", requests defaulted from
  limits per container and at pod level (SetDefaults_Pod; PodLevelResources is on in v1.34),
  ``hostPort`` = ``containerPort`` with ``hostNetwork``, and ``spec.priority`` /
  ``spec.preemptionPolicy`` / ``spec.priorityClassName`` from the Priority admission plugin
  (after all documents are read: PriorityClasses may come after the pods). A pod already
  carrying ``spec.priority`` was admitted before and keeps it.
- Node: ``status.allocatable`` = ``status.capacity`` when missing (SetDefaults_NodeStatus).
- Namespace: the ``kubernetes.io/metadata.name`` label; namespaces that pods use but the
  input lacks are created (a pod cannot exist without its namespace), and "default" always.
- PersistentVolume(Claim): ``status.phase`` Pending, ``spec.volumeMode`` Filesystem;
  StorageClass: ``volumeBindingMode`` Immediate, ``reclaimPolicy`` Delete; CSIDriver:
  ``attachRequired`` true, ``storageCapacity`` false; PriorityClass: ``preemptionPolicy``
  PreemptLowerPriority; ReplicationController: ``spec.selector`` = template labels.

Other kinds are counted in ``ignored_kinds`` and reported once per kind in ``warnings``.
"""

from __future__ import annotations

import gc
import uuid
from itertools import repeat
from typing import AbstractSet, Any, Iterable

from kschedctl.errors import InputError, QuantityError
from kschedctl.fastpaths import settings as fast_path_settings
from kschedctl.inputs.kinds import KIND_BY_NAME, KINDS
from kschedctl.inputs.shapes import check_dra, check_node, check_pod
from kschedctl.inputs.loader import Document, field_line, gc_paused, load_documents
from kschedctl.inputs.sharing import PartTable
from kschedctl.k8s.defaults import DEFAULT_SCHEDULER_NAME
from kschedctl.k8s.quantity import nanos

__all__ = [
    "ClusterState",
    "load_cluster",
    "admit",
    "admit_pod",
    "waits_for_scheduler",
    "default_pod",
    "make_uid",
    "DEFAULT_NAMESPACE",
    "DEFAULT_SCHEDULER_NAME",
]

DEFAULT_NAMESPACE = "default"
#: Label the API server puts on every namespace (NamespaceDefaultLabelName).
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"

#: Kinds a workload file may bring along as owners; they join quietly (never "ignored").
_OWNER_KINDS = frozenset({"Deployment", "DaemonSet", "Job", "CronJob"})

_TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_UID_NAMESPACE = uuid.UUID("5f1c2a4e-6d1b-4c8e-9a52-3b7d0e1f9c10")


def make_uid(kind: str, namespace: str, name: str) -> str:
    """A UUID for an object that has none: the same for the same kind, namespace and name."""
    return str(uuid.uuid5(_UID_NAMESPACE, f"{kind}/{namespace}/{name}"))


def _group(api_version: Any) -> str:
    if not isinstance(api_version, str) or "/" not in api_version:
        return ""
    return api_version.split("/", 1)[0]


_ABSENT = object()


class ClusterState:
    """Every object of the cluster the scheduler reads, grouped by kind.

    ``nodes`` and ``pods`` are lists in input order (``node_by_name`` indexes nodes);
    cluster-scoped kinds are dicts by name, namespaced kinds dicts by ``"namespace/name"``.
    """

    def __init__(self) -> None:
        self.nodes: list[dict] = []
        self.node_by_name: dict[str, dict] = {}
        self.pods: list[dict] = []
        self.namespaces: dict[str, dict] = {}
        self.pvs: dict[str, dict] = {}
        self.pvcs: dict[str, dict] = {}
        self.storage_classes: dict[str, dict] = {}
        self.csinodes: dict[str, dict] = {}
        self.csidrivers: dict[str, dict] = {}
        self.volume_attachments: dict[str, dict] = {}
        self.priority_classes: dict[str, dict] = {}
        self.pdbs: dict[str, dict] = {}
        self.services: dict[str, dict] = {}
        self.replication_controllers: dict[str, dict] = {}
        self.replica_sets: dict[str, dict] = {}
        self.stateful_sets: dict[str, dict] = {}
        self.pod_groups: dict[str, dict] = {}
        self.elastic_quotas: dict[str, dict] = {}
        self.node_resource_topologies: dict[str, dict] = {}
        self.app_groups: dict[str, dict] = {}
        self.network_topologies: dict[str, dict] = {}
        self.resource_claims: dict[str, dict] = {}
        self.resource_claim_templates: dict[str, dict] = {}
        self.device_classes: dict[str, dict] = {}
        self.resource_slices: dict[str, dict] = {}
        #: The load watcher's answer (``--metrics``) the Trimaran plugins score on, if given.
        self.metrics: Any = None
        #: Owner objects of explained workloads (Deployment, Job, ...) by "Kind/ns/name".
        self.owners: dict[str, dict] = {}
        #: kind (with the API group when a known kind comes from another group) -> count.
        self.ignored_kinds: dict[str, int] = {}
        #: Namespaces made up because pods live in them but the input has no such object.
        self.implied_namespaces: list[str] = []
        self.warnings: list[str] = []
        #: What reading the objects changed and the user should know (e.g. fields dropped).
        self._input_notes: list[str] = []
        self._pod_keys: dict[str, Document | None] = {}
        self._sources: dict[tuple[str, str], Document] = {}
        #: While ``from_documents`` reads: the parts its pods share (``inputs.sharing``).
        self._parts: PartTable | None = None

    # ------------------------------------------------------------------ building

    @classmethod
    def from_documents(cls, docs: Iterable[Document]) -> "ClusterState":
        """The cluster state of ``docs``: sorted by kind, defaulted, admitted, validated."""
        state = cls()
        parts = PartTable() if fast_path_settings().shared_parts else None
        with gc_paused():
            pods: list[tuple[dict, Document | None]] = []
            state._parts = parts  # pods' parts shared as they are added (``_add``)
            try:
                for doc in docs:
                    obj = state._add(doc.obj, doc)
                    if obj is not None and doc.obj.get("kind") == "Pod":
                        pods.append((obj, doc))
            finally:
                state._parts = None
            if parts is not None:
                parts.finish()
            state._finish(pods)
        return state

    def add_object(self, obj: dict, doc: Document | None = None) -> None:
        """Add one object in place (defaulted and validated as in ``from_documents``).

        Owner kinds the scheduler does not read (Deployment, DaemonSet, Job, CronJob) are
        kept in ``owners`` without a warning: they come with an explained workload.
        """
        kind = obj.get("kind")
        if kind in _OWNER_KINDS:
            self._add_owner(obj)
            return
        with gc_paused():
            added = self._add(obj, doc, replace=True)
            self._finish([(added, doc)] if added is not None and kind == "Pod" else [])

    def remove_object(self, kind: str, key: str) -> dict | None:
        """Take out the object ``kind`` ``key`` ("ns/name", or the name of a cluster-scoped kind) in
        place, as its deletion from the API server would; the object removed, or None."""
        entry = KIND_BY_NAME.get(kind)
        if entry is None:
            return None
        if kind == "Pod":
            if self._pod_keys.pop(key, _ABSENT) is _ABSENT:
                return None
            removed = next((p for p in self.pods if _key_of(p) == key), None)
            self.pods = [p for p in self.pods if p is not removed]
            return removed
        if kind == "Node":
            node = self.node_by_name.pop(key, None)
            if node is not None:
                self.nodes = [n for n in self.nodes if n is not node]
            return node
        self._sources.pop((kind, key), None)
        return getattr(self, entry.collection).pop(key, None)

    def _add_owner(self, obj: dict) -> None:
        meta = obj.get("metadata") or {}
        key = f"{obj.get('kind')}/{meta.get('namespace') or DEFAULT_NAMESPACE}/{meta.get('name', '')}"
        self.owners[key] = obj

    def with_objects(self, objects: Iterable[dict]) -> "ClusterState":
        """A copy with ``objects`` added (the original is unchanged; objects are not copied).

        Meant for the owners a workload brings along (a Deployment's ReplicaSet, ...):
        owner kinds the scheduler does not read are kept in ``owners`` without a warning.
        """
        new = self.copy()
        pods = []
        for obj in objects:
            kind = obj.get("kind")
            if kind in _OWNER_KINDS:
                new._add_owner(obj)
                continue
            added = new._add(obj, None, replace=True)
            if added is not None and kind == "Pod":
                pods.append((added, None))
        new._finish(pods)
        return new

    def with_documents(self, docs: Iterable[Document]) -> "ClusterState":
        """A copy with the objects of ``docs`` added or replacing those of the same kind and name
        (``kubectl apply`` of a pod's file): errors name each object's file and line."""
        new = self.copy()
        for doc in docs:
            new._add(doc.obj, doc, replace=True)
        new._finish([])
        return new

    def copy(self) -> "ClusterState":
        """A shallow copy: new collections holding the same object dicts."""
        new = ClusterState.__new__(ClusterState)
        for key, value in self.__dict__.items():
            if isinstance(value, (list, dict)):
                value = value.copy()
            new.__dict__[key] = value
        return new

    def drop(self, pods: Iterable[str] = (), nodes: Iterable[str] = ()) -> None:
        """Remove pods (by "namespace/name") and nodes (by name) in place, with the objects the
        kubelet publishes for a node (CSINode, NodeResourceTopology, node-local ResourceSlices)."""
        gone_pods, gone_nodes = set(pods), set(nodes)
        if gone_pods:
            self.pods = [p for p in self.pods if _key_of(p) not in gone_pods]
            self._pod_keys = {k: v for k, v in self._pod_keys.items() if k not in gone_pods}
        if gone_nodes:
            self.nodes = [n for n in self.nodes if n["metadata"]["name"] not in gone_nodes]
            for name in gone_nodes:
                self.node_by_name.pop(name, None)
                self.csinodes.pop(name, None)
                self.node_resource_topologies.pop(name, None)
            self.resource_slices = {k: s for k, s in self.resource_slices.items()
                                    if (s.get("spec") or {}).get("nodeName") not in gone_nodes}
        self.warnings = self._make_warnings()

    def _add(self, obj: dict, doc: Document | None, replace: bool = False) -> dict | None:
        kind = obj.get("kind")
        if not isinstance(kind, str) or not kind:
            self.ignored_kinds["(no kind)"] = self.ignored_kinds.get("(no kind)", 0) + 1
            return None
        entry = KIND_BY_NAME.get(kind)
        if entry is None:
            if kind.endswith("List") and isinstance(obj.get("items"), list):
                for item in obj["items"]:
                    if isinstance(item, dict):
                        self._add(item, doc)
                return None
            self.ignored_kinds[kind] = self.ignored_kinds.get(kind, 0) + 1
            return None
        attr, namespaced = entry.collection, entry.namespaced
        api_version = obj.get("apiVersion")
        if api_version and _group(api_version) not in entry.groups:
            label = f"{kind} ({api_version})"
            self.ignored_kinds[label] = self.ignored_kinds.get(label, 0) + 1
            return None
        meta = obj.get("metadata")
        if meta is None:
            meta = obj["metadata"] = {}
        elif not isinstance(meta, dict):
            raise _err(doc, f"{kind}: metadata must be a mapping")
        name = meta.get("name")
        if not name or not isinstance(name, str):
            raise _err(doc, f"{kind} has no metadata.name")
        if doc is None or not doc.gated:  # json_gate checks label values as this does
            _check_labels(meta, kind, doc)
        if namespaced:
            ns = meta.get("namespace")
            if not ns:
                ns = meta["namespace"] = DEFAULT_NAMESPACE
            elif not isinstance(ns, str):
                raise _err(doc, f"{kind} {name}: metadata.namespace must be a string")
            key = f"{ns}/{name}"
        else:
            key = name
        parts = self._parts
        if parts is not None and kind == "Pod":
            # Shared as read, so that a replica's containers come defaulted by its template's first pod.
            _pod_defaults(obj, doc, parts.share_pod(obj))
            parts.defaulted_pod(obj)
        else:
            defaulter = _DEFAULTERS.get(kind)
            if defaulter is not None:
                notes = defaulter(obj, doc)
                if notes:
                    self._input_notes.extend(notes)
        if kind == "Pod":
            if key in self._pod_keys:
                if not replace:
                    raise _duplicate(doc, kind, key, self._pod_keys[key])
                self.pods = [p for p in self.pods if _key_of(p) != key]
            self._pod_keys[key] = doc
            self.pods.append(obj)
            return obj
        if kind == "Node":
            if key in self.node_by_name:
                if not replace:
                    raise _duplicate(doc, kind, key, self._sources.get((kind, key)))
                self.nodes = [obj if n is self.node_by_name[key] else n for n in self.nodes]
            else:
                self.nodes.append(obj)
            self.node_by_name[key] = obj
        else:
            coll: dict[str, dict] = getattr(self, attr)
            if key in coll and not replace:
                raise _duplicate(doc, kind, key, self._sources.get((kind, key)))
            coll[key] = obj
        if doc is not None:
            self._sources[(kind, key)] = doc
        return obj

    def _finish(self, pods: list[tuple[dict, Document | None]]) -> None:
        """Admission for new pods (all PriorityClasses known by now), implied namespaces, warnings."""
        resolved: dict[str, tuple[str, int, str]] = {}  # class name -> its priority, for every pod
        classes = None
        used = {DEFAULT_NAMESPACE}
        for pod, doc in pods:
            used.add(pod["metadata"]["namespace"])
            if pod["spec"].get("priority") is not None:
                continue  # admitted when it was created (``_admit_priority`` with ``existing``)
            if classes is None:
                from kschedctl.k8s.priority import admit_priority

                classes = self.priority_classes or {}
            try:
                admit_priority(pod, classes, resolved)
            except InputError as exc:
                raise exc.at(doc.file if doc else None, doc.line if doc else None) from None
        for ns in sorted(used):
            if ns not in self.namespaces:
                self.namespaces[ns] = {
                    "apiVersion": "v1",
                    "kind": "Namespace",
                    "metadata": {"name": ns, "labels": {NAMESPACE_NAME_LABEL: ns}},
                    "status": {"phase": "Active"},
                }
                self.implied_namespaces.append(ns)
        self.warnings = self._make_warnings()

    def _make_warnings(self) -> list[str]:
        out = list(self._input_notes)
        for kind, count in sorted(self.ignored_kinds.items()):
            out.append(f"ignored {count} {kind} object(s) (kind not used by the scheduler)")
        # The node names first (a set: a few per node), the pods counted only for those missing.
        named = {spec.get("nodeName") for spec in map(dict.get, self.pods, repeat("spec")) if spec}
        named.difference_update(self.node_by_name)
        named.discard(None)
        named.discard("")
        missing: dict[str, int] = dict.fromkeys(named, 0)
        if missing:
            for pod in self.pods:
                node = (pod.get("spec") or {}).get("nodeName")
                if node in missing:
                    missing[node] += 1
        for node, count in sorted(missing.items()):
            out.append(f"{count} pod(s) run on node {node!r}, which is not in the cluster state")
        return out

    # ------------------------------------------------------------------ reading

    def has_pod(self, key: str) -> bool:
        """Whether a pod "namespace/name" is in the state (without walking the pods)."""
        return key in self._pod_keys

    def source(self, kind: str, key: str) -> Document | None:
        """The document an object came from (``key`` is "ns/name" or the name), if known."""
        if kind == "Pod":
            return self._pod_keys.get(key)
        return self._sources.get((kind, key))

    def of_kind(self, kind: str) -> list[dict]:
        """Every object of ``kind`` (a kind of ``kinds.KINDS``), in input order."""
        entry = KIND_BY_NAME.get(kind)
        if entry is None:
            return [o for k, o in self.owners.items() if k.startswith(kind + "/")]
        coll = getattr(self, entry.collection)
        return list(coll) if isinstance(coll, list) else list(coll.values())

    def namespace_labels(self, namespace: str) -> dict[str, str]:
        """Labels of a namespace ({} when unknown)."""
        ns = self.namespaces.get(namespace)
        return ((ns or {}).get("metadata") or {}).get("labels") or {}

    def counts(self) -> dict[str, int]:
        """How many objects of each kind the state holds (kinds with none are left out)."""
        out = {}
        for kind in KINDS:
            n = len(getattr(self, kind.collection))
            if n:
                out[kind.kind] = n
        return out

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v}" for k, v in self.counts().items())
        return f"ClusterState({inner})"


def load_cluster(paths: Iterable[str], stdin: Any = None) -> ClusterState:
    """Read ``paths`` (files, directories, ``-``) into a ``ClusterState``.

    Raises ``InputError`` when the paths hold no objects at all. The objects read are
    moved out of the garbage collector's sight (``gc.freeze``): they live as long as the
    process, and every later collection would otherwise walk all of them again.
    """
    paths = [str(p) for p in paths]
    with gc_paused():
        docs = load_documents(paths, stdin=stdin)
        if not docs:
            raise InputError("no objects found (expected Nodes, Pods, ...)", ", ".join(paths) or None)
        state = ClusterState.from_documents(docs)
        gc.freeze()
    return state


# ---------------------------------------------------------------------------- pods


def admit_pod(pod: dict, cluster: Any = None, *, existing: bool = False) -> dict:
    """What the API server does to a pod on create, in place (returns ``pod``).

    Defaults (``default_pod``), then the Priority admission plugin with the cluster's
    PriorityClasses. With ``existing`` (a pod read from the cluster state) a pod that already
    has ``spec.priority`` keeps it, since it was admitted when it was created.
    """
    try:
        default_pod(pod)
    except InputError as exc:
        raise _in_pod(pod, exc) from None
    _admit_priority(pod, cluster, existing=existing)
    return pod


def admit(pod: dict, cluster: Any) -> dict:
    """A copy of a new ``pod`` as the API server would store it before the scheduler sees it.

    Defaults and priority from its PriorityClass (``admit_pod``), then v1.34's merge of
    podAffinity ``matchLabelKeys`` / ``mismatchLabelKeys`` into the label selectors, which the API
    server does on create (pods of the cluster state were created that way already). The one
    home of a new pod's admission: explain, simulate, capacity and steps all go through it.
    """
    import copy

    from kschedctl.k8s.admission import merge_match_label_keys

    return merge_match_label_keys(admit_pod(copy.deepcopy(pod), cluster))


#: Phases of a pod that has finished: the scheduler never sees it again.
TERMINAL_PHASES = frozenset({"Succeeded", "Failed"})


def waits_for_scheduler(pod: dict) -> bool:
    """Whether ``pod`` is pending for the scheduler: not bound to a node, not terminating, not
    finished (the pending-pod predicate of explain --pending, simulate, replay and steps)."""
    return (not (pod.get("spec") or {}).get("nodeName") and not (pod.get("metadata") or {}).get("deletionTimestamp")
            and (pod.get("status") or {}).get("phase") not in TERMINAL_PHASES)


def _admit_priority(pod: dict, cluster: Any, *, existing: bool,
                    resolved: dict[str, tuple[str, int, str]] | None = None) -> None:
    if existing and pod["spec"].get("priority") is not None:
        return
    from kschedctl.k8s.priority import admit_priority

    admit_priority(pod, getattr(cluster, "priority_classes", None) or {}, resolved)


def _in_pod(pod: dict, exc: InputError) -> InputError:
    """``exc`` with the pod named in front of its message (once)."""
    meta = pod.get("metadata") if isinstance(pod.get("metadata"), dict) else {}
    name = meta.get("name") or meta.get("generateName") or "?"
    prefix = f"Pod {meta.get('namespace') or DEFAULT_NAMESPACE}/{name}: "
    if not exc.message.startswith(prefix):
        exc.message = prefix + exc.message
        exc.args = (exc.message,)
    return exc


def default_pod(pod: dict, *, shapes_checked: bool = False, defaulted: AbstractSet[str] = frozenset()) -> dict:
    """API defaulting that matters to scheduling, in place: namespace, uid, schedulerName,
    requests from limits (containers and pod level), host ports under hostNetwork.

    ``shapes_checked``: the pod's field types were checked already (``json_gate``).
    ``defaulted``: the containers fields (``containers``, ``initContainers``) holding a list
    defaulted (and checked) already, as this pod's would be (one its template's pods share).
    """
    meta = pod.get("metadata")
    if meta is None:
        meta = pod["metadata"] = {}
    ns = meta.get("namespace")
    if not ns:
        ns = meta["namespace"] = DEFAULT_NAMESPACE
    if not meta.get("uid"):
        meta["uid"] = make_uid("Pod", ns, meta.get("name") or meta.get("generateName") or "")
    spec = pod.get("spec")
    if spec is None:
        spec = pod["spec"] = {}
    elif not isinstance(spec, dict):
        raise InputError("spec must be a mapping")
    if not shapes_checked:
        check_pod(pod)
    if not spec.get("schedulerName"):
        spec["schedulerName"] = DEFAULT_SCHEDULER_NAME
    host_network = spec.get("hostNetwork") is True
    for field in ("containers", "initContainers"):
        containers = spec.get(field)
        if not containers or field in defaulted:
            continue
        if not isinstance(containers, list):
            raise InputError(f"spec.{field} must be a list")
        for i, c in enumerate(containers):
            if not isinstance(c, dict):
                raise InputError(f"spec.{field}[{i}] must be a mapping")
            res = c.get("resources")
            if res:
                _check_resources(res, f"spec.{field}[{i}].resources")
                limits = res.get("limits")
                if limits:
                    requests = res.get("requests")
                    if requests is None:
                        requests = res["requests"] = {}
                    for key, value in limits.items():
                        if key not in requests:
                            requests[key] = value
            if host_network:
                for port in c.get("ports") or ():
                    if isinstance(port, dict) and not port.get("hostPort"):
                        port["hostPort"] = port.get("containerPort")
    overhead = spec.get("overhead")
    if overhead:
        _check_resource_list(overhead, "spec.overhead")
    pod_res = spec.get("resources")
    if pod_res:
        _check_resources(pod_res, "spec.resources")
        if pod_res.get("limits"):
            _default_pod_level_requests(pod)
    return pod


def _default_pod_level_requests(pod: dict) -> None:
    """SetDefaults_Pod for pod-level resources: requests default to the containers' aggregated
    requests, else to the pod-level limits, for cpu, memory and hugepages."""
    from kschedctl.k8s.quantity import format_quantity
    from kschedctl.k8s.resources import is_supported_pod_level_resource, pod_request_list

    res = pod["spec"]["resources"]
    requests = dict(res.get("requests") or {})
    aggregated = pod_request_list(pod, use_status_resources=False, skip_pod_level_resources=True,
                                  exclude_overhead=True)
    for name, value in aggregated.items():
        if name not in requests and is_supported_pod_level_resource(name):
            requests[name] = format_quantity(value)
    for name, value in res["limits"].items():
        if name not in requests and is_supported_pod_level_resource(name):
            requests[name] = value
    if requests:
        res["requests"] = requests


# ---------------------------------------------------------------------------- validation


def _key_of(pod: dict) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace') or DEFAULT_NAMESPACE}/{meta.get('name')}"


def _err(doc: Document | None, message: str) -> InputError:
    return InputError(message, doc.file if doc else None, doc.line if doc else None)


def _duplicate(doc: Document | None, kind: str, key: str, first: Document | None) -> InputError:
    where = f" (first at {first.where})" if first is not None else ""
    return _err(doc, f"duplicate {kind} {key}{where}")


def _check_labels(meta: dict, kind: str, doc: Document | None) -> None:
    for field in ("labels", "annotations"):
        values = meta.get(field)
        if values is None:
            continue
        if not isinstance(values, dict):
            raise _err(doc, f"{kind} {meta.get('name')}: metadata.{field} must be a mapping")
        for k, v in values.items():
            if type(v) is not str:
                hint = f' (quote it: "{_yaml_text(v)}")' if isinstance(v, (bool, int, float)) else ""
                raise _err(doc, f"{kind} {meta.get('name')}: metadata.{field}.{k} must be a string, "
                                f"not {_yaml_text(v)}{hint}")


def _yaml_text(v: Any) -> str:
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return "null"
    return str(v)


def _check_resource_list(values: Any, path: str) -> None:
    if not isinstance(values, dict):
        raise InputError(f"{path} must be a mapping of resource name to quantity")
    for name, value in values.items():
        try:
            nanos(value)
        except QuantityError as exc:
            raise InputError(f"{path}.{name}: {exc.message}") from None


def _check_resources(res: Any, path: str) -> None:
    if not isinstance(res, dict):
        raise InputError(f"{path} must be a mapping")
    for key in ("requests", "limits"):
        values = res.get(key)
        if values:
            _check_resource_list(values, f"{path}.{key}")


def _pod_defaults(pod: dict, doc: Document | None, defaulted: AbstractSet[str] = frozenset()) -> None:
    try:
        default_pod(pod, shapes_checked=doc is not None and doc.gated, defaulted=defaulted)
        spec = pod["spec"]
        node_name = spec.get("nodeName")
        if node_name is not None and not isinstance(node_name, str):
            raise InputError("spec.nodeName must be a string")
        _check_tolerations(spec.get("tolerations"))
        priority = spec.get("priority")
        if priority is not None and (type(priority) is not int or not -(2**31) <= priority < 2**31):
            raise InputError(f"spec.priority must be a 32-bit integer, not {priority!r}")
    except InputError as exc:
        raise _in_pod(pod, exc).at(doc.file if doc else None, field_line(doc, exc.message) if doc else None) from None


def _check_tolerations(tolerations: Any) -> None:
    if tolerations is None:
        return
    if not isinstance(tolerations, list):
        raise InputError("spec.tolerations must be a list")
    for i, t in enumerate(tolerations):
        if not isinstance(t, dict):
            raise InputError(f"spec.tolerations[{i}] must be a mapping")
        op = t.get("operator") or "Equal"
        if op not in ("Equal", "Exists"):
            raise InputError(f'spec.tolerations[{i}].operator: Unsupported value: "{op}": '
                             f'supported values: "Equal", "Exists"')
        if op == "Exists" and t.get("value"):
            raise InputError(f"spec.tolerations[{i}].operator: Invalid value: \"{t.get('value')}\": "
                             f"value must be empty when `operator` is 'Exists'")
        effect = t.get("effect")
        if effect and effect not in _TAINT_EFFECTS:
            raise InputError(f'spec.tolerations[{i}].effect: Unsupported value: "{effect}": '
                             f'supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"')


def _node_defaults(node: dict, doc: Document | None) -> None:
    name = node["metadata"]["name"]
    try:
        status = node.get("status")
        if status is None:
            status = node["status"] = {}
        elif not isinstance(status, dict):
            raise InputError("status must be a mapping")
        for key in ("capacity", "allocatable"):
            values = status.get(key)
            if values is not None:
                _check_resource_list(values, f"status.{key}")
        if status.get("allocatable") is None and status.get("capacity") is not None:
            status["allocatable"] = dict(status["capacity"])
        spec = node.get("spec")
        if spec is None:
            spec = node["spec"] = {}
        elif not isinstance(spec, dict):
            raise InputError("spec must be a mapping")
        if doc is None or not doc.gated:
            check_node(node)
        unschedulable = spec.get("unschedulable")
        if unschedulable is not None and not isinstance(unschedulable, bool):
            raise InputError(f"spec.unschedulable must be true or false, not {unschedulable!r}")
        taints = spec.get("taints")
        if taints is not None:
            if not isinstance(taints, list):
                raise InputError("spec.taints must be a list")
            for i, t in enumerate(taints):
                if not isinstance(t, dict):
                    raise InputError(f"spec.taints[{i}] must be a mapping")
                if not t.get("key"):
                    raise InputError(f"spec.taints[{i}].key: Required value")
                effect = t.get("effect")
                if effect not in _TAINT_EFFECTS:
                    raise InputError(f'spec.taints[{i}].effect: Unsupported value: "{effect or ""}": '
                                     f'supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"')
    except InputError as exc:
        exc.message = f"Node {name}: {exc.message}"
        exc.args = (exc.message,)
        raise exc.at(doc.file if doc else None, field_line(doc, exc.message) if doc else None) from None


def _namespace_defaults(ns: dict, doc: Document | None) -> None:
    meta = ns["metadata"]
    labels = meta.get("labels")
    if labels is None:
        labels = meta["labels"] = {}
    labels[NAMESPACE_NAME_LABEL] = meta["name"]


def _volume_mode_default(obj: dict, doc: Document | None) -> None:
    spec = obj.get("spec")
    if spec is None:
        spec = obj["spec"] = {}
    if isinstance(spec, dict) and not spec.get("volumeMode"):
        spec["volumeMode"] = "Filesystem"
    status = obj.get("status")
    if status is None:
        status = obj["status"] = {}
    if isinstance(status, dict) and not status.get("phase"):
        status["phase"] = "Pending"
    if obj.get("kind") == "PersistentVolume" and isinstance(spec, dict):
        spec.setdefault("persistentVolumeReclaimPolicy", "Retain")
        capacity = spec.get("capacity")
        if capacity:
            try:
                _check_resource_list(capacity, "spec.capacity")
            except InputError as exc:
                raise _err(doc, f"PersistentVolume {obj['metadata']['name']}: {exc.message}") from None
    elif isinstance(spec, dict):
        if spec.get("volumeName") and isinstance(status, dict) and status.get("phase") == "Bound":
            # The PV controller annotates a claim when it completes the binding, before it sets
            # the phase: a real Bound claim always carries it, hand-written fixtures often don't.
            annotations = obj["metadata"].get("annotations")
            if not isinstance(annotations, dict):
                annotations = obj["metadata"]["annotations"] = {}
            annotations.setdefault(PVC_BIND_COMPLETED_ANNOTATION, "yes")
        requests = (spec.get("resources") or {}).get("requests") if isinstance(spec.get("resources"), dict) else None
        if requests:
            try:
                _check_resource_list(requests, "spec.resources.requests")
            except InputError as exc:
                meta = obj["metadata"]
                raise _err(doc, f"PersistentVolumeClaim {meta['namespace']}/{meta['name']}: {exc.message}") from None


#: Set by the PV controller on a claim whose binding it completed.
PVC_BIND_COMPLETED_ANNOTATION = "pv.kubernetes.io/bind-completed"


def _storage_class_defaults(sc: dict, doc: Document | None) -> None:
    if not sc.get("volumeBindingMode"):
        sc["volumeBindingMode"] = "Immediate"
    elif sc["volumeBindingMode"] not in ("Immediate", "WaitForFirstConsumer"):
        raise _err(doc, f"StorageClass {sc['metadata']['name']}: volumeBindingMode: Unsupported value: "
                        f"\"{sc['volumeBindingMode']}\": supported values: \"Immediate\", \"WaitForFirstConsumer\"")
    if not sc.get("reclaimPolicy"):
        sc["reclaimPolicy"] = "Delete"


def _csidriver_defaults(obj: dict, doc: Document | None) -> None:
    spec = obj.get("spec")
    if spec is None:
        spec = obj["spec"] = {}
    if isinstance(spec, dict):
        if spec.get("attachRequired") is None:
            spec["attachRequired"] = True
        if spec.get("storageCapacity") is None:
            spec["storageCapacity"] = False


def _priority_class_defaults(pc: dict, doc: Document | None) -> None:
    value = pc.get("value")
    if type(value) is not int:
        raise _err(doc, f"PriorityClass {pc['metadata']['name']}: value must be an integer, not {value!r}")
    if not pc.get("preemptionPolicy"):
        pc["preemptionPolicy"] = "PreemptLowerPriority"


def _rc_defaults(rc: dict, doc: Document | None) -> None:
    spec = rc.get("spec")
    if not isinstance(spec, dict):
        return
    if not spec.get("selector"):
        labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels")
        if labels:
            spec["selector"] = dict(labels)


def _dra_to_v1(obj: dict, doc: Document | None) -> list[str]:
    """resource.k8s.io objects are kept as v1, as the v1.34 API server serves them; each field of
    a DRA feature that is off by default in v1.34 is a warning naming its gate and what the
    scheduler does with it."""
    from kschedctl.k8s.dra import V1 as DRA_V1, gated_fields, to_v1

    name = f"{obj.get('kind')} {obj['metadata'].get('name')}"
    # json_gate holds resource.k8s.io/v1 objects to their shapes: a gated one read as v1 is checked.
    shapes_checked = doc is not None and doc.gated and obj.get("apiVersion") == DRA_V1
    try:
        to_v1(obj)
        if not shapes_checked:
            check_dra(obj)
        _check_dra_values(obj)
    except InputError as exc:
        raise _err(doc, f"{name}: {exc.message}") from None
    gated = gated_fields(obj)
    if not gated:
        return []
    # Only now: the line of an item of a JSON List is found by scanning the whole file.
    where = f"{doc.file}:{doc.line}: " if doc is not None else ""
    return [f"{where}{name}: {field} needs the feature gate {gate} (alpha, off by default in v1.34): {effect}"
            for field, gate, effect in gated]


#: resourceapi.CELSelectorExpressionMaxLength: longer selectors are refused by the API server.
_CEL_MAX_LENGTH = 10 * 1024


def _check_selectors(selectors: Any, path: str) -> None:
    for i, selector in enumerate(selectors or ()):
        expression = ((selector or {}).get("cel") or {}).get("expression")
        if isinstance(expression, str) and len(expression.encode("utf-8")) > _CEL_MAX_LENGTH:
            raise InputError(f"{path}[{i}].cel.expression: Too long: may not be more than {_CEL_MAX_LENGTH} bytes")


def _check_dra_values(obj: dict) -> None:
    """The values the API server's validation would refuse and the allocator would trip on."""
    kind, spec = obj.get("kind"), obj.get("spec") or {}
    if kind == "DeviceClass":
        _check_selectors(spec.get("selectors"), "spec.selectors")
    if kind == "ResourceSlice":
        count = (spec.get("pool") or {}).get("resourceSliceCount")
        if count is not None and count < 1:
            raise InputError(f"spec.pool.resourceSliceCount must be at least 1, not {count}")
        for i, device in enumerate(spec.get("devices") or ()):
            for cap_name, cap in ((device or {}).get("capacity") or {}).items():
                try:
                    nanos((cap or {}).get("value"))
                except QuantityError as exc:
                    raise InputError(f"spec.devices[{i}].capacity.{cap_name}.value: {exc}") from None
    elif kind in ("ResourceClaim", "ResourceClaimTemplate"):
        claim_spec, path = (spec.get("spec") or {}, "spec.spec") if kind == "ResourceClaimTemplate" else (spec, "spec")
        for i, request in enumerate(((claim_spec.get("devices") or {}).get("requests")) or ()):
            for where, req in [(f"{path}.devices.requests[{i}].exactly", request.get("exactly"))] + [
                    (f"{path}.devices.requests[{i}].firstAvailable[{j}]", sub)
                    for j, sub in enumerate(request.get("firstAvailable") or ())]:
                if not req:
                    continue
                _check_selectors(req.get("selectors"), f"{where}.selectors")
                # A mode v1.34 does not know comes from a newer API server (version skew): the
                # allocator, not the input, fails that claim ("unsupported count mode").
                mode = req.get("allocationMode")
                count = req.get("count")
                if count is not None and mode in (None, "ExactCount") and count < 1:
                    raise InputError(f"{where}.count must be greater than zero, not {count}")


_DEFAULTERS = {
    "Pod": _pod_defaults,
    "Node": _node_defaults,
    "Namespace": _namespace_defaults,
    "PersistentVolume": _volume_mode_default,
    "PersistentVolumeClaim": _volume_mode_default,
    "StorageClass": _storage_class_defaults,
    "CSIDriver": _csidriver_defaults,
    "PriorityClass": _priority_class_defaults,
    "ReplicationController": _rc_defaults,
    "ResourceClaim": _dra_to_v1,
    "ResourceClaimTemplate": _dra_to_v1,
    "DeviceClass": _dra_to_v1,
    "ResourceSlice": _dra_to_v1,
}
