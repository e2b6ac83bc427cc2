"""The nodes of a simulate run as numpy columns, and the plugins' column twins asked over them.

A batch scores the same few hundred feasible nodes cycle after cycle, and only the node the last
pod went to has changed. ``NodeColumns`` keeps what the twins read of every node as arrays in the
snapshot's node order (``kschedctl.framework.twins.ColumnsView``), brought up to date from the
process-wide NodeInfo change log (``NODE_CHANGES``) before each use:

- int64 columns of allocatable, requested and non-zero requested cpu/memory, ephemeral storage,
  scalar resources and pod counts;
- each node's value of a topology key, as a code, and per-node counts (a spread constraint's
  matching pods), counted again only on the nodes whose pods changed;
- the answers of the plugins whose Filter or Score reads the pod and the node object only
  (``PluginFacts.object_local``): each node's answer is the plugin's own, asked once per pod
  signature and kept until that node object is replaced.

What a plugin computes from them is the plugin's: its column twin, declared in its ``FACTS``
(``PluginFacts.twin``) and living beside it (see kschedctl.framework.twins). The functions at the
end of this module ask the facts which plugins have one, and combine a chain's verdicts. Nothing
here names a plugin.

A node holding an amount beyond ``SAFE_AMOUNT``, a scratch copy of a node, a custom plugin or a
plugin without a twin, a PreScore state missing, a plugin failing, a nominated pod: all are
answered by the plugin node by node, as without the columns; so is every failure message.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from kschedctl.framework.runtime import NameView, filter_failure
from kschedctl.framework.status import Code, Status
from kschedctl.framework.twins import (
    ALLOC_CPU,
    ALLOC_EPHEMERAL,
    ALLOC_MEMORY,
    ALLOC_PODS,
    FIXED_ROWS,
    NZ_CPU,
    NZ_MEMORY,
    POD_COUNT,
    REQ_CPU,
    REQ_EPHEMERAL,
    REQ_MEMORY,
    SAFE_AMOUNT,
    ColumnCycle,
    ColumnFilter,
    ColumnScores,
    safe,
)
from kschedctl.framework.types import NODE_CHANGES
from kschedctl.plugins.registry import own_facts

#: Pod signatures (or count keys) whose per-node counts are kept at once.
_OBJECT_SCORE_SIGNATURES = 64
#: Node-object answers kept at once (one plugin and pod signature each, an int64 and two bools per
#: node), at least ``_OBJECT_SCORE_SIGNATURES``, else as many as ``_OBJECT_CELLS`` nodes' worth:
#: a run of many kinds of pods (a scale-down search moves every app's pods in turn) keeps them all
#: on a few thousand nodes, in about 10 bytes x ``_OBJECT_CELLS`` (40 MB).
_OBJECT_CELLS = 4_000_000
#: ``counted`` and ``valued`` answers kept for frozen dicts (each one entry per label value).
_FROZEN_KEPT = 256


def _fixed_row(node_info: Any) -> list[int]:
    alloc = node_info.allocatable
    req = node_info.requested
    nz = node_info.non_zero_requested
    row = [0] * FIXED_ROWS
    row[ALLOC_CPU], row[ALLOC_MEMORY], row[ALLOC_EPHEMERAL] = alloc.milli_cpu, alloc.memory, alloc.ephemeral_storage
    row[ALLOC_PODS], row[POD_COUNT] = alloc.allowed_pod_number, len(node_info.pods)
    row[REQ_CPU], row[REQ_MEMORY], row[REQ_EPHEMERAL] = req.milli_cpu, req.memory, req.ephemeral_storage
    row[NZ_CPU], row[NZ_MEMORY] = nz.milli_cpu, nz.memory
    return row


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
    """What the twins read of every node of ``snapshot``, kept current (``ColumnsView``)."""

    def __init__(self, snapshot: Any) -> None:
        self.snapshot = snapshot
        self._nodes: list[Any] = snapshot.node_infos()
        self._count = len(self._nodes)
        self.index: dict[str, int] = {n.name: i for i, n in enumerate(self._nodes)}
        # the NodeInfos stay alive in ``_nodes``, so their ids stay theirs
        self._position_of_id: dict[int, int] = {id(n): i for i, n in enumerate(self._nodes)}
        self._every_position = np.arange(self._count, dtype=np.intp)
        self.fixed = np.zeros((FIXED_ROWS, self._count), dtype=np.int64)
        self.scalars: dict[str, _Scalar] = {}
        self._unsafe: set[int] = set()
        # what each node's object was when its node-object scores were taken (see object_scores)
        self._objects: list[Any] = [n.node for n in self._nodes]
        self._object_scores: dict[tuple, tuple[np.ndarray, ...]] = {}
        self._object_entries = max(_OBJECT_SCORE_SIGNATURES, _OBJECT_CELLS // max(self._count, 1))
        # per topology key: each node's value as a code into the list of values (-1: no label)
        self._label_codes: dict[str, tuple[np.ndarray, list[str], dict[str, int]]] = {}
        # ``counted`` and ``valued`` answers for frozen dicts: (which, label key, id of the dict)
        # -> (the dict, answer); the dict is held with its answer, so its id stays its own
        self._frozen: dict[tuple[str, str, int], tuple[dict, np.ndarray]] = {}
        # per key of ``node_counts``: each node's count, and the generation counted at
        self._node_counts: dict[Any, tuple[np.ndarray, np.ndarray]] = {}
        self.generations = np.array([n.generation for n in self._nodes], dtype=np.int64)
        self._seen = NODE_CHANGES.count
        self._load_all()

    @property
    def nodes(self) -> list[Any]:
        """The NodeInfos of the columns, in their order (the snapshot's list: not to be changed)."""
        return self._nodes

    # -- keeping current ----------------------------------------------------------------------
    def _load_all(self) -> None:
        self._unsafe.clear()
        # every node's row at once: one conversion against a column assignment per node
        rows = [_fixed_row(node_info) for node_info in self._nodes]
        try:
            table = np.array(rows, dtype=np.int64).reshape(self._count, FIXED_ROWS)
        except OverflowError:  # an amount beyond int64: node by node, as a refresh does
            for i, node_info in enumerate(self._nodes):
                self._load(i, node_info)
        else:
            held = ((table >= 0) & (table < SAFE_AMOUNT)).all(axis=1)
            self.fixed[:, held] = table[held].T
            self._unsafe.update(np.flatnonzero(~held).tolist())
        for name in list(self.scalars):
            self._fill_scalar(name)

    def _load(self, i: int, node_info: Any) -> None:
        row = _fixed_row(node_info)
        ok = safe(row)
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
            self._frozen.clear()
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
            self._frozen.clear()

    @property
    def all_safe(self) -> bool:
        """Whether every node's amounts are below ``SAFE_AMOUNT`` (the columns hold them all)."""
        return not self._unsafe

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
    def _object_cache(self, key: tuple, flags: int, *extra: Callable[[], Any]) -> tuple[Any, ...]:
        """One plugin's per-node answers for one pod signature (an int64 array, then ``flags``
        bool arrays such as "known", then one value made by each of ``extra``), made on first
        use; past ``_object_entries`` the least recently used is dropped."""
        caches = self._object_scores
        cache = caches.pop(key, None)
        if cache is None:
            if len(caches) >= self._object_entries:
                del caches[next(iter(caches))]
            cache = (np.zeros(self._count, dtype=np.int64), *(np.zeros(self._count, dtype=bool) for _ in range(flags)),
                     *(make() for make in extra))
        caches[key] = cache  # the most recently used last: the least recently used goes first
        return cache

    def object_scores(self, plugin: Any, signature: str, state: Any, pod_info: Any,
                      at: np.ndarray) -> np.ndarray | None:
        """``plugin.score`` for the nodes at ``at``, for a plugin whose score reads only the pod
        and the node object (labels, taints, images; ``PluginFacts.object_local``): each node's answer
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
        return values[at]  # a copy: later pods' answers do not show

    # -- Filter verdicts ----------------------------------------------------------------------
    def object_verdicts(self, plugin: Any, signature: str, state: Any, pod_info: Any, at: np.ndarray) -> np.ndarray:
        """Whether ``plugin.filter`` lets the pod onto each node at ``at``, for a filter that
        reads the pod and the node object only (``PluginFacts.object_local``): the plugin's own verdict,
        asked once per pod signature until the node object changes. A plugin that raises, or
        gives a status no filter may give (Wait, Skip: the runtime makes it an Error), counts as a
        "no" that is not ``certain`` (the per-node path then reports the error). The statuses of
        the nodes it rejects are kept for ``object_statuses``."""
        verdicts, known, certain, rejections = self._object_cache(("filter", plugin.name, signature), 2, dict)
        missing = at[~known[at]]
        if len(missing):
            nodes = self._nodes
            run = plugin.filter
            for i in set(missing.tolist()):
                try:
                    status = run(state, pod_info, nodes[i])
                except Exception:
                    verdicts[i] = False
                    certain[i] = False
                else:
                    passed = status is None or status.code == Code.Success
                    verdicts[i] = passed
                    certain[i] = passed or status.is_rejected()
                    if not passed:
                        rejections[i] = status  # read only while known and rejected
                known[i] = True
        return verdicts[at] != 0

    def object_statuses(self, plugin: Any, signature: str, at: np.ndarray) -> list[Any] | None:
        """The statuses ``plugin.filter`` gave the nodes at ``at``, each rejected by it and asked
        already (``object_verdicts``) and certain; None when the cache no longer holds them."""
        cache = self._object_scores.get(("filter", plugin.name, signature))
        if cache is None:
            return None
        _, known, certain, rejections = cache
        if not (known[at].all() and certain[at].all()):
            return None
        return [rejections[i] for i in at.tolist()]

    def object_certain(self, plugin: Any, signature: str, at: np.ndarray) -> bool:
        """Whether ``object_verdicts`` of ``plugin`` for the nodes at ``at`` (asked already) each
        came from a status that is no Error (the plugin did not raise)."""
        cache = self._object_scores.get(("filter", plugin.name, signature))
        if cache is None:
            return False
        known, certain = cache[1], cache[2]
        return bool(known[at].all() and certain[at].all())

    # -- topology values and counts, for twins ------------------------------------------------
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

    def first_label_codes(self, keys: Sequence[str]) -> tuple[np.ndarray, list[str]]:
        """Each node's first non-empty value among labels ``keys`` (a zone under either of its
        names) as a position in the returned list of values (-1 when the node has none); made
        of the ``label_codes`` of each key, so only their first use walks the nodes."""
        values: list[str] = []
        codes = np.full(self._count, -1, dtype=np.int64)
        for key in keys:
            here, found = self.label_codes(key)
            if found:
                non_empty = np.array([bool(v) for v in found], dtype=bool)
                take = (codes < 0) & (here >= 0)
                take[take] = non_empty[here[take]]
                codes[take] = here[take] + len(values)
            values = values + found
        return codes, values

    def counted(self, key: str, counts: dict, frozen: bool = False) -> np.ndarray:
        """Per value of label ``key`` (by code, then one more for nodes without it, code -1):
        whether ``counts`` counts the pair (``key``, value) above 0. A ``frozen`` dict (one that
        never changes again: sums kept across cycles lend such dicts) is answered from the
        answer kept for that very dict, while the label codes last (read-only then)."""
        self.label_codes(key)
        kept = self._frozen.get(("counted", key, id(counts))) if frozen else None
        if kept is not None and kept[0] is counts:
            return kept[1]
        _, values, where = self._label_codes[key]
        out = np.zeros(len(values) + 1, dtype=bool)
        # one comprehension and one assignment: counts may hold a pair per node (hostname domains)
        absent = len(values)  # a value no node has lands on the slot of code -1, cleared below
        get = where.get
        codes = [get(value, absent) for (topology_key, value), n in counts.items() if n > 0 and topology_key == key]
        if codes:
            out[codes] = True
            out[absent] = False
        if frozen:
            self._keep(("counted", key, id(counts)), counts, out)
        return out

    def valued(self, key: str, amounts: dict[str, int], frozen: bool = False) -> np.ndarray | None:
        """Per value of label ``key`` (by code, then one more for nodes without it, code -1): the
        amount ``amounts`` gives that value, 0 when none; None when an amount is ``SAFE_AMOUNT``
        or more either way (the object form then answers). ``frozen`` as for ``counted``."""
        self.label_codes(key)
        kept = self._frozen.get(("valued", key, id(amounts))) if frozen else None
        if kept is not None and kept[0] is amounts:
            return kept[1]
        _, values, where = self._label_codes[key]
        out = np.zeros(len(values) + 1, dtype=np.int64)
        for value, amount in amounts.items():
            if not -SAFE_AMOUNT < amount < SAFE_AMOUNT:
                return None
            code = where.get(value)
            if code is not None:
                out[code] = amount
        if frozen:
            self._keep(("valued", key, id(amounts)), amounts, out)
        return out

    def _keep(self, key: tuple[str, str, int], frozen: dict, answer: np.ndarray) -> None:
        kept = self._frozen
        if len(kept) >= _FROZEN_KEPT:
            del kept[next(iter(kept))]
        answer.flags.writeable = False
        kept[key] = (frozen, answer)

    def node_counts(self, key: Any, count: Callable[[Any], int], at: np.ndarray) -> np.ndarray:
        """``count(node)`` of the nodes at ``at``, kept under ``key`` (which names all ``count``
        depends on besides the node) and counted again only for the nodes whose pods changed
        since; ``key`` None: counted every time."""
        nodes = self._nodes
        if key is None:
            return np.array([count(nodes[i]) for i in at.tolist()], dtype=np.int64)
        cached = self._node_counts.get(key)
        if cached is None:
            if len(self._node_counts) >= _OBJECT_SCORE_SIGNATURES:
                del self._node_counts[next(iter(self._node_counts))]
            cached = self._node_counts[key] = (np.zeros(self._count, dtype=np.int64),
                                               np.full(self._count, -1, dtype=np.int64))
        counts, counted_at = cached
        stale = at[counted_at[at] != self.generations[at]]
        if len(stale):
            for i in set(stale.tolist()):
                node_info = nodes[i]
                counts[i] = count(node_info)
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


# -- asking the facts ---------------------------------------------------------------------------


#: What answers a point of a plugin class from the columns (see ``_form``), decided once per class.
_FORMS: dict[tuple[type, str], Any] = {}
#: ``_form``'s answer for a point the columns answer with the plugin's own answers per node object.
_OBJECT = "object"


def _form(plugin: Any, point: str) -> Any:
    """What answers ``point`` of ``plugin`` from the columns, as its facts say: ``_OBJECT`` (its
    own answers kept per node object), its twin's function, or None (a plugin that is not the
    registry's own class, or has neither)."""
    key = (type(plugin), point)
    try:
        found = _FORMS[key]
    except KeyError:
        facts = own_facts(plugin)
        found = None
        if facts is not None:
            if point in facts.object_local:
                found = _OBJECT
            elif facts.twin is not None and point in facts.twin.points:
                found = facts.twin
        _FORMS[key] = found
    if found is None or found is _OBJECT:
        return found
    return found.function(point)


