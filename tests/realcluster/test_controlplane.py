"""The real control plane (benchmarks.realcluster) and kschedctl beside it: the binaries say
v1.34.4, objects go in as a cluster file describes them, and kube-scheduler's own decisions
agree with kschedctl explain (the node is in kschedctl's top-scoring set, the FailedScheduling
message is the same word for word, preemption nominates the same node and victims)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from benchmarks import realcluster
from benchmarks.differential import run_kschedctl

ROOT = Path(__file__).resolve().parents[2]


def test_every_binary_says_v1_34_4(control_plane: realcluster.ControlPlane) -> None:
    assert control_plane.admin.get("version")["gitVersion"] == "v1.34.4"
    out = subprocess.run([str(control_plane.bin_dir / "kube-scheduler"), "--version"], capture_output=True, text=True)
    assert out.stdout.strip() == "Kubernetes v1.34.4"
    etcd = subprocess.run([str(control_plane.bin_dir / "etcd"), "--version"], capture_output=True, text=True)
    assert "etcd Version: 3.6.4" in etcd.stdout


NODES = """
apiVersion: v1
kind: Node
metadata: {name: n-a, labels: {kubernetes.io/hostname: n-a, topology.kubernetes.io/zone: zone-a}}
spec: {}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}, capacity: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n-b, labels: {kubernetes.io/hostname: n-b, topology.kubernetes.io/zone: zone-b}}
spec: {taints: [{key: dedicated, value: a, effect: NoSchedule}]}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}, capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: low}
value: 100
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
"""

RUNNING = """
apiVersion: v1
kind: Pod
metadata: {name: filler, namespace: default, labels: {app: db}}
spec:
  nodeName: n-a
  priorityClassName: low
  containers: [{name: c, image: app:1, resources: {requests: {cpu: 1500m, memory: 1Gi}}}]
status: {phase: Running, startTime: "2026-01-01T00:00:00Z"}
"""


def _pod(name: str, cpu: str, *, priority: str | None = None, tolerate: bool = False) -> str:
    spec: dict = {"containers": [{"name": "c", "image": "app:1", "resources": {"requests": {"cpu": cpu}}}]}
    if priority:
        spec["priorityClassName"] = priority
    if tolerate:
        spec["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
    return yaml.safe_dump({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
                           "spec": spec})


CASES = [
    # (case, cluster documents, pod, expected outcome, expected node or nominated node)
    ("fits on the untainted node", NODES, _pod("small", "500m"), "Scheduled", "n-a"),
    ("tolerates the taint, most room", NODES, _pod("tolerant", "500m", tolerate=True), "Scheduled", "n-b"),
    ("too big everywhere", NODES, _pod("huge", "8"), "Unschedulable", None),
    ("taint and the running pod's cpu", NODES + "---" + RUNNING, _pod("mid", "1"), "Unschedulable", None),
    ("preempts the low-priority filler", NODES + "---" + RUNNING, _pod("urgent", "1", priority="high"),
     "Unschedulable", "n-a"),
]


@pytest.mark.parametrize("case,cluster,pod,outcome,node", CASES, ids=[c[0] for c in CASES])
def test_the_real_scheduler_agrees_with_kschedctl(control_plane: realcluster.ControlPlane, tmp_path: Path,
                                                   case: str, cluster: str, pod: str, outcome: str,
                                                   node: str | None) -> None:
    (tmp_path / "cluster.yaml").write_text(cluster)
    (tmp_path / "pod.yaml").write_text(pod)
    docs = realcluster.read_documents([str(tmp_path / "cluster.yaml")])
    pods = realcluster.read_documents([str(tmp_path / "pod.yaml")])
    real = realcluster.explain(control_plane, docs, pods, None)
    assert real["outcome"] == outcome, real
    if outcome == "Scheduled":
        assert real["selectedNode"] == node
    elif node:
        assert real["preemption"] == {"nominatedNode": node, "victims": ["default/filler"]}
    else:
        assert real["message"].startswith("0/2 nodes are available: ")
    ours = run_kschedctl(["explain", str(tmp_path / "pod.yaml"), "--cluster", str(tmp_path / "cluster.yaml"),
                          "-o", "json"])
    assert realcluster.compare(ours, real) == []


def test_new_nodes_keep_only_their_own_taints(control_plane: realcluster.ControlPlane, tmp_path: Path) -> None:
    """Admission taints every new Node not-ready; without a kubelet nothing would lift it."""
    control_plane.stop_scheduler()
    control_plane.clear()
    control_plane.load(yaml.safe_load_all(NODES))
    taints = {n["metadata"]["name"]: n["spec"].get("taints") for n in control_plane.admin.get("api/v1/nodes")["items"]}
    assert taints == {"n-a": None, "n-b": [{"key": "dedicated", "value": "a", "effect": "NoSchedule"}]}


def test_the_differentials_cases_agree(control_plane: realcluster.ControlPlane, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """The in-process differential's first cases, through kube-scheduler as it runs."""
    mismatches, found = realcluster.differential(control_plane, seed=1, cases=8, workdir=tmp_path)
    assert found == []
    assert capsys.readouterr().out.splitlines()[-1] == "8 cases, 0 mismatches"


