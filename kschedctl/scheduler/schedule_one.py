"""One scheduling cycle, as pkg/scheduler/schedule_one.go (kube-scheduler v1.34) runs it.

``Scheduler.schedule_pod`` is upstream's ``schedulePod``: PreFilter, the nominated node first,
Filter over ``numFeasibleNodesToFind`` nodes from the rotating start index, the single feasible
node shortcut, PreScore/Score, and ``selectHost``'s random pick among the top scores (seeded,
so ``--seed`` reproduces it). ``Scheduler.run_cycle`` adds what ``ScheduleOne`` does around it
(PreEnqueue, PostFilter/preemption, Reserve, Permit, PreBind, Bind, PostBind) and returns a
``CycleOutcome`` for the report; it never touches a cluster.

Known differences from upstream (also in the README's Fidelity section):
- upstream checks nodes with 16 goroutines and stops once enough feasible nodes are found, so
  which nodes beyond that number got checked varies run to run; kschedctl checks them one by
  one in order, which is the result upstream gets with parallelism 1;
- when exactly one node is feasible upstream skips PreScore/Score; kschedctl still computes the
  scores (on a copy of the cycle state, errors ignored) so the report can show them, and marks
  the result ``scoringSkippedUpstream`` (extenders are not asked for these display-only scores);
- extenders (``Scheduler(extenders=...)``, see kschedctl.framework.extender) are called as
  upstream calls them: findNodesThatPassExtenders after the Filter plugins, one extender after
  the other, and prioritizeNodes adding ``score * weight * (MaxNodeScore / MaxExtenderPriority)``;
  upstream calls the prioritizing extenders concurrently and so does kschedctl (threads), but
  their scores are merged in configuration order. Every call is recorded for the report.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Callable, Iterable

from kschedctl.framework.cycle_state import PODS_TO_ACTIVATE_KEY, CycleState, PodsToActivate, StateNotFound
from kschedctl.framework.diagnosis import RejectedScan, ScanStatuses
from kschedctl.framework.extender import (
    EXTENDER_NAME,
    EXTENDER_SCORE_SCALE,
    ExtenderError,
    HTTPExtender,
)
from kschedctl.framework.runtime import (
    Diagnosis,
    FitError,
    Framework,
    NodePluginScores,
    NodeToStatus,
    NodeVerdicts,
    Trace,
    WaitingPod,
    go_list,
)
from kschedctl.framework.status import Code, PostFilterResult, Status
from kschedctl.scheduler.outcome import Outcome

if TYPE_CHECKING:  # pragma: no cover
    from kschedctl.framework.types import NodeInfo, PodInfo

#: Upstream constants (schedule_one.go).
MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
#: Event messages are cut to this many bytes (validation.NoteLengthLimit).
NOTE_LENGTH_LIMIT = 1024

NO_NODES_AVAILABLE_MSG = "no nodes available to schedule pods"

_SUCCESS = Code.Success
_REJECTED = frozenset({Code.Unschedulable, Code.UnschedulableAndUnresolvable, Code.Pending})


class NoNodesAvailable(Exception):
    """The snapshot has no node at all (upstream ErrNoNodesAvailable)."""

    def __str__(self) -> str:
        return NO_NODES_AVAILABLE_MSG


class SchedulingError(Exception):
    """A plugin or the framework failed (an ``Error`` status, not a "no")."""

    def __init__(self, status: Status) -> None:
        super().__init__(status.message())
        self.status = status


@dataclass
class ScheduleResult:
    suggested_host: str
    evaluated_nodes: int
    feasible_nodes: int
    #: kschedctl additions for the report.
    tied_nodes: list[str] = field(default_factory=list)
    scoring_skipped_upstream: bool = False


@dataclass
class CycleOutcome:
    """Everything the report needs from one cycle (turned into an ``ExplainResult`` later)."""

    pod_info: Any
    profile: str
    outcome: Outcome
    selected_node: str | None = None
    message: str = ""
    evaluated_nodes: int = 0
    feasible_nodes: int = 0
    visit_order: list[str] = field(default_factory=list)
    #: The scored nodes' names (a sequence read when asked, in a simulate run).
    feasible: Sequence[str] = field(default_factory=list)
    excluded_by_prefilter: list[str] = field(default_factory=list)
    prefilter_exclusion: Status | None = None
    prefilter_rejection: Status | None = None
    node_scores: list[NodePluginScores] | None = None
    tied_nodes: list[str] = field(default_factory=list)
    scoring_skipped_upstream: bool = False
    num_nodes_to_find: int = 0
    start_index: int = 0
    preemption: PostFilterResult | None = None
    diagnosis: Diagnosis | None = None
    trace: Trace | None = None
    provisional_node: str | None = None
    weights: dict[str, int] = field(default_factory=dict)
    #: Extenders of this cycle (``HTTPExtender.describe()`` + ``interested`` + ``calls``).
    extenders: list[dict] = field(default_factory=list)
    #: Things the user should know that did not stop the cycle (an ignorable extender failed...).
    warnings: list[str] = field(default_factory=list)
    #: ``namespace/name`` of the pods plugins asked to move to activeQ (PodsToActivate).
    pods_to_activate: list[str] = field(default_factory=list)
    #: A pod told to Wait at Permit (outcome ``Waiting``): what finishing it later needs.
    waiting: WaitingPod | None = None
    state: CycleState | None = None
    #: PostFilter answered with an empty nominated node, which clears the pod's nomination.
    clears_nomination: bool = False


def truncate_message(message: str) -> str:
    """Upstream truncateMessage: at most 1024 bytes, the end replaced by " ..."."""
    data = message.encode("utf-8")
    if len(data) <= NOTE_LENGTH_LIMIT:
        return message
    return data[: NOTE_LENGTH_LIMIT - 4].decode("utf-8", errors="ignore") + " ..."


class Scheduler:
    """Upstream's Scheduler as far as one cycle needs it: the snapshot, the rotating start index,
    the global ``percentageOfNodesToScore`` and the random source of ``selectHost``."""

    def __init__(
        self,
        snapshot: Any,
        percentage_of_nodes_to_score: int | None = 0,
        seed: int | None = None,
        all_filters: bool = False,
        extenders: list[HTTPExtender] | None = None,
        hold_waiting_pods: bool = False,
    ) -> None:
        self.snapshot = snapshot
        #: A pod a Permit plugin tells to Wait ends its cycle as ``Waiting`` (the caller holds it
        #: and later finishes it with ``binding_cycle``), instead of timing out at once as it does
        #: for a single pod that nobody else could let through.
        self.hold_waiting_pods = hold_waiting_pods
        self.percentage_of_nodes_to_score = percentage_of_nodes_to_score or 0
        self.next_start_node_index = 0
        self.rng = random.Random(seed)
        #: ``--tie-break first``: the first top-scored node in visit order instead of a random
        #: one, a rule the upstream oracle can follow too, so two runs compare pod by pod.
        self.tie_break_first = False
        #: Per pod key, the node to take when it is among the top-scored tie: the choice a real
        #: scheduler made at random (replay follows its trace). The random draw is made all the
        #: same, so the other pods' draws do not move.
        self.tie_breaks: dict[str, str] = {}
        self.all_filters = all_filters
        #: Upstream sched.Extenders, in call order (ignorable ones last, see build_extenders).
        self.extenders: list[HTTPExtender] = list(extenders or ())
        self._ext_log: _ExtenderLog | None = None
        #: Record what only a per-pod report shows (explain): the scores of a single feasible
        #: node, which upstream does not compute, and the order nodes were visited in. Nothing
        #: else depends on them; a simulation, which shows neither, turns this off (the scores
        #: cost a full PreScore in every such cycle).
        self.for_display = True

    # -- extenders ----------------------------------------------------------------------------
    def has_extender_filters(self) -> bool:
        """Upstream hasExtenderFilters: some extender has a filterVerb."""
        return any(e.is_filter() for e in self.extenders)

    def has_scoring(self, fwk: Framework) -> bool:
        """Upstream hasScoring: Score plugins, or an extender with a prioritizeVerb."""
        return fwk.has_score_plugins() or any(e.is_prioritizer() for e in self.extenders)

    def extender_log(self) -> "_ExtenderLog":
        """What the extenders did in the current (or last) cycle."""
        if self._ext_log is None:
            self._ext_log = _ExtenderLog(self.extenders)
        return self._ext_log

    # -- numFeasibleNodesToFind ---------------------------------------------------------------
    def num_feasible_nodes_to_find(self, percentage_of_nodes_to_score: int | None, num_all_nodes: int) -> int:
        """How many feasible nodes to find before filtering stops (adaptive when the percentage is 0)."""
        if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
            return num_all_nodes
        if percentage_of_nodes_to_score is not None:
            percentage = percentage_of_nodes_to_score
        else:
            percentage = self.percentage_of_nodes_to_score
        if percentage == 0:
            percentage = 50 - num_all_nodes // 125
            if percentage < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND:
                percentage = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND
        num_nodes = num_all_nodes * percentage // 100
        if num_nodes < MIN_FEASIBLE_NODES_TO_FIND:
            return MIN_FEASIBLE_NODES_TO_FIND
        return num_nodes

    # -- schedulePod --------------------------------------------------------------------------
    def schedule_pod(self, fwk: Framework, state: CycleState, pod_info: "PodInfo",
                     outcome: CycleOutcome | None = None) -> ScheduleResult:
        """Upstream schedulePod. Raises NoNodesAvailable, FitError or SchedulingError."""
        if self.extenders:
            self._ext_log = _ExtenderLog(self.extenders)
        if self.snapshot.num_nodes() == 0:
            raise NoNodesAvailable()
        feasible, diagnosis = self.find_nodes_that_fit_pod(fwk, state, pod_info, outcome)
        if not feasible:
            raise FitError(pod_info, self.snapshot.num_nodes(), diagnosis)
        rejected = len(diagnosis.node_to_status) + self._unresolved
        if len(feasible) == 1:
            return ScheduleResult(feasible[0].name, 1 + rejected, 1, [feasible[0].name], scoring_skipped_upstream=True)
        scores = self.prioritize_nodes(fwk, state, pod_info, feasible)
        if outcome is not None:
            outcome.node_scores = scores
        host, tied = self.select_host(scores)
        if self.tie_breaks and len(tied) > 1:
            wanted = self.tie_breaks.get(pod_info.key)
            if wanted in tied:
                host = wanted
        return ScheduleResult(host, len(feasible) + rejected, len(feasible), tied)

    def find_nodes_that_fit_pod(
        self, fwk: Framework, state: CycleState, pod_info: "PodInfo", outcome: CycleOutcome | None = None
    ) -> tuple[list["NodeInfo"], Diagnosis]:
        """Upstream findNodesThatFitPod: PreFilter, the nominated node, then Filter."""
        diagnosis = Diagnosis()
        self._unresolved = 0
        all_nodes = self.snapshot.node_infos()
        pre_res, s, unscheduled_plugins = fwk.run_pre_filter_plugins(state, pod_info)
        diagnosis.unschedulable_plugins = set(unscheduled_plugins)
        if s is not None and s.code != _SUCCESS:
            if s.code not in _REJECTED:
                raise SchedulingError(s)
            # Every node gets the same status, so that preemption sees them all rejected.
            diagnosis.node_to_status.set_absent_nodes_status(s)
            diagnosis.pre_filter_msg = s.message()
            diagnosis.add_plugin_status(s)
            if outcome is not None:
                outcome.prefilter_rejection = s
            return [], diagnosis

        nominated = pod_info.nominated_node_name
        if nominated:
            feasible = self._evaluate_nominated_node(fwk, state, pod_info, diagnosis, nominated)
            if feasible:
                return feasible, diagnosis

        nodes = all_nodes
        if pre_res is not None and not pre_res.all_nodes():
            allowed = pre_res.node_names or set()
            # Keep snapshot order (upstream iterates a Go set, i.e. in random order).
            nodes = [n for n in all_nodes if n.name in allowed]
            # Upstream names the set PreFilter returned, which is also the diagnosis's: the
            # nominated node's rejection, evaluated above, has already added its plugin to it.
            exclusion = Status(Code.UnschedulableAndUnresolvable,
                               f"node(s) didn't satisfy plugin(s) {go_list(diagnosis.unschedulable_plugins)}")
            diagnosis.node_to_status.set_absent_nodes_status(exclusion)
            if outcome is not None:
                outcome.prefilter_exclusion = exclusion
                outcome.excluded_by_prefilter = [n.name for n in all_nodes if n.name not in allowed]
        try:
            feasible = self.find_nodes_that_pass_filters(fwk, state, pod_info, diagnosis, nodes, outcome)
        finally:
            processed = (len(diagnosis.node_to_status) + self._unresolved
                         + (len(self._last_feasible) if self._last_feasible else 0))
            if all_nodes:
                self.next_start_node_index = (self.next_start_node_index + processed) % len(all_nodes)
        if self.extenders:
            after = self.find_nodes_that_pass_extenders(fwk, pod_info, feasible, diagnosis)
            if len(after) != len(feasible):
                # Extenders have no requeueing hints: upstream lists them under one name.
                diagnosis.unschedulable_plugins.add(EXTENDER_NAME)
            feasible = after
        return feasible, diagnosis

    _last_feasible: list | None = None
    #: Rejected nodes of the last scan counted but not given a status (see ``_scan_verdicts``).
    _unresolved = 0

    def _evaluate_nominated_node(self, fwk, state, pod_info, diagnosis, node_name) -> list["NodeInfo"]:
        """Upstream evaluateNominatedNode, which takes the diagnosis by value: the node's status
        lands in the shared NodeToStatus and a rejecting plugin in the shared (non-nil after
        PreFilter) UnschedulablePlugins, but PendingPlugins is still nil there, so a Pending
        plugin goes into the copy's new set and is lost."""
        node_info = self.snapshot.get_or_none(node_name)
        if node_info is None:
            return []
        by_value = replace(diagnosis, pending_plugins=set())
        try:
            feasible = self.find_nodes_that_pass_filters(fwk, state, pod_info, by_value, [node_info], None,
                                                         from_start=False)
            if self.extenders:
                feasible = self.find_nodes_that_pass_extenders(fwk, pod_info, feasible, by_value)
            return feasible
        except SchedulingError:
            return []  # upstream logs the error and goes on with every node

    def find_nodes_that_pass_filters(
        self,
        fwk: Framework,
        state: CycleState,
        pod_info: "PodInfo",
        diagnosis: Diagnosis,
        nodes: list["NodeInfo"],
        outcome: CycleOutcome | None = None,
        from_start: bool = True,
    ) -> list["NodeInfo"]:
        """Upstream findNodesThatPassFilters, one node at a time from the start index."""
        num_all = len(nodes)
        num_to_find = self.num_feasible_nodes_to_find(fwk.percentage_of_nodes_to_score, num_all)
        if not self.has_extender_filters() and not self.has_scoring(fwk):
            num_to_find = 1  # nothing would filter further or rank the nodes: the first fit will do
        start = self.next_start_node_index if from_start else 0
        if outcome is not None:
            outcome.num_nodes_to_find = num_to_find
        self._last_feasible = None
        self._unresolved = 0
        if not fwk.has_filter_plugins():
            feasible = [nodes[(start + i) % num_all] for i in range(min(num_to_find, num_all))] if num_all else []
            self._last_feasible = feasible
            if outcome is not None:
                outcome.visit_order = [n.name for n in feasible]
            return feasible

        trace = fwk.trace
        filters = trace.filters if trace is not None else None
        run = fwk.run_filter_plugins_with_nominated_pods
        if not fwk.handle.nominator:
            run = fwk.run_filter_plugins  # nobody is nominated: the single pass is all there is
        scan = fwk.filter_scanner(state, pod_info) if filters is None else None
        if scan is None:
            if filters is None:
                def scan(node_info: "NodeInfo") -> Status | None:
                    return run(state, pod_info, node_info, None)
            else:
                def scan(node_info: "NodeInfo") -> Status | None:
                    record: list = []
                    status = run(state, pod_info, node_info, record)
                    filters[node_info.name] = record  # type: ignore[index]
                    return status
        forget = None if filters is None else (lambda node_info: filters.pop(node_info.name, None))
        # A framework may know that every node rejects the pod, and why, from an earlier scan
        # (simulate's, for pods of one signature): the same statuses in the same visit order.
        remember = filters is None and from_start and bool(nodes) and not self.for_display
        if remember:
            statuses = fwk.known_rejections(state, pod_info, nodes, scan)
            if statuses is not None:
                return self._all_rejected(diagnosis, nodes, statuses, start)
        verdicts = fwk.filter_verdicts(state, pod_info, nodes) if filters is None and nodes else None
        if verdicts is not None:
            feasible = self._scan_verdicts(verdicts, scan, diagnosis, nodes, start, num_to_find, outcome, from_start)
        else:
            feasible = self._scan_nodes(scan, diagnosis, nodes, start, num_to_find, outcome, from_start, forget)
        if not feasible and remember:
            fwk.remember_rejections(state, nodes, diagnosis.node_to_status)
        return feasible

    def _all_rejected(self, diagnosis: Diagnosis, nodes: list["NodeInfo"], statuses: RejectedScan,
                      start: int) -> list["NodeInfo"]:
        """What ``_scan_nodes`` records when every node rejects the pod with ``statuses`` (in
        ``nodes`` order): each node's status in visit order from ``start``, nothing feasible.
        The node -> status map is built only if something reads it node by node; the message
        and preemption's candidates come from the counts kept beside the statuses."""
        start %= len(nodes)
        m = diagnosis.node_to_status
        if len(m):
            # the nominated node was evaluated first: it keeps its place in the map
            order = nodes[start:] + nodes[:start] if start else nodes
            ordered = statuses.statuses[start:] + statuses.statuses[:start] if start else statuses.statuses
            m.update(zip(map(_NAME, order), ordered))
        else:
            diagnosis.node_to_status = ScanStatuses(statuses, start, m.absent_nodes_status())
        for code, plugin, _ in statuses.kinds:
            diagnosis.add_plugin_status(Status(code, plugin=plugin))  # only the plugin and code count
        self._last_feasible = []
        return []

    def _scan_verdicts(self, verdicts: NodeVerdicts, scan: Any, diagnosis: Diagnosis, nodes: list["NodeInfo"], start: int,
                       num_to_find: int, outcome: CycleOutcome | None, from_start: bool) -> list["NodeInfo"]:
        """``_scan_nodes`` when the framework knows every node's verdict at once (simulate's node
        columns): the same nodes visited, found feasible and rejected, in the same order; the
        rejected nodes' statuses come from the verdicts where they know them (``statuses``),
        else from scanning those nodes one by one.

        Without a per-node report (``for_display`` off) and without extenders, the statuses of
        rejected nodes serve only a cycle that fails: they are then asked for at the end, in
        visit order. When some node passes they are only counted (``_unresolved``), provided
        the verdicts vouch that every "no" among them is a plain rejection (``certain``: no
        filter raised or erred, which would have ended the scan)."""
        set_status = diagnosis.node_to_status.set
        add_plugin_status = diagnosis.add_plugin_status
        seen: set = set()
        count = len(nodes)
        start = start % count
        feasible: list["NodeInfo"] = []
        visited: list[str] | None = [] if outcome is not None and from_start and self.for_display else None
        vouch = not (self.for_display or self.extenders)
        deferred: list["NodeInfo"] = []
        deferred_at: list[int] = []  # their positions in the scan's node list
        positions: list[int] = []  # of the feasible nodes, in the scan's node list

        def resolve(pending: Iterable["NodeInfo"],
                    known: list[Status | None] | None = None) -> tuple[int, Status | None]:
            """Scan ``pending`` in order for their statuses (those ``known`` already, the
            verdicts' statuses of vouched rejections, taken as they are): how many were
            recorded, and the error that stopped it (None when none did)."""
            if known is not None and None not in known:  # (a rejection never equals None)
                # every status known, none an Error (vouched for): recorded in one go
                pending = list(pending)
                diagnosis.node_to_status.update(zip(map(_NAME, pending), known))
                for tag, status in {(s.plugin, s.code): s for s in known}.items():
                    if tag not in seen:
                        seen.add(tag)
                        add_plugin_status(status)
                return len(pending), None
            done = 0
            for k, node_info in enumerate(pending):
                status = known[k] if known is not None else None
                if status is None:
                    status = scan(node_info)
                if status.code == Code.Error:
                    return done, status
                done += 1
                set_status(node_info.name, status)
                tag = (status.plugin, status.code)
                if tag not in seen:  # AddPluginStatus only depends on the plugin and the code
                    seen.add(tag)
                    add_plugin_status(status)
            return done, None

        error: Status | None = None
        # a little past the nodes wanted: when they all pass, the one past them that ends the
        # scan is found in the same run instead of a second run as long as the first
        chunk = max(num_to_find + num_to_find // 16 + 1, 256)
        begin = 0
        while begin < count:
            end = min(count, begin + chunk)
            run = verdicts.run(begin + start, end + start, num_to_find - len(feasible))
            cut, stop, rejected = run.cut, run.stop, run.rejected
            if rejected and vouch and run.certain():
                at = run.positions_of(rejected)
                deferred.extend(map(nodes.__getitem__, at))
                deferred_at.extend(at)
            elif rejected:
                if deferred:  # vouched for: no error among them
                    _, error = resolve(deferred, verdicts.statuses(deferred_at))
                    deferred.clear()
                    deferred_at.clear()
                    if error is not None:
                        cut, stop = 0, True
                if error is None:
                    done, error = resolve(nodes[i] for i in run.positions_of(rejected))
                    if error is not None:
                        cut, stop = rejected[done] + 1, True
            passed = run.passed_before(cut)
            feasible.extend(map(nodes.__getitem__, passed))
            positions.extend(passed)
            if visited is not None:
                visited.extend(nodes[i].name for i in run.visited(cut))
            if stop:
                break
            begin = end
            # a run that did not find enough means many rejections ahead too (cordoned or full
            # nodes): each further run twice as long, so a scan of every node takes a few runs
            chunk *= 2
        if deferred:
            if feasible:
                self._unresolved = len(deferred)
            elif error is None:
                _, error = resolve(deferred, verdicts.statuses(deferred_at))
        feasible = verdicts.feasible(feasible, positions)
        self._last_feasible = feasible
        if visited is not None:
            outcome.visit_order = visited  # type: ignore[union-attr]
        if error is not None:
            raise SchedulingError(error)
        return feasible

    def _scan_nodes(self, scan: Any, diagnosis: Diagnosis, nodes: list["NodeInfo"], start: int,
                    num_to_find: int, outcome: CycleOutcome | None, from_start: bool,
                    forget: Callable[["NodeInfo"], Any] | None = None) -> list["NodeInfo"]:
        """The loop of find_nodes_that_pass_filters: the nodes in order from ``start``,
        ``scan(node)`` giving each verdict (the runtime's two passes, or for a batch the
        framework's memoized answer); every rejection recorded in the diagnosis.

        As upstream's loop with one worker: once ``num_to_find`` nodes passed, the scan goes on,
        recording rejections, until one more node passes; that one cancels the scan and is
        dropped (not feasible, not processed, ``forget`` erases what was recorded of it)."""
        set_status = diagnosis.node_to_status.set
        add_plugin_status = diagnosis.add_plugin_status
        seen: set = set()
        feasible: list["NodeInfo"] = []
        visited: list[str] | None = [] if outcome is not None and from_start and self.for_display else None
        error: Status | None = None
        start = start % len(nodes) if nodes else 0
        order = nodes[start:] + nodes[:start] if start else nodes
        error_code = Code.Error
        last_plugin: Any = None
        last_code: Any = None
        for node_info in order:
            status = scan(node_info)
            if status is None or status.code == _SUCCESS:
                if len(feasible) >= num_to_find:
                    if forget is not None:
                        forget(node_info)
                    break
                if visited is not None:
                    visited.append(node_info.name)
                feasible.append(node_info)
                continue
            if visited is not None:
                visited.append(node_info.name)
            code = status.code
            if code == error_code:
                error = status
                break
            set_status(node_info.name, status)
            plugin = status.plugin
            if plugin != last_plugin or code != last_code:  # most nodes repeat the previous one
                last_plugin, last_code = plugin, code
                tag = (plugin, code)
                if tag not in seen:  # AddPluginStatus only depends on the plugin and the code
                    seen.add(tag)
                    add_plugin_status(status)
        self._last_feasible = feasible
        if visited is not None:
            outcome.visit_order = visited  # type: ignore[union-attr]
        if error is not None:
            raise SchedulingError(error)
        return feasible

    # -- prioritizeNodes / selectHost ---------------------------------------------------------
    def prioritize_nodes(
        self, fwk: Framework, state: CycleState, pod_info: "PodInfo", nodes: list["NodeInfo"]
    ) -> list[NodePluginScores]:
        """Upstream prioritizeNodes: every node scores 1 when there is no Score plugin and no
        extender; extender scores are added to the plugins' totals."""
        if not self.extenders and not fwk.has_score_plugins():
            return [NodePluginScores(n.name, [], 1) for n in nodes]
        s = fwk.run_pre_score_plugins(state, pod_info, nodes)
        if s is not None and s.code != _SUCCESS:
            raise SchedulingError(s)
        scores, s = fwk.run_score_plugins(state, pod_info, nodes)
        if s is not None and s.code != _SUCCESS:
            raise SchedulingError(s)
        if self.extenders and nodes:
            self._add_extender_scores(fwk, pod_info, nodes, scores)  # type: ignore[arg-type]
        return scores  # type: ignore[return-value]

    # -- findNodesThatPassExtenders / extender scores -------------------------------------------
    def find_nodes_that_pass_extenders(
        self, fwk: Framework, pod_info: "PodInfo", feasible: list["NodeInfo"], diagnosis: Diagnosis
    ) -> list["NodeInfo"]:
        """Upstream findNodesThatPassExtenders: each interested extender filters what the previous
        one left; its failed nodes get Unschedulable / UnschedulableAndUnresolvable statuses with
        the extender's message. An ignorable extender's failure is skipped (a warning); any other
        extender's failure aborts the cycle (SchedulingError naming the extender)."""
        log = self.extender_log()
        trace = fwk.trace
        statuses = diagnosis.node_to_status
        pod = pod_info.pod
        for ext in self.extenders:
            if not feasible:
                break
            if not log.interested(ext, pod):
                continue
            if not ext.is_filter():
                continue  # upstream's Filter returns the nodes as they are, without a request
            try:
                result = ext.filter(pod, feasible)
            except ExtenderError as exc:
                log.call(ext, "filter", len(feasible), exc)
                if ext.is_ignorable():
                    log.warn(f"ignorable extender {ext.name} failed at {ext.filter_verb} and was skipped, as "
                             f"kube-scheduler skips it: {exc}")
                    continue
                raise SchedulingError(Status(Code.Error, f"extender {ext.name} failed at {ext.filter_verb}: {exc}",
                                             error=exc)) from None
            log.call(ext, "filter", len(feasible), None, passed=len(result.nodes))
            unresolvable, failed = result.failed_and_unresolvable, result.failed
            for name, msg in unresolvable.items():
                statuses.set(name, Status(Code.UnschedulableAndUnresolvable, msg))
            for name, msg in failed.items():
                if name not in unresolvable:  # the unresolvable map wins, as upstream
                    statuses.set(name, Status(Code.Unschedulable, msg))
            for name in result.unknown_nodes:
                log.warn(f"extender {ext.name} returned node {name!r}, which it was not given; kube-scheduler "
                         f"does not check this either and goes on with it")
            if trace is not None and trace.filters is not None:  # a batch keeps no per-node records
                self._record_extender_filter(trace, ext, feasible, result, statuses)
            feasible = result.nodes
        return feasible

    def _record_extender_filter(self, trace: Trace, ext: HTTPExtender, given: list["NodeInfo"], result: Any,
                                statuses: NodeToStatus) -> None:
        passed = {n.name for n in result.nodes}
        plugin = ext.plugin_name
        for node_info in given:
            name = node_info.name
            if name in passed:
                status: Status | None = None
            elif name in result.failed_and_unresolvable or name in result.failed:
                status = statuses.get(name)
            else:
                # Dropped without a message: upstream sets no status, the node counts as absent.
                absent = statuses.absent_nodes_status()
                status = Status(absent.code, *absent.reasons,
                                details={"note": "the extender dropped this node without a failure message"})
            trace.filters.setdefault(name, []).append((plugin, status))

    def _add_extender_scores(self, fwk: Framework, pod_info: "PodInfo", nodes: list["NodeInfo"],
                             scores: list[NodePluginScores]) -> None:
        """The extender half of upstream prioritizeNodes: each interested prioritizer's
        ``score * weight * (MaxNodeScore / MaxExtenderPriority)`` added per host; errors only
        cost that extender's scores."""
        log = self.extender_log()
        pod = pod_info.pod
        callers = [e for e in self.extenders if log.interested(e, pod) and e.is_prioritizer()]
        if not callers:
            return

        def call(ext: HTTPExtender) -> tuple[list[tuple[str, int]], int] | ExtenderError:
            try:
                return ext.prioritize(pod, nodes)
            except ExtenderError as exc:
                return exc

        if len(callers) == 1:
            outputs = [call(callers[0])]
        else:
            from concurrent.futures import ThreadPoolExecutor  # (and logging): only for two extenders or more

            with ThreadPoolExecutor(max_workers=len(callers)) as pool:
                outputs = list(pool.map(call, callers))
        index = {n.name: i for i, n in enumerate(nodes)}
        trace = fwk.trace
        for ext, output in zip(callers, outputs):
            if isinstance(output, ExtenderError):
                log.call(ext, "prioritize", len(nodes), output)
                log.warn(f"extender {ext.name} failed at {ext.prioritize_verb}; kube-scheduler ignores "
                         f"prioritize errors, so it gives no score: {output}")
                continue
            host_scores, weight = output
            log.call(ext, "prioritize", len(nodes), None)
            raw: list[int | None] = [None] * len(nodes)
            for host, score in host_scores:
                i = index.get(host)
                if i is None:
                    continue  # upstream merges only the scored nodes' entries
                raw[i] = score if raw[i] is None else raw[i] + score  # type: ignore[operator]
            plugin = ext.plugin_name
            for i, value in enumerate(raw):
                if value is not None:
                    final = value * weight * EXTENDER_SCORE_SCALE
                    entry = scores[i]
                    entry.scores.append((plugin, final))
                    entry.total_score += final
            log.weights[plugin] = weight
            if trace is not None and trace.keep_scores and trace.scored_nodes == [n.name for n in nodes]:
                trace.score_plugins.append(plugin)
                trace.raw_scores[plugin] = raw  # type: ignore[assignment]
                trace.normalized_scores[plugin] = [
                    None if v is None else v * EXTENDER_SCORE_SCALE for v in raw]  # type: ignore[misc]

    def select_host(self, node_scores: list[NodePluginScores]) -> tuple[str, list[str]]:
        """Upstream selectHost: one of the nodes sharing the top total score, uniformly at random
        (reservoir sampling, seeded). Returns the host and every node tied at the top."""
        if not node_scores:
            raise SchedulingError(Status(Code.Error, "empty priorityList"))
        top = getattr(node_scores, "tied_at_top", None)  # simulate's ScoreRows: the totals as an array
        tied = top() if top is not None else None
        if tied is None:
            best = max(ns.total_score for ns in node_scores)
            tied = [ns.name for ns in node_scores if ns.total_score == best]
        selected = tied[0]
        if self.tie_break_first:
            return selected, tied
        rng = self.rng
        if _plain_randrange(rng):
            # randrange(count) spelled out (the stdlib's _randbelow_with_getrandbits): the same
            # getrandbits calls in the same order, so the same pick and the same random state
            # afterwards, without two Python calls per tied node.
            getrandbits = rng.getrandbits
            for count in range(2, len(tied) + 1):
                k = count.bit_length()
                r = getrandbits(k)
                while r >= count:
                    r = getrandbits(k)
                if r == 0:  # replace the pick with probability 1/count
                    selected = tied[count - 1]
            return selected, tied
        randrange = rng.randrange
        for count in range(2, len(tied) + 1):
            if randrange(count) == 0:  # replace the pick with probability 1/count
                selected = tied[count - 1]
        return selected, tied

    # -- the whole cycle ----------------------------------------------------------------------
    def run_cycle(self, fwk: Framework, pod_info: "PodInfo") -> CycleOutcome:
        """PreEnqueue, the scheduling cycle and the binding cycle of one pod, recorded."""
        trace = fwk.begin_trace(self.all_filters)
        if self.extenders:
            self._ext_log = _ExtenderLog(self.extenders)
        out = CycleOutcome(pod_info, fwk.profile_name, Outcome.SCHEDULED, trace=trace, weights=dict(fwk.weights),
                           start_index=self.next_start_node_index)
        s = fwk.run_pre_enqueue_plugins(pod_info)
        if s is not None and s.code != _SUCCESS:
            out.outcome = Outcome.ERROR if s.code == Code.Error else Outcome.GATED
            out.message = s.message()
            return self._finish(out)
        if getattr(pod_info, "is_terminating", False):
            out.outcome = Outcome.ERROR
            out.message = f"skip schedule deleting pod: {pod_info.namespace}/{pod_info.name}"
            return self._finish(out)

        state = CycleState()
        pods_to_activate = PodsToActivate()
        state.write(PODS_TO_ACTIVATE_KEY, pods_to_activate)
        try:
            result = self.schedule_pod(fwk, state, pod_info, out)
        except NoNodesAvailable as exc:
            out.outcome, out.message = Outcome.UNSCHEDULABLE, str(exc)
            return self._finish(out)
        except FitError as fit_error:
            out.diagnosis = fit_error.diagnosis
            out.feasible_nodes = 0
            out.evaluated_nodes = len(fit_error.diagnosis.node_to_status)
            if fwk.has_post_filter_plugins():
                r, ps = fwk.run_post_filter_plugins(state, pod_info, fit_error.diagnosis.node_to_status)
                fit_error.diagnosis.post_filter_msg = ps.message() if ps is not None else ""
                if r is not None and r.nominated_node_name:
                    out.preemption = r
                elif r is not None:
                    # An empty nominated node: upstream's ModeOverride clears the pod's nomination.
                    out.clears_nomination = True
            out.outcome = Outcome.UNSCHEDULABLE
            out.message = truncate_message(fit_error.error())
            return self._finish(out)
        except SchedulingError as exc:
            out.outcome, out.message = Outcome.ERROR, truncate_message(exc.status.message())
            return self._finish(out)

        host = result.suggested_host
        out.evaluated_nodes, out.feasible_nodes = result.evaluated_nodes, result.feasible_nodes
        scored = out.node_scores or ()
        names = getattr(scored, "names", None)  # simulate's ScoreRows: no row made for the names
        # (its names are read when asked: a batch reads them only for a cycle it shows)
        out.feasible = [host] if result.feasible_nodes == 1 else (
            names if names is not None else [ns.name for ns in scored])
        out.tied_nodes = result.tied_nodes
        if result.scoring_skipped_upstream:
            out.scoring_skipped_upstream = True
            if self.for_display:
                self._display_scores(fwk, state, pod_info, host, out)

        # Reserve
        s = fwk.run_reserve_plugins_reserve(state, pod_info, host)
        if s is not None and s.code != _SUCCESS:
            fwk.run_reserve_plugins_unreserve(state, pod_info, host)
            return self._finish(self._rejected_on_node(out, host, s))
        # Permit
        s, waits = fwk.run_permit_plugins(state, pod_info, host)
        if s is not None and s.code not in (_SUCCESS, Code.Wait):
            fwk.run_reserve_plugins_unreserve(state, pod_info, host)
            return self._finish(self._rejected_on_node(out, host, s))
        # The end of a successful scheduling cycle: the pods plugins asked to activate.
        out.pods_to_activate.extend(pods_to_activate.map)
        pods_to_activate.map.clear()
        permit: Status | None = None
        if s is not None and s.code == Code.Wait:
            if self.hold_waiting_pods:
                out.outcome = Outcome.WAITING
                out.provisional_node = host
                out.state = state
                out.waiting = WaitingPod(pod_info, host, waits)
                return self._finish(out)
            # Nobody allows a single pod in a what-if run: the first timer to fire rejects it.
            plugin, timeout = min(waits.items(), key=lambda kv: kv[1])
            waiting = WaitingPod(pod_info, host, waits)
            waiting.time_out(plugin)
            permit = waiting.status
            trace.stage("WaitOnPermit", plugin, permit, {"timeout": timeout})
            out.warnings.append(
                f"Permit plugin(s) {', '.join(sorted(waits))} made the pod wait on {host}; one pod alone is "
                f"never let through, so the wait timed out. `kschedctl simulate` with the pods it waits for "
                f"(a Coscheduling gang's members) shows whether they bind together")
        return self.binding_cycle(fwk, state, pod_info, host, out, permit)

    def binding_cycle(self, fwk: Framework, state: CycleState, pod_info: "PodInfo", host: str,
                      out: CycleOutcome, permit: Status | None = None) -> CycleOutcome:
        """WaitOnPermit's answer, PreBind, Bind and PostBind of a pod assumed on ``host``.

        ``permit`` is what a waiting pod got (None when it did not wait): a rejection fails the
        cycle as upstream's binding cycle does, with a FitError over the one node. Plugin calls
        are recorded into the pod's own trace, even when other pods ran since its cycle.
        """
        cycle_trace = fwk.trace
        fwk.trace = out.trace
        try:
            return self._binding_cycle(fwk, state, pod_info, host, out, permit)
        finally:
            fwk.trace = cycle_trace

    def _binding_cycle(self, fwk: Framework, state: CycleState, pod_info: "PodInfo", host: str,
                       out: CycleOutcome, permit: Status | None) -> CycleOutcome:
        extenders = out.outcome != Outcome.WAITING  # a held pod's extender calls were summed up already
        out.outcome = Outcome.SCHEDULED
        if permit is not None and permit.code != _SUCCESS:
            fwk.run_reserve_plugins_unreserve(state, pod_info, host)
            return self._finish(self._rejected_on_node(out, host, permit), extenders)
        # PreBind
        s = fwk.run_pre_bind_plugins(state, pod_info, host)
        if s is not None and s.code != _SUCCESS:
            fwk.run_reserve_plugins_unreserve(state, pod_info, host)
            out.outcome = Outcome.REJECTED if s.code in _REJECTED else Outcome.ERROR
            out.message = truncate_message(s.message())
            out.provisional_node = host
            return self._finish(out, extenders)
        # Bind
        s = fwk.run_bind_plugins(state, pod_info, host)
        if s is not None and s.code != _SUCCESS:
            fwk.run_reserve_plugins_unreserve(state, pod_info, host)
            out.outcome = Outcome.REJECTED if s.code in _REJECTED else Outcome.ERROR
            out.message = truncate_message(s.message() or "no Bind plugin bound the pod (every one returned Skip)")
            out.provisional_node = host
            return self._finish(out, extenders)
        fwk.run_post_bind_plugins(state, pod_info, host)
        out.selected_node = host
        out.provisional_node = None
        try:
            activate = state.read(PODS_TO_ACTIVATE_KEY).map
        except StateNotFound:
            activate = {}
        out.pods_to_activate.extend(k for k in activate if k not in out.pods_to_activate)
        return self._finish(out, extenders)

    def _rejected_on_node(self, out: CycleOutcome, host: str, status: Status) -> CycleOutcome:
        """Reserve/Permit said no: upstream reports a FitError over the one chosen node."""
        out.provisional_node = host
        if status.code in _REJECTED:
            diagnosis = Diagnosis(NodeToStatus({host: status}))
            diagnosis.add_plugin_status(status)
            out.diagnosis = diagnosis
            out.outcome = Outcome.REJECTED
            out.message = truncate_message(FitError(out.pod_info, 1, diagnosis).error())
        else:
            out.outcome = Outcome.ERROR
            out.message = truncate_message(status.message())
        return out

    def _display_scores(self, fwk: Framework, state: CycleState, pod_info: "PodInfo", host: str,
                        out: CycleOutcome) -> None:
        """Scores upstream does not compute (single feasible node), for the report only."""
        if not fwk.has_score_plugins():
            return
        trace = fwk.trace
        stages_before = len(trace.stages) if trace is not None else 0
        node_info = self.snapshot.get_or_none(host)
        if node_info is None:
            return
        scratch = state.clone()
        s = fwk.run_pre_score_plugins(scratch, pod_info, [node_info])
        if s is None or s.code == _SUCCESS:
            scores, _ = fwk.run_score_plugins(scratch, pod_info, [node_info])
            out.node_scores = scores
        if trace is not None:
            # Display-only: what these calls said must not change the verdict.
            for stage in trace.stages[stages_before:]:
                stage.extra = dict(stage.extra or {}, displayOnly=True)

    def _finish(self, out: CycleOutcome, extenders: bool = True) -> CycleOutcome:
        """The cycle's warnings; ``extenders`` adds what the extenders did in this cycle (not
        again when a held pod's binding cycle ends)."""
        if self.extenders and extenders:
            log = self.extender_log()
            out.extenders = log.summary(out.pod_info.pod)
            out.warnings.extend(log.warnings)
            out.weights.update(log.weights)
        trace = out.trace
        if trace is not None and trace.warnings:
            out.warnings.extend(w for w in trace.warnings if w not in out.warnings)
        return out


_NAME = attrgetter("name")
_PLUGIN = attrgetter("plugin")
_CODE = attrgetter("code")

_RANDBELOW_WITH_GETRANDBITS = getattr(random.Random, "_randbelow_with_getrandbits", None)


def _plain_randrange(rng: Any) -> bool:
    """Whether ``rng.randrange(n)`` (n > 0) is the stdlib's ``_randbelow_with_getrandbits(n)``,
    which ``select_host`` may then spell out."""
    if _RANDBELOW_WITH_GETRANDBITS is None or type(rng).randrange is not random.Random.randrange:
        return False
    return getattr(getattr(rng, "_randbelow", None), "__func__", None) is _RANDBELOW_WITH_GETRANDBITS


class _ExtenderLog:
    """What the extenders did during one cycle, for the report."""

    def __init__(self, extenders: list[HTTPExtender]) -> None:
        self.extenders = extenders
        self._interested: dict[int, bool] = {}
        self.calls: dict[int, list[dict]] = {}
        self.warnings: list[str] = []
        self.weights: dict[str, int] = {}

    def interested(self, ext: HTTPExtender, pod: dict) -> bool:
        key = id(ext)
        value = self._interested.get(key)
        if value is None:
            value = self._interested[key] = ext.is_interested(pod)
        return value

    def call(self, ext: HTTPExtender, verb: str, nodes: int, error: ExtenderError | None, passed: int | None = None
             ) -> None:
        entry: dict[str, Any] = {"verb": verb, "url": ext.url(ext.filter_verb if verb == "filter"
                                                              else ext.prioritize_verb),
                                 "nodes": nodes, "code": "Error" if error is not None else "Success"}
        if passed is not None:
            entry["passed"] = passed
        if error is not None:
            entry["message"] = str(error)
            entry["ignored"] = verb == "prioritize" or ext.is_ignorable()
        if ext.last_call is not None:
            entry["seconds"] = round(ext.last_call[1], 3)
        self.calls.setdefault(id(ext), []).append(entry)

    def warn(self, message: str) -> None:
        self.warnings.append(message)

    def summary(self, pod: dict) -> list[dict]:
        out = []
        for ext in self.extenders:
            entry = ext.describe()
            entry["interested"] = self.interested(ext, pod)
            entry["calls"] = self.calls.get(id(ext), [])
            out.append(entry)
        return out
