"""Node selectors and node affinity as upstream's component-helpers nodeaffinity package matches
them (release-1.34): ``NodeSelector``, ``RequiredNodeAffinity`` (spec.nodeSelector AND the required
node affinity of a pod), ``PreferredSchedulingTerms``, and the conversion of node selector
requirements to label selectors with upstream's error texts. Label selectors themselves are in
:mod:`kschedctl.k8s.selectors`, whose error wording this module shares.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from kschedctl.k8s.selectors import (
    _EMPTY,
    NOTHING,
    OP_DOES_NOT_EXIST,
    OP_EXISTS,
    OP_GT,
    OP_IN,
    OP_LT,
    OP_NOT_IN,
    Requirement,
    Selector,
    SelectorError,
    _aggregate,
    _field_invalid,
    _field_not_supported,
    _go_value,
    _go_values,
    requirement_errors,
    selector_from_set,
)


_NODE_OPS = {"In": OP_IN, "NotIn": OP_NOT_IN, "Exists": OP_EXISTS, "DoesNotExist": OP_DOES_NOT_EXIST, "Gt": OP_GT,
             "Lt": OP_LT}
_NODE_OP_NAMES = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_FIELD_OP_NAMES = ("In", "NotIn")
_NODE_NAME_FIELD = "metadata.name"


def node_selector_requirements_as_selector(exprs: Any, path: str = "") -> tuple[Selector | None, list[str]]:
    """Upstream ``nodeSelectorRequirementsAsSelector``: the label part of a node selector term.

    Returns (selector, []) or (None, errors); no requirements gives the nothing selector.
    """
    if not exprs:
        return NOTHING, []
    if not isinstance(exprs, list):
        return None, [_field_invalid(path, _go_value(exprs), "must be a list")]
    errs: list[str] = []
    reqs: list[Requirement] = []
    for i, expr in enumerate(exprs):
        p = f"{path}[{i}]"
        if not isinstance(expr, Mapping):
            errs.append(_field_invalid(p, _go_value(expr), "must be an object"))
            continue
        raw_op = expr.get("operator") or ""
        op = _NODE_OPS.get(raw_op) if isinstance(raw_op, str) else None
        if op is None:
            errs.append(_field_not_supported(p + ".operator", raw_op, _NODE_OP_NAMES))
            continue
        key = expr.get("key", "")
        values = expr.get("values")
        r_errs = requirement_errors(key, op, values, p)
        if r_errs:
            # NewRequirement returns one aggregate error per requirement.
            errs.append(_aggregate(r_errs))
        else:
            reqs.append(Requirement(key, op, list(values or ())))
    if errs:
        return None, errs
    return Selector(reqs), []


def _node_field_requirements(exprs: Any, path: str) -> tuple[tuple[tuple[bool, str], ...] | None, list[str]]:
    """Upstream nodeSelectorRequirementsAsFieldSelector: (is_in, name) pairs, ANDed."""
    if not exprs:
        # fields.Nothing(); upstream only builds it for empty lists, which never reach here.
        return None, []
    if not isinstance(exprs, list):
        return None, [_field_invalid(path, _go_value(exprs), "must be a list")]
    errs: list[str] = []
    checks: list[tuple[bool, str]] = []
    for i, expr in enumerate(exprs):
        p = f"{path}[{i}]"
        if not isinstance(expr, Mapping):
            errs.append(_field_invalid(p, _go_value(expr), "must be an object"))
            continue
        op = expr.get("operator") or ""
        values = expr.get("values")
        if op in ("In", "NotIn"):
            if not isinstance(values, list) or len(values) != 1:
                errs.append(_field_invalid(p + ".values", _go_values(values), "must have one element"))
                continue
            key = expr.get("key", "")
            if key != _NODE_NAME_FIELD:
                # API validation (not the scheduler helper) rejects other keys; see module doc.
                errs.append(_field_invalid(p + ".key", _go_value(key), "not a valid field selector key"))
                continue
            checks.append((op == "In", values[0]))
        else:
            errs.append(_field_not_supported(p + ".operator", op, _FIELD_OP_NAMES))
    if errs:
        return None, errs
    return tuple(checks), []


class _Term:
    """One parsed NodeSelectorTerm: label selector, metadata.name checks, parse errors."""

    __slots__ = ("labels", "fields", "errors")

    def __init__(self, term: Mapping[str, Any], path: str) -> None:
        self.labels: Selector | None = None
        self.fields: tuple[tuple[bool, str], ...] | None = None
        self.errors: list[str] = []
        exprs = term.get("matchExpressions")
        if exprs:
            self.labels, errs = node_selector_requirements_as_selector(exprs, path + ".matchExpressions")
            self.errors.extend(errs)
        fields = term.get("matchFields")
        if fields:
            self.fields, errs = _node_field_requirements(fields, path + ".matchFields")
            self.errors.extend(errs)

    def match(self, labels: Mapping[str, str], name: str) -> bool:
        if self.errors:
            return False
        if self.labels is not None and not self.labels.matches(labels):
            return False
        if self.fields is not None and name:
            for is_in, value in self.fields:
                if (name == value) != is_in:
                    return False
        return True


def match_any_labels(labels: Mapping[str, str] | None) -> bool:
    """The labels matcher of a selector that admits every node."""
    return True


def _is_empty_term(term: Any) -> bool:
    return not isinstance(term, Mapping) or (not term.get("matchExpressions") and not term.get("matchFields"))


def _node_labels_and_name(node: Mapping[str, Any]) -> tuple[Mapping[str, str], str]:
    meta = node.get("metadata") or _EMPTY
    return meta.get("labels") or _EMPTY, meta.get("name") or ""


class NodeSelector:
    """Upstream ``LazyErrorNodeSelector`` (and ``NodeSelector``): terms ORed.

    A term with neither matchExpressions nor matchFields matches nothing (and is dropped); a
    term that fails to parse never matches and its errors are kept in ``errors`` (upstream
    reports them only when no term matches). ``terms`` is the ``nodeSelectorTerms`` list.
    """

    __slots__ = ("_terms", "errors")

    def __init__(self, terms: list[dict] | None, path: str = "nodeSelectorTerms") -> None:
        parsed: list[_Term] = []
        errors: list[str] = []
        for i, term in enumerate(terms or ()):
            if _is_empty_term(term):
                continue
            t = _Term(term, f"{path}[{i}]")
            errors.extend(t.errors)
            parsed.append(t)
        self._terms = tuple(parsed)
        #: Parse errors of every term, as upstream field.Error strings.
        self.errors: list[str] = errors

    @property
    def error(self) -> str | None:
        """All parse errors aggregated as upstream would print them, or None."""
        return _aggregate(self.errors) if self.errors else None

    def match(self, node: Mapping[str, Any] | None) -> bool:
        """Whether any term matches the node's labels and name."""
        if node is None:
            return False
        labels, name = _node_labels_and_name(node)
        for term in self._terms:
            if term.match(labels, name):
                return True
        return False

    def match_labels(self, labels: Mapping[str, str] | None, name: str) -> bool:
        """``match`` for callers that already hold the node's labels and name."""
        labels = labels or _EMPTY
        for term in self._terms:
            if term.match(labels, name):
                return True
        return False

    def labels_matcher(self) -> Callable[[Mapping[str, str] | None], bool]:
        """``match_labels(labels, "")`` as one callable, for a selector asked of many nodes'
        labels alone (no name: matchFields are not checked). A single well-formed term is its
        label selector itself."""
        terms = self._terms
        if len(terms) == 1 and not terms[0].errors:
            selector = terms[0].labels
            return selector.matches if selector is not None else match_any_labels
        return lambda labels: self.match_labels(labels, "")

    def label_requirements(self) -> tuple[Any, ...] | None:
        """What ``labels_matcher`` checks when the selector is one well-formed term: its label
        requirements, all of which must match (none for a term of matchFields only, which sees
        no name); None otherwise (several terms, a parse error, a selector matching nothing)."""
        terms = self._terms
        if len(terms) != 1 or terms[0].errors:
            return None
        selector = terms[0].labels
        if selector is None:
            return ()
        return None if selector.nothing else selector.requirements

    def match_with_error(self, node: Mapping[str, Any] | None) -> tuple[bool, str | None]:
        """Upstream ``LazyErrorNodeSelector.Match``: parse errors only when no term matched."""
        if node is None:
            return False, None
        if self.match(node):
            return True, None
        return False, self.error


