"""LoadVariationRiskBalancing: upstream's TestScore and analysis (computeScore) tables."""

from __future__ import annotations

import pytest

from kschedctl.k8s.gomath import go_round
from kschedctl.plugins.sigs.load_variation_risk_balancing import LoadVariationRiskBalancing, compute_score
from kschedctl.plugins.sigs.trimaran import ResourceStats
from tests.plugins.harness import run_scores
from tests.plugins.sigs._cases import load
from tests.plugins.sigs._trimaran import environment


@pytest.mark.parametrize("case", load(__file__, "trimaran", "LoadVariationRiskBalancing", "loadVariationRiskBalancing"))
def test_score(case: dict) -> None:
    env, pod = environment(case)
    plugin = LoadVariationRiskBalancing({"safeVarianceMargin": 1, "safeVarianceSensitivity": 1}, env.handle)
    raw, normalized = run_scores(plugin, pod, env)
    assert raw == case["want"] and normalized == case["want"]


@pytest.mark.parametrize("case", load(__file__, "trimaran", "LoadVariationRiskBalancing", "computeScore"))
def test_compute_score(case: dict) -> None:
    rs = ResourceStats(used_avg=case["usedAvg"], used_stdev=case["usedStdev"], req=case["req"],
                       capacity=case["capacity"])
    assert go_round(compute_score(rs, case["margin"], case["sensitivity"])) == case["want"]


def test_negative_args_mean_the_defaults() -> None:
    plugin = LoadVariationRiskBalancing({"safeVarianceMargin": -2, "safeVarianceSensitivity": -1}, None)
    assert (plugin.margin, plugin.sensitivity) == (1.0, 1.0)
