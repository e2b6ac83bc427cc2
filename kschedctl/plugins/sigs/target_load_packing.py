"""TargetLoadPacking: pack pods onto nodes until their measured CPU use reaches a target.

Port of kubernetes-sigs/scheduler-plugins v0.34.7
``pkg/trimaran/targetloadpacking/targetloadpacking.go`` (a Score plugin; its NormalizeScore does
nothing).

Score of a node, from its measured CPU use (the last ``CPU`` metric with operator ``AVG`` or
``Latest`` in the load watcher's answer, in percent of ``status.capacity.cpu``):

- the pod's predicted use: per container its CPU limit, else its CPU request times
  ``defaultRequestsMultiplier``, else ``defaultRequests.cpu``; plus the pod's CPU overhead;
- plus the predicted use of the node's recently assigned pods (see ``trimaran``);
- ``predicted`` = 100 * (measured + pod + recent) / capacity;
- up to ``targetUtilization`` the score rises linearly from ``targetUtilization`` (empty node)
  to 100 (at the target); above it, it falls linearly to 0 at 100% and is 0 beyond; Go's
  ``math.Round``.

A node without metrics, or without a CPU metric, scores 0. Args (``TargetLoadPackingArgs``):
``targetUtilization`` (40; 0 or less means 40), ``defaultRequests`` (``cpu: 1000m``),
``defaultRequestsMultiplier`` ("1.5", a string parsed as a Go float), and the Trimaran spec
(``metricProvider``, ``watcherAddress``; kschedctl reads no provider: give ``--metrics``).

Difference: upstream keeps the last three args in package variables shared by every instance
(the last profile built wins); kschedctl keeps them per plugin instance.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping

from kschedctl.framework.interfaces import Plugin
from kschedctl.framework.status import Status
from kschedctl.inputs.metrics import AVERAGE, CPU, LATEST
from kschedctl.k8s.gomath import go_round
from kschedctl.k8s.quantity import QuantityError, milli_value
from kschedctl.k8s.strconv import NumError, parse_float
from kschedctl.plugins.loader import given_args, validated, with_defaults
from kschedctl.plugins.sigs.trimaran import (
    TRIMARAN_SPEC_SCHEMA,
    check_specs,
    node_metrics,
    recently_assigned,
)
from kschedctl.plugins.facts import PluginFacts

NAME = "TargetLoadPacking"

DEFAULT_TARGET_UTILIZATION = 40
DEFAULT_REQUESTS_MILLI_CORES = 1000
DEFAULT_REQUESTS_MULTIPLIER = "1.5"


class TargetLoadPacking(Plugin):
    """Score: best fit around a target CPU utilization, on measured load."""

    name = NAME
    default_args: ClassVar[dict[str, Any]] = {
        "defaultRequests": {"cpu": f"{DEFAULT_REQUESTS_MILLI_CORES}m"},
        "defaultRequestsMultiplier": DEFAULT_REQUESTS_MULTIPLIER,
        "targetUtilization": DEFAULT_TARGET_UTILIZATION,
    }
    # Upstream decodes args strictly: unknown fields are errors.
    args_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            **TRIMARAN_SPEC_SCHEMA,
            "defaultRequests": {"type": "object", "additionalProperties": {"type": ["string", "number"]}},
            "defaultRequestsMultiplier": {"type": "string"},
            "targetUtilization": {"type": "integer"},
        },
    }

    def __init__(self, args: dict | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        merged = with_defaults(self.default_args, given_args(args))
        validated(self, merged)
        target = merged.get("targetUtilization")
        self.target_utilization = target if isinstance(target, int) and target > 0 else DEFAULT_TARGET_UTILIZATION
        self.requests_milli_cores = _milli_cpu(merged.get("defaultRequests"))
        self.requests_multiplier = parse_float(merged["defaultRequestsMultiplier"])

    @staticmethod
    def validate_args(args: dict) -> list[tuple[str, str, str]]:
        """What upstream's New refuses: the provider type, an unparsable multiplier."""
        out = check_specs(args)
        multiplier = args.get("defaultRequestsMultiplier", DEFAULT_REQUESTS_MULTIPLIER)
        if isinstance(multiplier, str):
            try:
                parse_float(multiplier)
            except NumError as e:
                out.append(("defaultRequestsMultiplier", "Invalid", f"unable to parse DefaultRequestsMultiplier: {e}"))
        try:
            _milli_cpu(args.get("defaultRequests"))
        except QuantityError as e:
            out.append(("defaultRequests.cpu", "Invalid", str(e)))
        return out

    def score(self, state: Any, pod_info: Any, node_info: Any) -> tuple[int, Status | None]:
        metrics, all_metrics = node_metrics(self, node_info.name)
        if metrics is None:
            return 0, None
        spec = pod_info.pod.get("spec") or {}
        pod_usage = sum(self.predict_utilisation(c) for c in spec.get("containers") or ())
        pod_usage += _overhead_milli_cpu(spec)
        util_percent, found = 0.0, False
        for m in metrics:
            if m.type == CPU and m.operator in (AVERAGE, LATEST):
                util_percent, found = m.value, True
        if not found:
            return 0, None
        node = node_info.node or {}
        raw_capacity = ((node.get("status") or {}).get("capacity") or {}).get("cpu")
        capacity = float(milli_value(raw_capacity)) if raw_capacity is not None else 0.0
        util_millis = (util_percent / 100) * capacity
        missing = 0
        for pi in recently_assigned(node_info.pods, all_metrics.window_end if all_metrics else 0):
            pod_spec = pi.pod.get("spec") or {}
            missing += sum(self.predict_utilisation(c) for c in pod_spec.get("containers") or ())
            missing += _overhead_milli_cpu(pod_spec)
        predicted = 0.0
        if capacity != 0:
            predicted = 100 * (util_millis + float(pod_usage) + float(missing)) / capacity
        target = float(self.target_utilization)
        if predicted > target:
            if predicted > 100:
                return 0, Status()
            return go_round(target * (100 - predicted) / (100 - target)), Status()
        return go_round((100 - target) * predicted / target + target), Status()

    def normalize_score(self, state: Any, pod_info: Any, scores: Any) -> Status | None:
        return None

    def predict_utilisation(self, container: Mapping[str, Any]) -> int:
        """Upstream PredictUtilisation: the container's CPU limit, else request x multiplier, else
        the default request (millicores)."""
        resources = container.get("resources") or {}
        limits = resources.get("limits") or {}
        if "cpu" in limits:
            return milli_value(limits["cpu"])
        requests = resources.get("requests") or {}
        if "cpu" in requests:
            return go_round(float(milli_value(requests["cpu"])) * self.requests_multiplier)
        return self.requests_milli_cores


def _milli_cpu(resources: Any) -> int:
    if not isinstance(resources, dict) or resources.get("cpu") is None:
        return 0  # upstream: an empty Quantity's MilliValue
    return milli_value(resources["cpu"])


def _overhead_milli_cpu(spec: Mapping[str, Any]) -> int:
    overhead = spec.get("overhead") or {}
    return milli_value(overhead["cpu"]) if overhead.get("cpu") is not None else 0


# -- facts --------------------------------------------------------------------------------------

FACTS = PluginFacts(
    name=TargetLoadPacking.name,
    points=("score",),
    # No events: scheduler-plugins' EventsToRegister is not modelled, so the queue asks it about every
    # event (a pod it rejected is retried after any change, never fewer times than upstream would).
)
