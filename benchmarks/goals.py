"""The goals table of the performance issue (#30), measured and printed as Markdown.

    python3 -m benchmarks.goals                                   # every row, both cluster shapes
    python3 -m benchmarks.goals --workload rollout --shape realistic
    python3 -m benchmarks.goals --oracle oracle/bin/kschedctl-oracle   # upstream beside the rollouts
    python3 -m benchmarks.goals --quick                           # tiny sizes: a smoke test, not figures

Every figure is CPU time (user + system) of one run, so that a busy machine slows the figures
less than wall time would; it is still one run: measure on a quiet machine. Each measurement runs
in a child process of its own, so that one row's garbage and memory do not weigh on the next, and
peak RSS is the child's.

Cluster shapes:
- ``synthetic``: ``benchmarks.synthetic`` / ``benchmarks.simulate`` (identical 4-CPU nodes,
  ten ownerless pods per node with no affinity), the shape the older benchmarks use;
- ``realistic``: ``benchmarks.realistic`` (40 apps in 5 namespaces with anti-affinity, spread
  constraints, preferred (anti-)affinity, bound volumes and allocated DRA claims).

Rows (``--workload``):
- ``explain``: ``kschedctl explain`` of a 100m / 500Mi pod, a process on the cluster written as one
  JSON file, percentageOfNodesToScore 100, against the floor: ``json.load`` of the same file with
  the garbage collector off (kschedctl runs with it off; ``json.load`` with it on, also shown,
  is 3-4x slower); goal <= 3x. Its peak RSS, and that divided by the nodes.
- ``largest``: the same at 65,000 nodes / 650,000 pods (GKE's published largest cluster, the
  realistic shape only, a file of about 320 MB): <= 3x the floor and 4 GiB.
- ``rollout``, ``zone-spread``, ``anti-affinity``, ``preemption``: a new Deployment's replicas
  (1,000; the preemption one 500) through the simulation, pods per CPU second of the run only
  (the snapshot and frameworks are built before the clock starts, as scheduler_perf does).
- ``capacity``: ``kschedctl capacity`` of the small pod as a process (default profile, default
  ``--max``): the count, whether the count is true (not cut by ``--max``), and its CPU time
  against the explain row's.
- ``scale``: the plain rollout on 15,000 nodes / 150,000 pods: pods/s against a third of the
  5,000-node figure, and the peak RSS of the whole process.
- ``largest-rollout``: the plain rollout (1,000 replicas) on the largest cluster, realistic shape
  only: >= 300 pods per CPU second.

With ``--oracle``, the rollout rows also run through upstream's scheduler (see
``benchmarks.simulate``), compared CPU time to CPU time: the oracle takes ``getrusage`` of its
whole process before and after its scheduling loop, so every goroutine counts on whichever core
it ran (its parallelism of 16 spreads filtering and scoring over both cores), against
kschedctl's CPU time of the same run. The wall time of upstream's loop is given beside it. The
capacity row gets an upstream figure too where the count is small enough (``--oracle-max-copies``):
upstream's loop places the N + 1 copies ``benchmarks.capacity_oracle`` uses; its loop's CPU time
(the snapshot load left out) against the whole ``kschedctl capacity`` process's.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SHAPES = ("synthetic", "realistic")
WORKLOADS = ("explain", "rollout", "zone-spread", "anti-affinity", "preemption", "capacity", "scale", "largest",
             "largest-rollout")
ROLLOUT_WORKLOADS = ("rollout", "zone-spread", "anti-affinity", "preemption")

#: Goals of issue #30 (CPU time, one run), and #45's: explain within 3x of the floor (json.load
#: with the collector off) at any size, 65,000 nodes in 4 GiB.
EXPLAIN_FLOOR_GOAL = 3.0
LARGEST_RSS_GOAL_MIB = 4096
#: Issue #45: a 1,000-pod rollout on the largest cluster.
LARGEST_ROLLOUT_GOAL = 300
PODS_PER_S_GOALS = {"rollout": 500, "zone-spread": 500, "anti-affinity": 300, "preemption": 200}
CAPACITY_RATIO_GOAL = 3.0
SCALE_FRACTION_GOAL = 1 / 3
SCALE_RSS_GOAL_MIB = 1536
#: Issue #45: every rollout, preemption included, at least 10x upstream's pods per CPU second.
ORACLE_RATIO_GOAL = 10.0
ORACLE_MAX_COPIES = 5000

WORKLOAD_TITLES = {
    "explain": "explain, every node scored",
    "rollout": "plain Deployment rollout",
    "zone-spread": "zone-spread rollout",
    "anti-affinity": "hostname anti-affinity rollout",
    "preemption": "preemption workload",
    "capacity": "capacity of a small pod",
    "scale": "plain rollout at scale",
    "largest": "explain at the largest size",
    "largest-rollout": "plain rollout at the largest size",
}


@dataclass(frozen=True)
class Sizes:
    """Cluster and batch sizes of one run (full, or ``--quick``)."""

    nodes: int = 5000
    pods_per_node: int = 10
    replicas: int = 1000
    preemptors: int = 500
    scale_nodes: int = 15000
    #: GKE's published largest cluster; the realistic shape only.
    largest_nodes: int = 65000

    @property
    def pods(self) -> int:
        return self.nodes * self.pods_per_node


FULL = Sizes()
QUICK = Sizes(nodes=60, replicas=20, preemptors=10, scale_nodes=120, largest_nodes=240)


# --- what a child process measures ------------------------------------------------------------


def _synthetic_rollout(kind: str, nodes: int, replicas: int) -> tuple[Any, list[dict]]:
    from benchmarks import simulate

    name = {"rollout": "DeploymentRollout", "zone-spread": "DeploymentZoneSpread",
            "anti-affinity": "DeploymentAntiAffinity", "preemption": "DeploymentPreemption"}[kind]
    workload = simulate.WORKLOADS[name]
    n, init, measure = simulate._sizes(workload, replicas, nodes)
    node_objs, init_pods, pods, classes = workload.build(n, init, measure)
    return simulate._cluster(node_objs, init_pods, classes), pods


def _realistic_rollout(kind: str, nodes: int, replicas: int) -> tuple[Any, list[dict]]:
    from benchmarks.realistic import cluster_objects, rollout_objects
    from kschedctl.inputs.cluster import ClusterState
    from kschedctl.inputs.loader import Document, gc_paused

    owner, pods = rollout_objects(replicas, "rollout" if kind == "scale" else kind)
    with gc_paused():
        # read as a snapshot file or a live cluster is (from_documents): the pods of a template
        # share their parts, as they do for users
        docs = [Document(obj, "<realistic cluster>") for obj in cluster_objects(nodes)]
        cluster = ClusterState.from_documents(docs).with_objects([owner])
    return cluster, pods


def measure_rollout(shape: str, kind: str, nodes: int, replicas: int) -> dict[str, Any]:
    """One rollout in this process: pods per CPU second of the run, and this process's peak RSS."""
    from kschedctl.config import load_config
    from kschedctl.inputs.cluster import admit
    from kschedctl.scheduler.simulate import Simulator

    build = _synthetic_rollout if shape == "synthetic" else _realistic_rollout
    cluster, pods = build("rollout" if kind == "scale" and shape == "synthetic" else kind, nodes, replicas)
    started = time.process_time()
    sim = Simulator(cluster, load_config(None), seed=1)
    batch = [admit(p, cluster) for p in pods]
    load_s = time.process_time() - started
    t0 = time.process_time()
    result = sim.run(batch, admit_pods=False, include_cluster_pending=False)
    run_s = time.process_time() - t0
    counts = result.counts()
    return {"pods": len(batch), "load_cpu_s": load_s, "run_cpu_s": run_s,
            "pods_per_s": len(batch) / run_s if run_s else 0.0, "scheduled": counts.get("Scheduled", 0),
            "preemptions": len(result.preemptions), "existing_pods": len(cluster.pods), "nodes": len(cluster.nodes),
            "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def measure_json_load(path: str, gc_off: bool = False) -> dict[str, Any]:
    """``json.load`` of the file; with ``gc_off`` the collector is off, as kschedctl runs: the
    floor a one-shot reader of the file can reach (with it on, the collector's passes over the
    growing object graph cost 3-4x the parse)."""
    import gc

    if gc_off:
        gc.disable()
    t0 = time.process_time()
    with open(path, encoding="utf-8") as fh:
        json.load(fh)
    return {"cpu_s": time.process_time() - t0}


def _child(request: dict[str, Any]) -> dict[str, Any]:
    if request["what"] == "rollout":
        return measure_rollout(request["shape"], request["kind"], request["nodes"], request["replicas"])
    if request["what"] == "json.load":
        return measure_json_load(request["path"], bool(request.get("gc_off")))
    if request["what"] == "write":
        sizes = Sizes(nodes=request["nodes"], pods_per_node=request["pods_per_node"])
        return {"path": str(write_cluster_file(request["shape"], sizes, Path(request["directory"])))}
    raise ValueError(f"unknown child request {request!r}")


def _in_child(request: dict[str, Any]) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-m", "benchmarks.goals", "--child", json.dumps(request)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{request}: {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _kschedctl(args: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    """``kschedctl args`` as a process: its CPU seconds (start-up and imports included) and result."""
    cpu, _rss, proc = _kschedctl_measured(args)
    return cpu, proc


def _kschedctl_measured(args: list[str]) -> tuple[float, float, subprocess.CompletedProcess]:
    """``kschedctl args`` as a process: its CPU seconds, its own peak RSS in MiB (``wait4``'s
    usage of that child alone) and its result."""
    argv = [sys.executable, "-m", "kschedctl", *args]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        child = subprocess.Popen(argv, stdout=out, stderr=err)
        _pid, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        proc = subprocess.CompletedProcess(argv, child.returncode, out.read().decode(), err.read().decode())
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, proc


# --- the cluster files for the process rows ------------------------------------------------------


def _cluster_file(shape: str, sizes: Sizes, directory: Path) -> Path:
    """``write_cluster_file`` in a child: a process started from this one counts this one's
    memory at the fork in its peak RSS (``wait4``), so the objects of a cluster made here would
    stand for explain's own peak when that is the smaller."""
    return Path(_in_child({"what": "write", "shape": shape, "nodes": sizes.nodes,
                           "pods_per_node": sizes.pods_per_node, "directory": str(directory)})["path"])


def write_cluster_file(shape: str, sizes: Sizes, directory: Path) -> Path:
    from benchmarks.realistic import as_list
    from benchmarks.realistic import cluster_objects as realistic_objects
    from benchmarks.synthetic import cluster_objects as synthetic_objects

    if shape == "synthetic":
        nodes, pods = synthetic_objects(sizes.nodes, sizes.pods_per_node)
        objects = nodes + pods
    else:
        objects = realistic_objects(sizes.nodes, sizes.pods)
    path = directory / f"{shape}-{sizes.nodes}.json"
    path.write_text(json.dumps(as_list(objects)), encoding="utf-8")
    return path


def _inputs(directory: Path) -> tuple[Path, Path]:
    from benchmarks.realistic import small_pod

    pod, config = directory / "small-pod.json", directory / "score-all.yaml"
    pod.write_text(json.dumps(small_pod()), encoding="utf-8")
    config.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                      "percentageOfNodesToScore: 100\n", encoding="utf-8")
    return pod, config


