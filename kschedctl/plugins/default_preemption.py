"""DefaultPreemption: when a pod fits no node, find the node where evicting lower-priority pods
would make it fit, and the fewest, least important pods to evict there.

Follows upstream kube-scheduler v1.34
``pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go`` (the policy) on top of
the generic ``kschedctl.framework.preemption.Evaluator`` (``framework/preemption/preemption.go``).

- PostFilter: the evaluator's verdict, its message prefixed with "preemption: ". Success means
  a node is nominated: ``PostFilterResult.nominated_node_name`` and ``.victims`` ("ns/name", most
  important first). Nothing is evicted; the status ``details`` tell the reports which nodes were
  candidates, their victims and PodDisruptionBudget violations, and which tie-break each lost on.
- Victims on a node (``select_victims_on_node``): remove every pod of lower priority than the
  preemptor (through the profile's PreFilter extensions, as upstream), check the pod fits with
  the profile's filters (nominated pods included); then give pods back ("reprieve") most
  important first, PDB-violating ones before the others; those that no longer fit are victims.
- Eligibility: ``preemptionPolicy: Never`` never preempts; a pod whose nominated node still has a
  lower-priority pod terminating because of a preemption (DisruptionTarget condition, reason
  PreemptionByScheduler) waits for it, unless that node is now UnschedulableAndUnresolvable.
- How many candidates the dry run looks for: ``max(N * minCandidateNodesPercentage / 100,
  minCandidateNodesAbsolute)`` capped at N, N being the number of nodes preemption may help,
  starting at a random offset.
- PreEnqueue (async preemption, SchedulerAsyncPreemption beta and on in v1.34): holds back a pod
  whose earlier preemption is still running. A what-if run starts no preemption, so it always
  lets the pod through.

Differences from upstream: the offset of the dry run comes from ``handle.rng`` when the handle
has a seeded ``random.Random`` there, and from ``random.Random(0)`` fresh for each pod otherwise,
so a run is reproducible (upstream: ``rand.Int31n``, unseeded). See ``kschedctl.framework.preemption``
for the dry run's and the tie-breaks' differences. Args are validated when the plugin is built, with
upstream's messages.
"""

from __future__ import annotations

import random
from collections import OrderedDict
from typing import Any, Callable, ClassVar, Sequence

from kschedctl.errors import InputError
from kschedctl.framework.interfaces import Plugin
from kschedctl.framework.preemption import (
    Candidate,
    DisruptionBudget,
    Evaluator,
    StartTimes,
    compile_pdbs,
    filter_pods_with_pdb_violation,
    go_sort_slice,
    more_important_pod,
    victims_summary,
)
from kschedctl.framework.runtime import NodeToStatus
from kschedctl.framework.status import Code, PostFilterResult, Status
from kschedctl.k8s.field import FieldError, child, invalid
from kschedctl.plugins.facts import ArgsFacts, PluginFacts
from kschedctl.plugins.helper import int_field
from kschedctl.plugins.names import DEFAULT_PREEMPTION

NAME = DEFAULT_PREEMPTION

#: Reasons and messages, word for word as upstream.
MSG_PREFIX = "preemption: "
REASON_NO_VICTIMS = "No preemption victims found for incoming pod"
REASON_PREEMPT_NEVER = "not eligible due to preemptionPolicy=Never."
REASON_TERMINATING_ON_NOMINATED = "not eligible due to a terminating pod on the nominated node."
REASON_WAITING_FOR_PREEMPTION = "waiting for the preemption for this pod to be finished"

#: Upstream v1 defaults of DefaultPreemptionArgs.
DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE = 10
DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE = 100


