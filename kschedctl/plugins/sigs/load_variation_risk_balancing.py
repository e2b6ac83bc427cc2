"""LoadVariationRiskBalancing: prefer nodes whose measured load is low and steady.

Port of kubernetes-sigs/scheduler-plugins v0.34.7 ``pkg/trimaran/loadvariationriskbalancing/``
(``loadvariationriskbalancing.go``, ``analysis.go``): a Score plugin; its NormalizeScore does
nothing.

For CPU and for memory, from the load watcher's average (``AVG``, else ``Latest``) and standard
deviation (``STD``) in percent of the node's allocatable: ``mu`` = (average use + the pod's
effective request) / allocatable and ``sigma`` = deviation / allocatable, both clamped to
[0, 1]; ``sigma`` is raised to ``1/safeVarianceSensitivity`` (when that is not negative),
multiplied by ``safeVarianceMargin`` and clamped; the resource's score is
``(1 - (mu + sigma) / 2) * 100``. The node's score is the smaller of the two when the metrics
have both resources, else the one it has (0 with neither), rounded as Go's ``math.Round``.
A node without metrics scores 0.

Args (``LoadVariationRiskBalancingArgs``): ``safeVarianceMargin`` (1; negative means 1),
``safeVarianceSensitivity`` (1; negative means 1), and the Trimaran spec.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from kschedctl.framework.interfaces import MAX_NODE_SCORE, Plugin
from kschedctl.framework.status import Status
from kschedctl.inputs.metrics import CPU, MEMORY
from kschedctl.k8s.gomath import go_max, go_min, go_round
from kschedctl.plugins.loader import given_args, validated, with_defaults
from kschedctl.plugins.sigs.trimaran import (
    TRIMARAN_SPEC_SCHEMA,
    ResourceStats,
    check_specs,
    create_resource_stats,
    effective_resource,
    get_mu_sigma,
    node_metrics,
)
from kschedctl.plugins.facts import PluginFacts

NAME = "LoadVariationRiskBalancing"

DEFAULT_SAFE_VARIANCE_MARGIN = 1.0
DEFAULT_SAFE_VARIANCE_SENSITIVITY = 1.0


class LoadVariationRiskBalancing(Plugin):
    """Score: 100 minus the risk (mean plus deviation) of the node's measured load, in percent."""

    name = NAME
    default_args: ClassVar[dict[str, Any]] = {
        "safeVarianceMargin": DEFAULT_SAFE_VARIANCE_MARGIN,
        "safeVarianceSensitivity": DEFAULT_SAFE_VARIANCE_SENSITIVITY,
    }
    # Upstream decodes args strictly: unknown fields are errors.
    args_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            **TRIMARAN_SPEC_SCHEMA,
            "safeVarianceMargin": {"type": "number"},
            "safeVarianceSensitivity": {"type": "number"},
        },
    }

    def __init__(self, args: dict | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        merged = with_defaults(self.default_args, given_args(args))
        validated(self, merged)
        margin = float(merged["safeVarianceMargin"])
        sensitivity = float(merged["safeVarianceSensitivity"])
        self.margin = DEFAULT_SAFE_VARIANCE_MARGIN if margin < 0 else margin
        self.sensitivity = DEFAULT_SAFE_VARIANCE_SENSITIVITY if sensitivity < 0 else sensitivity

    @staticmethod
    def validate_args(args: dict) -> list[tuple[str, str, str]]:
        """What upstream's New refuses: an unknown metric provider type without a watcher."""
        return check_specs(args)

    def score(self, state: Any, pod_info: Any, node_info: Any) -> tuple[int, Status | None]:
        metrics, _ = node_metrics(self, node_info.name)
        if metrics is None:
            return 0, None
        request = effective_resource(pod_info.pod, "requests")
        node = node_info.node or {}
        cpu_score = memory_score = 0.0
        cpu = create_resource_stats(metrics, node, request.milli_cpu, request.memory, "cpu", CPU)
        if cpu is not None:
            cpu_score = compute_score(cpu, self.margin, self.sensitivity)
        memory = create_resource_stats(metrics, node, request.milli_cpu, request.memory, "memory", MEMORY)
        if memory is not None:
            memory_score = compute_score(memory, self.margin, self.sensitivity)
        if cpu is not None and memory is not None:
            total = go_min(memory_score, cpu_score)
        else:
            total = go_max(memory_score, cpu_score)
        return go_round(total), Status()

    def normalize_score(self, state: Any, pod_info: Any, scores: Any) -> Status | None:
        return None


def compute_score(rs: ResourceStats, margin: float, sensitivity: float) -> float:
    """Upstream computeScore: ``(1 - (mu + sigma') / 2) * MaxNodeScore`` (0 without capacity)."""
    if rs.capacity <= 0:
        return 0.0
    rs.req = go_max(rs.req, 0.0)
    rs.used_avg = go_max(go_min(rs.used_avg, rs.capacity), 0.0)
    rs.used_stdev = go_max(go_min(rs.used_stdev, rs.capacity), 0.0)
    mu, sigma = get_mu_sigma(rs)
    if sensitivity >= 0:
        sigma = _go_pow(sigma, 1 / sensitivity if sensitivity != 0 else math.inf)
    sigma *= margin
    sigma = go_max(go_min(sigma, 1.0), 0.0)
    risk = (mu + sigma) / 2
    return (1.0 - risk) * float(MAX_NODE_SCORE)


def _go_pow(x: float, y: float) -> float:
    """Go's math.Pow for a base in [0, 1] (Python raises on 0 ** negative)."""
    if x == 0 and y < 0:
        return math.inf
    return math.pow(x, y)


# -- facts --------------------------------------------------------------------------------------

FACTS = PluginFacts(
    name=LoadVariationRiskBalancing.name,
    points=("score",),
    # No events: scheduler-plugins' EventsToRegister is not modelled, so the queue asks it about every
    # event (a pod it rejected is retried after any change, never fewer times than upstream would).
)
