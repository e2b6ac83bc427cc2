"""What a plugin's remedy is given and gives back: the words "what would make it fit" is written in.

A remedy is a plugin's own answer to "what change would flip your Filter verdict on this node?":
``remedy(engine, scenario, status) -> Step | None``. The engine that runs remedies (node copies,
asking the plugin again, ranking nodes) is :mod:`kschedctl.analyses.remedies`; it sits above the
plugins, so a plugin sees it only through the two protocols below. A remedy reads what its
plugin found (``status.details``, its PreFilter state in ``scenario.state``) and proposes changes
in their JSON form (``{"kind": "setNodeLabel", ...}``); the kinds the engine simulates are
listed in ``kschedctl.analyses.remedies.SIMULATED_KINDS``, any other kind is advice.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.status import Status
from kschedctl.framework.types import NodeInfo, PodInfo
from kschedctl.k8s.quantity import format_bytes, format_cores, format_milli_cpu, humanize_bytes, int_value, milli_value
from kschedctl.k8s.resources import CPU, EPHEMERAL_STORAGE, MEMORY, is_hugepage_resource_name

#: Pods listed in one hint's text before "and N more".
TEXT_PODS = 3
#: The taint the node lifecycle controller puts on cordoned nodes.
UNSCHEDULABLE_TAINT_KEY = "node.kubernetes.io/unschedulable"


class Step:
    """One change (or a group) proposed for one plugin, with its one-line text."""

    __slots__ = ("text", "changes", "details", "shortfall", "alternatives", "reasons")

    def __init__(self, text: str, changes: list[dict], details: dict | None = None, shortfall: float = 0.0,
                 alternatives: list[dict] | None = None, reasons: list[str] | None = None) -> None:
        self.text = text
        self.changes = changes
        self.details = details or {}
        self.shortfall = shortfall
        self.alternatives = alternatives or []
        self.reasons = reasons or []


class RemedyEngine(Protocol):
    """What a remedy may ask of the engine: the pod, the cluster, and a per-pod memo."""

    pod_info: PodInfo
    snapshot: Any
    #: (name, filter method, plugin) of each filter the pod's cycle runs.
    filters: list[tuple[str, Callable, Any]]
    #: What remedies compute once per pod rather than once per node (domain members, ...).
    memo: dict[Any, Any]

    def domain_nodes(self, key: str, value: str) -> list[NodeInfo]: ...


class RemedyScenario(Protocol):
    """The private copies of one node, the pod and the cycle state a remedy looks at."""

    name: str
    state: CycleState
    pod_info: PodInfo
    node_info: NodeInfo
    #: Keys ("namespace/name") of the pods earlier steps removed.
    removed: set[str]


#: A plugin's remedy.
Remedy = Callable[[RemedyEngine, RemedyScenario, Status], "Step | None"]


def impossible(text: str, status: Status) -> Step:
    """A step that says no change kschedctl knows would help (advice, the whole node short)."""
    return Step(text, [], {}, shortfall=1.0, reasons=list(status.reasons))


def format_amount(resource: str, amount: int, for_people: bool = False) -> str:
    """An amount of ``resource`` as a quantity: cpu from millicores, bytes binary-SI, others plain.

    ``for_people`` writes cpu in cores, as the tables around a hint do (``2.18``, never ``2180m``
    beside ``3.92``), and rounds bytes to a readable unit; details and changes stay exact.
    """
    if resource == CPU:
        return format_cores(amount) if for_people else format_milli_cpu(amount)
    if resource in (MEMORY, EPHEMERAL_STORAGE) or is_hugepage_resource_name(resource):
        return humanize_bytes(amount) if for_people else format_bytes(amount)
    return str(amount)


def parse_amount(resource: str, text: str) -> int:
    """The inverse of :func:`format_amount` (without ``for_people``)."""
    return milli_value(text) if resource == CPU else int_value(text)


def pods_text(pods: list[str], limit: int = TEXT_PODS) -> str:
    """``a, b, c and 2 more``."""
    if len(pods) <= limit:
        return ", ".join(pods)
    return ", ".join(pods[:limit]) + f" and {len(pods) - limit} more"


def counts_text(counts: dict[str, int], limit: int = 6) -> str:
    """``domains a: 3, b: 1``, fullest first."""
    items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    text = ", ".join(f"{k}: {v}" for k, v in items[:limit])
    return "domains " + text + (" ..." if len(items) > limit else "")


def dedupe(items: Any) -> list[str]:
    """``items`` without repeats, first occurrence kept."""
    return list(dict.fromkeys(items))
