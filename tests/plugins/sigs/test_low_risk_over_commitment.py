"""LowRiskOverCommitment: upstream's Score and computeRisk tables, and beta_test.go."""

from __future__ import annotations

import math

import pytest

from kschedctl.inputs.metrics import CPU, MEMORY, parse_metrics
from kschedctl.plugins.sigs.beta_distribution import (
    BetaDistribution,
    compute_probability,
    get_max_variance,
    regularized_incomplete,
)
from kschedctl.plugins.sigs.low_risk_over_commitment import LowRiskOverCommitment
from kschedctl.plugins.sigs.trimaran import CpuMemory, NodeRequestsAndLimits
from tests.plugins.harness import run_scores
from tests.plugins.sigs._cases import load
from tests.plugins.sigs._trimaran import environment

TOLERANCE = 1e-6


@pytest.mark.parametrize("case", load(__file__, "trimaran", "LowRiskOverCommitment", "lowRiskOverCommitment"))
def test_score(case: dict) -> None:
    env, pod = environment(case)
    plugin = LowRiskOverCommitment(case.get("args"), env.handle)
    raw, normalized = run_scores(plugin, pod, env)
    assert raw == case["want"] and normalized == case["want"]


@pytest.mark.parametrize("case", load(__file__, "trimaran", "LowRiskOverCommitment", "computeRisk"))
def test_compute_risk(case: dict) -> None:
    import yaml
    from pathlib import Path

    totals = yaml.safe_load((Path(__file__).parent / "cases" / "trimaran.yaml").read_text())["totals"][case["totals"]]
    nrla = NodeRequestsAndLimits(*(CpuMemory(*totals[k]) for k in (
        "request", "limit", "requestMinusPod", "limitMinusPod", "capacity")))
    node = {"metadata": {"name": "node-A"}, "status": {"allocatable": {"cpu": "4000m", "memory": "4Ki"}}}
    metrics = parse_metrics({"data": {"NodeMetricsMap": {"node-A": {"metrics": [
        {"type": CPU, "operator": "AVG", "value": 80}, {"type": CPU, "operator": "STD", "value": 0},
        {"type": MEMORY, "operator": "AVG", "value": 25}, {"type": MEMORY, "operator": "STD", "value": 0}]}}}})
    plugin = LowRiskOverCommitment({"smoothingWindowSize": 5, "riskLimitWeights": {"cpu": 0.5, "memory": 0.5}}, None)
    metric_type = CPU if case["resource"] == "cpu" else MEMORY
    got = plugin.compute_risk(metrics.node_metrics("node-A"), case["resource"], metric_type, node, nrla)
    assert got == case["want"]


def test_args_defaulting() -> None:
    plugin = LowRiskOverCommitment({"smoothingWindowSize": 0, "riskLimitWeights": {"cpu": 2, "memory": 0.2}}, None)
    assert plugin.smoothing_window_size == 5
    assert plugin.risk_limit_weights == {"cpu": 0.5, "memory": 0.2}
    assert LowRiskOverCommitment({"riskLimitWeights": {}}, None).risk_limit_weights == {"cpu": 0.5, "memory": 0.5}


# --- beta_test.go -------------------------------------------------------------------------------


@pytest.mark.parametrize(("alpha", "beta", "moments"), [
    (1, 1, (0.5, 1.0 / 3.0, 0.25)),
    (1, 2, (1.0 / 3.0, 1.0 / 6.0, 0.1)),
    (3, 1, (0.75, 0.6, 0.5)),
    (-1, 1, None),
    (1, -1, None),
])
def test_new_beta_distribution(alpha: float, beta: float, moments: tuple | None) -> None:
    b = BetaDistribution.new(alpha, beta)
    if moments is None:
        assert b is None
    else:
        assert b is not None and (b.first_moment, b.second_moment, b.third_moment) == pytest.approx(moments, abs=1e-15)


def test_match_moments() -> None:
    b = BetaDistribution(1, 1, True, 0.5, 1.0 / 3.0, 0.25)
    assert b.match_moments(0.5, 1.0 / 3.0) is True
    assert BetaDistribution().match_moments(0, 0) is False


@pytest.mark.parametrize(("alpha", "beta", "valid", "x", "pdf", "cdf"), [
    (2, 2, True, 0.5, 1.5, 0.5),
    (2, 2, True, 0.0, None, 0.0),
    (2, 2, True, 1.0, None, 1.0),
    (-1, 1, False, 0.5, 0.0, 0.0),
])
def test_density_and_distribution(alpha: float, beta: float, valid: bool, x: float, pdf: float | None,
                                  cdf: float) -> None:
    b = BetaDistribution(alpha, beta, valid)
    if pdf is not None:
        assert abs(b.density_function(x) - pdf) < TOLERANCE
    assert abs(b.distribution_function(x) - cdf) < TOLERANCE


@pytest.mark.parametrize(("m1", "want"), [(0, 0), (1, 0), (0.5, 0.25), (-1, 0)])
def test_get_max_variance(m1: float, want: float) -> None:
    assert abs(get_max_variance(m1) - want) < TOLERANCE


def test_print() -> None:
    b = BetaDistribution(3, 1, True, 0.75, 0.6, 0.5)
    assert b.print() == ("BetaDistribution: alpha = 3.000000; beta = 1.000000; mean = 0.750000; var = 0.037500; "
                         "m1 = 0.750000; m2 = 0.600000; m3 = 0.500000; ")


@pytest.mark.parametrize(("x", "a", "b", "want"), [
    # Closed forms: I_x(1, 1) = x, I_x(2, 2) = 3x^2 - 2x^3, I_x(1/2, 1/2) = (2/pi) asin(sqrt x),
    # I_x(a, 1) = x^a, I_x(1, b) = 1 - (1 - x)^b.
    (0.3, 1, 1, 0.3),
    (0.6, 2, 2, 3 * 0.36 - 2 * 0.216),
    (0.9, 0.5, 0.5, 2 / math.pi * math.asin(math.sqrt(0.9))),
    (0.2, 0.5, 0.5, 2 / math.pi * math.asin(math.sqrt(0.2))),
    (0.7, 3.5, 1, 0.7 ** 3.5),
    (0.05, 1, 40, 1 - 0.95 ** 40),
    (0.999, 200, 1, 0.999 ** 200),
])
def test_regularized_incomplete_beta(x: float, a: float, b: float, want: float) -> None:
    assert regularized_incomplete(x, a, b) == pytest.approx(want, rel=1e-12, abs=1e-14)


def test_compute_probability_edges() -> None:
    assert compute_probability(0, 0.1, 0.5) == (1.0, None)
    assert compute_probability(0.4, 0, 0.5) == (1.0, None)
    assert compute_probability(0.6, 0, 0.5) == (0.0, None)
    assert compute_probability(0.5, 0.6, 0.5) == (0.0, None)  # variance too large for a Beta
    p, dist = compute_probability(0.5, math.sqrt(0.05), 0.3)
    assert dist is not None and p == pytest.approx(0.216, rel=1e-12)
