"""scheduler_perf-like workloads through ``kschedctl simulate``: pods scheduled per second.

    python3 -m benchmarks.simulate                       # every workload, default profile
    python3 -m benchmarks.simulate --workload SchedulingBasic --pods 1000
    python3 -m benchmarks.simulate --config tests/scheduler/cases/config-implemented.yaml
    python3 -m benchmarks.simulate --workload SchedulingBasic --profile-out /tmp/sim.prof
    python3 -m benchmarks.simulate --oracle oracle/bin/kschedctl-oracle   # upstream beside kschedctl

Modelled on kubernetes/test/integration/scheduler_perf (nodes of 4 CPU / 32Gi / 110 pods,
pods requesting 100m / 500Mi): ``createNodes``, ``createPods`` for the initial pods (bound here,
as the snapshot holds them once scheduled), then the measured pods scheduled by the simulation.
"load" builds the snapshot and the frameworks; pods/s counts only the measured batch, the way
scheduler_perf's SchedulingThroughput does. Upstream's thresholds are printed alongside
(the 2024 values the issue names; upstream raised SchedulingBasic to 680 in 2026).

Workloads (upstream name -> here):
- SchedulingBasic/5000Nodes: 5,000 nodes, 1,000 initial pods, 1,000 measured pods (pod-default).
- TopologySpreading/5000Nodes: 5,000 nodes in 3 zones, 5,000 initial pods, measured pods with a
  zone spread constraint (maxSkew 5, DoNotSchedule).
- SchedulingPodAntiAffinity/5000Nodes: 5,000 nodes, 1,000 initial anti-affinity pods (one per
  host), measured anti-affinity pods of the same color.
- PreemptionBasic/1000Nodes: 1,000 nodes full of 4 low-priority pods (900m each), 1,000 measured
  high-priority pods (3 CPU) that must preempt.

The rollouts users actually run (the replicas of a Deployment carry their ReplicaSet as owner,
so PodTopologySpread's system default constraints apply, as in a real cluster), on 5,000 nodes
with 10 running pods each:
- DeploymentRollout: 1,000 replicas, nothing else set.
- DeploymentZoneSpread: 1,000 replicas with a zone spread constraint (maxSkew 5, DoNotSchedule).
- DeploymentAntiAffinity: 1,000 replicas with required anti-affinity on the hostname.
- DeploymentPreemption: 5,000 nodes filled by low-priority pods, then 500 high-priority replicas.
- DeploymentRolloutAffinityCluster: the plain rollout on a cluster whose running pods (40 apps,
  3 namespaces) carry required hostname anti-affinity (one in ten) and zone spread constraints
  (one in ten).

With ``--oracle``, each workload also runs through upstream's own scheduler (``oracle/``, built
by ``make -C oracle``): the same nodes, pods and configuration written as files, its scheduling
loop running freely (binding cycles beside the next pods' scheduling cycles) over a fake API
server, timed from the first cycle until the queue is empty. Its pods/s and kschedctl's ratio
to it are printed beside kschedctl's figures: CPU time against CPU time (the oracle measures its
loop with ``getrusage``, every thread of the process, as kschedctl's pods/CPU-s count its one
thread), and wall time against wall time beside it. The DRA workload needs the resourceclaim
controller to make claims from templates, which the oracle does not run: it is skipped there.

Dynamic Resource Allocation, after scheduler_perf's SchedulingWithResourceClaimTemplate:
- SchedulingWithResourceClaimTemplate/1000Nodes: 1,000 nodes with 8 devices each (one
  ResourceSlice per node), 1,000 running pods holding one allocated device each, then 1,000 pods
  each with a claim from a ResourceClaimTemplate (one device of the class, with a CEL selector
  on the device's memory).
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Callable

from benchmarks.synthetic import anti_affinity_spec, node, perf_pod, priority_class, topology_spread_spec

#: Upstream scheduler_perf thresholds (pods/s) the issue compares against.
THRESHOLDS = {"SchedulingBasic": 270, "TopologySpreading": 85, "SchedulingPodAntiAffinity": None,
              "PreemptionBasic": 160}
#: The goals of kschedctl's own performance issue for the rollout workloads (pods/s, 2 cores).
GOALS = {"DeploymentRollout": 500, "DeploymentZoneSpread": 300, "DeploymentAntiAffinity": 100,
         "DeploymentPreemption": 100}


@dataclass
class Workload:
    name: str
    nodes: int
    build: Callable[[int, int], tuple[list[dict], list[dict], list[dict], dict]]
    init_pods: int
    measure_pods: int


def _basic(num_nodes: int, init_pods: int, measure: int, spec: Callable[[], dict] | None = None,
           labels: dict | None = None) -> tuple[list[dict], list[dict], list[dict], dict]:
    nodes = [node(i) for i in range(num_nodes)]
    names = [n["metadata"]["name"] for n in nodes]
    init = [perf_pod(f"init-{i:06d}", node_name=names[i % num_nodes], labels=labels,
                     extra_spec=spec() if spec else None) for i in range(init_pods)]
    pods = [perf_pod(f"pod-{i:06d}", labels=labels, extra_spec=spec() if spec else None) for i in range(measure)]
    return nodes, init, pods, {}


def scheduling_basic(n: int, init: int, measure: int):
    return _basic(n, init, measure)


def topology_spreading(n: int, init: int, measure: int):
    nodes = [node(i) for i in range(n)]
    names = [x["metadata"]["name"] for x in nodes]
    init_pods = [perf_pod(f"init-{i:06d}", node_name=names[i % n]) for i in range(init)]
    pods = [perf_pod(f"spreading-pod-{i:06d}", labels={"color": "blue"}, extra_spec=topology_spread_spec())
            for i in range(measure)]
    return nodes, init_pods, pods, {}


def anti_affinity(n: int, init: int, measure: int):
    nodes = [node(i) for i in range(n)]
    names = [x["metadata"]["name"] for x in nodes]
    init_pods = [perf_pod(f"init-{i:06d}", node_name=names[i % n], labels={"color": "green"},
                          extra_spec=anti_affinity_spec()) for i in range(min(init, n))]
    pods = [perf_pod(f"anti-affinity-pod-{i:06d}", labels={"color": "green"}, extra_spec=anti_affinity_spec())
            for i in range(measure)]
    return nodes, init_pods, pods, {}


def preemption(n: int, init: int, measure: int):
    nodes = [node(i) for i in range(n)]
    names = [x["metadata"]["name"] for x in nodes]
    classes = {"low": priority_class("low", 0), "high": priority_class("high", 10)}
    init_pods = [perf_pod(f"low-{i:06d}", cpu="900m", node_name=names[i % n], priority_class="low")
                 for i in range(init)]
    pods = [perf_pod(f"high-{i:06d}", cpu="3000m", priority_class="high") for i in range(measure)]
    return nodes, init_pods, pods, classes


def _replica_set(name: str, labels: dict[str, str]) -> dict:
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-rs-{name}"},
            "spec": {"replicas": 1000, "selector": {"matchLabels": dict(labels)},
                     "template": {"metadata": {"labels": dict(labels)}}}}


def _replicas(count: int, rs: dict, cpu: str = "100m", extra_spec: Callable[[], dict] | None = None,
              priority_class: str | None = None) -> list[dict]:
    labels = rs["spec"]["selector"]["matchLabels"]
    owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs["metadata"]["name"],
             "uid": rs["metadata"]["uid"], "controller": True}
    pods = []
    for i in range(count):
        pod = perf_pod(f"{rs['metadata']['name']}-{i:05d}", cpu=cpu, labels=labels, priority_class=priority_class,
                       extra_spec=extra_spec() if extra_spec else None)
        pod["metadata"]["ownerReferences"] = [dict(owner)]
        pods.append(pod)
    return pods


def _rollout(n: int, init: int, measure: int, extra_spec: Callable[[], dict] | None = None):
    nodes = [node(i) for i in range(n)]
    names = [x["metadata"]["name"] for x in nodes]
    init_pods = [perf_pod(f"init-{i:06d}", node_name=names[i % n]) for i in range(init)]
    rs = _replica_set("web-5f8d7c9b4", {"app": "web"})
    return nodes, init_pods, _replicas(measure, rs, extra_spec=extra_spec), {"__replica_sets__": [rs]}


def deployment_rollout(n: int, init: int, measure: int):
    return _rollout(n, init, measure)


def deployment_zone_spread(n: int, init: int, measure: int):
    return _rollout(n, init, measure, lambda: topology_spread_spec(labels={"app": "web"}))


def deployment_anti_affinity(n: int, init: int, measure: int):
    return _rollout(n, init, measure, lambda: anti_affinity_spec(labels={"app": "web"}))


def _affinity_cluster_pods(names: list[str], init: int) -> list[dict]:
    """Running pods of 40 apps in 3 namespaces, one in ten with required hostname anti-affinity
    to its own app, one in ten with a zone spread constraint (what issue-sized real clusters
    hold, and what makes InterPodAffinity and PodTopologySpread walk existing pods)."""
    pods = []
    for i in range(init):
        app = {"app": f"app-{i % 40:02d}"}
        extra = None
        if i % 10 == 3:
            extra = anti_affinity_spec(labels=app)
        elif i % 10 == 7:
            extra = topology_spread_spec(labels=app)
        pods.append(perf_pod(f"init-{i:06d}", node_name=names[i % len(names)], labels=app, extra_spec=extra,
                             namespace=("default", "shop", "batch")[i % 3]))
    return pods


def deployment_rollout_affinity_cluster(n: int, init: int, measure: int):
    nodes = [node(i) for i in range(n)]
    init_pods = _affinity_cluster_pods([x["metadata"]["name"] for x in nodes], init)
    rs = _replica_set("web-5f8d7c9b4", {"app": "web"})
    return nodes, init_pods, _replicas(measure, rs), {"__replica_sets__": [rs]}


def deployment_preemption(n: int, init: int, measure: int):
    # PreemptionBasic's full nodes, with the preemptors a Deployment's replicas.
    nodes, init_pods, _, classes = preemption(n, init, 0)
    rs = _replica_set("batch-7c9d5f6b8", {"app": "batch"})
    pods = _replicas(measure, rs, cpu="3000m", priority_class="high")
    return nodes, init_pods, pods, {**classes, "__replica_sets__": [rs]}


#: The DRA workload's driver and devices per node (scheduler_perf's SchedulingWithResourceClaimTemplate
#: shape: a made-up driver publishing one ResourceSlice per node, one claim template per pod).
DRA_DRIVER = "test-driver.cdi.k8s.io"
DRA_DEVICES_PER_NODE = 8


def _dra_objects(n: int) -> dict:
    slices = {}
    for i in range(n):
        name = f"node-{i:05d}"
        slices[f"{name}-slice"] = {
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{name}-slice"},
            "spec": {"driver": DRA_DRIVER, "nodeName": name,
                     "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": f"device-{d}", "attributes": {"index": {"int": d}},
                                  "capacity": {"memory": {"value": "40Gi"}}} for d in range(DRA_DEVICES_PER_NODE)]}}
    device_class = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "test-class"},
                    "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRA_DRIVER}"'}}]}}
    template = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                "metadata": {"name": "test-claim-template", "namespace": "default"},
                "spec": {"spec": {"devices": {"requests": [{"name": "req-0", "exactly": {
                    "deviceClassName": "test-class",
                    "selectors": [{"cel": {"expression":
                                           f'device.capacity["{DRA_DRIVER}"].memory.compareTo(quantity("16Gi")) >= 0'}}]}}]}}}}
    return {"resource_slices": slices, "device_classes": {"test-class": device_class},
            "resource_claim_templates": {"default/test-claim-template": template}}


def _with_claim(pod: dict, index: int) -> dict:
    pod["spec"]["resourceClaims"] = [{"name": "resource", "resourceClaimTemplateName": "test-claim-template"}]
    pod["spec"]["containers"][0].setdefault("resources", {})["claims"] = [{"name": "resource"}]
    return pod


def resource_claim_template(n: int, init: int, measure: int):
    """Pods with one claim from a template each; the initial pods are bound with allocated claims."""
    nodes = [node(i) for i in range(n)]
    names = [x["metadata"]["name"] for x in nodes]
    objects = _dra_objects(n)
    claims = {}
    init_pods = []
    for i in range(min(init, n * DRA_DEVICES_PER_NODE)):
        host, device = names[i % n], f"device-{(i // n) % DRA_DEVICES_PER_NODE}"
        pod = _with_claim(perf_pod(f"init-{i:06d}", node_name=host), i)
        uid = f"uid-init-{i:06d}"
        pod["metadata"]["uid"] = uid
        claim_name = f"init-{i:06d}-resource"
        pod["status"] = {"resourceClaimStatuses": [{"name": "resource", "resourceClaimName": claim_name}]}
        claims[f"default/{claim_name}"] = {
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": claim_name, "namespace": "default", "uid": f"uid-claim-{i:06d}",
                         "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pod["metadata"]["name"],
                                              "uid": uid, "controller": True}]},
            "spec": {"devices": {"requests": [{"name": "req-0", "exactly": {"deviceClassName": "test-class"}}]}},
            "status": {"allocation": {"devices": {"results": [
                {"request": "req-0", "driver": DRA_DRIVER, "pool": host, "device": device}]}},
                "reservedFor": [{"resource": "pods", "name": pod["metadata"]["name"], "uid": uid}]}}
        init_pods.append(pod)
    pods = [_with_claim(perf_pod(f"claim-pod-{i:06d}"), i) for i in range(measure)]
    objects["resource_claims"] = claims
    return nodes, init_pods, pods, {"__objects__": objects}


WORKLOADS = {
    "SchedulingBasic": Workload("SchedulingBasic/5000Nodes", 5000, scheduling_basic, 1000, 1000),
    "TopologySpreading": Workload("TopologySpreading/5000Nodes", 5000, topology_spreading, 5000, 1000),
    "SchedulingPodAntiAffinity": Workload("SchedulingPodAntiAffinity/5000Nodes", 5000, anti_affinity, 1000, 1000),
    "PreemptionBasic": Workload("PreemptionBasic/1000Nodes", 1000, preemption, 4000, 1000),
    "DeploymentRollout": Workload("DeploymentRollout/5000Nodes", 5000, deployment_rollout, 50000, 1000),
    "DeploymentZoneSpread": Workload("DeploymentZoneSpread/5000Nodes", 5000, deployment_zone_spread, 50000, 1000),
    "DeploymentAntiAffinity": Workload("DeploymentAntiAffinity/5000Nodes", 5000, deployment_anti_affinity, 50000,
                                       1000),
    "DeploymentPreemption": Workload("DeploymentPreemption/5000Nodes", 5000, deployment_preemption, 20000, 500),
    "DeploymentRolloutAffinityCluster": Workload("DeploymentRolloutAffinityCluster/5000Nodes", 5000,
                                                 deployment_rollout_affinity_cluster, 50000, 1000),
    "SchedulingWithResourceClaimTemplate": Workload("SchedulingWithResourceClaimTemplate/1000Nodes", 1000,
                                                    resource_claim_template, 1000, 1000),
}


def _cluster(nodes: list[dict], pods: list[dict], classes: dict) -> Any:
    from kschedctl.inputs.cluster import admit_pod

    classes = dict(classes)
    replica_sets = classes.pop("__replica_sets__", [])
    objects = classes.pop("__objects__", {})
    for p in pods:
        if p["spec"].get("priorityClassName"):
            admit_pod(p, SimpleNamespace(priority_classes=classes), existing=True)
        else:
            p["spec"].setdefault("priority", 0)
    return SimpleNamespace(nodes=nodes, pods=pods, priority_classes=classes, namespaces={}, warnings=[],
                           replica_sets=replica_sets, services=[], replication_controllers=[], stateful_sets=[],
                           namespace_labels=lambda ns: {"kubernetes.io/metadata.name": ns}, **objects)


def _sizes(workload: Workload, measure: int | None, nodes: int | None) -> tuple[int, int, int]:
    n = nodes or workload.nodes
    init = workload.init_pods if nodes is None else workload.init_pods * n // workload.nodes
    return n, init, measure or workload.measure_pods


#: Workloads the oracle cannot run, and why.
ORACLE_SKIPS = {"SchedulingWithResourceClaimTemplate": "claims from templates need the resourceclaim controller"}


def run_oracle(oracle: str, workload: Workload, config_path: str | None, measure: int | None = None,
               nodes: int | None = None) -> dict[str, Any]:
    """The workload through upstream's scheduler (kschedctl-oracle simulate --bench)."""
    import json
    import subprocess
    import tempfile
    from pathlib import Path

    n, init, measure = _sizes(workload, measure, nodes)
    node_objs, init_pods, pods, classes = workload.build(n, init, measure)
    extra = dict(classes)
    objects = [*node_objs, *init_pods, *extra.pop("__replica_sets__", []),
               *(v for v in extra.values() if isinstance(v, dict) and "kind" in v)]
    with tempfile.TemporaryDirectory(prefix="kschedctl-oracle-bench-") as tmp:
        cluster, batch = Path(tmp) / "cluster.json", Path(tmp) / "pods.json"
        cluster.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
        batch.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": pods}))
        args = [oracle, "simulate", str(batch), "--cluster", str(cluster), "--bench", "-o", "json"]
        if config_path:
            args += ["--config", config_path]
        t0 = time.perf_counter()
        proc = subprocess.run(args, capture_output=True, text=True)
        wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"oracle failed on {workload.name}: {proc.stderr.strip()[-500:]}")
    return oracle_figures(json.loads(proc.stdout), len(pods), wall)