# --- rows ------------------------------------------------------------------------------------


@dataclass
class Row:
    workload: str
    shape: str
    ours: str
    goal: str
    met: bool | None
    upstream: str = ""
    ratio: str = ""
    figures: dict[str, Any] | None = None


def _verdict(met: bool | None) -> str:
    return "-" if met is None else ("yes" if met else "no")


def explain_row(shape: str, cluster: Path, pod: Path, config: Path, sizes: Sizes, workload: str = "explain",
                repeat: int = 1) -> Row:
    """explain as a process against the floor (``json.load`` of the file with the collector off)
    and against ``json.load`` as Python runs it by default; peak RSS and its share per node.
    With ``repeat``, the least of that many runs of explain and of the floor, taken by turns (a
    shared machine's noise only ever adds time)."""
    floor = cpu = float("inf")
    rss = 0.0
    for _ in range(max(1, repeat)):
        floor = min(floor, _in_child({"what": "json.load", "path": str(cluster), "gc_off": True})["cpu_s"])
        run_cpu, run_rss, proc = _kschedctl_measured(["explain", "--cluster", str(cluster), str(pod), "-c",
                                                      str(config), "--seed", "1"])
        if proc.returncode != 0:
            raise RuntimeError(f"explain on {cluster}: {proc.stderr.strip()[-500:]}")
        cpu, rss = min(cpu, run_cpu), max(rss, run_rss)
    load = _in_child({"what": "json.load", "path": str(cluster)})["cpu_s"]
    ratio = cpu / floor if floor else 0.0
    per_node_kib = rss * 1024 / sizes.nodes
    ours = (f"{ratio:.1f}x the floor ({cpu:.2f} s vs {floor:.2f} s; {cpu / load if load else 0:.1f}x json.load "
            f"with gc, {load:.2f} s), {rss:,.0f} MiB peak ({per_node_kib:,.0f} KiB a node)")
    goal = f"<= {EXPLAIN_FLOOR_GOAL:g}x the floor"
    met = ratio <= EXPLAIN_FLOOR_GOAL
    if workload == "largest":
        goal += f", <= {LARGEST_RSS_GOAL_MIB / 1024:g} GiB"
        met = met and rss <= LARGEST_RSS_GOAL_MIB
    return Row(workload, shape, ours, goal, met,
               figures={"explain_cpu_s": cpu, "floor_cpu_s": floor, "json_load_cpu_s": load, "ratio": ratio,
                        "rss_mib": rss, "kib_per_node": per_node_kib, "nodes": sizes.nodes,
                        "bytes": cluster.stat().st_size})


