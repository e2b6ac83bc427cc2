"""``capacity --removable`` on a generated cluster, against a rollout on the same cluster.

    python3 -m benchmarks.removable                       # 5,000 realistic nodes (slow: see the README)
    python3 -m benchmarks.removable --nodes 500 --pods-per-node 4
    python3 -m benchmarks.removable --max 25              # 5,000 nodes, stop after 25 removals

The cluster is ``benchmarks.realistic`` (40 apps with anti-affinity, spread constraints, volumes,
DRA claims), so every drained pod runs the full cycle of a mixed workload. Printed, CPU time:
the search (without and with its self-check), how many scheduling cycles it ran, and the
realistic 1,000-replica rollout on the same cluster (``benchmarks.goals``' rollout row), so that
the search can be read as "N rollouts" and per cycle against the rollout's per pod.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods-per-node", type=int, default=10)
    parser.add_argument("--replicas", type=int, default=1000, help="replicas of the rollout it is compared with")
    parser.add_argument("--max", type=int, default=None, help="stop after this many removals (capacity --max)")
    args = parser.parse_args(argv)

    from benchmarks.realistic import cluster_objects, rollout_objects
    from kschedctl.config import load_config
    from kschedctl.inputs.cluster import ClusterState
    from kschedctl.inputs.loader import gc_paused
    from kschedctl.inputs.cluster import admit
    from kschedctl.analyses.removable import RemovableRules, _self_check, removable_nodes
    from kschedctl.scheduler.simulate import Simulator

    with gc_paused():
        state = ClusterState().with_objects(cluster_objects(args.nodes, args.nodes * args.pods_per_node))
    config = load_config(None)
    t0 = time.process_time()
    result = removable_nodes(state, config, seed=1, verify=False, max_removed=args.max)
    search_s = time.process_time() - t0
    moved = sum(len(v.moves) for v in result.nodes)
    tried = sum(1 for v in result.nodes if v.reason in ("Removed", "NoPlaceToMovePods"))
    cycles = moved + sum(1 for v in result.nodes if v.reason == "NoPlaceToMovePods")  # at least
    found = list(result.removable)
    t0 = time.process_time()
    _self_check(result, state, config, None, RemovableRules(), None, 1, True)  # what the command runs after the search
    check_s = time.process_time() - t0

    owner, pods = rollout_objects(args.replicas, "rollout")
    with gc_paused():
        rollout_state = ClusterState().with_objects([*cluster_objects(args.nodes, args.nodes * args.pods_per_node),
                                                     owner])
    sim = Simulator(rollout_state, config, seed=1)
    batch = [admit(p, rollout_state) for p in pods]
    t0 = time.process_time()
    sim.run(batch, admit_pods=False, include_cluster_pending=False)
    rollout_s = time.process_time() - t0

    print(f"cluster: {args.nodes} nodes, {len(state.pods)} pods (benchmarks.realistic)")
    print(f"search: {search_s:.1f} CPU s; {len(result.removable)} removable, {tried} nodes drained in the snapshot, "
          f"{moved} pods moved (>= {cycles} scheduling cycles); "
          f"verdicts {dict(Counter(v.reason for v in result.nodes).most_common())}")
    print(f"self-check (the set drained in one simulation, nodes given back until it holds): {check_s:.1f} CPU s; "
          f"{len(result.given_back)} of {len(found)} given back, {len(result.removable)} removable")
    print(f"rollout of {args.replicas} replicas on the same cluster: {rollout_s:.2f} CPU s "
          f"({args.replicas / rollout_s:.0f} pods/s)")
    print(f"search / rollout: {search_s / rollout_s:.1f}x; search per cycle: "
          f"{1000 * search_s / max(cycles, 1):.1f} ms, self-check per pod moved: {1000 * check_s / max(moved, 1):.1f} ms, "
          f"rollout per pod: {1000 * rollout_s / args.replicas:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
