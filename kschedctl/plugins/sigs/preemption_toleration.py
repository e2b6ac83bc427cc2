"""PreemptionToleration: preemption in which a victim's PriorityClass may refuse lower preemptors.

Port of kubernetes-sigs/scheduler-plugins v0.34.7 ``pkg/preemptiontoleration/`` (built against
Kubernetes v1.34.7, ``fwk`` imports). It is DefaultPreemption (the same evaluator, candidate
count, PDB handling and tie-breaks) with a different choice of potential victims.

A lower-priority pod on the node is *exempted* (kept, never a victim) when
(``ExemptedFromPreemption``):

- the preemptor has ``preemptionPolicy: Never``; or
- its PriorityClass (``spec.priorityClassName``; a pod without one is never exempted) reads,
  from the annotations ``preemption-toleration.scheduling.x-k8s.io/minimum-preemptable-priority``
  (default: the class's value + 1) and ``.../toleration-seconds`` (default 0), that the
  preemptor's priority is below the minimum, and the toleration is negative (forever), or the
  pod has no ``PodScheduled=True`` condition, or it was scheduled (that condition's
  ``lastTransitionTime``) less than toleration-seconds ago.

An annotation that does not parse as a Go integer (``strconv.ParseInt``, 32 bits for the
priority, 64 for the seconds) means no toleration. A victim whose PriorityClass does not exist
makes the node an Error in the dry run (``priorityclass.scheduling.k8s.io "x" not found``).

Differences from DefaultPreemption, as upstream: the evaluator's message gets no
``preemption: `` prefix; a node without potential victims says ``No victims found on node N for
preemptor pod P``; a pod waits for its earlier preemption when *any* lower-priority pod on its
nominated node is being deleted (no DisruptionTarget check).

"Now" is the handle's clock: the wall clock for ``explain``, the virtual clock of a
``simulate`` run. The two system PriorityClasses resolve even when the input has no objects for
them, as everywhere in kschedctl (every real cluster has them).
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping

from kschedctl.errors import InputError
from kschedctl.framework.preemption import parse_time_ns
from kschedctl.framework.status import Code, Status
from kschedctl.k8s.priority import PREEMPT_NEVER, SYSTEM_PRIORITY_CLASSES
from kschedctl.k8s.strconv import NumError, parse_int
from kschedctl.plugins.default_preemption import (
    DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE,
    DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE,
    DefaultPreemption,
    legacy_pod_eligible_to_preempt_others,
    validate_args,
)
from kschedctl.plugins.facts import PluginFacts

NAME = "PreemptionToleration"

ANNOTATION_KEY_PREFIX = "preemption-toleration.scheduling.x-k8s.io/"
ANNOTATION_MINIMUM_PREEMPTABLE_PRIORITY = ANNOTATION_KEY_PREFIX + "minimum-preemptable-priority"
ANNOTATION_TOLERATION_SECONDS = ANNOTATION_KEY_PREFIX + "toleration-seconds"


class Policy:
    """A PriorityClass's toleration: the lowest priority that may preempt it, and for how long not."""

    __slots__ = ("minimum_preemptable_priority", "toleration_seconds")

    def __init__(self, minimum_preemptable_priority: int, toleration_seconds: int) -> None:
        self.minimum_preemptable_priority = minimum_preemptable_priority
        self.toleration_seconds = toleration_seconds

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Policy) and (
            (self.minimum_preemptable_priority, self.toleration_seconds)
            == (other.minimum_preemptable_priority, other.toleration_seconds))

    def __repr__(self) -> str:
        return f"Policy({self.minimum_preemptable_priority}, {self.toleration_seconds})"


def parse_policy(priority_class: Mapping[str, Any]) -> Policy:
    """The toleration policy of a PriorityClass; raises ``NumError`` (Go's text) on a bad annotation."""
    annotations = (priority_class.get("metadata") or {}).get("annotations") or {}
    raw_minimum = annotations.get(ANNOTATION_MINIMUM_PREEMPTABLE_PRIORITY)
    if raw_minimum is None:
        # int32 arithmetic, as upstream: the largest value wraps round.
        minimum = _int32(int(priority_class.get("value") or 0) + 1)
    else:
        minimum = parse_int(raw_minimum, 32)
    raw_seconds = annotations.get(ANNOTATION_TOLERATION_SECONDS)
    seconds = 0 if raw_seconds is None else parse_int(raw_seconds, 64)
    return Policy(minimum, seconds)


class PriorityClassNotFound(LookupError):
    """The lister's NotFound error, with its text."""

    def __init__(self, name: str) -> None:
        super().__init__(f'priorityclass.scheduling.k8s.io "{name}" not found')