def capacity_row(shape: str, cluster: Path, pod: Path, explain_cpu: float | None, oracle: str | None = None,
                 max_copies: int = ORACLE_MAX_COPIES) -> Row:
    cpu, proc = _kschedctl(["capacity", "--cluster", str(cluster), str(pod), "--seed", "1", "-o", "json"])
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"capacity on {cluster}: {proc.stderr.strip()[-500:]}")
    result = json.loads(proc.stdout)
    true_count = not result.get("limitReached")
    count = f"{result['count']:,}" + ("" if true_count else f" (stopped at --max {result.get('max'):,})")
    if explain_cpu:
        ratio = cpu / explain_cpu
        ours, met = f"{count}, {ratio:.1f}x explain ({cpu:.2f} s)", true_count and ratio <= CAPACITY_RATIO_GOAL
    else:
        ours, met = f"{count}, {cpu:.2f} s (no explain row to compare)", None if true_count else False
    row = Row("capacity", shape, ours, f"true count, <= {CAPACITY_RATIO_GOAL:g}x explain", met,
              figures={"capacity_cpu_s": cpu, "count": result["count"], "limit_reached": not true_count})
    if oracle:
        copies = result["count"] + 1
        if copies > max_copies:
            row.upstream = f"not run ({copies:,} copies > --oracle-max-copies {max_copies:,})"
        else:
            u = run_oracle_capacity(oracle, cluster, pod, copies)
            placed_ok = u["scheduled"] == result["count"]
            row.upstream = (f"{u['run_cpu_s']:.2f} CPU s ({u['run_s']:.2f} s wall) for {copies:,} copies, "
                            f"{u['scheduled']:,} placed{'' if placed_ok else ' (NOT the count)'}")
            row.ratio = f"{u['run_cpu_s'] / cpu:.1f}x less CPU" if cpu else "-"
            row.figures = {**(row.figures or {}), "upstream": u}
    return row


