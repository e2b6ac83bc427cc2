"""NodeAffinity: the pod's ``nodeSelector`` and required node affinity must match the node;
its preferred node affinity terms score nodes. ``addedAffinity`` (plugin args) adds
scheduler-enforced terms to every pod of the profile.

Upstream: pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go (release-1.34).
- PreFilter returns Skip when the pod has no required node affinity, no ``nodeSelector`` and
  there is no ``addedAffinity.requiredDuringSchedulingIgnoredDuringExecution``. When every
  required term names nodes with ``matchFields`` ``metadata.name In [...]``, the union of those
  names is the PreFilterResult (the intersection within one term); an empty union is
  UnschedulableAndUnresolvable "pod affinity terms conflict".
- Filter: UnschedulableAndUnresolvable with "node(s) didn't match scheduler-enforced node
  affinity" for the added affinity, then "node(s) didn't match Pod's node affinity/selector".
  Terms that fail to parse never match (upstream ignores the parse error here).
- PreScore returns Skip when the pod has no preferred terms and no added preferred terms; an
  unparsable preferred term is an Error status. Score is the sum of the weights of the matching
  preferred terms (added ones included); NormalizeScore is ``DefaultNormalizeScore(100, false)``.
Differences from upstream: none known.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kschedctl.framework.interfaces import MAX_NODE_SCORE, NodeScore, Plugin
from kschedctl.framework.status import Code, PreFilterResult, Status, as_status
from kschedctl.framework.twins import ColumnTwin
from kschedctl.k8s.field import FieldError, child, index
from kschedctl.k8s.node_selectors import (
    NodeSelector,
    PreferredSchedulingTerms,
    RequiredNodeAffinity,
    new_node_selector,
    node_selector_requirements_as_selector,
)
from kschedctl.k8s.selectors import OP_DOES_NOT_EXIST, OP_EXISTS, OP_GT, OP_IN, OP_LT, OP_NOT_IN, SelectorError
from kschedctl.k8s.validation import validate_node_selector_term
from kschedctl.plugins import names
from kschedctl.plugins.facts import ArgsFacts, PluginFacts
from kschedctl.plugins.helper import default_normalize_score
from kschedctl.plugins.remedy import RemedyEngine, RemedyScenario, Step, dedupe, impossible

if TYPE_CHECKING:  # pragma: no cover - typing only
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.types import NodeInfo, PodInfo

NAME = names.NODE_AFFINITY

#: Filter reason when the pod's nodeSelector or required node affinity does not match.
ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
#: Filter reason when the profile's addedAffinity does not match.
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
#: PreFilter reason when the pod's matchFields terms name no node at all.
ERR_REASON_CONFLICT = "pod affinity terms conflict"

#: CycleState keys (upstream "PreFilter" + Name and "PreScore" + Name).
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME

_OBJECT_NAME_FIELD = "metadata.name"


class NodeAffinity(Plugin):
    """PreFilter, Filter, PreScore and Score on node selectors and node affinity."""

    name = NAME

    def __init__(self, args: dict | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        #: addedAffinity's required selector (None when not set) and preferred terms (None when empty).
        self.added_node_selector: NodeSelector | None = None
        self.added_pref_sched_terms: PreferredSchedulingTerms | None = None
        added = (args or {}).get("addedAffinity")
        if added:
            required = added.get("requiredDuringSchedulingIgnoredDuringExecution")
            if required is not None:
                try:
                    self.added_node_selector = new_node_selector(required.get("nodeSelectorTerms") or [])
                except ValueError as err:
                    raise SelectorError(
                        f"parsing addedAffinity.requiredDuringSchedulingIgnoredDuringExecution: {err}"
                    ) from err
            preferred = added.get("preferredDuringSchedulingIgnoredDuringExecution")
            if preferred:
                try:
                    self.added_pref_sched_terms = PreferredSchedulingTerms(preferred)
                except ValueError as err:
                    raise SelectorError(
                        f"parsing addedAffinity.preferredDuringSchedulingIgnoredDuringExecution: {err}"
                    ) from err

    # --- PreFilter / Filter ---------------------------------------------------------------------

    def pre_filter(
        self, state: "CycleState", pod_info: "PodInfo", nodes: list["NodeInfo"]
    ) -> tuple[PreFilterResult | None, Status | None]:
        spec = pod_info.pod.get("spec") or {}
        required = _required_node_selector(spec)
        if required is None and self.added_node_selector is None and spec.get("nodeSelector") is None:
            return None, Status(Code.Skip)

        state.write(PRE_FILTER_STATE_KEY, RequiredNodeAffinity(pod_info.pod))

        terms = required.get("nodeSelectorTerms") if required is not None else None
        if not terms:
            return None, None

        # Nodes named by matchFields metadata.name In: ANDed within a term, ORed across terms.
        node_names: set[str] | None = None
        for term in terms:
            term_names: set[str] | None = None
            for req in (term or {}).get("matchFields") or ():
                if req.get("key") == _OBJECT_NAME_FIELD and req.get("operator") == "In":
                    values = set(req.get("values") or ())
                    term_names = values if term_names is None else term_names & values
            if term_names is None:
                # A term without a node-name requirement lets every node through.
                return None, None
            node_names = set(term_names) if node_names is None else node_names | term_names
        if node_names is not None and not node_names:
            return None, Status(Code.UnschedulableAndUnresolvable, ERR_REASON_CONFLICT)
        if node_names:
            return PreFilterResult(node_names), None
        return None, None

    def filter(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> Status | None:
        node = node_info.node
        if self.added_node_selector is not None and not self.added_node_selector.match(node):
            return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_ENFORCED)
        try:
            required = state.read(PRE_FILTER_STATE_KEY)
        except KeyError:
            # PreFilter disabled in the profile: compute it here (once per cycle, kept in the state).
            required = RequiredNodeAffinity(pod_info.pod)
            state.write(PRE_FILTER_STATE_KEY, required)
        if not required.match(node):
            return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_POD)
        return None

    # --- PreScore / Score -----------------------------------------------------------------------

    def pre_score(self, state: "CycleState", pod_info: "PodInfo", nodes: list["NodeInfo"]) -> Status | None:
        try:
            preferred = pod_preferred_node_affinity(pod_info.pod)
        except ValueError as err:
            return as_status(err)
        if preferred is None and self.added_pref_sched_terms is None:
            return Status(Code.Skip)
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(preferred))
        return None

    def score(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status | None]:
        node = node_info.node
        count = 0
        if self.added_pref_sched_terms is not None:
            count += self.added_pref_sched_terms.score(node)
        try:
            s = state.read(PRE_SCORE_STATE_KEY)
        except KeyError:
            # PreScore disabled in the profile: compute it here (once per cycle, kept in the state).
            try:
                s = _PreScoreState(pod_preferred_node_affinity(pod_info.pod))
            except ValueError as err:
                return 0, as_status(err)
            state.write(PRE_SCORE_STATE_KEY, s)
        if s.preferred is not None:
            count += s.preferred.score(node)
        return count, None

    def normalize_score(self, state: "CycleState", pod_info: "PodInfo", scores: list[NodeScore]) -> Status | None:
        return default_normalize_score(MAX_NODE_SCORE, False, scores)


class _PreScoreState:
    __slots__ = ("preferred",)

    def __init__(self, preferred: PreferredSchedulingTerms | None) -> None:
        self.preferred = preferred


def pod_preferred_node_affinity(pod: dict) -> PreferredSchedulingTerms | None:
    """The pod's preferred node affinity terms, parsed; None when the field is absent (null).

    An empty list is not None: such a pod gets score 0 everywhere rather than a Skip, as upstream.
    Raises ``ValueError`` (SelectorError) when a term does not parse.
    """
    affinity = (pod.get("spec") or {}).get("affinity") or {}
    node_affinity = affinity.get("nodeAffinity") or {}
    preferred = node_affinity.get("preferredDuringSchedulingIgnoredDuringExecution")
    if preferred is None:
        return None
    return PreferredSchedulingTerms(preferred)


def _required_node_selector(spec: dict) -> dict | None:
    affinity = spec.get("affinity") or {}
    node_affinity = affinity.get("nodeAffinity") or {}
    return node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")


# -- facts --------------------------------------------------------------------------------------


def remedy(engine: RemedyEngine, scen: RemedyScenario, status: Status) -> Step | None:
    """What would flip this plugin's Filter verdict on the scenario's node (kschedctl.plugins.remedy)."""
    labels = dict(scen.node_info.labels)
    name = scen.name
    changes: list[dict] = []
    details: dict[str, Any] = {}
    texts: list[str] = []
    plugin = next((pl for n, _, pl in engine.filters if n == "NodeAffinity"), None)
    added = ((getattr(plugin, "args", None) or {}).get("addedAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution")
    if added is not None:
        found = _best_term(added.get("nodeSelectorTerms") or [], labels, name)
        if found is None:
            return impossible("no term of the scheduler's addedAffinity can match this node by its labels",
                               status)
        term, label_changes = found
        if label_changes:
            details["addedAffinityTerm"] = term
        changes.extend(label_changes)
        _apply_labels(labels, label_changes)
    spec = scen.pod_info.pod.get("spec") or {}
    for key, value in (spec.get("nodeSelector") or {}).items():
        if labels.get(key) != value:
            changes.append({"kind": "setNodeLabel", "node": name, "key": key, "value": str(value)})
            labels[key] = str(value)
            details.setdefault("nodeSelector", {})[key] = value
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution")
    if isinstance(required, dict):
        found = _best_term(required.get("nodeSelectorTerms") or [], labels, name)
        if found is None:
            names = _named_nodes(required.get("nodeSelectorTerms") or [])
            if names:
                return Step(f"is not among the nodes the pod's node affinity names ({', '.join(names)})",
                            [{"kind": "addNodeAffinityName", "nodeName": name}],
                            {"matchFieldsNames": names}, shortfall=0.0, reasons=list(status.reasons))
            return impossible("no required node affinity term of the pod can match this node", status)
        term, label_changes = found
        if label_changes:
            details["term"] = term
        changes.extend(label_changes)
    if not changes:
        return None
    for c in changes:
        if c["kind"] == "setNodeLabel":
            texts.append(f"label {c['key']}={c['value']}" if c["value"] else f"label {c['key']} (any value)")
        else:
            texts.append(f"label {c['key']} removed")
    return Step("needs " + " and ".join(dedupe(texts)), changes, details, reasons=list(status.reasons))


def _best_term(terms: list, labels: dict, name: str) -> tuple[int, list[dict]] | None:
    """The term needing the fewest label changes to match (index, changes), None if none can."""
    best: tuple[int, list[dict]] | None = None
    for i, term in enumerate(terms):
        if not isinstance(term, dict) or (not term.get("matchExpressions") and not term.get("matchFields")):
            continue  # an empty term matches nothing, whatever the labels
        if not _fields_match(term.get("matchFields") or [], name):
            continue
        reqs = _requirements_in_order(term.get("matchExpressions") or [])
        if reqs is None:
            continue  # a term that does not parse never matches
        changes: list[dict] = []
        trial = dict(labels)
        ok = True
        for req in reqs:
            if req.matches(trial):
                continue
            change = _label_change_for(req, name)
            if change is None:
                ok = False
                break
            changes.append(change)
            _apply_labels(trial, [change])
        if not ok or not all(r.matches(trial) for r in reqs):
            continue
        if best is None or len(changes) < len(best[1]):
            best = (i, changes)
    return best


def _requirements_in_order(exprs: list) -> list | None:
    """The term's requirements in the order the user wrote them (the parsed selector sorts them)."""
    out = []
    for expr in exprs:
        selector, errors = node_selector_requirements_as_selector([expr])
        if errors or selector is None:
            return None
        out.extend(getattr(selector, "requirements", ()))
    return out


