"""`kschedctl explain` end to end through the CLI: each outcome and its exit code,
--all-filters, --seed, --profile with two profiles, --plugin, and the JSON shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.cli.helpers import run_cli

CONFIG = str(Path(__file__).resolve().parent.parent / "scheduler" / "cases" / "config-implemented.yaml")


def test_without_cluster_and_without_kubeconfig_is_a_clear_error(monkeypatch, tmp_path) -> None:
    # Without --cluster the live cluster of the kubeconfig is read; with none to be found, say so.
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    result = run_cli("explain", "pod.yaml")
    assert result.exit_code == 2
    assert "no kubeconfig found" in result.stderr
    assert "Traceback" not in result.stderr


def node(name: str, cpu: str = "4", taints: list | None = None) -> dict:
    n = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
         "status": {"allocatable": {"cpu": cpu, "memory": "32Gi", "pods": "110"},
                    "capacity": {"cpu": cpu, "memory": "32Gi", "pods": "110"}}}
    if taints:
        n["spec"] = {"taints": taints}
    return n


def running(name: str, node_name: str, cpu: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"nodeName": node_name, "containers": [{"name": "c", "image": "app",
                                                            "resources": {"requests": {"cpu": cpu}}}]},
            "status": {"phase": "Running"}}


def pod(cpu: str = "1", name: str = "web", **spec) -> dict:
    p = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
         "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}]}}
    p["spec"].update(spec)
    return p


def write(path: Path, *docs: dict) -> str:
    path.write_text(yaml.safe_dump_all(list(docs)), encoding="utf-8")
    return str(path)


@pytest.fixture
def env(tmp_path: Path):
    cluster = write(tmp_path / "cluster.yaml", node("node-a"), node("node-b"), node("node-c"),
                    running("x", "node-a", "2"), running("y", "node-b", "1"))
    return tmp_path, cluster


def explain(tmp_path: Path, cluster: str, the_pod: dict, *args: str):
    pod_file = write(tmp_path / "pod.yaml", the_pod)
    return run_cli("explain", pod_file, "--cluster", cluster, "--config", CONFIG, *args)


def test_scheduled_exit_0_and_table(env) -> None:
    tmp_path, cluster = env
    result = explain(tmp_path, cluster, pod(), "--seed", "1")
    assert result.exit_code == 0, result.stderr
    assert "Scheduled" in result.stdout and "node-c" in result.stdout


def test_unschedulable_exit_1_with_upstream_message(env) -> None:
    tmp_path, cluster = env
    result = explain(tmp_path, cluster, pod("8"), "-o", "json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["outcome"] == "Unschedulable"
    assert data["message"] == "0/3 nodes are available: 3 Insufficient cpu."


def test_gated_exit_1(env) -> None:
    tmp_path, cluster = env
    result = explain(tmp_path, cluster, pod(schedulingGates=[{"name": "wait"}]), "-o", "json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["outcome"] == "Gated"


REJECT_PLUGIN = '''
from kschedctl.framework.status import Code, Status


class RejectOnPermit:
    name = "RejectOnPermit"

    def __init__(self, args=None, handle=None):
        self.args = args

    def permit(self, state, pod_info, node_name):
        return Status(Code.Unschedulable, "on permit"), 0
'''


def test_rejected_by_a_custom_permit_plugin(env) -> None:
    tmp_path, cluster = env
    (tmp_path / "reject.py").write_text(REJECT_PLUGIN, encoding="utf-8")
    cfg = yaml.safe_load(Path(CONFIG).read_text(encoding="utf-8"))
    cfg["profiles"] = cfg["profiles"][:1]
    cfg["profiles"][0]["plugins"]["permit"] = {"enabled": [{"name": "RejectOnPermit"}]}
    config = write(tmp_path / "config.yaml", cfg)
    pod_file = write(tmp_path / "pod.yaml", pod())
    result = run_cli("explain", pod_file, "--cluster", cluster, "--config", config,
                     "--plugin", f"{tmp_path / 'reject.py'}:RejectOnPermit", "-o", "json")
    assert result.exit_code == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["outcome"] == "Rejected"
    assert data["message"] == "0/1 nodes are available: 1 on permit."


def test_all_filters_lists_every_filter(env) -> None:
    tmp_path, _ = env
    cluster = write(tmp_path / "c2.yaml", node("node-a", taints=[{"key": "k", "effect": "NoSchedule"}]))
    first = json.loads(explain(tmp_path, cluster, pod("8"), "-o", "json").stdout)
    every = json.loads(explain(tmp_path, cluster, pod("8"), "-o", "json", "--all-filters").stdout)
    assert [f["plugin"] for f in first["nodes"][0]["filters"]][-1] == "TaintToleration"
    assert [f["plugin"] for f in every["nodes"][0]["filters"]][-1] == "NodeResourcesFit"
    assert first["message"] == every["message"]


def test_seed_is_reproducible(tmp_path: Path) -> None:
    cluster = write(tmp_path / "c.yaml", *[node(f"node-{i}") for i in range(6)])
    picks = {json.loads(explain(tmp_path, cluster, pod(), "-o", "json", "--seed", "42").stdout)["selectedNode"]
             for _ in range(3)}
    assert len(picks) == 1


def test_profile_flag_picks_the_second_profile(env) -> None:
    tmp_path, cluster = env
    default = json.loads(explain(tmp_path, cluster, pod(), "-o", "json").stdout)
    packing = json.loads(explain(tmp_path, cluster, pod(), "-o", "json", "--profile", "bin-packing").stdout)
    assert (default["profile"], default["selectedNode"]) == ("default-scheduler", "node-c")
    assert (packing["profile"], packing["selectedNode"]) == ("bin-packing", "node-a")
    unknown = explain(tmp_path, cluster, pod(), "--profile", "nope")
    assert unknown.exit_code == 2 and "nope" in unknown.stderr


def test_json_and_yaml_shapes_and_lists(env) -> None:
    tmp_path, cluster = env
    data = json.loads(explain(tmp_path, cluster, pod(), "-o", "json").stdout)
    for key in ("kind", "pod", "profile", "outcome", "selectedNode", "message", "evaluatedNodes", "feasibleNodes",
                "stages", "nodes", "preemption"):
        assert key in data
    assert yaml.safe_load(explain(tmp_path, cluster, pod(), "-o", "yaml").stdout)["kind"] == "ExplainResult"
    two = write(tmp_path / "two.yaml", pod(name="a"), pod(name="b"))
    result = run_cli("explain", two, "--cluster", cluster, "--config", CONFIG, "-o", "json")
    listed = json.loads(result.stdout)
    assert listed["kind"] == "ExplainResultList" and [i["pod"] for i in listed["items"]] == ["default/a", "default/b"]


def test_wide_and_node_views(env) -> None:
    tmp_path, cluster = env
    assert "NodeResourcesFit" in explain(tmp_path, cluster, pod(), "--wide").stdout
    one = explain(tmp_path, cluster, pod(), "--node", "node-b")
    assert one.exit_code == 0 and "Node node-b" in one.stdout


def test_metrics_option_feeds_the_trimaran_plugins() -> None:
    args = ["explain", "-c", "profiles/trimaran.yaml", "--profile", "load-packing", "--cluster",
            "profiles/scenarios/cluster/load.yaml", "profiles/scenarios/pods/load-web.yaml", "-o", "json"]
    with_metrics = run_cli(*args, "--metrics", "profiles/scenarios/cluster/load-metrics.json")
    assert with_metrics.exit_code == 0, with_metrics.stderr
    result = json.loads(with_metrics.stdout)
    assert result["selectedNode"] == "node-l2" and not result.get("warnings")
    without = json.loads(run_cli(*args).stdout)
    assert without["warnings"] == ["TargetLoadPacking: no load metrics were given (--metrics FILE); every node "
                                   "scores 0, as upstream does when the load watcher has no data"]
    bad = run_cli(*args, "--metrics", "profiles/trimaran.yaml")
    assert bad.exit_code == 2 and bad.stdout == ""
    assert "profiles/trimaran.yaml" in bad.stderr and "Traceback" not in bad.stderr


def test_a_resource_shortfall_writes_its_cpu_amounts_in_one_unit() -> None:
    # "64 requested, 700m of 3920m in use" mixed cores and millicores in one line.
    root = Path(__file__).resolve().parents[2]
    result = run_cli("explain", str(root / "fixtures" / "pods" / "too-big.yaml"),
                     "--cluster", str(root / "fixtures" / "cluster"), "--width", "200")
    assert result.exit_code == 1, result.stderr
    assert "64 requested, 0.7 of 3.92 in use (cpu)" in result.stdout
    assert "700m" not in result.stdout


def test_all_filters_asks_a_filter_that_passed_only_with_the_nominated_pods_again_without_them(tmp_path: Path) -> None:
    """Upstream runs the chain with the nominated pods of equal or higher priority added, then,
    if it passed, again without them. On node-a the chain fails at NodeResourcesFit (the nominated
    pod takes the cpu), so upstream stops; the pod affinity to app=db passes there only because
    the nominated db pod is counted on node-a. --all-filters shows each filter under upstream's
    rule on its own, so InterPodAffinity fails node-a as the second pass would (found by a fresh
    seed of the differential: 427761294 explain case 282)."""
    high = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
            "value": 1000}
    db = running("db", "node-b", "1")
    db["metadata"]["labels"] = {"app": "db"}
    nominated = pod("1500m", name="early", priorityClassName="high")
    nominated["metadata"].update(namespace="default", labels={"app": "db"})
    nominated["status"] = {"nominatedNodeName": "node-a"}
    cluster = write(tmp_path / "cluster.yaml", high, node("node-a", cpu="1"), node("node-b"), db, nominated)
    affinity = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    pods = write(tmp_path / "pod.yaml", pod("500m", name="near-db", affinity=affinity))
    for flags in ((), ("--all-filters",)):
        result = run_cli("explain", pods, "--cluster", cluster, *flags, "-o", "json")
        assert result.exit_code == 0, result.stderr
        answer = json.loads(result.stdout)
        assert (answer["outcome"], answer["selectedNode"]) == ("Scheduled", "node-b")
    filters = {f["plugin"]: f for n in answer["nodes"] if n["name"] == "node-a" for f in n["filters"]}
    assert filters["NodeResourcesFit"]["reasons"] == ["Insufficient cpu"]
    assert (filters["InterPodAffinity"]["code"], filters["InterPodAffinity"]["reasons"]) == (
        "UnschedulableAndUnresolvable", ["node(s) didn't match pod affinity rules"])
    assert all(filters[name]["code"] == "Success" for name in ("NodeUnschedulable", "TaintToleration"))