def normalized_by_columns(plugin: Any) -> bool:
    """Whether the NormalizeScore of ``plugin``'s column scores takes the array as it is: the
    plugin has none (its scores go on unchanged) or its twin has that form too. Otherwise the
    plugin's own NormalizeScore runs, on a list."""
    normalize = _form(plugin, "normalize")
    return (normalize is not None and normalize is not _OBJECT) or not callable(getattr(plugin, "normalize_score", None))


def covers_score(plugin: Any) -> bool:
    """Whether the columns may answer ``plugin``'s Score (a twin, or answers per node object)."""
    return _form(plugin, "score") is not None


def verdict_function(columns: NodeColumns, filters: list[tuple[str, Any]], signature: str, state: Any,
                     pod_info: Any) -> Any:
    """For a chain of ``(name, bound filter)`` the columns cover entirely, a function of column
    positions giving whether each node passes every filter of the chain (with ``certain``, see
    ``ColumnFilter``, and ``statuses``); None when some filter is not covered (no twin, a custom
    plugin, a twin not covering this cycle)."""
    object_filters = []
    twins = []
    chain: list[tuple[str, ColumnFilter | None, Any]] = []  # in run order, for ``statuses``
    for name, fn in filters:
        plugin = getattr(fn, "__self__", None)
        form = _form(plugin, "filter")
        if form is None:
            return None
        if form is _OBJECT:
            object_filters.append(plugin)
            chain.append((name, None, plugin))
            continue
        answer = form(ColumnCycle(columns, plugin, state, pod_info))
        if answer is None:
            return None
        twins.append(answer)
        chain.append((name, answer, plugin))

    def verdicts(at: np.ndarray) -> np.ndarray:
        ok = np.ones(len(at), dtype=bool)
        for twin in twins:
            ok &= twin.verdicts(at)
        for plugin in object_filters:
            ok &= columns.object_verdicts(plugin, signature, state, pod_info, at)
        return ok

    def certain(at: np.ndarray) -> bool:
        """Whether no node at ``at`` would get an Error status node by node (which ends a scan):
        a plugin asked per node object must not have raised or answered Error."""
        return (all(twin.certain(at) for twin in twins)
                and all(columns.object_certain(plugin, signature, at) for plugin in object_filters))

    def statuses(at: np.ndarray) -> list[Status | None]:
        """The status the chain gives each node at ``at`` (nodes it rejects, ``certain`` ones):
        the first rejecting filter's, stamped as RunFilterPlugins stamps it; None where that
        filter's statuses come node by node only (the caller asks the chain for that node)."""
        out = np.full(len(at), None, dtype=object)
        pending = np.arange(len(at))  # indices into ``at`` no filter has rejected yet
        for name, twin, plugin in chain:
            if not len(pending):
                break
            where = at[pending]
            if twin is None:
                ok = columns.object_verdicts(plugin, signature, state, pod_info, where)
            else:
                ok = twin.verdicts(where)
            if ok.all():
                continue
            rejected = pending[~ok]
            pending = pending[ok]
            if twin is None:
                found = columns.object_statuses(plugin, signature, at[rejected])
                if found is None:
                    continue
                # the plugin's statuses are shared by many nodes: each distinct one stamped once
                distinct = {id(status): status for status in found}
                stamped = {key: _stamped(name, status) for key, status in distinct.items()}
                told = np.empty(len(found), dtype=object)
                told[:] = [stamped[id(status)] for status in found]
                out[rejected] = told
            elif twin.statuses is not None:
                which, made = twin.statuses(at[rejected])
                told = np.empty(len(made), dtype=object)
                told[:] = [_stamped(name, status) for status in made]
                out[rejected] = told[which]
        return out.tolist()

    verdicts.certain = certain  # type: ignore[attr-defined]
    verdicts.statuses = statuses  # type: ignore[attr-defined]
    return verdicts


