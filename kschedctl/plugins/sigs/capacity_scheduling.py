"""CapacityScheduling: namespace quotas with guaranteed ``min`` and borrowable room up to ``max``.

Port of kubernetes-sigs/scheduler-plugins ``pkg/capacityscheduling/capacity_scheduling.go``
(v0.34.7) with the ElasticQuota CRD (``scheduling.x-k8s.io/v1alpha1``) from the cluster state.

- **PreFilter** takes a snapshot of every namespace's quota (``used`` = requests of the
  namespace's assigned pods) and, for a pod whose namespace has an ElasticQuota, adds the
  requests of pods nominated to nodes (same namespace and at least as important; or another
  namespace whose quota is not over its min). Unschedulable when ``used + pod (+ nominated)``
  exceeds the quota's ``max`` (``Pod <ns>/<name> is rejected in PreFilter because ElasticQuota
  <ns> is more than Max``) or when the sum of every quota's used exceeds the sum of their mins
  (``Pod <ns>/<name> is rejected in PreFilter because total ElasticQuota used is more than
  min``). AddPod/RemovePod keep the snapshot right during preemption's dry runs.
- **PostFilter** is preemption with the generic evaluator (every potential node tried, offset
  0) and this plugin's policy: a pod within its min may take back what other namespaces
  borrowed (their pods, when their quota is over min); a pod over its min may only preempt
  lower-priority pods of its own namespace; a pod without quota only pods without quota. The
  message has no "preemption: " prefix (DefaultPreemption adds it, this plugin does not).
- **Reserve/Unreserve** add or remove the pod from its namespace's quota.

Differences: upstream keeps quotas up to date from informer events; here ``used`` is rebuilt
from the pods on the snapshot's nodes whenever the snapshot changed (so pods a simulation
placed count) and Reserve's effect lives until the next PreFilter (the scheduler assumes the pod
into the snapshot, as upstream's cache does). Nothing is evicted by preemption.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from kschedctl.framework.interfaces import Plugin
from kschedctl.framework.preemption import (
    Evaluator,
    StartTimes,
    compile_pdbs,
    filter_pods_with_pdb_violation,
    go_sort_slice,
    more_important_pod,
)
from kschedctl.framework.status import Code, PostFilterResult, PreFilterResult, Status
from kschedctl.k8s.resources import Resource
from kschedctl.plugins.sigs.elastic_quota import ElasticQuotaInfo, ElasticQuotaInfos, compute_pod_resource_request
from kschedctl.plugins.facts import PluginFacts

if TYPE_CHECKING:  # pragma: no cover
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.types import NodeInfo, PodInfo

NAME = "CapacityScheduling"

PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ELASTIC_QUOTA_SNAPSHOT_KEY = "ElasticQuotaSnapshot"

REASON_PREEMPT_NEVER = "not eligible due to preemptionPolicy=Never."
REASON_NO_STATE = "not eligible due to failed to read from cycleState"
REASON_TERMINATING = "not eligible due to a terminating pod on the nominated node."
REASON_GLOBAL_QUOTA = "global quota max exceeded"


class PreFilterState:
    """The pod's requests, and with the nominated pods that count against its quota / all quotas."""

    __slots__ = ("pod_req", "nominated_in_eq_with_pod_req", "nominated_with_pod_req")

    def __init__(self, pod_req: Resource, in_eq: Resource | None = None, total: Resource | None = None) -> None:
        self.pod_req = pod_req
        self.nominated_in_eq_with_pod_req = in_eq if in_eq is not None else Resource()
        self.nominated_with_pod_req = total if total is not None else Resource()

    def clone(self) -> "PreFilterState":
        return self  # never changed after PreFilter, as upstream


class ElasticQuotaSnapshotState:
    """The quotas as this cycle sees them (cloned for each preemption dry run)."""

    __slots__ = ("elastic_quota_infos",)

    def __init__(self, infos: ElasticQuotaInfos) -> None:
        self.elastic_quota_infos = infos

    def clone(self) -> "ElasticQuotaSnapshotState":
        return ElasticQuotaSnapshotState(self.elastic_quota_infos.clone())