def run_oracle_capacity(oracle: str, cluster: Path, pod: Path, copies: int) -> dict[str, Any]:
    """N + 1 copies of the pod (named as capacity names them) through upstream's loop."""
    from benchmarks import simulate
    from benchmarks.capacity_oracle import _copies
    from benchmarks.realistic import as_list

    template = json.loads(pod.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="kschedctl-goals-oracle-") as tmp:
        batch = Path(tmp) / "copies.json"
        batch.write_text(json.dumps(as_list(_copies(template, copies))), encoding="utf-8")
        t0 = time.perf_counter()
        proc = subprocess.run([oracle, "simulate", str(batch), "--cluster", str(cluster), "--bench", "-o", "json"],
                              capture_output=True, text=True)
        wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"oracle failed on {copies} copies: {proc.stderr.strip()[-500:]}")
    return simulate.oracle_figures(json.loads(proc.stdout), copies, wall)


def rollout_row(shape: str, kind: str, sizes: Sizes, oracle: str | None) -> Row:
    replicas = sizes.preemptors if kind == "preemption" else sizes.replicas
    r = _in_child({"what": "rollout", "shape": shape, "kind": kind, "nodes": sizes.nodes, "replicas": replicas})
    goal = PODS_PER_S_GOALS[kind]
    ours = f"{r['pods_per_s']:,.0f} pods/s ({r['scheduled']}/{r['pods']} placed"
    ours += f", {r['preemptions']} preemptions)" if kind == "preemption" else ")"
    row = Row(kind, shape, ours, f">= {goal} pods/s", r["pods_per_s"] >= goal, figures=r)
    if oracle:
        u = run_oracle(oracle, shape, kind, sizes.nodes, replicas)
        row.upstream, row.ratio, ratio = upstream_cells(r["pods_per_s"], u)
        row.figures = {**r, "upstream": u, "ratio": ratio}
    return row


