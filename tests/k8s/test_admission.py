"""merge_match_label_keys: upstream's Test_mutatePodAffinity (pkg/registry/core/pod/strategy_test.go,
release-1.34) plus kschedctl's purity and idempotence guarantees.

Upstream's case "the feature gate is disabled and matchLabelKeys is ignored" is left out: the
MatchLabelKeysInPodAffinity gate is GA and locked on in v1.34.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kschedctl.k8s.admission import merge_match_label_keys

_LABELS = {"country": "Japan", "city": "Kyoto"}
_ASIA = {"matchLabels": {"region": "Asia"}}
_MERGED_ASIA = {
    "matchLabels": {"region": "Asia"},
    "matchExpressions": [
        {"key": "country", "operator": "In", "values": ["Japan"]},
        {"key": "city", "operator": "NotIn", "values": ["Kyoto"]},
    ],
}


def _term(selector: dict | None, **keys: Any) -> dict:
    term: dict[str, Any] = {} if selector is None else {"labelSelector": copy.deepcopy(selector)}
    term.update(keys)
    return term


def _pod(affinity: dict, labels: dict | None = None) -> dict:
    return {"metadata": {"labels": dict(_LABELS if labels is None else labels)}, "spec": {"affinity": affinity}}


def _all_kinds(selector: dict | None, **keys: Any) -> dict:
    """The same term as required and preferred, affinity and anti-affinity (upstream's first case)."""
    return {
        kind: {
            "requiredDuringSchedulingIgnoredDuringExecution": [_term(selector, **keys)],
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 1, "podAffinityTerm": _term(selector, **keys)}
            ],
        }
        for kind in ("podAffinity", "podAntiAffinity")
    }


CASES = [
    pytest.param(
        _pod(_all_kinds(_ASIA, matchLabelKeys=["country"], mismatchLabelKeys=["city"])),
        _all_kinds(_MERGED_ASIA, matchLabelKeys=["country"], mismatchLabelKeys=["city"]),
        id="admission_matchLabelKeys are merged into labelSelector with In and mismatchLabelKeys are merged with NotIn",
    ),
    pytest.param(
        _pod({"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            _term(_ASIA, matchLabelKeys=["city", "not-found"])]}}),
        {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            _term({"matchLabels": {"region": "Asia"},
                   "matchExpressions": [{"key": "city", "operator": "In", "values": ["Kyoto"]}]},
                  matchLabelKeys=["city", "not-found"])]}},
        id="admission_keys, which are not found in Pod labels, are ignored",
    ),
    pytest.param(
        _pod({"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            _term(None, matchLabelKeys=["country"], mismatchLabelKeys=["city"])]}}),
        {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            _term(None, matchLabelKeys=["country"], mismatchLabelKeys=["city"])]}},
        id="admission_matchLabelKeys is ignored if the labelSelector is nil",
    ),
]


@pytest.mark.parametrize("pod, want_affinity", CASES)
def test_mutate_pod_affinity(pod: dict, want_affinity: dict) -> None:
    before = copy.deepcopy(pod)
    got = merge_match_label_keys(pod)
    assert got["spec"]["affinity"] == want_affinity
    assert pod == before, "the input pod must not change"


@pytest.mark.parametrize("pod, want_affinity", CASES)
def test_merge_is_idempotent(pod: dict, want_affinity: dict) -> None:
    once = merge_match_label_keys(pod)
    twice = merge_match_label_keys(once)
    assert twice == once
    assert twice is once, "nothing left to merge: the pod itself comes back"


def test_pod_without_label_keys_comes_back_as_is() -> None:
    pod = _pod({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [_term(_ASIA)]}})
    assert merge_match_label_keys(pod) is pod
    assert merge_match_label_keys({"metadata": {}}) == {"metadata": {}}
    assert merge_match_label_keys({"spec": {"affinity": {"nodeAffinity": {}}}}) == {
        "spec": {"affinity": {"nodeAffinity": {}}}
    }


def test_empty_label_selector_gets_the_expressions() -> None:
    """``labelSelector: {}`` is not null: upstream merges into it (it then matches fewer pods)."""
    pod = _pod({"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        _term({}, matchLabelKeys=["country"])]}})
    term = merge_match_label_keys(pod)["spec"]["affinity"]["podAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert term["labelSelector"] == {"matchExpressions": [{"key": "country", "operator": "In", "values": ["Japan"]}]}


def test_existing_expressions_are_kept_in_front() -> None:
    selector = {"matchExpressions": [{"key": "tier", "operator": "Exists"}]}
    pod = _pod({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        _term(selector, mismatchLabelKeys=["city"])]}})
    term = merge_match_label_keys(pod)["spec"]["affinity"]["podAntiAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert term["labelSelector"]["matchExpressions"] == [
        {"key": "tier", "operator": "Exists"},
        {"key": "city", "operator": "NotIn", "values": ["Kyoto"]},
    ]


def test_empty_label_value_is_merged() -> None:
    """A label with an empty value is still a label the pod carries."""
    pod = _pod({"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        _term(_ASIA, matchLabelKeys=["flag"])]}}, labels={"flag": ""})
    term = merge_match_label_keys(pod)["spec"]["affinity"]["podAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert term["labelSelector"]["matchExpressions"] == [{"key": "flag", "operator": "In", "values": [""]}]


def test_untouched_parts_are_shared_not_copied() -> None:
    node_affinity = {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}
    containers = [{"name": "c"}]
    pod = _pod({"nodeAffinity": node_affinity, "podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [_term(_ASIA, matchLabelKeys=["country"])]}})
    pod["spec"]["containers"] = containers
    got = merge_match_label_keys(pod)
    assert got is not pod
    assert got["spec"]["containers"] is containers
    assert got["spec"]["affinity"]["nodeAffinity"] is node_affinity
    assert got["metadata"] is pod["metadata"]


def test_malformed_parts_are_left_for_validation() -> None:
    pod = _pod({"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        "not-a-term", _term("bad", matchLabelKeys=["country"]), _term(_ASIA, matchLabelKeys="country")]}})
    assert merge_match_label_keys(pod) is pod
    assert merge_match_label_keys({"spec": "nope"}) == {"spec": "nope"}
