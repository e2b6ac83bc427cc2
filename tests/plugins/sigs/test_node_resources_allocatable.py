"""NodeResourcesAllocatable: upstream's TestNodeResourcesAllocatable table, and its args."""

from __future__ import annotations

import pytest

from kschedctl.errors import InputError
from kschedctl.plugins.sigs.node_resources_allocatable import NodeResourcesAllocatable
from tests.plugins.harness import build, pod_info, run_scores
from tests.plugins.sigs._cases import load


def _pod(name: str, requests: dict, node: str | None = None) -> dict:
    spec: dict = {"containers": [{"name": "c", "resources": {"requests": requests}}] if requests else []}
    if node:
        spec["nodeName"] = node
    return {"metadata": {"name": name}, "spec": spec}


@pytest.mark.parametrize("case", load(__file__, "node_resources_allocatable", "NodeResourcesAllocatable"))
def test_score(case: dict) -> None:
    nodes = [{"metadata": {"name": n}, "status": {"allocatable": {"cpu": f"{c}m", "memory": str(m)}}}
             for n, c, m in case["nodes"]]
    pods = [_pod(f"p{i}", req, node) for i, (node, req) in enumerate(case.get("pods") or [])]
    env = build(nodes, pods)
    plugin = NodeResourcesAllocatable(case["args"], env.handle)
    _, normalized = run_scores(plugin, pod_info(_pod("pod", case["pod"])), env)
    assert normalized == case["want"]


@pytest.mark.parametrize("case", load(__file__, "node_resources_allocatable", "NodeResourcesAllocatable", "errors"))
def test_args_errors(case: dict) -> None:
    with pytest.raises(InputError) as err:
        NodeResourcesAllocatable(case["args"], None)
    assert case["want"] in str(err.value)


def test_defaults_apply_without_args() -> None:
    plugin = NodeResourcesAllocatable(None, None)
    assert plugin.mode == "Least" and plugin.weights == {"cpu": 1 << 20, "memory": 1}


def test_invalid_mode() -> None:
    assert NodeResourcesAllocatable.validate_args({"mode": "Median", "resources": []}) == [
        ("mode", "Invalid", 'Invalid value: "Median": invalid support ModeType')]
