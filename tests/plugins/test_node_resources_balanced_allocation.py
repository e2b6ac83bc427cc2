"""NodeResourcesBalancedAllocation: PreScore Skip for best-effort pods and the std score.

Cases: tests/plugins/cases/node_resources_balanced_allocation.yaml (upstream
balanced_allocation_test.go).
"""

from __future__ import annotations

import pytest

from kschedctl.errors import InputError
from kschedctl.framework.cycle_state import CycleState
from kschedctl.plugins.node_resources_balanced_allocation import NodeResourcesBalancedAllocation
from tests.plugins.harness import build, load_cases, pod_info
from tests.plugins.test_resource_allocation import make_node, make_pod, score_nodes

CASES = load_cases("node_resources_balanced_allocation")


@pytest.mark.parametrize("case", CASES)
def test_node_resources_balanced_allocation(case: dict) -> None:
    if "error" in case:
        with pytest.raises(InputError) as err:
            NodeResourcesBalancedAllocation(case.get("args"), None)
        assert f"{case['error']}:" in str(err.value)
        return
    plugin = NodeResourcesBalancedAllocation(case.get("args"), None)
    if "pre_score_code" in case:
        env = build([make_node(n) for n in case["nodes"]])
        status = plugin.pre_score(CycleState(), pod_info(make_pod(case.get("pod"), "pod")), env.node_infos)
        assert status is not None and status.code.name == case["pre_score_code"]
        return
    scores, failures = score_nodes(plugin, case)
    assert failures == []
    assert scores == case["scores"]
