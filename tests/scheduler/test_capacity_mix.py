"""capacity_of_mix(): whole sets of several pods, the pod that stops the next set, the interleaved
order, and --ratio's parsing. Cases in cases/capacity-mix.yaml, counted by hand."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from kschedctl.config import load_config
from kschedctl.errors import UsageError
from kschedctl.analyses.capacity import capacity, capacity_of_mix, interleaved_order, parse_ratio
from tests.framework.fakes import make_node, make_pod

HERE = Path(__file__).parent
CONFIG = str(HERE / "cases" / "config-implemented.yaml")
CASES = yaml.safe_load((HERE / "cases" / "capacity-mix.yaml").read_text(encoding="utf-8"))


def _pod(name: str, cpu: str, node: str = "") -> dict:
    return make_pod(name, uid=f"uid-{name}" if node else "", node=node, labels={"app": name},
                    containers=[{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}])


def _cluster(case: dict) -> SimpleNamespace:
    nodes = [make_node(name, cpu=cpu) for name, cpu in case["nodes"].items()]
    running = [_pod(f"running-{node}", cpu, node) for node, cpu in (case.get("running") or {}).items()]
    return SimpleNamespace(nodes=nodes, pods=running, priority_classes={}, namespaces={}, warnings=[])


@pytest.fixture(scope="module")
def config():
    return load_config(CONFIG)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_mix_cases(case: dict, config) -> None:
    templates = [_pod(name, cpu) for name, cpu in case["templates"].items()]
    r = capacity_of_mix(templates, case["ratio"], _cluster(case), config, seed=1)
    expect = case["expect"]
    data = r.to_dict()
    assert data["kind"] == "CapacityResult" and data["count"] == r.sets == expect["sets"]
    assert [k.split("/")[1] for k in data["mix"]["order"]] == expect["order"]
    assert data["mix"]["stopPod"] == expect["stopPod"]
    assert data["mix"]["incompleteSet"] == expect["incompleteSet"]
    assert sum(data["perNode"].values()) == expect["total"]
    assert data["stopReason"] == expect["stopReason"]
    for template, share in zip(data["mix"]["templates"], case["ratio"]):
        assert template["count"] == sum(template["perNode"].values()) == share * r.sets


def test_a_mix_of_one_pod_is_capacity(config) -> None:
    case = CASES[0]
    single = capacity(_pod("web", "1"), _cluster(case), config, seed=1)
    mix = capacity_of_mix([_pod("web", "1")], [1], _cluster(case), config, seed=1)
    assert mix.sets == single.count and mix.per_node == [single.per_node]
    assert mix.stop_reason == single.stop_reason


def test_max_counts_sets(config) -> None:
    r = capacity_of_mix([_pod("a", "100m"), _pod("b", "100m")], [2, 1], _cluster({"nodes": {"n": "4"}}), config,
                        seed=1, max_sets=3)
    assert r.sets == 3 and r.limit_reached and "--max 3" in r.stop_reason
    assert r.to_dict()["perNode"] == {"n": 9}


@pytest.mark.parametrize("ratio, expected", [
    ([3, 1], [0, 0, 1, 0]),
    ([1, 1], [0, 1]),
    ([1, 2], [1, 0, 1]),
    ([2, 2, 1], [0, 1, 2, 0, 1]),
    ([5], [0, 0, 0, 0, 0]),
])
def test_interleaved_order(ratio: list[int], expected: list[int]) -> None:
    assert interleaved_order(ratio) == expected


@pytest.mark.parametrize("text, templates, error", [
    ("3:1", 2, None),
    ("3", 2, "1 part(s) for 2 pod files"),
    ("3:1:1", 2, "3 part(s) for 2 pod files"),
    ("3:0", 2, "'0' is not a positive whole number"),
    ("3:-1", 2, "'-1' is not a positive whole number"),
    ("a:1", 2, "'a' is not a positive whole number"),
    ("1.5:1", 2, "'1.5' is not a positive whole number"),
    ("3:", 2, "'' is not a positive whole number"),
    ("9999:2", 2, "a set of 10,001 pods is more than 10,000"),
    ("1:" + "9" * 5000, 2, "pods is more than 10,000"),
    ("1:\u00b2", 2, "is not a positive whole number"),
    (" 3 : 1 ", 2, None),
])
def test_parse_ratio(text: str, templates: int, error: str | None) -> None:
    if error is None:
        assert parse_ratio(text, templates) == [3, 1]
        return
    with pytest.raises(UsageError) as info:
        parse_ratio(text, templates)
    assert error in str(info.value) and "\n" not in str(info.value)
