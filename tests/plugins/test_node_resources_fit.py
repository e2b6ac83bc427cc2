"""NodeResourcesFit: Filter verdicts, reasons and details, and Score, from upstream's tables.

Cases: tests/plugins/cases/node_resources_fit.yaml (upstream fit_test.go).
"""

from __future__ import annotations

import pytest

from kschedctl.framework.cycle_state import CycleState
from kschedctl.plugins.node_resources_fit import NodeResourcesFit, fits
from tests.plugins.harness import build, expected_status, load_cases, pod_info, run_filters, status_dict
from tests.plugins.test_resource_allocation import existing_pods, make_node, make_pod, score_nodes

CASES = load_cases("node_resources_fit")


def _detail(expected: dict) -> dict:
    out = {"unresolvable": False}
    out.update(expected)
    return out


@pytest.mark.parametrize("case", CASES)
def test_node_resources_fit(case: dict) -> None:
    plugin = NodeResourcesFit(case.get("args"), None)
    if not case.get("filter"):
        scores, failures = score_nodes(plugin, case)
        assert failures == []
        assert scores == case["scores"]
        return

    node = make_node(case["node"])
    env = build([node], existing_pods(case, case["node"]["name"]))
    pod = pod_info(make_pod(case.get("pod"), "pod"))
    if case.get("pre_filter", True):
        status = run_filters(plugin, pod, env)[case["node"]["name"]]
    else:
        status = plugin.filter(CycleState(), pod, env.node_infos[0])
    assert status_dict(status) == expected_status(case.get("want"))

    if "insufficient" in case:
        want = [_detail(e) for e in case["insufficient"]]
        got = [] if status is None else (status.details or {}).get("insufficient", [])
        assert [{k: g[k] for k in w} for g, w in zip(got, want)] == want
        assert len(got) == len(want)
        # upstream Fits (no ignored resources) agrees when the case sets none
        if not case.get("args"):
            assert [r.as_detail() for r in fits(pod, env.node_infos[0])] == got


def test_details_stay_out_of_reasons() -> None:
    """The amounts go to Status.details with units; the reasons stay upstream's strings."""
    node = make_node({"name": "n", "allocatable": {"cpu": "4", "memory": "1Gi", "pods": "10"}})
    env = build([node], [make_pod({"containers": [{"cpu": "3800m", "memory": "512Mi"}]}, "old", "n")])
    pod = pod_info(make_pod({"containers": [{"cpu": "500m", "memory": "768Mi"}]}, "new"))
    status = run_filters(NodeResourcesFit(None, None), pod, env)["n"]
    assert status.reasons == ["Insufficient cpu", "Insufficient memory"]
    assert status.details == {
        "insufficient": [
            {"resource": "cpu", "requested": 500, "used": 3800, "capacity": 4000, "unit": "m", "unresolvable": False},
            {
                "resource": "memory",
                "requested": 768 * 2**20,
                "used": 512 * 2**20,
                "capacity": 2**30,
                "unit": "bytes",
                "unresolvable": False,
            },
        ]
    }
