"""The framework runtime: one profile's plugins, run at each extension point as upstream runs them.

Follows pkg/scheduler/framework/runtime/framework.go (kube-scheduler v1.34): PreFilter with Skip
and PreFilterResult intersection, Filter stopping at the first failure (``all_filters`` runs them
all, for reports, those after the first failure with ``CycleState.display_only`` set), two-pass
filtering with nominated pods, PostFilter, PreScore with Skip,
Score + NormalizeScore + weights, Reserve/Unreserve, Permit (Wait with its timeout), PreBind,
Bind, PostBind. Statuses are wrapped and stamped with the plugin name exactly where upstream
does it, so messages match word for word. A plugin that raises is contained: an Error status
naming the plugin and the exception.

Every call is recorded into a ``Trace`` (small tuples, no copies) that the reports read.
A plugin configured at an extension point whose method it lacks is refused when the framework
is built, as upstream's NewFramework refuses it, so the hot loops call every plugin they hold.

The vocabulary it shares with plugins and the scheduler lives next to it: ``diagnosis.py``
(NodeToStatus, Diagnosis, FitError), ``trace.py`` (the record of a cycle), ``nominator.py`` and
``waiting_pods.py``; their names are importable from here too.
"""

from __future__ import annotations

import random
import time
from functools import cached_property
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, NamedTuple, Protocol, Sequence

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interfaces import (
    EXTENSION_POINT_METHODS,
    MAX_NODE_SCORE,
    MAX_TOTAL_SCORE,
    MIN_NODE_SCORE,
    NodeScore,
    Plugin,
)
from kschedctl.framework.status import Code, PostFilterResult, PreFilterResult, Status
from kschedctl.framework.diagnosis import Diagnosis, FitError, NodeToStatus, RejectedScan, go_list  # noqa: F401 - re-exported
from kschedctl.framework.nominator import PodNominator  # noqa: F401 - re-exported
from kschedctl.framework.trace import NodePluginScores, StageRecord, Trace  # noqa: F401 - re-exported
from kschedctl.framework.waiting_pods import WaitingPod, WaitingPods, go_duration  # noqa: F401 - re-exported

if TYPE_CHECKING:  # pragma: no cover
    from kschedctl.framework.types import NodeInfo, PodInfo

_NAME = attrgetter("name")

#: Pod phases the pod informer of the scheduler never lists.
_FINISHED_PHASES = frozenset({"Succeeded", "Failed"})

#: Upper bound of a Permit wait (upstream maxTimeout, 15 minutes), in seconds.
MAX_PERMIT_TIMEOUT = 15 * 60.0

#: Extension points in upstream's spelling, as the reports show them.
POINT_NAMES = {
    "preEnqueue": "PreEnqueue",
    "queueSort": "QueueSort",
    "preFilter": "PreFilter",
    "filter": "Filter",
    "postFilter": "PostFilter",
    "preScore": "PreScore",
    "score": "Score",
    "reserve": "Reserve",
    "permit": "Permit",
    "preBind": "PreBind",
    "bind": "Bind",
    "postBind": "PostBind",
}

_SUCCESS = Code.Success
_ERROR = Code.Error
_SKIP = Code.Skip
_WAIT = Code.Wait
_UNRESOLVABLE = Code.UnschedulableAndUnresolvable
_REJECTED = frozenset({Code.Unschedulable, Code.UnschedulableAndUnresolvable, Code.Pending})


# ---------------------------------------------------------------------------------------------


def informer_pods(cluster: Any, snapshot: Any, unscheduled: Iterable["PodInfo"] = ()) -> Iterator[dict]:
    """Every pod the scheduler's pod informer would list, each once by ``namespace/name``, in
    its latest version: as placed on a snapshot node, else as pending in a simulated batch, else
    as the cluster state holds it (a simulation works on its own copies of the cluster's pending
    pods). Cluster state pods come first (not finished ones), then the other placed pods, then the
    other pending ones."""
    latest: dict[str, dict] = {}
    if snapshot is not None:
        for node_info in snapshot.node_infos():
            for pi in node_info.pods:
                latest.setdefault(pi.key, pi.pod)
    for pi in unscheduled:
        latest.setdefault(pi.key, pi.pod)
    seen: set[str] = set()
    for pod in getattr(cluster, "pods", None) or ():
        if ((pod.get("status") or {}).get("phase") or "") in _FINISHED_PHASES:
            continue
        meta = pod.get("metadata") or {}
        key = f"{meta.get('namespace') or 'default'}/{meta.get('name') or ''}"
        if key not in seen:
            seen.add(key)
            yield latest.get(key, pod)
    for key, pod in latest.items():
        if key not in seen:
            seen.add(key)
            yield pod


