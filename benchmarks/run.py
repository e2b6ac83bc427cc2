"""Time kschedctl on synthetic clusters: load, explain, nodes evaluated per second.

    python3 -m benchmarks.run                 # 500, 5,000 and 15,000 nodes, 10 pods per node
    python3 -m benchmarks.run --nodes 5000 --yaml
    python3 -m benchmarks.run --nodes 5000 --whole-process   # kschedctl explain vs json.load, same file
                                                             # (and capacity vs explain, peak RSS)

"load" builds what every explain needs once per cluster: a PodInfo per pod and the snapshot
(NodeInfos in node-tree order, image summaries). With ``--yaml`` it also includes writing the
cluster as one YAML file and reading it back through ``kschedctl.inputs`` (when available).
"explain" is one pod through the default profile, with every node evaluated
(percentageOfNodesToScore 100) and with upstream's adaptive percentage.

``--whole-process`` answers what a user waits for: the cluster written as one JSON snapshot (and
as YAML), then ``kschedctl explain`` run as a separate process on it (every node evaluated, table
output), next to Python's ``json.load`` of the same file (the floor of any JSON reader), with the
goal of the performance issue: at most 2x json.load from JSON, and YAML at most 3x JSON; then
``kschedctl capacity`` of the same pod (default profile, the true count) next to the explain,
and the explain's peak RSS.
"""

from __future__ import annotations

import argparse
import copy
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

from benchmarks.synthetic import cluster_objects, pending_pod


def _config(percentage: int) -> object:
    from kschedctl.config import load_config

    cfg = copy.deepcopy(load_config(None))
    cfg.percentage_of_nodes_to_score = percentage
    for p in cfg.profiles:
        p.percentage_of_nodes_to_score = None
    return cfg


def _load(nodes: list[dict], pods: list[dict], via_yaml: bool) -> object:
    if not via_yaml:
        return SimpleNamespace(nodes=nodes, pods=pods, priority_classes={}, namespaces={}, warnings=[])
    import yaml

    from kschedctl.inputs.cluster import load_cluster

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cluster.yaml"
        dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        path.write_text(yaml.dump_all(nodes + pods, Dumper=dumper), encoding="utf-8")
        return load_cluster([str(path)])


def bench(num_nodes: int, pods_per_node: int, via_yaml: bool) -> dict[str, float]:
    from kschedctl.analyses.explain import Explainer

    nodes, pods = cluster_objects(num_nodes, pods_per_node)
    t0 = time.perf_counter()
    cluster = _load(nodes, pods, via_yaml)
    explainer_all = Explainer(cluster, _config(100), seed=1)
    load = time.perf_counter() - t0

    out: dict[str, float] = {"nodes": num_nodes, "pods": len(pods), "load_s": load}
    for label, explainer in (("all", explainer_all),
                             ("adaptive", Explainer(cluster, _config(0), seed=1,
                                                    pod_infos=None if via_yaml else None))):
        explainer.explain(pending_pod("warm-up"))  # builds the framework (plugins) once
        t1 = time.perf_counter()
        result = explainer.explain(pending_pod())
        took = time.perf_counter() - t1
        evaluated = sum(1 for n in result.nodes if n.evaluated)
        out[f"explain_{label}_s"] = took
        out[f"evaluated_{label}"] = evaluated
        out[f"nodes_per_s_{label}"] = evaluated / took if took else 0.0
    return out


