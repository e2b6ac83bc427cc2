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


# -- batches ---------------------------------------------------------------------------------

@pytest.mark.parametrize("index", [0, 13], ids=["seed 1 simulate case 0", "seed 1 simulate case 13 (preemption)"])
def test_the_differentials_batches_agree(control_plane: realcluster.ControlPlane, tmp_path: Path, index: int) -> None:
    """A batch of the in-process differential created pending at once: the real scheduler's
    attempts, in its queue's order, agree with kschedctl simulate's, and so do the placements,
    messages and preemptions (case 13: a pod preempts two running pods)."""
    from benchmarks import diffgen

    notes: list[str] = []
    assert realcluster.simulate_case(control_plane, diffgen.generate(1, index, "simulate"), tmp_path, notes) == []


def test_a_preemption_in_a_batch_is_read_from_the_log(control_plane: realcluster.ControlPlane,
                                                       tmp_path: Path) -> None:
    """The filler on n-a is preempted by the high-priority pod of the batch, which then binds
    there; the low-priority one tolerates n-b's taint and goes there."""
    pods = "---\n".join([_pod("urgent", "1", priority="high"), _pod("tolerant", "500m", tolerate=True)])
    cluster = realcluster.read_documents([_write(tmp_path / "cluster.yaml", NODES + "---" + RUNNING)])
    real = realcluster.batch(control_plane, cluster, list(yaml.safe_load_all(pods)), None,
                             snapshot=tmp_path / "snapshot.json")
    assert real["placements"]["default/urgent"]["outcome"] == "Scheduled"
    assert real["placements"]["default/urgent"]["node"] == "n-a"
    assert real["preemptions"] == [{"pod": "default/urgent", "node": "n-a", "victims": ["default/filler"]}]
    assert [a["pod"] for a in real["attempts"]][:2] == ["default/urgent", "default/tolerant"]
    assert real["attempts"][0]["victims"] == ["default/filler"] and real["attempts"][0]["nominatedNode"] == "n-a"
    ours, cycles, notes = realcluster.simulate_following(
        ["simulate", "--cluster", str(tmp_path / "snapshot.json"), "-o", "json"], real)
    assert realcluster.compare_batch(ours, cycles, real)[0] == []


