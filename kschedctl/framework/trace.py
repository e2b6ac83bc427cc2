"""The record of a scheduling cycle: every plugin call (extension point, plugin, node, status) and
the scores, kept as small tuples that the reports read. The runtime records; plugins never do."""

from __future__ import annotations

from dataclasses import dataclass, field

from kschedctl.framework.status import Status


@dataclass
class StageRecord:
    """One pod-level plugin call (or a framework-level verdict when ``plugin`` is empty)."""

    point: str  # upstream spelling: "PreFilter", "Permit", ...
    plugin: str
    status: Status | None
    extra: dict | None = None  # e.g. {"nodes": [...]} for a PreFilterResult, {"timeout": 10.0} for Wait


@dataclass
class Trace:
    """Everything one scheduling cycle did, recorded as it happened.

    ``filters[node]`` holds ``(plugin, status)`` of the filter plugins that ran on that node
    (status None = Success); ``scores`` holds, per score plugin, the raw and normalized score of
    every scored node (lists aligned with ``scored_nodes``).
    """

    stages: list[StageRecord] = field(default_factory=list)
    filters: dict[str, list[tuple[str, Status | None]]] = field(default_factory=dict)
    nominated_nodes: set[str] = field(default_factory=set)
    scored_nodes: list[str] = field(default_factory=list)
    score_plugins: list[str] = field(default_factory=list)
    raw_scores: dict[str, list[int]] = field(default_factory=dict)
    normalized_scores: dict[str, list[int]] = field(default_factory=dict)
    score_error: Status | None = None
    #: Whether ``scored_nodes``, ``score_plugins``, ``raw_scores`` and ``normalized_scores`` are
    #: recorded: simulate records them only for a cycle it shows (a report's drill-down).
    keep_scores: bool = True
    #: What plugins said the user should know about this cycle (``handle.warn``), once each.
    warnings: list[str] = field(default_factory=list)

    def stage(self, point: str, plugin: str, status: Status | None, extra: dict | None = None) -> None:
        self.stages.append(StageRecord(point, plugin, status, extra))


@dataclass
class NodePluginScores:
    """A node's weighted score per plugin and their sum (upstream ``NodePluginScores``)."""

    name: str
    scores: list[tuple[str, int]]
    total_score: int


# ---------------------------------------------------------------------------------------------
# Handle
# ---------------------------------------------------------------------------------------------