class FrameworkHandle:
    """What plugins get at construction: the current snapshot, the cluster, the run's settings.

    The scheduler swaps the snapshot between cycles; plugins must read it through ``snapshot()``
    each time, as upstream plugins read the SharedLister.
    """

    def __init__(
        self,
        snapshot: Any = None,
        cluster: Any = None,
        parallelism: int = 16,
        nominator: PodNominator | None = None,
        waiting_pods: WaitingPods | None = None,
    ) -> None:
        self._snapshot = snapshot
        self._cluster = cluster
        self._parallelism = parallelism
        self.nominator = nominator if nominator is not None else PodNominator()
        self.waiting_pods = waiting_pods if waiting_pods is not None else WaitingPods()
        self.framework: "Framework | None" = None
        #: Source of the random choices plugins make in a cycle, seeded per pod by the caller;
        #: None lets a plugin start a fresh seeded one per pod itself.
        self.rng: random.Random | None = None
        #: Pods that exist in the API server without being in the cluster state's pod list: the
        #: pending pods of a simulated batch (the pod informer lists them all).
        self.unscheduled_pods: list["PodInfo"] = []
        #: The clock plugins read through ``now()``; a simulation runs its own.
        self.clock: Callable[[], float] = time.time
        #: Per pod key, the node preemption takes when it is among the candidates that tie on
        #: every criterion (upstream: the first of a Go map, random); replay's real choices.
        self.tie_breaks: dict[str, str] = {}

    def snapshot(self) -> Any:
        return self._snapshot

    snapshot_shared_lister = snapshot

    def set_snapshot(self, snapshot: Any) -> None:
        self._snapshot = snapshot

    def cluster(self) -> Any:
        return self._cluster

    def set_cluster(self, cluster: Any) -> None:
        self._cluster = cluster

    def parallelism(self) -> int:
        return self._parallelism

    def nominated_pods_for_node(self, node_name: str) -> list["PodInfo"]:
        return self.nominator.nominated_pods_for_node(node_name)

    def run_filter_plugins_with_nominated_pods(
        self, state: CycleState, pod_info: "PodInfo", node_info: "NodeInfo"
    ) -> Status | None:
        assert self.framework is not None, "handle not attached to a framework"
        return self.framework.run_filter_plugins_with_nominated_pods(state, pod_info, node_info)

    def run_pre_filter_extension_add_pod(self, state, pod_info, pod_info_to_add, node_info) -> Status | None:
        assert self.framework is not None, "handle not attached to a framework"
        return self.framework.run_pre_filter_extension_add_pod(state, pod_info, pod_info_to_add, node_info)

    def run_pre_filter_extension_remove_pod(self, state, pod_info, pod_info_to_remove, node_info) -> Status | None:
        assert self.framework is not None, "handle not attached to a framework"
        return self.framework.run_pre_filter_extension_remove_pod(state, pod_info, pod_info_to_remove, node_info)

    # -- pods waiting at Permit (upstream Handle's waiting-pod methods) ------------------------
    def iterate_over_waiting_pods(self, callback: Callable[[WaitingPod], None]) -> None:
        self.waiting_pods.iterate(callback)

    def get_waiting_pod(self, uid: str) -> WaitingPod | None:
        return self.waiting_pods.get(uid)

    def reject_waiting_pod(self, uid: str) -> bool:
        waiting_pod = self.waiting_pods.get(uid)
        if waiting_pod is None:
            return False
        waiting_pod.reject("", "removed")
        return True

    # -- what the pod informer and the clock would say ---------------------------------------
    def list_pods(self) -> Iterator[dict]:
        """Every pod the scheduler's pod informer would list (see ``informer_pods``)."""
        return informer_pods(self._cluster, self._snapshot, self.unscheduled_pods)

    def now(self) -> float:
        return self.clock()

    def profile_name(self) -> str:
        return self.framework.profile_name if self.framework is not None else ""

    def warn(self, message: str) -> None:
        """Tell the user something about this cycle that the statuses cannot say (once per cycle):
        e.g. that a plugin lacked the data it scores on. Shown with the cycle's result."""
        trace = self.framework.trace if self.framework is not None else None
        if trace is not None and message not in trace.warnings:
            trace.warnings.append(message)


# ---------------------------------------------------------------------------------------------
# The framework
# ---------------------------------------------------------------------------------------------


def _raised(plugin: str, method: str, exc: BaseException) -> Status:
    """The Error status of a plugin that raised instead of returning a status."""
    return Status(Code.Error, f"plugin {plugin} raised {type(exc).__name__} in {method}: {exc}", error=exc,
                  plugin=plugin)


def _err(message: str, plugin: str = "", cause: BaseException | None = None) -> Status:
    return Status(Code.Error, message, error=cause, plugin=plugin)


def filter_failure(name: str, status: Status) -> Status:
    """A filter's non-success as RunFilterPlugins reports it: a rejection stamped with the
    plugin, anything else (filters may only say Success or Unschedulable*) wrapped as an error."""
    if status.code in _REJECTED:
        status.plugin = name
        return status
    return _err(f'running "{name}" filter plugin: {status.message()}', name, status.as_error())


class _ScoreFailure(NamedTuple):
    """Why a plugin's Score or NormalizeScore failed: the message and its cause."""

    text: str
    error: BaseException | None

    def message(self) -> str:
        return self.text


class _NodeScoreRow(NodePluginScores):
    """A node's scores as the score loop builds them for every node of a cycle: the (plugin,
    score) list, which selectHost does not read, is made on first use only."""

    def __init__(self, name: str, plugins: list[str], row: tuple[int, ...], total: int) -> None:
        self.name = name
        self.total_score = total
        self._plugins = plugins
        self._row = row

    @cached_property
    def scores(self) -> list[tuple[str, int]]:  # type: ignore[override]
        return list(zip(self._plugins, self._row))


class VerdictRun(Protocol):
    """The filter verdicts of one run of consecutive nodes of a scan, in visit order (see
    ``Framework.filter_verdicts``). Offsets count from the run's first node; positions index
    the scan's node list."""

    #: How many of the run's nodes the scan visits: up to, not including, the passing node one
    #: past the ``need`` asked for (which would cancel the scan), else all of them.
    cut: int
    #: Whether that passing node exists (the scan ends in this run).
    stop: bool
    #: Offsets of the rejected nodes among the first ``cut``, ascending.
    rejected: list[int]

    def positions_of(self, offsets: list[int]) -> list[int]:
        """The positions of the nodes at ``offsets``."""

    def passed_before(self, cut: int) -> list[int]:
        """The positions of the passing nodes among the first ``cut``, in visit order."""

    def visited(self, cut: int) -> list[int]:
        """The positions of the first ``cut`` nodes, in visit order."""

    def certain(self) -> bool:
        """Whether every rejection among the first ``cut`` is a plain one (no filter raised or
        erred, which would have ended the scan)."""


