"""``simulate``: schedule a batch of pods one after another, each placement assumed for the next.

What upstream's scheduler does with a batch of pending pods (pkg/scheduler/schedule_one.go and
the scheduling queue, kube-scheduler v1.34), run on one long-lived snapshot:

- every pending pod (from files, workloads expanded to their replicas with the names their
  controllers would give, and the pending pods of the cluster state) enters the queue
  (PreEnqueue, QueueSort order: see ``kschedctl.scheduler.queue``);
- pods are popped one at a time and run through the cycle of their profile
  (``Scheduler.run_cycle``: PreFilter ... PostBind); a placement is assumed into the snapshot
  incrementally (``Snapshot.assume``), so the next pod sees it; the scheduler's rotating start
  index and its seeded random tie-break carry over from pod to pod, as upstream's do;
- a failed pod waits for a cluster event its rejecting plugins care about (queueing hints) and
  is retried after the pods in activeQ;
- a pod a Permit plugin tells to Wait is assumed on its node and held: later pods see it, and
  it binds once every waiting plugin allowed it (Coscheduling allows a whole gang when its last
  member reaches Permit). Rejected (Coscheduling's PostFilter or Unreserve, preemption), or
  timed out once nothing else is left to schedule (the virtual clock then jumps to the first
  deadline), it is forgotten as upstream's binding cycle does: Unreserve, an
  ``AssignedPodDelete`` for the other pods, and back to the queue. Pods a plugin puts into
  PodsToActivate move to activeQ;
- when DefaultPreemption nominates a node, the victims are removed from the snapshot (each an
  ``AssignedPodDelete`` event), the preemptor gets ``status.nominatedNodeName`` (other pods
  then see it through the nominator, as upstream) and is retried; victims that the batch itself
  had placed are reported as ``Preempted``.

Nothing is recorded per node for a simulated pod (``_LeanFramework``): a batch reports only
outcomes, messages and usage, which keeps the hot path close to the bare cycle.
"""

from __future__ import annotations

import gc
import json
import time
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Callable, Iterable

import numpy as np

from kschedctl import limits
from kschedctl.errors import UsageError
from kschedctl.fastpaths import FastPaths
from kschedctl.fastpaths import settings as fast_path_settings
from kschedctl.fastpaths import using as using_fast_paths
from kschedctl.framework.diagnosis import RejectedScan, status_kind
from kschedctl.framework.interfaces import MAX_NODE_SCORE, MIN_NODE_SCORE
from kschedctl.framework.runtime import (
    Framework,
    FrameworkHandle,
    NameView,
    PodNominator,
    Trace,
    WaitingPods,
)
from kschedctl.framework.status import Code, Status
from kschedctl.framework.twins import ColumnNodes
from kschedctl.framework.types import NODE_CHANGES, PodInfo
from kschedctl.inputs.cluster import waits_for_scheduler
from kschedctl.plugins.dynamic_resources import DEALLOCATION_COMPLETED as DRA_DEALLOCATION_COMPLETED
from kschedctl.plugins.dynamic_resources import NAME as DRA_NAME
from kschedctl.plugins.dynamic_resources import SHARED_KEY as DRA_SHARED_KEY
from kschedctl.plugins.registry import node_local_plugins
from kschedctl.scheduler.columns import (
    NodeColumns,
    ScoreRows,
    column_normalized,
    column_scores,
    covers_score,
    normalized_by_columns,
    verdict_function,
)
from kschedctl.scheduler.queue import (
    ASSIGNED_POD_ADD,
    ASSIGNED_POD_DELETE,
    DEFAULT_MAX_ATTEMPTS,
    RESOURCE_CLAIM_DEALLOCATED,
    QueuedPod,
    SchedulingQueue,
)
from kschedctl.scheduler.outcome import Outcome
from kschedctl.scheduler.schedule_one import CycleOutcome, Scheduler
from kschedctl.scheduler.setup import SchedulingSetup, build_framework
from kschedctl.scheduler.simulation_result import (
    Placement,
    PreemptionRecord,
    QueueSample,
    SimulationResult,
    UsageCapture,
)


#: Told of every cycle a run makes, ``(pod_info, outcome)``, while set (``diff`` asks why a pod
#: moved from the very cycle that placed it; replay builds its simulators out of reach).
CYCLE_OBSERVER: ContextVar[Callable[[Any, CycleOutcome], None] | None] = ContextVar("kschedctl_cycle_observer",
                                                                                   default=None)

#: The plugin named when a victim waiting at Permit is rejected (upstream DefaultPreemption).
PREEMPTION_PLUGIN = "DefaultPreemption"


# ---------------------------------------------------------------------------------------------
# The lean framework: the runtime as is, without per-node records
# ---------------------------------------------------------------------------------------------


#: Built-in plugins whose Filter verdict / Score is a function of the pod and of the one node's
#: NodeInfo alone (their PreFilter/PreScore state depends on the pod only), as their facts
#: declare (``PluginFacts.node_local``): nothing else in the cluster changes their answer, so a
#: node whose NodeInfo is unchanged (same generation) gives the same answer to a pod with the same
#: spec. Plugins that read other nodes or objects, and custom plugins, are never memoized.
NODE_LOCAL_FILTERS = node_local_plugins("filter")
NODE_LOCAL_SCORES = node_local_plugins("score")
#: Memoized answers kept per node before that node's memo is dropped (bounds memory when
#: every pod of a batch is different).
_MEMO_PER_NODE = 64
_MISSING = object()
_SUCCESS = Code.Success
#: Whole node-local chains (pod signatures) whose failing scans ``known_rejections`` keeps.
_REJECTION_CHAINS = 8


def _builtin(plugin: Any) -> bool:
    return type(plugin).__module__.startswith("kschedctl.plugins.")


def _deallocated_a_claim(out: CycleOutcome) -> bool:
    """Whether DynamicResources' PostFilter deallocated a claim in this cycle."""
    trace = out.trace
    if trace is None:
        return False
    return any(st.point == "PostFilter" and st.plugin == DRA_NAME and st.status is not None
               and DRA_DEALLOCATION_COMPLETED in st.status.reasons for st in trace.stages)


def pod_signature(pod: dict) -> str:
    """What node-local plugins can see of a pod: everything but its name, uid, owner, the node
    fields the scheduler itself writes and its generated claims' names. Replicas of one workload
    share it."""
    meta = pod.get("metadata") or {}
    spec = dict(pod.get("spec") or {})
    spec.pop("nodeName", None)
    status = dict(pod.get("status") or {})
    status.pop("nominatedNodeName", None)
    # the names of the pod's generated ResourceClaims differ per replica; only DynamicResources,
    # which is never memoized, reads them
    status.pop("resourceClaimStatuses", None)
    return json.dumps([meta.get("namespace"), meta.get("labels"), meta.get("annotations"), spec, status],
                      sort_keys=True, separators=(",", ":"), default=str)