def new_node_selector(terms: list[dict] | None, path: str = "nodeSelectorTerms") -> NodeSelector:
    """Upstream ``NewNodeSelector``: like ``NodeSelector`` but raises ``SelectorError`` on any
    parse error (used for ``NodeAffinityArgs.addedAffinity``)."""
    sel = NodeSelector(terms, path)
    if sel.errors:
        raise SelectorError(_aggregate(sel.errors))
    return sel


def match_node_selector_terms(node: Mapping[str, Any] | None, node_selector: Mapping[str, Any] | None) -> bool:
    """Upstream ``corev1helpers.MatchNodeSelectorTerms`` on a ``v1.NodeSelector`` dict."""
    if node is None:
        return False
    terms = (node_selector or _EMPTY).get("nodeSelectorTerms")
    return NodeSelector(terms).match(node)


class PreferredSchedulingTerms:
    """Upstream ``PreferredSchedulingTerms``: ``score(node)`` is the sum of matching weights.

    Terms of weight 0 or without requirements are skipped (not even parsed). Raises
    ``SelectorError`` (all errors aggregated) when a remaining term fails to parse, as upstream
    ``NewPreferredSchedulingTerms`` returns an error.
    """

    __slots__ = ("_terms",)

    def __init__(self, terms: list[dict] | None, path: str = "") -> None:
        parsed: list[tuple[_Term, int]] = []
        errors: list[str] = []
        for i, pref in enumerate(terms or ()):
            if not isinstance(pref, Mapping):
                continue
            weight = pref.get("weight") or 0
            term = pref.get("preference")
            if weight == 0 or _is_empty_term(term):
                continue
            t = _Term(term, f"{path}[{i}]")
            if t.errors:
                errors.extend(t.errors)
            else:
                parsed.append((t, int(weight)))
        if errors:
            raise SelectorError(_aggregate(errors))
        self._terms = tuple(parsed)

    def score(self, node: Mapping[str, Any]) -> int:
        """Sum of the weights of the terms the node matches."""
        labels, name = _node_labels_and_name(node)
        total = 0
        for term, weight in self._terms:
            if term.match(labels, name):
                total += weight
        return total

    def __len__(self) -> int:
        return len(self._terms)


