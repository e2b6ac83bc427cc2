"""PodCapacityOfNode: the seed article's unit-test table (0, 88 and 100), and its edge cases."""

from __future__ import annotations

import pytest

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interfaces import NodeScore
from kschedctl.framework.status import Code
from kschedctl.plugins.seeds.pod_capacity_of_node import PodCapacityOfNode
from tests.plugins.harness import build, pod_info
from tests.plugins.sigs._cases import load
from tests.plugins.sigs._nodes import pod_state_env


@pytest.mark.parametrize("case", load(__file__, "pod_capacity_of_node", "PodCapacityOfNode"))
def test_score(case: dict) -> None:
    snapshot, handle = pod_state_env(case["nodes"], pod_capacity=case["capacity"])
    plugin = PodCapacityOfNode(None, handle)
    pod = pod_info({"metadata": {"name": "p"}})
    scores = []
    for name, *_ in case["nodes"]:
        value, status = plugin.score(CycleState(), pod, snapshot.get(name))
        assert status is None
        scores.append(NodeScore(name, value))
    assert {s.name: s.score for s in scores} == case["raw"]
    plugin.normalize_score(CycleState(), pod, scores)
    assert {s.name: s.score for s in scores} == case["want"]


def test_node_without_pod_capacity_is_an_error_not_a_crash() -> None:
    env = build([{"metadata": {"name": "n1"}}])
    value, status = PodCapacityOfNode(None, env.handle).score(CycleState(), pod_info({}), env.node_infos[0])
    assert value == 0 and status.code == Code.Error
    assert status.reasons == ['node "n1" has no pod capacity (status.capacity.pods)']
