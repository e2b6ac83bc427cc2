"""Fake plugins and builders for testing the runtime and the scheduling cycle.

Mirrors upstream's test doubles: framework_test.go's ``TestPlugin`` (results injected per
extension point), pkg/scheduler/testing/framework/fake_plugins.go (TrueFilter, FalseFilter,
MatchFilter, FakeFilter, FakePreFilter, ...) and schedule_one_test.go's score plugins
(NumericMap, ReverseNumericMap, TrueMap, FalseMap, EqualPrioritizer).
"""

from __future__ import annotations

import copy
import hashlib
from types import SimpleNamespace
from typing import Any, Iterable

from kschedctl.framework.runtime import Framework, FrameworkHandle, PodNominator
from kschedctl.framework.snapshot import Snapshot
from kschedctl.framework.status import Code, PostFilterResult, PreFilterResult, Status
from kschedctl.framework.types import PodInfo
from kschedctl.plugins.default_binder import DefaultBinder
from kschedctl.plugins.priority_sort import PrioritySort

INJECT_REASON = "injected status"
INJECT_FILTER_REASON = "injected filter status"
ERR_REASON_FAKE = "Nodes failed the fake plugin"


def code(name: str | None) -> Code:
    return Code.Success if not name else Code[name]


def status(code_name: str | None, *reasons: str) -> Status | None:
    """A status of the named code, None for Success without reasons (a nil status)."""
    if not code_name or (code_name == "Success" and not reasons):
        return None
    return Status(Code[code_name], *reasons)


class TestPlugin:
    """framework_test.go's TestPlugin: each extension point answers with an injected code.

    ``inj`` keys (code names): preFilter, preFilterAddPod, preFilterRemovePod, filter,
    postFilter, preScore, score, reserve, permit, preBind, bind; ``preFilterResult`` is a
    list of node names; ``permitTimeout`` seconds. Calls are counted in ``calls``.
    """

    __test__ = False

    def __init__(self, name: str, inj: dict | None = None) -> None:
        self.name = name
        self.inj = inj or {}
        self.calls: dict[str, int] = {}

    def _count(self, point: str) -> None:
        self.calls[point] = self.calls.get(point, 0) + 1

    def pre_filter(self, state, pod_info, nodes):
        self._count("preFilter")
        result = self.inj.get("preFilterResult")
        return (None if result is None else PreFilterResult(result)), status(self.inj.get("preFilter"), INJECT_REASON)

    def add_pod(self, state, pod_info, to_add, node_info):
        self._count("addPod")
        return status(self.inj.get("preFilterAddPod"), INJECT_REASON)

    def remove_pod(self, state, pod_info, to_remove, node_info):
        self._count("removePod")
        return status(self.inj.get("preFilterRemovePod"), INJECT_REASON)

    def filter(self, state, pod_info, node_info):
        self._count("filter")
        return status(self.inj.get("filter"), INJECT_FILTER_REASON)

    def post_filter(self, state, pod_info, statuses):
        self._count("postFilter")
        return PostFilterResult(self.inj.get("nominate", "")), status(self.inj.get("postFilter"), INJECT_REASON)

    def pre_score(self, state, pod_info, nodes):
        self._count("preScore")
        return status(self.inj.get("preScore"), INJECT_REASON)

    def score(self, state, pod_info, node_info):
        self._count("score")
        return int(self.inj.get("scoreRes", 0)), status(self.inj.get("score"), INJECT_REASON)

    def reserve(self, state, pod_info, node_name):
        self._count("reserve")
        return status(self.inj.get("reserve"), INJECT_REASON)

    def unreserve(self, state, pod_info, node_name):
        self._count("unreserve")

    def permit(self, state, pod_info, node_name):
        self._count("permit")
        return status(self.inj.get("permit"), INJECT_REASON), float(self.inj.get("permitTimeout", 0))

    def pre_bind(self, state, pod_info, node_name):
        self._count("preBind")
        return status(self.inj.get("preBind"), INJECT_REASON)

    def bind(self, state, pod_info, node_name):
        self._count("bind")
        return status(self.inj.get("bind"), INJECT_REASON)

    def post_bind(self, state, pod_info, node_name):
        self._count("postBind")