def upstream_cells(ours_per_cpu_s: float, upstream: dict[str, Any]) -> tuple[str, str, float]:
    """The upstream and ratio cells of a rollout row: pods per CPU second against pods per CPU
    second (upstream's wall-time rate beside), and the ratio against the goal."""
    cpu = upstream["pods_per_cpu_s"]
    ratio = ours_per_cpu_s / cpu if cpu else 0.0
    cell = f"{cpu:,.0f} pods/CPU-s ({upstream['pods_per_s']:,.0f} pods/s of wall time)"
    return cell, f"{ratio:.1f}x ({'met' if ratio >= ORACLE_RATIO_GOAL else 'not met'})", ratio


def scale_row(shape: str, sizes: Sizes, base: Row | None) -> Row:
    r = _in_child({"what": "rollout", "shape": shape, "kind": "scale", "nodes": sizes.scale_nodes,
                   "replicas": sizes.replicas})
    small = (base.figures or {}).get("pods_per_s") if base else None
    rss_ok = r["rss_mib"] <= SCALE_RSS_GOAL_MIB
    ours = f"{r['pods_per_s']:,.0f} pods/s, {r['rss_mib']:,.0f} MiB peak RSS"
    if small:
        fraction = r["pods_per_s"] / small
        ours += f" ({fraction:.2f}x the {sizes.nodes:,}-node figure)"
        met: bool | None = rss_ok and fraction >= SCALE_FRACTION_GOAL
    else:
        met = None if rss_ok else False
    title = f"{r['nodes']:,} nodes / {r['existing_pods']:,} pods"
    return Row("scale", shape, ours, f">= 1/3 of the {sizes.nodes:,}-node pods/s, <= 1.5 GiB", met,
               figures={**r, "title": title})


