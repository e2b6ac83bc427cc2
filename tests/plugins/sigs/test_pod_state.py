"""PodState: upstream's TestPodState table."""

from __future__ import annotations

import pytest

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interfaces import NodeScore
from kschedctl.plugins.sigs.pod_state import PodState
from tests.plugins.harness import pod_info
from tests.plugins.sigs._cases import load
from tests.plugins.sigs._nodes import pod_state_env


@pytest.mark.parametrize("case", load(__file__, "pod_state", "PodState"))
def test_score(case: dict) -> None:
    snapshot, handle = pod_state_env(case["nodes"])
    plugin = PodState(None, handle)
    pod = pod_info({"metadata": {"name": "p"}})
    scores = []
    for name, *_ in case["nodes"]:
        value, status = plugin.score(CycleState(), pod, snapshot.get(name))
        assert status is None
        scores.append(NodeScore(name, value))
    assert plugin.normalize_score(CycleState(), pod, scores) is None
    assert {s.name: s.score for s in scores} == case["want"]