class _LeanFramework(Framework):
    """The runtime, for batches: no per-node records, and node-local answers memoized.

    - A cycle's trace keeps no per-node filter records (``filters = None`` makes
      ``find_nodes_that_pass_filters`` skip them); stages are still recorded.
    - With ``memo_key`` set (the pod's ``pod_signature``), the verdict of the node-local filters
      that run first in the chain (all of it when every filter is node-local) and the raw score
      of each node-local score plugin are remembered per node and reused while that node's
      NodeInfo generation is unchanged, for pods with the same signature; the filters after them
      run every time. Scratch copies of nodes (nominated pods added, preemption's dry run) are
      never memoized. The answers are the plugins' own; only repeated calls are saved.
      The runtime's score loop asks ``known_scores`` for them.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.memo_key: str | None = None
        self._memo: dict[str, tuple[int, dict]] = {}
        self._memo_plan: Any = None
        self._columns: NodeColumns | None = None
        #: Whether the node columns answer for every node at once (built under the run's settings).
        self._use_columns = fast_path_settings().columns
        #: this cycle's scores the columns gave, by plugin name (for their NormalizeScore)
        self._column_scored: dict[str, Any] = {}
        self._column_state: Any = None
        #: per whole node-local chain, every node's rejection of the last scan nobody passed
        self._rejections: dict[Any, _Rejections] = {}
        local = {name for name, fn in self._filters
                 if name in NODE_LOCAL_FILTERS and _builtin(getattr(fn, "__self__", None))}
        self._local_filters = frozenset(local)
        self._local_scores = frozenset(pl.name for pl in self.plugins["score"]
                                       if pl.name in NODE_LOCAL_SCORES and _builtin(pl))

    #: Keep this cycle's per-node filter records (a cycle the report drills into).
    keep_filters = False

    def begin_trace(self, all_filters: bool = False) -> Trace:
        trace = Trace()
        if not self.keep_filters:
            trace.filters = None  # type: ignore[assignment]
            trace.keep_scores = False
        self.trace = trace
        self.all_filters = all_filters
        return trace

    def _node_memo(self, node_info: Any) -> dict:
        entry = self._memo.get(node_info.name)
        generation = node_info.generation
        if entry is None or entry[0] != generation or len(entry[1]) > _MEMO_PER_NODE:
            entry = self._memo[node_info.name] = (generation, {})
        return entry[1]

    def _filter_plan(self, state: Any, key: str) -> tuple[Any, list, list]:
        """(memo key, node-local leading filters, the filters after them) of this cycle.

        The filters run in order and the first non-success decides, so the verdict of the
        leading node-local filters can be memoized even when later filters (PodTopologySpread,
        InterPodAffinity...) must run every time. Re-derived only when the pod signature or the
        skipped plugins change (a preemption dry run clones the state for every node).
        """
        plan = self._memo_plan
        skip = state.skip_filter_plugins
        if plan is None or plan[0] != key or skip != plan[1]:
            plan = self._memo_plan = self._make_plan(state, key)
        return plan[2], plan[3], plan[4]

    def _make_plan(self, state: Any, key: str) -> tuple:
        skip = state.skip_filter_plugins
        active = self._active_filters(state)
        n = 0
        while n < len(active) and active[n][0] in self._local_filters:
            n += 1
        fkey = (key, tuple(sorted(skip)))
        # The whole chain is node-local and no PreFilter extension (AddPod/RemovePod) would
        # change the state when pods are added or removed: a node's answer then depends on the
        # pod signature and that node's pods alone, even on a copy with pods added or removed.
        extensions = [name for name, _ in self._add_pod + self._remove_pod if name not in skip]
        chain_key = fkey if n == len(active) and not extensions else None
        return (key, frozenset(skip), fkey, active[:n], active[n:], chain_key)

    def node_local_chain_key(self, state: Any) -> Any:
        """A key for answers of the whole filter chain for this state when they depend only on
        the pod signature and the node (see ``_make_plan``), else None. Used by
        DefaultPreemption to reuse dry-run answers of nodes that did not change."""
        key = self.memo_key
        if key is None or self.all_filters:
            return None
        self._filter_plan(state, key)
        return self._memo_plan[5]

    def _is_snapshot_node(self, node_info: Any) -> bool:
        snapshot = self.handle.snapshot()
        get = getattr(snapshot, "get_or_none", None)
        return get is not None and get(node_info.name) is node_info

    def run_filter_plugins(self, state: Any, pod_info: Any, node_info: Any, record: list | None = None) -> Any:
        key = self.memo_key
        if key is None or record is not None or self.all_filters:
            return super().run_filter_plugins(state, pod_info, node_info, record)
        fkey, local, rest = self._filter_plan(state, key)
        if not local:
            return self._run_filters(rest, state, pod_info, node_info, None)
        name = node_info.name
        generation = node_info.generation
        entry = self._memo.get(name)
        if entry is None or entry[0] != generation or len(entry[1]) > _MEMO_PER_NODE:
            if not self._is_snapshot_node(node_info):
                # A scratch copy (nominated pods added, a preemption dry run): its generation is
                # never seen again, and the snapshot node's memo must stay.
                return self._run_filters(local + rest, state, pod_info, node_info, None)
            entry = self._memo[name] = (generation, {})
        memo = entry[1]
        try:
            status = memo[fkey]
        except KeyError:
            status = memo[fkey] = self._run_filters(local, state, pod_info, node_info, None)
        if status is not None or not rest:
            return status  # a node-local filter said no (or there is nothing else to run)
        return self._run_filters(rest, state, pod_info, node_info, None)

    def filter_scanner(self, state: Any, pod_info: Any) -> Any:
        """For one cycle's scan over the nodes: a function of the node alone that answers exactly
        as ``run_filter_plugins_with_nominated_pods(state, pod_info, node, None)``, with the least
        work per node: a node without nominated pods whose memoized verdict is current is answered
        by two dict lookups. None when nothing is memoized for this pod."""
        key = self.memo_key
        if key is None or self.all_filters:
            return None
        fkey, local, rest = self._filter_plan(state, key)
        if not local:
            return None
        memo = self._memo
        nominator = self.handle.nominator
        by_node = nominator.by_node if nominator is not None else {}
        slow = self.run_filter_plugins_with_nominated_pods
        run_rest = self._run_filters
        chain = self._memo_plan[5]
        priority, uid = pod_info.priority, pod_info.uid

        def scan(node_info: Any) -> Any:
            name = node_info.name
            nominated = by_node.get(name)
            if nominated:
                if chain is not None:
                    # the first pass's answer, memoized by run_filter_plugins_with_nominated_pods
                    # for these nominated pods: a "no" there is the node's answer
                    entry = memo.get(name)
                    if entry is not None and entry[0] == node_info.generation:
                        if len(nominated) == 1:  # the common case, without a generator
                            pi = nominated[0]
                            ge = (pi,) if pi.priority >= priority and pi.uid != uid else ()
                        else:
                            ge = tuple(pi for pi in nominated if pi.priority >= priority and pi.uid != uid)
                        status = entry[1].get(("nominated", chain, ge)) if ge else None
                        if status is not None and status.code != _SUCCESS:
                            trace = self.trace
                            if trace is not None:
                                trace.nominated_nodes.add(name)
                            return status
                return slow(state, pod_info, node_info, None)
            entry = memo.get(name)
            if entry is not None and entry[0] == node_info.generation:
                status = entry[1].get(fkey, _MISSING)
                if status is not _MISSING:
                    if status is not None or not rest:
                        return status
                    return run_rest(rest, state, pod_info, node_info, None)
            return slow(state, pod_info, node_info, None)

        return scan

    def filter_verdicts(self, state: Any, pod_info: Any, nodes: list) -> "_ColumnVerdicts | None":
        """For one cycle's scan: whether each node passes the whole filter chain, from the node
        columns; None unless every active filter is covered by them and nobody is nominated (the
        scan then asks node by node). The scanner still gives each rejected node's status (see
        ``filter_scanner``)."""
        key = self.memo_key
        if key is None or self.all_filters:
            return None
        nominator = self.handle.nominator
        if nominator is not None and any(nominator.by_node.values()):
            return None
        _, local, rest = self._filter_plan(state, key)
        if not local:
            return None
        at = self._column_positions(nodes)
        if at is None:
            return None
        # the filters after the node-local ones too (PodTopologySpread's), when the columns cover them
        verdicts = verdict_function(self._columns, local + rest, key, state, pod_info)  # type: ignore[arg-type]
        if verdicts is None:
            return None
        return _ColumnVerdicts(verdicts, at, len(nodes), self._columns)

    def known_rejections(self, state: Any, pod_info: Any, nodes: list,
                         scan: Callable[[Any], Any]) -> RejectedScan | None:
        """Every node's status, in ``nodes`` order (the snapshot's), with their counts, when every
        node rejects the pod and this is known from an earlier scan nobody passed for the same
        whole node-local chain (a preemptor of a batch, before its preemption; see
        ``remember_rejections``): only the nodes changed since, and those with nominated pods,
        are asked again (``scan``, the cycle's scanner), and only their counts change. None when
        that is not known, or when an asked node passes or errs: the scan then asks every node."""
        entry = self._rejections.get(self.node_local_chain_key(state))
        if entry is None or entry.nodes is not nodes or len(entry.statuses) != len(nodes):
            return None
        changed = NODE_CHANGES.since(entry.seen)
        if changed is None:
            return None
        index = entry.index
        for node_info in changed:
            i = index.get(node_info.name)
            if i is not None and nodes[i] is node_info:
                entry.forget(i)  # asked again below
        entry.seen = NODE_CHANGES.count
        nominator = self.handle.nominator
        by_node = nominator.by_node if nominator is not None else {}
        nominated = [index[name] for name, pods in by_node.items() if pods and name in index]
        statuses = entry.statuses
        out = list(statuses)
        kinds = dict(entry.kinds)
        codes = entry.codes.copy()
        asked = sorted(entry.pending)
        pending = entry.pending
        asked.extend(i for i in nominated if i not in pending)
        nominated_at = set(nominated)
        for i in asked:
            status = scan(nodes[i])
            if status is None or status.code in (Code.Success, Code.Error):
                return None
            was = out[i]
            if was is not None:  # a node nominated to since its status was kept
                kind = status_kind(was)
                left = kinds[kind] - 1
                if left:
                    kinds[kind] = left
                else:
                    del kinds[kind]
            out[i] = status
            kind = status_kind(status)
            kinds[kind] = kinds.get(kind, 0) + 1
            codes[i] = status.code
            if i not in nominated_at:
                entry.keep(i, status, kind)
        return _ScanColumns(nodes, index, out, kinds, codes)

    def remember_rejections(self, state: Any, nodes: list, statuses: Any) -> None:
        """After a scan of every node of ``nodes`` (the snapshot's) that none passed: their
        statuses, for ``known_rejections``; those of nodes with nominated pods are not kept."""
        chain = self.node_local_chain_key(state)
        if chain is None or nodes is not self.handle.snapshot().node_infos():
            return
        entry = self._rejections.get(chain)
        if entry is None or entry.nodes is not nodes:
            if len(self._rejections) >= _REJECTION_CHAINS:
                del self._rejections[next(iter(self._rejections))]
            entry = self._rejections[chain] = _Rejections(nodes)
        nominator = self.handle.nominator
        by_node = nominator.by_node if nominator is not None else {}
        get = statuses.get
        entry.reset([None if by_node.get(n.name) else get(n.name) for n in nodes])
        entry.seen = NODE_CHANGES.count

    def run_filter_plugins_with_nominated_pods(
        self, state: Any, pod_info: Any, node_info: Any, record: list | None = None
    ) -> Any:
        """The runtime's two passes; the first (nominated pods added, on a copy of the node) is
        memoized per node like the filters when the whole chain is node-local."""
        if record is not None:
            return super().run_filter_plugins_with_nominated_pods(state, pod_info, node_info, record)
        nominated = self.handle.nominated_pods_for_node(node_info.name)
        if not nominated:
            return self.run_filter_plugins(state, pod_info, node_info, None)
        priority, uid = pod_info.priority, pod_info.uid
        ge = tuple(pi for pi in nominated if pi.priority >= priority and pi.uid != uid)
        if not ge:
            return self.run_filter_plugins(state, pod_info, node_info, None)
        chain = self.node_local_chain_key(state)
        if chain is None or not self._is_snapshot_node(node_info):
            return super().run_filter_plugins_with_nominated_pods(state, pod_info, node_info, None)
        memo = self._node_memo(node_info)
        # The nominated PodInfos themselves are part of the key (what they request never changes).
        mkey = ("nominated", chain, ge)
        status = memo.get(mkey, _MISSING)
        if status is _MISSING:
            node_out = node_info.clone()
            state_out = state.clone()
            for pi in ge:
                node_out.add_pod(pi)
                s = self.run_pre_filter_extension_add_pod(state_out, pod_info, pi, node_out)
                if s is not None and s.code != Code.Success:
                    return Status(Code.Error, s.message(), error=s.error)
            status = memo[mkey] = self.run_filter_plugins(state_out, pod_info, node_out, None)
        if self.trace is not None:
            self.trace.nominated_nodes.add(node_info.name)
        if status is not None and status.code != Code.Success:
            return status
        return self.run_filter_plugins(state, pod_info, node_info, None)

    def known_scores(self, state: Any, pod_info: Any, nodes: list, plugins: list) -> dict[str, list[int]] | None:
        """The node-local plugins' raw scores, one memo lookup per node for all of them. On any
        failure none is known: the runtime's loop then asks them, and reports the error."""
        key = self.memo_key
        if key is None:
            return None
        known: dict[str, list[int]] = {}
        scored = self._column_scored = {}
        self._column_state = (state, pod_info)
        columnar = [pl for pl in plugins if covers_score(pl)]
        if columnar:
            at = self._column_positions(nodes)
            if at is not None:
                as_lists = self.trace is not None and self.trace.keep_scores  # a trace shows Python ints
                for pl in columnar:
                    scores = column_scores(self._columns, pl, state, at, key, pod_info)  # type: ignore[arg-type]
                    if scores is not None:
                        values = scores.values
                        if type(values) is np.ndarray and (as_lists or not normalized_by_columns(pl)):
                            values = values.tolist()
                        known[pl.name] = values
                        scored[pl.name] = (scores, values)
        local = [pl for pl in plugins if pl.name in self._local_scores and pl.name not in known]
        if not local:
            return known
        calls = [pl.score for pl in local]
        skey = ("scores", key, tuple(pl.name for pl in local))
        memos = self._memo
        rows: list[tuple[int, ...]] = []
        append = rows.append
        try:
            for node_info in nodes:
                entry = memos.get(node_info.name)
                if entry is None or entry[0] != node_info.generation or len(entry[1]) > _MEMO_PER_NODE:
                    entry = memos[node_info.name] = (node_info.generation, {})
                row = entry[1].get(skey)
                if row is None:
                    values = []
                    for fn in calls:
                        out = fn(state, pod_info, node_info)
                        if type(out) is tuple:
                            value, st = out
                            if st is not None and st.code != Code.Success:
                                return None
                        else:
                            value = out
                        values.append(int(value))
                    row = entry[1][skey] = tuple(values)
                append(row)
        except Exception:
            return known
        known.update(zip((pl.name for pl in local), (list(c) for c in zip(*rows))))
        return known

    def score_rows(self, names: NameView, plugin_names: list[str],
                   weighted_columns: list[Any]) -> Any:
        """With the node columns in use, the totals summed as an array and the rows made only
        when read (``ScoreRows``); else the runtime's rows."""
        if not self._use_columns:
            return super().score_rows(names, plugin_names, weighted_columns)
        return ScoreRows(names, plugin_names, weighted_columns, super().score_rows)

    def known_normalized(self, plugin: Any, values: list[int]) -> list[int] | None:
        """``plugin``'s NormalizeScore of the scores ``known_scores`` took from its column twin,
        when the twin has that form too."""
        entry = self._column_scored.get(plugin.name)
        if entry is None or values is not entry[1]:
            return None
        state, pod_info = self._column_state
        out = column_normalized(self._columns, plugin, state, pod_info, entry[0])  # type: ignore[arg-type]
        if type(out) is np.ndarray and type(values) is not np.ndarray:
            out = out.tolist()  # the raw scores went on as a list (a trace, or a plugin's own NormalizeScore)
        return out

    def weighted_scores(self, normalized: Any, weight: int) -> tuple[Any, int | None]:
        """The runtime's, on the arrays the column twins give."""
        if type(normalized) is not np.ndarray:
            return super().weighted_scores(normalized, weight)
        out = (normalized > MAX_NODE_SCORE) | (normalized < MIN_NODE_SCORE)
        if out.any():
            return normalized, int(normalized[out][0])
        return (normalized * weight if weight != 1 else normalized), None

    def _current_columns(self, snapshot: Any) -> NodeColumns | None:
        """The run's node columns of ``snapshot``, brought up to date (made anew for another
        snapshot or node list); None when ``snapshot`` has no NodeInfos to make them of."""
        columns = self._columns
        if columns is None or columns.snapshot is not snapshot or not columns.refresh():
            if snapshot is None or not hasattr(snapshot, "node_infos"):
                return None
            columns = self._columns = NodeColumns(snapshot)
        return columns

    def has_columns(self, snapshot: Any) -> bool:
        """Whether this framework keeps node columns of ``snapshot`` already."""
        return self._columns is not None and self._columns.snapshot is snapshot

    def usage(self, snapshot: Any, placed: dict[str, int] | None = None) -> UsageCapture:
        """Every node's usage now: from the node columns when they hold every node's amounts
        (numpy copies, not a record per node), else node by node."""
        columns = self._current_columns(snapshot) if self._use_columns else None
        if columns is not None and columns.all_safe:
            return UsageCapture(snapshot, placed, columns)
        return UsageCapture(snapshot, placed)

    def _column_positions(self, nodes: list) -> Any:
        """Where ``nodes`` sit in the run's node columns (brought up to date first); None when
        the columns do not cover them."""
        if not self._use_columns:
            return None
        columns = self._current_columns(self.handle.snapshot())
        if columns is None:
            return None
        if type(nodes) is ColumnNodes and nodes.columns is columns and columns.all_safe:
            return nodes.at  # the scan's own positions, the columns unchanged since
        return columns.positions(nodes)


class _ColumnVerdicts:
    """``NodeVerdicts`` from the node columns: ``verdicts`` answers for column indices, ``at``
    maps the scan's node positions to them (numpy arrays; the driver sees lists only)."""

    __slots__ = ("_verdicts", "_at", "_count", "_columns")

    def __init__(self, verdicts: Any, at: Any, count: int, columns: NodeColumns) -> None:
        self._verdicts = verdicts
        self._at = at
        self._count = count
        self._columns = columns

    def feasible(self, nodes: list, positions: list[int]) -> ColumnNodes:
        return ColumnNodes(nodes, self._at[positions], self._columns)

    def run(self, begin: int, end: int, need: int) -> "_ColumnRun":
        positions = np.arange(begin, end) % self._count
        return _ColumnRun(self._verdicts, self._at, positions, need)

    def statuses(self, positions: list[int]) -> list[Any]:
        return self._verdicts.statuses(self._at[positions])


class _ColumnRun:
    """One run of a ``_ColumnVerdicts`` scan (``VerdictRun``)."""

    __slots__ = ("_verdicts", "_at", "_positions", "_passing", "cut", "stop", "rejected")

    def __init__(self, verdicts: Any, at: Any, positions: Any, need: int) -> None:
        self._verdicts = verdicts
        self._at = at
        self._positions = positions
        passed = verdicts(at[positions])
        passing = self._passing = np.flatnonzero(passed)
        self.stop = len(passing) > need
        self.cut = int(passing[need]) if self.stop else len(positions)
        self.rejected: list[int] = np.flatnonzero(~passed[:self.cut]).tolist()

    def positions_of(self, offsets: list[int]) -> list[int]:
        return self._positions[offsets].tolist()

    def passed_before(self, cut: int) -> list[int]:
        passing = self._passing
        return self._positions[passing[passing < cut]].tolist()

    def visited(self, cut: int) -> list[int]:
        return self._positions[:cut].tolist()

    def certain(self) -> bool:
        return bool(self._verdicts.certain(self._at[self._positions[:self.cut]]))


class _ScanColumns(RejectedScan):
    """A ``RejectedScan`` with each node's code in a column (``positions`` without a walk)."""

    __slots__ = ("codes",)

    def __init__(self, nodes: list, index: dict[str, int], statuses: list, kinds: dict[tuple, int],
                 codes: np.ndarray) -> None:
        super().__init__(nodes, index, statuses, kinds)
        self.codes = codes

    def positions(self, code: Code) -> list[int]:
        return np.flatnonzero(self.codes == int(code)).tolist()


class _Rejections:
    """Every node's status in a scan nobody passed (None: to be asked again), in snapshot order,
    the position in the NodeInfo change log it is current at, and the counts of the kept
    statuses (``RejectedScan``'s: per status kind, each node's code), kept up to date."""

    __slots__ = ("nodes", "index", "statuses", "seen", "pending", "kinds", "codes")

    def __init__(self, nodes: list) -> None:
        self.nodes = nodes
        self.index = {n.name: i for i, n in enumerate(nodes)}
        self.statuses: list = []
        self.seen = 0
        #: positions whose status is None
        self.pending: set[int] = set()
        self.kinds: dict[tuple, int] = {}
        self.codes = np.zeros(len(nodes), dtype=np.int8)

    def reset(self, statuses: list) -> None:
        self.statuses = statuses
        self.pending = {i for i, status in enumerate(statuses) if status is None}
        kinds: dict[tuple, int] = {}
        codes = self.codes = np.zeros(len(statuses), dtype=np.int8)
        for i, status in enumerate(statuses):
            if status is not None:
                kind = status_kind(status)
                kinds[kind] = kinds.get(kind, 0) + 1
                codes[i] = status.code
        self.kinds = kinds

    def forget(self, i: int) -> None:
        """The node at ``i`` changed: its status is asked again."""
        status = self.statuses[i]
        if status is None:
            return
        kind = status_kind(status)
        left = self.kinds[kind] - 1
        if left:
            self.kinds[kind] = left
        else:
            del self.kinds[kind]
        self.statuses[i] = None
        self.pending.add(i)

    def keep(self, i: int, status: Status, kind: tuple) -> None:
        """The node at ``i`` (without nominated pods) answered ``status`` (of ``kind``)."""
        self.forget(i)
        self.statuses[i] = status
        self.pending.discard(i)
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        self.codes[i] = status.code


# ---------------------------------------------------------------------------------------------
# The simulator
# ---------------------------------------------------------------------------------------------


@dataclass
class _PodRecord:
    qp: QueuedPod | None
    pod_info: PodInfo
    source: str
    outcome: Outcome = Outcome.PENDING
    node: str | None = None
    message: str = ""
    order: int | None = None
    preempted_by: str | None = None
    signature: str | None = None


class Simulator(SchedulingSetup):
    """Schedules batches of pods against one cluster state under one configuration.

    The snapshot and each profile's framework are built once; ``run`` changes the snapshot
    (placements are assumed, victims removed), so a Simulator answers one batch.
    """

    def __init__(
        self,
        cluster: Any,
        config: Any = None,
        registry: Any = None,
        seed: int | None = None,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        pod_infos: Iterable[PodInfo] | None = None,
        memoize: bool = True,
        extenders: bool = True,
        decisions: int = 0,
        fast_paths: FastPaths | None = None,
    ) -> None:
        super().__init__(cluster, config, registry, seed=seed, pod_infos=pod_infos, extenders=extenders)
        #: The fast paths of this run (kschedctl.fastpaths): the process's unless given;
        #: ``memoize=False`` turns off those a run decides (memos, columns, plugins' caches).
        paths = fast_path_settings() if fast_paths is None else fast_paths
        self.fast_paths = paths if memoize else paths.without_run_paths()
        # A run places, nominates and marks the cluster's pending pods: it gets its own copies, so
        # that the cluster state (shared by diff's two sides, a sweep's cells) stays as it was read.
        self.cluster_pod_infos = [pi if pi.node_name else PodInfo(_run_copy(pi.pod))
                                  for pi in self.cluster_pod_infos]
        self.max_attempts = max_attempts
        #: How many pods' last cycle a run keeps as an ``ExplainResult`` (``result.decisions``,
        #: the report's drill-down); those cycles record every node's filters and scores.
        self.decisions = decisions
        #: "Now" at the start of a run (seconds since the epoch): the wall clock unless a caller
        #: stepping through virtual time sets it.
        self.clock_origin: float | None = None
        self.nominator = PodNominator()
        #: Pods held at Permit, shared by every profile as upstream's map is.
        self.waiting_pods = WaitingPods()
        parallelism = getattr(self.config, "parallelism", 16)
        with using_fast_paths(self.fast_paths):  # the plugins take their caches' settings as they are built
            self.frameworks: dict[str, Framework] = {
                name: build_framework(
                    _LeanFramework, self.profile(name), self.registry,
                    FrameworkHandle(self.snapshot, cluster, parallelism, self.nominator, self.waiting_pods))
                for name in self.profile_names()}
        global_pct = getattr(self.config, "percentage_of_nodes_to_score", 0)
        self.scheduler = Scheduler(self.snapshot, global_pct, seed=seed, extenders=self.extenders,
                                   hold_waiting_pods=True)
        self.scheduler.for_display = False  # a simulation's result shows no per-node scores

    @property
    def memoize(self) -> bool:
        """Whether node-local plugin answers are reused across pods with the same spec (see _LeanFramework)."""
        return self.fast_paths.memos

    def pending_cluster_pods(self) -> list[PodInfo]:
        """Pods of the cluster state waiting for a node (not bound, not finished, not terminating)."""
        return [pi for pi in self.cluster_pod_infos if waits_for_scheduler(pi.pod)]

    # -- the batch -----------------------------------------------------------------------------
    def run(
        self,
        pods: Iterable[dict],
        profile: str | None = None,
        include_cluster_pending: bool = True,
        progress: Callable[[int, int], None] | None = None,
        admit_pods: bool = True,
    ) -> SimulationResult:
        """Schedule ``pods`` plus, unless told otherwise, the cluster's pending pods; return
        placements, preemptions and usage.

        Each pod goes through admission first, on a copy (namespace, priority, uid), as
        ``explain`` does; ``admit_pods=False`` takes the dicts as they are (already admitted;
        the simulation then writes ``spec.nodeName`` into them).
        """
        if admit_pods:
            from kschedctl.inputs.cluster import admit

            pods = [admit(p, self.cluster) for p in pods]
        started = time.perf_counter()
        was_enabled = gc.isenabled()
        if self.fast_paths.process_shortcuts:
            gc.disable()  # many small acyclic records per cycle against a huge long-lived snapshot
        try:
            return self._run(pods, profile, include_cluster_pending, progress, started)
        finally:
            if was_enabled:
                gc.enable()

    def _usage(self, snapshot: Any, placed: dict[str, int] | None = None) -> UsageCapture:
        """Every node's usage now, through a framework of the run (the one keeping node columns
        of ``snapshot`` already, else the first), so that the columns are shared with its cycles."""
        frameworks = [f for f in self.frameworks.values() if isinstance(f, _LeanFramework)]
        if not frameworks:
            return UsageCapture(snapshot, placed)
        return next((f for f in frameworks if f.has_columns(snapshot)), frameworks[0]).usage(snapshot, placed)

    def _run(self, pods: Iterable[dict], profile: str | None, include_cluster_pending: bool,
             progress: Callable[[int, int], None] | None, started: float) -> SimulationResult:
        result = SimulationResult(seed=self.seed)
        result.nodes_before = self._usage(self.snapshot)  # type: ignore[assignment]  # made when read
        entries: list[tuple[PodInfo, str, str]] = []
        names = set(self.profile_names())
        if include_cluster_pending:
            skipped = 0
            for pi in self.pending_cluster_pods():
                if pi.scheduler_name not in names:
                    skipped += 1  # another scheduler's pod: not ours to place
                    continue
                entries.append((pi, pi.scheduler_name, "cluster"))
            if skipped:
                result.warnings.append(f"{skipped} pending pod(s) of the cluster state name a scheduler no profile "
                                       f"of the configuration serves; they were left out")
        seen = {pi.key for pi, _, _ in entries}
        not_handled: list[PodInfo] = []
        for pod in pods:
            pi = PodInfo(pod)
            if pi.key in seen:
                raise UsageError(f"pod {pi.key} is given twice (or is already pending in the cluster state)")
            seen.add(pi.key)
            if self.not_handled_reason(pi, profile):
                not_handled.append(pi)  # the others are scheduled as usual
                continue
            entries.append((pi, self.pick_profile(pi, profile), "file"))

        for pi, _, _ in entries:
            if pi.nominated_node_name:
                self.nominator.add(pi)

        first = self.frameworks[self.profile_names()[0]]
        queue = SchedulingQueue(
            first.queue_sort_func(), self._pre_enqueue,
            initial_backoff=getattr(self.config, "pod_initial_backoff_seconds", None) or 1.0,
            max_backoff=getattr(self.config, "pod_max_backoff_seconds", None) or 10.0,
            max_attempts=self.max_attempts, cluster=self.cluster,
            origin=float(int(time.time())) if self.clock_origin is None else self.clock_origin)
        # The batch's pods exist in the API server: plugins listing pods (Coscheduling counting
        # a group's members) see them all, and "now" is the batch's virtual clock.
        unscheduled = [pi for pi, _, _ in entries] + not_handled
        for fwk in self.frameworks.values():
            fwk.handle.unscheduled_pods = unscheduled
            fwk.handle.clock = queue.wall_time
        records: dict[str, _PodRecord] = {}
        for pi, prof, source in entries:
            qp = queue.add(pi, prof)
            rec = records[pi.key] = _PodRecord(qp, pi, source)
            if qp.gated:
                rec.outcome = Outcome.GATED
                rec.message = qp.gating_status.message() if qp.gating_status is not None else ""
        for pi in not_handled:
            records[pi.key] = _PodRecord(None, pi, "file", outcome=Outcome.NOT_HANDLED,
                                         message=self.not_handled_reason(pi, profile) or "")

        total = len(entries)
        cycles = 0
        scheduler = self.scheduler
        snapshot = self.snapshot
        skipped = self.skipped_extenders_warning()
        if skipped:
            result.warnings.append(skipped)
        held: dict[str, _Held] = {}
        loop = _Loop(queue, records, result, held)
        observe = CYCLE_OBSERVER.get()
        while True:
            qp = queue.pop()
            if qp is None:
                if not held:
                    break
                self._time_out_first(loop)
                self._settle(loop)
                continue
            cycles += 1
            # counted before the cycle: a run past its budget stops before doing more
            limits.charge(limits.NODE_CHECKS, max(1, snapshot.num_nodes()))
            pod_info = qp.pod_info
            fwk = self.frameworks[qp.profile]
            rec = records[pod_info.key]
            if self.memoize and rec.signature is None:
                rec.signature = pod_signature(pod_info.pod)
            fwk.memo_key = rec.signature  # type: ignore[attr-defined]
            drill = bool(self.decisions) and (pod_info.key in result.decisions
                                              or len(result.decisions) < self.decisions)
            if drill:
                fwk.keep_filters = scheduler.for_display = True  # type: ignore[attr-defined]
            out = scheduler.run_cycle(fwk, pod_info)
            if drill:
                fwk.keep_filters = scheduler.for_display = False  # type: ignore[attr-defined]
                from kschedctl.scheduler.cycle_result import build_result

                result.decisions[pod_info.key] = build_result(out, fwk, snapshot, seed=self.seed)
            if observe is not None:
                observe(pod_info, out)
            rec.order = cycles
            if out.warnings:  # an ignorable extender failed...: once per distinct message
                result.warnings.extend(w for w in out.warnings if w not in result.warnings)
            if len(out.tied_nodes) > 1 and out.selected_node:
                result.tie_breaks += 1
            if out.outcome == Outcome.WAITING and out.waiting is not None:
                self._hold(loop, qp, fwk, out)
            else:
                self._conclude(loop, qp, out)
            if held:
                self._settle(loop)
            active, backoff, waiting = queue.sizes()
            result.queue.append(QueueSample(cycles, pod_info.key, qp.attempts, out.outcome, active, backoff,
                                            waiting, round(queue.now, 3)))
            if progress is not None and (cycles & 63) == 0:
                progress(sum(1 for r in records.values() if r.outcome == Outcome.SCHEDULED), total)
        if progress is not None:
            progress(sum(1 for r in records.values() if r.outcome == Outcome.SCHEDULED), total)

        result.cycles = cycles
        for rec in sorted(records.values(), key=_report_order):
            pi = rec.pod_info
            result.placements.append(Placement(
                pod=pi.key, outcome=rec.outcome,
                node=rec.node if rec.outcome in (Outcome.SCHEDULED, Outcome.PREEMPTED) else None,
                message=rec.message, profile=rec.qp.profile if rec.qp else "", attempts=rec.qp.attempts if rec.qp else 0,
                nominated_node=pi.nominated_node_name or None if rec.outcome != Outcome.SCHEDULED else None,
                source=rec.source, order=rec.order, preempted_by=rec.preempted_by, priority=pi.priority,
                devices=self._devices_of(pi) if rec.outcome == Outcome.SCHEDULED else []))
        placed: dict[str, int] = {}
        for rec in records.values():
            if rec.outcome == Outcome.SCHEDULED and rec.node:
                placed[rec.node] = placed.get(rec.node, 0) + 1
        result.nodes = result.zones = self._usage(snapshot, placed)  # type: ignore[assignment]
        result.seconds = time.perf_counter() - started
        return result

    # -- pieces of the loop --------------------------------------------------------------------
    def _conclude(self, loop: "_Loop", qp: QueuedPod, out: CycleOutcome) -> None:
        """Act on the end of a pod's cycle (or of its binding, after a wait at Permit)."""
        queue = loop.queue
        pod_info = qp.pod_info
        rec = loop.records[pod_info.key]
        rec.outcome, rec.message = out.outcome, out.message
        if out.outcome == Outcome.SCHEDULED:
            self._nomination_left(queue, pod_info)  # the pod leaves the pending pods
            if pod_info.node_name != out.selected_node:
                self._place(pod_info, out.selected_node or "")
            _mark_bound(pod_info.pod, queue.wall_time())
            rec.node = out.selected_node
            queue.done(qp)
            queue.on_event(ASSIGNED_POD_ADD, pod_info)
        elif out.outcome in (Outcome.UNSCHEDULABLE, Outcome.REJECTED):
            diagnosis = out.diagnosis
            plugins = diagnosis.unschedulable_plugins if diagnosis is not None else set()
            pending = diagnosis.pending_plugins if diagnosis is not None else set()
            if out.preemption is not None and out.preemption.nominated_node_name:
                queue.add_unschedulable(qp, plugins, pending)
                self._preempt(qp, out, loop)
            elif plugins or pending:
                queue.add_unschedulable(qp, plugins, pending)
            else:
                queue.done(qp)  # nothing any event could change (no nodes at all)
            if out.clears_nomination:
                # PostFilter found no candidate: its empty nominated node clears the pod's
                # nomination (upstream's AddNominatedPod in ModeOverride), so other pods stop
                # counting the pod on that node.
                self._nomination_left(queue, pod_info)
                self._forget_nomination(pod_info)
            if _deallocated_a_claim(out):
                # the claim's update (allocated -> deallocated) is an event for every pod with claims
                queue.on_event(RESOURCE_CLAIM_DEALLOCATED, pod_info)
        else:
            # Error (kschedctl's plugins are deterministic: a retry would fail the same way)
            # and Gated at cycle time.
            queue.done(qp)
        if out.pods_to_activate:
            queue.activate(out.pods_to_activate)

    def _hold(self, loop: "_Loop", qp: QueuedPod, fwk: Framework, out: CycleOutcome) -> None:
        """A Permit plugin told the pod to Wait: it is assumed on its node (later pods see it)
        and held until it is allowed, rejected, or its first timer runs out."""
        waiting = out.waiting
        assert waiting is not None
        pod_info = qp.pod_info
        rec = loop.records[pod_info.key]
        self._place(pod_info, waiting.node_name)
        now = loop.queue.wall_time()
        waiting.deadlines = {plugin: now + timeout for plugin, timeout in waiting.pending.items()}
        self.waiting_pods.add(waiting)
        loop.held[pod_info.uid] = _Held(qp, fwk, out)
        rec.outcome, rec.message, rec.node = Outcome.WAITING, "", waiting.node_name
        if out.pods_to_activate:
            loop.queue.activate(out.pods_to_activate)

    def _settle(self, loop: "_Loop") -> None:
        """Finish the held pods that got their answer, in the order they started waiting.
        A rejected pod's Unreserve may reject others (Coscheduling rejects its whole group):
        they are finished in the same call."""
        held = loop.held
        while True:
            ready = [uid for uid, h in held.items() if h.out.waiting is not None and h.out.waiting.status is not None]
            if not ready:
                return
            for uid in ready:
                h = held.pop(uid)
                self.waiting_pods.remove(uid)
                self._release(loop, h)

    def _release(self, loop: "_Loop", h: "_Held") -> None:
        """The binding cycle of a pod that waited at Permit (upstream bindingCycle from
        WaitOnPermit on; on failure, handleBindingCycleError)."""
        out = h.out
        waiting = out.waiting
        assert waiting is not None and out.state is not None
        qp, pod_info, node = h.qp, h.qp.pod_info, waiting.node_name
        out = self.scheduler.binding_cycle(h.fwk, out.state, pod_info, node, out, waiting.status)
        if out.outcome != Outcome.SCHEDULED:
            # Unreserve ran; the assumed pod is forgotten, which is an AssignedPodDelete (of the
            # pod as assumed, on its node) for every other pod, not for the rejected pod itself.
            self.snapshot.forget_pod(pod_info, node)
            loop.records[pod_info.key].node = None
            self._conclude(loop, qp, out)
            loop.queue.on_event(ASSIGNED_POD_DELETE, pod_info, exclude=qp)
            self._clear_node(pod_info)
            return
        self._conclude(loop, qp, out)

    def _time_out_first(self, loop: "_Loop") -> None:
        """Nothing is left to schedule and pods wait at Permit: let virtual time run until the
        first of their timers fires, which rejects that pod."""
        first: tuple[float, int, Any, str] | None = None
        for i, h in enumerate(loop.held.values()):
            waiting = h.out.waiting
            assert waiting is not None
            for plugin, deadline in waiting.deadlines.items():
                if first is None or (deadline, i) < first[:2]:
                    first = (deadline, i, waiting, plugin)
        if first is None:  # every plugin allowed but the status is not set: cannot happen
            return
        deadline, _, waiting, plugin = first
        loop.queue.advance_to(deadline)
        waiting.time_out(plugin)

    def _pre_enqueue(self, qp: QueuedPod) -> Status | None:
        """PreEnqueue of the pod's profile (untraced: the cycle records its own)."""
        fwk = self.frameworks[qp.profile]
        fwk.trace = None
        status = fwk.run_pre_enqueue_plugins(qp.pod_info)
        if status is None or status.code == Code.Success:
            return None
        return status

    def _nomination_left(self, queue: SchedulingQueue, pod_info: PodInfo) -> None:
        """The pod's nominated node is about to change or go (cleared, moved, the pod bound):
        upstream's event handlers (updatePodInSchedulingQueue, deletePodFromSchedulingQueue)
        treat it as an AssignedPodDelete of the pod as it was, for the pods of lower or equal
        priority, which counted it on that node. The pod itself may be among them."""
        if pod_info.nominated_node_name:
            priority = pod_info.priority
            queue.on_event(ASSIGNED_POD_DELETE, pod_info, pre_check=lambda qp: qp.pod_info.priority <= priority)

    def _forget_nomination(self, pod_info: PodInfo) -> None:
        if pod_info.nominated_node_name:
            self.nominator.remove(pod_info)
            pod_info.nominated_node_name = ""
            status = pod_info.pod.get("status")
            if isinstance(status, dict):
                status.pop("nominatedNodeName", None)

    def _place(self, pod_info: PodInfo, node: str) -> None:
        """Assume the pod on ``node`` (upstream: the assumed copy has spec.nodeName set)."""
        pod_info.node_name = node
        spec = pod_info.pod.get("spec")
        if isinstance(spec, dict):
            spec["nodeName"] = node
        self._forget_nomination(pod_info)
        self.snapshot.assume_pod(pod_info, node)

    def _devices_of(self, pod_info: PodInfo) -> list[str]:
        """The devices (driver/pool/device) allocated to the pod's ResourceClaims in this run."""
        dra = self.snapshot.shared.get(DRA_SHARED_KEY)
        if dra is None or not (pod_info.pod.get("spec") or {}).get("resourceClaims"):
            return []
        try:
            claims = dra.pod_claims(pod_info.pod)
        except Exception:  # noqa: BLE001 - a placed pod's claims were found; nothing to report otherwise
            return []
        out = []
        for _, claim in claims:
            allocation = (claim.get("status") or {}).get("allocation") or {}
            out.extend(f"{r.get('driver')}/{r.get('pool')}/{r.get('device')}"
                       for r in ((allocation.get("devices") or {}).get("results") or ()))
        return out

    def _release_claims(self, victim: PodInfo) -> bool:
        """A deleted pod's ResourceClaims: the resourceclaim controller drops its reservations and
        deallocates what nobody reserves, the garbage collector deletes the claims made for it.
        Whether a claim was deallocated."""
        dra = self.snapshot.shared.get(DRA_SHARED_KEY)
        if dra is not None and (victim.pod.get("spec") or {}).get("resourceClaims"):
            return bool(dra.pod_removed(victim.pod))
        return False

    @staticmethod
    def _clear_node(pod_info: PodInfo) -> None:
        """A forgotten assumed pod is pending again: no node name."""
        pod_info.node_name = ""
        spec = pod_info.pod.get("spec")
        if isinstance(spec, dict):
            spec.pop("nodeName", None)

    def _preempt(self, qp: QueuedPod, out: CycleOutcome, loop: "_Loop") -> None:
        """Act on DefaultPreemption's answer: nominate the preemptor, evict the victims.

        A victim waiting at Permit is not deleted but rejected ("preempted", upstream
        prepareCandidate); its binding cycle then fails and forgets it."""
        pf = out.preemption
        assert pf is not None
        records, queue = loop.records, loop.queue
        node = pf.nominated_node_name
        pod_info = qp.pod_info
        if pod_info.nominated_node_name != node:
            self._nomination_left(queue, pod_info)
        self.nominator.remove(pod_info)
        pod_info.nominated_node_name = node
        pod_info.pod.setdefault("status", {})["nominatedNodeName"] = node
        self.nominator.add(pod_info, node)
        node_info = self.snapshot.get_or_none(node)
        victims: list[str] = []
        for key in pf.victims:
            victim = None
            if node_info is not None:
                victim = next((p for p in node_info.pods if p.key == key), None)
            if victim is None:
                continue
            victims.append(key)
            waiting = self.waiting_pods.get(victim.uid)
            if waiting is not None:
                waiting.reject(PREEMPTION_PLUGIN, "preempted")
                continue
            self.snapshot.forget_pod(victim, node)
            deallocated = self._release_claims(victim)
            rec = records.get(key)
            if rec is not None:
                rec.outcome = Outcome.PREEMPTED
                rec.preempted_by = pod_info.key
                rec.message = f"preempted by {pod_info.key} on node {node}"
            queue.on_event(ASSIGNED_POD_DELETE, victim)
            if deallocated:
                queue.on_event(RESOURCE_CLAIM_DEALLOCATED, victim)
        # Pods nominated to that node with a lower priority lose their nomination (upstream
        # prepareCandidate clears it) so they do not hold the room the preemptor made.
        for other in list(self.nominator.nominated_pods_for_node(node)):
            if other.priority < pod_info.priority and other is not pod_info:
                self._nomination_left(queue, other)
                self.nominator.remove(other)
                other.nominated_node_name = ""
        loop.result.preemptions.append(PreemptionRecord(pod_info.key, node, victims))


@dataclass
class _Held:
    """A pod waiting at Permit: its queue entry, its profile's framework and its cycle so far."""

    qp: QueuedPod
    fwk: Framework
    out: CycleOutcome


@dataclass
class _Loop:
    """What the pieces of one batch's loop share."""

    queue: SchedulingQueue
    records: dict[str, "_PodRecord"]
    result: SimulationResult
    held: dict[str, _Held]


def _report_order(rec: _PodRecord) -> tuple:
    # Placed pods in the order they were placed, then the others in the order they were tried,
    # gated pods last.
    return (0 if rec.outcome in (Outcome.SCHEDULED, Outcome.PREEMPTED) else 1 if rec.order is not None else 2,
            rec.order if rec.order is not None else 0, rec.qp.seq if rec.qp else 0)


def simulate(
    pods: Iterable[dict],
    cluster: Any,
    config: Any = None,
    profile: str | None = None,
    seed: int | None = None,
    include_cluster_pending: bool = True,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
) -> SimulationResult:
    """Schedule ``pods`` one after another in ``cluster`` under ``config`` (built-in default)."""
    return Simulator(cluster, config, seed=seed, max_attempts=max_attempts).run(
        pods, profile, include_cluster_pending=include_cluster_pending)


def _run_copy(pod: dict) -> dict:
    """A pod whose top level, spec and status a run may change without touching ``pod``."""
    copy = dict(pod)
    for key in ("spec", "status"):
        if isinstance(pod.get(key), dict):
            copy[key] = dict(pod[key])
    return copy


def _mark_bound(pod: dict, now: float) -> None:
    """What the API server writes when the pod is bound: ``PodScheduled=True`` at the (virtual)
    time of binding, which plugins that look at when a pod was scheduled read. The pod gets a
    new status dict: the old one may be shared with pods still pending (replicas built by copying
    a template shallowly), which must not look bound."""
    status = pod.get("status")
    if status is not None and not isinstance(status, dict):
        return
    status = status or {}
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(now)))
    condition = {"type": "PodScheduled", "status": "True", "lastTransitionTime": stamp}
    conditions = [c for c in status.get("conditions") or () if not (isinstance(c, dict) and c.get("type") == "PodScheduled")]
    pod["status"] = {**status, "conditions": [*conditions, condition]}
