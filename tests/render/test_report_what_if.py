"""Every report shows its what-if (issue 42, item 2): the edited nodes, each eviction with its
replacement and where that went, each refusal with the budget's message; the "before" columns
are the cluster as it is. ``capacity``, ``replay`` and ``test`` write reports too."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kschedctl.inputs.cluster import load_cluster
from kschedctl.render.report import report_html
from kschedctl.cluster.edits import Drain, NodeTarget
from kschedctl.scheduler.simulation_result import SimulationResult
from kschedctl.analyses.what_if import WhatIf
from tests.cli.helpers import run_cli
from tests.render.reports import COMMANDS, HOSTILE, ROOT
from tests.render.test_report_html import _text, assert_inert_and_offline

CLUSTER = str(ROOT / "fixtures" / "cluster")
POD = str(ROOT / "fixtures" / "pods" / "pod.yaml")


def _page(tmp_path: Path, *argv: str) -> str:
    path = tmp_path / "report.html"
    result = run_cli(*argv, "--report", str(path))
    assert result.exit_code in (0, 1), result.stderr
    page = path.read_text(encoding="utf-8")
    assert_inert_and_offline(page)
    return page


def _section(page: str) -> str:
    found = re.search(r'<section id="what-if">(.*?)</section>', page, re.S)
    assert found, "no what-if section"
    return found.group(1)


def test_a_drain_report_shows_the_evictions_replacements_and_refusals(tmp_path: Path) -> None:
    section = _section(_page(tmp_path, *COMMANDS["simulate-drain"]))
    text = _text(section)
    assert "node-a1, node-a2, node-b1, node-b2, gpu-a1, gpu-b1" in text
    assert 'data-drain="incomplete"' in section
    assert "The drain does not complete: 1 eviction blocked by a PodDisruptionBudget; 3 replacements pending." in text
    # each eviction, its replacement and where it went
    row = re.search(r'<tr data-pod="default/report-7c9d5f6b8-b6xzd">(.*?)</tr>', section).group(1)
    assert re.findall(r"<td>(.*?)</td>", row) == ["default/report-7c9d5f6b8-b6xzd", "node-a1",
                                                  "ReplicaSet/report-7c9d5f6b8", "default/report-7c9d5f6b8-xnch2",
                                                  "node-c1"]
    assert "didn&#x27;t match pod anti-affinity rules" in re.search(
        r'<tr data-pod="default/api-6d9f7b8c5d-4mfnc">(.*?)</tr>', section).group(1)
    # the refusal, with the budget's message
    refusals = re.search(r'<table class="refusals sortable">(.*?)</table>', section).group(1)
    assert ("Cannot evict pod as it would violate the pod&#x27;s disruption budget default/api "
            "(2 healthy, 2 required)") in refusals


def test_the_before_columns_are_the_cluster_as_it_is(tmp_path: Path) -> None:
    page = _page(tmp_path, "simulate", POD, "--cluster", CLUSTER, "--drain", "node-a1", "--seed", "1")
    # node-a1 runs an api and a report pod (17.9% of its cpu) before the drain, none after it.
    row = re.search(r'<tr data-node="node-a1">(.*?)</tr>', page).group(1)
    assert re.findall(r'<td class="num">([\d.]+%)</td>', row)[:2] == ["17.9%", "0.0%"]
    assert "the cluster as it is (before the what-if)" in _text(page)


@pytest.mark.parametrize("command", ["explain", "capacity", "diff"])
def test_every_report_opens_with_its_what_if(tmp_path: Path, command: str) -> None:
    argv = {"explain": ["explain", POD, "--cluster", CLUSTER],
            "capacity": ["capacity", POD, "--cluster", CLUSTER, "--max", "3"],
            "diff": ["diff", "-c", str(ROOT / "profiles" / "default.yaml"), "-c",
                     str(ROOT / "profiles" / "bin-packing.yaml"), "--cluster", CLUSTER, POD]}[command]
    page = _page(tmp_path, *argv, "--drain", "node-a1", "--cordon", "node-b2")
    section = _section(page)
    assert page.index('<section id="what-if">') < page.index("<h2>", page.index("</section>"))
    assert re.findall(r'<tr data-action="(\w+)" data-nodes="([^"]+)">', section) == [
        ("cordon", "node-b2"), ("drain", "node-a1")]
    assert 'data-drain="complete"' in section


def test_without_a_what_if_there_is_no_section(tmp_path: Path) -> None:
    assert 'id="what-if"' not in _page(tmp_path, *COMMANDS["simulate"])


@pytest.mark.parametrize(("name", "marks"), [
    ("capacity", ['data-report="capacity"', 'data-chart="copies-per-node"', "What stops the next one"]),
    ("replay", ['data-report="replay"', 'data-verdict="same"', 'data-chart="placed-per-node"']),
    ("test", ['data-report="test"', 'data-passed="yes"', 'data-status="passed"']),
])
def test_capacity_replay_and_test_write_a_report(tmp_path: Path, name: str, marks: list[str]) -> None:
    page = _page(tmp_path, *COMMANDS[name])
    for mark in marks:
        assert mark in page


def test_hostile_names_in_a_what_if_are_text() -> None:
    from kschedctl.cluster.edits import EditRecord, Eviction

    record = EditRecord("drain", HOSTILE, [HOSTILE], evicted=[Eviction(HOSTILE, HOSTILE, HOSTILE, HOSTILE + "r")],
                        blocked={HOSTILE + "b": HOSTILE}, refused={HOSTILE + "x": HOSTILE},
                        placements={HOSTILE + "r": (None, HOSTILE)})
    from kschedctl.analyses.what_if import WhatIfReport

    page = report_html(SimulationResult(), what_if=WhatIfReport([record]))
    assert_inert_and_offline(page)
    assert "<script>alert(1)</script>" not in page


def test_the_report_reads_the_core_records() -> None:
    state = load_cluster([str(ROOT / "tests" / "scheduler" / "what_if" / "cluster.yaml")])
    _, report = WhatIf([Drain(NodeTarget.parse("n2"))]).apply(state)
    section = _section(report_html(SimulationResult(), what_if=report))
    assert "1 node not drained (n2): 1 pod without a controller" in _text(section)
    assert '<tr data-pod="default/debug"><td>default/debug</td><td>n2</td>' in section


def test_a_lost_nodes_report_shows_where_its_pods_come_back(tmp_path: Path) -> None:
    section = _section(_page(tmp_path, "simulate", "--cluster", CLUSTER, "--without-node", "node-a1"))
    assert "Pods gone with the nodes and where their replacements went" in section
    row = re.search(r'<tr data-pod="default/api-6d9f7b8c5d-4mfnc">(.*?)</tr>', section).group(1)
    assert re.findall(r"<td>(.*?)</td>", row)[-1] == "node-a2"
    assert "Every pod its controller makes again finds a node." in _text(section)
