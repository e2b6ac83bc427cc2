"""Preemption, the generic part: which nodes to try, the dry run, and the choice among candidates.

Follows upstream kube-scheduler v1.34 ``pkg/scheduler/framework/preemption/preemption.go``
(``Evaluator.Preempt``, ``findCandidates``, ``DryRunPreemption``, ``SelectCandidate``,
``pickOneNodeForPreemption``) and ``pkg/scheduler/util/utils.go`` (``MoreImportantPod``,
``GetPodStartTime``, ``GetEarliestPodStartTime``). ``filter_pods_with_pdb_violation`` (upstream
in the DefaultPreemption plugin) lives here too, with the compiled PodDisruptionBudgets, because
any preemption plugin needs it.

A plugin supplies the policy (``PreemptionInterface``): how many candidates to look for and from
where, whether the pod may preempt at all, and which victims a node would need. The
``Evaluator`` does the rest:

1. the pod must be eligible (``preemptionPolicy: Never``, victims of an earlier preemption still
   terminating on the nominated node);
2. only nodes whose filter status is ``Unschedulable`` are tried: ``UnschedulableAndUnresolvable``
   ones (explicitly, or by being absent from the statuses) cannot be helped by removing pods;
3. the dry run walks those nodes from an offset, each on a copy of the NodeInfo and of the cycle
   state, and stops once it has ``numCandidates`` candidates of which at least one violates no
   PodDisruptionBudget (each list holds at most ``numCandidates``; more are dropped, as upstream);
4. no candidate: the status is a new ``FitError`` over every node, nodes never tried counting as
   "Preemption is not helpful for scheduling"; otherwise the best candidate by upstream's chain of
   tie-breaks is nominated.

In a what-if run nothing is evicted: the result names the node and the victims, and the status
``details`` say why the other candidates lost (``explain`` shows them).

Known differences from upstream:
- the dry run checks nodes one at a time (upstream: 16 goroutines that stop "about" when enough
  candidates are found), i.e. the result upstream gets with parallelism 1, as its own tests do;
- when every tie-break is equal upstream takes the first node of a Go map iteration, which is
  random; kschedctl takes the first candidate in dry-run order (violation-free ones first);
- ``GetPodStartTime`` is "now" for a pod without ``status.startTime``; kschedctl reads the clock
  once per preemption and makes every later "now" one nanosecond later, which is what the real
  clock does between two calls (each call is a little later than the one before);
- extenders are not supported by kschedctl, so ``callExtenders`` is a no-op.
"""

from __future__ import annotations

import calendar
import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Protocol, Sequence

from kschedctl.errors import InputError
from kschedctl.framework.runtime import Diagnosis, FitError, NodeToStatus
from kschedctl.framework.status import Code, PostFilterResult, Status

if TYPE_CHECKING:  # pragma: no cover
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.types import NodeInfo, PodInfo

#: Reasons and messages, word for word as upstream.
MSG_NOT_HELPFUL = "Preemption is not helpful for scheduling"
MSG_NO_CANDIDATE_NODE = "no candidate node for preemption"
MSG_NO_NODES_AVAILABLE = "no nodes available"

#: ``int64(math.MaxInt32 + 1)``, added to each victim's priority before summing (no negatives).
_PRIORITY_OFFSET = 2**31
_MIN_INT64 = -(2**63)

#: Names of the default tie-breaks of ``pick_one_node_for_preemption``, for the reports.
CRITERIA = (
    "fewest PodDisruptionBudget violations",
    "lowest priority of the most important victim",
    "smallest sum of victim priorities",
    "fewest victims",
    "latest start time of the most important victims",
)
#: What decides when every criterion ties (upstream: the first node of a Go map, i.e. random).
CRITERION_FIRST = "first remaining candidate"


# ---------------------------------------------------------------------------------------------
# Time: GetPodStartTime and friends
# ---------------------------------------------------------------------------------------------

_RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$"
)