class DefaultPreemption(Plugin):
    """PostFilter: nominate a node and the victims whose eviction lets the pod fit there."""

    name: ClassVar[str] = NAME
    #: Put before the evaluator's message (upstream's DefaultPreemption.PostFilter adds it).
    message_prefix: ClassVar[str] = MSG_PREFIX
    #: Whether the victims on a node depend only on that node and the preemptor (see victims_memo).
    victims_are_node_local: ClassVar[bool] = True

    def __init__(self, args: dict | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        args = args or {}
        pct = args.get("minCandidateNodesPercentage")
        absolute = args.get("minCandidateNodesAbsolute")
        self.min_candidate_nodes_percentage = DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE if pct is None else _int(
            pct, "minCandidateNodesPercentage")
        self.min_candidate_nodes_absolute = DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE if absolute is None else _int(
            absolute, "minCandidateNodesAbsolute")
        errors = validate_args(self.min_candidate_nodes_percentage, self.min_candidate_nodes_absolute)
        if errors:
            raise InputError(f"{NAME} args: " + (errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"))
        #: Upstream's customization hooks (not reachable from configuration): which lower-priority
        #: pods may be victims, and the order of importance of victims.
        self.is_eligible_pod: Callable[[Any, Any, Any], bool] = _always_eligible
        self.more_important_pod: Callable[[Any, Any, StartTimes], bool] = more_important_pod
        self.evaluator = Evaluator(self.name, handle, self, victims_memo=self.victims_memo)
        self._rng: random.Random | None = None
        self._pdb_cache: tuple[Any, int, list[DisruptionBudget]] | None = None
        self._victims_memos: OrderedDict[Any, _VictimsMemo] = OrderedDict()

    # --- PreEnqueue --------------------------------------------------------------------------

    def pre_enqueue(self, pod_info: Any) -> Status | None:
        """No preemption of this pod is in flight in a what-if run: never hold it back."""
        return None

    # --- PostFilter --------------------------------------------------------------------------

    def post_filter(
        self, state: Any, pod_info: Any, filtered_node_status: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status]:
        self._rng = None  # a fresh offset source per pod unless the handle has a seeded one
        times = StartTimes()
        result, status = self.evaluator.preempt(state, pod_info, filtered_node_status, self._pdbs(), times)
        msg = status.message()
        if msg and self.message_prefix:
            return result, Status(status.code, self.message_prefix + msg, details=status.details)
        return result, status

    # --- the preemption policy (upstream preemption.Interface) -------------------------------

    def calculate_num_candidates(self, num_nodes: int) -> int:
        """How many candidates the dry run must find (upstream calculateNumCandidates)."""
        n = num_nodes * self.min_candidate_nodes_percentage // 100
        if n < self.min_candidate_nodes_absolute:
            n = self.min_candidate_nodes_absolute
        if n > num_nodes:
            n = num_nodes
        return n

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        """A random start in [0, num_nodes) and the number of candidates to find."""
        return self._offset_rng().randrange(num_nodes), self.calculate_num_candidates(num_nodes)

    def pod_eligible_to_preempt_others(self, pod_info: Any, nominated_node_status: Status | None) -> tuple[bool, str]:
        """Upstream PodEligibleToPreemptOthers: (eligible, why not)."""
        spec = pod_info.pod.get("spec") or {}
        if spec.get("preemptionPolicy") == "Never":
            return False, REASON_PREEMPT_NEVER
        nominated = pod_info.nominated_node_name
        if nominated:
            # The nominated node no longer fits for a reason preemption cannot fix: try again.
            if nominated_node_status is not None and nominated_node_status.code == Code.UnschedulableAndUnresolvable:
                return True, ""
            snapshot = self.handle.snapshot()
            node_info = snapshot.get_or_none(nominated) if hasattr(snapshot, "get_or_none") else None
            if node_info is not None:
                for victim in node_info.pods:
                    if self._preemption_allowed(node_info, victim, pod_info) and _terminating_by_preemption(victim.pod):
                        return False, REASON_TERMINATING_ON_NOMINATED
        return True, ""

    def select_victims_on_node(
        self, state: Any, pod_info: Any, node_info: Any, pdbs: Sequence[DisruptionBudget], times: StartTimes
    ) -> tuple[list, int, Status | None, dict[str, list[str]]]:
        """Upstream SelectVictimsOnNode on a copy of the node and of the cycle state.

        Returns (victims most important first, number of PDB-violating victims, status,
        victim key -> PDBs it would break).
        """
        handle = self.handle
        potential, error = self.potential_victims(node_info, pod_info)
        if error is not None:
            return [], 0, error, {}
        for victim in potential:
            error = self._remove(state, pod_info, victim, node_info)
            if error is not None:
                return [], 0, error, {}
        if not potential:
            return [], 0, self.no_victims_status(node_info, pod_info), {}
        # Without every lower-priority pod the pod must fit, or preemption cannot help here.
        status = handle.run_filter_plugins_with_nominated_pods(state, pod_info, node_info)
        if status is not None and status.code != Code.Success:
            return [], 0, status, {}

        def less(a: Any, b: Any) -> bool:
            return self.more_important_pod(a, b, times)

        go_sort_slice(potential, less)
        violating, non_violating, broken = filter_pods_with_pdb_violation(potential, pdbs)
        victims: list = []
        num_violating = 0
        for group, counts in ((violating, True), (non_violating, False)):
            for candidate in group:
                node_info.add_pod(candidate)
                s = handle.run_pre_filter_extension_add_pod(state, pod_info, candidate, node_info)
                if s is not None and s.code != Code.Success:
                    return [], 0, Status(Code.Error, s.message(), error=s.error), {}
                s = handle.run_filter_plugins_with_nominated_pods(state, pod_info, node_info)
                if s is None or s.code == Code.Success:
                    continue  # reprieved: it stays
                error = self._remove(state, pod_info, candidate, node_info)
                if error is not None:
                    return [], 0, error, {}
                victims.append(candidate)
                if counts:
                    num_violating += 1
        if violating and non_violating:
            go_sort_slice(victims, less)
        victim_keys = {v.key for v in victims}
        return victims, num_violating, Status(Code.Success), {
            k: v for k, v in broken.items() if k in victim_keys
        }

    def victims_memo(self, state: Any, pod_info: Any, pdbs: Sequence[DisruptionBudget]) -> "_VictimsMemo | None":
        """Answers of ``select_victims_on_node`` kept across dry runs, when they can be (else None).

        That is when the victims on a node depend only on that node's pods and on what the
        framework's memo key says about the pod: the framework runs only node-local filters and
        no PreFilter extension for this state (``node_local_chain_key``), the customization
        hooks are the defaults, and the PodDisruptionBudgets are the same. Entries are per node
        and NodeInfo generation, and per set of nominated pods the filters would add there.
        """
        if (not self.victims_are_node_local or self.is_eligible_pod is not _always_eligible
                or self.more_important_pod is not more_important_pod):
            return None
        framework = self.handle.framework
        key = framework.node_local_chain_key(state) if framework is not None else None
        if key is None:
            return None
        memo = self._victims_memos.get(key)
        # The same compiled PDBs (a cluster without any gives a new empty list each time).
        if memo is None or (memo.pdbs is not pdbs and (memo.pdbs or pdbs)):
            memo = self._victims_memos[key] = _VictimsMemo(self, pdbs)
            if len(self._victims_memos) > 4:
                self._victims_memos.popitem(last=False)
        else:
            self._victims_memos.move_to_end(key)
        memo.begin(pod_info)
        return memo

    def ordered_score_funcs(self, nodes_to_victims: dict) -> None:
        """The default plugin uses the default tie-breaks (upstream returns nil)."""
        return None

    def potential_victims(self, node_info: Any, pod_info: Any) -> tuple[list, Status | None]:
        """The node's pods the preemptor may evict, in the node's order (or an Error status)."""
        return [p for p in node_info.pods if self._preemption_allowed(node_info, p, pod_info)], None

    def no_victims_status(self, node_info: Any, pod_info: Any) -> Status:
        """Why a node without potential victims is no candidate."""
        return Status(Code.UnschedulableAndUnresolvable, REASON_NO_VICTIMS)

    # --- helpers -----------------------------------------------------------------------------

    def _preemption_allowed(self, node_info: Any, victim: Any, preemptor: Any) -> bool:
        return victim.priority < preemptor.priority and self.is_eligible_pod(node_info, victim, preemptor)

    def _remove(self, state: Any, pod_info: Any, victim: Any, node_info: Any) -> Status | None:
        if not node_info.remove_pod(victim):
            return Status(Code.Error, f"no corresponding pod {victim.name} in pods of node {node_info.name}")
        s = self.handle.run_pre_filter_extension_remove_pod(state, pod_info, victim, node_info)
        if s is not None and s.code != Code.Success:
            return Status(Code.Error, s.message(), error=s.error)
        return None

    def _offset_rng(self) -> Any:
        rng = getattr(self.handle, "rng", None)
        if rng is not None and not hasattr(rng, "randrange") and callable(rng):
            rng = rng()
        if rng is not None and hasattr(rng, "randrange"):
            return rng
        if self._rng is None:
            self._rng = random.Random(0)
        return self._rng

    def _pdbs(self) -> list[DisruptionBudget]:
        """The cluster's PodDisruptionBudgets (all namespaces), compiled once per cluster state."""
        cluster = self.handle.cluster() if self.handle is not None else None
        raw = getattr(cluster, "pdbs", None)
        if isinstance(raw, dict):
            objects = raw
            items: Any = raw.values()
        elif cluster is not None and callable(getattr(cluster, "of_kind", None)):
            objects = items = cluster.of_kind("PodDisruptionBudget")
        else:
            return []
        cached = self._pdb_cache
        if cached is not None and cached[0] is objects and cached[1] == len(objects):
            return cached[2]
        compiled = compile_pdbs(items)
        self._pdb_cache = (objects, len(objects), compiled)
        return compiled


def legacy_pod_eligible_to_preempt_others(handle: Any, pod_info: Any,
                                          nominated_node_status: Any) -> tuple[bool, str]:
    """PodEligibleToPreemptOthers as it was before v1.32 (scheduler-plugins' PostFilter plugins
    keep this copy): no ``preemptionPolicy: Never``, and no terminating lower-priority pod on
    the pod's nominated node unless that node is UnschedulableAndUnresolvable for it."""
    if (pod_info.pod.get("spec") or {}).get("preemptionPolicy") == "Never":
        return False, REASON_PREEMPT_NEVER
    nominated = pod_info.nominated_node_name
    if nominated:
        if nominated_node_status is not None and nominated_node_status.code == Code.UnschedulableAndUnresolvable:
            return True, ""
        node_info = handle.snapshot().get_or_none(nominated)
        if node_info is not None:
            for p in node_info.pods:
                if p.is_terminating and p.priority < pod_info.priority:
                    return False, REASON_TERMINATING_ON_NOMINATED
    return True, ""


def validate_args(percentage: int, absolute: int) -> list[str]:
    """Upstream ValidateDefaultPreemptionArgs, messages as field.ErrorList prints them."""
    errors = []
    if percentage < 0 or percentage > 100:
        errors.append(f"minCandidateNodesPercentage: Invalid value: {percentage}: not in valid range [0, 100]")
    if absolute < 0:
        errors.append(f"minCandidateNodesAbsolute: Invalid value: {absolute}: not in valid range [0, inf)")
    if percentage == 0 and absolute == 0:
        errors.append("minCandidateNodesPercentage: Invalid value: 0: "
                      "cannot be zero at the same time as minCandidateNodesAbsolute")
        errors.append("minCandidateNodesAbsolute: Invalid value: 0: "
                      "cannot be zero at the same time as minCandidateNodesPercentage")
    return errors


# --- private helpers --------------------------------------------------------------------------


def _always_eligible(node_info: Any, victim: Any, preemptor: Any) -> bool:
    """The default ``is_eligible_pod`` hook: every lower-priority pod may be a victim."""
    return True


class _VictimsMemo:
    """``select_victims_on_node`` answers of one kind of preemptor, per node (see victims_memo).

    An answer is reused only for the very NodeInfo at the same generation (same pods) and the
    same nominated pods of equal or higher priority; the nodes the filters then marked as
    "nominated" in the trace are marked again, so a reused answer leaves what a fresh one would.
    ``select`` hands victim lists out as copies; ``known`` hands out the kept answer itself,
    with the ``Candidate`` the node makes (victims' tie-break scores included), which nobody
    changes once made.
    """

    __slots__ = ("plugin", "pdbs", "_nodes", "_by_node", "_priority", "_uid", "_trace")

    def __init__(self, plugin: DefaultPreemption, pdbs: Sequence[DisruptionBudget]) -> None:
        self.plugin = plugin
        self.pdbs = pdbs
        self._nodes: dict[str, tuple[Any, int, dict]] = {}
        self._by_node: dict = {}
        self._priority = 0
        self._uid = ""
        self._trace: Any = None

    def begin(self, pod_info: Any) -> None:
        """A dry run for ``pod_info`` starts: what ``known`` reads for every node of it."""
        handle = self.plugin.handle
        nominator = getattr(handle, "nominator", None)
        self._by_node = nominator.by_node if nominator is not None else None
        self._priority, self._uid = pod_info.priority, pod_info.uid
        self._trace = handle.framework.trace if handle.framework is not None else None

    def _nominated(self, name: str, pod_info: Any) -> tuple:
        priority, uid = pod_info.priority, pod_info.uid
        return tuple(pi for pi in self.plugin.handle.nominated_pods_for_node(name)
                     if pi.priority >= priority and pi.uid != uid)

    def known(self, node_info: Any) -> tuple | None:
        """The kept answer for ``node_info`` in this dry run (see ``begin``): (victims, number
        violating, status, victim -> PDBs, the candidate or None) to be read, not changed; None
        if not kept."""
        name = node_info.name
        entry = self._nodes.get(name)
        if entry is None or entry[0] is not node_info or entry[1] != node_info.generation:
            return None
        by_node = self._by_node
        if by_node is None:
            return None
        nominated = by_node.get(name)
        if nominated:
            priority, uid = self._priority, self._uid
            if len(nominated) == 1:  # the common case, without a generator
                pi = nominated[0]
                key = (pi,) if pi.priority >= priority and pi.uid != uid else ()
            else:
                key = tuple(pi for pi in nominated if pi.priority >= priority and pi.uid != uid)
        else:
            key = ()
        answer = entry[2].get(key)
        if answer is None:
            return None
        if answer[1] and self._trace is not None:
            self._trace.nominated_nodes |= answer[1]
        return answer[0]

    def select(
        self, state: Any, pod_info: Any, node_info: Any, pdbs: Sequence[DisruptionBudget], times: StartTimes
    ) -> tuple[list, int, Status | None, dict[str, list[str]]]:
        plugin = self.plugin
        handle = plugin.handle
        name = node_info.name
        nominated = self._nominated(name, pod_info)
        entry = self._nodes.get(name)
        if entry is None or entry[0] is not node_info or entry[1] != node_info.generation:
            entry = self._nodes[name] = (node_info, node_info.generation, {})
        answers = entry[2]
        trace = handle.framework.trace if handle.framework is not None else None
        answer = answers.get(nominated)
        if answer is None:
            marked: set[str] = set()
            if trace is not None:
                # Watch which nodes the filters mark as nominated during this call.
                saved, trace.nominated_nodes = trace.nominated_nodes, marked
            try:
                result = plugin.select_victims_on_node(state.clone(), pod_info, node_info.clone(), pdbs, times)
            finally:
                if trace is not None:
                    saved |= marked
                    trace.nominated_nodes = saved
            victims, _, status, _ = result
            candidate = None
            if victims and (status is None or status.code == Code.Success):
                candidate = Candidate(name, victims, result[1], result[3], victims_summary(victims))
            answer = answers[nominated] = ((*result, candidate), frozenset(marked))
        elif trace is not None and answer[1]:
            trace.nominated_nodes |= answer[1]
        (victims, num_violating, status, broken, _), _ = answer
        return list(victims), num_violating, status, {k: list(v) for k, v in broken.items()}


def _int(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{NAME} args: {field}: must be an integer, got {value!r}")
    return value


def _terminating_by_preemption(pod: dict) -> bool:
    """Upstream podTerminatingByPreemption: being deleted, with the scheduler's DisruptionTarget."""
    if (pod.get("metadata") or {}).get("deletionTimestamp") is None:
        return False
    for condition in (pod.get("status") or {}).get("conditions") or ():
        if condition.get("type") == "DisruptionTarget":
            return condition.get("status") == "True" and condition.get("reason") == "PreemptionByScheduler"
    return False


# -- facts --------------------------------------------------------------------------------------


def default_config_args(a: dict[str, Any]) -> None:
    """``SetDefaults_DefaultPreemptionArgs`` on a v1 args dict, in place."""
    if a.get("minCandidateNodesPercentage") is None:
        a["minCandidateNodesPercentage"] = 10
    if a.get("minCandidateNodesAbsolute") is None:
        a["minCandidateNodesAbsolute"] = 100


def validate_config_args(path: str, a: dict[str, Any]) -> list[FieldError]:
    """``ValidateDefaultPreemptionArgs``: upstream's field errors under ``path``."""
    errs: list[FieldError] = []
    pct_path, abs_path = child(path, "minCandidateNodesPercentage"), child(path, "minCandidateNodesAbsolute")
    pct, absolute = int_field(a, "minCandidateNodesPercentage"), int_field(a, "minCandidateNodesAbsolute")
    if pct < 0 or pct > 100:
        errs.append(invalid(pct_path, pct, "not in valid range [0, 100]"))
    if absolute < 0:
        errs.append(invalid(abs_path, absolute, "not in valid range [0, inf)"))
    if pct == 0 and absolute == 0:
        errs.append(invalid(pct_path, pct, "cannot be zero at the same time as minCandidateNodesAbsolute"))
        errs.append(invalid(abs_path, absolute, "cannot be zero at the same time as minCandidateNodesPercentage"))
    return errs


FACTS = PluginFacts(
    name=DefaultPreemption.name,
    points=("preEnqueue", "postFilter"),
    # Only node events (or updates of the pod itself) can help; a batch has none.
    events={},
    args=ArgsFacts("DefaultPreemptionArgs", default_config_args, validate_config_args),
)
