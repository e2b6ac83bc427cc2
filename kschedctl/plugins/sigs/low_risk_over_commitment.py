"""LowRiskOverCommitment: prefer nodes where over-committed limits and measured load risk least.

Port of kubernetes-sigs/scheduler-plugins v0.34.7
``pkg/trimaran/lowriskovercommitment/lowriskovercommitment.go`` (PreScore and Score; its
NormalizeScore does nothing).

- PreScore keeps the pod's effective requests and limits (limits raised to the requests).
- Score: a pod without CPU and memory requests or limits (BestEffort) scores 0 everywhere, as
  does a node without metrics. Otherwise, for CPU and for memory, with the node's requests and
  limits summed over its pods and the pod (requests capped at the allocatable):
  - ``riskLimit`` = (limits - allocatable) / (limits - requests) when limits exceed the
    allocatable, else 0;
  - ``riskLoad`` = 1 - P(use <= the other pods' requests), with the use a Beta distribution
    fitted to the measured mean and the deviation times sqrt(``smoothingWindowSize``)
    (capped at a variance of 0.99 times the largest possible), the probability divided by
    P(use <= the other pods' limits) when those fit in the node;
  - the risk is ``w * riskLimit + (1 - w) * riskLoad`` (``w`` from ``riskLimitWeights``).
  The score is ``(1 - max(CPU risk, memory risk)) * 100``, rounded as Go's ``math.Round``.

Args (``LowRiskOverCommitmentArgs``): ``smoothingWindowSize`` (5; 0 or less means 5),
``riskLimitWeights`` (``cpu: 0.5, memory: 0.5``; a weight outside [0, 1] means 0.5), and the
Trimaran spec. See ``beta_distribution`` for the numerics.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from kschedctl.framework.interfaces import MAX_NODE_SCORE, Plugin
from kschedctl.framework.status import Status
from kschedctl.inputs.metrics import CPU, MEMORY, Metric
from kschedctl.k8s.gomath import go_max, go_min, go_round
from kschedctl.plugins.loader import given_args, validated, with_defaults
from kschedctl.plugins.sigs.beta_distribution import compute_probability, get_max_variance
from kschedctl.plugins.sigs.trimaran import (
    TRIMARAN_SPEC_SCHEMA,
    CpuMemory,
    NodeRequestsAndLimits,
    check_specs,
    create_resource_stats,
    get_mu_sigma,
    node_metrics,
    node_requests_and_limits,
    requests_and_limits,
)
from kschedctl.plugins.facts import PluginFacts

NAME = "LowRiskOverCommitment"
#: Upstream MaxVarianceAllowance.
MAX_VARIANCE_ALLOWANCE = 0.99
#: CycleState key of the pod's requests and limits.
POD_RESOURCES_KEY = NAME + ".PodResources"

DEFAULT_SMOOTHING_WINDOW_SIZE = 5
DEFAULT_RISK_LIMIT_WEIGHT = 0.5


class PodResourcesStateData:
    """The pod's effective requests and limits, computed once per cycle (never changed after)."""

    __slots__ = ("pod_requests", "pod_limits")

    def __init__(self, pod_requests: CpuMemory, pod_limits: CpuMemory) -> None:
        self.pod_requests, self.pod_limits = pod_requests, pod_limits

    def clone(self) -> "PodResourcesStateData":
        return self