def largest_rollout_row(shape: str, sizes: Sizes) -> Row:
    r = _in_child({"what": "rollout", "shape": shape, "kind": "rollout", "nodes": sizes.largest_nodes,
                   "replicas": sizes.replicas})
    ours = f"{r['pods_per_s']:,.0f} pods/s ({r['scheduled']}/{r['pods']} placed), {r['rss_mib']:,.0f} MiB peak RSS"
    title = f"{r['nodes']:,} nodes / {r['existing_pods']:,} pods"
    return Row("largest-rollout", shape, ours, f">= {LARGEST_ROLLOUT_GOAL} pods/s", r["pods_per_s"] >= LARGEST_ROLLOUT_GOAL,
               figures={**r, "title": title})


def run_oracle(oracle: str, shape: str, kind: str, nodes: int, replicas: int) -> dict[str, Any]:
    """The same rollout through upstream's scheduler (``kschedctl-oracle simulate --bench``)."""
    if shape == "synthetic":
        from benchmarks import simulate

        name = {"rollout": "DeploymentRollout", "zone-spread": "DeploymentZoneSpread",
                "anti-affinity": "DeploymentAntiAffinity", "preemption": "DeploymentPreemption"}[kind]
        return simulate.run_oracle(oracle, simulate.WORKLOADS[name], None, replicas, nodes)
    from benchmarks.realistic import as_list, cluster_objects, rollout_objects

    owner, pods = rollout_objects(replicas, kind)
    with tempfile.TemporaryDirectory(prefix="kschedctl-goals-oracle-") as tmp:
        cluster, batch = Path(tmp) / "cluster.json", Path(tmp) / "pods.json"
        cluster.write_text(json.dumps(as_list([*cluster_objects(nodes), owner])))
        batch.write_text(json.dumps(as_list(pods)))
        t0 = time.perf_counter()
        proc = subprocess.run([oracle, "simulate", str(batch), "--cluster", str(cluster), "--bench", "-o", "json"],
                              capture_output=True, text=True)
        wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"oracle failed on the {shape} {kind} rollout: {proc.stderr.strip()[-500:]}")
    from benchmarks import simulate

    return simulate.oracle_figures(json.loads(proc.stdout), len(pods), wall)


# --- the table -------------------------------------------------------------------------------


def _shape_title(shape: str, sizes: Sizes, row: Row) -> str:
    if row.workload in ("scale", "largest-rollout"):
        return f"{shape}, {(row.figures or {}).get('title', '')}"
    if row.workload in ("explain", "largest"):
        f = row.figures or {}
        nodes = f.get("nodes", sizes.nodes)
        return f"{shape}, {nodes:,} nodes / {nodes * sizes.pods_per_node:,} pods ({f.get('bytes', 0) / 1e6:,.0f} MB)"
    if row.workload == "preemption" and shape == "synthetic":
        return f"synthetic, {sizes.nodes:,} nodes full of low-priority pods"
    return f"{shape}, {sizes.nodes:,} nodes / {sizes.pods:,} pods"


