"""Why a pod does not fit: ``NodeToStatus``, ``Diagnosis`` and ``FitError`` with its event message
(upstream pkg/scheduler/framework/types.go and interface.go, release-1.34). Plugins (DefaultPreemption)
need them as much as the scheduler does."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Callable, Iterable

from kschedctl.framework.status import Code, Status

if TYPE_CHECKING:  # pragma: no cover
    from kschedctl.framework.types import NodeInfo

_UNRESOLVABLE = Code.UnschedulableAndUnresolvable
_NAME = attrgetter("name")
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

    def reason_counts(self) -> dict[str, int]:
        """Reason -> number of explicitly set nodes giving it (absent nodes not counted)."""
        counts: dict[str, int] = {}
        # Neighbouring nodes mostly say the same: count runs of equal reasons, then add each
        # run (a reason still enters the dict at the first node that gives it).
        run_reasons: list[str] | None = None
        run = 0
        for status in self._statuses.values():
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
        return counts

    def __repr__(self) -> str:
        return f"NodeToStatus({self._statuses!r}, absent={self._absent!r})"


def status_kind(status: Status) -> tuple[Code, str, tuple[str, ...]]:
    """What ``RejectedScan`` counts a status by: its code, plugin and reasons."""
    return status.code, status.plugin, tuple(status.reasons)


class RejectedScan:
    """A scan every node rejected, as a batch runtime keeps it: each node's status in node
    order, and beside them the counts the event message and preemption read, kept up to date
    as statuses change instead of being recounted over every node in every failed cycle:
    ``kinds`` (``status_kind`` -> number of nodes). A runtime keeping each node's code in a
    column answers ``positions`` from it."""

    __slots__ = ("nodes", "index", "statuses", "kinds")

    def __init__(self, nodes: list["NodeInfo"], index: dict[str, int], statuses: list[Status],
                 kinds: dict[tuple, int]) -> None:
        self.nodes = nodes
        self.index = index
        self.statuses = statuses
        self.kinds = kinds

    def positions(self, code: Code) -> list[int]:
        """The positions (node order) of the nodes whose status has ``code``."""
        return [i for i, status in enumerate(self.statuses) if status.code == code]

    def __len__(self) -> int:
        return len(self.statuses)


class ScanStatuses(NodeToStatus):
    """The ``NodeToStatus`` of a scan every node rejected, visited from ``start``: answers from
    the ``RejectedScan`` (``get`` by position, ``nodes_for_status_code`` and ``reason_counts``
    from its counts) and builds the node -> status map, in visit order, only when something
    iterates or changes it. It then behaves as the plain one built by the scan would."""

    __slots__ = ("_scan", "_start")

    def __init__(self, scan: RejectedScan, start: int, absent: Status | None = None) -> None:
        super().__init__(None, absent)
        self._scan: RejectedScan | None = scan
        self._start = start

    def _explicit(self) -> dict[str, Status]:
        scan = self._scan
        if scan is not None:
            start, nodes, statuses = self._start, scan.nodes, scan.statuses
            order = nodes[start:] + nodes[:start] if start else nodes
            ordered = statuses[start:] + statuses[:start] if start else statuses
            self._statuses = dict(zip(map(_NAME, order), ordered))
            self._scan = None
        return self._statuses

    def get(self, node_name: str) -> Status:
        scan = self._scan
        if scan is None:
            return self._statuses.get(node_name, self._absent)
        i = scan.index.get(node_name)
        return self._absent if i is None else scan.statuses[i]

    def set(self, node_name: str, status: Status) -> None:
        self._explicit()[node_name] = status

    def update(self, pairs: Iterable[tuple[str, Status]]) -> None:
        self._explicit().update(pairs)

    def __len__(self) -> int:
        return len(self._scan) if self._scan is not None else len(self._statuses)

    def len(self) -> int:
        return self.__len__()

    def items(self) -> Iterable[tuple[str, Status]]:
        return self._explicit().items()

    def for_each_explicit_node(self, fn: Callable[[str, Status], None]) -> None:
        for name, status in self._explicit().items():
            fn(name, status)

    def nodes_for_status_code(self, snapshot: Any, code: Code) -> list["NodeInfo"]:
        scan = self._scan
        if scan is None or self._absent.code == code or snapshot.node_infos() is not scan.nodes:
            self._explicit()
            return super().nodes_for_status_code(snapshot, code)
        # The explicit nodes in visit order, as the map built by the scan lists them.
        positions = scan.positions(code)
        start = self._start
        if start:
            cut = bisect_left(positions, start)
            positions = positions[cut:] + positions[:cut]
        nodes = scan.nodes
        return [nodes[i] for i in positions]

    def reason_counts(self) -> dict[str, int]:
        scan = self._scan
        if scan is None:
            return super().reason_counts()
        counts: dict[str, int] = {}
        for (_, _, reasons), n in scan.kinds.items():
            for reason in reasons:
                counts[reason] = counts.get(reason, 0) + n
        return counts

    def __repr__(self) -> str:
        return f"NodeToStatus({self._explicit()!r}, absent={self._absent!r})"


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
        counts = d.node_to_status.reason_counts()
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
