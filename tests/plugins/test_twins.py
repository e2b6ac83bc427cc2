"""The plugins' column twins (kschedctl.framework.twins): declared in the plugins' FACTS, living
beside them, the only second form of a plugin function, and checked against the plugin on every
YAML case (tests/plugins/harness.py). A twin made to drift fails those checks."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
from typing import Any, Callable

import pytest

from kschedctl.framework.twins import TWIN_POINTS, ColumnFilter, ColumnScores, ColumnTwin
from kschedctl.plugins.facts import PluginFacts
from kschedctl.plugins.inter_pod_affinity import InterPodAffinity
from kschedctl.plugins.node_affinity import NodeAffinity
from kschedctl.plugins.node_resources_balanced_allocation import NodeResourcesBalancedAllocation
from kschedctl.plugins.node_resources_fit import NodeResourcesFit
from kschedctl.plugins.node_volume_limits import NodeVolumeLimits
from kschedctl.plugins.pod_topology_spread import PodTopologySpread
from kschedctl.plugins.registry import BUILTIN_PLUGINS, builtin_facts, own_facts
from kschedctl.plugins.taint_toleration import TaintToleration
from kschedctl.plugins.volume_binding import VolumeBinding
from tests.framework.fakes import make_node, make_pod
from tests.plugins.harness import Env, build, pod_info, run_filters, run_scores

PACKAGE = Path(__file__).resolve().parents[2] / "kschedctl"
TWINNED = {name: facts for name, facts in builtin_facts().items() if facts.twin is not None}


def test_the_twins_declared_are_those_simulate_had() -> None:
    assert {name: facts.twin.points for name, facts in TWINNED.items()} == {
        "NodeResourcesFit": ("filter", "score"),
        "PodTopologySpread": ("filter", "score", "normalize"),
        "InterPodAffinity": ("filter", "score", "normalize"),
        "NodeResourcesBalancedAllocation": ("score",),
        # their scores kept per node object, their DefaultNormalizeScore on the array
        "TaintToleration": ("normalize",),
        "NodeAffinity": ("normalize",),
        "VolumeBinding": ("filter",),
        "NodeVolumeLimits": ("filter",),
    }
    object_local = {name: facts.object_local for name, facts in builtin_facts().items() if facts.object_local}
    assert object_local == {
        "NodeUnschedulable": {"filter"}, "NodeName": {"filter"}, "TaintToleration": {"filter", "score"},
        "NodeAffinity": {"filter", "score"}, "ImageLocality": {"score"},
    }


@pytest.mark.parametrize("name", sorted(TWINNED))
def test_a_twin_lives_beside_its_plugin_and_defines_what_it_declares(name: str) -> None:
    twin = TWINNED[name].twin
    plugin_module = BUILTIN_PLUGINS[name].partition(":")[0]
    package = importlib.import_module(plugin_module)
    beside = (f"{plugin_module}.columns" if hasattr(package, "__path__")
              else f"{plugin_module}_columns")
    assert twin.module == beside
    module = importlib.import_module(twin.module)
    for point, function in TWIN_POINTS.items():
        # a twin function nobody declared would never run: declared and defined go together
        assert callable(getattr(module, function, None)) == (point in twin.points), (name, point)


def test_a_twin_declaring_what_its_module_lacks_is_a_bug_said_as_such() -> None:
    twin = ColumnTwin("kschedctl.plugins.volume_binding.columns", ("filter", "score"))
    with pytest.raises(RuntimeError, match="declares a score twin but defines no column_score"):
        twin.function("filter")  # checked when the module is first loaded, whatever is asked
    assert ColumnTwin("kschedctl.plugins.inter_pod_affinity.columns", ("filter",)).function("score") is None
    with pytest.raises(ValueError, match="a twin covers some of"):
        ColumnTwin("x", ("preFilter",))
    with pytest.raises(ValueError, match="its twin covers"):
        PluginFacts("P", ("filter",), twin=ColumnTwin("x", ("score",)))


def test_a_subclass_or_custom_plugin_of_the_same_name_has_no_facts_to_answer_with() -> None:
    class Custom(NodeResourcesFit):
        pass

    assert own_facts(NodeResourcesFit()) is builtin_facts()["NodeResourcesFit"]
    assert own_facts(Custom()) is None


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.append(node.module)
    return out


def test_the_node_columns_name_no_plugin() -> None:
    """scheduler/columns.py keeps the node columns and asks the facts: it imports no plugin
    module (the registry's facts only) and dispatches on no plugin's class or function."""
    path = PACKAGE / "scheduler" / "columns.py"
    plugins = [m for m in _imports(path) if m.startswith("kschedctl.plugins")]
    assert plugins == ["kschedctl.plugins.registry"]
    text = path.read_text(encoding="utf-8")
    assert "type(plugin) is" not in text and " is least_allocated" not in text
    for name in builtin_facts():
        assert name not in text, name


# -- a twin made to drift fails the cases ---------------------------------------------------------


def _zones(count: int = 4) -> list[dict]:
    return [make_node(f"n{i}", {"kubernetes.io/hostname": f"n{i}", "zone": f"z{i % 2}"},
                      cpu=("2", "4", "8", "16")[i % 4], memory=("4Gi", "8Gi", "16Gi", "32Gi")[i % 4])
            for i in range(count)]


def _requests(cpu: str, memory: str) -> list[dict]:
    return [{"name": "c", "resources": {"requests": {"cpu": cpu, "memory": memory}}}]


def _placed() -> list[dict]:
    return [make_pod(f"r{i}", node=f"n{i % 3}", labels={"app": "web"}, containers=_requests("1", "1Gi"))
            for i in range(5)]


def _spread(when: str) -> dict:
    return {"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": when,
                                           "labelSelector": {"matchLabels": {"app": "web"}}}
                                          for key in ("zone", "kubernetes.io/hostname")]}


def _case(name: str) -> tuple[Any, Any, Env]:
    """A plugin, a pod and a cluster on which the plugin's answers differ from node to node."""
    env = build(_zones(), _placed())
    incoming = make_pod("p", labels={"app": "web"}, containers=_requests("1500m", "3Gi"))
    if name == "PodTopologySpread":
        incoming["spec"].update(_spread("ScheduleAnyway"))
        return PodTopologySpread(None, env.handle), incoming, env
    if name == "PodTopologySpread-filter":
        incoming["spec"].update(_spread("DoNotSchedule"))
        return PodTopologySpread(None, env.handle), incoming, env
    if name == "InterPodAffinity-filter":
        incoming["spec"]["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}
        return InterPodAffinity(None, env.handle), incoming, env
    if name == "InterPodAffinity":
        # preferred affinity to the web pods' zone and away from their hosts: three distinct scores
        incoming["spec"]["affinity"] = {
            "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 5, "podAffinityTerm": {
                "labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "zone"}}]},
            "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 2, "podAffinityTerm": {
                "labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}}]}}
        return InterPodAffinity(None, env.handle), incoming, env
    if name == "NodeResourcesBalancedAllocation":
        return NodeResourcesBalancedAllocation(None, env.handle), incoming, env
    if name == "TaintToleration":
        nodes = _zones()
        for i, node in enumerate(nodes):  # 0, 1, 2 and 3 taints the pod does not tolerate
            node["spec"] = {"taints": [{"key": f"k{j}", "value": "v", "effect": "PreferNoSchedule"}
                                       for j in range(i)]}
        tainted = build(nodes, _placed())
        return TaintToleration(None, tainted.handle), incoming, tainted
    if name == "NodeAffinity":
        incoming["spec"]["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 7, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z1"]}]}},
            {"weight": 3, "preference": {"matchExpressions": [
                {"key": "kubernetes.io/hostname", "operator": "In", "values": ["n0", "n1"]}]}}]}}
        return NodeAffinity(None, env.handle), incoming, env
    if name in ("VolumeBinding", "NodeVolumeLimits"):
        # a claim bound to a CSI volume pinned to zone z0 (no CSINode sets a limit)
        pvc = {"kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "default",
                                                             "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
               "spec": {"volumeName": "pv-data"}, "status": {"phase": "Bound"}}
        pv = {"kind": "PersistentVolume", "metadata": {"name": "pv-data"},
              "spec": {"csi": {"driver": "disk.csi.example.com", "volumeHandle": "pv-data"},
                       "claimRef": {"name": "data", "namespace": "default"},
                       "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                           {"key": "zone", "operator": "In", "values": ["z0"]}]}]}}}}
        env = build(_zones(), _placed(), [pvc, pv])
        incoming["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]
        plugin = VolumeBinding(None, env.handle) if name == "VolumeBinding" else NodeVolumeLimits(None, env.handle)
        return plugin, incoming, env
    return NodeResourcesFit(None, env.handle), incoming, env


def _drifted_filter(original: Callable) -> Callable:
    def drifted(cycle):
        answer = original(cycle)
        return None if answer is None else ColumnFilter(lambda at: ~answer.verdicts(at), answer.certain)
    return drifted


def _drifted_score(original: Callable) -> Callable:
    def drifted(cycle, at):
        answer = original(cycle, at)
        if answer is None:
            return None
        return ColumnScores([v + 1 for v in answer.values], answer.at, answer.context)
    return drifted


def _drifted_normalize(original: Callable) -> Callable:
    def drifted(cycle, scores):
        answer = original(cycle, scores)
        return None if answer is None else [v - 1 for v in answer]
    return drifted


DRIFTS = {"filter": _drifted_filter, "score": _drifted_score, "normalize": _drifted_normalize}
POINTS = [(name, point) for name, facts in sorted(TWINNED.items()) for point in facts.twin.points]


@pytest.mark.parametrize("name, point", POINTS, ids=[f"{n}-{p}" for n, p in POINTS])
def test_a_drifting_twin_fails_the_harness(name: str, point: str, monkeypatch) -> None:
    """Each twin agrees on a case where the plugin's answers differ per node (NodeVolumeLimits',
    which answers only where every node passes, on such a case); the same twin changed to answer
    otherwise fails the check every YAML case goes through."""
    case = f"{name}-filter" if point == "filter" and name in ("PodTopologySpread", "InterPodAffinity") else name

    def run() -> None:
        plugin, incoming, env = _case(case)
        if point == "filter":
            statuses = run_filters(plugin, pod_info(incoming), env)
            if name == "NodeVolumeLimits":
                assert all(s is None for s in statuses.values()), statuses
            else:
                assert len({s is None for s in statuses.values()}) == 2, statuses  # some pass, some do not
        else:
            raw, normalized = run_scores(plugin, pod_info(incoming), env)
            assert len(set((normalized if point == "normalize" else raw).values())) > 1, (raw, normalized)

    run()  # the twin as it is agrees
    module = importlib.import_module(TWINNED[name].twin.module)
    function = TWIN_POINTS[point]
    monkeypatch.setattr(module, function, DRIFTS[point](getattr(module, function)))
    with pytest.raises(AssertionError, match="column twin"):
        run()


def test_a_twin_telling_other_statuses_fails_the_harness(monkeypatch) -> None:
    """The statuses a twin gives the nodes it rejects (VolumeBinding's) are checked word for
    word: the same twin giving another reason fails the check every YAML case goes through."""
    from kschedctl.framework.status import Status
    from kschedctl.plugins.volume_binding import columns as volume_columns

    def run() -> None:
        plugin, incoming, env = _case("VolumeBinding")
        statuses = run_filters(plugin, pod_info(incoming), env)
        assert len({s is None for s in statuses.values()}) == 2, statuses

    run()
    original = volume_columns.column_filter

    def other_reason(cycle):
        answer = original(cycle)

        def statuses(at):
            which, made = answer.statuses(at)
            return which, [Status(s.code, "node(s) had volume node affinity conflict", details=s.details)
                           for s in made]

        return ColumnFilter(answer.verdicts, answer.certain, statuses)

    monkeypatch.setattr(volume_columns, "column_filter", other_reason)
    with pytest.raises(AssertionError, match="column twin gives"):
        run()
