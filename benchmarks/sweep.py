"""``kschedctl sweep`` throughput: cells per minute, and how it scales with local workers.

    python3 -m benchmarks.sweep                  # 3 profiles x 2 clusters x 1 workload, 1,000 nodes
    python3 -m benchmarks.sweep --nodes 500 --replicas 100

The clusters are the synthetic ones of ``benchmarks.run`` (nodes of 4 CPU / 32Gi / 110 pods in
3 zones): one with 10 running pods per node, one with 20, written as JSON snapshots. The
workload is a Deployment of ``--replicas`` replicas (100m / 500Mi). The profiles are the default,
``profiles/bin-packing.yaml`` and ``profiles/spreading.yaml``. Each cell loads what it needs in
its worker process once (configurations, cluster states), as ``kschedctl sweep`` does; the
figures include that. The goal of the sweep issue: the cells per minute on the 2-core machine,
and the speed-up from 1 to N workers.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.synthetic import cluster_objects

ROOT = Path(__file__).resolve().parent.parent


def _write(tmp: Path, nodes: int, replicas: int) -> Path:
    for name, per_node in (("light", 10), ("dense", 20)):
        n, p = cluster_objects(nodes, per_node)
        (tmp / f"{name}.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": n + p}))
    (tmp / "rollout.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: rollout, namespace: default}\n"
        f"spec:\n  replicas: {replicas}\n  selector: {{matchLabels: {{app: rollout}}}}\n"
        "  template:\n    metadata: {labels: {app: rollout}}\n"
        "    spec: {containers: [{name: c, image: c, resources: {requests: {cpu: 100m, memory: 500Mi}}}]}\n")
    sweep = tmp / "sweep.yaml"
    sweep.write_text(
        "apiVersion: kschedctl/v1\nkind: Sweep\nname: benchmark\n"
        f"configs: [{{name: default}}, {ROOT / 'profiles' / 'bin-packing.yaml'}, {ROOT / 'profiles' / 'spreading.yaml'}]\n"
        "clusters: [light.json, dense.json]\nworkloads: [rollout.yaml]\n")
    return sweep


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--replicas", type=int, default=200)
    parser.add_argument("--workers", type=int, action="append", help="worker counts to time (default: 1 and the cores)")
    args = parser.parse_args(argv)
    from kschedctl.sweep.model import read_sweep
    from kschedctl.sweep.run import default_workers, run_sweep

    cores = default_workers()
    counts = args.workers or sorted({1, cores})
    print(f"{os.cpu_count()} cores; 3 profiles x 2 clusters ({args.nodes} nodes) x 1 workload "
          f"({args.replicas} replicas)")
    print(f"{'workers':>8} {'cells':>6} {'seconds':>8} {'cells/min':>10} {'speed-up':>9} {'failed':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        sweep = read_sweep(str(_write(Path(tmp), args.nodes, args.replicas)))
        base = None
        for workers in counts:
            started = time.perf_counter()
            result = run_sweep(sweep, "scheduled", workers=workers)
            took = time.perf_counter() - started
            base = base or took
            failed = sum(1 for c in result.cells if c.error)
            print(f"{workers:>8} {len(result.cells):>6} {took:>8.2f} {60 * len(result.cells) / took:>10.1f} "
                  f"{base / took:>8.2f}x {failed:>7}")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
