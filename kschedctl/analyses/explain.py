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
from kschedctl.framework.types import PodInfo
from kschedctl.inputs.cluster import TERMINAL_PHASES, admit
from kschedctl.scheduler.cycle_result import build_result
from kschedctl.scheduler.result import ExplainResult
from kschedctl.analyses.remedies import attach_hints
from kschedctl.scheduler.schedule_one import Scheduler
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
