"""The nodes of a simulate run as numpy columns, for the node-local plugins' scores.

A batch scores the same few hundred feasible nodes cycle after cycle, and only the node the last
pod went to has changed. ``NodeColumns`` keeps what the scorers read of every node as arrays in
the snapshot's node order, brought up to date from the process-wide NodeInfo change log
(``NODE_CHANGES``) before each use, and answers for all the scored nodes at once:

- NodeResourcesFit's strategies (LeastAllocated, MostAllocated, RequestedToCapacityRatio) and
  NodeResourcesBalancedAllocation, from int64 columns of allocatable, requested and non-zero
  requested cpu/memory, ephemeral storage, scalar resources and pod counts;
- TaintToleration, NodeAffinity and ImageLocality, whose Score reads the pod and the node object
  only: each node's answer is the plugin's own, asked once per pod signature and kept until that
  node object is replaced;
- PodTopologySpread's Score and NormalizeScore, from each node's topology values (codes into the
  domain counts of the cycle's PreScore state) and, for hostname constraints, each node's matching
  pods, counted again only on the nodes whose pods changed;
- the Filter verdict of a chain made of NodeResourcesFit (from the int64 columns) and
  NodeUnschedulable, NodeName, TaintToleration, NodeAffinity (each node's verdict the plugin's
  own, kept per pod signature and node object), PodTopologySpread and InterPodAffinity (from
  their PreFilter counts and each node's topology values), so that a cycle's scan finds its
  feasible nodes without a call per node; a rejected node's status still comes from the plugins.

The answers are bit for bit the per-node plugins':

- the per-node code works on Python integers, which never overflow; every amount here is checked
  to stay in [0, ``SAFE_AMOUNT``) (2**54: ``(a - (b + c)) * 100`` of three fits in an int64), and a
  node set or pod beyond it is not covered (the per-node code answers);
- integer divisions are Python's (floor), which numpy's ``//`` is too, or Go's truncation spelled
  out where the plugin uses ``go_div``;
- float sums take the same IEEE operations in the same order, element by element (no reductions
  whose order numpy picks), and rounding is the plugin's (``go_round``, half away from zero, or
  PodTopologySpread's half up of a score never negative);
- the shape function of RequestedToCapacityRatio is the plugin's own, called once per distinct
  utilization.

Anything these columns do not cover (a custom plugin or scorer, no resources, a scratch copy of a
node, a PreScore state missing, a plugin failing, a filter reading the node's pods other than
NodeResourcesFit, a nominated pod) is answered by the plugin node by node, as without them; so is
every failure message.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from kschedctl.framework.cycle_state import StateNotFound
from kschedctl.framework.status import Code
from kschedctl.framework.types import NODE_CHANGES
from kschedctl.plugins import (
    image_locality,
    inter_pod_affinity,
    node_affinity,
    node_name,
    node_resources_fit,
    node_unschedulable,
    pod_topology_spread,
    taint_toleration,
)
from kschedctl.plugins import node_resources_balanced_allocation as balanced_allocation
from kschedctl.plugins.image_locality import ImageLocality
from kschedctl.plugins.inter_pod_affinity import InterPodAffinity
from kschedctl.plugins.inter_pod_affinity import filtering as ipa_filtering
from kschedctl.plugins.node_affinity import NodeAffinity
from kschedctl.plugins.node_name import NodeName
from kschedctl.plugins.node_resources_balanced_allocation import NodeResourcesBalancedAllocation
from kschedctl.plugins.node_resources_fit import NodeResourcesFit
from kschedctl.plugins.node_unschedulable import NodeUnschedulable
from kschedctl.plugins.pod_topology_spread import PodTopologySpread
from kschedctl.plugins.pod_topology_spread.common import count_node_pods_match_selector
from kschedctl.plugins.resource_allocation import (
    RESOURCE_KIND_CPU,
    RESOURCE_KIND_EPHEMERAL,
    RESOURCE_KIND_MEMORY,
    MAX_UTILIZATION,
    ResourceAllocationScorer,
    balanced_resource_scorer,
    least_allocated_scorer,
    most_allocated_scorer,
)
from kschedctl.plugins.taint_toleration import TaintToleration

#: Amounts (and pod requests) at or above this, or negative, are left to the per-node code: below
#: it, ``(a - (b + c)) * 100`` of three amounts fits in an int64.
SAFE_AMOUNT = 2**54

_MAX_NODE_SCORE = 100

#: Pod signatures whose hostname spread counts are kept at once.
_OBJECT_SCORE_SIGNATURES = 64
#: Node-object answers kept at once (one plugin and pod signature each, an int64 and two bools per
#: node), at least ``_OBJECT_SCORE_SIGNATURES``, else as many as ``_OBJECT_CELLS`` nodes' worth:
#: a run of many kinds of pods (a scale-down search moves every app's pods in turn) keeps them all
#: on a few thousand nodes, in about 10 bytes x ``_OBJECT_CELLS`` (40 MB).
_OBJECT_CELLS = 4_000_000

# the int64 columns of every node, by position
_ALLOC_CPU, _ALLOC_MEMORY, _ALLOC_EPHEMERAL, _ALLOC_PODS = 0, 1, 2, 3
_REQ_CPU, _REQ_MEMORY, _REQ_EPHEMERAL, _NZ_CPU, _NZ_MEMORY, _POD_COUNT = 4, 5, 6, 7, 8, 9
_NUM_FIXED = 10


def _fixed_row(node_info: Any) -> tuple[int, ...]:
    alloc = node_info.allocatable
    req = node_info.requested
    nz = node_info.non_zero_requested
    return (alloc.milli_cpu, alloc.memory, alloc.ephemeral_storage, alloc.allowed_pod_number,
            req.milli_cpu, req.memory, req.ephemeral_storage, nz.milli_cpu, nz.memory, len(node_info.pods))


def _safe(values: Sequence[int]) -> bool:
    return all(0 <= v < SAFE_AMOUNT for v in values)


class _Scalar:
    """One scalar resource's columns: allocatable (and whether the node has it) and requested."""

    __slots__ = ("allocatable", "present", "requested")

    def __init__(self, size: int) -> None:
        self.allocatable = np.zeros(size, dtype=np.int64)
        self.present = np.zeros(size, dtype=bool)
        self.requested = np.zeros(size, dtype=np.int64)

    def set(self, i: int, allocatable: int | None, requested: int) -> bool:
        """Node ``i``'s amounts (``allocatable`` None: the node lacks the resource); False when
        one is outside what the columns hold exactly (the node then goes the per-node way)."""
        self.present[i] = allocatable is not None
        if allocatable is None:
            allocatable = 0
        if 0 <= allocatable < SAFE_AMOUNT and 0 <= requested < SAFE_AMOUNT:
            self.allocatable[i] = allocatable
            self.requested[i] = requested
            return True
        return False