class ScorePlugin:
    """A Score plugin configured like framework_test.go's score plugins (args scoreRes, ...)."""

    def __init__(self, name: str, args: dict | None = None, normalize: bool = False) -> None:
        self.name = name
        self.args = args or {}
        if normalize:
            self.normalize_score = self._normalize

    def score(self, state, pod_info, node_info):
        return int(self.args.get("scoreRes", 0)), status(
            Code(self.args["scoreStatus"]).name if "scoreStatus" in self.args else None, INJECT_REASON)

    def _normalize(self, state, pod_info, scores):
        if "normalizeStatus" in self.args:
            return Status(Code(self.args["normalizeStatus"]), INJECT_REASON)
        for ns in scores:
            ns.score = int(self.args.get("normalizeRes", 0))
        return None


# -- fake_plugins.go ------------------------------------------------------------------------


class TrueFilter:
    name = "TrueFilter"

    def filter(self, state, pod_info, node_info):
        return None


class FalseFilter:
    name = "FalseFilter"

    def filter(self, state, pod_info, node_info):
        return Status(Code.Unschedulable, ERR_REASON_FAKE)


class MatchFilter:
    name = "MatchFilter"

    def filter(self, state, pod_info, node_info):
        if node_info.node is None:
            return Status(Code.Error, "node not found")
        return None if pod_info.name == node_info.name else Status(Code.Unschedulable, ERR_REASON_FAKE)


class NoPodsFilter:
    name = "NoPodsFilter"

    def filter(self, state, pod_info, node_info):
        return None if not node_info.pods else Status(Code.Unschedulable, ERR_REASON_FAKE)


class FakeFilter:
    """Fails the nodes of ``codes`` (node -> code name) with "injecting failure for pod <name>"."""

    def __init__(self, codes: dict[str, str] | None = None, name: str = "FakeFilter") -> None:
        self.name = name
        self.codes = codes or {}
        self.num_filter_called = 0

    def filter(self, state, pod_info, node_info):
        self.num_filter_called += 1
        c = self.codes.get(node_info.name)
        if c is not None:
            return Status(Code[c], f"injecting failure for pod {pod_info.name}")
        return None


class FakePreFilter:
    def __init__(self, name: str, nodes: list[str] | None = None, code_name: str | None = None,
                 reason: str = "") -> None:
        self.name = name
        self.nodes = nodes
        self.status = None if not code_name else Status(Code[code_name], *([reason] if reason else []))

    def pre_filter(self, state, pod_info, nodes):
        return (None if self.nodes is None else PreFilterResult(self.nodes)), self.status


class FakePreFilterAndFilter(FakePreFilter):
    """PreFilter answering ``code_name`` and a Filter failing ``filter_codes`` nodes."""

    def __init__(self, name: str, code_name: str | None, filter_codes: dict[str, str]) -> None:
        super().__init__(name, None, code_name)
        self._filter = FakeFilter(filter_codes, name)

    def filter(self, state, pod_info, node_info):
        return self._filter.filter(state, pod_info, node_info)


class FakePreScoreAndScore:
    def __init__(self, name: str, score: int, pre_score: Status | None, score_status: Status | None) -> None:
        self.name = name
        self._score, self._pre, self._status = score, pre_score, score_status

    def pre_score(self, state, pod_info, nodes):
        return self._pre

    def score(self, state, pod_info, node_info):
        return self._score, self._status


def equal_prioritizer() -> FakePreScoreAndScore:
    return FakePreScoreAndScore("EqualPrioritizerPlugin", 1, None, None)