def _write(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


LOG = [
    ("Attempting to schedule pod", {"pod": "default/p"}),
    ("the target node for the preemption is determined", {"node": "n-1", "pod": "default/p"}),
    ("Start the preemption asynchronously", {"preemptor": "default/p", "node": "n-1", "numVictims": "2"}),
    ("Unable to schedule pod; no fit; waiting", {"pod": "default/p", "err": "0/2 nodes are available: ..."}),
    ("Preemptor Pod preempted victim Pod", {"preemptor": "default/p", "victim": "default/v1", "node": "n-1"}),
    ("Delete event for scheduled pod", {"pod": "default/v1"}),
    ("Attempting to schedule pod", {"pod": "default/q"}),
    ("Attempting to bind pod to node", {"pod": "default/q", "node": "n-2"}),
    ("Preemptor Pod preempted victim Pod", {"preemptor": "default/p", "victim": "default/v2", "node": "n-1"}),
    ("Delete event for scheduled pod", {"pod": "default/v2"}),
    ("Successfully bound pod to node", {"pod": "default/q", "node": "n-2", "evaluatedNodes": "2", "feasibleNodes": "1"}),
    ("Attempting to schedule pod", {"pod": "default/p"}),
    ("Attempting to bind pod to node", {"pod": "default/p", "node": "n-1"}),
]


@pytest.mark.parametrize("attempt,expected", [
    (0, {"pod": "default/p", "outcome": "Unschedulable", "nominatedNode": "n-1", "victims": ["default/v1", "default/v2"],
         "inFlight": False, "goneBefore": []}),
    # v2 was still in the cache when q was tried: q saw the cluster as it was before p's preemption
    (1, {"pod": "default/q", "outcome": "Scheduled", "node": "n-2", "inFlight": True, "goneBefore": ["default/v1"],
         "evaluated": 2}),
    (2, {"pod": "default/p", "outcome": "Scheduled", "node": "n-1", "inFlight": False,
         "goneBefore": ["default/v1", "default/v2"]}),
])
def test_the_attempts_are_read_from_the_schedulers_log(attempt: int, expected: dict) -> None:
    """No control plane needed: the log's lines, in order, make the attempts."""
    attempts, bindings, preempted = realcluster.read_attempts(LOG)
    assert len(attempts) == 3
    assert {k: attempts[attempt].get(k) for k in expected} == expected
    assert bindings == [("default/q", "n-2", 2)]
    assert preempted == {("default/p", "n-1"): ["default/v1", "default/v2"]}


def test_a_preemption_that_deletes_its_victims_within_the_attempt_is_read_too() -> None:
    """scheduler-plugins' PreemptionToleration runs its evaluator synchronously: no
    "asynchronously" line, the victims deleted before the attempt ends; they are that attempt's."""
    log = [
        ("Attempting to schedule pod", {"pod": "default/p"}),
        ("the target node for the preemption is determined", {"node": "n2", "pod": "default/p"}),
        ("Preemptor Pod preempted victim Pod", {"preemptor": "default/p", "victim": "default/v2", "node": "n2"}),
        ("Preemptor Pod preempted victim Pod", {"preemptor": "default/p", "victim": "default/v1", "node": "n2"}),
        ("Unable to schedule pod; no fit; waiting", {"pod": "default/p", "err": "0/2 nodes are available: ..."}),
    ]
    attempts, _, preempted = realcluster.read_attempts(log)
    assert [(a["pod"], a["outcome"], a["nominatedNode"], a["victims"]) for a in attempts] == [
        ("default/p", "Unschedulable", "n2", ["default/v1", "default/v2"])]
    assert preempted == {("default/p", "n2"): ["default/v2", "default/v1"]}


def test_klog_values_are_unquoted_as_go_quoted_them(tmp_path: Path) -> None:
    log = tmp_path / "kube-scheduler.log"
    log.write_text('I1128 08:57:03.760573   16045 node_tree.go:65] "Added node to NodeTree" node="n-000" '
                   'zone="region-1:\\x00:zone-a"\n'
                   'I1128 08:57:04.000001   16045 schedule_one.go:1077] "Unable to schedule pod; no fit; waiting" '
                   'pod="default/p" err="0/1 nodes are available: 1 node(s) didn\'t match Pod\'s node '
                   'affinity/selector, \\"quoted\\"."\nnot a klog line\n')
    cp = realcluster.ControlPlane(tmp_path)
    assert realcluster.scheduler_log(cp) == [
        ("Added node to NodeTree", {"node": "n-000", "zone": "region-1:\x00:zone-a"}),
        ("Unable to schedule pod; no fit; waiting",
         {"pod": "default/p", "err": "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, "
                                     '"quoted".'})]


# -- an extender ----------------------------------------------------------------------------

THREE_NODES = "---\n".join(
    f"""apiVersion: v1
kind: Node
metadata: {{name: {n}, labels: {{kubernetes.io/hostname: {n}}}}}
status: {{allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}, capacity: {{cpu: "4", memory: 8Gi, pods: "110"}}}}
""" for n in ("n-a", "n-b", "n-c"))


@pytest.mark.parametrize("pod,outcome,node", [
    # the extender rejects n-c and scores n-a 4, n-b 8 (x10 x weight 3): n-b wins
    ("ext-16", "Scheduled", "n-b"),
    # it rejects every node: its reason is in the FailedScheduling message
    ("ext-27", "Unschedulable", None),
])
def test_a_real_http_extender_is_called_by_both_engines(control_plane: realcluster.ControlPlane, tmp_path: Path,
                                                        pod: str, outcome: str, node: str | None) -> None:
    nodes = ("n-a", "n-b", "n-c")
    rejected = [realcluster.TestExtender.draw(f"default/{pod}", n) % 3 == 0 for n in nodes]
    assert rejected == ([False, False, True] if outcome == "Scheduled" else [True, True, True])
    with realcluster.TestExtender() as extender:
        config = realcluster.with_extender(None, extender.config())
        (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
        cluster = realcluster.read_documents([_write(tmp_path / "cluster.yaml", THREE_NODES)])
        real = realcluster.explain(control_plane, cluster, [yaml.safe_load(_pod(pod, "500m"))], config)
        real_calls = dict(extender.calls)
        ours = run_kschedctl(["explain", _write(tmp_path / "pod.yaml", _pod(pod, "500m")), "--cluster",
                              str(tmp_path / "cluster.yaml"), "--config", str(tmp_path / "config.yaml"), "-o", "json"])
        our_calls = {verb: n - real_calls.get(verb, 0) for verb, n in extender.calls.items()}
    assert real["outcome"] == outcome and real["selectedNode"] == node
    if outcome == "Unschedulable":
        assert real["message"].startswith("0/3 nodes are available: 3 rejected by the test extender.")
    assert realcluster.compare(ours, real) == []
    assert ours["message"] == real["message"]
    assert real_calls.get("filter") and our_calls.get("filter")  # both engines asked it
    if outcome == "Scheduled":
        assert real_calls.get("prioritize") and our_calls.get("prioritize")


def test_the_differential_runs_batches_and_the_extender(control_plane: realcluster.ControlPlane, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """``--simulate-cases`` and ``--extender-cases`` through the differential: one explain case
    and one batch, then both again with the extender in their configuration."""
    mismatches, found = realcluster.differential(control_plane, seed=1, cases=1, workdir=tmp_path, simulate_cases=1,
                                                 extender_cases=1)
    assert found == []
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "4 cases, 0 mismatches"
    assert any(line.startswith("extender calls: filter ") for line in out)


def _millicores(value: str) -> int:
    return int(value[:-1]) if value.endswith("m") else int(float(value) * 1000)


@pytest.mark.parametrize("index", [18, 24, 37, 101, 124, 143, 145])
def test_generated_pod_level_requests_cover_an_init_container(index: int) -> None:
    """Seed 1's explain cases the API server refused ("must be greater than or equal to aggregate
    container requests"): a pod's own requests now cover its init container's and its containers'
    sum, sidecars included. No control plane needed."""
    from benchmarks import diffgen

    case = diffgen.generate(1, index, "explain")
    checked = 0
    for pod in [o for o in case.cluster if o.get("kind") == "Pod"] + case.pods:
        level = ((pod["spec"].get("resources") or {}).get("requests") or {}).get("cpu")
        if level is None:
            continue

        def cpu(c: dict) -> int:
            resources = c.get("resources") or {}
            value = (resources.get("requests") or {}).get("cpu") or (resources.get("limits") or {}).get("cpu")
            return _millicores(value) if value else 0

        inits = pod["spec"].get("initContainers") or []
        sidecars = sum(cpu(c) for c in inits if c.get("restartPolicy") == "Always")
        regular = max([cpu(c) for c in inits if c.get("restartPolicy") != "Always"] or [0])
        assert _millicores(level) >= max(sum(cpu(c) for c in pod["spec"]["containers"]) + sidecars, regular), pod
        checked += 1
    assert checked
