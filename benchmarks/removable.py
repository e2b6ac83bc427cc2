"""``capacity --removable`` on a generated cluster, per pod against a rollout of as many pods.

    python3 -m benchmarks.removable --nodes 500             # the whole search on 500 realistic nodes
    python3 -m benchmarks.removable --max 300               # 5,000 nodes, stop after 300 removals
    python3 -m benchmarks.removable --nodes 1000 --self-check

The cluster is ``benchmarks.realistic`` (40 apps with anti-affinity, spread constraints, volumes,
DRA claims), so every drained pod runs the full cycle of a mixed workload. The search re-schedules
each candidate node's pods, one scheduling cycle per pod (counted as it runs); the yardstick is a
rollout on the same cluster (``benchmarks.realistic``'s plain Deployment) of as many replicas as
the search ran cycles (``--replicas`` to choose). Printed, in CPU time: the search, its cycles and
its cost per cycle; the rollout and its cost per pod; and the ratio of the two per pod, which is
how the issue's "the search takes at most a few times one rollout of the same size" is read
(the search's pods are forty apps' mixed pods, the rollout's one Deployment's). ``--self-check``
also times the check from scratch the command runs after the search.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods-per-node", type=int, default=10)
    parser.add_argument("--replicas", type=int, default=None,
                        help="replicas of the rollout it is compared with (default: the search's cycles)")
    parser.add_argument("--max", type=int, default=None, help="stop after this many removals (capacity --max)")
    parser.add_argument("--self-check", action="store_true", help="time the self-check too")
    args = parser.parse_args(argv)

    from benchmarks.realistic import cluster_objects, rollout_objects
    from kschedctl.config import load_config
    from kschedctl.inputs.cluster import ClusterState
    from kschedctl.inputs.loader import gc_paused
    from kschedctl.inputs.cluster import admit
    from kschedctl.analyses.removable import RemovableRules, _self_check, removable_nodes
    from kschedctl.scheduler.schedule_one import Scheduler
    from kschedctl.scheduler.simulate import Simulator

    with gc_paused():
        state = ClusterState().with_objects(cluster_objects(args.nodes, args.nodes * args.pods_per_node))
    config = load_config(None)
    cycles = 0
    run_cycle = Scheduler.run_cycle

    def counted(self: Scheduler, *a: object, **kw: object) -> object:
        nonlocal cycles
        cycles += 1
        return run_cycle(self, *a, **kw)

    Scheduler.run_cycle = counted  # type: ignore[method-assign]
    try:
        t0 = time.process_time()
        result = removable_nodes(state, config, seed=1, verify=False, max_removed=args.max)
        search_s = time.process_time() - t0
    finally:
        Scheduler.run_cycle = run_cycle  # type: ignore[method-assign]
    moved = sum(len(v.moves) for v in result.nodes)
    tried = sum(1 for v in result.nodes if v.reason in ("Removed", "NoPlaceToMovePods"))
    found = list(result.removable)
    print(f"cluster: {args.nodes} nodes, {len(state.pods)} pods (benchmarks.realistic)")
    print(f"search{f' (--max {args.max})' if args.max else ''}: {search_s:.1f} CPU s; {len(found)} removable, "
          f"{tried} nodes drained in the snapshot, {moved} pods moved, {cycles} scheduling cycles "
          f"({1000 * search_s / max(cycles, 1):.2f} ms a cycle); "
          f"verdicts {dict(Counter(v.reason for v in result.nodes).most_common())}", flush=True)
    if args.self_check:
        t0 = time.process_time()
        _self_check(result, state, config, None, RemovableRules(), None, 1, True)  # what the command runs next
        check_s = time.process_time() - t0
        print(f"self-check (the set drained in one simulation, nodes given back until it holds): {check_s:.1f} CPU s; "
              f"{len(result.given_back)} of {len(found)} given back, {len(result.removable)} removable", flush=True)

    replicas = args.replicas or max(cycles, 1)
    owner, pods = rollout_objects(replicas, "rollout")
    with gc_paused():
        rollout_state = ClusterState().with_objects([*cluster_objects(args.nodes, args.nodes * args.pods_per_node),
                                                     owner])
    sim = Simulator(rollout_state, config, seed=1)
    batch = [admit(p, rollout_state) for p in pods]
    t0 = time.process_time()
    run = sim.run(batch, admit_pods=False, include_cluster_pending=False)
    rollout_s = time.process_time() - t0
    placed = sum(1 for p in run.placements if p.node)

    per_cycle = search_s / max(cycles, 1)
    per_pod = rollout_s / replicas
    print(f"rollout of {replicas} replicas on the same cluster: {rollout_s:.2f} CPU s, {placed} placed")
    print(f"per pod: search {1000 * per_cycle:.2f} ms a cycle, rollout {1000 * per_pod:.2f} ms a pod: "
          f"{per_cycle / per_pod:.1f}x (whole search / whole rollout: {search_s / rollout_s:.1f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
