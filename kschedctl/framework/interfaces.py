"""The plugin API: one small protocol per extension point, as upstream's Go interfaces.

A plugin is any object with a ``name`` and some of the methods below; which methods it has
decides which extension points it can be enabled at (upstream does the same with Go interface
assertions). Every method takes the ``CycleState`` first and the pod as a ``PodInfo`` (the raw
API object is ``pod_info.pod``; facts upstream recomputes per call are precomputed there).
Returning ``None`` means Success, like a nil ``*Status`` upstream.

Built-in and custom plugins are constructed the same way: ``PluginClass(args, handle)`` where
``args`` is the defaulted ``pluginConfig`` args (a dict, or None) and ``handle`` is a ``Handle``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterator, Protocol, runtime_checkable

if TYPE_CHECKING:  # pragma: no cover - typing only
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.status import PostFilterResult, PreFilterResult, Status
    from kschedctl.framework.types import NodeInfo, PodInfo

#: Score bounds of the framework (upstream MinNodeScore / MaxNodeScore / MaxTotalScore).
MIN_NODE_SCORE = 0
MAX_NODE_SCORE = 100
MAX_TOTAL_SCORE = (1 << 63) - 1

#: Extension points in the order a pod meets them, spelled as the config API spells them.
EXTENSION_POINTS: tuple[str, ...] = (
    "preEnqueue",
    "queueSort",
    "preFilter",
    "filter",
    "postFilter",
    "preScore",
    "score",
    "reserve",
    "permit",
    "preBind",
    "bind",
    "postBind",
)

#: The method that makes a plugin usable at each extension point.
EXTENSION_POINT_METHODS: dict[str, str] = {
    "preEnqueue": "pre_enqueue",
    "queueSort": "less",
    "preFilter": "pre_filter",
    "filter": "filter",
    "postFilter": "post_filter",
    "preScore": "pre_score",
    "score": "score",
    "reserve": "reserve",
    "permit": "permit",
    "preBind": "pre_bind",
    "bind": "bind",
    "postBind": "post_bind",
}


def extension_points_of(plugin_or_class: Any) -> list[str]:
    """The extension points a plugin (class or instance) implements, in pipeline order."""
    return [
        point
        for point, method in EXTENSION_POINT_METHODS.items()
        if callable(getattr(plugin_or_class, method, None))
    ]


@dataclass
class NodeScore:
    """One node's score from one plugin; NormalizeScore rewrites ``score`` in place."""

    name: str
    score: int


@dataclass
class QueuedPodInfo:
    """What QueueSort compares: the pod and when it entered the queue (seconds, monotonic).

    ``initial_attempt_timestamp`` is when the pod first entered the queue, in seconds since the
    epoch (upstream InitialAttemptTimestamp); None when the caller did not set it.
    """

    pod_info: "PodInfo"
    timestamp: float = 0.0
    attempts: int = 0
    initial_attempt_timestamp: float | None = None


class Handle(Protocol):
    """What the framework gives plugins: the snapshot, the cluster objects, the run's settings."""

    #: The framework running the plugin (its engine hooks, the cycle's trace), None outside one.
    framework: Any

    def snapshot(self) -> Any:
        """The ``Snapshot`` of this cycle: ``node_infos()``, ``get(name)``, image summaries."""

    def cluster(self) -> Any:
        """The ``ClusterState`` (namespaces, PVCs, PVs, storage classes, services, PDBs, ...)."""

    def nominated_pods_for_node(self, node_name: str) -> list["PodInfo"]:
        """Pods nominated to run on ``node_name`` (status.nominatedNodeName), highest first."""

    def parallelism(self) -> int: ...

    def run_filter_plugins_with_nominated_pods(
        self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo"
    ) -> "Status | None":
        """Used by preemption: the profile's Filter plugins on one node, as upstream."""

    def iterate_over_waiting_pods(self, callback: Callable[["WaitingPod"], None]) -> None:
        """Calls ``callback`` with every pod waiting at Permit (upstream IterateOverWaitingPods)."""

    def get_waiting_pod(self, uid: str) -> "WaitingPod | None":
        """The waiting pod with ``uid``, None when it is not waiting (upstream GetWaitingPod)."""

    def reject_waiting_pod(self, uid: str) -> bool:
        """Rejects the waiting pod with ``uid``; False when it is not waiting."""

    def list_pods(self) -> Iterator[dict]:
        """Every pod the scheduler's pod informer would list (bound, assumed or pending)."""

    def now(self) -> float:
        """The current time in seconds since the epoch: the wall clock, or a simulation's clock."""

    def warn(self, message: str) -> None:
        """Something the user should know about this cycle (e.g. a plugin lacked its data)."""


class WaitingPod(Protocol):
    """A pod held at Permit (upstream framework.WaitingPod)."""

    def get_pod(self) -> dict: ...

    def get_pending_plugins(self) -> list[str]: ...

    def allow(self, plugin_name: str) -> None: ...

    def reject(self, plugin_name: str, message: str) -> None: ...