class LowRiskOverCommitment(Plugin):
    """PreScore + Score: 100 times one minus the node's risk of over-commitment."""

    name = NAME
    default_args: ClassVar[dict[str, Any]] = {
        "smoothingWindowSize": DEFAULT_SMOOTHING_WINDOW_SIZE,
        "riskLimitWeights": {"cpu": DEFAULT_RISK_LIMIT_WEIGHT, "memory": DEFAULT_RISK_LIMIT_WEIGHT},
    }
    # Upstream decodes args strictly: unknown fields are errors.
    args_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            **TRIMARAN_SPEC_SCHEMA,
            "smoothingWindowSize": {"type": "integer"},
            "riskLimitWeights": {"type": "object", "additionalProperties": {"type": "number"}},
        },
    }

    def __init__(self, args: dict | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        given = given_args(args)
        if not given.get("riskLimitWeights"):
            given.pop("riskLimitWeights", None)  # empty means the defaults, as upstream
        merged = with_defaults({"smoothingWindowSize": DEFAULT_SMOOTHING_WINDOW_SIZE}, given)
        validated(self, merged)
        window = merged.get("smoothingWindowSize")
        self.smoothing_window_size = window if isinstance(window, int) and window > 0 else DEFAULT_SMOOTHING_WINDOW_SIZE
        weights = {"cpu": DEFAULT_RISK_LIMIT_WEIGHT, "memory": DEFAULT_RISK_LIMIT_WEIGHT}
        given_weights = merged.get("riskLimitWeights")
        if given_weights:
            # Upstream defaulting: an out-of-range weight means the default; the defaults stay
            # for the resources not named.
            weights.update({r: (float(w) if 0 <= w <= 1 else DEFAULT_RISK_LIMIT_WEIGHT)
                            for r, w in given_weights.items()})
        self.risk_limit_weights = weights

    @staticmethod
    def validate_args(args: dict) -> list[tuple[str, str, str]]:
        """What upstream's New refuses: an unknown metric provider type without a watcher."""
        return check_specs(args)

    def pre_score(self, state: Any, pod_info: Any, nodes: Any) -> Status | None:
        state.write(POD_RESOURCES_KEY, PodResourcesStateData(*requests_and_limits(pod_info.pod)))
        return None

    def score(self, state: Any, pod_info: Any, node_info: Any) -> tuple[int, Status | None]:
        try:
            data = state.read(POD_RESOURCES_KEY)
        except KeyError:
            data = None
        if not isinstance(data, PodResourcesStateData):
            data = PodResourcesStateData(*requests_and_limits(pod_info.pod))  # upstream recalculates
        requests, limits = data.pod_requests, data.pod_limits
        if requests.milli_cpu == 0 and requests.memory == 0 and limits.milli_cpu == 0 and limits.memory == 0:
            return 0, None  # a BestEffort pod is not scored
        metrics, _ = node_metrics(self, node_info.name)
        if metrics is None:
            return 0, None
        totals = node_requests_and_limits(node_info.pods, node_info.node or {}, requests, limits)
        risk_cpu = self.compute_risk(metrics, "cpu", CPU, node_info.node or {}, totals)
        risk_memory = self.compute_risk(metrics, "memory", MEMORY, node_info.node or {}, totals)
        rank = 1 - go_max(risk_cpu, risk_memory)
        return go_round(rank * float(MAX_NODE_SCORE)), Status()

    def normalize_score(self, state: Any, pod_info: Any, scores: Any) -> Status | None:
        return None

    def compute_risk(self, metrics: list[Metric], resource_name: str, metric_type: str, node: dict,
                     totals: NodeRequestsAndLimits) -> float:
        """Upstream computeRisk: the weighted risk from limits and from measured load, in [0, 1]."""
        if resource_name == "cpu":
            pick = _milli_cpu
        elif resource_name == "memory":
            pick = _memory
        else:
            return 0.0
        request, limit = pick(totals.node_request), pick(totals.node_limit)
        request_minus_pod, limit_minus_pod = pick(totals.node_request_minus_pod), pick(totals.node_limit_minus_pod)
        capacity = pick(totals.node_capacity)
        risk_limit = risk_load = 0.0
        if limit > capacity:
            risk_limit = float(limit - capacity) / float(limit - request)
        stats = create_resource_stats(metrics, node, 0, 0, resource_name, metric_type)
        if stats is not None:
            mu, sigma = get_mu_sigma(stats)
            sigma *= math.pow(float(self.smoothing_window_size), 0.5)
            sigma = go_min(sigma, math.sqrt(get_max_variance(mu) * MAX_VARIANCE_ALLOWANCE))
            alloc_threshold = go_min(go_max(_go_div(float(request_minus_pod), float(capacity)), 0.0), 1.0)
            alloc_prob, fit = compute_probability(mu, sigma, alloc_threshold)
            if limit_minus_pod < capacity and request_minus_pod <= limit_minus_pod:
                limit_threshold = float(limit_minus_pod) / float(capacity)
                if limit_threshold == 0:
                    alloc_prob = 1.0  # zero over zero
                elif fit is not None:
                    limit_prob = fit.distribution_function(limit_threshold)
                    if limit_prob > 0:
                        alloc_prob = go_min(go_max(alloc_prob / limit_prob, 0.0), 1.0)
            risk_load = 1 - alloc_prob
        w = self.risk_limit_weights.get(resource_name, 0.0)
        return go_min(go_max(w * risk_limit + (1 - w) * risk_load, 0.0), 1.0)


def _milli_cpu(r: CpuMemory) -> int:
    return r.milli_cpu


def _memory(r: CpuMemory) -> int:
    return r.memory


def _go_div(a: float, b: float) -> float:
    """Go's float division: a zero divisor gives an infinity or NaN instead of raising."""
    if b == 0:
        return math.nan if a == 0 or a != a else math.copysign(math.inf, a)
    return a / b


# -- facts --------------------------------------------------------------------------------------

FACTS = PluginFacts(
    name=LowRiskOverCommitment.name,
    points=("preScore", "score"),
    # No events: scheduler-plugins' EventsToRegister is not modelled, so the queue asks it about every
    # event (a pod it rejected is retried after any change, never fewer times than upstream would).
)
