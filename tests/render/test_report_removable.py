"""The ``capacity --removable`` HTML page (render.report.removable): the answer first, every node's
line, the zones; an input holding markup stays text."""

from __future__ import annotations

from kschedctl.render.report import report_html
from kschedctl.analyses.removable import RemovableResult, RemovableRules, removable_nodes
from tests.render.test_report_html import _Page
from tests.scheduler.test_removable import case_cluster


def _page(result: RemovableResult) -> tuple[str, _Page]:
    html = report_html(result)
    page = _Page()
    page.feed(html)
    return html, page


def test_the_answer_and_each_node() -> None:
    cluster = case_cluster({"nodes": {"a": {"zone": "z1"}, "b": {"zone": "z2", "cpu": 16}},
                            "pods": {"web-1": {"node": "a"}, "full-1": {"node": "b", "cpu": "9"}},
                            "replicaSets": {"web": 1, "full": 1}})
    html, page = _page(removable_nodes(cluster, seed=1))
    text = " ".join(page.text)
    assert 'data-report="removable"' in html
    assert "1 of 2 candidate node(s) can go" in text
    assert "default/web-1 -> b" in text
    assert "utilization 56% (cpu) is not below the threshold 0.5" in text
    assert 'data-node="a" data-removed="true"' in html and 'data-zone="z1"' in html


def test_markup_in_a_name_stays_text() -> None:
    hostile = "<script>alert(1)</script>"
    result = RemovableResult("p<b>", RemovableRules(), [], selector=hostile, warnings=[hostile])
    html, page = _page(result)
    assert "<script>alert" not in html and page.tags.count("script") == 1
    assert hostile in " ".join(page.text)
