"""Why a pod does not fit: ``NodeToStatus``, ``Diagnosis`` and ``FitError`` with its event message
(upstream pkg/scheduler/framework/types.go and interface.go, release-1.34). Plugins (DefaultPreemption)
need them as much as the scheduler does."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable

from kschedctl.framework.status import Code, Status

if TYPE_CHECKING:  # pragma: no cover
    from kschedctl.framework.types import NodeInfo

_UNRESOLVABLE = Code.UnschedulableAndUnresolvable
_REJECTED = frozenset({Code.Unschedulable, Code.UnschedulableAndUnresolvable, Code.Pending})

# Upstream vocabulary shared with plugins: NodeToStatus, Diagnosis, FitError
# ---------------------------------------------------------------------------------------------


def go_list(items: Iterable[str]) -> str:
    """A Go ``%v`` of a sorted string slice: ``[a b c]``."""
    return "[" + " ".join(sorted(items)) + "]"


class NodeToStatus:
    """Statuses of the nodes a pod does not fit, plus one status for every absent node.

    Upstream ``framework.NodeToStatus``: nodes not set explicitly (never evaluated, or removed by
    a PreFilterResult) share ``absent_nodes_status``, UnschedulableAndUnresolvable by default.
    """

    __slots__ = ("_statuses", "_absent")

    def __init__(self, statuses: dict[str, Status] | None = None, absent: Status | None = None) -> None:
        self._statuses: dict[str, Status] = {} if statuses is None else statuses
        self._absent = Status(_UNRESOLVABLE) if absent is None else absent

    def get(self, node_name: str) -> Status:
        return self._statuses.get(node_name, self._absent)

    def set(self, node_name: str, status: Status) -> None:
        self._statuses[node_name] = status

    def update(self, pairs: Iterable[tuple[str, Status]]) -> None:
        """``set`` of each (node, status) pair, in order."""
        self._statuses.update(pairs)

    def __len__(self) -> int:
        return len(self._statuses)

    def len(self) -> int:  # upstream spelling
        return len(self._statuses)

    def absent_nodes_status(self) -> Status:
        return self._absent

    def set_absent_nodes_status(self, status: Status) -> None:
        self._absent = status

    def items(self) -> Iterable[tuple[str, Status]]:
        """The explicitly set (node, status) pairs (upstream ForEachExplicitNode)."""
        return self._statuses.items()

    def for_each_explicit_node(self, fn: Callable[[str, Status], None]) -> None:
        for name, status in self._statuses.items():
            fn(name, status)

    def nodes_for_status_code(self, snapshot: Any, code: Code) -> list["NodeInfo"]:
        """NodeInfos whose status (explicit, or the absent one) has ``code``, in snapshot order."""
        if self._absent.code == code:
            all_nodes = snapshot.node_infos()
            if not self._statuses:
                return list(all_nodes)
            return [n for n in all_nodes if self.get(n.name).code == code]
        get = getattr(snapshot, "get_or_none", None) or snapshot.get
        return [node_info for name, status in self._statuses.items()
                if status.code == code and (node_info := get(name)) is not None]

    def __repr__(self) -> str:
        return f"NodeToStatus({self._statuses!r}, absent={self._absent!r})"


@dataclass
class Diagnosis:
    """Why a pod did not fit: per-node statuses, the plugins that said no, PreFilter/PostFilter text."""

    node_to_status: NodeToStatus = field(default_factory=NodeToStatus)
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    pre_filter_msg: str = ""
    post_filter_msg: str = ""

    def add_plugin_status(self, status: Status | None) -> None:
        """Upstream ``AddPluginStatus``: remember which plugin rejected (or left pending) the pod."""
        if status is None or not status.plugin:
            return
        if status.code in _REJECTED:
            self.unschedulable_plugins.add(status.plugin)
        if status.code == Code.Pending:
            self.pending_plugins.add(status.plugin)


class FitError(Exception):
    """The pod fits no node; ``str()`` is upstream's ``FitError.Error()`` word for word.

    ``"0/N nodes are available: <PreFilterMsg>."`` or ``"0/N nodes are available: <count reason,
    ...>."`` (reasons counted per node, absent nodes counted with the absent status, entries
    sorted as Go's ``sort.Strings`` sorts them), then ``" <PostFilterMsg>"`` when set.
    """

    def __init__(self, pod: Any, num_all_nodes: int, diagnosis: Diagnosis) -> None:
        super().__init__()
        self.pod = pod
        self.num_all_nodes = num_all_nodes
        self.diagnosis = diagnosis

    def reason_histogram(self) -> dict[str, int]:
        """Reason -> number of nodes, including absent nodes (empty after a PreFilter rejection)."""
        d = self.diagnosis
        if d.pre_filter_msg:
            return {}
        counts: dict[str, int] = {}
        # Neighbouring nodes mostly say the same: count runs of equal reasons, then add each
        # run (a reason still enters the dict at the first node that gives it).
        run_reasons: list[str] | None = None
        run = 0
        for _, status in d.node_to_status.items():
            reasons = status.reasons
            if reasons == run_reasons:
                run += 1
                continue
            if run_reasons is not None:
                for reason in run_reasons:
                    counts[reason] = counts.get(reason, 0) + run
            run_reasons, run = reasons, 1
        if run_reasons is not None:
            for reason in run_reasons:
                counts[reason] = counts.get(reason, 0) + run
        explicit = len(d.node_to_status)
        if explicit < self.num_all_nodes:
            for reason in d.node_to_status.absent_nodes_status().reasons:
                counts[reason] = counts.get(reason, 0) + self.num_all_nodes - explicit
        return counts

    def error(self) -> str:
        d = self.diagnosis
        msg = f"0/{self.num_all_nodes} nodes are available:"
        if d.pre_filter_msg:
            msg += f" {d.pre_filter_msg}."
        else:
            # Go sorts the "<count> <reason>" strings byte-wise, so "10 x" comes before "2 y".
            entries = sorted(f"{count} {reason}" for reason, count in self.reason_histogram().items())
            if entries:
                msg += " " + ", ".join(entries) + "."
        if d.post_filter_msg:
            msg += f" {d.post_filter_msg}"
        return msg

    def __str__(self) -> str:
        return self.error()