class NodeVerdicts(Protocol):
    """Every node's filter verdict at once, for one cycle's scan (simulate's node columns)."""

    def run(self, begin: int, end: int, need: int) -> VerdictRun:
        """The verdicts of the nodes visited ``begin`` to ``end`` (counted from the scan's
        first position, wrapping around the node list); ``need`` is how many more passing
        nodes the scan looks for."""

    def feasible(self, nodes: list["NodeInfo"], positions: list[int]) -> list["NodeInfo"]:
        """The scan's feasible ``nodes`` (at ``positions`` of the scan's node list), as they are
        handed on to PreScore and Score (simulate's: with their places in the node columns)."""

    def statuses(self, positions: list[int]) -> list[Status | None]:
        """The status the filter chain gives each rejected node at ``positions`` (of the scan's
        node list, rejections vouched for by ``VerdictRun.certain``), as the scan one node at a
        time would get it; None where it must be asked that way."""


class NameView(Sequence[str]):
    """The names of ``nodes``, each read when asked: a cycle whose scores are summed as arrays
    reads only the names of the nodes tied at the top."""

    __slots__ = ("_nodes",)

    def __init__(self, nodes: Sequence["NodeInfo"]) -> None:
        self._nodes = nodes

    def __len__(self) -> int:
        return len(self._nodes)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [n.name for n in self._nodes[i]]
        return self._nodes[i].name

    def __iter__(self) -> Iterator[str]:
        return map(_NAME, self._nodes)

    def at(self, positions: Iterable[int]) -> list[str]:
        """The names at ``positions``."""
        nodes = self._nodes
        return [nodes[i].name for i in positions]


