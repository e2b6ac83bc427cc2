"""explain puts the answer first, and its tables fit 80, 100 and 120 columns without breaking a word.

The first lines of the table output say where the pod goes and why (the margin over the runner-up
and the plugins that made it, a tie and its seed), or what blocks it and the closest fix, with
preemption and a pod's own spec.nodeName in the first line. Then, at each width, every word and
number of the report is either whole or cut short with "…": never split over two lines.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.cli.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = str(ROOT / "fixtures" / "cluster")
PODS = ROOT / "fixtures" / "pods"
SCENARIOS = ROOT / "profiles" / "scenarios"
DRA = ["--cluster", str(SCENARIOS / "cluster" / "dra-gpus.yaml")]
PREEMPTION = ["--cluster", str(SCENARIOS / "cluster" / "preemption-toleration.yaml")]
BOUND = str(Path(__file__).parent / "cases" / "explain_answer" / "bound-pod.yaml")

#: case: (arguments, the first five lines at 120 columns)
FIRST_LINES = {
    "scheduled": (
        [str(PODS / "pod.yaml"), "--cluster", CLUSTER],
        ["default/hello → node-b2 (Scheduled)",
         "  Why      node-b2 by 9 points over node-c1: NodeResourcesFit +8, NodeResourcesBalancedAllocation +2, "
         "ImageLocality -1",
         "  Nodes    8 evaluated, 5 feasible, 8 in the cluster",
         "  Profile  default-scheduler",
         ""]),
    "unschedulable": (
        [str(PODS / "too-big.yaml"), "--cluster", CLUSTER],
        ["default/too-big: Unschedulable",
         "  Blockers     NodeResourcesFit on 5 nodes (Insufficient cpu, Insufficient memory); TaintToleration on "
         "2 nodes (node(s)",
         "               had untolerated taint(s)); NodeUnschedulable on 1 node (node(s) were unschedulable)",
         "  Closest fix  no untainted node has more than 3.82 cpu free and 14.7Gi memory free: node-b2 needs 60.18 "
         "more cpu and",
         "               497Gi more memory (over the node's whole allocatable: eviction cannot help)"]),
    "preemption": (
        [str(SCENARIOS / "pods" / "toleration-preemptors.yaml"), *PREEMPTION],
        ["default/checkout: Unschedulable → nominated node-t1, preempting 1 pod: default/etl-tolerant",
         "  Blockers     NodeResourcesFit on 2 nodes (Insufficient cpu)",
         "  Closest fix  node-t2 needs 2 more cpu (evicting lower-priority default/etl-plain would free it)",
         "  Message      0/2 nodes are available: 2 Insufficient cpu.",
         "  Nodes        2 evaluated, 0 feasible, 2 in the cluster"]),
    "spec.nodeName": (
        [BOUND, "--cluster", CLUSTER],
        ["default/pinned → node-c1 (spec.nodeName is set: kube-scheduler never sees this pod)",
         "  Note     bound to node-c1 already: that node's kubelet admits it (or rejects it: OutOfcpu, NodeAffinity, "
         "...) without",
         "           kube-scheduler, which only takes pods with no spec.nodeName. Below, what its plugins would say, "
         "for",
         "           reference.",
         "  Nodes    8 evaluated, 1 feasible, 8 in the cluster"]),
    "tie (DRA)": (
        [str(SCENARIOS / "pods" / "dra-two-gpus.yaml"), *DRA, "--seed", "1"],
        ["default/finetune → h100-1 (Scheduled)",
         "  Why      2 nodes tie at 492 points (a100-2, h100-1); h100-1 was picked at random (seed 1)",
         "  Nodes    4 evaluated, 3 feasible, 4 in the cluster",
         "  Profile  default-scheduler",
         ""]),
    "only feasible node (DRA)": (
        [str(SCENARIOS / "pods" / "dra-big-gpu.yaml"), *DRA],
        ["default/big-model → h100-1 (Scheduled)",
         "  Why      h100-1 is the only feasible node; the other 3 were rejected by DynamicResources (3)",
         "  Nodes    4 evaluated, 1 feasible, 4 in the cluster",
         "  Profile  default-scheduler",
         ""]),
}


@pytest.mark.parametrize("case", list(FIRST_LINES))
def test_the_first_five_lines_give_the_answer(case: str) -> None:
    args, expected = FIRST_LINES[case]
    result = run_cli("explain", *args, "--width", "120", "-q")
    assert result.exit_code in (0, 1), result.stderr
    # Words and line breaks are the answer; rich versions differ by a space of padding.
    assert [" ".join(line.split()) for line in result.stdout.splitlines()[:5]] == [
        " ".join(line.split()) for line in expected]


def test_extension_points_are_folded_unless_wide() -> None:
    args = [str(PODS / "too-big.yaml"), "--cluster", CLUSTER, "--width", "120", "-q"]
    folded = run_cli("explain", *args).stdout
    full = run_cli("explain", *args, "--wide").stdout
    # the two PostFilter calls said something; the thirteen others only Success or Skip
    assert "13 more plugin calls returned Success or Skip (--wide lists them)" in folded
    assert "PostFilter        DefaultPreemption" in folded and "PreFilter         NodeAffinity" not in folded
    assert "PreFilter         NodeAffinity" in full and "more plugin calls" not in full


def test_the_decision_is_in_the_json() -> None:
    scheduled = json.loads(run_cli("explain", str(PODS / "pod.yaml"), "--cluster", CLUSTER, "-o", "json").stdout)
    assert scheduled["decision"] == {
        "runnerUp": "node-c1", "margin": 9,
        "deciding": [{"plugin": "NodeResourcesFit", "points": 8},
                     {"plugin": "NodeResourcesBalancedAllocation", "points": 2},
                     {"plugin": "ImageLocality", "points": -1}],
        "blockers": [{"plugin": "TaintToleration", "nodes": 2, "reasons": ["node(s) had untolerated taint(s)"]},
                     {"plugin": "NodeUnschedulable", "nodes": 1, "reasons": ["node(s) were unschedulable"]}]}
    bound = json.loads(run_cli("explain", BOUND, "--cluster", CLUSTER, "-o", "json").stdout)
    assert bound["decision"]["specNodeName"] == "node-c1" and bound["decision"]["onlyFeasible"] is True


# -- width -----------------------------------------------------------------------------------

#: Reports rendered at each width: scheduled, unschedulable, preemption, DRA, ties, every detail.
REPORTS = {
    "scheduled, every stage": [str(PODS / "web-deployment.yaml"), "--cluster", CLUSTER, "--wide", "--seed", "1"],
    "unschedulable": [str(PODS / "too-big.yaml"), "--cluster", CLUSTER],
    "unschedulable, every stage": [str(PODS / "too-big.yaml"), "--cluster", CLUSTER, "--wide"],
    "one node": [str(PODS / "pod.yaml"), "--cluster", CLUSTER, "--node", "node-c2"],
    "preemption": [str(SCENARIOS / "pods" / "toleration-preemptors.yaml"), *PREEMPTION, "--wide",
                   "-c", str(ROOT / "profiles" / "preemption-toleration.yaml")],
    "DRA": [str(SCENARIOS / "pods" / "dra-two-gpus.yaml"), str(SCENARIOS / "pods" / "dra-big-gpu.yaml"), *DRA,
            "--wide", "--seed", "1"],
    "spec.nodeName": [BOUND, "--cluster", CLUSTER],
    "pending": ["--pending", "-n", "shop", "--cluster", CLUSTER, "--cluster", str(ROOT / "fixtures" / "pending")],
    "pending, every pod": ["--pending", "-n", "shop", "--cluster", CLUSTER, "--cluster",
                           str(ROOT / "fixtures" / "pending"), "--wide"],
}
#: Lines and corners of tables, panels and rules: not words.
_DRAWING = re.compile("[\u2500-\u257f]+")


def _words(text: str) -> list[str]:
    return _DRAWING.sub(" ", text).split()


def _broken(words: list[str], whole: set[str]) -> list[str]:
    """Words that are neither a word of the unconstrained report nor one cut short with "…"."""
    prefixes = {w[:i] for w in whole for i in range(1, len(w))}
    return [w for w in words if w not in whole and not (w.endswith("…") and w[:-1] in prefixes)]


@pytest.mark.parametrize("width", [80, 100, 120])
@pytest.mark.parametrize("report", list(REPORTS))
def test_no_word_or_number_is_broken_across_lines(monkeypatch: pytest.MonkeyPatch, report: str, width: int) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    args = [*REPORTS[report], "-q"]
    natural = run_cli("explain", *args)  # piped without COLUMNS: the width the content needs
    fitted = run_cli("explain", *args, "--width", str(width))
    assert fitted.exit_code == natural.exit_code, fitted.stderr
    assert max(len(line) for line in natural.stdout.splitlines()) > 80  # there is something to fit
    assert max(len(line) for line in fitted.stdout.splitlines()) <= width
    assert _broken(_words(fitted.stdout), set(_words(natural.stdout))) == []
    # the figures of the verdict are never the ones cut short
    assert natural.stdout.splitlines()[0].split()[:3] == fitted.stdout.splitlines()[0].split()[:3]


def test_the_check_sees_a_broken_word() -> None:
    whole = set(_words("default/hello → node-b2   15890m"))
    assert _broken(_words("defau\nlt/hello → node-b2 1589\n0m nod…"), whole) == ["defau", "lt/hello", "1589", "0m"]


@pytest.mark.parametrize("width", [80, 120])
def test_the_rule_between_pods_is_no_wider_than_the_tables(monkeypatch: pytest.MonkeyPatch, width: int) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    args = ["explain", *REPORTS["DRA"], "-q"]
    for out in (run_cli(*args).stdout, run_cli(*args, "--width", str(width)).stdout):
        lines = out.splitlines()
        rules = [line for line in lines if line and set(line) == {"─"}]
        widest = max(len(line) for line in lines if line not in rules)
        # as wide as the widest table, whose last column's right padding is trimmed from its lines
        assert rules and max(len(r) for r in rules) <= widest + 1