class CapacityScheduling(Plugin):
    """ElasticQuota admission (PreFilter) and quota-aware preemption (PostFilter)."""

    name = NAME

    def __init__(self, args: dict | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        self._pinned: ElasticQuotaInfos | None = None
        self._live: ElasticQuotaInfos | None = None
        self._base_key: Any = None
        self._base: ElasticQuotaInfos | None = None

    # -- the quotas ---------------------------------------------------------------------------
    @property
    def elastic_quota_infos(self) -> ElasticQuotaInfos:
        """The quotas as upstream's plugin holds them between cycles."""
        if self._pinned is not None:
            return self._pinned
        if self._live is None:
            self._live = self._build().clone()
        return self._live

    @elastic_quota_infos.setter
    def elastic_quota_infos(self, infos: ElasticQuotaInfos) -> None:
        """Pin the quotas (tests; upstream's tests set the plugin's map the same way)."""
        self._pinned = infos if isinstance(infos, ElasticQuotaInfos) else ElasticQuotaInfos(infos)

    def _build(self) -> ElasticQuotaInfos:
        snapshot = self.handle.snapshot() if self.handle is not None else None
        nodes = snapshot.node_infos() if snapshot is not None else []
        key = (id(snapshot), len(nodes), max((n.generation for n in nodes), default=0))
        if self._base is not None and key == self._base_key:
            return self._base
        cluster = self.handle.cluster() if self.handle is not None else None
        infos = ElasticQuotaInfos()
        for eq in (getattr(cluster, "elastic_quotas", None) or {}).values():
            ns = (eq.get("metadata") or {}).get("namespace") or "default"
            if ns not in infos:  # one quota per namespace: the first one wins
                infos[ns] = ElasticQuotaInfo.from_spec(ns, eq.get("spec"))
        if infos:
            assigned = [pi for n in nodes for pi in n.pods] + list(getattr(snapshot, "orphan_pods", ()) or ())
            for pi in assigned:
                info = infos.get(pi.namespace)
                if info is not None:
                    info.add_pod_if_not_present(pi.pod)
        self._base, self._base_key = infos, key
        return infos

    # -- PreFilter ----------------------------------------------------------------------------
    def pre_filter(self, state: "CycleState", pod_info: "PodInfo",
                   nodes: list["NodeInfo"]) -> tuple[PreFilterResult | None, Status | None]:
        if self._pinned is None:
            self._live = self._build().clone()  # a new cycle: what earlier cycles reserved is in the snapshot
        live = self.elastic_quota_infos
        snapshot_state = ElasticQuotaSnapshotState(live.clone())
        pod_req = compute_pod_resource_request(pod_info.pod)
        state.write(ELASTIC_QUOTA_SNAPSHOT_KEY, snapshot_state)
        infos = snapshot_state.elastic_quota_infos
        eq = infos.get(pod_info.namespace)
        if eq is None:
            state.write(PRE_FILTER_STATE_KEY, PreFilterState(pod_req))
            return None, Status(Code.Success)
        in_eq = Resource()
        total = Resource()
        snapshot = self.handle.snapshot() if self.handle is not None else None
        for node_info in (snapshot.node_infos() if snapshot is not None else ()):
            for p in self.handle.nominated_pods_for_node(node_info.name):
                if p.uid == pod_info.uid:
                    continue
                info = live.get(p.namespace)
                if info is None:
                    continue
                request = compute_pod_resource_request(p.pod)
                if p.namespace == pod_info.namespace and p.priority >= pod_info.priority:
                    in_eq.add(request)
                    total.add(request)
                elif p.namespace != pod_info.namespace and not info.used_over_min():
                    total.add(request)
        in_eq.add(pod_req)
        total.add(pod_req)
        state.write(PRE_FILTER_STATE_KEY, PreFilterState(pod_req, in_eq, total))
        if eq.used_over_max_with(in_eq):
            return None, Status(Code.Unschedulable,
                                f"Pod {pod_info.namespace}/{pod_info.name} is rejected in PreFilter because "
                                f"ElasticQuota {eq.namespace} is more than Max")
        if infos.aggregated_used_over_min_with(total):
            return None, Status(Code.Unschedulable,
                                f"Pod {pod_info.namespace}/{pod_info.name} is rejected in PreFilter because "
                                "total ElasticQuota used is more than min")
        return None, Status(Code.Success, "")

    def add_pod(self, state: "CycleState", pod_info: "PodInfo", pod_info_to_add: "PodInfo",
                node_info: "NodeInfo") -> Status | None:
        snap = _read(state, ELASTIC_QUOTA_SNAPSHOT_KEY)
        if snap is None:
            return Status(Code.Error, f'error reading "{ELASTIC_QUOTA_SNAPSHOT_KEY}" from cycleState: not found')
        info = snap.elastic_quota_infos.get(pod_info_to_add.namespace)
        if info is not None:
            info.add_pod_if_not_present(pod_info_to_add.pod)
        return Status(Code.Success, "")

    def remove_pod(self, state: "CycleState", pod_info: "PodInfo", pod_info_to_remove: "PodInfo",
                   node_info: "NodeInfo") -> Status | None:
        snap = _read(state, ELASTIC_QUOTA_SNAPSHOT_KEY)
        if snap is None:
            return Status(Code.Error, f'error reading "{ELASTIC_QUOTA_SNAPSHOT_KEY}" from cycleState: not found')
        info = snap.elastic_quota_infos.get(pod_info_to_remove.namespace)
        if info is not None:
            info.delete_pod_if_present(pod_info_to_remove.pod)
        return Status(Code.Success, "")

    # -- PostFilter ---------------------------------------------------------------------------
    def post_filter(self, state: "CycleState", pod_info: "PodInfo",
                    filtered_node_status: Any) -> tuple[PostFilterResult | None, Status | None]:
        evaluator = Evaluator(self.name, self.handle, _Preemptor(self, state))
        return evaluator.preempt(state, pod_info, filtered_node_status, self._pdbs(), StartTimes())

    def _pdbs(self) -> list:
        cluster = self.handle.cluster() if self.handle is not None else None
        raw = getattr(cluster, "pdbs", None) or {}
        return compile_pdbs(raw.values() if isinstance(raw, dict) else raw)

    # -- Reserve ------------------------------------------------------------------------------
    def reserve(self, state: "CycleState", pod_info: "PodInfo", node_name: str) -> Status | None:
        info = self.elastic_quota_infos.get(pod_info.namespace)
        if info is not None:
            info.add_pod_if_not_present(pod_info.pod)
        return Status(Code.Success, "")

    def unreserve(self, state: "CycleState", pod_info: "PodInfo", node_name: str) -> None:
        info = self.elastic_quota_infos.get(pod_info.namespace)
        if info is not None:
            info.delete_pod_if_present(pod_info.pod)


class _Preemptor:
    """Upstream's ``preemptor``: CapacityScheduling's preemption policy for one PostFilter call."""

    def __init__(self, plugin: CapacityScheduling, state: "CycleState") -> None:
        self.plugin = plugin
        self.handle = plugin.handle
        self.state = state

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        return 0, num_nodes

    def ordered_score_funcs(self, nodes_to_victims: dict) -> None:
        return None

    def pod_eligible_to_preempt_others(self, pod_info: "PodInfo", nominated_status: Status | None) -> tuple[bool, str]:
        if (pod_info.pod.get("spec") or {}).get("preemptionPolicy") == "Never":
            return False, REASON_PREEMPT_NEVER
        pre = _read(self.state, PRE_FILTER_STATE_KEY)
        if pre is None:
            return False, REASON_NO_STATE
        nominated = pod_info.nominated_node_name
        if not nominated:
            return True, ""
        if nominated_status is not None and nominated_status.code == Code.UnschedulableAndUnresolvable:
            return True, ""
        snap = _read(self.state, ELASTIC_QUOTA_SNAPSHOT_KEY)
        if snap is None:
            return True, ""
        snapshot = self.handle.snapshot()
        node_info = snapshot.get_or_none(nominated)
        if node_info is None:
            return True, ""
        infos = snap.elastic_quota_infos
        preemptor_eq = infos.get(pod_info.namespace)
        if preemptor_eq is not None:
            more_than_min = preemptor_eq.used_over_min_with(pre.nominated_in_eq_with_pod_req)
            for p in node_info.pods:
                if not p.is_terminating:
                    continue
                eq = infos.get(p.namespace)
                if eq is None:
                    continue
                if p.namespace == pod_info.namespace and p.priority < pod_info.priority:
                    return False, REASON_TERMINATING
                if p.namespace != pod_info.namespace and not more_than_min and eq.used_over_min():
                    return False, REASON_TERMINATING
        else:
            for p in node_info.pods:
                if p.namespace in infos:
                    continue
                if p.is_terminating and p.priority < pod_info.priority:
                    return False, REASON_TERMINATING
        return True, ""

    def select_victims_on_node(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo",
                               pdbs: Sequence[Any], times: StartTimes
                               ) -> tuple[list, int, Status | None, dict[str, list[str]]]:
        handle = self.handle
        snap = _read(state, ELASTIC_QUOTA_SNAPSHOT_KEY)
        if snap is None:
            return [], 0, Status(Code.Unschedulable, "Failed to read elasticQuotaSnapshot from cycleState"), {}
        pre = _read(state, PRE_FILTER_STATE_KEY)
        if pre is None:
            return [], 0, Status(Code.Unschedulable, "Failed to read preFilterState from cycleState"), {}
        pod_req = pre.pod_req

        def remove(victim: "PodInfo") -> Status | None:
            if not node_info.remove_pod(victim):
                return Status(Code.Error, f"no corresponding pod {victim.name} in pods of node {node_info.name}")
            s = handle.run_pre_filter_extension_remove_pod(state, pod_info, victim, node_info)
            if s is not None and s.code != Code.Success:
                return Status(Code.Error, s.message(), error=s.error)
            return None

        def add(victim: "PodInfo") -> Status | None:
            node_info.add_pod(victim)
            s = handle.run_pre_filter_extension_add_pod(state, pod_info, victim, node_info)
            if s is not None and s.code != Code.Success:
                return Status(Code.Error, s.message(), error=s.error)
            return None

        infos = snap.elastic_quota_infos
        preemptor_eq = infos.get(pod_info.namespace)
        # Least important first, as upstream's sort of the node's pods.
        pods = list(node_info.pods)
        go_sort_slice(pods, lambda a, b: not more_important_pod(a, b, times))
        potential: list = []
        if preemptor_eq is not None:
            in_eq = pre.nominated_in_eq_with_pod_req
            more_than_min = preemptor_eq.used_over_min_with(in_eq)
            for p in pods:
                eq = infos.get(p.namespace)
                if eq is None:
                    continue
                if more_than_min:
                    # Over its min: only lower-priority pods of the preemptor's own quota.
                    take = p.namespace == pod_info.namespace and p.priority < pod_info.priority
                else:
                    # Within its min: take back what other quotas borrowed beyond their min.
                    take = p.namespace != pod_info.namespace and eq.used_over_min()
                if take:
                    potential.append(p)
                    err = remove(p)
                    if err is not None:
                        return [], 0, err, {}
        else:
            for p in pods:
                if p.namespace in infos:
                    continue
                if p.priority < pod_info.priority:
                    potential.append(p)
                    err = remove(p)
                    if err is not None:
                        return [], 0, err, {}
        if not potential:
            return [], 0, Status(Code.UnschedulableAndUnresolvable,
                                 f"No victims found on node {node_info.name} for preemptor pod {pod_info.name}"), {}
        s = handle.run_filter_plugins_with_nominated_pods(state, pod_info, node_info)
        if s is not None and s.code != Code.Success:
            return [], 0, s, {}
        if preemptor_eq is not None and (preemptor_eq.used_over_max_with(pod_req)
                                         or infos.aggregated_used_over_min_with(pod_req)):
            return [], 0, Status(Code.Unschedulable, REASON_GLOBAL_QUOTA), {}

        victims: list = []
        go_sort_slice(potential, lambda a, b: more_important_pod(a, b, times))
        violating, non_violating, broken = filter_pods_with_pdb_violation(potential, pdbs)
        num_violating = 0

        def reprieve(p: "PodInfo") -> tuple[bool, Status | None]:
            err = add(p)
            if err is not None:
                return False, err
            st = handle.run_filter_plugins_with_nominated_pods(state, pod_info, node_info)
            fits = st is None or st.code == Code.Success
            if not fits:
                err = remove(p)
                if err is not None:
                    return False, err
                victims.append(p)
            if preemptor_eq is not None and (
                    preemptor_eq.used_over_max_with(pre.nominated_in_eq_with_pod_req)
                    or infos.aggregated_used_over_min_with(pre.nominated_with_pod_req)):
                err = remove(p)
                if err is not None:
                    return False, err
                victims.append(p)
            return fits, None

        for p in violating:
            fits, err = reprieve(p)
            if err is not None:
                return [], 0, err, {}
            if not fits:
                num_violating += 1
        for p in non_violating:
            _, err = reprieve(p)
            if err is not None:
                return [], 0, err, {}
        if violating and non_violating:
            go_sort_slice(victims, lambda a, b: more_important_pod(a, b, times))
        keys = {v.key for v in victims}
        return victims, num_violating, Status(Code.Success), {k: v for k, v in broken.items() if k in keys}


def _read(state: "CycleState", key: str) -> Any:
    try:
        return state.read(key)
    except KeyError:
        return None


# -- facts --------------------------------------------------------------------------------------

FACTS = PluginFacts(
    name=CapacityScheduling.name,
    points=("preFilter", "postFilter", "reserve"),
    # No events: scheduler-plugins' EventsToRegister is not modelled, so the queue asks it about every
    # event (a pod it rejected is retried after any change, never fewer times than upstream would).
)