def test_the_command_answers_as_kschedctl_explain_does(binaries: Path) -> None:
    """End to end: the command starts its own control plane, answers in kschedctl's JSON form."""
    args = ["explain", "fixtures/pods/pod.yaml", "--cluster", "fixtures/cluster", "-o", "json"]
    out = subprocess.run([sys.executable, "-m", "benchmarks.realcluster", *args], cwd=ROOT, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    real = json.loads(out.stdout)
    assert real["kind"] == "ExplainResult" and real["pod"] == "default/hello"
    ours = run_kschedctl([*args[:1], str(ROOT / args[1]), "--cluster", str(ROOT / args[3]), "-o", "json"])
    assert realcluster.compare(ours, real) == []


def test_a_batch_lands_where_kschedctl_simulate_puts_it(control_plane: realcluster.ControlPlane,
                                                        tmp_path: Path) -> None:
    """Pods created together, scheduled one after another by the real scheduler: three fit on
    n-a (the only node they tolerate), the fourth no longer does."""
    pods = "---\n".join([_pod("batch-1", "500m"), _pod("batch-2", "500m"), _pod("batch-3", "500m"),
                         _pod("batch-4", "1")])
    (tmp_path / "cluster.yaml").write_text(NODES)
    (tmp_path / "pods.yaml").write_text(pods)
    real = realcluster.simulate(control_plane, realcluster.read_documents([str(tmp_path / "cluster.yaml")]),
                                realcluster.read_documents([str(tmp_path / "pods.yaml")]), None)
    placed = {p["pod"]: (p["outcome"], p["node"]) for p in real["placements"]}
    assert placed == {"default/batch-1": ("Scheduled", "n-a"), "default/batch-2": ("Scheduled", "n-a"),
                      "default/batch-3": ("Scheduled", "n-a"), "default/batch-4": ("Unschedulable", "")}
    ours = run_kschedctl(["simulate", str(tmp_path / "pods.yaml"), "--cluster", str(tmp_path / "cluster.yaml"),
                          "-o", "json"])
    assert {p["pod"]: (p["outcome"], p.get("node") or "") for p in ours["placements"]} == placed


def test_a_configuration_the_scheduler_rejects_is_one_line_and_exit_2(binaries: Path, tmp_path: Path) -> None:
    """A plugin no scheduler binary has (scheduler-plugins' own go to kube-scheduler-sigs, see
    test_sigs_plugins.py): kube-scheduler exits, and the command says why."""
    (tmp_path / "config.yaml").write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
        "- schedulerName: default-scheduler\n  plugins:\n"
        "    queueSort: {enabled: [{name: NoSuchSort}], disabled: [{name: '*'}]}\n")
    out = subprocess.run([sys.executable, "-m", "benchmarks.realcluster", "explain", "fixtures/pods/pod.yaml",
                          "--cluster", "fixtures/cluster", "--config", str(tmp_path / "config.yaml"), "-o", "json"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 2
    assert out.stdout == ""
    assert out.stderr.count("\n") == 1 and 'QueueSortPlugin \\"NoSuchSort\\" does not exist' in out.stderr