def whole_process(n: int, pods_per_node: int, repeat: int = 3) -> dict[str, float]:
    """Median wall time of ``kschedctl explain`` as a process on a JSON and a YAML snapshot."""
    import json
    import statistics
    import subprocess

    import yaml

    nodes, pods = cluster_objects(n, pods_per_node)
    doc = {"apiVersion": "v1", "kind": "List", "items": nodes + pods}
    with tempfile.TemporaryDirectory() as tmp:
        snap_json, snap_yaml = Path(tmp) / "cluster.json", Path(tmp) / "cluster.yaml"
        snap_json.write_text(json.dumps(doc), encoding="utf-8")
        snap_yaml.write_text(yaml.safe_dump_all(nodes + pods, sort_keys=False), encoding="utf-8")
        pod, config = Path(tmp) / "pod.yaml", Path(tmp) / "config.yaml"
        pod.write_text(yaml.safe_dump(pending_pod()), encoding="utf-8")
        config.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                          "percentageOfNodesToScore: 100\n", encoding="utf-8")

        def timed(fn: object, times: int = repeat) -> float:
            runs = []
            for _ in range(times):
                t0 = time.perf_counter()
                fn()  # type: ignore[operator]
                runs.append(time.perf_counter() - t0)
            return statistics.median(runs)

        def explain(path: Path) -> None:
            subprocess.run([sys.executable, "-m", "kschedctl", "explain", "--cluster", str(path), str(pod),
                            "-c", str(config)], check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def capacity() -> None:
            # the default profile (adaptive sampling), the true count (each node's share counted at once)
            subprocess.run([sys.executable, "-m", "kschedctl", "capacity", "--cluster", str(snap_json), str(pod)],
                           check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def load() -> None:
            with open(snap_json, encoding="utf-8") as fh:
                json.load(fh)

        import resource

        out = {"nodes": n, "pods": len(pods), "mb": snap_json.stat().st_size / 1e6, "json_load_s": timed(load),
               "explain_json_s": timed(lambda: explain(snap_json))}
        # ru_maxrss of children: the largest child so far (KiB on Linux), here an explain from JSON
        out["explain_rss_mib"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        out["explain_yaml_s"] = timed(lambda: explain(snap_yaml))
        out["capacity_s"] = timed(capacity, 1)
        return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, action="append", help="cluster size (repeatable)")
    parser.add_argument("--pods-per-node", type=int, default=10)
    parser.add_argument("--yaml", action="store_true", help="include YAML writing/reading in the load time")
    parser.add_argument("--whole-process", action="store_true",
                        help="time kschedctl explain as a process on a JSON/YAML snapshot, next to json.load")
    args = parser.parse_args(argv)
    if args.whole_process:
        import os

        print(f"{os.cpu_count()} cores; goals: explain <= 2x json.load (JSON), YAML <= 3x JSON, "
              f"capacity <= 3x explain (JSON), peak RSS <= 1.5 GiB at 15,000 nodes")
        print(f"{'nodes':>7} {'pods':>7} {'MB':>6} {'json.load s':>12} {'explain JSON s':>15} {'ratio':>6} "
              f"{'explain YAML s':>15} {'YAML/JSON':>10} {'capacity s':>11} {'cap/explain':>12} {'RSS MiB':>8}")
        for n in args.nodes or [5000]:
            r = whole_process(n, args.pods_per_node)
            print(f"{r['nodes']:>7} {r['pods']:>7} {r['mb']:>6.1f} {r['json_load_s']:>12.2f} "
                  f"{r['explain_json_s']:>15.2f} {r['explain_json_s'] / r['json_load_s']:>6.1f} "
                  f"{r['explain_yaml_s']:>15.2f} {r['explain_yaml_s'] / r['explain_json_s']:>10.1f} "
                  f"{r['capacity_s']:>11.2f} {r['capacity_s'] / r['explain_json_s']:>12.1f} "
                  f"{r['explain_rss_mib']:>8.0f}")
            sys.stdout.flush()
        return 0
    sizes = args.nodes or [500, 5000, 15000]
    print(f"{'nodes':>7} {'pods':>7} {'load s':>8} {'explain s (all)':>16} {'nodes/s (all)':>14} "
          f"{'explain s (adaptive)':>21} {'evaluated':>10}")
    for n in sizes:
        r = bench(n, args.pods_per_node, args.yaml)
        print(f"{int(r['nodes']):>7} {int(r['pods']):>7} {r['load_s']:>8.2f} {r['explain_all_s']:>16.3f} "
              f"{r['nodes_per_s_all']:>14,.0f} {r['explain_adaptive_s']:>21.3f} {int(r['evaluated_adaptive']):>10}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
