"""What the API server writes into a pod's spec when the pod is created (beyond plain defaults).

Upstream: pkg/registry/core/pod/strategy.go, ``PrepareForCreate`` -> ``mutatePodAffinity`` ->
``applyMatchLabelKeysAndMismatchLabelKeys`` (release-1.34). With the MatchLabelKeysInPodAffinity
feature gate (GA and locked on since v1.33) every pod (anti-)affinity term, required or
preferred, that has ``matchLabelKeys`` / ``mismatchLabelKeys`` and a non-null ``labelSelector``
gets, for each listed key the pod carries as a label, one more ``matchExpressions`` entry:
``key In [value]`` (matchLabelKeys) or ``key NotIn [value]`` (mismatchLabelKeys). Keys the pod
does not carry are ignored; a null ``labelSelector`` (which matches nothing) is left alone. The
scheduler only ever sees the merged selector, so a pod read from a file must go through the same
merge before it is scheduled.

Differences from upstream:
- The merge is idempotent: an expression identical to one already in ``matchExpressions`` is
  not added again. Upstream runs the merge once, at creation, and would append a duplicate; a
  duplicate requirement is ANDed with itself, so matching is the same either way.
- A pod whose labels changed after creation keeps the expressions made from its old labels on a
  real cluster; merging such a pod again here would add the new values too. Pods read from a
  live API server were merged at creation and need not (should not) be merged again.
"""

from __future__ import annotations

from typing import Any

__all__ = ["merge_match_label_keys"]

_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def merge_match_label_keys(pod: dict) -> dict:
    """The pod as the API server would store it: ``matchLabelKeys`` / ``mismatchLabelKeys`` of its
    pod (anti-)affinity terms merged into their label selectors.

    Pure: ``pod`` is never changed. When nothing needs merging, ``pod`` itself is returned (no
    copy); otherwise a new dict that shares every part it did not have to change with ``pod``.
    Malformed parts (a term that is not a mapping, a list that is not a list) are left as they
    are for validation to report.
    """
    spec = pod.get("spec")
    if not isinstance(spec, dict):
        return pod
    affinity = spec.get("affinity")
    if not isinstance(affinity, dict):
        return pod
    labels = _labels_of(pod)
    new_affinity: dict | None = None
    for kind in ("podAffinity", "podAntiAffinity"):
        section = affinity.get(kind)
        if not isinstance(section, dict):
            continue
        merged = _merge_section(section, labels)
        if merged is not section:
            if new_affinity is None:
                new_affinity = dict(affinity)
            new_affinity[kind] = merged
    if new_affinity is None:
        return pod
    new_pod = dict(pod)
    new_pod["spec"] = dict(spec)
    new_pod["spec"]["affinity"] = new_affinity
    return new_pod


def _labels_of(pod: dict) -> dict[str, Any]:
    meta = pod.get("metadata")
    labels = meta.get("labels") if isinstance(meta, dict) else None
    return labels if isinstance(labels, dict) else {}


def _merge_section(section: dict, labels: dict[str, Any]) -> dict:
    """A podAffinity / podAntiAffinity section with its terms merged (``section`` if unchanged)."""
    new_section: dict | None = None
    # Upstream handles preferred terms before required ones; the order does not change the result.
    for field, weighted in ((_PREFERRED, True), (_REQUIRED, False)):
        terms = section.get(field)
        if not isinstance(terms, list) or not terms:
            continue
        new_terms: list | None = None
        for i, entry in enumerate(terms):
            if not isinstance(entry, dict):
                continue
            term = entry.get("podAffinityTerm") if weighted else entry
            merged = _merge_term(term, labels)
            if merged is term:
                continue
            if new_terms is None:
                new_terms = list(terms)
            new_terms[i] = {**entry, "podAffinityTerm": merged} if weighted else merged
        if new_terms is not None:
            if new_section is None:
                new_section = dict(section)
            new_section[field] = new_terms
    return section if new_section is None else new_section


def _merge_term(term: Any, labels: dict[str, Any]) -> Any:
    """One PodAffinityTerm with its label keys merged (``term`` itself if nothing to add)."""
    if not isinstance(term, dict):
        return term
    match_keys = term.get("matchLabelKeys") or ()
    mismatch_keys = term.get("mismatchLabelKeys") or ()
    selector = term.get("labelSelector")
    # A null labelSelector matches nothing, so upstream leaves it null.
    if (not match_keys and not mismatch_keys) or not isinstance(selector, dict):
        return term
    old = selector.get("matchExpressions")
    expressions = list(old) if isinstance(old, list) else []
    added = False
    for keys, operator in ((match_keys, "In"), (mismatch_keys, "NotIn")):
        if not isinstance(keys, list):
            continue
        for key in keys:
            if not isinstance(key, str) or key not in labels:
                continue  # keys the pod does not carry are ignored, as upstream
            requirement = {"key": key, "operator": operator, "values": [labels[key]]}
            if requirement in expressions:
                continue  # already merged (the pod was admitted before)
            expressions.append(requirement)
            added = True
    if not added:
        return term
    return {**term, "labelSelector": {**selector, "matchExpressions": expressions}}