def _stamped(name: str, status: Status) -> Status | None:
    """``status`` of filter ``name`` as RunFilterPlugins reports it, when it is a rejection;
    None for anything else (the runtime makes it an Error: the node is asked node by node)."""
    return filter_failure(name, status) if status.is_rejected() else None


def column_scores(columns: NodeColumns, plugin: Any, state: Any, at: np.ndarray, signature: str | None = None,
                  pod_info: Any = None) -> ColumnScores | None:
    """``plugin``'s raw scores for the nodes at ``at``, from its twin or its answers per node
    object (these need the pod's ``signature``, see simulate's ``pod_signature``); None when the
    columns do not cover this plugin or this cycle (the plugin is then asked node by node)."""
    form = _form(plugin, "score")
    if form is None:
        return None
    if form is _OBJECT:
        if signature is None:
            return None
        values = columns.object_scores(plugin, signature, state, pod_info, at)
        return None if values is None else ColumnScores(values, at)
    return form(ColumnCycle(columns, plugin, state, pod_info), at)


def column_normalized(columns: NodeColumns, plugin: Any, state: Any, pod_info: Any,
                      scores: ColumnScores) -> Sequence[int] | None:
    """``plugin``'s NormalizeScore of the ``scores`` its twin gave, when the twin has that form
    too; None otherwise (the plugin's own NormalizeScore then runs on the values)."""
    normalize = _form(plugin, "normalize")
    if normalize is None or normalize is _OBJECT:
        return None
    return normalize(ColumnCycle(columns, plugin, state, pod_info), scores)


