"""The Beta distribution LowRiskOverCommitment fits to a node's measured load.

Port of kubernetes-sigs/scheduler-plugins v0.34.7 ``pkg/trimaran/lowriskovercommitment/beta.go``.
Upstream takes the complete and regularized incomplete Beta functions from gonum
(``mathext.Beta``, ``mathext.RegIncBeta``); here they are computed with ``math.lgamma`` and a
continued fraction (modified Lentz), which agree with gonum's to about 1e-13. A score could
differ by one only if its value fell that close to a half.
"""

from __future__ import annotations

import math

__all__ = ["BetaDistribution", "compute_probability", "get_max_variance", "regularized_incomplete", "complete"]

#: Go's math.SmallestNonzeroFloat64.
_SMALLEST_NONZERO = 5e-324


class BetaDistribution:
    """Beta(alpha, beta) with its first three raw moments (upstream ``BetaDistribution``)."""

    __slots__ = ("alpha", "beta", "is_valid", "first_moment", "second_moment", "third_moment")

    def __init__(self, alpha: float = 0.0, beta: float = 0.0, is_valid: bool = False, first_moment: float = 0.0,
                 second_moment: float = 0.0, third_moment: float = 0.0) -> None:
        self.alpha, self.beta, self.is_valid = alpha, beta, is_valid
        self.first_moment, self.second_moment, self.third_moment = first_moment, second_moment, third_moment

    @classmethod
    def new(cls, alpha: float, beta: float) -> "BetaDistribution | None":
        """Upstream NewBetaDistribution: None unless both parameters are positive."""
        if not (alpha > 0 and beta > 0):
            return None
        b = cls(alpha, beta, True)
        b.compute_moments()
        return b

    def compute_moments(self) -> bool:
        if not self.is_valid:
            return False
        self.first_moment = self.alpha / (self.alpha + self.beta)
        self.second_moment = self.first_moment * (self.alpha + 1) / (self.alpha + self.beta + 1)
        self.third_moment = self.second_moment * (self.alpha + 2) / (self.alpha + self.beta + 2)
        return True

    def mean(self) -> float:
        return self.first_moment

    def variance(self) -> float:
        return self.second_moment - self.first_moment * self.first_moment

    def distribution_function(self, x: float) -> float:
        """P(X <= x); 0 where the incomplete Beta function is undefined."""
        p = regularized_incomplete(x, self.alpha, self.beta)
        if math.isnan(p) or p < 0 or p > 1:
            return 0.0
        return p

    def density_function(self, x: float) -> float:
        try:
            pdf = math.pow(x, self.alpha - 1.0) * math.pow(1.0 - x, self.beta - 1.0) / complete(self.alpha, self.beta)
        except (ValueError, ZeroDivisionError, OverflowError):
            return 0.0
        if math.isnan(pdf) or pdf < 0:
            return 0.0
        return pdf

    def match_moments(self, m1: float, m2: float) -> bool:
        """Fit alpha and beta to a mean and a second moment (upstream MatchMoments)."""
        variance = m2 - m1 * m1
        if m1 < 0 or m1 > 1 or variance < 0 or variance >= m1 * (1 - m1):
            return False
        temp = max((m1 * (1 - m1) / variance) - 1, _SMALLEST_NONZERO)
        self.alpha = m1 * temp
        self.beta = (1 - m1) * temp
        return self.compute_moments()

    def print(self) -> str:
        """Upstream Print (for logs and tests)."""
        return (f"BetaDistribution: alpha = {self.alpha:f}; beta = {self.beta:f}; "
                f"mean = {self.mean():f}; var = {self.variance():f}; "
                f"m1 = {self.first_moment:f}; m2 = {self.second_moment:f}; m3 = {self.third_moment:f}; ")


def get_max_variance(m1: float) -> float:
    """The largest variance a distribution on [0, 1] with mean ``m1`` can have."""
    if 0 < m1 < 1:
        return m1 * (1 - m1)
    return 0.0


def complete(a: float, b: float) -> float:
    """The complete Beta function B(a, b)."""
    return math.exp(math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b))


def regularized_incomplete(x: float, a: float, b: float) -> float:
    """I_x(a, b); NaN outside a, b > 0 and 0 <= x <= 1."""
    if a <= 0 or b <= 0 or x < 0 or x > 1 or math.isnan(x):
        return math.nan
    if x == 0:
        return 0.0
    if x == 1:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log1p(-x))
    # The continued fraction converges fast below the mean; above it, use the symmetry.
    if x < (a + 1) / (a + b + 2):
        return math.exp(log_front) * _continued_fraction(x, a, b) / a
    return 1.0 - math.exp(log_front) * _continued_fraction(1.0 - x, b, a) / b


def _continued_fraction(x: float, a: float, b: float) -> float:
    tiny, eps = 1e-300, 1e-16
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = tiny if abs(d) < tiny else d
    d = 1.0 / d
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1.0 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1.0 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < eps:
            break
    return h


def compute_probability(mu: float, sigma: float, threshold: float) -> tuple[float, BetaDistribution | None]:
    """Upstream ComputeProbability: P(use <= threshold) under the Beta fitted to mu and sigma."""
    if mu == 0 or (sigma == 0 and mu <= threshold):
        return 1.0, None
    if sigma == 0 and mu > threshold:
        return 0.0, None
    dist = BetaDistribution.new(1, 1)
    assert dist is not None
    if not dist.match_moments(mu, sigma * sigma + mu * mu):
        return 0.0, None
    below = dist.distribution_function(threshold)
    if math.isnan(below):
        return 1.0, dist
    return below, dist
