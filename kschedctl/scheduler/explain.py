"""``explain``: run pods through one scheduling cycle each and turn the trace into results.

``Explainer`` builds the snapshot (NodeInfos, image summaries) and each profile's framework
once, then explains any number of pods against that same, unchanged state: per-node facts
are computed once per snapshot, per-pod facts once per pod. ``explain()`` is the one-call
entry point.
"""

from __future__ import annotations

import gc
import random
from typing import Any, Iterable

from kschedctl.framework.runtime import Framework, FrameworkHandle, PodNominator
from kschedctl.framework.snapshot import Snapshot
from kschedctl.framework.types import PodInfo
from kschedctl.inputs.cluster import TERMINAL_PHASES, admit
from kschedctl.scheduler.result import (
    ExplainResult,
    FilterResult,
    NodeResult,
    Preemption,
    ScoreResult,
    StageResult,
)
from kschedctl.scheduler.remedies import attach_hints
from kschedctl.scheduler.schedule_one import CycleOutcome, Scheduler
from kschedctl.scheduler.setup import DEFAULT_SCHEDULER_NAME, SchedulingSetup, build_framework, load_default_config

__all__ = ["DEFAULT_SCHEDULER_NAME", "Explainer", "explain", "load_default_config"]


class Explainer(SchedulingSetup):
    """Explains pods against one cluster state and one configuration.

    ``registry`` defaults to the built-in one; ``seed`` makes the random tie-break reproducible;
    ``all_filters`` runs every filter on every node (the verdicts stay upstream's).
    """

    def __init__(
        self,
        cluster: Any,
        config: Any = None,
        registry: Any = None,
        seed: int | None = None,
        all_filters: bool = False,
        pod_infos: Iterable[PodInfo] | None = None,
        extenders: bool = True,
    ) -> None:
        super().__init__(cluster, config, registry, seed=seed, pod_infos=pod_infos, extenders=extenders)
        self.all_filters = all_filters
        profiles = set(self.profile_names())
        # Pods the scheduling queue would hold with a nominated node (not bound, not finished).
        self._nominated = [
            pi for pi in self.cluster_pod_infos
            if pi.nominated_node_name and not pi.node_name and pi.scheduler_name in profiles
            and ((pi.pod.get("status") or {}).get("phase") or "") not in TERMINAL_PHASES
        ]
        self._frameworks: dict[str, Framework] = {}

    def framework(self, name: str) -> Framework:
        """The framework of profile ``name``, built on first use."""
        fwk = self._frameworks.get(name)
        if fwk is None:
            handle = FrameworkHandle(self.snapshot, self.cluster, getattr(self.config, "parallelism", 16))
            fwk = self._frameworks[name] = build_framework(Framework, self.profile(name), self.registry, handle)
        return fwk

    # -- explaining ---------------------------------------------------------------------------
    def explain(self, pod: dict, profile: str | None = None, cluster: Any = None,
                hint_nodes: Iterable[str] = ()) -> ExplainResult:
        """One scheduling cycle of ``pod`` (admitted first) against the unchanged snapshot.

        ``cluster`` is this pod's view of the cluster objects when it differs from the shared one
        (a workload's pod brings its owner, e.g. the ReplicaSet whose selector drives default
        topology spreading); the nodes and pods of the snapshot are the same for every pod.
        ``hint_nodes`` get their hints whatever the outcome (``--node``); an Unschedulable pod's
        nodes all get theirs.
        """
        # A cycle allocates many small, acyclic records while the snapshot holds hundreds of
        # thousands of long-lived objects: without this, Python's cyclic collector walks the
        # whole snapshot again and again (seconds on 15,000 nodes).
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return self._explain(pod, profile, self.cluster if cluster is None else cluster, hint_nodes)
        finally:
            if was_enabled:
                gc.enable()

    def _explain(self, pod: dict, profile: str | None, cluster: Any, hint_nodes: Iterable[str]) -> ExplainResult:
        pod_info = PodInfo(admit(pod, cluster))
        fwk = self.framework(self.pick_profile(pod_info, profile))
        # Each pod is an independent question: what an earlier pod's cycle allocated, reserved
        # or deallocated (DRA claims in flight or written at PreBind, pods a plugin's cache
        # reserved, gang back-offs) is not this pod's cluster.
        self._start_afresh(fwk)
        fwk.handle.set_cluster(cluster)
        # Every random choice a plugin makes (preemption's dry-run offset) starts afresh per pod
        # from the seed, so one pod's answer does not depend on the pods explained before it.
        fwk.handle.rng = random.Random(self.seed if self.seed is not None else 0)
        fwk.handle.nominator = PodNominator(
            pi for pi in self._nominated if pi.key != pod_info.key and pi.uid != pod_info.uid
        )
        global_pct = getattr(self.config, "percentage_of_nodes_to_score", 0)
        scheduler = Scheduler(self.snapshot, global_pct, seed=self.seed, all_filters=self.all_filters,
                              extenders=self.extenders)
        outcome = scheduler.run_cycle(fwk, pod_info)
        skipped = self.skipped_extenders_warning()
        if skipped:
            outcome.warnings.append(skipped)
        result = build_result(outcome, fwk, self.snapshot, seed=self.seed, all_filters=self.all_filters)
        # What would make it fit (kschedctl's own addition; never changes the cycle's answer),
        # asked of the cluster as given, not as this pod's cycle left it.
        self._start_afresh(fwk)
        attach_hints(result, fwk, self.snapshot, pod_info, hint_nodes)
        return result

    def _start_afresh(self, fwk: Framework) -> None:
        self.snapshot.start_afresh()
        fwk.start_afresh()


def explain(
    pod: dict,
    cluster: Any,
    config: Any = None,
    profile: str | None = None,
    seed: int | None = None,
    all_filters: bool = False,
) -> ExplainResult:
    """Explain where ``pod`` would be scheduled in ``cluster`` under ``config`` (default: built-in)."""
    return Explainer(cluster, config, seed=seed, all_filters=all_filters).explain(pod, profile)


# ---------------------------------------------------------------------------------------------
# Trace -> result objects
# ---------------------------------------------------------------------------------------------


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
