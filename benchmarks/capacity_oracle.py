"""``capacity`` beside upstream's scheduler: N + 1 copies of the pod through the oracle's simulate.

    python -m benchmarks.capacity_oracle --oracle oracle/bin/kschedctl-oracle [--cases N] [--seed S]

For each case (the bundled fixtures, ``benchmarks.synthetic``'s cluster, then random ``benchmarks.diffgen`` clusters with their first
pending pod as the template), kschedctl's ``capacity`` answers N copies; the same N + 1 copies
(named as capacity names them) then go through upstream kube-scheduler v1.34's loop
(``kschedctl-oracle simulate``), both with the first node among equal top scores (``--tie-break
first``, the oracle's rule). The copies per node of the N scheduled ones must equal
capacity's ``perNode``, and one copy must be left unschedulable (or placed by preemption on
the node capacity's ``preemptionPossible`` names: upstream's loop acts on it). Where capacity
counted each node's share at once (``method: perNode``) the per-node counts do not depend on
the tie-break; where it ran a cycle per copy they may (spread constraints, affinity). Cases with more than ``--max-copies`` copies are skipped.
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

from benchmarks import diffgen
from benchmarks.differential import Oracle, run_kschedctl

ROOT = Path(__file__).resolve().parents[1]


def _copies(pod: dict[str, Any], n: int) -> list[dict[str, Any]]:
    from kschedctl.analyses.capacity import _clone

    return [_clone(pod, i) for i in range(1, n + 1)]


def _has_nominated_pods(cluster: str) -> bool:
    """Whether the cluster file or directory holds a pending pod with a nominatedNodeName."""
    paths = sorted(Path(cluster).glob("*.yaml")) if Path(cluster).is_dir() else [Path(cluster)]
    for path in paths:
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            for obj in (doc or {}).get("items", [doc]) if isinstance(doc, dict) else ():
                if (isinstance(obj, dict) and obj.get("kind") == "Pod" and not (obj.get("spec") or {}).get("nodeName")
                        and (obj.get("status") or {}).get("nominatedNodeName")):
                    return True
    return False


def _compare(name: str, args: list[str], pod: dict[str, Any], oracle: Oracle, work: Path,
             max_copies: int) -> tuple[str, str]:
    ours = run_kschedctl(["capacity", *args, "-o", "json", "--tie-break", "first"])
    if "error" in ours:
        return "skipped", f"{name}: kschedctl: {ours['error'][:200]}"
    count = ours["count"]
    if count > max_copies:
        return "skipped", f"{name}: {count} copies"
    pods = work / f"{name}-copies.yaml"
    pods.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": _copies(pod, count + 1)}),
                    encoding="utf-8")
    rest = [a for a in args[1:]]
    if _has_nominated_pods(args[args.index("--cluster") + 1]):
        # upstream's loop retries the cluster's nominated pods too and clears a nomination that
        # no longer helps, freeing room that capacity (the answer for now) keeps reserved
        return "skipped", f"{name}: the cluster holds nominated pods, which upstream's simulate retries"
    theirs = oracle.run(["simulate", str(pods), *rest, "-o", "json"])
    if "error" in theirs:
        return "skipped", f"{name}: oracle: {theirs['error'][:200]}"
    # upstream's queue does not keep the file's order among equal pods: which copy is left over
    # is not compared, only that one is (or that preemption placed it, which capacity reports as
    # preemptionPossible but does not act on)
    meta = pod["metadata"]
    names = {f"{meta.get('namespace') or 'default'}/{meta['name']}-{i}" for i in range(1, count + 2)}
    # upstream's simulate also schedules the cluster's own pending pods; capacity leaves them be
    mine = [p for p in theirs["placements"] if p["pod"] in names]
    if any(p["pod"] not in names and p["outcome"] == "Scheduled" for p in theirs["placements"]):
        return "skipped", f"{name}: upstream's simulate placed pending pods of the cluster too (room taken)"
    placed = collections.Counter(p["node"] for p in mine if p["outcome"] == "Scheduled")
    left = [p for p in mine if p["outcome"] != "Scheduled"]
    preempted = [p for p in theirs.get("preemptions") or () if p["pod"] in names]
    if preempted and ours.get("preemptionPossible"):
        # the copy upstream placed by preemption is the one capacity leaves over; upstream's
        # node for it may differ from capacity's nominatedNode when every tie-break ties (Go's
        # map order there, the first candidate in kschedctl; docs/fidelity.md)
        placed[preempted[-1]["node"]] -= 1
        placed = +placed
        same_count = sum(placed.values()) == count
    else:
        same_count = sum(placed.values()) == count and len(left) == 1
    last = left[0] if left else {}
    same_nodes = dict(placed) == ours["perNode"]
    detail = f"{name}: {count} copies on {len(ours['perNode'])} nodes, method {ours.get('method')}"
    ok = same_count and same_nodes
    if not ok:
        detail += (f"; upstream placed {sum(placed.values())} ({dict(placed)}), last "
                   f"{last.get('outcome')} {last.get('message', '')[:120]!r}; kschedctl {ours['perNode']}")
    return ("match" if ok else "MISMATCH"), detail


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oracle", required=True)
    parser.add_argument("--cases", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-copies", type=int, default=5000)
    parser.add_argument("--synthetic-nodes", type=int, default=100,
                        help="also benchmarks.synthetic's cluster of this many nodes (10 pods each; 0: none)")
    ns = parser.parse_args(argv)
    oracle = Oracle(ns.oracle)
    tally: collections.Counter[str] = collections.Counter()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            fixture_pod = yaml.safe_load((ROOT / "fixtures" / "pods" / "pod.yaml").read_text(encoding="utf-8"))
            cases = [("fixtures", [str(ROOT / "fixtures" / "pods" / "pod.yaml"), "--cluster",
                                   str(ROOT / "fixtures" / "cluster")], fixture_pod)]
            if ns.synthetic_nodes:
                from benchmarks.synthetic import cluster_objects, pending_pod

                nodes, running = cluster_objects(ns.synthetic_nodes, 10)
                synthetic = work / "synthetic.yaml"
                synthetic.write_text(yaml.safe_dump_all(nodes + running), encoding="utf-8")
                template = pending_pod()
                (work / "synthetic-pod.yaml").write_text(yaml.safe_dump(template), encoding="utf-8")
                cases.append((f"synthetic-{ns.synthetic_nodes}",
                              [str(work / "synthetic-pod.yaml"), "--cluster", str(synthetic)], template))
            for i in range(ns.cases):
                case = diffgen.generate(ns.seed, i, "simulate")
                paths = case.write(work / f"case-{i}")
                template = case.pods[0]
                single = work / f"case-{i}" / "template.yaml"
                single.write_text(yaml.safe_dump(template), encoding="utf-8")
                args = [str(single), "--cluster", paths["cluster"]]
                if paths.get("config"):
                    args += ["--config", paths["config"]]
                cases.append((f"case-{i}", args, template))
            for name, args, pod in cases:
                verdict, detail = _compare(name, args, pod, oracle, work, ns.max_copies)
                tally[verdict] += 1
                print(f"{verdict:>8}  {detail}", flush=True)
    finally:
        oracle.close()
    print(f"{sum(tally.values())} cases: {tally['match']} match, {tally['MISMATCH']} mismatches, "
          f"{tally['skipped']} skipped")
    return 1 if tally["MISMATCH"] else 0


if __name__ == "__main__":
    sys.exit(main())
