"""The cluster as the scheduler sees it during one cycle: NodeInfos in node-tree order.

Follows pkg/scheduler/backend/cache (node_tree.go, snapshot.go, cache.go UpdateSnapshot) of
kube-scheduler v1.34:

- nodes are listed the way upstream's ``nodeTree.list()`` lists them: zones (region + zone
  labels, ``GetZoneKey``) in order of first appearance, nodes round-robin across zones; this is
  the order filtering walks (from a rotating start index) and preemption uses;
- a pod bound to a node (``spec.nodeName``) is added to that node's NodeInfo; pods of a node that
  is not in the cluster are kept apart (upstream keeps a NodeInfo without a Node, never listed);
- image summaries: for every image name on a node, the size (from the first node that reported
  it) and how many nodes carry it (``ImageStateSummary.num_nodes``);
- the lists of nodes that have pods with (anti-)affinity, and the set of PVCs used by pods.

Everything is computed once per snapshot; ``assume``/``forget`` change it incrementally (what
the cache does when ``simulate`` places pods one after another).
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from kschedctl.framework.types import ImageStateSummary, NodeInfo, PodInfo

# Zone labels read by component-helpers/node/topology GetZoneKey (the beta labels win).
_BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
_BETA_REGION = "failure-domain.beta.kubernetes.io/region"
_ZONE = "topology.kubernetes.io/zone"
_REGION = "topology.kubernetes.io/region"

#: Pod phases the scheduler's informer never sees (its field selector drops them).
_TERMINAL_PHASES = frozenset({"Succeeded", "Failed"})


class NodeNotFound(KeyError):
    """``Snapshot.get`` of a node that is not in the snapshot (upstream: "nodeinfo not found")."""

    def __str__(self) -> str:
        return f'nodeinfo not found for node name "{self.args[0]}"'


def zone_key(node: dict) -> str:
    """Upstream ``GetZoneKey``: ``region + ":\\x00:" + zone``, or "" when neither label is set."""
    labels = (node.get("metadata") or {}).get("labels") or {}
    if not labels:
        return ""
    zone = labels[_BETA_ZONE] if _BETA_ZONE in labels else labels.get(_ZONE, "")
    region = labels[_BETA_REGION] if _BETA_REGION in labels else labels.get(_REGION, "")
    if not region and not zone:
        return ""
    # The NUL byte keeps "a:b" + "c" apart from "a" + "b:c", as upstream.
    return f"{region}:\x00:{zone}"


def _node_name(node: dict) -> str:
    return (node.get("metadata") or {}).get("name", "")


class NodeTree:
    """Node names grouped by zone; ``list()`` interleaves zones as upstream's nodeTree does."""

    __slots__ = ("tree", "zones", "num_nodes", "_members")

    def __init__(self, nodes: Iterable[dict] = ()) -> None:
        self.tree: dict[str, list[str]] = {}
        self.zones: list[str] = []
        self.num_nodes = 0
        # (zone, name) pairs in the tree: upstream's duplicate check scans the zone's list, which
        # made building the tree quadratic in the nodes of a zone (43 s of 112 at 65k nodes)
        self._members: set[tuple[str, str]] = set()
        for node in nodes:
            self.add_node(node)

    def add_node(self, node: dict) -> None:
        zone, name = zone_key(node), _node_name(node)
        key = (zone, name)
        if key in self._members:
            return  # upstream logs "already exists" and keeps the tree as it is
        self._members.add(key)
        names = self.tree.get(zone)
        if names is None:
            self.zones.append(zone)
            self.tree[zone] = [name]
        else:
            names.append(name)
        self.num_nodes += 1

    def remove_node(self, node: dict) -> None:
        """Remove a node; raises KeyError when it is not in its zone (upstream returns an error)."""
        zone, name = zone_key(node), _node_name(node)
        names = self.tree.get(zone)
        if names is None or (zone, name) not in self._members:
            raise KeyError(f'node "{name}" in group "{zone}" was not found')
        self._members.discard((zone, name))
        names.remove(name)
        if not names:
            del self.tree[zone]
            self.zones.remove(zone)
        self.num_nodes -= 1

    def update_node(self, old: dict | None, new: dict) -> None:
        """A zone change is a remove (ignoring a missing node) followed by an add, as upstream."""
        old_zone = zone_key(old) if old is not None else ""
        if old_zone == zone_key(new):
            return
        if old is not None:
            try:
                self.remove_node(old)
            except KeyError:
                pass
        self.add_node(new)

    def list(self) -> list[str]:
        """Zones round-robin: node 0 of every zone in zone order, then node 1, ..."""
        out: list[str] = []
        columns = [self.tree[z] for z in self.zones]
        depth = max((len(c) for c in columns), default=0)
        for i in range(depth):
            for column in columns:
                if i < len(column):
                    out.append(column[i])
        return out


