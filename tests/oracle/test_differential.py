"""kschedctl against upstream kube-scheduler v1.34 itself: the oracle (oracle/, built from
k8s.io/kubernetes with `make -C oracle`) and kschedctl run the same random cases
(benchmarks.diffgen) and must agree field by field (benchmarks.differential).

Without Go these tests skip with a one-line reason, except under CI=true, where they must run.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
from pathlib import Path

import pytest

from benchmarks import differential, diffgen

ROOT = Path(__file__).resolve().parents[2]


def _run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = differential.main(argv)
    return code, out.getvalue()


def test_the_oracle_explains_a_bundled_fixture(oracle: str) -> None:
    """The oracle reads the same files as kschedctl and answers in the contract's shape."""
    answer = subprocess.run([oracle, "explain", "fixtures/pods/pod.yaml", "--cluster", "fixtures/cluster", "-o", "json"],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert answer.returncode == 0, answer.stderr
    ours = differential.run_kschedctl(["explain", str(ROOT / "fixtures/pods/pod.yaml"), "--cluster",
                                       str(ROOT / "fixtures/cluster"), "-o", "json"])
    import json

    theirs = json.loads(answer.stdout)
    assert theirs["kind"] == "ExplainResult" and theirs["outcome"] == "Scheduled"
    # The fixture lists its nodes out of name order; upstream lists them as the API server does,
    # so only the per-node answers are compared here.
    diffs = [d for d in differential.compare_explain(ours, theirs) if d[0] != "nodes"]
    assert diffs == []


def test_explain_agrees_with_upstream_on_random_clusters(oracle: str) -> None:
    code, out = _run(["--seed", "29", "--cases", "500", "--simulate-cases", "0", "--oracle", oracle])
    print(out)
    assert "500 cases, 0 mismatches" in out, out[-6000:]
    assert code == 0


def test_simulate_agrees_with_upstream_placement_by_placement(oracle: str) -> None:
    code, out = _run(["--seed", "29", "--cases", "0", "--simulate-cases", "50", "--oracle", oracle])
    print(out)
    assert "50 cases, 0 mismatches" in out, out[-6000:]
    assert code == 0


# Cases the longer runs found, each kept once fixed: (seed, command, index, what differed).
FOUND = [
    (4141, "explain", 123, "a nominated pod with a PreFilterResult: the oracle named the nodes left out after every "
                           "plugin the message lists (NodeResourcesFit too, added by the nominated node's filters) "
                           "instead of the plugins that returned a node set"),
    (4141, "simulate", 181, "PodTopologySpread's queueing hint matched a placed pod against the raw selectors of "
                            "every constraint: a pod upstream leaves unschedulable (its matchLabelKeys exclude "
                            "the placed pod) was retried and its last message saw later placements"),
    (427761294, "explain", 282, "--all-filters on a node whose chain failed with a nominated pod added: "
                                "InterPodAffinity passed there only because the nominated pod was counted, "
                                "where upstream's rule (both passes) fails it"),
]


@pytest.mark.parametrize("seed, command, index, what", FOUND, ids=[f"{s}-{c}-{i}" for s, c, i, _ in FOUND])
def test_cases_found_by_longer_runs_agree(oracle: str, tmp_path: Path, seed: int, command: str, index: int,
                                         what: str) -> None:
    runner = differential.Oracle(oracle)
    try:
        diffs, _, _, _ = differential.run_case(diffgen.generate(seed, index, command), runner, tmp_path)
    finally:
        runner.close()
    assert diffs == [], what


def test_a_mismatch_is_found_and_kept_as_a_scenario(oracle: str, tmp_path: Path, monkeypatch) -> None:
    """The harness is not blind: a kschedctl that answers differently is caught, and the case
    is written as a scenario directory a person can rerun."""
    real = differential.run_kschedctl

    def wrong(args: list[str]) -> dict:
        answer = real(args)
        if answer.get("outcome") == "Scheduled":
            answer["outcome"] = "Unschedulable"
        return answer

    monkeypatch.setattr(differential, "run_kschedctl", wrong)
    code, out = _run(["--seed", "5", "--cases", "5", "--simulate-cases", "0", "--oracle", oracle,
                      "--keep", str(tmp_path)])
    assert code == 1
    assert "mismatches" in out and ", 0 mismatches" not in out
    kept = sorted(tmp_path.glob("case-*/scenario.yaml"))
    assert kept and (kept[0].parent / "mismatch.txt").read_text().startswith("[outcome]")


def test_cases_are_a_function_of_seed_and_index() -> None:
    a = diffgen.generate(7, 3, "explain")
    b = diffgen.generate(7, 3, "explain")
    c = diffgen.generate(7, 4, "explain")
    assert (a.cluster, a.pods, a.config) == (b.cluster, b.pods, b.config)
    assert (a.cluster, a.pods) != (c.cluster, c.pods)


_EXPLAIN = {"kind": "ExplainResult", "pod": "default/p", "outcome": "Unschedulable", "selectedNode": None,
            "message": "0/2 nodes are available: 2 Insufficient cpu.", "evaluatedNodes": 2, "feasibleNodes": 0,
            "scoringSkippedUpstream": False, "tiedNodes": [],
            "preemption": {"nominatedNode": "n1", "victims": ["default/b", "default/a"]},
            "nodes": [{"name": n, "evaluated": True, "feasible": False, "scores": [], "totalScore": None,
                       "filters": [{"plugin": "NodeResourcesFit", "code": "Unschedulable", "reasons": ["Insufficient cpu"]}]}
                      for n in ("n1", "n2")]}

_SIMULATE = {"kind": "SimulationResult",
             "placements": [{"pod": "default/p", "outcome": "Scheduled", "node": "n1", "message": ""},
                            {"pod": "default/q", "outcome": "Unschedulable", "node": None, "nominatedNode": "n2",
                             "message": "0/2 nodes are available: 2 Insufficient cpu."}],
             "preemptions": [{"pod": "default/p", "node": "n1", "victims": ["default/b", "default/a"]}]}


def _changed(answer: dict, path: str, value) -> dict:
    import copy

    out = copy.deepcopy(answer)
    *parents, last = path.split(".")
    target = out
    for part in parents:
        target = target[int(part)] if isinstance(target, list) else target[part]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return out


@pytest.mark.parametrize("path, value, where", [
    ("preemption.victims", ["default/a", "default/b"], "DefaultPreemption"),  # same victims, other order
    ("evaluatedNodes", 1, "evaluatedNodes"),  # compared when unschedulable too
    ("selectedNode", "", "selectedNode"),  # null is not ""
    ("scoringSkippedUpstream", True, "scoringSkippedUpstream"),
    ("nodes.1.evaluated", False, "NodeResourcesFit"),
    ("nodes.0.allocations", [{"claim": "default/c", "devices": []}], "DynamicResources"),
])
def test_every_explain_field_is_compared(path: str, value, where: str) -> None:
    diffs = differential.compare_explain(_changed(_EXPLAIN, path, value), _EXPLAIN)
    assert [w for w, _ in diffs] == [where]
    assert differential.compare_explain(_EXPLAIN, _EXPLAIN) == []


@pytest.mark.parametrize("path, value, where", [
    ("preemptions.0.victims", ["default/a", "default/b"], "DefaultPreemption"),
    ("preemptions.0.node", "n2", "DefaultPreemption"),
    ("placements.1.message", "0/2 nodes are available.", "message"),
    ("placements.1.nominatedNode", None, "nominatedNode"),
    ("placements.0.node", "n2", "placements"),
])
def test_every_simulate_field_is_compared(path: str, value, where: str) -> None:
    diffs = differential.compare_simulate(_changed(_SIMULATE, path, value), _SIMULATE)
    assert [w for w, _ in diffs] == [where]
    assert differential.compare_simulate(_SIMULATE, _SIMULATE) == []


def _preempting(*preemptions: tuple[str, str, list[str]]) -> dict:
    return {"kind": "SimulationResult", "placements": [{"pod": "default/z", "outcome": "Scheduled", "node": "n9"}],
            "preemptions": [{"pod": p, "node": n, "victims": v} for p, n, v in preemptions]}


_P1 = ("default/p", "n1", ["default/a"])
_P2 = ("default/q", "n2", ["default/b"])


@pytest.mark.parametrize("ours, theirs, where", [
    # the same preemptions: everything else is compared as without a random offset
    (_preempting(_P1), _changed(_preempting(_P1), "placements.0.node", "n8"), ["placements"]),
    # the first preemption chose other victims: what follows may differ
    (_preempting(_P1), _preempting(("default/p", "n3", ["default/c"]), _P2), []),
    # the same first preemption, then a preemption on one side only: nothing explains it
    (_preempting(_P1), _preempting(_P1, _P2), ["DefaultPreemption"]),
    # another pod preempted first
    (_preempting(_P2), _preempting(_P1), ["DefaultPreemption"]),
], ids=["same-preemptions", "diverged", "extra-preemptor", "other-preemptor"])
def test_a_random_dry_run_frees_only_what_follows_a_divergence(ours: dict, theirs: dict, where: list[str]) -> None:
    assert [w for w, _ in differential.compare_simulate(ours, theirs, random_offset=True)] == where


_NOW = {"default/a": 0, "default/b": 0, "default/c": 0, "default/d": 0, "default/hi": 100}


@pytest.mark.parametrize("ours, theirs, where", [
    # one victim each, both without a start time and of one priority: the start-time tie-break
    # with two "now"s, decided by Go's map order upstream: what follows may differ
    (_preempting(_P1, ("default/q", "n2", ["default/b"])), _preempting(_P1, ("default/q", "n3", ["default/c"])), []),
    # a victim with a start time: the tie-break is deterministic, a mismatch
    (_preempting(("default/q", "n2", ["default/run"])), _preempting(("default/q", "n3", ["default/c"])),
     ["DefaultPreemption"]),
    # victims of other priorities: an earlier tie-break decided, a mismatch
    (_preempting(("default/q", "n2", ["default/hi"])), _preempting(("default/q", "n3", ["default/c"])),
     ["DefaultPreemption"]),
    # as many victims? no: another count decided
    (_preempting(("default/q", "n2", ["default/a", "default/b"])), _preempting(("default/q", "n3", ["default/c"])),
     ["DefaultPreemption"]),
], ids=["now-tie", "a-start-time", "other-priorities", "other-count"])
def test_a_start_time_tie_of_pods_without_one_frees_what_follows(ours: dict, theirs: dict, where: list[str]) -> None:
    """Upstream scores the candidates in Go map order and a pod without a start time starts
    "now", a later call to the clock each time: among such victims, either node may win."""
    assert [w for w, _ in differential.compare_simulate(ours, theirs, now_victims=_NOW)] == where


def test_pods_without_a_start_time_are_listed_with_their_priority() -> None:
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "b", "namespace": "default"}}
    classes = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
                "value": 1000},
               {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "base"},
                "value": 5, "globalDefault": True}]
    running = {"kind": "Pod", "metadata": {"name": "r", "namespace": "default"}, "spec": {"priority": 7},
               "status": {"startTime": "2025-01-01T00:00:00Z"}}
    bound = {"kind": "Pod", "metadata": {"name": "s", "namespace": "default"}, "spec": {"priority": 7}}
    pending = [{"kind": "Pod", "metadata": {"name": "p", "namespace": "default"}, "spec": {"priorityClassName": "high"}},
               {"kind": "Pod", "metadata": {"name": "q", "namespace": "other"}, "spec": {}}]
    case = diffgen.Case(seed=1, index=0, command="simulate", config=None, cluster=[*classes, running, bound],
                        pods=pending)
    assert differential.start_less_pods(case) == {"default/s": 7, "default/p": 1000, "other/q": 5}
    case.cluster.append(pdb)
    assert differential.start_less_pods(case) is None


def test_a_case_both_sides_refuse_is_a_mismatch(monkeypatch, tmp_path: Path) -> None:
    """Both erroring is not agreement: a generated case is valid input."""

    class Refusing:
        def run(self, args: list[str]) -> dict:
            return {"error": "upstream refused"}

    monkeypatch.setattr(differential, "run_kschedctl", lambda args: {"error": "exit 2: kschedctl refused"})
    diffs, *_ = differential.run_case(diffgen.generate(5, 0, "explain"), Refusing(), tmp_path)
    assert [w for w, _ in diffs] == ["bothError"]