class Plugin:
    """Convenience base for plugins: stores ``args`` and ``handle``; subclasses set ``name``.

    It also declares kschedctl's optional engine hooks, off by default; the runtime calls them
    only on a ``Plugin`` (a custom plugin of any other class runs without them, node by node):

    - ``score_nodes(state, pod_info, nodes) -> (values, status)``: Score for many nodes at once,
      the same answers as ``score`` node by node;
    - ``normalize_values(state, pod_info, names, values) -> (values, status)``: NormalizeScore on
      plain lists, the same answers as ``normalize_score``;
    - ``start_afresh()``: forget the run state earlier cycles left (explain's pods are independent).
    """

    name: ClassVar[str] = ""
    #: Score's batch form, or None (the runtime then calls ``score`` per node).
    score_nodes: ClassVar[Callable[..., "tuple[list[int] | None, Status | None]"] | None] = None
    #: NormalizeScore's batch form, or None (the runtime then calls ``normalize_score``).
    normalize_values: ClassVar[Callable[..., "tuple[list[int] | None, Status | None]"] | None] = None

    def __init__(self, args: dict | None = None, handle: Handle | None = None) -> None:
        self.args = args
        self.handle = handle

    def __repr__(self) -> str:
        return f"<plugin {self.name}>"

    def start_afresh(self) -> None:
        """Forget the run state earlier cycles left (a cache of reserved pods, gang back-offs);
        a plugin keeping none has nothing to do."""


# The protocols below document each extension point's method; runtime_checkable lets the
# registry and tests ask ``isinstance(plugin, FilterPlugin)``.


@runtime_checkable
class PreEnqueuePlugin(Protocol):
    def pre_enqueue(self, pod_info: "PodInfo") -> "Status | None": ...


@runtime_checkable
class QueueSortPlugin(Protocol):
    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool: ...


@runtime_checkable
class PreFilterPlugin(Protocol):
    def pre_filter(
        self, state: "CycleState", pod_info: "PodInfo", nodes: list["NodeInfo"]
    ) -> "tuple[PreFilterResult | None, Status | None]": ...


@runtime_checkable
class PreFilterExtensions(Protocol):
    """Optional on a PreFilter plugin: keep its cycle state right when the runtime adds or
    removes a pod on a node (nominated pods, preemption dry runs)."""

    def add_pod(
        self, state: "CycleState", pod_info: "PodInfo", pod_info_to_add: "PodInfo", node_info: "NodeInfo"
    ) -> "Status | None": ...

    def remove_pod(
        self, state: "CycleState", pod_info: "PodInfo", pod_info_to_remove: "PodInfo", node_info: "NodeInfo"
    ) -> "Status | None": ...


@runtime_checkable
class FilterPlugin(Protocol):
    def filter(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> "Status | None": ...


@runtime_checkable
class PostFilterPlugin(Protocol):
    def post_filter(
        self, state: "CycleState", pod_info: "PodInfo", filtered_node_status: Any
    ) -> "tuple[PostFilterResult | None, Status | None]": ...


@runtime_checkable
class PreScorePlugin(Protocol):
    def pre_score(self, state: "CycleState", pod_info: "PodInfo", nodes: list["NodeInfo"]) -> "Status | None": ...


@runtime_checkable
class ScorePlugin(Protocol):
    def score(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> "tuple[int, Status | None]": ...


@runtime_checkable
class ScoreExtensions(Protocol):
    """Optional on a Score plugin: rescale this cycle's scores into [0, MAX_NODE_SCORE]."""

    def normalize_score(self, state: "CycleState", pod_info: "PodInfo", scores: list[NodeScore]) -> "Status | None": ...


@runtime_checkable
class ReservePlugin(Protocol):
    def reserve(self, state: "CycleState", pod_info: "PodInfo", node_name: str) -> "Status | None": ...

    def unreserve(self, state: "CycleState", pod_info: "PodInfo", node_name: str) -> None: ...


@runtime_checkable
class PermitPlugin(Protocol):
    def permit(self, state: "CycleState", pod_info: "PodInfo", node_name: str) -> "tuple[Status | None, float]":
        """Status and, for ``Wait``, the timeout in seconds."""


@runtime_checkable
class PreBindPlugin(Protocol):
    def pre_bind(self, state: "CycleState", pod_info: "PodInfo", node_name: str) -> "Status | None": ...


@runtime_checkable
class BindPlugin(Protocol):
    def bind(self, state: "CycleState", pod_info: "PodInfo", node_name: str) -> "Status | None": ...


@runtime_checkable
class PostBindPlugin(Protocol):
    def post_bind(self, state: "CycleState", pod_info: "PodInfo", node_name: str) -> None: ...