class _ImageState:
    __slots__ = ("size", "nodes")

    def __init__(self, size: int) -> None:
        self.size = size
        self.nodes: set[str] = set()


class Snapshot:
    """NodeInfos of one scheduling cycle, built once from the nodes and the pods bound to them.

    ``pods`` may hold any PodInfos: pods without ``node_name`` (pending) and pods in a terminal
    phase (Succeeded/Failed) are not placed, as the scheduler's cache never holds them.
    """

    def __init__(self, nodes: Iterable[dict], pods: Iterable[PodInfo] = ()) -> None:
        nodes = list(nodes)
        self._tree = NodeTree(nodes)
        by_name: dict[str, NodeInfo] = {}
        node_objects: dict[str, dict] = {}
        for node in nodes:
            name = _node_name(node)
            if name in by_name:
                continue  # a duplicate name is kept once, as the cache keys nodes by name
            node_objects[name] = node
            by_name[name] = NodeInfo(node)
        self._by_name = by_name
        #: Pods bound to a node that is not in the cluster (upstream keeps them out of every list).
        self.orphan_pods: list[PodInfo] = []
        self._used_pvcs: dict[str, int] = {}
        for pod_info in pods:
            node_name = pod_info.node_name
            if not node_name:
                continue
            status = pod_info.pod.get("status")
            if status and status.get("phase") in _TERMINAL_PHASES:  # the cache never holds such a pod
                continue
            node_info = by_name.get(node_name)
            if node_info is None:
                self.orphan_pods.append(pod_info)
                continue
            node_info.add_pod_before_use(pod_info)
            if pod_info.pvc_keys:
                self._count_pvcs(pod_info, 1)
        self._images: dict[str, _ImageState] = {}
        self._fill_image_states(nodes)
        #: State plugins keep for the whole run next to the snapshot, by key (upstream: caches
        #: shared through the framework handle, e.g. the DRA manager's claims and devices in use).
        #: A value with a ``fresh()`` method can give that state as the cluster gives it, before
        #: any cycle changed it (see ``start_afresh``).
        self.shared: dict[str, Any] = {}
        self._list: list[NodeInfo] = [by_name[n] for n in self._tree.list() if n in by_name]
        self._rebuild_affinity_lists()

    def start_afresh(self) -> None:
        """Put back the plugins' shared run state as the cluster gives it (each value's
        ``fresh()``), for a question that must not see what earlier cycles did: ``explain``
        asks each pod on its own. The old objects are replaced, not changed, so results that
        still refer to them read what their cycle saw."""
        shared = self.shared
        for key, value in list(shared.items()):
            fresh = getattr(value, "fresh", None)
            if callable(fresh):
                shared[key] = fresh()

    # -- the SharedLister surface plugins use -------------------------------------------------
    def node_infos(self) -> list[NodeInfo]:
        """Every NodeInfo, in node-tree order (do not mutate the list)."""
        return self._list

    list = node_infos  # upstream spelling: NodeInfos().List()

    def get(self, name: str) -> NodeInfo:
        """The NodeInfo of ``name``; raises ``NodeNotFound`` (a KeyError) when absent."""
        try:
            return self._by_name[name]
        except KeyError:
            raise NodeNotFound(name) from None

    def get_or_none(self, name: str) -> NodeInfo | None:
        return self._by_name.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __len__(self) -> int:
        return len(self._list)

    def __iter__(self) -> Iterator[NodeInfo]:
        return iter(self._list)

    def num_nodes(self) -> int:
        return len(self._list)

    def have_pods_with_affinity_list(self) -> list[NodeInfo]:
        """Nodes with at least one pod that has pod affinity or anti-affinity."""
        if self._affinity_lists_stale:
            self._list_affinity_nodes()
        return self._with_affinity

    def have_pods_with_required_anti_affinity_list(self) -> list[NodeInfo]:
        """Nodes with at least one pod that has required pod anti-affinity."""
        if self._affinity_lists_stale:
            self._list_affinity_nodes()
        return self._with_required_anti_affinity

    def is_pvc_used_by_pods(self, key: str) -> bool:
        """Whether a bound pod uses the PVC ``"namespace/claim"`` (upstream IsPVCUsedByPods)."""
        return self._used_pvcs.get(key, 0) > 0

    def image_state(self, image: str) -> ImageStateSummary | None:
        state = self._images.get(image)
        return None if state is None else ImageStateSummary(state.size, len(state.nodes))

    # -- incremental changes (simulate) -------------------------------------------------------
    def assume(self, pod_info: PodInfo, node_name: str) -> NodeInfo:
        """Account ``pod_info`` on ``node_name`` as the cache does for an assumed pod."""
        node_info = self.get(node_name)
        node_info.add_pod(pod_info)
        self._count_pvcs(pod_info, 1)
        self._rebuild_affinity_lists()
        return node_info

    def forget(self, pod_info: PodInfo, node_name: str) -> bool:
        """Undo ``assume`` (or remove a bound pod); False when the pod was not on the node."""
        node_info = self._by_name.get(node_name)
        if node_info is None or not node_info.remove_pod(pod_info):
            return False
        self._count_pvcs(pod_info, -1)
        self._rebuild_affinity_lists()
        return True

    def assume_pod(self, pod_info: PodInfo, node_name: str) -> NodeInfo:
        """``assume`` for long batches: the same effect, but the lists of nodes with (anti-)affinity
        pods are re-listed only when this node enters one (``assume`` re-lists them every time)."""
        node_info = self.get(node_name)
        before = (bool(node_info.pods_with_affinity), bool(node_info.pods_with_required_anti_affinity))
        node_info.add_pod(pod_info)
        self._count_pvcs(pod_info, 1)
        if before != (bool(node_info.pods_with_affinity), bool(node_info.pods_with_required_anti_affinity)):
            self._rebuild_affinity_lists()
        return node_info

    def forget_pod(self, pod_info: PodInfo, node_name: str) -> bool:
        """``forget`` for long batches (also removes a bound pod, e.g. a preemption victim): the
        same effect, re-listing the affinity lists only when this node leaves one."""
        node_info = self._by_name.get(node_name)
        if node_info is None:
            return False
        before = (bool(node_info.pods_with_affinity), bool(node_info.pods_with_required_anti_affinity))
        if not node_info.remove_pod(pod_info):
            return False
        self._count_pvcs(pod_info, -1)
        if before != (bool(node_info.pods_with_affinity), bool(node_info.pods_with_required_anti_affinity)):
            self._rebuild_affinity_lists()
        return True

    def __repr__(self) -> str:
        return f"<Snapshot {len(self._list)} nodes>"

    # -- internals ----------------------------------------------------------------------------
    def _fill_image_states(self, nodes: list[dict]) -> None:
        images = self._images
        per_node: list[tuple[NodeInfo, list[str]]] = []
        for node in nodes:
            node_info = self._by_name.get(_node_name(node))
            if node_info is None or node_info.node is not node:
                continue
            names: list[str] = []
            for image in (node.get("status") or {}).get("images") or ():
                size = int(image.get("sizeBytes") or 0)
                for image_name in image.get("names") or ():
                    state = images.get(image_name)
                    if state is None:
                        state = images[image_name] = _ImageState(size)
                    state.nodes.add(node_info.name)
                    names.append(image_name)
            per_node.append((node_info, names))
        # Summaries are taken after every node is known, so num_nodes counts them all.
        summaries = {name: ImageStateSummary(s.size, len(s.nodes)) for name, s in images.items()}
        for node_info, names in per_node:
            node_info.image_states = {name: summaries[name] for name in names}

    def _rebuild_affinity_lists(self) -> None:
        # Listed when next asked for: a run whose InterPodAffinity keeps its sums across cycles
        # asks rarely, while every pod placed on a node without affinity pods yet changes them.
        self._affinity_lists_stale = True

    def _list_affinity_nodes(self) -> None:
        self._with_affinity = [n for n in self._list if n.pods_with_affinity]
        self._with_required_anti_affinity = [n for n in self._list if n.pods_with_required_anti_affinity]
        self._affinity_lists_stale = False

    def _count_pvcs(self, pod_info: PodInfo, sign: int) -> None:
        keys = pod_info.pvc_keys
        if not keys:
            return
        used = self._used_pvcs
        for key in keys:
            used[key] = used.get(key, 0) + sign