class Framework:
    """One profile's plugins per extension point, with upstream's ``Run*`` semantics.

    ``plugins`` maps each extension point (config spelling) to plugin instances in run order;
    each must have the method of its point (ValueError otherwise, upstream's start-up refusal).
    ``weights`` are the Score weights (upstream getScoreWeights: 0 or unset means 1).
    """

    def __init__(
        self,
        profile_name: str,
        plugins: dict[str, list[Any]],
        weights: dict[str, int] | None = None,
        percentage_of_nodes_to_score: int | None = None,
        handle: FrameworkHandle | None = None,
    ) -> None:
        self.profile_name = profile_name
        self.percentage_of_nodes_to_score = percentage_of_nodes_to_score
        self.handle = handle if handle is not None else FrameworkHandle()
        self.handle.framework = self
        self.plugins: dict[str, list[Any]] = {p: list(plugins.get(p, ())) for p in EXTENSION_POINT_METHODS}
        for point, method in EXTENSION_POINT_METHODS.items():
            for pl in self.plugins[point]:
                if not callable(getattr(pl, method, None)):
                    raise ValueError(f'plugin "{pl.name}" does not extend {POINT_NAMES[point]}Plugin plugin')
        self.weights: dict[str, int] = {}
        for pl in self.plugins["score"]:
            w = (weights or {}).get(pl.name) or 1
            self.weights[pl.name] = int(w)
        total = 0
        for w in self.weights.values():
            if w * MAX_NODE_SCORE > MAX_TOTAL_SCORE - total:
                raise ValueError("total score of Score plugins could overflow")
            total += w * MAX_NODE_SCORE
        self.trace: Trace | None = None
        self.all_filters = False
        # Bound methods for the hot loops, taken once.
        self._filters: list[tuple[str, Callable]] = self._bind("filter")
        self._filter_cache_skip: frozenset[str] = frozenset()
        self._filter_cache: list[tuple[str, Callable]] = self._filters
        self._add_pod = [(pl.name, pl.add_pod) for pl in self.plugins["preFilter"]
                         if callable(getattr(pl, "add_pod", None))]
        self._remove_pod = [(pl.name, pl.remove_pod) for pl in self.plugins["preFilter"]
                            if callable(getattr(pl, "remove_pod", None))]

    # -- construction helpers -----------------------------------------------------------------
    def _bind(self, point: str) -> list[tuple[str, Callable]]:
        method = EXTENSION_POINT_METHODS[point]
        return [(pl.name, getattr(pl, method)) for pl in self.plugins[point]]

    def plugin_names(self, point: str) -> list[str]:
        return [pl.name for pl in self.plugins[point]]

    def has_filter_plugins(self) -> bool:
        return bool(self.plugins["filter"])

    def start_afresh(self) -> None:
        """Each plugin that keeps run state between cycles (a cache of reserved pods, gang
        back-offs) forgets what earlier cycles left there (``Plugin.start_afresh``)."""
        seen: set[int] = set()
        for plugins in self.plugins.values():
            for pl in plugins:
                if id(pl) in seen:
                    continue
                seen.add(id(pl))
                if isinstance(pl, Plugin):
                    pl.start_afresh()

    def has_post_filter_plugins(self) -> bool:
        return bool(self.plugins["postFilter"])

    def has_score_plugins(self) -> bool:
        return bool(self.plugins["score"])

    def queue_sort_func(self) -> Callable[[Any, Any], bool]:
        for pl in self.plugins["queueSort"]:
            return pl.less
        return lambda a, b: False

    def begin_trace(self, all_filters: bool = False) -> Trace:
        """Start recording a new cycle (the previous trace is dropped)."""
        self.trace = Trace()
        self.all_filters = all_filters
        return self.trace

    # -- the engine's hooks: a batch runtime (simulate's) answers them from what it keeps -------
    # The runtime itself keeps nothing, so each says "not known" and the driver asks the plugins.
    def filter_scanner(self, state: CycleState, pod_info: "PodInfo") -> Callable[["NodeInfo"], Status | None] | None:
        """A function of the node alone answering as ``run_filter_plugins_with_nominated_pods``
        would for one cycle's scan, with less work per node; None: the driver runs the filters."""
        return None

    def filter_verdicts(self, state: CycleState, pod_info: "PodInfo", nodes: list["NodeInfo"]) -> NodeVerdicts | None:
        """Every node's verdict at once for one cycle's scan; None: the nodes are asked one by one."""
        return None

    def known_rejections(self, state: CycleState, pod_info: "PodInfo", nodes: list["NodeInfo"],
                         scan: Callable[["NodeInfo"], Any]) -> RejectedScan | None:
        """Every node's status (``nodes`` order) and their counts when every node is known to
        reject the pod from an earlier scan; None when that is not known."""
        return None

    def remember_rejections(self, state: CycleState, nodes: list["NodeInfo"], statuses: NodeToStatus) -> None:
        """After a scan none of ``nodes`` passed: their statuses, for ``known_rejections``."""

    def node_local_chain_key(self, state: CycleState) -> Any:
        """A key for answers of the whole filter chain when they depend only on the pod's
        signature and the node (DefaultPreemption then reuses dry-run answers); None: they may not."""
        return None

    # -- PreEnqueue ---------------------------------------------------------------------------
    def run_pre_enqueue_plugins(self, pod_info: "PodInfo") -> Status | None:
        """Upstream runPreEnqueuePlugins: the first non-success gates the pod (plugin stamped)."""
        trace = self.trace
        for pl in self.plugins["preEnqueue"]:
            try:
                s = pl.pre_enqueue(pod_info)
            except Exception as exc:
                s = _raised(pl.name, "PreEnqueue", exc)
            if trace is not None:
                trace.stage("PreEnqueue", pl.name, s)
            if s is not None and s.code != _SUCCESS:
                s.plugin = pl.name
                return s
        return None

    # -- PreFilter ----------------------------------------------------------------------------
    def run_pre_filter_plugins(
        self, state: CycleState, pod_info: "PodInfo"
    ) -> tuple[PreFilterResult | None, Status | None, set[str]]:
        """Upstream RunPreFilterPlugins: (merged PreFilterResult, status, plugins that narrowed nodes)."""
        trace = self.trace
        skip: set[str] = set()
        result: PreFilterResult | None = None
        plugins_with_nodes: set[str] = set()
        return_status: Status | None = None
        snapshot = self.handle.snapshot()
        nodes = snapshot.node_infos() if snapshot is not None else []
        try:
            for pl in self.plugins["preFilter"]:
                name = pl.name
                try:
                    out = pl.pre_filter(state, pod_info, nodes)
                    r, s = out if isinstance(out, tuple) else (None, out)
                except Exception as exc:
                    r, s = None, _raised(name, "PreFilter", exc)
                if trace is not None:
                    extra = None
                    if r is not None and not r.all_nodes() and (s is None or s.code == _SUCCESS):
                        extra = {"nodes": sorted(r.node_names or ())}
                    trace.stage("PreFilter", name, s, extra)
                if s is not None and s.code == _SKIP:
                    skip.add(name)
                    continue
                if s is not None and s.code != _SUCCESS:
                    s.plugin = name
                    if s.code == _UNRESOLVABLE:
                        # No preemption can help this cycle, so the other PreFilters need not run.
                        return None, s, set()
                    if s.code in _REJECTED:
                        # Preemption runs later and needs every PreFilter's state: keep going.
                        return_status = s
                        continue
                    return None, _err(f'running PreFilter plugin "{name}": {s.message()}', name, s.as_error()), set()
                if r is not None and not r.all_nodes():
                    plugins_with_nodes.add(name)
                result = r if result is None else result.merge(r)
                if result is not None and not result.all_nodes() and not result.node_names:
                    if len(plugins_with_nodes) == 1:
                        msg = f"node(s) didn't satisfy plugin {next(iter(plugins_with_nodes))}"
                    else:
                        msg = f"node(s) didn't satisfy plugin(s) {go_list(plugins_with_nodes)} simultaneously"
                    return result, Status(_UNRESOLVABLE, msg), plugins_with_nodes
            return result, return_status, plugins_with_nodes
        finally:
            state.skip_filter_plugins = skip

    def run_pre_filter_extension_add_pod(
        self, state: CycleState, pod_info: "PodInfo", pod_info_to_add: "PodInfo", node_info: "NodeInfo"
    ) -> Status | None:
        return self._run_pre_filter_extension("AddPod", self._add_pod, state, pod_info, pod_info_to_add, node_info)

    def run_pre_filter_extension_remove_pod(
        self, state: CycleState, pod_info: "PodInfo", pod_info_to_remove: "PodInfo", node_info: "NodeInfo"
    ) -> Status | None:
        return self._run_pre_filter_extension("RemovePod", self._remove_pod, state, pod_info, pod_info_to_remove,
                                              node_info)

    def _run_pre_filter_extension(
        self, label: str, extensions: list[tuple[str, Callable]], state: CycleState, pod_info: "PodInfo",
        other: "PodInfo", node_info: "NodeInfo",
    ) -> Status | None:
        """AddPod / RemovePod of the PreFilter plugins that did not Skip; the first failure is an Error."""
        skip = state.skip_filter_plugins
        for name, fn in extensions:
            if name in skip:
                continue
            try:
                s = fn(state, pod_info, other, node_info)
            except Exception as exc:
                s = _raised(name, label, exc)
            if s is not None and s.code != _SUCCESS:
                return _err(f'running {label} on PreFilter plugin "{name}": {s.message()}', cause=s.as_error())
        return None

    # -- Filter -------------------------------------------------------------------------------
    def _active_filters(self, state: CycleState) -> list[tuple[str, Callable]]:
        skip = state.skip_filter_plugins
        if not skip:
            return self._filters
        # Compared by content, not by id(): cycle states (and their clones in preemption's dry
        # run) come and go, and a freed set's id can be handed to the next cycle's set.
        if skip != self._filter_cache_skip:
            self._filter_cache = [(n, f) for n, f in self._filters if n not in skip]
            self._filter_cache_skip = frozenset(skip)
        return self._filter_cache

    def run_filter_plugins(
        self,
        state: CycleState,
        pod_info: "PodInfo",
        node_info: "NodeInfo",
        record: list | None = None,
    ) -> Status | None:
        """Upstream RunFilterPlugins: the first non-success, rejections stamped, others wrapped.

        With ``self.all_filters`` every filter runs (for the report); the verdict is still the
        first non-success, as upstream would have stopped there.
        """
        return self._run_filters(self._active_filters(state), state, pod_info, node_info, record)

    def _run_filters(
        self,
        filters: list[tuple[str, Callable]],
        state: CycleState,
        pod_info: "PodInfo",
        node_info: "NodeInfo",
        record: list | None = None,
    ) -> Status | None:
        """``run_filter_plugins`` over the given (name, filter) pairs, in order."""
        first: Status | None = None
        all_filters = self.all_filters
        for name, fn in filters:
            try:
                status = fn(state, pod_info, node_info)
            except Exception as exc:
                status = _raised(name, "Filter", exc)
            if status is not None and status.code != _SUCCESS:
                status = filter_failure(name, status)
                if record is not None:
                    record.append((name, status))
                if not all_filters:
                    return status
                if first is None:
                    first = status
                    # upstream stops here: the filters after this one run for the report only
                    state.display_only = True
            elif record is not None:
                # a Success with details (e.g. the devices a node would give) is kept for reports
                record.append((name, status if status is not None and status.details else None))
        if first is not None:
            state.display_only = False
        return first

    def run_filter_plugins_with_nominated_pods(
        self,
        state: CycleState,
        pod_info: "PodInfo",
        node_info: "NodeInfo",
        record: list | None = None,
    ) -> Status | None:
        """Filters with equal-or-higher-priority nominated pods added, then (if that passed and
        some were added) again without them, as upstream: both must pass."""
        nominated = self.handle.nominated_pods_for_node(node_info.name)
        if not nominated:
            return self.run_filter_plugins(state, pod_info, node_info, record)
        priority, uid = pod_info.priority, pod_info.uid
        ge = [pi for pi in nominated if pi.priority >= priority and pi.uid != uid]
        if not ge:
            return self.run_filter_plugins(state, pod_info, node_info, record)
        node_out = node_info.clone()
        state_out = state.clone()
        for pi in ge:
            node_out.add_pod(pi)
            s = self.run_pre_filter_extension_add_pod(state_out, pod_info, pi, node_out)
            if s is not None and s.code != _SUCCESS:
                return Status(Code.Error, s.message(), error=s.error)
        if self.trace is not None:
            self.trace.nominated_nodes.add(node_info.name)
        first_pass: list | None = [] if record is not None else None
        status = self.run_filter_plugins(state_out, pod_info, node_out, first_pass)
        if status is not None and status.code != _SUCCESS:
            if record is not None:
                if self.all_filters:
                    first_pass = self._passed_alone(first_pass, state, pod_info, node_info)  # type: ignore[arg-type]
                record.extend(first_pass)  # type: ignore[arg-type]
            return status
        return self.run_filter_plugins(state, pod_info, node_info, record)

    def _passed_alone(self, entries: list, state: CycleState, pod_info: "PodInfo",
                      node_info: "NodeInfo") -> list:
        """--all-filters, where the chain failed with the nominated pods added: each filter that
        passed with them is asked again without them, as the chain's second pass would have asked
        it, so that every filter's verdict follows upstream's rule (both passes must pass) on its
        own. A filter that passes only because a nominated pod is counted on the node (pod
        affinity to that pod) is shown failing, as it would fail the node once the chain got there.
        These calls are for the report only (``display_only``): the verdict is the first pass's."""
        filters = dict(self._active_filters(state))
        out = []
        was = state.display_only
        state.display_only = True
        try:
            for name, status in entries:
                fn = filters.get(name)
                if fn is not None and (status is None or status.code == _SUCCESS):
                    try:
                        again = fn(state, pod_info, node_info)
                    except Exception as exc:
                        again = _raised(name, "Filter", exc)
                    if again is not None and again.code != _SUCCESS:
                        status = filter_failure(name, again)
                out.append((name, status))
        finally:
            state.display_only = was
        return out

    # -- PostFilter ---------------------------------------------------------------------------
    def run_post_filter_plugins(
        self, state: CycleState, pod_info: "PodInfo", filtered_node_status: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None]:
        """Upstream RunPostFilterPlugins: stop at the first Success, Error or Unresolvable."""
        trace = self.trace
        result: PostFilterResult | None = None
        reasons: list[str] = []
        rejector = ""
        for pl in self.plugins["postFilter"]:
            name = pl.name
            try:
                out = pl.post_filter(state, pod_info, filtered_node_status)
                r, s = out if isinstance(out, tuple) else (None, out)
            except Exception as exc:
                r, s = None, _raised(name, "PostFilter", exc)
            if trace is not None:
                extra = None
                if r is not None and r.nominated_node_name:
                    extra = {"nominatedNode": r.nominated_node_name, "victims": list(r.victims)}
                trace.stage("PostFilter", name, s, extra)
            if s is None or s.code == _SUCCESS:
                return r, s
            if s.code == _UNRESOLVABLE:
                s.plugin = name
                return r, s
            if s.code not in _REJECTED:
                return None, Status(Code.Error, s.message(), error=s.as_error(), plugin=name)
            if r is not None:
                # A result is ModeOverride even with an empty node (it clears a nomination).
                result = r
            reasons.extend(s.reasons)
            if not rejector:
                rejector = name
        return result, Status(Code.Unschedulable, *reasons, plugin=rejector)

    # -- PreScore / Score ---------------------------------------------------------------------
    def run_pre_score_plugins(self, state: CycleState, pod_info: "PodInfo", nodes: list["NodeInfo"]) -> Status | None:
        trace = self.trace
        skip: set[str] = set()
        try:
            for pl in self.plugins["preScore"]:
                name = pl.name
                try:
                    s = pl.pre_score(state, pod_info, nodes)
                except Exception as exc:
                    s = _raised(name, "PreScore", exc)
                if trace is not None:
                    trace.stage("PreScore", name, s)
                if s is not None and s.code == _SKIP:
                    skip.add(name)
                    continue
                if s is not None and s.code != _SUCCESS:
                    return _err(f'running PreScore plugin "{name}": {s.message()}', cause=s.as_error())
            return None
        finally:
            state.skip_score_plugins = skip

    def run_score_plugins(
        self, state: CycleState, pod_info: "PodInfo", nodes: list["NodeInfo"]
    ) -> tuple[list[NodePluginScores] | None, Status | None]:
        """Score every node with every (non-skipped) plugin, normalize, weigh; record raw and
        normalized scores in the trace.

        ``known_scores`` may supply a plugin's raw scores (simulate's memo and columns); the others
        are asked node by node, or through their batch form (``score_nodes``, same answers)."""
        trace = self.trace if self.trace is not None and self.trace.keep_scores else None
        skip = state.skip_score_plugins
        plugins = [pl for pl in self.plugins["score"] if pl.name not in skip]
        names = NameView(nodes)
        if trace is not None:
            trace.scored_nodes = list(names)
            trace.score_plugins = [pl.name for pl in plugins]
        known = self.known_scores(state, pod_info, nodes, plugins) if plugins and nodes else None
        per_plugin: list[list[int]] = []
        for pl in plugins:
            name = pl.name
            values = known.get(name) if known else None
            if values is None:
                values, s = self._plugin_scores(pl, state, pod_info, nodes)
                if s is not None:
                    return None, self._score_failed(
                        f'running Score plugins: plugin "{name}" failed with: {s.message()}', s.error)
            per_plugin.append(values)
            if trace is not None:
                trace.raw_scores[name] = list(values)
        normalized_per_plugin: list[list[int]] = []
        for pl, values in zip(plugins, per_plugin):
            normalized = self.known_normalized(pl, values) if known else None
            if normalized is not None:
                normalized_per_plugin.append(normalized)
                continue
            normalized, s = self._normalized(pl, state, pod_info, names, values)
            if s is not None:
                return None, self._score_failed(
                    f'running Normalize on Score plugins: plugin "{pl.name}" failed with: {s.message()}', s.error)
            normalized_per_plugin.append(normalized)
        weighted_columns: list[list[int]] = []
        plugin_names: list[str] = []
        for pl, normalized in zip(plugins, normalized_per_plugin):
            name = pl.name
            if trace is not None:
                trace.normalized_scores[name] = normalized
            weighted, bad = self.weighted_scores(normalized, self.weights.get(name, 1))
            if bad is not None:
                return None, self._score_failed(
                    f'applying score defaultWeights on Score plugins: plugin "{name}" returns an invalid score '
                    f"{bad}, it should in the range of [{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing")
            weighted_columns.append(weighted)
            plugin_names.append(name)
        if not weighted_columns:
            return [NodePluginScores(n, [], 0) for n in names], None
        return self.score_rows(names, plugin_names, weighted_columns), None

    def weighted_scores(self, normalized: Sequence[int], weight: int) -> tuple[Sequence[int], int | None]:
        """One plugin's normalized scores times its ``weight``, or the first score outside
        [MIN_NODE_SCORE, MAX_NODE_SCORE] (upstream refuses the cycle then). A hook: simulate's
        column twins give arrays, weighed as arrays."""
        if normalized and (max(normalized) > MAX_NODE_SCORE or min(normalized) < MIN_NODE_SCORE):
            return normalized, next(v for v in normalized if v > MAX_NODE_SCORE or v < MIN_NODE_SCORE)
        return ([v * weight for v in normalized] if weight != 1 else normalized), None

    def score_rows(self, names: NameView, plugin_names: list[str],
                   weighted_columns: list[Sequence[int]]) -> Sequence[NodePluginScores]:
        """Each node's weighted scores and total, from one column per plugin (a hook: simulate's
        node columns sum them as an array and build a node's row only when it is read)."""
        per_node = list(zip(*weighted_columns))
        return [_NodeScoreRow(n, plugin_names, row, total)
                for n, row, total in zip(names, per_node, map(sum, per_node))]

    def known_scores(self, state: CycleState, pod_info: "PodInfo", nodes: list["NodeInfo"],
                     plugins: list[Any]) -> dict[str, list[int]] | None:
        """Raw scores of some of ``plugins`` for ``nodes`` already known without asking them (a
        hook: the runtime knows none). A plugin left out is scored as usual, so an error is always
        reported by the plugin's own loop, in plugin order."""
        return None

    def known_normalized(self, plugin: Any, values: list[int]) -> list[int] | None:
        """``plugin``'s NormalizeScore of ``values``, when ``known_scores`` supplied them and
        knows it too (a hook: the runtime knows none)."""
        return None

    @staticmethod
    def _plugin_scores(pl: Any, state: CycleState, pod_info: "PodInfo",
                       nodes: list["NodeInfo"]) -> tuple[list[int], _ScoreFailure | None]:
        """One plugin's raw scores for ``nodes``; on failure the status (its message and cause)."""
        name = pl.name
        batch = pl.score_nodes if isinstance(pl, Plugin) else None  # only a Plugin declares a batch form
        try:
            if batch is not None:
                # the plugin's batch form: the same answers, per-cycle lookups made once
                values, s = batch(state, pod_info, nodes)
                if s is not None and s.code != _SUCCESS:
                    return [], _ScoreFailure(s.message(), s.as_error())
                return values, None
            fn = pl.score
            values = []
            append = values.append
            for node_info in nodes:
                out = fn(state, pod_info, node_info)
                if type(out) is tuple:
                    value, s = out
                    if s is not None and s.code != _SUCCESS:
                        return [], _ScoreFailure(s.message(), s.as_error())
                else:
                    value = out
                append(int(value))
            return values, None
        except Exception as exc:
            return [], _ScoreFailure(_raised(name, "Score", exc).message(), exc)

    @staticmethod
    def _normalized(pl: Any, state: CycleState, pod_info: "PodInfo", names: list[str],
                    values: list[int]) -> tuple[list[int], _ScoreFailure | None]:
        """One plugin's NormalizeScore over its raw ``values`` (unchanged without one)."""
        normalize = getattr(pl, "normalize_score", None)
        if not callable(normalize):
            return values, None
        batch = pl.normalize_values if isinstance(pl, Plugin) else None
        if batch is not None:
            # the plugin's batch form: the same scores, without a NodeScore per node
            try:
                out, s = batch(state, pod_info, names, values)
            except Exception as exc:
                out, s = None, _raised(pl.name, "NormalizeScore", exc)
            if s is not None and s.code != _SUCCESS:
                return [], _ScoreFailure(s.message(), s.as_error())
            return out, None
        scores = [NodeScore(n, v) for n, v in zip(names, values)]
        try:
            s = normalize(state, pod_info, scores)
        except Exception as exc:
            s = _raised(pl.name, "NormalizeScore", exc)
        if s is not None and s.code != _SUCCESS:
            return [], _ScoreFailure(s.message(), s.as_error())
        return [ns.score for ns in scores], None

    def _score_failed(self, message: str, cause: BaseException | None = None) -> Status:
        s = _err(message, cause=cause)
        if self.trace is not None:
            self.trace.score_error = s
        return s

    # -- Reserve / Permit ---------------------------------------------------------------------
    def run_reserve_plugins_reserve(self, state: CycleState, pod_info: "PodInfo", node_name: str) -> Status | None:
        return self._run_node_point("reserve", "Reserve", "reserve", state, pod_info, node_name)

    def _run_node_point(
        self, point: str, label: str, method: str, state: CycleState, pod_info: "PodInfo", node_name: str
    ) -> Status | None:
        """Reserve and PreBind: each plugin in order; the first non-success ends the point (a
        rejection keeps its code and names the plugin, anything else becomes an Error)."""
        trace = self.trace
        for pl in self.plugins[point]:
            try:
                s = getattr(pl, method)(state, pod_info, node_name)
            except Exception as exc:
                s = _raised(pl.name, label, exc)
            if trace is not None:
                trace.stage(label, pl.name, s)
            if s is not None and s.code != _SUCCESS:
                if s.code in _REJECTED:
                    s.plugin = pl.name
                    return s
                return _err(f'running {label} plugin "{pl.name}": {s.message()}', cause=s.as_error())
        return None

    def run_reserve_plugins_unreserve(self, state: CycleState, pod_info: "PodInfo", node_name: str) -> None:
        """Unreserve in the reverse order of Reserve, every plugin, errors only recorded."""
        trace = self.trace
        for pl in reversed(self.plugins["reserve"]):
            if not callable(getattr(pl, "unreserve", None)):
                continue
            status = None
            try:
                pl.unreserve(state, pod_info, node_name)
            except Exception as exc:
                status = _raised(pl.name, "Unreserve", exc)
            if trace is not None:
                trace.stage("Unreserve", pl.name, status)

    def run_permit_plugins(
        self, state: CycleState, pod_info: "PodInfo", node_name: str
    ) -> tuple[Status | None, dict[str, float]]:
        """Upstream RunPermitPlugins; also returns each waiting plugin's timeout (capped at 15m)."""
        trace = self.trace
        waits: dict[str, float] = {}
        for pl in self.plugins["permit"]:
            name = pl.name
            try:
                out = pl.permit(state, pod_info, node_name)
                s, timeout = out if isinstance(out, tuple) else (out, 0.0)
            except Exception as exc:
                s, timeout = _raised(name, "Permit", exc), 0.0
            extra = None
            if s is not None and s.code == _WAIT:
                timeout = min(float(timeout or 0.0), MAX_PERMIT_TIMEOUT)
                extra = {"timeout": timeout}
            if trace is not None:
                trace.stage("Permit", name, s, extra)
            if s is None or s.code == _SUCCESS:
                continue
            if s.code in _REJECTED:
                s.plugin = name
                return s, waits
            if s.code == _WAIT:
                waits[name] = timeout
                continue
            return _err(f'running Permit plugin "{name}": {s.message()}', name, s.as_error()), waits
        if waits:
            return Status(_WAIT, f'one or more plugins asked to wait and no plugin rejected pod "{pod_info.name}"'), waits
        return None, waits

    # -- PreBind / Bind / PostBind ------------------------------------------------------------
    def run_pre_bind_plugins(self, state: CycleState, pod_info: "PodInfo", node_name: str) -> Status | None:
        return self._run_node_point("preBind", "PreBind", "pre_bind", state, pod_info, node_name)

    def run_bind_plugins(self, state: CycleState, pod_info: "PodInfo", node_name: str) -> Status | None:
        """Bind plugins in order until one does not Skip; Skip when none handled the pod."""
        trace = self.trace
        if not self.plugins["bind"]:
            return Status(_SKIP, "")
        status: Status | None = Status(_SKIP, "")
        for pl in self.plugins["bind"]:
            try:
                status = pl.bind(state, pod_info, node_name)
            except Exception as exc:
                status = _raised(pl.name, "Bind", exc)
            if trace is not None:
                trace.stage("Bind", pl.name, status)
            if status is not None and status.code == _SKIP:
                continue
            if status is not None and status.code != _SUCCESS:
                if status.code in _REJECTED:
                    status.plugin = pl.name
                    return status
                return _err(f'running Bind plugin "{pl.name}": {status.message()}', cause=status.as_error())
            return status
        return status

    def run_post_bind_plugins(self, state: CycleState, pod_info: "PodInfo", node_name: str) -> None:
        trace = self.trace
        for pl in self.plugins["postBind"]:
            status = None
            try:
                pl.post_bind(state, pod_info, node_name)
            except Exception as exc:
                status = _raised(pl.name, "PostBind", exc)
            if trace is not None:
                trace.stage("PostBind", pl.name, status)

    def __repr__(self) -> str:
        return f"<Framework {self.profile_name!r}>"

    # -- building from a configuration profile ------------------------------------------------
    @classmethod
    def from_profile(
        cls,
        profile: Any,
        registry: Any,
        handle: FrameworkHandle | None = None,
        expanded: Any = None,
    ) -> "Framework":
        """Build the framework of a (defaulted) configuration profile.

        ``expanded`` is what ``kschedctl.config.expand.expand_plugins(profile, registry.points_of)``
        returns: the plugins of each extension point in run order, entries as names,
        ``(name, weight)`` pairs or objects with ``name``/``weight``. The framework sits below
        config, so the caller expands (``kschedctl.scheduler.setup.build_framework``). Each plugin
        is built once, with ``profile.args_for(name)``, and shared by its points.
        """
        if expanded is None:
            raise TypeError("Framework.from_profile needs the expanded plugins of the profile "
                            "(kschedctl.scheduler.setup.build_framework computes them)")
        handle = handle if handle is not None else FrameworkHandle()
        per_point = _normalize_expanded(expanded)
        instances: dict[str, Any] = {}
        plugins: dict[str, list[Any]] = {}
        weights: dict[str, int] = {}
        for point, entries in per_point.items():
            out = []
            for name, weight in entries:
                plugin = instances.get(name)
                if plugin is None:
                    args = profile.args_for(name) if hasattr(profile, "args_for") else None
                    plugin = instances[name] = registry.build(name, args, handle)
                out.append(plugin)
                if point == "score" and weight and name not in weights:
                    weights[name] = int(weight)
            plugins[point] = out
        for name, weight in _configured_score_weights(profile):
            weights.setdefault(name, weight)
        return cls(
            getattr(profile, "scheduler_name", "") or "",
            plugins,
            weights,
            getattr(profile, "percentage_of_nodes_to_score", None),
            handle,
        )


