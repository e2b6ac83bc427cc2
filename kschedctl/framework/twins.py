"""A plugin's column twin: its Filter, Score or NormalizeScore for every node at once.

simulate keeps the nodes of a run as numpy columns (``kschedctl.scheduler.columns.NodeColumns``:
storage and refresh only). A plugin may own a second form of its Filter, Score or NormalizeScore
that reads those columns and answers for all the nodes of a cycle at once: its *column twin*. The
plugin declares it in its ``FACTS`` (``PluginFacts.twin``), and the twin lives beside the plugin
(``<plugin folder>/columns.py``, or ``<plugin module>_columns.py`` for a single-module plugin), so
whoever fixes the plugin finds it. Each plugin function has at most these two forms: the object
form (the plugin's methods, which explain and every per-node answer use) and the twin. The twins
answer bit for bit as the object form; tests/plugins/harness.py runs every plugin's YAML cases
through both.

The twin module is imported only when simulate first asks for it, so commands that never build
columns never import numpy. It defines any of:

- ``column_filter(cycle) -> ColumnFilter | None``: whether the pod passes the plugin's Filter on
  each node (None: not covered this cycle, e.g. its PreFilter state is missing or an amount is
  beyond ``SAFE_AMOUNT``; the plugin is then asked node by node, and says why), and optionally
  the status of each node it rejects;
- ``column_score(cycle, at) -> ColumnScores | None``: the raw scores of the nodes at positions
  ``at``;
- ``column_normalize(cycle, scores) -> list[int] | None``: NormalizeScore of what
  ``column_score`` returned.

A plugin whose Filter or Score reads the pod and the node object only (labels, taints, images;
never the node's pods) needs no twin: it says so (``PluginFacts.object_local``) and the columns keep
the plugin's own answers per pod signature until the node object is replaced.

Upstream v1.34.4 has no such second form; this is kschedctl's speed, never its answers.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Protocol, Sequence

if TYPE_CHECKING:  # pragma: no cover - typing only
    import numpy as np

    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.status import Status
    from kschedctl.framework.types import NodeInfo, PodInfo

#: Amounts (and pod requests) at or above this, or negative, are left to the object form: below
#: it, ``(a - (b + c)) * 100`` of three amounts fits in an int64.
SAFE_AMOUNT = 2**54

# The int64 rows of ``ColumnsView.fixed``, one column per node: what NodeInfo says of it.
ALLOC_CPU, ALLOC_MEMORY, ALLOC_EPHEMERAL, ALLOC_PODS = 0, 1, 2, 3
REQ_CPU, REQ_MEMORY, REQ_EPHEMERAL, NZ_CPU, NZ_MEMORY, POD_COUNT = 4, 5, 6, 7, 8, 9
FIXED_ROWS = 10

def safe(values: Sequence[int]) -> bool:
    """Whether every amount of ``values`` is one the columns hold exactly."""
    return all(0 <= v < SAFE_AMOUNT for v in values)


class ScalarColumns(Protocol):
    """One scalar resource's columns."""

    allocatable: "np.ndarray"  # int64; 0 where the node lacks the resource
    present: "np.ndarray"  # bool: whether the node has it at all
    requested: "np.ndarray"  # int64


class ColumnsView(Protocol):
    """What a twin reads of the node columns (``kschedctl.scheduler.columns.NodeColumns``)."""

    #: int64 rows (``ALLOC_CPU`` ...), one column per node of the snapshot, in its order.
    fixed: "np.ndarray"

    def scalar(self, name: str) -> ScalarColumns:
        """The columns of scalar resource ``name``."""

    def label_codes(self, key: str) -> "tuple[np.ndarray, list[str]]":
        """Each node's value of label ``key`` as a position in the returned list (-1: no label)."""

    def counted(self, key: str, counts: dict, frozen: bool = False) -> "np.ndarray":
        """Per value code of label ``key`` (then one more for code -1): whether ``counts``, a map
        of ``(key, value)`` pairs to counts, counts the pair above 0 (read-only when ``frozen``:
        ``counts`` never changes again, and the answer is kept for it)."""

    def valued(self, key: str, amounts: dict[str, int], frozen: bool = False) -> "np.ndarray | None":
        """Per value code of label ``key`` (then one more, 0, for code -1): the amount of
        ``amounts`` (value -> amount) for that value, 0 when none; None when one is beyond
        ``SAFE_AMOUNT`` either way (``frozen`` as for ``counted``)."""

    def node_counts(self, key: Any, count: Callable[["NodeInfo"], int], at: "np.ndarray") -> "np.ndarray":
        """``count(node)`` of the nodes at ``at``, kept under ``key`` and asked again only for the
        nodes whose pods changed since (``key`` must name everything ``count`` depends on besides
        the node); ``key`` None: asked every time."""

    def ignored(self, names: Any, at: "np.ndarray") -> "np.ndarray | None":
        """Whether each node at ``at`` is one of ``names``; None when none is."""


