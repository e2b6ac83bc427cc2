"""The terminal and the HTML report give the same answer: both read ``ExplainResult.decision``.

One explain run writes its table to stdout and its report to a file; the "why" sentence (the
winner's margin with every plugin term, a tie and its seed, the only feasible node), the
spec.nodeName note and the blockers with their node counts are then the same in both.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.cli.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = str(ROOT / "fixtures" / "cluster")
PODS = ROOT / "fixtures" / "pods"
SCENARIOS = ROOT / "profiles" / "scenarios"
DRA = ["--cluster", str(SCENARIOS / "cluster" / "dra-gpus.yaml")]
BOUND = str(ROOT / "tests" / "cli" / "cases" / "explain_answer" / "bound-pod.yaml")

#: case: (arguments, what the "why" says; None: the pod is not scheduled or names its node)
CASES = {
    "margin with a negative term": (
        [str(PODS / "web-deployment.yaml"), "--cluster", CLUSTER],
        "node-b2 by 10 points over node-c1: NodeResourcesFit +9, NodeResourcesBalancedAllocation +2, "
        "ImageLocality -1"),
    "tie": (
        [str(PODS / "pod.yaml"), "--cluster", CLUSTER, "-c", str(ROOT / "profiles" / "bin-packing.yaml"),
         "--seed", "0"],
        "2 nodes tie at 409 points (node-a1, node-b1); node-a1 was picked at random (seed 0)"),
    "only feasible node": (
        [str(SCENARIOS / "pods" / "dra-big-gpu.yaml"), *DRA],
        "h100-1 is the only feasible node; the other 3 were rejected by DynamicResources (3)"),
    "spec.nodeName": ([BOUND, "--cluster", CLUSTER], None),
    "unschedulable": ([str(PODS / "too-big.yaml"), "--cluster", CLUSTER], None),
}


class _Verdict(HTMLParser):
    """The text of the report's verdict paragraph and of its ``why`` and ``note`` spans."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: dict[str, str] = {"verdict": "", "why": "", "note": ""}
        self._open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        attributes = dict(attrs)
        if tag == "p" and "data-verdict" in attributes:
            self._open.append("verdict")
        elif tag == "span" and attributes.get("class") in ("why", "note") and self._open:
            self._open.append(attributes["class"])
        elif self._open:
            self._open.append("")

    def handle_endtag(self, tag: str) -> None:
        if self._open and tag != "br":
            self._open.pop()

    def handle_data(self, data: str) -> None:
        for part in set(self._open) - {""}:
            self.parts[part] += data


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _table_rows(stdout: str) -> dict[str, str]:
    """The answer's labelled rows (Why, Note, Blockers, ...), each joined into one line."""
    rows: dict[str, str] = {}
    label = None
    for line in stdout.splitlines()[1:]:
        if not line.strip():
            break
        m = re.match(r"  (\S[\w ]*?)\s{2,}(.*)$", line)
        if m and not line.startswith("   "):
            label = m.group(1)
            rows[label] = m.group(2)
        elif label is not None:
            rows[label] += " " + line.strip()
    return {k: _one_line(v) for k, v in rows.items()}


@pytest.mark.parametrize("case", list(CASES))
def test_the_table_and_the_report_say_the_same_why(case: str, tmp_path: Path) -> None:
    args, why = CASES[case]
    report = tmp_path / "report.html"
    result = run_cli("explain", *args, "--width", "400", "--report", str(report))
    assert result.exit_code in (0, 1), result.stderr
    table = _table_rows(result.stdout)
    parser = _Verdict()
    parser.feed(report.read_text(encoding="utf-8"))
    html = {k: _one_line(v) for k, v in parser.parts.items()}
    assert table.get("Why", "") == html["why"]
    assert table.get("Note", "") == html["note"].removeprefix("Note: ")
    if why is not None:
        assert html["why"] == why
    if "spec.nodeName" in case:
        assert html["note"] and not html["why"]
    if "Blockers" in table:
        in_table = re.findall(r"(\w+) on (\d+) nodes?", table["Blockers"])
        in_report = re.findall(r"(\w+) \((\d+) nodes?\)", html["verdict"])
        assert in_table and in_report == in_table[:3]