class NodeColumns:
    """What the resource scorers read of every node of ``snapshot``, kept current."""

    def __init__(self, snapshot: Any) -> None:
        self.snapshot = snapshot
        self._nodes: list[Any] = snapshot.node_infos()
        self._count = len(self._nodes)
        self.index: dict[str, int] = {n.name: i for i, n in enumerate(self._nodes)}
        # the NodeInfos stay alive in ``_nodes``, so their ids stay theirs
        self._position_of_id: dict[int, int] = {id(n): i for i, n in enumerate(self._nodes)}
        self._every_position = np.arange(self._count, dtype=np.intp)
        self.fixed = np.zeros((_NUM_FIXED, self._count), dtype=np.int64)
        self.scalars: dict[str, _Scalar] = {}
        self._unsafe: set[int] = set()
        # what each node's object was when its node-object scores were taken (see object_scores)
        self._objects: list[Any] = [n.node for n in self._nodes]
        self._object_scores: dict[tuple, tuple[np.ndarray, ...]] = {}
        self._object_entries = max(_OBJECT_SCORE_SIGNATURES, _OBJECT_CELLS // max(self._count, 1))
        # per topology key: each node's value as a code into the list of values (-1: no label)
        self._label_codes: dict[str, tuple[np.ndarray, list[str], dict[str, int]]] = {}
        # per (selector key, namespace): each node's matching pods, and the generation counted at
        self._host_counts: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self.generations = np.array([n.generation for n in self._nodes], dtype=np.int64)
        self._seen = NODE_CHANGES.count
        self._load_all()

    # -- keeping current ----------------------------------------------------------------------
    def _load_all(self) -> None:
        self._unsafe.clear()
        for i, node_info in enumerate(self._nodes):
            self._load(i, node_info)
        for name in list(self.scalars):
            self._fill_scalar(name)

    def _load(self, i: int, node_info: Any) -> None:
        row = _fixed_row(node_info)
        ok = _safe(row)
        if ok:
            self.fixed[:, i] = row
        scalars = self.scalars
        if scalars:
            alloc = node_info.allocatable.scalar_resources
            used = node_info.requested.scalar_resources
            for name, column in scalars.items():
                if not column.set(i, alloc.get(name), used.get(name, 0)):
                    ok = False
        if ok:
            self._unsafe.discard(i)
        else:
            self._unsafe.add(i)

    def _fill_scalar(self, name: str) -> _Scalar:
        column = self.scalars[name] = _Scalar(self._count)
        for i, node_info in enumerate(self._nodes):
            if not column.set(i, node_info.allocatable.scalar_resources.get(name),
                              node_info.requested.scalar_resources.get(name, 0)):
                self._unsafe.add(i)
        return column

    def refresh(self) -> bool:
        """Bring the columns up to date with the snapshot's NodeInfos; False when the snapshot's
        node list itself changed (the columns then no longer apply)."""
        nodes = self.snapshot.node_infos()
        if nodes is not self._nodes or len(nodes) != self._count:
            return False
        changed = NODE_CHANGES.since(self._seen)
        self._seen = NODE_CHANGES.count
        if changed is None:
            self._load_all()
            self._objects = [n.node for n in self._nodes]
            self._object_scores.clear()
            self._label_codes.clear()
            self.generations[:] = [n.generation for n in self._nodes]
            return True
        index = self.index
        for node_info in changed:
            i = index.get(node_info.name)
            # scratch copies (preemption's dry runs, nominated pods added) are logged too
            if i is not None and nodes[i] is node_info:
                self._load(i, node_info)
                self.generations[i] = node_info.generation
                if node_info.node is not self._objects[i]:
                    self._replaced(i, node_info)
        return True

    def _replaced(self, i: int, node_info: Any) -> None:
        """Node ``i``'s object was replaced (cordoned, relabelled, tainted): only its own
        node-object answers are asked again. Those answers read the node object and the node's
        image states, and the image states (with their spread over the nodes) are taken once,
        when the snapshot is built; so no other node's answer changes."""
        old = self._objects[i]
        self._objects[i] = node_info.node
        for cache in self._object_scores.values():
            cache[1][i] = False  # not known
        if ((old or {}).get("metadata") or {}).get("labels") != node_info.labels:
            self._label_codes.clear()

    def positions(self, nodes: Sequence[Any]) -> np.ndarray | None:
        """The positions of ``nodes`` (snapshot NodeInfos) in the columns; None when one of them
        is not a snapshot node or holds an amount beyond ``SAFE_AMOUNT``."""
        if nodes is self._nodes and not self._unsafe:
            return self._every_position
        # by identity: a scratch copy of a node (same name) is not the snapshot's NodeInfo
        where = list(map(self._position_of_id.get, map(id, nodes)))
        if None in where:
            return None
        if self._unsafe and not self._unsafe.isdisjoint(where):
            return None
        return np.array(where, dtype=np.intp)

    def scalar(self, name: str) -> _Scalar:
        column = self.scalars.get(name)
        return column if column is not None else self._fill_scalar(name)

    # -- scores of the node object alone ------------------------------------------------------
    def _object_cache(self, key: tuple, flags: int) -> tuple[np.ndarray, ...]:
        """One plugin's per-node answers for one pod signature (an int64 array, then ``flags``
        bool arrays such as "known"), made on first use; past ``_object_entries`` the
        least recently used is dropped."""
        caches = self._object_scores
        cache = caches.pop(key, None)
        if cache is None:
            if len(caches) >= self._object_entries:
                del caches[next(iter(caches))]
            cache = (np.zeros(self._count, dtype=np.int64), *(np.zeros(self._count, dtype=bool) for _ in range(flags)))
        caches[key] = cache  # the most recently used last: the least recently used goes first
        return cache

    def object_scores(self, plugin: Any, signature: str, state: Any, pod_info: Any,
                      at: np.ndarray) -> list[int] | None:
        """``plugin.score`` for the nodes at ``at``, for a plugin whose score reads only the pod
        and the node object (labels, taints, images; see ``OBJECT_SCORES``): each node's answer
        is the plugin's own, asked once per pod signature until the node object changes. None
        when the plugin fails on some node (it is then asked node by node, and says why)."""
        values, known = self._object_cache((plugin.name, signature), flags=1)
        missing = at[~known[at]]
        if len(missing):
            nodes = self._nodes
            score = plugin.score
            try:
                for i in set(missing.tolist()):
                    out = score(state, pod_info, nodes[i])
                    if type(out) is tuple:
                        value, status = out
                        if status is not None and not status.is_success():
                            return None
                    else:
                        value = out
                    values[i] = int(value)
                    known[i] = True
            except Exception:
                return None
        return values[at].tolist()

    # -- Filter verdicts ----------------------------------------------------------------------
    def object_verdicts(self, plugin: Any, signature: str, state: Any, pod_info: Any, at: np.ndarray) -> np.ndarray:
        """Whether ``plugin.filter`` lets the pod onto each node at ``at``, for a filter that
        reads the pod and the node object only (``OBJECT_FILTERS``): the plugin's own verdict,
        asked once per pod signature until the node object changes. A plugin that raises counts
        as a "no" (the per-node path then reports the error)."""
        verdicts, known, certain = self._object_cache(("filter", plugin.name, signature), flags=2)
        missing = at[~known[at]]
        if len(missing):
            nodes = self._nodes
            run = plugin.filter
            for i in set(missing.tolist()):
                try:
                    status = run(state, pod_info, nodes[i])
                    verdicts[i] = status is None or status.is_success()
                    certain[i] = status is None or status.code != Code.Error
                except Exception:
                    verdicts[i] = False
                    certain[i] = False
                known[i] = True
        return verdicts[at] != 0

    def object_certain(self, plugin: Any, signature: str, at: np.ndarray) -> bool:
        """Whether ``object_verdicts`` of ``plugin`` for the nodes at ``at`` (asked already) each
        came from a status that is no Error (the plugin did not raise)."""
        cache = self._object_scores.get(("filter", plugin.name, signature))
        if cache is None:
            return False
        _, known, certain = cache
        return bool(known[at].all() and certain[at].all())

    def fit_verdicts(self, request: Any, at: np.ndarray) -> np.ndarray:
        """NodeResourcesFit's Filter (``_fits_request`` is empty) for the nodes at ``at``, from
        the pod's PreFilter request (its amounts within ``SAFE_AMOUNT``)."""
        cpu, memory, storage = request.milli_cpu, request.memory, request.ephemeral_storage
        fixed = self.fixed
        fits = fixed[_POD_COUNT, at] + 1 <= fixed[_ALLOC_PODS, at]
        if cpu > 0:
            fits &= cpu <= fixed[_ALLOC_CPU, at] - fixed[_REQ_CPU, at]
        if memory > 0:
            fits &= memory <= fixed[_ALLOC_MEMORY, at] - fixed[_REQ_MEMORY, at]
        if storage > 0:
            fits &= storage <= fixed[_ALLOC_EPHEMERAL, at] - fixed[_REQ_EPHEMERAL, at]
        for name, quantity in request.scalars:
            column = self.scalar(name)
            fits &= quantity <= column.allocatable[at] - column.requested[at]
        return fits

    # -- PodTopologySpread's Score and NormalizeScore --------------------------------------------
    def label_codes(self, key: str) -> tuple[np.ndarray, list[str]]:
        """Each node's value of label ``key`` as a position in the returned list of values (-1
        when the node has no such label)."""
        cached = self._label_codes.get(key)
        if cached is None:
            values: list[str] = []
            where: dict[str, int] = {}
            codes = np.empty(self._count, dtype=np.int64)
            for i, node_info in enumerate(self._nodes):
                value = node_info.labels.get(key)
                if value is None:
                    codes[i] = -1
                    continue
                code = where.get(value)
                if code is None:
                    code = where[value] = len(values)
                    values.append(value)
                codes[i] = code
            cached = self._label_codes[key] = (codes, values, where)
        return cached[0], cached[1]

    def _counted(self, key: str, counts: dict) -> np.ndarray:
        """Per value of label ``key`` (by code, then one more for nodes without it, code -1):
        whether ``counts`` counts the pair (``key``, value) above 0."""
        self.label_codes(key)
        _, values, where = self._label_codes[key]
        out = np.zeros(len(values) + 1, dtype=bool)
        for (topology_key, value), n in counts.items():
            if topology_key == key and n > 0:
                code = where.get(value)
                if code is not None:
                    out[code] = True
        return out

    def host_counts(self, constraint: Any, namespace: str, at: np.ndarray) -> np.ndarray:
        """``count_node_pods_match_selector`` of the nodes at ``at``, counted again only for the
        nodes whose pods changed since."""
        if constraint.selector_key is None:  # a custom selector: counted every time, as the plugin does
            nodes = self._nodes
            return np.array([count_node_pods_match_selector(nodes[i], constraint, namespace) for i in at.tolist()],
                            dtype=np.int64)
        key = (constraint.selector_key, namespace)
        cached = self._host_counts.get(key)
        if cached is None:
            if len(self._host_counts) >= _OBJECT_SCORE_SIGNATURES:
                del self._host_counts[next(iter(self._host_counts))]
            cached = self._host_counts[key] = (np.zeros(self._count, dtype=np.int64),
                                               np.full(self._count, -1, dtype=np.int64))
        counts, counted_at = cached
        stale = at[counted_at[at] != self.generations[at]]
        if len(stale):
            nodes = self._nodes
            for i in set(stale.tolist()):
                node_info = nodes[i]
                counts[i] = count_node_pods_match_selector(node_info, constraint, namespace)
                counted_at[i] = node_info.generation
        return counts[at]

    def ignored(self, names: Any, at: np.ndarray) -> np.ndarray | None:
        """Whether each node at ``at`` is one of ``names``; None when none is."""
        if not names:
            return None
        index = self.index
        mask = np.zeros(self._count, dtype=bool)
        mask[[index[n] for n in names if n in index]] = True
        return mask[at]

    def spread_scores(self, s: Any, namespace: str, at: np.ndarray) -> np.ndarray:
        """PodTopologySpread's ``score_nodes`` for the nodes at ``at``: per constraint, in order,
        ``float(count) * weight + float(maxSkew - 1)`` added where the node has the topology label,
        then rounded half up as the plugin does (the score is never negative)."""
        size = len(at)
        score = np.zeros(size, dtype=np.float64)
        for i, c in enumerate(s.constraints):
            codes, values = self.label_codes(c.topology_key)
            node_codes = codes[at]
            present = node_codes >= 0
            if c.is_hostname:
                count = self.host_counts(c, namespace, at)
            else:
                domain_counts = s.topology_value_to_pod_counts[i]
                by_code = np.array([domain_counts.get(v, 0) for v in values] + [0], dtype=np.int64)
                count = by_code[node_codes]  # -1 picks the trailing 0, masked out below anyway
            term = count.astype(np.float64) * s.topology_normalizing_weight[i] + float(c.max_skew - 1)
            score = np.where(present, score + term, score)
        rounded = np.trunc(score)
        out = (rounded + np.where(score - rounded >= 0.5, 1.0, 0.0)).astype(np.int64)
        ignored = self.ignored(s.ignored_nodes, at)
        return out if ignored is None else np.where(ignored, 0, out)

    def spread_verdicts(self, s: Any, at: np.ndarray) -> np.ndarray:
        """PodTopologySpread's Filter for the nodes at ``at`` from its PreFilter state ``s``: a
        node passes when it has every constraint's topology key and, per constraint, its domain's
        ``matchNum + selfMatch - minMatchNum`` is at most maxSkew."""
        ok = np.ones(len(at), dtype=bool)
        for i, c in enumerate(s.constraints):
            codes, values = self.label_codes(c.topology_key)
            node_codes = codes[at]
            domain_counts = s.tp_value_to_match_num[i]
            by_code = np.array([domain_counts.get(v, 0) for v in values] + [0], dtype=np.int64)
            skew = by_code[node_codes] + (s.self_match[i] - s.min_match_num(i))  # -1: the trailing 0
            ok &= (node_codes >= 0) & (skew <= c.max_skew)
        return ok

    # -- InterPodAffinity's Filter ---------------------------------------------------------------
    def affinity_verdicts(self, s: Any, at: np.ndarray) -> np.ndarray:
        """InterPodAffinity's Filter (``filtering.filter_node``) for the nodes at ``at``, from the
        cycle's PreFilter counts and each node's values of the topology keys they count: each of
        the pod's affinity terms needs its key on the node and a matching pod in the node's
        domain (unless the pod is the first of its group: then the keys alone); a domain counted
        by the pod's anti-affinity or by existing pods' anti-affinity against it rejects the node."""
        ok = np.ones(len(at), dtype=bool)
        if s.affinity_terms:
            first = ipa_filtering.first_of_group(s)
            for term in s.affinity_terms:
                codes = self.label_codes(term.topology_key)[0][at]
                ok &= codes >= 0
                if not first:
                    ok &= self._counted(term.topology_key, s.affinity.counts)[codes]
        existing = s.existing_anti
        for counts, keys in ((s.anti.counts, s.anti_keys),
                             (existing.counts, existing.keys if existing.keys is not None else existing.topology_keys())):
            if counts:
                for key in dict.fromkeys(keys):
                    ok &= ~self._counted(key, counts)[self.label_codes(key)[0][at]]
        return ok

    def spread_normalized(self, s: Any, at: np.ndarray, values: np.ndarray) -> list[int]:
        """PodTopologySpread's ``normalize_values`` of the raw ``values`` of the nodes at ``at``."""
        ignored = self.ignored(s.ignored_nodes, at)
        counted = values if ignored is None else values[~ignored]
        low = int(counted.min()) if len(counted) else 0
        high = max(int(counted.max()), 0) if len(counted) else 0
        if high == 0:
            out = np.full(len(values), _MAX_NODE_SCORE, dtype=np.int64)
        else:
            numerator = _MAX_NODE_SCORE * (high + low - values)
            quotient = np.abs(numerator) // high  # go_div: truncated toward zero (high > 0)
            out = np.where(numerator >= 0, quotient, -quotient)
        return (out if ignored is None else np.where(ignored, 0, out)).tolist()

    # -- the resource scorers -----------------------------------------------------------------
    def resource_scores(self, scorer: ResourceAllocationScorer, plan: Any, at: np.ndarray) -> list[int] | None:
        """``scorer.score(node, plan)`` for the nodes at positions ``at``; None when not covered."""
        if not scorer.resources:
            return None  # the plugin's Error status
        requested_list: list[np.ndarray] = []
        allocatable_list: list[np.ndarray] = []
        valid_list: list[np.ndarray] = []
        weights: list[int] = []
        fixed = self.fixed
        use_requested = scorer.use_requested
        for kind, res, weight, request in plan.entries:
            if not 0 <= request < SAFE_AMOUNT:
                return None
            if kind == RESOURCE_KIND_CPU:
                alloc = fixed[_ALLOC_CPU, at]
                used = fixed[_REQ_CPU if use_requested else _NZ_CPU, at]
                present = None
            elif kind == RESOURCE_KIND_MEMORY:
                alloc = fixed[_ALLOC_MEMORY, at]
                used = fixed[_REQ_MEMORY if use_requested else _NZ_MEMORY, at]
                present = None
            elif kind == RESOURCE_KIND_EPHEMERAL:
                alloc = fixed[_ALLOC_EPHEMERAL, at]
                used = fixed[_REQ_EPHEMERAL, at]
                present = None
            else:
                column = self.scalar(res)
                alloc = column.allocatable[at]
                used = column.requested[at]
                present = column.present[at]
            valid = alloc != 0
            if present is not None:
                valid &= present
            requested_list.append(used + request)
            allocatable_list.append(alloc)
            valid_list.append(valid)
            weights.append(weight)
        fn = scorer.scorer
        size = len(at)
        if fn is least_allocated_scorer or fn is most_allocated_scorer:
            return _mean_share(requested_list, allocatable_list, valid_list, weights, size,
                               least=fn is least_allocated_scorer)
        if fn is balanced_resource_scorer:
            return _balanced(requested_list, allocatable_list, valid_list, size)
        shape = getattr(fn, "shape_function", None)
        if shape is not None:
            return _requested_to_capacity_ratio(shape, fn.score_at_max, requested_list, allocatable_list,
                                                valid_list, weights, size)
        return None


def _mean_share(requested: list[np.ndarray], allocatable: list[np.ndarray], valid: list[np.ndarray],
                weights: list[int], size: int, least: bool) -> list[int]:
    """least_allocated_scorer / most_allocated_scorer, element by element."""
    node_score = np.zeros(size, dtype=np.int64)
    weight_sum = np.zeros(size, dtype=np.int64)
    for req, alloc, ok, weight in zip(requested, allocatable, valid, weights):
        divisor = np.where(ok, alloc, 1)
        if least:
            share = np.where(req > alloc, 0, (alloc - req) * _MAX_NODE_SCORE // divisor)
        else:
            share = np.minimum(req, alloc) * _MAX_NODE_SCORE // divisor
        node_score += np.where(ok, share * weight, 0)
        weight_sum += np.where(ok, weight, 0)
    out = np.where(weight_sum != 0, node_score // np.where(weight_sum != 0, weight_sum, 1), 0)
    return out.tolist()


def _requested_to_capacity_ratio(shape: Any, at_max: int, requested: list[np.ndarray], allocatable: list[np.ndarray],
                                 valid: list[np.ndarray], weights: list[int], size: int) -> list[int]:
    """requested_to_capacity_ratio_scorer, element by element: the shape function is called once
    per distinct utilization."""
    node_score = np.zeros(size, dtype=np.int64)
    weight_sum = np.zeros(size, dtype=np.int64)
    for req, alloc, ok, weight in zip(requested, allocatable, valid, weights):
        divisor = np.where(ok, alloc, 1)
        utilization = req * MAX_UTILIZATION // divisor
        distinct, inverse = np.unique(utilization, return_inverse=True)
        mapped = np.array([shape(int(u)) for u in distinct.tolist()], dtype=np.int64)[inverse.reshape(-1)]
        score = np.where(req > alloc, at_max, mapped)
        counted = ok & (score > 0)
        node_score += np.where(counted, score * weight, 0)
        weight_sum += np.where(counted, weight, 0)
    mean = node_score.astype(np.float64) / np.where(weight_sum != 0, weight_sum, 1).astype(np.float64)
    whole = np.trunc(mean)
    rounded = whole + np.where(np.abs(mean - whole) >= 0.5, np.where(mean > 0, 1.0, -1.0), 0.0)
    return np.where(weight_sum != 0, rounded, 0.0).astype(np.int64).tolist()


def _balanced(requested: list[np.ndarray], allocatable: list[np.ndarray], valid: list[np.ndarray],
              size: int) -> list[int]:
    """balanced_resource_scorer, element by element (fractions summed in the same order)."""
    fractions: list[np.ndarray] = []
    total = np.zeros(size, dtype=np.float64)
    count = np.zeros(size, dtype=np.int64)
    first = np.zeros(size, dtype=np.float64)
    second = np.zeros(size, dtype=np.float64)
    for req, alloc, ok in zip(requested, allocatable, valid):
        fraction = req.astype(np.float64) / np.where(ok, alloc, 1).astype(np.float64)
        fraction = np.where(fraction > 1, 1.0, fraction)
        total = np.where(ok, total + fraction, total)
        first = np.where(ok & (count == 0), fraction, first)
        second = np.where(ok & (count == 1), fraction, second)
        count += ok
        fractions.append(fraction)
    std = np.zeros(size, dtype=np.float64)
    std = np.where(count == 2, np.abs((first - second) / 2), std)
    many = count > 2
    if many.any():
        n = np.where(many, count, 1).astype(np.float64)
        mean = total / n
        acc = np.zeros(size, dtype=np.float64)
        for fraction, ok in zip(fractions, valid):
            acc = np.where(ok, acc + (fraction - mean) * (fraction - mean), acc)
        std = np.where(many, np.sqrt(acc / n), std)
    return np.trunc((1 - std) * float(_MAX_NODE_SCORE)).astype(np.int64).tolist()


#: The built-in plugins whose Score the columns answer, with their PreScore state's key.
COLUMN_SCORES = {
    node_resources_fit.NAME: (NodeResourcesFit, node_resources_fit.PRE_SCORE_STATE_KEY),
    balanced_allocation.NAME: (NodeResourcesBalancedAllocation, balanced_allocation.PRE_SCORE_STATE_KEY),
}


#: The built-in plugins whose Score reads the pod and the node object only, never the node's pods:
#: PreferNoSchedule taints, preferred node affinity, images present (and on how many nodes).
OBJECT_SCORES = {
    taint_toleration.NAME: TaintToleration,
    node_affinity.NAME: NodeAffinity,
    image_locality.NAME: ImageLocality,
}


#: The built-in filters whose verdict reads the pod and the node object only.
OBJECT_FILTERS = {
    node_unschedulable.NAME: NodeUnschedulable,
    node_name.NAME: NodeName,
    taint_toleration.NAME: TaintToleration,
    node_affinity.NAME: NodeAffinity,
}


def verdict_function(columns: NodeColumns, filters: list[tuple[str, Any]], signature: str, state: Any,
                     pod_info: Any) -> Any:
    """For a chain of ``(name, bound filter)`` the columns cover entirely, a function of column
    positions giving whether each node passes every filter of the chain; None when some filter is
    not covered (a NodePorts with host ports, a custom one, a PreFilter state missing)."""
    object_filters = []
    request = None
    spread = None
    affinity = None
    for name, fn in filters:
        plugin = getattr(fn, "__self__", None)
        object_plugin = OBJECT_FILTERS.get(name)
        if object_plugin is not None and type(plugin) is object_plugin:
            object_filters.append(plugin)
        elif name == pod_topology_spread.NAME and type(plugin) is PodTopologySpread and spread is None:
            try:
                spread = state.read(pod_topology_spread.PRE_FILTER_STATE_KEY)
            except KeyError:
                return None  # the plugin reports the missing state itself
        elif name == inter_pod_affinity.NAME and type(plugin) is InterPodAffinity and affinity is None:
            try:
                affinity = state.read(inter_pod_affinity.PRE_FILTER_STATE_KEY)
            except KeyError:
                return None  # the plugin reports the missing state itself
        elif name == node_resources_fit.NAME and type(plugin) is NodeResourcesFit:
            try:
                request = state.read(node_resources_fit.PRE_FILTER_STATE_KEY)
            except KeyError:
                return None
            amounts = [request.milli_cpu, request.memory, request.ephemeral_storage]
            amounts.extend(quantity for _, quantity in request.scalars)
            if not _safe(amounts):
                return None
        else:
            return None

    def verdicts(at: np.ndarray) -> np.ndarray:
        ok = np.ones(len(at), dtype=bool)
        if request is not None:
            ok &= columns.fit_verdicts(request, at)
        for plugin in object_filters:
            ok &= columns.object_verdicts(plugin, signature, state, pod_info, at)
        if spread is not None:
            ok &= columns.spread_verdicts(spread, at)
        if affinity is not None:
            ok &= columns.affinity_verdicts(affinity, at)
        return ok

    def certain(at: np.ndarray) -> bool:
        """Whether no node at ``at`` would get an Error status node by node (which ends a scan):
        the columns' own verdicts never do; a plugin asked per node object must not have raised
        or answered Error."""
        return all(columns.object_certain(plugin, signature, at) for plugin in object_filters)

    verdicts.certain = certain  # type: ignore[attr-defined]
    return verdicts


def column_scores(columns: NodeColumns, plugin: Any, state: Any, at: np.ndarray, signature: str | None = None,
                  pod_info: Any = None) -> list[int] | None:
    """``plugin``'s raw scores for the nodes at ``at``, from the columns; None when the columns do
    not cover this plugin or this cycle (the plugin is then asked node by node). Plugins of
    ``OBJECT_SCORES`` need the pod's ``signature`` (see simulate's ``pod_signature``)."""
    object_plugin = OBJECT_SCORES.get(plugin.name)
    if object_plugin is not None:
        if signature is None or type(plugin) is not object_plugin:
            return None
        return columns.object_scores(plugin, signature, state, pod_info, at)
    entry = COLUMN_SCORES.get(plugin.name)
    if entry is None or type(plugin) is not entry[0]:
        return None
    try:
        plan = state.read(entry[1])
    except StateNotFound:
        return None
    return columns.resource_scores(plugin.scorer, plan, at)


class SpreadScores:
    """PodTopologySpread's raw scores of one cycle from the columns, kept for its NormalizeScore."""

    __slots__ = ("values", "state", "at", "raw")

    def __init__(self, values: list[int], state: Any, at: np.ndarray, raw: np.ndarray) -> None:
        self.values = values
        self.state = state
        self.at = at
        self.raw = raw


def spread_scores(columns: NodeColumns, plugin: Any, state: Any, pod_info: Any, at: np.ndarray) -> SpreadScores | None:
    """PodTopologySpread's raw scores for the nodes at ``at`` (None: not the built-in plugin, or
    no PreScore state, which the plugin itself reports)."""
    if plugin.name != pod_topology_spread.NAME or type(plugin) is not PodTopologySpread:
        return None
    try:
        s = state.read(pod_topology_spread.PRE_SCORE_STATE_KEY)
    except KeyError:
        return None
    raw = columns.spread_scores(s, pod_info.namespace, at)
    return SpreadScores(raw.tolist(), s, at, raw)