class ColumnNodes(list):
    """A cycle's feasible NodeInfos, scanned over the node columns, with where each one sits in
    them: ``at`` (numpy positions, in list order) into ``columns``. What a PreScore reads of
    every feasible node's labels (PodTopologySpread's domains) it may read as codes at ``at``
    instead, one array operation against a label lookup per node."""

    __slots__ = ("at", "columns")

    def __init__(self, nodes: Any, at: "np.ndarray", columns: ColumnsView) -> None:
        super().__init__(nodes)
        self.at = at
        self.columns = columns


@dataclass
class ColumnCycle:
    """What a twin is asked with in one cycle."""

    columns: ColumnsView
    plugin: Any
    state: "CycleState"
    pod_info: "PodInfo"


def _always(at: Any) -> bool:
    return True


def passes_all(at: "np.ndarray") -> "np.ndarray":
    """Verdicts of a twin whose plugin lets the pod onto every node this cycle."""
    import numpy as np  # only twins call it, and they have numpy loaded

    return np.ones(len(at), dtype=bool)


@dataclass
class ColumnFilter:
    """A twin's Filter verdicts: ``verdicts(at)`` is a bool array, True where the pod passes.
    ``certain(at)``: whether no node at ``at`` would get an Error status from the object form
    (an Error ends a scan, so the scan then asks node by node).

    ``statuses(at)``, when the twin has it: the Status the object form gives each node at ``at``
    it rejects, as ``(which, made)``: an int array of positions into the list ``made`` (any value
    where the node passes). A cycle every node rejects then reports each node's status without
    asking the plugin node by node (without it, the plugin is asked for every node it rejects)."""

    verdicts: Callable[["np.ndarray"], "np.ndarray"]
    certain: Callable[["np.ndarray"], bool] = _always
    statuses: "Callable[[np.ndarray], tuple[np.ndarray, list[Status]]] | None" = None


@dataclass
class ColumnScores:
    """A twin's raw scores (``values``, in ``at`` order) and what its NormalizeScore needs."""

    values: list[int]
    at: Any
    context: Any = None


#: The points a twin may cover, and the function its module defines for each.
TWIN_POINTS = {"filter": "column_filter", "score": "column_score", "normalize": "column_normalize"}


@dataclass(frozen=True)
class ColumnTwin:
    """Where a plugin's twin lives and what it covers: ``module`` (imported on first use) defines
    the function of ``TWIN_POINTS`` for each of ``points``."""

    module: str
    points: tuple[str, ...]
    _loaded: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        unknown = [p for p in self.points if p not in TWIN_POINTS]
        if unknown or not self.points:
            raise ValueError(f"{self.module}: a twin covers some of {sorted(TWIN_POINTS)}, not {list(self.points)}")

    def function(self, point: str) -> Callable[..., Any] | None:
        """The twin's form of ``point`` (None: it has none), looked up in its module each time (a
        test may replace it there)."""
        name = TWIN_POINTS[point] if point in self.points else None
        if name is None:
            return None
        module = self._loaded.get("module")
        if module is None:
            module = importlib.import_module(self.module)
            for p in self.points:
                if not callable(getattr(module, TWIN_POINTS[p], None)):
                    raise RuntimeError(f"{self.module} declares a {p} twin but defines no {TWIN_POINTS[p]}")
            self._loaded["module"] = module
        return getattr(module, name)
