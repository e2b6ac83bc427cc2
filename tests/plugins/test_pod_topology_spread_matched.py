"""PodTopologySpread's count of matching pods asks a selector once per shared labels dict.

The pods of a template share one labels dict (``inputs.sharing``), and a first count over every
node asks the selector about each pod. The answer is kept per selector and shared dict: each
case counts the pods twice (the second time from the kept answers) and must equal upstream's
count, pod by pod, for every selector of the case, whatever was counted before.
"""

from __future__ import annotations

from typing import Any

import pytest

from kschedctl.framework.types import PodInfo
from kschedctl.k8s.selectors import label_selector
from kschedctl.k8s.shared_parts import forget_shared, note_shared
from kschedctl.plugins.pod_topology_spread.common import Constraint, count_pods_match_selector

WEB, DB = {"app": "web", "tier": "front"}, {"app": "db", "tier": "back"}


def _pods(spec: list[tuple[str, dict, str, bool]]) -> list[PodInfo]:
    """(name, labels, namespace, terminating) each; the labels dict given is the pod's own object."""
    pods = []
    for name, labels, namespace, terminating in spec:
        meta: dict[str, Any] = {"name": name, "namespace": namespace, "labels": labels}
        if terminating:
            meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
        pods.append(PodInfo({"metadata": meta, "spec": {}}))
    return pods


def _constraint(selector: dict) -> Constraint:
    return Constraint(1, "zone", label_selector(selector))


def _upstream(pods: list[PodInfo], selector: dict, namespace: str) -> int:
    matches = label_selector(selector).matches
    return sum(1 for p in pods if not p.is_terminating and p.namespace == namespace and matches(p.labels))


SELECTORS = [{"matchLabels": {"app": "web"}}, {"matchLabels": {"tier": "back"}},
             {"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["web"]}]}, {}]

CASES = {
    "replicas share one dict": [("w1", WEB, "default", False), ("w2", WEB, "default", False),
                                ("d1", DB, "default", False), ("d2", DB, "default", False),
                                ("d3", DB, "default", False)],
    "other namespace and terminating pods of a shared dict": [
        ("w1", WEB, "default", False), ("w2", WEB, "other", False), ("w3", WEB, "default", True),
        ("d1", DB, "other", False)],
    "equal labels, separate dicts": [("w1", dict(WEB), "default", False), ("w2", dict(WEB), "default", False),
                                     ("d1", dict(DB), "default", False)],
    "no labels": [("x1", {}, "default", False), ("w1", WEB, "default", False)],
}


@pytest.fixture(autouse=True)
def _shared_parts():
    forget_shared()
    for labels in (WEB, DB):
        note_shared(labels)
    yield
    forget_shared()


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("namespace", ["default", "other"])
def test_counts_equal_upstreams_for_every_selector(case: str, namespace: str) -> None:
    pods = _pods(CASES[case])
    for _round in range(2):  # the second round from the kept answers
        for selector in SELECTORS:
            c = _constraint(selector)
            expected = 0 if c.selector_empty else _upstream(pods, selector, namespace)
            assert count_pods_match_selector(pods, c, namespace) == expected, (selector, _round)


def test_a_dict_of_its_own_is_asked_again_after_a_change() -> None:
    own = {"app": "web"}
    pods = _pods([("p", own, "default", False)])
    c = _constraint({"matchLabels": {"app": "web"}})
    assert count_pods_match_selector(pods, c, "default") == 1
    own["app"] = "db"  # not a shared part: nothing kept about it
    assert count_pods_match_selector(pods, c, "default") == 0
