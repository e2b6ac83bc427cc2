"""Shared helpers of the in-tree plugins: score normalization, broken-linear shapes, taint filters.

Follows upstream ``pkg/scheduler/framework/plugins/helper/`` on release-1.34:
``normalize_score.go`` (DefaultNormalizeScore), ``shape_score.go`` (BuildBrokenLinearFunction),
``taint.go`` (DoNotScheduleTaintsFilterFunc) and ``spread.go`` (DefaultSelector, GetPodServices).

Go's integer division truncates toward zero while Python's ``//`` floors; ``go_div`` gives Go's
result so that scores computed here are the same integers as upstream's even for negative inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from kschedctl.errors import InputError
from kschedctl.framework.interfaces import NodeScore
from kschedctl.k8s.selectors import label_selector

if TYPE_CHECKING:  # pragma: no cover - typing only
    from kschedctl.framework.status import Status

__all__ = [
    "go_div",
    "default_normalize_score",
    "FunctionShapePoint",
    "build_broken_linear_function",
    "do_not_schedule_taints_filter",
    "get_pod_services",
    "default_selector",
    "DefaultSelector",
]


def int_field(args: dict[str, Any], key: str) -> int:
    """An integer field of a v1 args dict as Go reads it: a missing (or non-number) field is 0."""
    v = args.get(key)
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0


def go_div(a: int, b: int) -> int:
    """Integer division truncated toward zero, as Go's ``/`` on int64."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def default_normalize_score(max_priority: int, reverse: bool, scores: Sequence[NodeScore]) -> "Status | None":
    """Upstream ``DefaultNormalizeScore``: rescale ``[0, max(scores)]`` to ``[0, max_priority]`` in place.

    With ``reverse`` each score becomes ``max_priority - score``; when every score is 0 they all
    become ``max_priority`` under ``reverse`` and stay 0 otherwise. Scores are assumed non-negative.
    """
    for s, value in zip(scores, default_normalize_values(max_priority, reverse, [s.score for s in scores])):
        s.score = value
    return None


def default_normalize_values(max_priority: int, reverse: bool, values: Sequence[int]) -> list[int]:
    """``default_normalize_score`` on a list of raw scores: the new scores."""
    max_count = max(values, default=0)
    if max_count <= 0:
        return [max_priority] * len(values) if reverse else list(values)
    if reverse:
        return [max_priority - go_div(max_priority * v, max_count) for v in values]
    return [go_div(max_priority * v, max_count) for v in values]


class FunctionShapePoint:
    """One point of a broken-linear function: ``utilization`` (x) and ``score`` (y)."""

    __slots__ = ("utilization", "score")

    def __init__(self, utilization: int, score: int) -> None:
        self.utilization = utilization
        self.score = score

    def __repr__(self) -> str:
        return f"FunctionShapePoint({self.utilization}, {self.score})"


def build_broken_linear_function(shape: Sequence[FunctionShapePoint | tuple[int, int]]) -> Callable[[int], int]:
    """Upstream ``BuildBrokenLinearFunction``: f(p) over points sorted by utilization.

    ``shape[0].score`` below the first point, ``shape[-1].score`` above the last, linear in
    between with Go's truncating integer division.
    """
    points = [p if isinstance(p, FunctionShapePoint) else FunctionShapePoint(p[0], p[1]) for p in shape]
    xs = [p.utilization for p in points]
    ys = [p.score for p in points]
    n = len(points)

    def f(p: int) -> int:
        for i in range(n):
            if p <= xs[i]:
                if i == 0:
                    return ys[0]
                return ys[i - 1] + go_div((ys[i] - ys[i - 1]) * (p - xs[i - 1]), xs[i] - xs[i - 1])
        return ys[n - 1]

    return f


def do_not_schedule_taints_filter(taint: dict) -> bool:
    """Upstream ``DoNotScheduleTaintsFilterFunc``: only NoSchedule and NoExecute taints reject pods."""
    effect = taint.get("effect")
    return effect == "NoSchedule" or effect == "NoExecute"


# --- spread.go ----------------------------------------------------------------------------------

_RC_GVK = ("v1", "ReplicationController")
_RS_GVK = ("apps/v1", "ReplicaSet")
_SS_GVK = ("apps/v1", "StatefulSet")


def _objects(collection: Any) -> Iterable[dict]:
    """Objects of a ClusterState collection, whether kept as a list or as a dict by key."""
    if not collection:
        return ()
    if isinstance(collection, dict):
        return collection.values()
    return collection


def _find(collection: Any, namespace: str, name: str) -> dict | None:
    if isinstance(collection, dict):
        obj = collection.get(f"{namespace}/{name}")
        if obj is not None:
            return obj
    for obj in _objects(collection):
        meta = obj.get("metadata") or {}
        if meta.get("name") == name and (meta.get("namespace") or "default") == namespace:
            return obj
    return None