class ScoreRows(Sequence[Any]):
    """One cycle's scores of every scored node (the runtime's ``NodePluginScores``), with the
    totals summed as an array over the plugins' weighted columns: ``select_host`` finds the top
    score and the nodes tied at it on the array (``tied_at_top``), and a node's row is made
    only when something reads the rows (``build``: the runtime's own way, the same rows)."""

    __slots__ = ("names", "totals", "_plugins", "_columns", "_build", "_rows")

    def __init__(self, names: NameView, plugins: list[str], weighted_columns: list[Sequence[int]],
                 build: Callable[[Sequence[str], list[str], list[Sequence[int]]], Sequence[Any]]) -> None:
        self.names = names
        # small ints (a score times its weight): the int64 sums are the Python ones
        self.totals = np.array(weighted_columns, dtype=np.int64).sum(axis=0)
        self._plugins = plugins
        self._columns = weighted_columns
        self._build = build
        self._rows: Sequence[Any] | None = None

    def _made(self) -> Sequence[Any]:
        rows = self._rows
        if rows is None:
            # the runtime's rows hold Python ints, as a cycle without columns would
            columns = [c.tolist() if type(c) is np.ndarray else c for c in self._columns]
            rows = self._rows = self._build(self.names, self._plugins, columns)
        return rows

    def __len__(self) -> int:
        return len(self.names)

    def __getitem__(self, i: Any) -> Any:
        return self._made()[i]

    def __iter__(self) -> Any:
        return iter(self._made())

    def tied_at_top(self) -> list[str] | None:
        """The names of the nodes sharing the top total, in row order; None once the rows are
        made (extender scores may since have been added to them)."""
        if self._rows is not None or not len(self.names):
            return None
        totals = self.totals
        return self.names.at(np.flatnonzero(totals == totals.max()).tolist())