def oracle_figures(result: dict[str, Any], pods: int, process_s: float) -> dict[str, Any]:
    """Upstream's figures from the oracle's ``simulate --bench`` answer: pods per CPU second of its
    scheduling loop (``runCpuSeconds``, every thread of the process, as kschedctl's figures are
    CPU time), pods per second of the loop's wall time (``runSeconds``), and the rest of the
    process's wall time (``process_s``, measured around it) as load time."""
    if "runCpuSeconds" not in result or "runSeconds" not in result:
        raise RuntimeError("the oracle's answer has no runCpuSeconds/runSeconds: rebuild it (make -C oracle)")
    took, cpu = float(result["runSeconds"]), float(result["runCpuSeconds"])
    placed = sum(1 for p in result["placements"] if p["outcome"] == "Scheduled")
    return {"pods": pods, "run_s": took, "run_cpu_s": cpu, "load_s": process_s - took, "scheduled": placed,
            "preemptions": len(result["preemptions"]), "pods_per_s": pods / took if took else 0.0,
            "pods_per_cpu_s": pods / cpu if cpu else 0.0}


def upstream_line(ours: dict[str, Any], upstream: dict[str, Any]) -> str:
    """Upstream's figures beside kschedctl's, CPU time against CPU time (wall time beside)."""
    cpu = upstream["pods_per_cpu_s"]
    ratio = ours["pods_per_cpu_s"] / cpu if cpu else 0.0
    wall = ours["pods_per_s"] / upstream["pods_per_s"] if upstream["pods_per_s"] else 0.0
    return (f"upstream {upstream['run_cpu_s']:.2f} CPU s ({upstream['run_s']:.2f} s wall), "
            f"{cpu:.1f} pods/CPU-s ({upstream['pods_per_s']:.1f} pods/s wall), placed {upstream['scheduled']}, "
            f"preempted {upstream['preemptions']} (load {upstream['load_s']:.1f} s); "
            f"kschedctl/upstream {ratio:.2f}x CPU to CPU ({wall:.2f}x wall to wall)")


