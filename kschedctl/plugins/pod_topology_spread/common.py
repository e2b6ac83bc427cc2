"""PodTopologySpread, shared part: the pod's constraints as the plugin sees them.

Upstream: pkg/scheduler/framework/plugins/podtopologyspread/common.go (release-1.34).

- ``filter_constraints`` keeps the constraints of one ``whenUnsatisfiable`` action, parses their
  label selectors, merges ``matchLabelKeys`` into the selector (MatchLabelKeysInPodTopologySpread,
  beta and on in v1.34) and defaults ``minDomains`` to 1, ``nodeAffinityPolicy`` to Honor and
  ``nodeTaintsPolicy`` to Ignore (NodeInclusionPolicyInPodTopologySpread is GA in v1.34).
- ``build_default_constraints``: the plugin's default constraints, used only when the pod has
  none of its own, with the selector deduced from the Services, ReplicationControllers,
  ReplicaSets and StatefulSets selecting the pod; nothing when that selector is empty.
- ``count_pods_match_selector``: pods of the node in the pod's namespace, not terminating, that the
  selector matches; an empty selector counts nothing (upstream quirk, kept).

matchLabelKeys: since v1.34 the API server also merges them into ``labelSelector`` when a pod is
created (MatchLabelKeysInPodTopologySpreadSelectorMerge, beta, on). The v1.34 scheduler still
merges them itself, and a second merge adds the same ``key in (value)`` requirement again, which
changes nothing; so a pod read from a file (never through the API server) gets the same result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from kschedctl.k8s.node_selectors import RequiredNodeAffinity
from kschedctl.k8s.shared_parts import is_shared
from kschedctl.k8s.selectors import label_selector, selector_from_set
from kschedctl.k8s.tolerations import find_matching_untolerated_taint
from kschedctl.plugins.helper import default_selector, do_not_schedule_taints_filter

if TYPE_CHECKING:  # pragma: no cover - typing only
    from kschedctl.framework.types import NodeInfo, PodInfo

#: v1.LabelHostname and v1.LabelTopologyZone.
LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"

DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
HONOR = "Honor"
IGNORE = "Ignore"

#: Upstream systemDefaultConstraints (defaultingType: System).
SYSTEM_DEFAULT_CONSTRAINTS: tuple[dict, ...] = (
    {"topologyKey": LABEL_HOSTNAME, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 3},
    {"topologyKey": LABEL_TOPOLOGY_ZONE, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 5},
)


class Constraint:
    """One topology spread constraint with its selector parsed (upstream topologySpreadConstraint)."""

    __slots__ = (
        "max_skew",
        "topology_key",
        "selector",
        "min_domains",
        "node_affinity_policy",
        "node_taints_policy",
        "selector_empty",
        "is_hostname",
        "selector_key",
    )

    def __init__(
        self,
        max_skew: int,
        topology_key: str,
        selector: Any,
        min_domains: int = 1,
        node_affinity_policy: str = HONOR,
        node_taints_policy: str = IGNORE,
    ) -> None:
        self.max_skew = max_skew
        self.topology_key = topology_key
        self.min_domains = min_domains
        self.node_affinity_policy = node_affinity_policy
        self.node_taints_policy = node_taints_policy
        self.set_selector(selector)

    def set_selector(self, selector: Any) -> None:
        """Set the selector (a ``Selector`` or a ``helper.DefaultSelector``) and what depends on it."""
        self.selector = selector
        self.selector_empty = bool(getattr(selector, "empty", False))
        self.is_hostname = self.topology_key == LABEL_HOSTNAME
        self.selector_key = _interned(selector)

    def to_dict(self) -> dict:
        """The constraint as reports show it (selector in upstream's string form)."""
        return {
            "maxSkew": self.max_skew,
            "topologyKey": self.topology_key,
            "selector": selector_string(self.selector),
            "minDomains": self.min_domains,
            "nodeAffinityPolicy": self.node_affinity_policy,
            "nodeTaintsPolicy": self.node_taints_policy,
        }

    def __repr__(self) -> str:
        return f"Constraint({self.to_dict()!r})"


def selector_string(selector: Any) -> str | None:
    """Upstream ``Selector.String()`` of a constraint's selector; None for the selector of nothing."""
    if getattr(selector, "nothing", False) is True:
        return None
    label_set = getattr(selector, "label_set", None)
    if label_set is None:
        return str(selector)
    # helper.DefaultSelector: a label set plus requirements, printed sorted by key as upstream's
    # internalSelector keeps its requirements.
    parts: list[tuple[str, str]] = [(k, f"{k}={v}") for k, v in label_set.items()]
    for sel in getattr(selector, "selectors", ()):
        for req in getattr(sel, "requirements", ()):
            parts.append((req.key, str(req)))
    parts.sort(key=lambda p: p[0])
    return ",".join(p[1] for p in parts)


def _merge_label_set(match_labels: dict[str, str], selector: Any) -> Any:
    """Upstream mergeLabelSetWithSelector: the label set ANDed with the selector's requirements;
    the selector of nothing stays as it is."""
    if getattr(selector, "nothing", False) is True:
        return selector
    return selector_from_set(match_labels).add(*selector.requirements)


def filter_constraints(constraints: Iterable[dict], pod_labels: dict, action: str) -> list[Constraint]:
    """Upstream filterTopologySpreadConstraints: the constraints whose whenUnsatisfiable is ``action``.

    Raises ``SelectorError`` (a ValueError) when a label selector does not parse.
    """
    out: list[Constraint] = []
    for c in constraints:
        if (c.get("whenUnsatisfiable") or "") != action:
            continue
        selector = label_selector(c.get("labelSelector"))
        keys = c.get("matchLabelKeys")
        if keys:
            match_labels = {k: pod_labels[k] for k in keys if k in pod_labels}
            if match_labels:
                selector = _merge_label_set(match_labels, selector)
        min_domains = c.get("minDomains")
        out.append(
            Constraint(
                int(c.get("maxSkew") or 0),
                c.get("topologyKey") or "",
                selector,
                1 if min_domains is None else int(min_domains),
                c.get("nodeAffinityPolicy") or HONOR,
                c.get("nodeTaintsPolicy") or IGNORE,
            )
        )
    return out


def build_default_constraints(
    default_constraints: Iterable[dict], pod_info: "PodInfo", cluster: Any, action: str
) -> list[Constraint]:
    """Upstream buildDefaultConstraints: the default constraints of ``action`` with the pod's
    default selector; empty when there are none or the selector is empty."""
    constraints = filter_constraints(default_constraints, pod_info.labels, action)
    if not constraints:
        return []
    selector = default_selector(pod_info.pod, cluster)
    if selector.empty:
        return []
    for c in constraints:
        c.set_selector(selector)
    return constraints


def node_labels_match_spread_constraints(node_labels: dict, constraints: Iterable[Constraint]) -> bool:
    """Upstream nodeLabelsMatchSpreadConstraints: the node has every constraint's topology key."""
    for c in constraints:
        if c.topology_key not in node_labels:
            return False
    return True


class NodeInclusion:
    """Upstream matchNodeInclusionPolicies for one pod, with the per-node answers cached.

    A node counts for a constraint when, under Honor, it matches the pod's nodeSelector and
    required node affinity (nodeAffinityPolicy) and has no NoSchedule/NoExecute taint the pod
    does not tolerate (nodeTaintsPolicy). Both answers depend only on the pod and the node, so
    they are computed at most once per node whatever the number of constraints.
    """

    __slots__ = ("required", "tolerations", "_affinity", "_taints", "_any_node")

    @property
    def includes_every_node(self) -> bool:
        """Honor includes every node: the pod has no nodeSelector and no required node affinity."""
        return self._any_node

    def __init__(self, pod_info: "PodInfo") -> None:
        self.required = RequiredNodeAffinity(pod_info.pod)
        self.tolerations = pod_info.tolerations
        self._affinity: dict[str, bool] = {}
        self._taints: dict[str, bool] = {}
        # No nodeSelector and no required node affinity: Honor includes every node.
        self._any_node = self.required.label_selector is None and self.required.node_selector is None

    def matches(self, c: Constraint, node_info: "NodeInfo") -> bool:
        if c.node_affinity_policy == HONOR and not self._any_node:
            ok = self._affinity.get(node_info.name)
            if ok is None:
                # Parse errors of the affinity terms are ignored (the term never matches), as upstream.
                ok = self._affinity[node_info.name] = self.required.match(node_info.node or {})
            if not ok:
                return False
        if c.node_taints_policy == HONOR:
            ok = self._taints.get(node_info.name)
            if ok is None:
                ok = self._taints[node_info.name] = (
                    find_matching_untolerated_taint(node_info.taints, self.tolerations, do_not_schedule_taints_filter)
                    is None
                )
            if not ok:
                return False
        return True

    def clone(self) -> "NodeInclusion":
        return self  # immutable in meaning: the pod and the nodes' labels and taints do not change


#: One object per distinct selector: the replicas of a Deployment carry equal selectors, and the
#: memo below then finds its keys by identity instead of comparing selectors.
_SELECTORS: dict[Any, Any] = {}


def _interned(selector: Any) -> Any:
    try:
        found = _SELECTORS.get(selector)
    except TypeError:  # a custom selector without a hash
        return None
    if found is None:
        if len(_SELECTORS) >= 100_000:
            _SELECTORS.clear()
        found = _SELECTORS[selector] = selector
    return found


#: Matching-pod counts per (node generation, selector, namespace). A NodeInfo's generation is
#: process-wide unique and changes whenever its pods do, so a count stays true for as long as
#: its key can be asked for: across the cycles of a simulate run, only the nodes that changed
#: are counted again (upstream counts every node every cycle, which Go can afford).
_NODE_COUNTS: dict[tuple, int] = {}
_NODE_COUNTS_MAX = 500_000


def node_counts_memo() -> dict[tuple, int]:
    """The memo of ``count_node_pods_match_selector``, keyed ``(node generation, selector key,
    namespace)``, for loops that look counts up without a call per node."""
    return _NODE_COUNTS


def remember_node_count(generation: int, c: Constraint, namespace: str, count: int) -> None:
    """Tell ``count_node_pods_match_selector``'s memo the count of a node at ``generation``, known
    without counting (the domain totals' pod deltas): the hostname constraint of the same selector
    then looks it up instead of counting the node's pods again."""
    if c.selector_key is not None and not c.selector_empty:
        if len(_NODE_COUNTS) >= _NODE_COUNTS_MAX:
            _NODE_COUNTS.clear()
        _NODE_COUNTS[(generation, c.selector_key, namespace)] = count


def count_node_pods_match_selector(node_info: "NodeInfo", c: Constraint, namespace: str) -> int:
    """``count_pods_match_selector`` over the pods of ``node_info``, memoized by its generation."""
    pods = node_info.pods
    if not pods or c.selector_empty:
        return 0
    if c.selector_key is None:  # a custom selector without a hash: count every time
        return count_pods_match_selector(pods, c, namespace)
    key = (node_info.generation, c.selector_key, namespace)
    count = _NODE_COUNTS.get(key)
    if count is None:
        if len(_NODE_COUNTS) >= _NODE_COUNTS_MAX:
            _NODE_COUNTS.clear()
        count = _NODE_COUNTS[key] = count_pods_match_selector(pods, c, namespace)
    return count


#: Whether a selector (by its key) matches a labels dict the pods of a template share
#: (``inputs.sharing``: one dict, never changed), by the dict's id: a first count over hundreds of
#: thousands of pods asks the selector once per template. Each answer holds its dict, so the id
#: stays its own.
_MATCHED: dict[Any, dict[int, tuple[dict, bool]]] = {}
_MATCHED_SELECTORS_MAX = 256


def _matched_by_labels(selector_key: Any) -> dict[int, tuple[dict, bool]]:
    known = _MATCHED.get(selector_key)
    if known is None:
        if len(_MATCHED) >= _MATCHED_SELECTORS_MAX:
            _MATCHED.clear()
        known = _MATCHED[selector_key] = {}
    return known


def count_pods_match_selector(pod_infos: Iterable["PodInfo"], c: Constraint, namespace: str) -> int:
    """Upstream countPodsMatchSelector: matching pods of ``namespace`` that are not terminating."""
    if c.selector_empty:
        return 0
    matches = c.selector.matches
    # a custom selector without a key keeps its answers for this count alone
    known = _matched_by_labels(c.selector_key) if c.selector_key is not None else {}
    count = 0
    for p in pod_infos:
        # Terminating pods do not count (upstream #87621).
        if p.is_terminating or p.namespace != namespace:
            continue
        labels = p.labels
        found = known.get(id(labels))
        if found is not None and found[0] is labels:
            count += found[1]
            continue
        hit = matches(labels)
        if is_shared(labels):
            known[id(labels)] = (labels, hit)
        if hit:
            count += 1
    return count
