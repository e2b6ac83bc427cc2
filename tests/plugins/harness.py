"""Run one plugin the way the framework would, on nodes and pods written as YAML.

Each plugin's test module loads its case file (``tests/plugins/cases/<stem>.yaml``) with
``load_cases`` and checks verdicts and scores with ``run_filters`` / ``run_scores``. Cases are
upstream's test tables ported as data, so a reader can check them against the Go tests.

Every case runs through both forms of a plugin: ``run_filters`` and ``run_scores`` (and the
loops of the modules that score on their own) ask the plugin's column twin, or its answers kept
per node object, over the case's nodes too (``check_filter_twin`` / ``check_score_twin``), and
fail when the twin answers otherwise than the plugin (kschedctl.framework.twins).
"""

from __future__ import annotations

import copy
import hashlib
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

import pytest
import yaml

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interfaces import NodeScore
from kschedctl.framework.snapshot import Snapshot
from kschedctl.framework.runtime import WaitingPods, informer_pods
from kschedctl.framework.status import Code, Status
from kschedctl.framework.types import NodeInfo, PodInfo
from kschedctl.scheduler.columns import NodeColumns, column_normalized, column_scores, verdict_function
from kschedctl.scheduler.simulate import pod_signature

CASES_DIR = Path(__file__).parent / "cases"


def load_cases(stem: str) -> list[Any]:
    """The ``cases`` of ``cases/<stem>.yaml`` as pytest params with ids ``<stem>_<name>``."""
    data = yaml.safe_load((CASES_DIR / f"{stem}.yaml").read_text(encoding="utf-8"))
    params = []
    for case in data["cases"]:
        params.append(pytest.param(case, id=f"{stem}_{case['name']}"))
    return params


def pod_info(pod: dict) -> PodInfo:
    """A PodInfo for ``pod`` after what admission would add (namespace, uid, priority)."""
    return PodInfo(admit(pod))


def admit(pod: dict) -> dict:
    pod = copy.deepcopy(pod)
    meta = pod.setdefault("metadata", {})
    meta.setdefault("namespace", "default")
    meta.setdefault("name", "pod")
    meta.setdefault("uid", hashlib.sha1(f"{meta['namespace']}/{meta['name']}".encode()).hexdigest()[:16])
    spec = pod.setdefault("spec", {})
    spec.setdefault("priority", 0)
    spec.setdefault("schedulerName", "default-scheduler")
    return pod


class _Cluster:
    """The cluster objects a plugin may read through its handle, grouped by kind."""

    def __init__(self, objects: Iterable[dict]) -> None:
        self.objects: dict[str, list[dict]] = {}
        for obj in objects:
            self.objects.setdefault(obj.get("kind", ""), []).append(obj)
        self.namespaces = {
            o["metadata"]["name"]: o for o in self.objects.get("Namespace", [])
        }

    def of_kind(self, kind: str) -> list[dict]:
        return self.objects.get(kind, [])


class TestHandle:
    """What the framework hands a plugin, for one test case."""

    __test__ = False  # not a pytest test class

    def __init__(self, snapshot: Snapshot, cluster: Any, nominated: dict[str, list[PodInfo]] | None = None) -> None:
        self._snapshot = snapshot
        self._cluster = cluster
        self._nominated = nominated or {}
        self.waiting_pods = WaitingPods()
        self.warnings: list[str] = []
        self.framework = None  # no framework runs the plugin: a preemption evaluator finds no trace

    def snapshot(self) -> Snapshot:
        return self._snapshot

    def cluster(self) -> Any:
        return self._cluster

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        return self._nominated.get(node_name, [])

    def parallelism(self) -> int:
        return 16

    def list_pods(self) -> Iterator[dict]:
        return informer_pods(self._cluster, self._snapshot)

    def iterate_over_waiting_pods(self, callback: Any) -> None:
        self.waiting_pods.iterate(callback)

    def now(self) -> float:
        return time.time()

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)


@dataclass
class Env:
    snapshot: Snapshot
    handle: TestHandle
    node_infos: list[NodeInfo] = field(default_factory=list)