def exempted_from_preemption(victim: Any, preemptor: Any, priority_classes: Mapping[str, Mapping[str, Any]],
                             now_ns: int) -> bool:
    """Whether ``victim`` (a PodInfo) tolerates preemption by ``preemptor`` at ``now_ns``.

    Raises ``PriorityClassNotFound`` when the victim names a class that does not exist.
    """
    class_name = (victim.pod.get("spec") or {}).get("priorityClassName") or ""
    if not class_name:
        return False
    priority_class = priority_classes.get(class_name) or SYSTEM_PRIORITY_CLASSES.get(class_name)
    if priority_class is None:
        raise PriorityClassNotFound(class_name)
    if (preemptor.pod.get("spec") or {}).get("preemptionPolicy") == PREEMPT_NEVER:
        return True
    try:
        policy = parse_policy(priority_class)
    except NumError:
        return False  # upstream logs the error: no toleration at all
    if preemptor.priority >= policy.minimum_preemptable_priority:
        return False
    if policy.toleration_seconds < 0:
        return True
    scheduled_at = _scheduled_at_ns(victim.pod)
    if scheduled_at is None:
        return True
    return scheduled_at + policy.toleration_seconds * 1_000_000_000 > now_ns


class PreemptionToleration(DefaultPreemption):
    """PostFilter: DefaultPreemption that spares victims whose PriorityClass tolerates the preemptor."""

    name: ClassVar[str] = NAME
    message_prefix: ClassVar[str] = ""
    #: Upstream's plugin is a PostFilter only (no async-preemption PreEnqueue gate).
    pre_enqueue = None  # type: ignore[assignment]
    #: Exemptions depend on the clock, so answers of earlier dry runs are never reused.
    victims_are_node_local: ClassVar[bool] = False
    default_args: ClassVar[dict[str, Any]] = {
        "minCandidateNodesPercentage": DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE,
        "minCandidateNodesAbsolute": DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE,
    }
    args_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "minCandidateNodesPercentage": {"type": "integer"},
            "minCandidateNodesAbsolute": {"type": "integer"},
        },
    }

    def __init__(self, args: dict | None = None, handle: Any = None) -> None:
        try:
            super().__init__(args, handle)
        except InputError as e:
            raise InputError(str(e).replace("DefaultPreemption args", f"{NAME} args", 1)) from None
        self._now_ns = 0

    @staticmethod
    def validate_args(args: dict) -> list[tuple[str, str, str]]:
        """Upstream calls ValidateDefaultPreemptionArgs in New (field paths relative to the args)."""
        pct, absolute = args.get("minCandidateNodesPercentage"), args.get("minCandidateNodesAbsolute")
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (pct, absolute)):
            return []  # the schema reports the type
        return [(fld, "Invalid", message) for fld, message in
                (error.split(": ", 1) for error in validate_args(pct, absolute))]

    def post_filter(self, state: Any, pod_info: Any, filtered_node_status: Any) -> tuple[Any, Status]:
        self._now_ns = int(self.handle.now() * 1_000_000_000)
        return super().post_filter(state, pod_info, filtered_node_status)

    def pod_eligible_to_preempt_others(self, pod_info: Any, nominated_node_status: Status | None) -> tuple[bool, str]:
        """This plugin's copy of the older eligibility rule: any terminating lower-priority pod."""
        return legacy_pod_eligible_to_preempt_others(self.handle, pod_info, nominated_node_status)

    def potential_victims(self, node_info: Any, pod_info: Any) -> tuple[list, Status | None]:
        classes = getattr(self.handle.cluster(), "priority_classes", None) or {}
        out = []
        for p in node_info.pods:
            if p.priority >= pod_info.priority:
                continue
            try:
                if exempted_from_preemption(p, pod_info, classes, self._now_ns):
                    continue
            except PriorityClassNotFound as e:
                return [], Status(Code.Error, str(e))
            out.append(p)
        return out, None

    def no_victims_status(self, node_info: Any, pod_info: Any) -> Status:
        return Status(Code.UnschedulableAndUnresolvable,
                      f"No victims found on node {node_info.name} for preemptor pod {pod_info.name}")


def _scheduled_at_ns(pod: Mapping[str, Any]) -> int | None:
    """``lastTransitionTime`` of a ``PodScheduled=True`` condition (Go's zero time when unset)."""
    for condition in (pod.get("status") or {}).get("conditions") or ():
        if condition.get("type") != "PodScheduled":
            continue
        if condition.get("status") != "True":
            return None
        raw = condition.get("lastTransitionTime")
        if not raw:
            return _GO_ZERO_TIME_NS
        try:
            return parse_time_ns(raw)
        except ValueError:
            return _GO_ZERO_TIME_NS
    return None


#: Go's zero time.Time (0001-01-01T00:00:00Z) in nanoseconds since the Unix epoch.
_GO_ZERO_TIME_NS = -62135596800 * 1_000_000_000


def _int32(n: int) -> int:
    return (n + 2**31) % 2**32 - 2**31


# -- facts --------------------------------------------------------------------------------------

FACTS = PluginFacts(
    name=PreemptionToleration.name,
    points=("postFilter",),
    # No events: scheduler-plugins' EventsToRegister is not modelled, so the queue asks it about every
    # event (a pod it rejected is retried after any change, never fewer times than upstream would).
)