def _label_change_for(req: Any, node: str) -> dict | None:
    op, key, values = req.operator, req.key, list(req.values)
    if op in (OP_IN, "=", "=="):
        return {"kind": "setNodeLabel", "node": node, "key": key, "value": sorted(values)[0]} if values else None
    if op in (OP_NOT_IN, "!=", OP_DOES_NOT_EXIST):
        return {"kind": "removeNodeLabel", "node": node, "key": key}
    if op == OP_EXISTS:
        return {"kind": "setNodeLabel", "node": node, "key": key, "value": ""}
    if op in (OP_GT, OP_LT) and len(values) == 1:
        try:
            bound = int(values[0])
        except ValueError:
            return None
        return {"kind": "setNodeLabel", "node": node, "key": key, "value": str(bound + 1 if op == OP_GT else bound - 1)}
    return None


def _apply_labels(labels: dict, changes: list[dict]) -> None:
    for c in changes:
        if c["kind"] == "setNodeLabel":
            labels[c["key"]] = c["value"]
        elif c["kind"] == "removeNodeLabel":
            labels.pop(c["key"], None)


def _fields_match(fields: list, name: str) -> bool:
    for f in fields:
        if not isinstance(f, dict) or f.get("key") != "metadata.name":
            return False
        values = f.get("values") or []
        inside = name in values
        if (f.get("operator") == "In") != inside:
            return False
    return True