def build(nodes: list[dict], pods: Iterable[dict] = (), objects: Iterable[dict] = ()) -> Env:
    """A snapshot of ``nodes`` with ``pods`` (those with ``spec.nodeName`` run there)."""
    nodes = [copy.deepcopy(n) for n in nodes]
    for node in nodes:
        node.setdefault("kind", "Node")
        node.setdefault("metadata", {})
    pod_infos = [pod_info(p) for p in pods]
    snapshot = Snapshot(nodes, pod_infos)
    cluster = _cluster_state(list(objects), nodes, [pi.pod for pi in pod_infos])
    handle = TestHandle(snapshot, cluster)
    return Env(snapshot=snapshot, handle=handle, node_infos=list(snapshot.node_infos()))


def _cluster_state(objects: list[dict], nodes: list[dict], pods: list[dict]) -> Any:
    try:
        from kschedctl.inputs.cluster import ClusterState
        from kschedctl.inputs.loader import Document
    except ImportError:  # the inputs layer is optional for plugins that never read the cluster
        return _Cluster(objects + nodes + pods)
    docs = [Document(o, "<test>", None) for o in objects + nodes + pods]
    return ClusterState.from_documents(docs)


def run_filters(plugin: Any, pod: PodInfo, env: Env, state: CycleState | None = None) -> dict[str, Status | None]:
    """PreFilter (when the plugin has one) then Filter on every node, as the framework runs them."""
    state = state or CycleState()
    node_infos = env.node_infos
    allowed: set[str] | None = None
    if callable(getattr(plugin, "pre_filter", None)):
        result, status = plugin.pre_filter(state, pod, node_infos)
        if status is not None and status.code == Code.Skip:
            return {ni.name: None for ni in node_infos}
        if status is not None and not status.is_success():
            return {ni.name: status for ni in node_infos}
        if result is not None and result.node_names is not None:
            allowed = result.node_names
    out: dict[str, Status | None] = {}
    for ni in node_infos:
        if allowed is not None and ni.name not in allowed:
            out[ni.name] = Status(
                Code.UnschedulableAndUnresolvable, f"node(s) didn't satisfy plugin(s) [{plugin.name}]"
            )
            continue
        out[ni.name] = plugin.filter(state, pod, ni)
    check_filter_twin(plugin, pod, env, state, {ni.name: out[ni.name] for ni in node_infos
                                               if allowed is None or ni.name in allowed})
    return out


#: How often each plugin's twin (or answers per node object) answered a case, per point: what
#: ``check_filter_twin`` and ``check_score_twin`` compared.
TWIN_CHECKS: Counter = Counter()


def _columns_over(env: Env, names: Iterable[str]) -> tuple[NodeColumns, Any] | None:
    columns = NodeColumns(env.snapshot)
    at = columns.positions([env.snapshot.get(n) for n in names])
    return None if at is None else (columns, at)


def check_filter_twin(plugin: Any, pod: PodInfo, env: Env, state: CycleState,
                      statuses: dict[str, Status | None]) -> bool:
    """Whether the plugin's Filter twin (or its verdicts kept per node object) answered for the
    nodes of ``statuses`` (the object form's, after PreFilter ran on ``state``); where it did,
    its verdicts must be the object form's. A node the object form answers with an Error is not
    compared (the twin never decides those: the scan asks the plugin)."""
    names = list(statuses)
    placed = _columns_over(env, names) if names else None
    if placed is None:
        return False
    columns, at = placed
    verdicts = verdict_function(columns, [(plugin.name, plugin.filter)], pod_signature(pod.pod), state, pod)
    if verdicts is None:
        return False
    got = verdicts(at).tolist()
    for name, verdict in zip(names, got):
        status = statuses[name]
        if status is not None and status.code == Code.Error:
            continue
        want = status is None or status.is_success()
        assert verdict == want, f"{plugin.name}'s column twin says {verdict} on {name}, its Filter {status!r}"
    # the statuses the twin (or the answers kept per node object) gives the nodes it rejects
    # are the object form's, word for word, stamped with the plugin
    rejected = [i for i, passed in enumerate(got) if not passed and verdicts.certain(at[i:i + 1])]
    told = verdicts.statuses(at[rejected]) if rejected else []
    for i, status in zip(rejected, told):
        if status is None:
            continue
        want = statuses[names[i]]
        assert (status.code, status.reasons, status.details, status.plugin) == (
            want.code, want.reasons, want.details, plugin.name), (
            f"{plugin.name}'s column twin gives {names[i]} {status!r}, its Filter {want!r}")
        TWIN_CHECKS[(plugin.name, "filter statuses")] += 1
    TWIN_CHECKS[(plugin.name, "filter")] += 1
    return True