def _set_matches(selector: dict, labels: dict) -> bool:
    for k, v in selector.items():
        if labels.get(k) != v:
            return False
    return True


def get_pod_services(cluster: Any, pod: dict) -> list[dict]:
    """Upstream ``GetPodServices``: services of the pod's namespace whose selector matches its labels.

    A service with no selector (nil) matches nothing, not everything.
    """
    meta = pod.get("metadata") or {}
    namespace = meta.get("namespace") or "default"
    labels = meta.get("labels") or {}
    out = []
    for svc in _objects(getattr(cluster, "services", None)):
        smeta = svc.get("metadata") or {}
        if (smeta.get("namespace") or "default") != namespace:
            continue
        selector = (svc.get("spec") or {}).get("selector")
        if selector is None:
            continue
        if _set_matches(selector, labels):
            out.append(svc)
    return out


class DefaultSelector:
    """The selector ``default_selector`` returns: a label set ANDed with label-selector requirements.

    ``empty`` is upstream's ``Selector.Empty()``: true when there is nothing to match on (the
    selector then matches every pod, which callers such as PodTopologySpread treat as "skip").
    """

    __slots__ = ("label_set", "selectors", "_hash")

    def __init__(self, label_set: dict[str, str] | None = None, selectors: list[Any] | None = None) -> None:
        self.label_set: dict[str, str] = dict(label_set or {})
        #: Parsed label selectors (objects with ``matches(labels)`` and ``empty``) ANDed with the set.
        self.selectors: list[Any] = list(selectors or [])
        self._hash: int | None = None

    @property
    def empty(self) -> bool:
        return not self.label_set and all(getattr(s, "empty", False) for s in self.selectors)

    def matches(self, labels: dict) -> bool:
        if not _set_matches(self.label_set, labels):
            return False
        for s in self.selectors:
            if not s.matches(labels):
                return False
        return True

    def __repr__(self) -> str:
        return f"DefaultSelector({self.label_set!r}, {self.selectors!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DefaultSelector):
            return NotImplemented
        return self.label_set == other.label_set and self.selectors == other.selectors

    def __hash__(self) -> int:
        # Same selectors, same hash: the counts of matching pods are memoized per selector.
        if self._hash is None:
            self._hash = hash((tuple(sorted(self.label_set.items())), tuple(hash(s) for s in self.selectors)))
        return self._hash


def controller_ref(pod: dict) -> dict | None:
    """The owner reference of ``pod`` marked controller (upstream metav1.GetControllerOf), or None."""
    for ref in (pod.get("metadata") or {}).get("ownerReferences") or ():
        if ref.get("controller"):
            return ref
    return None


def default_selector(pod: dict, cluster: Any) -> DefaultSelector:
    """Upstream ``DefaultSelector``: the selector deduced from the Services, ReplicationController,
    ReplicaSet or StatefulSet matching the pod (services merged, then the controller's selector).

    ``cluster`` is a ClusterState (attributes ``services``, ``replication_controllers``,
    ``replica_sets``, ``stateful_sets``). A controller selector that fails to parse is ignored,
    as upstream ignores the error.
    """
    label_set: dict[str, str] = {}
    for svc in get_pod_services(cluster, pod):
        # labels.Merge: later services win on conflicts (they cannot conflict when all match).
        label_set.update((svc.get("spec") or {}).get("selector") or {})
    result = DefaultSelector(label_set)

    owner = controller_ref(pod)
    if owner is None:
        return result
    api_version = owner.get("apiVersion") or ""
    kind = owner.get("kind") or ""
    namespace = (pod.get("metadata") or {}).get("namespace") or "default"
    name = owner.get("name") or ""
    gvk = (api_version, kind)
    if gvk == _RC_GVK:
        rc = _find(getattr(cluster, "replication_controllers", None), namespace, name)
        if rc is not None:
            label_set = dict(label_set)
            label_set.update((rc.get("spec") or {}).get("selector") or {})
            result = DefaultSelector(label_set)
    elif gvk in (_RS_GVK, _SS_GVK):
        coll = "replica_sets" if gvk == _RS_GVK else "stateful_sets"
        obj = _find(getattr(cluster, coll, None), namespace, name)
        if obj is not None:
            try:
                sel = label_selector((obj.get("spec") or {}).get("selector"))
            except ValueError:
                sel = None
            # Upstream adds the requirements only when the selector is not "nothing" (nil).
            if sel is not None and not getattr(sel, "nothing", False):
                result = DefaultSelector(label_set, [sel])
    return result


def located(err: InputError, cluster: Any, kind: str, key: str) -> InputError:
    """``err`` about a cluster object, located at the file and line the object came from when
    the cluster state knows them (objects read live have no file)."""
    source = getattr(cluster, "source", None)
    doc = source(kind, key) if callable(source) else None
    return err.at(doc.file, doc.line) if doc is not None else err