class RequiredNodeAffinity:
    """Upstream ``GetRequiredNodeAffinity(pod)``: spec.nodeSelector AND required node affinity.

    The affinity part is lazy: a term that fails to parse simply never matches.
    """

    __slots__ = ("label_selector", "node_selector")

    def __init__(self, pod: Mapping[str, Any]) -> None:
        spec = pod.get("spec") or _EMPTY
        ns = spec.get("nodeSelector")
        self.label_selector: Selector | None = selector_from_set(ns) if ns else None
        required = (
            ((spec.get("affinity") or _EMPTY).get("nodeAffinity") or _EMPTY).get(
                "requiredDuringSchedulingIgnoredDuringExecution"
            )
        )
        self.node_selector: NodeSelector | None = (
            NodeSelector(required.get("nodeSelectorTerms")) if isinstance(required, Mapping) else None
        )

    def match(self, node: Mapping[str, Any]) -> bool:
        """Whether the pod may run on ``node`` by nodeSelector and required node affinity."""
        if self.label_selector is not None:
            labels = (node.get("metadata") or _EMPTY).get("labels") or _EMPTY
            if not self.label_selector.matches(labels):
                return False
        if self.node_selector is not None:
            return self.node_selector.match(node)
        return True

    def match_with_error(self, node: Mapping[str, Any]) -> tuple[bool, str | None]:
        """Upstream ``RequiredNodeAffinity.Match``: (matched, lazy parse error)."""
        if self.label_selector is not None:
            labels = (node.get("metadata") or _EMPTY).get("labels") or _EMPTY
            if not self.label_selector.matches(labels):
                return False, None
        if self.node_selector is not None:
            return self.node_selector.match_with_error(node)
        return True, None

    @property
    def errors(self) -> list[str]:
        """Parse errors of the required node affinity terms (empty when all parse)."""
        return list(self.node_selector.errors) if self.node_selector is not None else []
