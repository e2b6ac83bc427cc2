"""Differential tests: kschedctl beside upstream's kube-scheduler (the oracle) on random clusters.

    python -m benchmarks.differential --seed S --cases N --oracle oracle/bin/kschedctl-oracle
        [--simulate-cases M] [--keep DIR]

Each case is a random but valid input (``benchmarks.diffgen``): nodes, existing pods, volumes,
devices, a scheduler configuration and one or more pending pods, written as files that both
engines read. Both run the same command line; their JSON is compared field by field:

- explain: outcome, message, evaluated and feasible counts (in every outcome), whether upstream
  skipped scoring (one feasible node), the selected node (when scheduled, one of the nodes
  sharing the top score: selectHost picks one of them at random) and that set, per node
  (Gated and Error outcomes too, as far as upstream's diagnosis goes) visited, feasible, filter
  entries (plugin, code, reasons), DynamicResources' allocations (devices per claim and
  request) and, where upstream scored, scores (plugin, raw, normalized, weight, weighted,
  total), the preemption (nominated node, victims in order);
- simulate: placement by placement (pod, outcome, node, message, nomination, and the order of
  the bindings) and every preemption in order (preemptor, node, victims in order), with
  ``--tie-break first`` on kschedctl's side; the oracle takes the same rule (the first node in
  visit order among the top scores), so both are deterministic.

A case one side refuses is a mismatch (``error``), and so is one both refuse (``bothError``):
generated cases are valid input.

The run ends with ``N cases, M mismatches`` and the mismatches per plugin. A mismatching case
is written under ``--keep`` as a kschedctl scenario directory (config, cluster, pods and the
oracle's answer as the expectation) for a person to rerun.
"""

from __future__ import annotations

import argparse
import collections
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import yaml

from benchmarks import diffgen


class Oracle:
    """One long-lived ``kschedctl-oracle batch`` process."""

    def __init__(self, path: str) -> None:
        self.proc = subprocess.Popen([path, "batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1)
        self.seconds = 0.0

    def run(self, args: list[str]) -> dict[str, Any]:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps({"args": args}) + "\n")
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the oracle exited")
        answer = json.loads(line)
        self.seconds += answer.get("seconds", 0.0)
        if "error" in answer:
            return {"error": answer["error"]}
        return answer["result"]

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)


def run_kschedctl(args: list[str]) -> dict[str, Any]:
    """kschedctl's own command line, in this process (a new interpreter per case would
    cost more than the case)."""
    from kschedctl.cli.app import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with redirect_stdout(out), redirect_stderr(err):
        try:
            main(args)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    if code not in (0, 1):
        return {"error": f"exit {code}: {err.getvalue().strip()[:500]}"}
    try:
        return json.loads(out.getvalue())
    except json.JSONDecodeError:
        return {"error": f"no JSON (exit {code}): {err.getvalue().strip()[:500]}"}


# -- comparison -----------------------------------------------------------------------------

def _entries(items: list[dict[str, Any]], keys: tuple[str, ...]) -> list[tuple]:
    return [tuple(tuple(_canonical_reasons(i.get("plugin"), i[k]) if k == "reasons" else i[k])
                  if isinstance(i.get(k), list) else i.get(k) for k in keys) for i in items]


_FIXED_ORDER_REASONS = frozenset({"Too many pods", "Insufficient cpu", "Insufficient memory",
                                  "Insufficient ephemeral-storage"})


def _canonical_reasons(plugin: Any, reasons: list[str]) -> list[str]:
    """NodeResourcesFit lists its scalar resources (extended, hugepages) after the fixed ones
    in Go map order, a new order on every run (fit.go, ``range podRequest.ScalarResources``):
    those are compared as a set, the fixed ones in order."""
    if plugin != "NodeResourcesFit":
        return reasons
    fixed = [r for r in reasons if r in _FIXED_ORDER_REASONS]
    return fixed + sorted(r for r in reasons if r not in _FIXED_ORDER_REASONS)