def parse_time_ns(value: str) -> int:
    """An RFC 3339 time (as ``metav1.Time`` accepts it) in nanoseconds since the Unix epoch.

    Nanoseconds are kept (``1970-01-01T00:00:00.000000001Z`` is 1), which Python's datetime
    would round away. Raises ``ValueError`` for anything else.
    """
    m = _RFC3339.match(value.strip()) if isinstance(value, str) else None
    if m is None:
        raise ValueError(f"invalid time {value!r}: want RFC 3339, e.g. 2024-05-01T10:00:00Z")
    year, month, day, hour, minute, second = (int(g) for g in m.group(1, 2, 3, 4, 5, 6))
    frac = m.group(7) or ""
    seconds = calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0))
    if m.group(9):
        offset = int(m.group(10)) * 3600 + int(m.group(11)) * 60
        seconds -= offset if m.group(9) == "+" else -offset
    return seconds * 1_000_000_000 + int(frac.ljust(9, "0") or 0)


class StartTimes:
    """``GetPodStartTime`` for one preemption: ``status.startTime``, or "now" when unset.

    Upstream calls ``time.Now()`` each time it needs the start time of a pod that has none, so
    two such pods compare as "the one asked about first started first". The clock is read
    once; every later "now" is one nanosecond later than the previous one.
    """

    __slots__ = ("_now", "_parsed")

    def __init__(self, now_ns: int | None = None) -> None:
        self._now = time.time_ns() if now_ns is None else now_ns
        self._parsed: dict[str, int] = {}

    @property
    def now_ns(self) -> int:
        """The last "now" handed out (the clock reading before any)."""
        return self._now

    def tick(self, answer: int, total: int) -> int:
        """``total`` later "now"s at once; returns the ``answer``-th of them (1 is the first)."""
        now = self._now
        self._now = now + total
        return now + answer

    def of(self, pod_info: "PodInfo") -> int:
        """The pod's start time in nanoseconds (a fresh, later "now" when it has none)."""
        raw = pod_info.start_time
        if not raw:
            self._now += 1
            return self._now
        parsed = self._parsed.get(raw)
        if parsed is None:
            try:
                parsed = self._parsed[raw] = parse_time_ns(raw)
            except ValueError as exc:
                raise InputError(f"pod {pod_info.key}: status.startTime: {exc}") from None
        return parsed


def more_important_pod(p1: "PodInfo", p2: "PodInfo", times: StartTimes) -> bool:
    """Upstream ``MoreImportantPod``: higher priority first, then the one that started earlier."""
    if p1.priority != p2.priority:
        return p1.priority > p2.priority
    return times.of(p1) < times.of(p2)


def earliest_start_time(victims: Sequence["PodInfo"], times: StartTimes) -> int | None:
    """Upstream ``GetEarliestPodStartTime``: the earliest start among the most important victims."""
    if not victims:
        return None
    earliest = times.of(victims[0])
    top = victims[0].priority
    for pod in victims:
        if pod.priority == top:
            started = times.of(pod)
            if started < earliest:
                earliest = started
        elif pod.priority > top:
            top = pod.priority
            earliest = times.of(pod)
    return earliest


# ---------------------------------------------------------------------------------------------
# Go's sort.Slice (pattern-defeating quicksort): the order of equally important pods is its order
# ---------------------------------------------------------------------------------------------


def go_sort_slice(items: list, less: Callable[[Any, Any], bool]) -> None:
    """Sort ``items`` in place exactly as Go's ``sort.Slice`` (Go 1.19+ pdqsort) would.

    ``sort.Slice`` is not stable, and ``less`` may not be a strict order (two pods without a
    start time are each "more important" than the other, depending on which is asked first),
    so the resulting order is the one Go's algorithm produces, step by step.
    """
    n = len(items)
    _pdqsort(items, less, 0, n, n.bit_length())


def _insertion_sort(d: list, less: Callable, a: int, b: int) -> None:
    for i in range(a + 1, b):
        j = i
        while j > a and less(d[j], d[j - 1]):
            d[j], d[j - 1] = d[j - 1], d[j]
            j -= 1


def _sift_down(d: list, less: Callable, lo: int, hi: int, first: int) -> None:
    root = lo
    while True:
        child = 2 * root + 1
        if child >= hi:
            return
        if child + 1 < hi and less(d[first + child], d[first + child + 1]):
            child += 1
        if not less(d[first + root], d[first + child]):
            return
        d[first + root], d[first + child] = d[first + child], d[first + root]
        root = child


