"""Plugin helpers: upstream's TestDefaultNormalizeScore, TestDoNotScheduleTaintsFilterFunc and
TestGetPodServices cases, plus our own cases for BuildBrokenLinearFunction and DefaultSelector."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from kschedctl.framework.interfaces import NodeScore
from kschedctl.plugins.helper import (
    build_broken_linear_function,
    default_normalize_score,
    default_selector,
    do_not_schedule_taints_filter,
    get_pod_services,
    go_div,
)
from tests.plugins.harness import load_cases

CASES = load_cases("helper")

#: upstream's TestGetPodServices fixture: service-<i> selects app=test-<i> in namespace test.
SERVICES = [
    {"apiVersion": "v1", "kind": "Service", "metadata": {"name": f"service-{i}", "namespace": "test"},
     "spec": {"selector": {"app": f"test-{i}"}}}
    for i in range(3)
]


def _of_kind(kind: str) -> list:
    return [p for p in CASES if p.values[0]["kind"] == kind]


def _cluster(objects: list[dict]) -> Any:
    """The ClusterState when the inputs layer is there, else a stand-in with the same attributes."""
    try:
        from kschedctl.inputs.cluster import ClusterState
        from kschedctl.inputs.loader import Document
    except ImportError:
        by_kind: dict[str, list[dict]] = {}
        for obj in objects:
            by_kind.setdefault(obj["kind"], []).append(obj)
        return SimpleNamespace(
            services=by_kind.get("Service", []),
            replication_controllers=by_kind.get("ReplicationController", []),
            replica_sets=by_kind.get("ReplicaSet", []),
            stateful_sets=by_kind.get("StatefulSet", []),
        )
    return ClusterState.from_documents([Document(o, "<test>", None) for o in objects])


@pytest.mark.parametrize("case", _of_kind("normalize"))
def test_default_normalize_score(case: dict) -> None:
    scores = [NodeScore(f"n{i}", s) for i, s in enumerate(case["scores"])]
    assert default_normalize_score(100, case["reverse"], scores) is None
    assert [s.score for s in scores] == case["expected"]


@pytest.mark.parametrize("case", _of_kind("normalize"))
def test_default_normalize_over_an_array(case: dict) -> None:
    """The column form (TaintToleration's and NodeAffinity's twins) on upstream's cases."""
    from kschedctl.plugins.normalize_columns import default_normalize

    assert default_normalize(100, case["reverse"], case["scores"]).tolist() == case["expected"]


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("scores", [[], [0, 0], [3, 0, 7, 7, 1], [-4, 2, 9], [-5, -1], [1] * 5, [10**12, 1, 0]])
def test_default_normalize_over_an_array_is_the_list_form(scores: list[int], reverse: bool) -> None:
    from kschedctl.plugins.helper import default_normalize_values
    from kschedctl.plugins.normalize_columns import default_normalize

    assert default_normalize(100, reverse, scores).tolist() == default_normalize_values(100, reverse, scores)


@pytest.mark.parametrize("case", _of_kind("taint_filter"))
def test_do_not_schedule_taints_filter(case: dict) -> None:
    assert do_not_schedule_taints_filter(case["taint"]) is case["expected"]


@pytest.mark.parametrize("case", _of_kind("broken_linear"))
def test_broken_linear_function(case: dict) -> None:
    f = build_broken_linear_function([tuple(p) for p in case["shape"]])
    assert {p: f(p) for p in case["points"]} == case["points"]


@pytest.mark.parametrize("case", _of_kind("pod_services"))
def test_get_pod_services(case: dict) -> None:
    extra = [dict(s, apiVersion="v1", kind="Service") for s in case.get("extraServices", [])]
    cluster = _cluster(SERVICES + extra)
    got = [s["metadata"]["name"] for s in get_pod_services(cluster, case["pod"])]
    assert sorted(got) == sorted(case["expected"])


@pytest.mark.parametrize("case", _of_kind("default_selector"))
def test_default_selector(case: dict) -> None:
    cluster = _cluster(SERVICES + case.get("objects", []))
    sel = default_selector(case["pod"], cluster)
    assert sel.empty is case["wantEmpty"]
    for labels_text, want in case["matches"].items():
        assert sel.matches(yaml.safe_load(labels_text)) is want, labels_text


def test_go_div_truncates_toward_zero() -> None:
    assert (go_div(7, 2), go_div(-7, 2), go_div(7, -2), go_div(-7, -2)) == (3, -3, -3, 3)
