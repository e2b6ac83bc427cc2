"""Mutation check of the differential harness: does the CI batch catch planted bugs?

    python -m benchmarks.mutants [--oracle oracle/bin/kschedctl-oracle] [--only ID,ID...]
        [--batch ci|long] [--record FILE] [--list]

Each mutant is a small textual change of one line of kschedctl's source (``MUTANTS``), applied to a
temporary copy of the package, never to the tree itself; a fresh interpreter runs the batch with
that copy first on its path. A mutant is caught when some case's differences from upstream (the
oracle) are not the ones the unmutated kschedctl has on that case: a new mismatch, or a known
one that changed. So known defects still open on either side neither hide nor fake a catch.

The oracle answers once per case: the unmutated run records them (with its own differences)
and every mutant reads them back, so a mutant costs kschedctl's time only, and stops at its
first catch. The report gives, per mutant, the case that caught it (or SURVIVED) and the kill
rate; exit 1 if a mutant survived.

Batches: ``ci`` is the fixed batches the oracle tests run (tests/oracle); ``long`` is the
documented long run (``LONG_BATCH``), for mutants the CI batch misses.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "kschedctl"


@dataclass(frozen=True)
class Mutant:
    id: str
    area: str
    path: str  # relative to the kschedctl package
    old: str  # exactly one occurrence in the file
    new: str
    what: str


MUTANTS: tuple[Mutant, ...] = (
    # -- plugins -------------------------------------------------------------------------------
    Mutant("ns-selector-empty-matches-none", "plugins/InterPodAffinity", "framework/types.py",
           "    ns_selector = _label_selector(ns_selector_spec)\n",
           "    ns_selector = _label_selector(ns_selector_spec or None)\n",
           "an empty namespaceSelector {} matches no namespace instead of all"),
    Mutant("gt-inclusive", "plugins/NodeAffinity", "k8s/selectors.py",
           "                if not n > arg:\n", "                if not n >= arg:\n",
           "node selector Gt compares with >="),
    Mutant("toleration-ignores-effect", "plugins/TaintToleration", "k8s/tolerations.py",
           "    if effect and effect != (taint.get(\"effect\") or \"\"):\n        return False\n",
           "    if False:\n        return False\n",
           "a toleration's effect is ignored"),
    Mutant("prefer-noschedule-counts-all", "plugins/TaintToleration", "plugins/taint_toleration.py",
           "        if taint.get(\"effect\") != \"PreferNoSchedule\":\n",
           "        if taint.get(\"effect\") == \"NoExecute\":\n",
           "the score counts NoSchedule taints too"),
    Mutant("host-ip-wildcard-ignored", "plugins/NodePorts", "framework/types.py",
           "        for candidate in (DEFAULT_BIND_ALL_HOST_IP, ip):\n",
           "        for candidate in (ip,):\n",
           "a port taken on 0.0.0.0 does not conflict with a specific host IP"),
    Mutant("least-allocated-weights-ignored", "plugins/NodeResourcesFit", "plugins/resource_allocation.py",
           "        node_score += least_requested_score(req, alloc) * weight\n",
           "        node_score += least_requested_score(req, alloc)\n",
           "LeastAllocated leaves out the resources' weights (still divides by their sum)"),
    Mutant("ignored-group-not-ignored", "plugins/NodeResourcesFit", "plugins/node_resources_fit.py",
           "(ignored_groups and res.split(\"/\", 1)[0] in ignored_groups)",
           "(ignored_groups and res.split(\"/\", 1)[-1] in ignored_groups)",
           "ignoredResourceGroups compares the name, not the group"),
    Mutant("min-domains-off", "plugins/PodTopologySpread", "plugins/pod_topology_spread/filtering.py",
           "        if len(self.tp_value_to_match_num[i]) < self.constraints[i].min_domains:\n",
           "        if len(self.tp_value_to_match_num[i]) < self.constraints[i].min_domains - 1:\n",
           "minDomains counted one short"),
    Mutant("hard-affinity-weight-ignored", "plugins/InterPodAffinity", "plugins/inter_pod_affinity/scoring.py",
           "    if hard_pod_affinity_weight > 0:\n", "    if hard_pod_affinity_weight > 1000:\n",
           "existing pods' required affinity terms never score (hardPodAffinityWeight ignored)"),
    Mutant("image-spread-inverted", "plugins/ImageLocality", "plugins/image_locality.py",
           "    spread = float(num_nodes) / float(total_num_nodes)\n",
           "    spread = 1.0 - float(num_nodes) / float(total_num_nodes) + 1e-9\n",
           "an image's score grows as fewer nodes have it"),
    Mutant("volume-limit-off-by-one", "plugins/NodeVolumeLimits", "plugins/node_volume_limits.py",
           "            if current + count > limit:\n", "            if current + count > limit + 1:\n",
           "one volume over a CSI driver's attach limit still fits"),
    Mutant("allowed-topologies-ignored", "plugins/VolumeBinding", "plugins/volume_binding/binder.py",
           "            if not match_topology_selector_terms(sc.get(\"allowedTopologies\"), labels):\n",
           "            if not match_topology_selector_terms(None, labels):\n",
           "a StorageClass's allowedTopologies are ignored for provisioning"),
    # -- the cycle -----------------------------------------------------------------------------
    Mutant("adaptive-percentage", "cycle/schedule_one", "scheduler/schedule_one.py",
           "            percentage = 50 - num_all_nodes // 125\n", "            percentage = 50 - num_all_nodes // 100\n",
           "numFeasibleNodesToFind's adaptive percentage"),
    Mutant("min-feasible-nodes", "cycle/schedule_one", "scheduler/schedule_one.py",
           "        if num_nodes < MIN_FEASIBLE_NODES_TO_FIND:\n            return MIN_FEASIBLE_NODES_TO_FIND\n",
           "        if num_nodes < MIN_FEASIBLE_NODES_TO_FIND // 2:\n            return MIN_FEASIBLE_NODES_TO_FIND // 2\n",
           "at least 50 feasible nodes, not 100, in a partial scan"),
    Mutant("start-index-not-advanced", "cycle/schedule_one", "scheduler/schedule_one.py",
           "                self.next_start_node_index = (self.next_start_node_index + processed) % len(all_nodes)\n",
           "                self.next_start_node_index = 0\n",
           "every cycle's scan starts at the first node"),
    # -- preemption ----------------------------------------------------------------------------
    Mutant("pdb-budget-off-by-one", "preemption", "framework/preemption.py",
           "                if allowed[i] < 0:\n", "                if allowed[i] <= 0:\n",
           "a PDB with one disruption allowed counts its first victim as a violation"),
    Mutant("tie-break-more-victims", "preemption", "framework/preemption.py",
           "            return [-len(c.victims) for _, c in pairs]\n",
           "            return [len(c.victims) for _, c in pairs]\n",
           "the tie-break prefers the node with the most victims"),
    Mutant("tie-break-order", "preemption", "framework/preemption.py",
           "        scorers = [pdb_violations, highest_priority, sum_priorities, num_pods, latest_start]\n",
           "        scorers = [pdb_violations, num_pods, highest_priority, sum_priorities, latest_start]\n",
           "the tie-break counts victims before their priorities"),
    Mutant("preempt-never-ignored", "preemption", "plugins/default_preemption.py",
           "        if spec.get(\"preemptionPolicy\") == \"Never\":\n            return False, REASON_PREEMPT_NEVER\n"
           "        nominated = pod_info.nominated_node_name\n        if nominated:\n            # The",
           "        if spec.get(\"preemptionPolicy\") == \"never\":\n            return False, REASON_PREEMPT_NEVER\n"
           "        nominated = pod_info.nominated_node_name\n        if nominated:\n            # The",
           "preemptionPolicy: Never preempts"),
    # -- the plugins' column twins (simulate) ------------------------------------------------
    Mutant("columns-pod-count", "columns", "plugins/node_resources_fit_columns.py",
           "        fits = fixed[POD_COUNT, at] + 1 <= fixed[ALLOC_PODS, at]\n",
           "        fits = fixed[POD_COUNT, at] <= fixed[ALLOC_PODS, at]\n",
           "the column Filter lets a node take one pod over its pod capacity"),
    Mutant("columns-least-share", "columns", "plugins/resource_allocation_columns.py",
           "            share = np.where(req > alloc, 0, (alloc - req) * MAX_NODE_SCORE // divisor)\n",
           "            share = np.where(req > alloc, 0, (alloc - req - 1) * MAX_NODE_SCORE // divisor)\n",
           "the column LeastAllocated counts one unit more requested than there is"),
    Mutant("columns-spread-skew", "columns", "plugins/pod_topology_spread/columns.py",
           "            ok &= (node_codes >= 0) & (skew <= c.max_skew)\n",
           "            ok &= (node_codes >= 0) & (skew < c.max_skew)\n",
           "the column PodTopologySpread Filter rejects a skew equal to maxSkew"),
    # -- DRA -----------------------------------------------------------------------------------
    Mutant("dra-all-skips-last", "DRA", "plugins/dynamic_resources/allocator.py",
           "            rd.num_devices = len(rd.all_devices)\n",
           "            rd.num_devices = max(0, len(rd.all_devices) - 1)\n",
           "allocationMode All leaves the last device out"),
    Mutant("dra-allocated-anywhere", "DRA", "plugins/dynamic_resources/__init__.py",
           "                if allocation.get(\"nodeSelector\") is not None:\n",
           "                if allocation.get(\"nodeSelector\") is None and False:\n",
           "an allocated claim's nodeSelector no longer pins the pod to the claim's node"),
)

Batch = tuple[tuple[int, int, int], ...]
#: (seed, explain cases, simulate cases): tests/oracle/test_breadth.py's larger fixed batch.
CI_LARGE_BATCH: tuple[int, int, int] = (41, 1000, 100)
#: The fixed batches tests/oracle runs on every CI run (test_differential.py's, then the larger).
CI_BATCH: Batch = ((29, 500, 50), CI_LARGE_BATCH)
#: The documented long run (README): 20,000 explain and 2,000 simulate cases.
LONG_BATCH: Batch = ((4141, 20000, 2000),)
BATCHES: dict[str, Batch] = {"ci": CI_BATCH, "long": LONG_BATCH}


def batch_cases(batch: Batch) -> Iterator[tuple[int, str, int]]:
    """(seed, command, index), a simulate case after every ten explain cases so that mutants
    only simulate reaches are caught early too."""
    for seed, explain, simulate in batch:
        s = 0
        for i in range(explain):
            yield seed, "explain", i
            if i % 10 == 9 and s < simulate:
                yield seed, "simulate", s
                s += 1
        for j in range(s, simulate):
            yield seed, "simulate", j


def apply(mutant: Mutant, target: Path) -> None:
    """Write the mutated package to ``target`` (a copy of the real one)."""
    shutil.copytree(PACKAGE, target, ignore=shutil.ignore_patterns("__pycache__"))
    path = target / mutant.path
    text = path.read_text()
    if text.count(mutant.old) != 1:
        raise ValueError(f"mutant {mutant.id}: the line to change occurs {text.count(mutant.old)} times "
                         f"in kschedctl/{mutant.path}")
    path.write_text(text.replace(mutant.old, mutant.new))


def _key(seed: int, command: str, index: int) -> str:
    return f"{seed}:{command}:{index}"


class _Recorded:
    """The oracle's answers of the unmutated run (an sqlite file: a long run's answers do not
    fit in memory), read back by key."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.key = ""
        self.seconds = 0.0

    def run(self, args: list[str]) -> dict[str, Any]:
        row = self.db.execute("SELECT answer FROM cases WHERE key = ?", (self.key,)).fetchone()
        return json.loads(row[0])

    def diffs(self, key: str) -> list[str]:
        row = self.db.execute("SELECT diffs FROM cases WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else []


def worker(batch_json: str, record: str, mode: str) -> int:
    """In a fresh interpreter whose kschedctl is the one to test. mode "baseline": run every
    case against the oracle and record its answers and kschedctl's differences; mode "mutant":
    replay the recorded answers and stop at the first case whose differences are new."""
    import kschedctl
    from benchmarks import differential, diffgen

    batch: Batch = tuple(tuple(b) for b in json.loads(batch_json))  # type: ignore[misc]
    db = sqlite3.connect(record)
    recorded = db.execute("SELECT value FROM meta WHERE name = 'generator'").fetchone()[0]
    if recorded != _generator_digest():
        raise RuntimeError("benchmarks/diffgen.py changed since the unmutated run: its cases are not the recorded ones")
    out: dict[str, Any] = {"package": str(Path(kschedctl.__file__).parent)}
    if mode == "baseline":
        db.execute("CREATE TABLE IF NOT EXISTS cases (key TEXT PRIMARY KEY, answer TEXT, diffs TEXT)")
        oracle_path = db.execute("SELECT value FROM meta WHERE name = 'oracle'").fetchone()[0]
        oracle: Any = differential.Oracle(oracle_path)
    else:
        oracle = _Recorded(db)
    cases = mismatching = 0
    with tempfile.TemporaryDirectory(prefix="kschedctl-mutant-") as tmp:
        for seed, command, index in batch_cases(batch):
            key = _key(seed, command, index)
            case = diffgen.generate(seed, index, command)
            oracle.key = key
            diffs, _ours, theirs, _args = differential.run_case(case, oracle, Path(tmp) / "case")
            shutil.rmtree(Path(tmp) / "case", ignore_errors=True)
            cases += 1
            found = sorted(f"[{w}] {d}" for w, d in diffs)
            if mode == "baseline":
                mismatching += bool(found)
                db.execute("INSERT OR REPLACE INTO cases VALUES (?, ?, ?)", (key, json.dumps(theirs), json.dumps(found)))
                continue
            known = oracle.diffs(key)
            if found != known:
                out.update(caught=key, diff=(sorted(set(found) - set(known)) or found)[:2])
                break
    out["cases"] = cases
    if mode == "baseline":
        oracle.close()
        db.commit()
        out["mismatching"] = mismatching
    db.close()
    print(json.dumps(out))
    return 0


def _spawn(package_parent: Path | None, batch: Batch, record: Path, mode: str, timeout: float) -> dict[str, Any]:
    """Run ``worker`` in a new interpreter, kschedctl imported from ``package_parent`` if given."""
    path = [str(package_parent)] if package_parent else []
    code = (f"import sys; sys.path[:0] = {path!r}; sys.path.insert(len({path!r}), {str(ROOT)!r}); "
            f"from benchmarks import mutants; sys.exit(mutants.worker({json.dumps(batch)!r}, {str(record)!r}, {mode!r}))")
    done = subprocess.run([sys.executable, "-c", code], cwd=str(record.parent), capture_output=True, text=True,
                          timeout=timeout)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return {"error": (done.stderr.strip().splitlines() or ["no output"])[-1][:300]}
    return json.loads(lines[-1])


def run(mutants: list[Mutant], batch: Batch, oracle: str, timeout: float = 6 * 3600.0,
        echo: Any = print, record: Path | None = None) -> list[dict[str, Any]]:
    """Each mutant's verdict: {"id", "caught" (case key or None), "cases", "seconds", ...}.

    ``record``: where the unmutated run's answers are kept; a record of the same batch and
    generator (a file from an earlier run) is used again instead of running the oracle."""
    results = []
    with tempfile.TemporaryDirectory(prefix="kschedctl-mutants-") as tmp:
        record = record or Path(tmp) / "record.sqlite"
        stamp = json.dumps({"batch": batch, "generator": _generator_digest()})
        if not _record_matches(record, stamp):
            record.unlink(missing_ok=True)
            with contextlib.closing(sqlite3.connect(record)) as db:
                db.execute("CREATE TABLE meta (name TEXT, value TEXT)")
                db.execute("INSERT INTO meta VALUES ('oracle', ?)", (str(Path(oracle).resolve()),))
                db.execute("INSERT INTO meta VALUES ('generator', ?)", (_generator_digest(),))
                db.commit()
            started = time.perf_counter()
            base = _spawn(None, batch, record, "baseline", timeout)
            if "error" in base:
                raise RuntimeError(f"the unmutated run failed: {base['error']}")
            with contextlib.closing(sqlite3.connect(record)) as db:
                db.execute("INSERT INTO meta VALUES ('stamp', ?)", (stamp,))
                db.commit()
            echo(f"unmutated: {base['cases']} cases, {base['mismatching']} with differences already "
                 f"({time.perf_counter() - started:.0f} s)")
        else:
            echo(f"unmutated: answers read from {record}")
        for mutant in mutants:
            target = Path(tmp) / mutant.id
            apply(mutant, target / "kschedctl")
            started = time.perf_counter()
            answer = _spawn(target, batch, record, "mutant", timeout)
            seconds = time.perf_counter() - started
            shutil.rmtree(target, ignore_errors=True)
            if "error" in answer:
                verdict = {"id": mutant.id, "caught": f"error: {answer['error']}", "cases": 0}
            else:
                if answer.get("package") != str(target / "kschedctl"):
                    raise RuntimeError(f"mutant {mutant.id} ran {answer.get('package')}, not the mutated copy")
                verdict = {"id": mutant.id, "caught": answer.get("caught"), "cases": answer["cases"],
                           "diff": answer.get("diff")}
            verdict.update(area=mutant.area, what=mutant.what, seconds=round(seconds, 1))
            results.append(verdict)
            status = f"caught by {verdict['caught']} (case {verdict['cases']})" if verdict["caught"] else \
                f"SURVIVED {verdict['cases']} cases"
            echo(f"  {mutant.id:<32} {mutant.area:<28} {status}  {seconds:.0f} s")
    return results


def _generator_digest() -> str:
    """What the recorded answers depend on besides the batch: the generator's source."""
    import hashlib

    return hashlib.sha256((ROOT / "benchmarks" / "diffgen.py").read_bytes()).hexdigest()[:16]


def _record_matches(record: Path, stamp: str) -> bool:
    if not record.exists():
        return False
    try:
        with contextlib.closing(sqlite3.connect(record)) as db:
            row = db.execute("SELECT value FROM meta WHERE name = 'stamp'").fetchone()
    except sqlite3.Error:
        return False
    return row is not None and row[0] == stamp


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.mutants", description=__doc__.split("\n\n")[0])
    parser.add_argument("--oracle", default=str(ROOT / "oracle" / "bin" / "kschedctl-oracle"))
    parser.add_argument("--only", default="", help="comma-separated mutant ids")
    parser.add_argument("--batch", choices=("ci", "long"), default="ci")
    parser.add_argument("--list", action="store_true", help="list the mutants and check each applies")
    parser.add_argument("--record", default=None,
                        help="keep the unmutated run's answers in this file, and use them again next time")
    ns = parser.parse_args(argv)
    chosen = list(MUTANTS)
    if ns.only:
        wanted = ns.only.split(",")
        unknown = sorted(set(wanted) - {m.id for m in MUTANTS})
        if unknown:
            parser.error(f"unknown mutant(s): {', '.join(unknown)}")
        chosen = [m for m in MUTANTS if m.id in wanted]
    if ns.list:
        with tempfile.TemporaryDirectory() as tmp:
            for m in chosen:
                apply(m, Path(tmp) / m.id / "kschedctl")
                print(f"{m.id:<32} {m.area:<28} kschedctl/{m.path}: {m.what}")
        return 0
    results = run(chosen, BATCHES[ns.batch], ns.oracle, record=Path(ns.record) if ns.record else None)
    killed = sum(1 for r in results if r["caught"] and not str(r["caught"]).startswith("error"))
    print(f"{killed} of {len(results)} mutants caught by the {ns.batch} batch "
          f"({100 * killed / max(1, len(results)):.0f}%)")
    return 0 if killed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