def _heap_sort(d: list, less: Callable, a: int, b: int) -> None:
    first, hi = a, b - a
    for i in range((hi - 1) // 2, -1, -1):
        _sift_down(d, less, i, hi, first)
    for i in range(hi - 1, -1, -1):
        d[first], d[first + i] = d[first + i], d[first]
        _sift_down(d, less, 0, i, first)


_UNKNOWN_HINT, _INCREASING_HINT, _DECREASING_HINT = 0, 1, 2
_MASK64 = (1 << 64) - 1


def _pdqsort(d: list, less: Callable, a: int, b: int, limit: int) -> None:
    was_balanced = True
    was_partitioned = True
    while True:
        length = b - a
        if length <= 12:
            _insertion_sort(d, less, a, b)
            return
        if limit == 0:
            _heap_sort(d, less, a, b)
            return
        if not was_balanced:
            _break_patterns(d, a, b)
            limit -= 1
        pivot, hint = _choose_pivot(d, less, a, b)
        if hint == _DECREASING_HINT:
            _reverse_range(d, a, b)
            pivot = (b - 1) - (pivot - a)
            hint = _INCREASING_HINT
        if was_balanced and was_partitioned and hint == _INCREASING_HINT:
            if _partial_insertion_sort(d, less, a, b):
                return
        if a > 0 and not less(d[a - 1], d[pivot]):
            a = _partition_equal(d, less, a, b, pivot)
            continue
        mid, already = _partition(d, less, a, b, pivot)
        was_partitioned = already
        left, right = mid - a, b - mid
        threshold = length // 8
        if left < right:
            was_balanced = left >= threshold
            _pdqsort(d, less, a, mid, limit)
            a = mid + 1
        else:
            was_balanced = right >= threshold
            _pdqsort(d, less, mid + 1, b, limit)
            b = mid


def _partition(d: list, less: Callable, a: int, b: int, pivot: int) -> tuple[int, bool]:
    d[a], d[pivot] = d[pivot], d[a]
    i, j = a + 1, b - 1
    while i <= j and less(d[i], d[a]):
        i += 1
    while i <= j and not less(d[j], d[a]):
        j -= 1
    if i > j:
        d[j], d[a] = d[a], d[j]
        return j, True
    d[i], d[j] = d[j], d[i]
    i += 1
    j -= 1
    while True:
        while i <= j and less(d[i], d[a]):
            i += 1
        while i <= j and not less(d[j], d[a]):
            j -= 1
        if i > j:
            break
        d[i], d[j] = d[j], d[i]
        i += 1
        j -= 1
    d[j], d[a] = d[a], d[j]
    return j, False


def _partition_equal(d: list, less: Callable, a: int, b: int, pivot: int) -> int:
    d[a], d[pivot] = d[pivot], d[a]
    i, j = a + 1, b - 1
    while True:
        while i <= j and not less(d[a], d[i]):
            i += 1
        while i <= j and less(d[a], d[j]):
            j -= 1
        if i > j:
            break
        d[i], d[j] = d[j], d[i]
        i += 1
        j -= 1
    return i


def _partial_insertion_sort(d: list, less: Callable, a: int, b: int) -> bool:
    max_steps, shortest_shifting = 5, 50
    i = a + 1
    for _ in range(max_steps):
        while i < b and not less(d[i], d[i - 1]):
            i += 1
        if i == b:
            return True
        if b - a < shortest_shifting:
            return False
        d[i], d[i - 1] = d[i - 1], d[i]
        if i - a >= 2:
            j = i - 1
            while j >= 1:
                if not less(d[j], d[j - 1]):
                    break
                d[j], d[j - 1] = d[j - 1], d[j]
                j -= 1
        if b - i >= 2:
            j = i + 1
            while j < b:
                if not less(d[j], d[j - 1]):
                    break
                d[j], d[j - 1] = d[j - 1], d[j]
                j += 1
    return False


def _break_patterns(d: list, a: int, b: int) -> None:
    length = b - a
    if length >= 8:
        state = length
        modulus = 1 << length.bit_length()
        idx = a + (length // 4) * 2 - 1
        for k in range(3):
            # Go's xorshift on a uint64 (13, 7, 17).
            state ^= (state << 13) & _MASK64
            state ^= state >> 7
            state ^= (state << 17) & _MASK64
            other = state & (modulus - 1)
            if other >= length:
                other -= length
            d[idx + k], d[a + other] = d[a + other], d[idx + k]


def _choose_pivot(d: list, less: Callable, a: int, b: int) -> tuple[int, int]:
    length = b - a
    swaps = [0]
    i = a + length // 4 * 1
    j = a + length // 4 * 2
    k = a + length // 4 * 3
    if length >= 8:
        if length >= 50:
            i = _median(d, less, i - 1, i, i + 1, swaps)
            j = _median(d, less, j - 1, j, j + 1, swaps)
            k = _median(d, less, k - 1, k, k + 1, swaps)
        j = _median(d, less, i, j, k, swaps)
    if swaps[0] == 0:
        return j, _INCREASING_HINT
    if swaps[0] == 12:
        return j, _DECREASING_HINT
    return j, _UNKNOWN_HINT


def _order2(d: list, less: Callable, a: int, b: int, swaps: list[int]) -> tuple[int, int]:
    if less(d[b], d[a]):
        swaps[0] += 1
        return b, a
    return a, b


def _median(d: list, less: Callable, a: int, b: int, c: int, swaps: list[int]) -> int:
    a, b = _order2(d, less, a, b, swaps)
    b, c = _order2(d, less, b, c, swaps)
    a, b = _order2(d, less, a, b, swaps)
    return b


def _reverse_range(d: list, a: int, b: int) -> None:
    i, j = a, b - 1
    while i < j:
        d[i], d[j] = d[j], d[i]
        i += 1
        j -= 1


# ---------------------------------------------------------------------------------------------
# PodDisruptionBudgets
# ---------------------------------------------------------------------------------------------


@dataclass(slots=True)
class DisruptionBudget:
    """A PodDisruptionBudget as preemption reads it: namespace, selector, budget, disrupted pods.

    ``selector`` is None when the PDB's selector is invalid, missing or empty: such a PDB
    matches no pod (upstream skips invalid selectors; nil and empty ones match nothing).
    """

    key: str
    namespace: str
    selector: Any
    disruptions_allowed: int
    disrupted_pods: frozenset[str]


def compile_pdbs(pdbs: Iterable[dict]) -> list[DisruptionBudget]:
    """The PDB objects (policy/v1 dicts) ready for ``filter_pods_with_pdb_violation``."""
    from kschedctl.k8s.selectors import label_selector

    out: list[DisruptionBudget] = []
    for pdb in pdbs:
        meta = pdb.get("metadata") or {}
        spec = pdb.get("spec") or {}
        status = pdb.get("status") or {}
        namespace = meta.get("namespace") or ""
        raw = spec.get("selector")
        selector = None
        if raw is not None:
            try:
                selector = label_selector(raw)
            except ValueError:
                selector = None  # an invalid selector matches no pod
            if selector is not None and (selector.empty or selector.nothing):
                selector = None  # "A PDB with a nil or empty selector matches nothing."
        try:
            allowed = int(status.get("disruptionsAllowed") or 0)
        except (TypeError, ValueError):
            allowed = 0
        disrupted = frozenset((status.get("disruptedPods") or {}).keys())
        out.append(DisruptionBudget(f"{namespace}/{meta.get('name', '')}", namespace, selector, allowed, disrupted))
    return out


def filter_pods_with_pdb_violation(
    pod_infos: Sequence["PodInfo"], pdbs: Sequence[DisruptionBudget]
) -> tuple[list["PodInfo"], list["PodInfo"], dict[str, list[str]]]:
    """Upstream ``filterPodsWithPDBViolation``: (violating, non-violating, pod key -> PDB keys it breaks).

    Stable: each group keeps the input order. A pod violates a PDB when it matches it (same
    namespace, selector), is not in ``status.disruptedPods`` and the PDB's
    ``disruptionsAllowed``, decremented once per matching pod of the list, goes below zero.
    """
    allowed = [p.disruptions_allowed for p in pdbs]
    violating: list["PodInfo"] = []
    non_violating: list["PodInfo"] = []
    broken: dict[str, list[str]] = {}
    for pod_info in pod_infos:
        violated = False
        labels = pod_info.labels
        if labels:  # a pod without labels matches no PDB
            for i, pdb in enumerate(pdbs):
                if pdb.namespace != pod_info.namespace or pdb.selector is None:
                    continue
                if not pdb.selector.matches(labels):
                    continue
                if pod_info.name in pdb.disrupted_pods:
                    continue  # its eviction was already processed by the API server
                allowed[i] -= 1
                if allowed[i] < 0:
                    violated = True
                    broken.setdefault(pod_info.key, []).append(pdb.key)
        (violating if violated else non_violating).append(pod_info)
    return violating, non_violating, broken


# ---------------------------------------------------------------------------------------------
# Candidates and the plugin's side of the contract
# ---------------------------------------------------------------------------------------------


@dataclass
class Candidate:
    """A node the pod could run on once ``victims`` are gone (upstream ``Candidate`` + ``Victims``)."""

    name: str
    victims: list["PodInfo"]
    num_pdb_violations: int = 0
    #: kschedctl addition for reports: victim key -> the PDBs its eviction would break.
    pdb_violations: dict[str, list[str]] = field(default_factory=dict)
    #: ``victims_summary(victims)`` when the dry run had it at hand (kept with a memoized answer,
    #: so the tie-breaks of later dry runs do not recount the same victims); None: counted then.
    #: A candidate is read, never changed: a memoized one is handed to every dry run that finds it.
    summary: tuple | None = field(default=None, repr=False, compare=False)


def victims_summary(victims: Sequence["PodInfo"]) -> tuple[int, int, int, int | None]:
    """The default tie-breaks' scores of a node's victims (most important first) that do not
    depend on the preemption: -(highest priority), -(sum of priorities), -(number of victims),
    the earliest start of the most important ones (None when some victim has no start time, its
    "now" being taken in the order the tie-breaks ask, or one that does not parse), and when no
    victim has one, (the clock ticks until the answer, the clock ticks in all) of that call."""
    earliest: int | None = None
    steps: tuple[int, int] | None = None
    if all(v.start_time for v in victims):
        try:
            earliest = earliest_start_time(victims, StartTimes(0))
        except InputError:
            earliest = None  # reported if and when the tie-breaks get there
    elif not any(v.start_time for v in victims):
        # every start is a "now": the answer is the clock's value after so many of the calls
        # ``earliest_start_time`` makes, which advance it by ``total``
        clock = StartTimes(0)
        steps = (earliest_start_time(victims, clock) or 0, clock.now_ns)
    return (-victims[0].priority, -sum(v.priority + _PRIORITY_OFFSET for v in victims), -len(victims), earliest,
            steps)


class PreemptionInterface(Protocol):
    """What a preemption plugin decides (upstream ``preemption.Interface``)."""

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]: ...

    def pod_eligible_to_preempt_others(self, pod_info: "PodInfo", nominated_node_status: Status | None
                                       ) -> tuple[bool, str]: ...

    def select_victims_on_node(
        self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo",
        pdbs: Sequence[DisruptionBudget], times: StartTimes,
    ) -> "tuple[list[PodInfo], int, Status | None, dict[str, list[str]]]": ...

    def ordered_score_funcs(self, nodes_to_victims: dict[str, Candidate]
                            ) -> list[Callable[[str], int]] | None: ...


@dataclass
class DryRun:
    """What the dry run found: candidates (violation-free first), the statuses of the nodes
    that are not candidates, the errors, and where it started and stopped."""

    candidates: list[Candidate]
    node_to_status: NodeToStatus
    errors: list[str]
    offset: int = 0
    num_candidates: int = 0
    potential_nodes: int = 0
    evaluated: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# The Evaluator
# ---------------------------------------------------------------------------------------------


class Evaluator:
    """Upstream ``preemption.Evaluator``: runs a plugin's preemption policy against the snapshot.

    ``handle`` is the framework handle (snapshot, cluster, the profile's filters with nominated
    pods, PreFilter extensions); ``interface`` is the plugin.
    """

    def __init__(self, plugin_name: str, handle: Any, interface: PreemptionInterface,
                 victims_memo: Callable[..., Any] | None = None) -> None:
        self.plugin_name = plugin_name
        self.handle = handle
        self.interface = interface
        #: kschedctl's: ``victims_memo(state, pod_info, pdbs)`` gives a memo of
        #: ``select_victims_on_node``'s answers when they can be kept (DefaultPreemption's), or None.
        self.victims_memo = victims_memo

    # -- Preempt ------------------------------------------------------------------------------
    def preempt(
        self, state: "CycleState", pod_info: "PodInfo", m: NodeToStatus, pdbs: Sequence[DisruptionBudget] = (),
        times: StartTimes | None = None,
    ) -> tuple[PostFilterResult | None, Status]:
        """Upstream ``Evaluator.Preempt``; the status carries ``details`` for the reports."""
        times = times if times is not None else StartTimes()
        # 1) Is the pod allowed to preempt at all?
        nominated_status = m.get(pod_info.nominated_node_name)
        ok, msg = self.interface.pod_eligible_to_preempt_others(pod_info, nominated_status)
        if not ok:
            return None, Status(Code.Unschedulable, msg, details={"eligible": False})

        # 2) Candidates.
        snapshot = self.handle.snapshot()
        all_nodes = snapshot.node_infos()
        if not all_nodes:
            return None, Status(Code.Error, MSG_NO_NODES_AVAILABLE)
        run = self.find_candidates(state, pod_info, m, pdbs, times)
        if run.errors and not run.candidates:
            return None, Status(Code.Error, _aggregate(run.errors))
        details = _run_details(run)
        if not run.candidates:
            diagnosis = Diagnosis(run.node_to_status)
            run.node_to_status.set_absent_nodes_status(Status(Code.UnschedulableAndUnresolvable, MSG_NOT_HELPFUL))
            fit_error = FitError(pod_info, len(all_nodes), diagnosis)
            # An empty nominated node clears the pod's nomination, as upstream.
            return PostFilterResult(""), Status(Code.Unschedulable, fit_error.error(), details=details)

        # 3) Extenders would filter the candidates here; kschedctl has none.
        # 4) The best candidate.
        best, decisions = self.select_candidate(run.candidates, times)
        if best is None or not best.name:
            return None, Status(Code.Unschedulable, MSG_NO_CANDIDATE_NODE, details=details)
        tied = [c.name for c in run.candidates if decisions.get(c.name) == CRITERION_FIRST]
        if len(tied) > 1:
            # a handle of another maker (a plugin's own tests) may have none
            wanted = (getattr(self.handle, "tie_breaks", None) or {}).get(pod_info.key)
            best = next((c for c in run.candidates if c.name == wanted), best)
        framework = self.handle.framework
        trace = framework.trace if framework is not None else None
        if trace is None or trace.filters is not None:  # a batch's lean trace keeps no per-node records
            details["candidates"] = [_candidate_details(c, decisions, best) for c in run.candidates]
        details["nominatedNode"] = best.name
        # 5) Nothing is evicted in a what-if run: the result names the node and the victims.
        return (PostFilterResult(best.name, [v.key for v in best.victims], tied if len(tied) > 1 else None),
                Status(Code.Success, details=details))

    def find_candidates(
        self, state: "CycleState", pod_info: "PodInfo", m: NodeToStatus, pdbs: Sequence[DisruptionBudget],
        times: StartTimes,
    ) -> DryRun:
        """Upstream ``findCandidates``: the dry run over the nodes whose status is Unschedulable."""
        snapshot = self.handle.snapshot()
        potential = m.nodes_for_status_code(snapshot, Code.Unschedulable)
        if not potential:
            return DryRun([], NodeToStatus(), [])
        offset, num_candidates = self.interface.get_offset_and_num_candidates(len(potential))
        return self.dry_run_preemption(state, pod_info, potential, pdbs, offset, num_candidates, times)

    def dry_run_preemption(
        self,
        state: "CycleState",
        pod_info: "PodInfo",
        potential_nodes: Sequence["NodeInfo"],
        pdbs: Sequence[DisruptionBudget],
        offset: int,
        num_candidates: int,
        times: StartTimes | None = None,
    ) -> DryRun:
        """Upstream ``DryRunPreemption`` with parallelism 1: nodes from ``offset`` round the list,
        each on a copy, until ``num_candidates`` candidates (one of them violation-free) are found."""
        times = times if times is not None else StartTimes()
        non_violating: list[Candidate] = []
        violating: list[Candidate] = []
        statuses = NodeToStatus()
        errors: list[str] = []
        evaluated: list[str] = []
        dropped: list[str] = []
        n = len(potential_nodes)
        select = self.interface.select_victims_on_node
        # A plugin may offer answers of earlier dry runs for nodes that did not change since
        # (kschedctl's; see DefaultPreemption.victims_memo): same answers, no copies made.
        victims_memo = self.victims_memo
        memo = victims_memo(state, pod_info, pdbs) if victims_memo is not None else None
        known = getattr(memo, "known", None)
        success_code, error_code = Code.Success, Code.Error
        first = offset % n if n else 0
        order = list(potential_nodes[first:]) + list(potential_nodes[:first]) if first else potential_nodes
        add_evaluated = evaluated.append
        kept = None
        for node in order:
            name = node.name
            add_evaluated(name)
            answer = known(node) if known is not None else None
            if answer is not None:
                # a memoized answer as it is, with the candidate it makes (read-only, as every candidate)
                victims, num_violations, status, broken, kept = answer
            elif memo is not None:
                victims, num_violations, status, broken = memo.select(state, pod_info, node, pdbs, times)
            else:
                victims, num_violations, status, broken = select(state.clone(), pod_info, node.clone(), pdbs, times)
            success = status is None or status.code == success_code
            if success and victims:
                # upstream's candidateList: each holds at most num_candidates, later ones are dropped
                target = non_violating if num_violations == 0 else violating
                if len(target) < num_candidates:
                    target.append(kept if answer is not None and kept is not None
                                  else Candidate(name, list(victims), num_violations, broken))
                else:
                    dropped.append(name)
                found = len(non_violating)
                if found and found + len(violating) >= num_candidates:
                    break
                continue
            if success:
                status = Status(Code.Error, f'expected at least one victim pod on node "{name}"')
            if status.code == error_code:  # type: ignore[union-attr]
                errors.append(status.message())  # type: ignore[union-attr]
            statuses.set(name, status)  # type: ignore[arg-type]
        return DryRun(non_violating + violating, statuses, errors, offset, num_candidates, n,
                      evaluated, dropped)

    # -- SelectCandidate ----------------------------------------------------------------------
    def select_candidate(
        self, candidates: Sequence[Candidate], times: StartTimes | None = None
    ) -> tuple[Candidate | None, dict[str, str]]:
        """Upstream ``SelectCandidate``; also returns, per node, the criterion it lost (or won) by."""
        if not candidates:
            return None, {}
        if len(candidates) == 1:
            return candidates[0], {candidates[0].name: "only candidate"}
        times = times if times is not None else StartTimes()
        victims_map = {c.name: c for c in candidates}
        score_funcs = self.interface.ordered_score_funcs(victims_map)
        name, decisions = pick_one_node_for_preemption(victims_map, score_funcs, times)
        return victims_map.get(name, candidates[0]), decisions


def pick_one_node_for_preemption(
    nodes_to_victims: dict[str, Candidate],
    score_funcs: Sequence[Callable[[str], int]] | None = None,
    times: StartTimes | None = None,
) -> tuple[str, dict[str, str]]:
    """Upstream ``pickOneNodeForPreemption``: each criterion keeps the nodes with the best
    score; the first criterion that leaves one node decides. Victims are expected in
    decreasing importance (the first is the most important).

    Returns the node and, per node, the criterion that eliminated it (for the winner: the one
    that decided).
    """
    if not nodes_to_victims:
        return "", {}
    times = times if times is not None else StartTimes()
    # Each criterion scores the nodes still in the race, in their order (a "now" start time
    # depends on it), all at once.
    scorers: list[Callable[[list[tuple[str, Candidate]]], list[int]]]
    if score_funcs:
        scorers = [lambda pairs, fn=fn: [fn(name) for name, _ in pairs] for fn in score_funcs]  # type: ignore[misc]
        labels = [f"score function {i + 1}" for i in range(len(scorers))]
    else:
        def pdb_violations(pairs: list[tuple[str, Candidate]]) -> list[int]:
            return [-c.num_pdb_violations for _, c in pairs]

        def highest_priority(pairs: list[tuple[str, Candidate]]) -> list[int]:
            return [c.summary[0] if c.summary is not None else -c.victims[0].priority for _, c in pairs]

        def sum_priorities(pairs: list[tuple[str, Candidate]]) -> list[int]:
            return [c.summary[1] if c.summary is not None else -sum(v.priority + _PRIORITY_OFFSET for v in c.victims)
                    for _, c in pairs]

        def num_pods(pairs: list[tuple[str, Candidate]]) -> list[int]:
            return [-len(c.victims) for _, c in pairs]

        def latest_start(pairs: list[tuple[str, Candidate]]) -> list[int]:
            out = []
            for _, c in pairs:
                summary = c.summary
                if summary is not None and summary[3] is not None:
                    out.append(summary[3])
                elif summary is not None and summary[4] is not None:
                    out.append(times.tick(*summary[4]))
                else:
                    earliest = earliest_start_time(c.victims, times)
                    out.append(_MIN_INT64 if earliest is None else earliest)
            return out

        scorers = [pdb_violations, highest_priority, sum_priorities, num_pods, latest_start]
        labels = list(CRITERIA)
    decisions: dict[str, str] = {}
    pairs = list(nodes_to_victims.items())
    for label, scorer in zip(labels, scorers):
        scores = scorer(pairs)
        best = max(_MIN_INT64, max(scores))
        selected = []
        for pair, score in zip(pairs, scores):
            if score == best:
                selected.append(pair)
            else:
                decisions[pair[0]] = label
        if len(selected) == 1:
            decisions[selected[0][0]] = label
            return selected[0][0], decisions
        pairs = selected
    names = [name for name, _ in pairs]
    for node in names[1:]:
        decisions[node] = CRITERION_FIRST
    decisions[names[0]] = CRITERION_FIRST
    return names[0], decisions


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


def _aggregate(messages: list[str]) -> str:
    """``utilerrors.NewAggregate(errs).Error()``: one message as is, several deduplicated in []."""
    unique = list(dict.fromkeys(messages))
    if len(unique) == 1:
        return unique[0]
    return "[" + ", ".join(unique) + "]"


def _run_details(run: DryRun) -> dict:
    """What the reports show about a dry run (bounded: counts, not one entry per node)."""
    # counted per (code, reasons) first: most nodes say the same
    kinds: dict[tuple, int] = {}
    for _, status in run.node_to_status.items():
        kind = (status.code, tuple(status.reasons))
        kinds[kind] = kinds.get(kind, 0) + 1
    rejections: dict[str, int] = {}
    for (code, reasons), n in kinds.items():
        for reason in reasons or ("",):
            key = f"{code}: {reason}" if reason else str(code)
            rejections[key] = rejections.get(key, 0) + n
    if not run.potential_nodes:
        return {"potentialNodes": 0}  # every node was UnschedulableAndUnresolvable: nothing to try
    out: dict[str, Any] = {
        "potentialNodes": run.potential_nodes,
        "offset": run.offset,
        "numCandidates": run.num_candidates,
        "evaluatedNodes": len(run.evaluated),
    }
    if rejections:
        out["rejections"] = rejections
    if run.dropped:
        out["droppedCandidates"] = list(run.dropped)
    return out


def _candidate_details(c: Candidate, decisions: dict[str, str], best: Candidate) -> dict:
    out: dict[str, Any] = {
        "node": c.name,
        "victims": [v.key for v in c.victims],
        "numPDBViolations": c.num_pdb_violations,
        "highestVictimPriority": c.victims[0].priority if c.victims else None,
        "chosen": c.name == best.name,
    }
    if c.pdb_violations:
        out["pdbViolations"] = {k: list(v) for k, v in c.pdb_violations.items()}
    decision = decisions.get(c.name)
    if decision:
        out["decidedBy" if c.name == best.name else "lostOn"] = decision
    return out


__all__ = [
    "CRITERIA",
    "CRITERION_FIRST",
    "Candidate",
    "DisruptionBudget",
    "DryRun",
    "Evaluator",
    "MSG_NOT_HELPFUL",
    "MSG_NO_CANDIDATE_NODE",
    "PreemptionInterface",
    "StartTimes",
    "compile_pdbs",
    "earliest_start_time",
    "filter_pods_with_pdb_violation",
    "go_sort_slice",
    "more_important_pod",
    "parse_time_ns",
    "pick_one_node_for_preemption",
    "victims_summary",
]