def markdown(rows: list[Row], sizes: Sizes, with_oracle: bool) -> str:
    header = ["workload", "cluster", "ours (CPU time)", "goal", "met"]
    if with_oracle:
        header += ["upstream (CPU time)", f"ours / upstream, CPU to CPU (goal >= {ORACLE_RATIO_GOAL:g}x)"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        cells = [WORKLOAD_TITLES[row.workload], _shape_title(row.shape, sizes, row), row.ours, row.goal,
                 _verdict(row.met)]
        if with_oracle:
            cells += [row.upstream or "-", row.ratio or "-"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _compile_kschedctl() -> None:
    """Byte-compile kschedctl, as pip does on install: with PYTHONDONTWRITEBYTECODE set (as on CI
    machines) a source checkout would otherwise compile every module on every process start."""
    import compileall

    import kschedctl

    compileall.compile_dir(str(Path(kschedctl.__file__).parent), quiet=1)


def run_goals(workloads: list[str], shapes: list[str], sizes: Sizes, oracle: str | None = None,
              progress: Any = None, oracle_max_copies: int = ORACLE_MAX_COPIES, repeat: int = 1) -> list[Row]:
    rows: list[Row] = []
    _compile_kschedctl()
    with tempfile.TemporaryDirectory(prefix="kschedctl-goals-") as tmp:
        pod, config = _inputs(Path(tmp))
        for shape in shapes:
            explain_cpu: float | None = None
            explain_ratio: float | None = None
            base: Row | None = None
            cluster: Path | None = None
            for workload in [w for w in WORKLOADS if w in workloads]:
                if workload in ("explain", "capacity") and cluster is None:
                    cluster = _cluster_file(shape, sizes, Path(tmp))
                if workload == "explain":
                    row = explain_row(shape, cluster, pod, config, sizes, repeat=repeat)
                    explain_cpu = (row.figures or {}).get("explain_cpu_s")
                    explain_ratio = (row.figures or {}).get("ratio")
                elif workload == "largest":
                    if shape != "realistic":
                        continue  # the realistic generator's clusters only
                    large = dataclasses.replace(sizes, nodes=sizes.largest_nodes)
                    big = _cluster_file(shape, large, Path(tmp))
                    try:
                        row = explain_row(shape, big, pod, config, large, workload="largest", repeat=repeat)
                    finally:
                        big.unlink()
                    if explain_ratio is not None:
                        # The ratio must not grow with the cluster.
                        row.ours += f"; at {sizes.nodes:,} nodes {explain_ratio:.1f}x"
                elif workload == "capacity":
                    row = capacity_row(shape, cluster, pod, explain_cpu, oracle, oracle_max_copies)
                elif workload == "scale":
                    row = scale_row(shape, sizes, base)
                elif workload == "largest-rollout":
                    if shape != "realistic":
                        continue
                    row = largest_rollout_row(shape, sizes)
                else:
                    row = rollout_row(shape, workload, sizes, oracle)
                    if workload == "rollout":
                        base = row
                rows.append(row)
                if progress:
                    progress(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", action="append", choices=WORKLOADS, help="repeatable; default every row")
    parser.add_argument("--shape", action="append", choices=SHAPES, help="repeatable; default both")
    parser.add_argument("--quick", action="store_true",
                        help=f"tiny sizes ({QUICK.nodes} nodes, {QUICK.replicas} replicas): a smoke test")
    parser.add_argument("--oracle", metavar="PATH",
                        help="also run the rollouts (and capacity's copies) through upstream's scheduler "
                        "(make -C oracle builds it)")
    parser.add_argument("--oracle-max-copies", type=int, default=ORACLE_MAX_COPIES, metavar="N",
                        help=f"run capacity's N + 1 copies upstream only up to N copies (default {ORACLE_MAX_COPIES})")
    parser.add_argument("--nodes", type=int, metavar="N",
                        help=f"cluster size of every row but scale (default {FULL.nodes:,}, {FULL.pods_per_node} pods a node)")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="explain rows: the least of N runs of explain and of the floor, by turns (default 1)")
    parser.add_argument("--json", metavar="FILE", help="also write every row's figures to FILE")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(_child(json.loads(args.child))))
        return 0
    sizes = QUICK if args.quick else FULL
    if args.nodes:
        sizes = dataclasses.replace(sizes, nodes=args.nodes)
    workloads = args.workload or list(WORKLOADS)
    if "scale" in workloads and "rollout" not in workloads:
        print("note: the scale row compares with the rollout row; add --workload rollout for its fraction",
              file=sys.stderr)

    def progress(row: Row) -> None:
        print(f"  {row.shape:<10} {row.workload:<14} {row.ours}", file=sys.stderr, flush=True)

    runs = "one run each" if args.repeat <= 1 else f"explain rows the least of {args.repeat} runs"
    print(f"{os.cpu_count()} cores; CPU time, {runs}{' (--quick: not figures)' if args.quick else ''}",
          file=sys.stderr, flush=True)
    rows = run_goals(workloads, args.shape or list(SHAPES), sizes, args.oracle, progress, args.oracle_max_copies,
                     repeat=args.repeat)
    print(markdown(rows, sizes, bool(args.oracle)))
    if args.json:
        Path(args.json).write_text(json.dumps([row.__dict__ for row in rows], indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
