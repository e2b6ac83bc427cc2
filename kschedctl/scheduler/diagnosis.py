"""Why a pod does not fit: upstream's ``FitError`` message, and summaries for large clusters.

``FitError``, ``Diagnosis`` and ``NodeToStatus`` live in ``kschedctl.framework.runtime`` (the
framework layer, like upstream's framework/types.go) because PostFilter plugins build them
too; they are re-exported here for the scheduler and the reports.
"""

from __future__ import annotations

from typing import Iterable

from kschedctl.framework.runtime import Diagnosis, FitError, NodeToStatus, go_list
from kschedctl.framework.status import Status

NO_NODE_AVAILABLE_MSG = "0/%d nodes are available"

__all__ = [
    "Diagnosis",
    "FitError",
    "NodeToStatus",
    "NO_NODE_AVAILABLE_MSG",
    "fit_error_message",
    "rejections_by_plugin",
    "go_list",
]


def fit_error_message(
    num_all_nodes: int,
    statuses: dict[str, Status] | None = None,
    absent: Status | None = None,
    pre_filter_msg: str = "",
    post_filter_msg: str = "",
) -> str:
    """``FitError.Error()`` for the given pieces (a convenience for tests and plugins)."""
    diagnosis = Diagnosis(NodeToStatus(dict(statuses or {}), absent), pre_filter_msg=pre_filter_msg,
                          post_filter_msg=post_filter_msg)
    return FitError(None, num_all_nodes, diagnosis).error()


def rejections_by_plugin(entries: Iterable[tuple[str, str, str]]) -> list[tuple[str, str, str, int]]:
    """Count ``(plugin, code, reason)`` triples: ``[(plugin, code, reason, nodes)]``, most first.

    What the table shows on large clusters instead of one row per node.
    """
    counts: dict[tuple[str, str, str], int] = {}
    for key in entries:
        counts[key] = counts.get(key, 0) + 1
    return sorted(((p, c, r, n) for (p, c, r), n in counts.items()), key=lambda t: (-t[3], t[0], t[2]))
