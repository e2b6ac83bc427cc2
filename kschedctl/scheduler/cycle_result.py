"""One recorded scheduling cycle -> its ``ExplainResult``: per node the filter verdicts, the raw,
normalized and weighted scores and the rank; the stages; the preemption. explain and simulate's
drill-down cycles (``decisions``) both build their results here, so the core knows how to
describe a cycle without the analyses built on it.
"""

from __future__ import annotations

from typing import Any

from kschedctl.framework.runtime import Framework
from kschedctl.framework.snapshot import Snapshot
from kschedctl.scheduler.result import (
    ExplainResult,
    FilterResult,
    NodeResult,
    Preemption,
    ScoreResult,
    StageResult,
)
from kschedctl.scheduler.schedule_one import CycleOutcome

__all__ = ["build_result"]


def build_result(
    out: CycleOutcome, fwk: Framework, snapshot: Snapshot, seed: int | None = None, all_filters: bool = False
) -> ExplainResult:
    """The ``ExplainResult`` of one recorded cycle."""
    trace = out.trace
    assert trace is not None
    all_nodes = snapshot.node_infos()
    start = out.start_index % len(all_nodes) if all_nodes else 0
    order = all_nodes[start:] + all_nodes[:start]

    filter_names = fwk.plugin_names("filter")

    score_index = {name: i for i, name in enumerate(trace.scored_nodes)}
    raw, normalized, weights = trace.raw_scores, trace.normalized_scores, out.weights
    score_plugins = trace.score_plugins
    totals: dict[str, int] = {}
    if out.node_scores:
        totals = {ns.name: ns.total_score for ns in out.node_scores}
    ranks = _ranks(totals)
    tied = set(out.tied_nodes) if len(out.tied_nodes) > 1 else set()
    feasible = set(out.feasible)
    excluded = set(out.excluded_by_prefilter)
    exclusion_plugins = ",".join(sorted(_exclusion_plugins(trace))) or "PreFilter"

    nodes: list[NodeResult] = []
    for node_info in order:
        name = node_info.name
        record = trace.filters.get(name)
        evaluated = record is not None or (not fwk.has_filter_plugins() and name in feasible)
        result = NodeResult(name, evaluated, name in feasible)
        if record is not None:
            result.filters = [FilterResult(p, s) for p, s in record]
        elif name in excluded:
            result.filters = [FilterResult(exclusion_plugins, out.prefilter_exclusion)]
        elif out.prefilter_rejection is not None:
            result.filters = [FilterResult(out.prefilter_rejection.plugin or "PreFilter", out.prefilter_rejection)]
        i = score_index.get(name)
        if i is not None:
            result.scores = [
                ScoreResult(p, raw[p][i], normalized.get(p, raw[p])[i], weights.get(p, 1),
                            normalized.get(p, raw[p])[i] * weights.get(p, 1))
                for p in score_plugins if p in raw and raw[p][i] is not None  # None: an extender skipped it
            ]
        result.total_score = totals.get(name)
        result.rank = ranks.get(name)
        result.tied = name in tied
        result.nominated_pods_considered = name in trace.nominated_nodes
        nodes.append(result)

    stages = [StageResult(s.point, s.plugin, s.status, s.extra) for s in trace.stages]
    preemption = None
    if out.preemption is not None and out.preemption.nominated_node_name:
        candidates = next(
            (list(s.status.details["candidates"]) for s in reversed(trace.stages)
             if s.point == "PostFilter" and s.status is not None and (s.status.details or {}).get("candidates")),
            [],
        )
        preemption = Preemption(out.preemption.nominated_node_name, list(out.preemption.victims), candidates)
    pod_info = out.pod_info
    return ExplainResult(
        pod=pod_info.key,
        profile=out.profile,
        outcome=out.outcome,
        selected_node=out.selected_node,
        message=out.message,
        evaluated_nodes=out.evaluated_nodes,
        feasible_nodes=out.feasible_nodes,
        stages=stages,
        nodes=nodes,
        preemption=preemption,
        tied_nodes=list(out.tied_nodes) if len(out.tied_nodes) > 1 else [],
        num_nodes_to_find=out.num_nodes_to_find,
        scoring_skipped_upstream=out.scoring_skipped_upstream,
        provisional_node=out.provisional_node,
        seed=seed,
        all_filters=all_filters,
        score_plugins=fwk.plugin_names("score"),
        filter_plugins=filter_names,
        extenders=list(out.extenders),
        warnings=list(out.warnings),
        spec_node_name=pod_info.node_name,
    )


def _ranks(totals: dict[str, int]) -> dict[str, int]:
    """Competition ranking by total score (1 = best; equal totals share a rank)."""
    ordered = sorted(totals.items(), key=lambda kv: -kv[1])
    ranks: dict[str, int] = {}
    previous = None
    rank = 0
    for i, (name, total) in enumerate(ordered, start=1):
        if total != previous:
            rank, previous = i, total
        ranks[name] = rank
    return ranks


def _exclusion_plugins(trace: Any) -> list[str]:
    return [s.plugin for s in trace.stages if s.point == "PreFilter" and s.extra and "nodes" in s.extra]