def check_score_twin(plugin: Any, pod: PodInfo, env: Env, state: CycleState, raw: dict[str, int],
                     normalized: dict[str, int] | None = None) -> bool:
    """Whether the plugin's Score twin (or its scores kept per node object) answered for the
    nodes of ``raw`` (the object form's raw scores, after PreScore ran on ``state``); where it
    did, its scores, and its NormalizeScore of them when it has one, must be the object form's."""
    names = list(raw)
    placed = _columns_over(env, names) if names else None
    if placed is None:
        return False
    columns, at = placed
    scores = column_scores(columns, plugin, state, at, pod_signature(pod.pod), pod)
    if scores is None:
        return False
    assert dict(zip(names, scores.values)) == raw, f"{plugin.name}'s column twin scores otherwise"
    TWIN_CHECKS[(plugin.name, "score")] += 1
    if normalized is not None:
        values = column_normalized(columns, plugin, state, pod, scores)
        if values is not None:
            assert dict(zip(names, values)) == normalized, f"{plugin.name}'s column twin normalizes otherwise"
            TWIN_CHECKS[(plugin.name, "normalize")] += 1
    return True


def run_scores(
    plugin: Any, pod: PodInfo, env: Env, nodes: list[str] | None = None, state: CycleState | None = None
) -> tuple[dict[str, int], dict[str, int]]:
    """PreScore, Score on each node (all, or the named ones) and NormalizeScore: (raw, normalized)."""
    state = state or CycleState()
    node_infos = env.node_infos if nodes is None else [env.snapshot.get(n) for n in nodes]
    if callable(getattr(plugin, "pre_score", None)):
        status = plugin.pre_score(state, pod, node_infos)
        if status is not None and status.code == Code.Skip:
            return {}, {}
        assert status is None or status.is_success(), f"pre_score failed: {status!r}"
    raw: dict[str, int] = {}
    for ni in node_infos:
        score, status = plugin.score(state, pod, ni)
        assert status is None or status.is_success(), f"score failed on {ni.name}: {status!r}"
        raw[ni.name] = score
    # A plugin's batch forms (simulate's runtime uses them) must answer exactly as the per-node ones.
    batch = getattr(plugin, "score_nodes", None)
    if callable(batch):
        values, status = batch(state, pod, node_infos)
        assert status is None or status.is_success(), f"score_nodes failed: {status!r}"
        assert dict(zip([ni.name for ni in node_infos], values)) == raw, "score_nodes disagrees with score"
    scores = [NodeScore(name, value) for name, value in raw.items()]
    if callable(getattr(plugin, "normalize_score", None)):
        status = plugin.normalize_score(state, pod, scores)
        assert status is None or status.is_success(), f"normalize_score failed: {status!r}"
        batch_normalize = getattr(plugin, "normalize_values", None)
        if callable(batch_normalize):
            values, status = batch_normalize(state, pod, list(raw), list(raw.values()))
            assert status is None or status.is_success(), f"normalize_values failed: {status!r}"
            assert values == [s.score for s in scores], "normalize_values disagrees with normalize_score"
    normalized = {s.name: s.score for s in scores}
    check_score_twin(plugin, pod, env, state, raw, normalized if callable(getattr(plugin, "normalize_score", None))
                     else None)
    return raw, normalized


def status_dict(status: Status | None) -> dict[str, Any]:
    """``{"code": ..., "reasons": [...]}`` for comparing with a case's expectation."""
    if status is None:
        return {"code": "Success", "reasons": []}
    return {"code": status.code.name, "reasons": list(status.reasons)}


def expected_status(spec: dict | None) -> dict[str, Any]:
    """A case's expected status, where a missing one means Success."""
    if not spec:
        return {"code": "Success", "reasons": []}
    return {"code": spec.get("code", "Success"), "reasons": list(spec.get("reasons") or [])}
