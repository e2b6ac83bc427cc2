"""Measured node load for the Trimaran plugins: the load watcher's JSON (``--metrics FILE``).

The Trimaran plugins of scheduler-plugins (TargetLoadPacking, LoadVariationRiskBalancing,
LowRiskOverCommitment) score on what github.com/paypal/load-watcher reports at its
``/watcher`` endpoint (its ``WatcherMetrics`` type)::

    {"timestamp": 1700000000,
     "window": {"duration": "15m", "start": 1699999100, "end": 1700000000},
     "source": "Prometheus",
     "data": {"NodeMetricsMap": {
         "node-a": {"metrics": [{"name": "instance:node_cpu:ratio", "type": "CPU",
                                 "operator": "AVG", "value": 43.5},
                                {"type": "CPU", "operator": "STD", "value": 8.2},
                                {"type": "Memory", "operator": "AVG", "value": 61}]}}}}

``value`` is a percentage of the node's capacity; ``type`` is ``CPU`` or ``Memory``;
``operator`` is ``AVG``, ``STD``, ``Latest`` (or empty). Save the watcher's answer
(``curl http://load-watcher/watcher > metrics.json``) and give it to kschedctl. As Go's
``encoding/json`` does, keys match case-insensitively and unknown keys are ignored; a field of
the wrong type is an error naming the file and line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from kschedctl.errors import InputError
from kschedctl.inputs.loader import load_values

__all__ = ["CPU", "MEMORY", "AVERAGE", "STD", "LATEST", "Metric", "WatcherMetrics", "load_metrics",
           "parse_metrics"]

#: load-watcher's metric types and operators, as it spells them.
CPU = "CPU"
MEMORY = "Memory"
AVERAGE = "AVG"
STD = "STD"
LATEST = "Latest"


@dataclass(frozen=True)
class Metric:
    """One measurement of a node (load-watcher ``Metric``); ``value`` in percent."""

    type: str
    operator: str
    value: float
    name: str = ""
    rollup: str = ""


@dataclass
class WatcherMetrics:
    """What the load watcher last reported (load-watcher ``WatcherMetrics``)."""

    timestamp: int = 0
    window_duration: str = ""
    window_start: int = 0
    window_end: int = 0
    source: str = ""
    #: node name -> its metrics; None when the answer had no ``NodeMetricsMap`` at all.
    nodes: dict[str, list[Metric]] | None = field(default=None)
    #: Where it was read from, for messages.
    origin: str = ""

    def node_metrics(self, node_name: str) -> list[Metric] | None:
        """The node's metrics (upstream ``GetNodeMetrics``): None when there are none for it."""
        if self.nodes is None:
            return None
        return self.nodes.get(node_name)


def load_metrics(path: str) -> WatcherMetrics:
    """The load watcher's answer saved in ``path`` (JSON or YAML)."""
    values = load_values(path)
    if len(values) != 1:
        raise InputError(f"expected one load-watcher answer (a JSON object), found {len(values)} documents", path)
    value, line = values[0]
    try:
        return parse_metrics(value, origin=path)
    except InputError as exc:
        raise InputError(str(exc), path, line) from None


def parse_metrics(obj: Any, origin: str = "") -> WatcherMetrics:
    """A ``WatcherMetrics`` from its decoded JSON (keys case-insensitive, as Go decodes them)."""
    top = _object(obj, "")
    if "kind" in top or "apiversion" in top:
        raise InputError(f"a Kubernetes object (kind {top.get('kind')!r}), not the load watcher's answer "
                         "(timestamp, window, source, data.NodeMetricsMap)")
    if not top.keys() & {"timestamp", "window", "source", "data"}:
        raise InputError("none of the load watcher's fields (timestamp, window, source, data.NodeMetricsMap)")
    out = WatcherMetrics(origin=origin)
    out.timestamp = _int(top.get("timestamp"), "timestamp")
    window = _object(top.get("window"), "window")
    out.window_duration = _str(window.get("duration"), "window.duration")
    out.window_start = _int(window.get("start"), "window.start")
    out.window_end = _int(window.get("end"), "window.end")
    out.source = _str(top.get("source"), "source")
    data = _object(top.get("data"), "data")
    raw_nodes = data.get("nodemetricsmap")
    if raw_nodes is None:
        return out
    nodes = _object(raw_nodes, "data.NodeMetricsMap", keep_case=True)
    out.nodes = {}
    for name, raw in nodes.items():
        where = f"data.NodeMetricsMap[{name}]"
        node = _object(raw, where)
        raw_metrics = node.get("metrics")
        if raw_metrics is None:
            out.nodes[name] = []
            continue
        if not isinstance(raw_metrics, list):
            raise InputError(f"{where}.metrics: must be a list, not {_kind(raw_metrics)}")
        metrics = []
        for i, m in enumerate(raw_metrics):
            mw = f"{where}.metrics[{i}]"
            entry = _object(m, mw)
            metrics.append(Metric(
                type=_str(entry.get("type"), mw + ".type"),
                operator=_str(entry.get("operator"), mw + ".operator"),
                value=_float(entry.get("value"), mw + ".value"),
                name=_str(entry.get("name"), mw + ".name"),
                rollup=_str(entry.get("rollup"), mw + ".rollup"),
            ))
        out.nodes[name] = metrics
    return out


def _object(value: Any, where: str, keep_case: bool = False) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError(f"{where or 'the document'}: must be an object, not {_kind(value)}")
    if keep_case:
        return value
    # Go matches struct fields case-insensitively; the last of two spellings wins, as there.
    return {str(k).lower(): v for k, v in value.items()}


def _int(value: Any, where: str) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{where}: must be an integer (seconds since the epoch), not {value!r}")
    if not -(2**63) <= value < 2**63:
        raise InputError(f"{where}: {value} does not fit in 64 bits")
    return value


def _float(value: Any, where: str) -> float:
    if value is None:
        return 0.0
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{where}: must be a number (percent), not {value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise InputError(f"{where}: must be a finite number, not {value!r}")
    return number


def _str(value: Any, where: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InputError(f"{where}: must be a string, not {value!r}")
    return value


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(type(value), type(value).__name__)