def _named_nodes(terms: list) -> list[str]:
    out: list[str] = []
    for term in terms:
        for f in (term or {}).get("matchFields") or ():
            if f.get("key") == "metadata.name" and f.get("operator") == "In":
                out.extend(v for v in f.get("values") or () if v not in out)
    return out


def default_config_args(a: dict[str, Any]) -> None:
    """NodeAffinityArgs has no defaults (addedAffinity stays unset)."""


def validate_config_args(path: str, a: dict[str, Any]) -> list[FieldError]:
    """``ValidateNodeAffinityArgs``: upstream's field errors under ``path``."""
    affinity = a.get("addedAffinity")
    if affinity is None:
        return []
    errs: list[FieldError] = []
    base = child(path, "addedAffinity")
    ns = affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if ns is not None:
        rpath = child(child(base, "requiredDuringSchedulingIgnoredDuringExecution"), "nodeSelectorTerms")
        for i, term in enumerate(ns.get("nodeSelectorTerms") or []):
            errs.extend(validate_node_selector_term(term or {}, index(rpath, i)))
    ppath = child(base, "preferredDuringSchedulingIgnoredDuringExecution")
    for i, pterm in enumerate(affinity.get("preferredDuringSchedulingIgnoredDuringExecution") or []):
        errs.extend(validate_node_selector_term((pterm or {}).get("preference") or {}, index(ppath, i)))
    return errs


FACTS = PluginFacts(
    name=NodeAffinity.name,
    points=("preFilter", "filter", "preScore", "score"),
    # Only node events (or updates of the pod itself) can help; a batch has none.
    events={},
    node_local=frozenset({"filter", "score"}),
    # Filter and Score read the pod and the node object only: kept per node object
    object_local=frozenset({"filter", "score"}),
    twin=ColumnTwin("kschedctl.plugins.node_affinity_columns", ("normalize",)),
    args=ArgsFacts("NodeAffinityArgs", default_config_args, validate_config_args),
    remedy=remedy,
    default_weight=2,
)
