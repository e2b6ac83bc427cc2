"""ImageLocality: upstream's TestImageLocalityPriority and TestNormalizedImageName cases.

Node image states come from the snapshot (sizes and how many nodes hold each image name), so
these cases also check that the snapshot counts image spread as upstream's cache does.
"""

from __future__ import annotations

import pytest

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interfaces import extension_points_of
from kschedctl.plugins.image_locality import (
    MB,
    MIN_THRESHOLD,
    ImageLocality,
    calculate_priority,
    normalized_image_name,
    scaled_image_score,
)
from kschedctl.plugins.registry import in_tree_extension_points
from tests.plugins.harness import build, load_cases, pod_info, run_scores

CASES = load_cases("image_locality")


def _of_kind(kind: str) -> list:
    return [p for p in CASES if p.values[0]["kind"] == kind]


@pytest.mark.parametrize("case", _of_kind("score"))
def test_score(case: dict) -> None:
    env = build(case["nodes"])
    raw, normalized = run_scores(ImageLocality(None, env.handle), pod_info(case["pod"]), env)
    assert raw == normalized  # no NormalizeScore
    order = [n["metadata"]["name"] for n in case["nodes"]]
    assert [{"name": n, "score": raw[n]} for n in order] == case["expectedList"]


@pytest.mark.parametrize("case", _of_kind("normalize"))
def test_normalized_image_name(case: dict) -> None:
    assert normalized_image_name(case["input"]) == case["output"]


def test_per_pod_facts_are_computed_once_per_cycle() -> None:
    env = build([{"metadata": {"name": "a"}}, {"metadata": {"name": "b"}}])
    plugin = ImageLocality(None, env.handle)
    state = CycleState()
    pod = pod_info({"spec": {"containers": [{"name": "c", "image": "x"}]}})
    plugin.score(state, pod, env.node_infos[0])
    images, containers, total = state.read("ScoreImageLocality")
    assert (images, containers, total) == (("x:latest",), 1, 2)


def test_thresholds() -> None:
    assert calculate_priority(0, 1) == 0
    assert calculate_priority(MIN_THRESHOLD, 1) == 0
    assert calculate_priority(1000 * MB, 1) == 100
    assert calculate_priority(5000 * MB, 2) == 100
    assert scaled_image_score(300 * MB, 1, 3) == 104857600
    assert scaled_image_score(7, 1, 3) == 2  # float64 product truncated toward zero


def test_extension_points_match_upstream() -> None:
    assert extension_points_of(ImageLocality) == list(in_tree_extension_points()["ImageLocality"])