def candidates_limited(case: diffgen.Case) -> bool:
    """Whether upstream's preemption may dry-run only some of the nodes: it examines
    ``max(nodes * minCandidateNodesPercentage / 100, minCandidateNodesAbsolute)`` candidates
    from a random offset (DefaultPreemption.GetOffsetAndNumCandidates, ``rand.Int31n``), so below
    the number of nodes which node it nominates, and which victims, depend on that draw; kschedctl
    draws its offset from its own seeded generator. Either answer is one upstream could give."""
    nodes = sum(1 for o in case.cluster if o.get("kind") == "Node")
    limits = [(10, 100)]
    for profile in (case.config or {}).get("profiles") or []:
        for entry in profile.get("pluginConfig") or []:
            if entry.get("name") == "DefaultPreemption":
                args = entry.get("args") or {}
                limits.append((args.get("minCandidateNodesPercentage", 10), args.get("minCandidateNodesAbsolute", 100)))
    return any(max(nodes * pct // 100, absolute) < nodes for pct, absolute in limits)


def compare_explain(ours: dict[str, Any], theirs: dict[str, Any], random_offset: bool = False) -> list[tuple[str, str]]:
    """The differences, each as (plugin or field, description)."""
    diffs: list[tuple[str, str]] = []

    def differ(where: str, what: str, a: Any, b: Any) -> None:
        diffs.append((where, f"{what}: kschedctl {a!r} != upstream {b!r}"))

    for key in ("outcome", "message", "feasibleNodes", "evaluatedNodes", "scoringSkippedUpstream", "provisionalNode"):
        if ours.get(key) != theirs.get(key):
            differ(key, key, ours.get(key), theirs.get(key))
    if theirs.get("outcome") == "Scheduled":
        # selectHost picks one of the top-scored nodes at random: the pick must be one of them
        top = set(theirs.get("tiedNodes") or [theirs.get("selectedNode")])
        if ours.get("selectedNode") not in top:
            differ("selectedNode", "selectedNode", ours.get("selectedNode"), sorted(top))
        ours_tied = set(ours.get("tiedNodes") or [ours.get("selectedNode")])
        if ours_tied != top:
            differ("tiedNodes", "tiedNodes", sorted(ours_tied), sorted(top))
    elif ours.get("selectedNode") != theirs.get("selectedNode"):
        differ("selectedNode", "selectedNode", ours.get("selectedNode"), theirs.get("selectedNode"))
    op, tp = ours.get("preemption"), theirs.get("preemption")
    # victims in the order the preemption chose them (PDB-violating first, then by importance);
    # where upstream dry-runs only some nodes from a random offset, both must preempt or not
    if (op is None) != (tp is None) or (op and tp and not random_offset and (
            op.get("nominatedNode") != tp.get("nominatedNode")
            or list(op.get("victims") or []) != list(tp.get("victims") or []))):
        differ("DefaultPreemption", "preemption",
               op and {k: op.get(k) for k in ("nominatedNode", "victims")}, tp)
    # An Error cycle: upstream's diagnosis holds the nodes rejected before the error, no more.
    error_cycle = theirs.get("outcome") == "Error"
    our_nodes = {n["name"]: n for n in ours.get("nodes") or []}
    their_nodes = {n["name"]: n for n in theirs.get("nodes") or []}
    if list(our_nodes) != list(their_nodes):
        differ("nodes", "node order", list(our_nodes)[:8], list(their_nodes)[:8])
    scored = not theirs.get("scoringSkippedUpstream")
    for name, tn in their_nodes.items():
        on = our_nodes.get(name)
        if on is None:
            continue
        if error_cycle and not tn.get("evaluated"):
            continue
        for key in ("evaluated", "feasible"):
            if on.get(key) != tn.get(key):
                differ(_first_failing(tn) or _first_failing(on) or "Filter", f"{name} {key}", on.get(key), tn.get(key))
        of = _entries(on.get("filters") or [], ("plugin", "code", "reasons"))
        tf = _entries(tn.get("filters") or [], ("plugin", "code", "reasons"))
        if of != tf:
            differ(_first_different(of, tf), f"{name} filters", of, tf)
        if (on.get("allocations") or []) != (tn.get("allocations") or []):
            differ("DynamicResources", f"{name} allocations", on.get("allocations"), tn.get("allocations"))
        if not scored:
            continue  # kschedctl scores a lone feasible node for display; upstream does not
        os_ = _entries(on.get("scores") or [], ("plugin", "raw", "normalized", "weight", "weighted"))
        ts = _entries(tn.get("scores") or [], ("plugin", "raw", "normalized", "weight", "weighted"))
        if sorted(os_) != sorted(ts):
            differ(_first_different(sorted(os_), sorted(ts)), f"{name} scores", os_, ts)
        elif on.get("totalScore") != tn.get("totalScore"):
            differ("totalScore", f"{name} totalScore", on.get("totalScore"), tn.get("totalScore"))
    return diffs


def _first_failing(node: dict[str, Any]) -> str | None:
    for f in node.get("filters") or []:
        if f.get("code") != "Success":
            return f.get("plugin")
    return None


def _first_different(a: list[tuple], b: list[tuple]) -> str:
    for x, y in zip(a, b):
        if x != y:
            return str(y[0] if y else x[0])
    longer = a if len(a) > len(b) else b
    return str(longer[min(len(a), len(b))][0]) if longer else "?"


def compare_simulate(ours: dict[str, Any], theirs: dict[str, Any], random_offset: bool = False,
                     now_victims: dict[str, int] | None = None) -> list[tuple[str, str]]:
    """Placement by placement (outcome, node, message, nomination), the binding order, and
    every preemption in order with its victims in order. With ``random_offset`` (upstream's
    preemption dry-runs some nodes from a random offset), a preemption that chose another node or
    other victims leaves the rest of the run free to differ: up to the first such one, the same
    pods must preempt, in the same order.

    ``now_victims``: the priority of each pod without a start time, in a run without
    PodDisruptionBudgets. When the first preemption that differs chose, on each side, as many
    victims of the same priorities, all of them such pods, the choice fell to the start-time
    tie-break with every start "now": upstream scores the candidates in Go map order (random),
    each "now" a later call to the clock, so either node may win. The rest of the run is then
    free to differ, as with ``random_offset``."""
    if now_victims is not None and _a_now_tie(ours, theirs, now_victims):
        return []
    diffs: list[tuple[str, str]] = []
    if random_offset:
        ours_pre = ours.get("preemptions") or []
        theirs_pre = theirs.get("preemptions") or []
        for o, t in zip(ours_pre, theirs_pre):
            if o.get("pod") != t.get("pod"):
                break
            if (o.get("node"), o.get("victims")) != (t.get("node"), t.get("victims")):
                return []
        else:
            if len(ours_pre) == len(theirs_pre):
                ours_pre = theirs_pre = []
        if ours_pre or theirs_pre:
            return [("DefaultPreemption", f"preemptors: kschedctl {[p.get('pod') for p in ours_pre]} != "
                                          f"upstream {[p.get('pod') for p in theirs_pre]}")]
    op = {p["pod"]: p for p in ours.get("placements") or []}
    tp = {p["pod"]: p for p in theirs.get("placements") or []}
    for pod, t in tp.items():
        o = op.get(pod)
        if o is None:
            diffs.append(("placements", f"{pod}: missing from kschedctl"))
            continue
        if (o.get("outcome"), o.get("node") or "") != (t.get("outcome"), t.get("node") or ""):
            diffs.append(("placements", f"{pod}: kschedctl {o.get('outcome')} {o.get('node')!r} != "
                                        f"upstream {t.get('outcome')} {t.get('node')!r}"))
            continue
        if t.get("outcome") not in ("Scheduled", "Preempted") and o.get("message") != t.get("message"):
            diffs.append(("message", f"{pod}: kschedctl {o.get('message')!r} != upstream {t.get('message')!r}"))
        if (o.get("nominatedNode") or "") != (t.get("nominatedNode") or ""):
            diffs.append(("nominatedNode", f"{pod}: kschedctl {o.get('nominatedNode')!r} != "
                                           f"upstream {t.get('nominatedNode')!r}"))
    for pod in op.keys() - tp.keys():
        diffs.append(("placements", f"{pod}: missing from upstream"))
    placed = ("Scheduled", "Preempted")
    our_order = [p["pod"] for p in ours.get("placements") or [] if p.get("outcome") in placed]
    their_order = [p["pod"] for p in theirs.get("placements") or [] if p.get("outcome") in placed]
    if not diffs and our_order != their_order:
        diffs.append(("placements", f"binding order: kschedctl {our_order} != upstream {their_order}"))
    ours_pre = [(p.get("pod"), p.get("node"), list(p.get("victims") or [])) for p in ours.get("preemptions") or []]
    theirs_pre = [(p.get("pod"), p.get("node"), list(p.get("victims") or [])) for p in theirs.get("preemptions") or []]
    if ours_pre != theirs_pre:
        diffs.append(("DefaultPreemption", f"preemptions: kschedctl {ours_pre} != upstream {theirs_pre}"))
    return diffs


def _a_now_tie(ours: dict[str, Any], theirs: dict[str, Any], now_victims: dict[str, int]) -> bool:
    for o, t in zip(ours.get("preemptions") or [], theirs.get("preemptions") or []):
        if o.get("pod") != t.get("pod"):
            return False
        if (o.get("node"), o.get("victims")) == (t.get("node"), t.get("victims")):
            continue
        ov, tv = list(o.get("victims") or []), list(t.get("victims") or [])
        return (bool(ov) and len(ov) == len(tv) and all(v in now_victims for v in ov + tv)
                and sorted(now_victims[v] for v in ov) == sorted(now_victims[v] for v in tv))
    return False


def start_less_pods(case: diffgen.Case) -> dict[str, int] | None:
    """The priority of each pod of ``case`` without ``status.startTime`` ("ns/name"), or None when
    the cluster has PodDisruptionBudgets (they are a tie-break before the start times)."""
    objects = [*case.cluster, *case.pods]
    if any(o.get("kind") == "PodDisruptionBudget" for o in objects):
        return None
    classes = {o["metadata"]["name"]: int(o.get("value") or 0) for o in objects if o.get("kind") == "PriorityClass"}
    default = next((int(o.get("value") or 0) for o in objects
                    if o.get("kind") == "PriorityClass" and o.get("globalDefault")), 0)
    out: dict[str, int] = {}
    for o in objects:
        if o.get("kind") != "Pod" or (o.get("status") or {}).get("startTime"):
            continue
        meta, spec = o.get("metadata") or {}, o.get("spec") or {}
        priority = spec.get("priority")
        if priority is None:
            name = spec.get("priorityClassName")
            priority = classes.get(name, default) if name else default
        out[f"{meta.get('namespace') or 'default'}/{meta.get('name')}"] = int(priority)
    return out


# -- running cases --------------------------------------------------------------------------

def run_case(case: diffgen.Case, oracle: Oracle, workdir: Path) -> tuple[list[tuple[str, str]], dict, dict, list[str]]:
    paths = case.write(workdir)
    args = [case.command, *paths["pods"], "--cluster", paths["cluster"], "-o", "json"]
    if paths.get("config"):
        args += ["--config", paths["config"]]
    if case.all_filters:
        args.append("--all-filters")
    theirs = oracle.run(args)
    ours_args = list(args)
    if case.command == "simulate":
        ours_args += ["--tie-break", "first"]
    ours = run_kschedctl(ours_args)
    if "error" in theirs or "error" in ours:
        # Both refusing the case is no agreement: a generated case is valid input, so the refusal
        # is a fault of one side (or of the generator) to look at.
        where = "bothError" if "error" in theirs and "error" in ours else "error"
        return [(where, f"kschedctl {ours.get('error')!r} / upstream {theirs.get('error')!r}")], ours, theirs, args
    if case.command == "explain":
        our_items = ours.get("items", [ours])
        their_items = theirs.get("items", [theirs])
        diffs = []
        if len(our_items) != len(their_items):
            diffs.append(("items", f"kschedctl {len(our_items)} results != upstream {len(their_items)}"))
        random_offset = candidates_limited(case)
        for o, t in zip(our_items, their_items):
            diffs += compare_explain(o, t, random_offset=random_offset)
        return diffs, ours, theirs, args
    return compare_simulate(ours, theirs, candidates_limited(case), start_less_pods(case)), ours, theirs, args


def keep_case(case: diffgen.Case, keep: Path, index: int, diffs: list, theirs: dict) -> Path:
    """A mismatch as a scenario directory a person can rerun with kschedctl test."""
    target = keep / f"case-{case.seed}-{case.command}-{index:05d}"
    if target.exists():
        shutil.rmtree(target)
    paths = case.write(target)
    expect = []
    items = theirs.get("items", [theirs]) if case.command == "explain" else theirs.get("placements", [])
    for item in items:
        exp: dict[str, Any] = {"pod": item.get("pod"), "outcome": item.get("outcome")}
        node = item.get("selectedNode") if case.command == "explain" else item.get("node")
        if case.command == "explain" and item.get("tiedNodes"):
            exp["nodeIn"] = item["tiedNodes"]
        elif node:
            exp["node"] = node
        expect.append(exp)
    scenario = {"apiVersion": "kschedctl/v1", "kind": "Scenario",
                "name": f"differential case {case.seed}/{index} ({case.command})",
                "cluster": [os.path.relpath(paths["cluster"], target)],
                "pods": [os.path.relpath(p, target) for p in paths["pods"]],
                "expect": expect}
    if paths.get("config"):
        scenario["config"] = os.path.relpath(paths["config"], target)
    (target / "scenario.yaml").write_text(yaml.safe_dump(scenario, sort_keys=False))
    (target / "mismatch.txt").write_text("\n".join(f"[{w}] {d}" for w, d in diffs) + "\n")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.differential", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=200, help="explain cases")
    parser.add_argument("--simulate-cases", type=int, default=None, help="simulate cases (default: cases/10)")
    parser.add_argument("--first", type=int, default=0,
                        help="index of the first explain case (a long run split into parts)")
    parser.add_argument("--first-simulate", type=int, default=None,
                        help="index of the first simulate case (default: first/10)")
    parser.add_argument("--oracle", default="oracle/bin/kschedctl-oracle")
    parser.add_argument("--keep", default=None, help="write mismatching cases here as scenario directories")
    parser.add_argument("--show", type=int, default=5, help="print the first N mismatches in full")
    parser.add_argument("--no-coverage", dest="coverage", action="store_false",
                        help="do not print which input dimensions the cases covered")
    ns = parser.parse_args(argv)
    simulate_cases = ns.cases // 10 if ns.simulate_cases is None else ns.simulate_cases
    oracle = Oracle(ns.oracle)
    per_plugin: collections.Counter[str] = collections.Counter()
    coverage: collections.Counter[str] = collections.Counter()
    mismatches = 0
    shown = 0
    started = time.perf_counter()
    ours_seconds = 0.0
    first_simulate = ns.first // 10 if ns.first_simulate is None else ns.first_simulate
    plan = ([("explain", i) for i in range(ns.first, ns.first + ns.cases)]
            + [("simulate", i) for i in range(first_simulate, first_simulate + simulate_cases)])
    with tempfile.TemporaryDirectory(prefix="kschedctl-diff-") as tmp:
        for command, i in plan:
            case = diffgen.generate(ns.seed, i, command)
            coverage.update(case.features)
            workdir = Path(tmp) / f"{command}-{i}"
            t0 = time.perf_counter()
            oracle_before = oracle.seconds
            diffs, ours, theirs, args = run_case(case, oracle, workdir)
            ours_seconds += time.perf_counter() - t0 - (oracle.seconds - oracle_before)
            shutil.rmtree(workdir, ignore_errors=True)
            if not diffs:
                continue
            mismatches += 1
            for where in {w for w, _ in diffs}:
                per_plugin[where] += 1
            if ns.keep:
                kept = keep_case(case, Path(ns.keep), i, diffs, theirs)
            if shown < ns.show:
                shown += 1
                print(f"--- {command} case {i} (seed {ns.seed}): {len(diffs)} difference(s)"
                      + (f", kept in {kept}" if ns.keep else ""))
                for where, what in diffs[:6]:
                    print(f"  [{where}] {what}"[:600])
    oracle.close()
    total = len(plan)
    if ns.coverage:
        print(diffgen.format_coverage(coverage, total))
    print(f"kschedctl {ours_seconds:.1f} s, upstream {oracle.seconds:.1f} s, "
          f"wall {time.perf_counter() - started:.1f} s")
    print(f"{total} cases, {mismatches} mismatches")
    for where, count in per_plugin.most_common():
        print(f"  {where}: {count}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