def run(workload: Workload, config: Any, measure: int | None = None, nodes: int | None = None,
        profile_out: str | None = None) -> dict[str, Any]:
    from kschedctl.inputs.cluster import admit
    from kschedctl.scheduler.simulate import Simulator

    n, init, measure = _sizes(workload, measure, nodes)
    node_objs, init_pods, pods, classes = workload.build(n, init, measure)
    t0 = time.perf_counter()
    cluster = _cluster(node_objs, init_pods, classes)
    sim = Simulator(cluster, config, seed=1)
    batch = [admit(p, cluster) for p in pods]
    load = time.perf_counter() - t0
    profiler = None
    if profile_out:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    t1, c1 = time.perf_counter(), time.process_time()
    result = sim.run(batch, admit_pods=False, include_cluster_pending=False)
    took, cpu = time.perf_counter() - t1, time.process_time() - c1
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(profile_out)
    counts = result.counts()
    # the label names the size measured ("DeploymentRollout/15000Nodes" with --nodes 15000)
    label = workload.name if n == workload.nodes else f"{workload.name.split('/')[0]}/{n}Nodes"
    return {"workload": label, "nodes": n, "init": len(init_pods), "pods": len(batch), "load_s": load,
            "run_s": took, "pods_per_s": len(batch) / took if took else 0.0, "run_cpu_s": cpu,
            "pods_per_cpu_s": len(batch) / cpu if cpu else 0.0, "scheduled": counts.get("Scheduled", 0),
            "preemptions": len(result.preemptions), "cycles": result.cycles, "counts": counts}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", action="append", choices=sorted(WORKLOADS), help="repeatable; default all")
    parser.add_argument("--pods", type=int, help="measured pods (default: the workload's)")
    parser.add_argument("--nodes", type=int, help="nodes (default: the workload's)")
    parser.add_argument("--config", help="KubeSchedulerConfiguration (default: the built-in default profile)")
    parser.add_argument("--profile-out", help="write a cProfile of the measured run to this file")
    parser.add_argument("--oracle", metavar="PATH", help="also run each workload through upstream's scheduler "
                        "(oracle/bin/kschedctl-oracle) and print its pods/s and the ratio")
    args = parser.parse_args(argv)
    from kschedctl.config import load_config

    config = load_config(args.config)
    names = args.workload or list(WORKLOADS)
    import os

    print(f"{os.cpu_count()} cores; pods/s next to upstream's scheduler_perf threshold or kschedctl's goal")
    print(f"{'workload':<38} {'nodes':>6} {'init':>6} {'pods':>6} {'load s':>7} {'run s':>7} {'pods/s':>8} "
          f"{'target':>9} {'placed':>7} {'preempt':>8} {'pods/CPU-s':>10}")
    for name in names:
        r = run(WORKLOADS[name], copy.deepcopy(config), args.pods, args.nodes, args.profile_out)
        threshold = THRESHOLDS.get(name) or (f"goal {GOALS[name]}" if name in GOALS else None)
        print(f"{r['workload']:<38} {r['nodes']:>6} {r['init']:>6} {r['pods']:>6} {r['load_s']:>7.2f} "
              f"{r['run_s']:>7.2f} {r['pods_per_s']:>8.1f} {threshold if threshold else '-':>9} "
              f"{r['scheduled']:>7} {r['preemptions']:>8} {r['pods_per_cpu_s']:>10.1f}")
        if args.oracle:
            if name in ORACLE_SKIPS:
                print(f"  upstream: skipped ({ORACLE_SKIPS[name]})")
            else:
                u = run_oracle(args.oracle, WORKLOADS[name], args.config, args.pods, args.nodes)
                print("  " + upstream_line(r, u))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
