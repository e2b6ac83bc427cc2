"""TargetLoadPacking: upstream's TestTargetLoadPackingScoring table and kschedctl's own cases."""

from __future__ import annotations

import pytest

from kschedctl.errors import InputError
from kschedctl.plugins.sigs.target_load_packing import TargetLoadPacking
from tests.plugins.harness import run_scores
from tests.plugins.sigs._cases import load
from tests.plugins.sigs._trimaran import environment


@pytest.mark.parametrize("case", load(__file__, "trimaran", "TargetLoadPacking", "targetLoadPacking"))
def test_score(case: dict) -> None:
    env, pod = environment(case)
    plugin = TargetLoadPacking({"watcherAddress": "http://deadbeef:2020", **(case.get("args") or {})}, env.handle)
    raw, normalized = run_scores(plugin, pod, env)
    assert raw == case["want"] and normalized == case["want"]


def test_missing_metrics_are_reported() -> None:
    env, pod = environment({"pod": {}, "metrics": "none"})
    run_scores(TargetLoadPacking(None, env.handle), pod, env)
    assert env.handle.warnings == ["TargetLoadPacking: the load metrics (<test>) have no NodeMetricsMap; every node "
                                   "scores 0, as upstream does when the load watcher has no data"]
    env.handle.cluster().metrics = None
    env.handle.warnings.clear()
    run_scores(TargetLoadPacking(None, env.handle), pod, env)
    assert "no load metrics were given (--metrics FILE)" in env.handle.warnings[0]


@pytest.mark.parametrize(("args", "message"), [
    ({"defaultRequestsMultiplier": "x"}, 'TargetLoadPacking args: defaultRequestsMultiplier: unable to parse '
                                         'DefaultRequestsMultiplier: strconv.ParseFloat: parsing "x": invalid syntax'),
    ({"metricProvider": {"type": "Graphite"}},
     "TargetLoadPacking args: metricProvider.type: invalid MetricProvider.Type, got Graphite"),
])
def test_invalid_args(args: dict, message: str) -> None:
    with pytest.raises(InputError) as err:
        TargetLoadPacking(args, None)
    assert str(err.value) == message


def test_defaults() -> None:
    plugin = TargetLoadPacking({"targetUtilization": 0}, None)
    assert (plugin.target_utilization, plugin.requests_milli_cores, plugin.requests_multiplier) == (40, 1000, 1.5)
    assert TargetLoadPacking({"metricProvider": {"type": "Graphite"}, "watcherAddress": "http://w"}, None)