def _entry(entry: Any) -> tuple[str, int | None]:
    if isinstance(entry, str):
        return entry, None
    if isinstance(entry, tuple):
        return entry[0], (entry[1] if len(entry) > 1 else None)
    if isinstance(entry, dict):
        return entry["name"], entry.get("weight")
    return entry.name, getattr(entry, "weight", None)


_POINT_ALIASES = {v: k for k, v in POINT_NAMES.items()}
_POINT_ALIASES.update({k: k for k in POINT_NAMES})
_POINT_ALIASES.update({"pre_enqueue": "preEnqueue", "queue_sort": "queueSort", "pre_filter": "preFilter",
                       "post_filter": "postFilter", "pre_score": "preScore", "pre_bind": "preBind",
                       "post_bind": "postBind"})


def _normalize_expanded(expanded: Any) -> dict[str, list[tuple[str, int | None]]]:
    """Accept the shapes an expansion may come in and return point -> [(name, weight)]."""
    out: dict[str, list[tuple[str, int | None]]] = {}
    if isinstance(expanded, dict):
        items = expanded.items()
    else:
        items = []
        for point in POINT_NAMES:
            value = None
            if hasattr(expanded, "get"):
                value = expanded.get(point)
            if value is None:
                value = getattr(expanded, point, None) or getattr(expanded, _snake(point), None)
            if value is not None:
                items.append((point, value))
    for point, value in items:
        key = _POINT_ALIASES.get(point)
        if key is None:
            continue
        if hasattr(value, "enabled"):
            value = value.enabled
        out[key] = [_entry(e) for e in value or ()]
    return out


def _snake(point: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in point)


def _configured_score_weights(profile: Any) -> list[tuple[str, int]]:
    """Weights from ``score.enabled`` then ``multiPoint.enabled`` (the first one wins, 0 -> 1)."""
    plugins = getattr(profile, "plugins", None)
    if plugins is None:
        return []
    out: list[tuple[str, int]] = []
    for attr in ("score", "multi_point"):
        plugin_set = getattr(plugins, attr, None)
        for ref in getattr(plugin_set, "enabled", None) or ():
            name, weight = _entry(ref)
            out.append((name, int(weight or 0) or 1))
    return out
