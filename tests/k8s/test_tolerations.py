"""Taints and tolerations against upstream's test tables (cases/tolerations.yaml)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest
import yaml

from kschedctl.k8s.tolerations import (
    find_matching_untolerated_taint,
    match_taint,
    taint_to_string,
    tolerates,
    tolerations_tolerate_taint,
)

with open(Path(__file__).parent / "cases" / "tolerations.yaml", encoding="utf-8") as _f:
    CASES: dict[str, Any] = yaml.safe_load(_f)

FILTERS: dict[str | None, Callable[[dict], bool] | None] = {
    "all": lambda t: True,
    "none": lambda t: False,
    "NoExecute": lambda t: t.get("effect") == "NoExecute",
    None: None,
}


def _params(thing: str, cases: list[dict]) -> list:
    return [pytest.param(c, id=f"{thing}_{c.get('name', i)}") for i, c in enumerate(cases)]


@pytest.mark.parametrize("case", _params("TolerationToleratesTaint", CASES["tolerates"]))
def test_tolerates(case: dict) -> None:
    assert tolerates(case["toleration"], case["taint"]) is case["tolerated"]
    assert tolerations_tolerate_taint([case["toleration"]], case["taint"]) is case["tolerated"]


@pytest.mark.parametrize("case", _params("FindMatchingUntoleratedTaint", CASES["find_matching_untolerated_taint"]))
def test_find_matching_untolerated_taint(case: dict) -> None:
    found = find_matching_untolerated_taint(case["taints"], case["tolerations"], FILTERS[case["filter"]])
    assert (found is None) is case["tolerated"]
    if "untolerated" in case:
        assert found == case["untolerated"]


@pytest.mark.parametrize("case", _params("TaintToString", CASES["taint_to_string"]))
def test_taint_to_string(case: dict) -> None:
    assert taint_to_string(case["taint"]) == case["out"]


@pytest.mark.parametrize("case", _params("MatchTaint", CASES["match_taint"]))
def test_match_taint(case: dict) -> None:
    assert match_taint(case["a"], case["b"]) is case["match"]


def test_first_untolerated_taint_in_node_order() -> None:
    taints = [{"key": "a", "effect": "NoSchedule"}, {"key": "b", "effect": "NoSchedule"}]
    assert find_matching_untolerated_taint(taints, None) is taints[0]
    assert find_matching_untolerated_taint(taints, [{"key": "a", "operator": "Exists"}]) is taints[1]
    assert find_matching_untolerated_taint(None, None) is None


def test_missing_fields_are_empty_strings() -> None:
    # An Equal toleration without key matches any key whose taint has an empty value.
    assert tolerates({"operator": "Equal"}, {"key": "x", "effect": "NoSchedule"})
    assert tolerates({"key": None, "operator": "Exists", "effect": None}, {"key": "x", "value": "v", "effect": "NoExecute"})
    assert not tolerates({"operator": "Equal"}, {"key": "x", "value": "v", "effect": "NoSchedule"})
