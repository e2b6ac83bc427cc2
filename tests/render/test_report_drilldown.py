"""The simulate report drills down (issue 42, item 8): each placement's pod name opens its last
cycle's filter × score matrix (explain's section), and a queue view shows the queue after each
cycle and the pods tried again. tests/render/test_report_browser.py clicks through it."""

from __future__ import annotations

import re
from pathlib import Path

from tests.cli.helpers import run_cli
from tests.render.reports import COMMANDS
from tests.render.test_report_html import _text, assert_inert_and_offline


def _page(tmp_path: Path) -> str:
    path = tmp_path / "simulate.html"
    result = run_cli(*COMMANDS["simulate"], "--seed", "1", "--report", str(path))
    assert result.exit_code == 1, result.stderr  # too-big fits nowhere
    page = path.read_text(encoding="utf-8")
    assert_inert_and_offline(page)
    return page


def test_each_placement_opens_its_cycle(tmp_path: Path) -> None:
    page = _page(tmp_path)
    links = re.findall(r'<a href="#(decision-\d+)">([^<]+)</a>', page)
    placed = re.findall(r'<tr data-pod="([^"]+)"><td class="num">', page)
    assert {pod for _, pod in links} == set(placed) and len(links) == 5
    for target, pod in links:
        section = re.search(rf'<details class="decision" id="{target}" data-pod="{re.escape(pod)}">(.*?)</details>',
                            page, re.S)
        assert section, target
        # explain's section: the matrix with a row per node of the fixtures
        assert len(re.findall(r'<tr[^>]*data-node="', section.group(1))) >= 8
    too_big = next(t for t, pod in links if pod == "default/too-big")
    section = re.search(rf'id="{too_big}".*?</details>', page, re.S).group(0)
    assert "Insufficient cpu" in section and "Unschedulable" in section


def test_the_queue_view_shows_the_pods_tried_again(tmp_path: Path) -> None:
    page = _page(tmp_path)
    queue = re.search(r'<section id="queue">(.*?)</section>', page, re.S).group(1)
    assert 'data-chart="queue-over-run"' in queue
    rows = dict(re.findall(r'<tr data-pod="([^"]+)">(.*?)</tr>', queue))
    assert set(rows) == {"default/critical", "default/too-big"}
    assert "Unschedulable → Scheduled" in _text(rows["default/critical"])


def test_large_clusters_open_fewer_cycles() -> None:
    from kschedctl.render.report.simulate import drill_pods

    assert [drill_pods(n) for n in (0, 8, 50, 100, 500, 15_000)] == [100, 100, 100, 50, 10, 10]