class NumericMap:
    name = "NumericMap"

    def score(self, state, pod_info, node_info):
        try:
            return int(node_info.name), None
        except ValueError:
            return 0, Status(Code.Error, f"Error converting nodename to int: {node_info.name}")


class ReverseNumericMap(NumericMap):
    name = "ReverseNumericMap"

    def normalize_score(self, state, pod_info, scores):
        hi = max(s.score for s in scores)
        lo = min(s.score for s in scores)
        for s in scores:
            s.score = hi + lo - s.score
        return None


class TrueMap:
    name = "TrueMap"

    def score(self, state, pod_info, node_info):
        return 1, None

    def normalize_score(self, state, pod_info, scores):
        for s in scores:
            if not s.name:
                return Status(Code.Error, "unexpected empty host name")
        return None


class FalseMap:
    name = "FalseMap"

    def score(self, state, pod_info, node_info):
        return 0, Status(Code.Error, "priority map encounters an error")


class Raising:
    """A plugin whose every method raises, to check that the runtime contains it."""

    name = "Raising"

    def filter(self, state, pod_info, node_info):
        raise ValueError("boom")

    def score(self, state, pod_info, node_info):
        raise ValueError("boom")


FAKES: dict[str, Any] = {
    "TrueFilter": TrueFilter,
    "FalseFilter": FalseFilter,
    "MatchFilter": MatchFilter,
    "NoPodsFilter": NoPodsFilter,
    "NumericMap": NumericMap,
    "ReverseNumericMap": ReverseNumericMap,
    "TrueMap": TrueMap,
    "FalseMap": FalseMap,
    "EqualPrioritizerPlugin": equal_prioritizer,
}


# -- builders ---------------------------------------------------------------------------------


def make_pod(name: str = "pod", namespace: str = "default", uid: str | None = None, priority: int = 0,
             node: str = "", nominated: str = "", labels: dict | None = None, **spec: Any) -> dict:
    """A pod like upstream's ``st.MakePod()`` builder."""
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "uid": uid or name}
    if labels:
        meta["labels"] = labels
    pod_spec: dict[str, Any] = {"priority": priority, "schedulerName": "default-scheduler"}
    if node:
        pod_spec["nodeName"] = node
    pod_spec.update(spec)
    pod: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": pod_spec}
    if nominated:
        pod["status"] = {"nominatedNodeName": nominated}
    return pod


def make_node(name: str, labels: dict | None = None, cpu: str = "4", memory: str = "32Gi", pods: str = "110") -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": dict(labels or {"kubernetes.io/hostname": name})},
        "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": pods},
                   "capacity": {"cpu": cpu, "memory": memory, "pods": pods}},
    }


def pod_info(pod: dict) -> PodInfo:
    pod = copy.deepcopy(pod)
    meta = pod.setdefault("metadata", {})
    meta.setdefault("namespace", "default")
    if not meta.get("uid"):
        meta["uid"] = hashlib.sha1(meta.get("name", "").encode()).hexdigest()[:12]
    return PodInfo(pod)


def framework(
    plugins: dict[str, list[Any]],
    nodes: Iterable[dict] = (),
    pods: Iterable[dict] = (),
    weights: dict[str, int] | None = None,
    nominated: Iterable[dict] = (),
    percentage: int | None = None,
    profile: str = "default-scheduler",
) -> Framework:
    """A framework over a snapshot of ``nodes`` and ``pods``, with PrioritySort and DefaultBinder
    added when the test does not set queueSort/bind (as upstream's newFrameworkWithQueueSortAndBind)."""
    plugins = dict(plugins)
    plugins.setdefault("queueSort", [PrioritySort()])
    plugins.setdefault("bind", [DefaultBinder()])
    snapshot = Snapshot(list(nodes), [pod_info(p) for p in pods])
    handle = FrameworkHandle(snapshot, SimpleNamespace(nodes=list(nodes), pods=list(pods)), 16,
                             PodNominator(pod_info(p) for p in nominated))
    return Framework(profile, plugins, weights or {}, percentage, handle)
