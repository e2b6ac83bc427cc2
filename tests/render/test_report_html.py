"""``--report FILE.html`` without a browser: every command writes its report and prints what it
printed without it; the page is self-contained and inert whatever the inputs hold; the answer
comes first. tests/render/test_report_browser.py opens the same pages in Chromium."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace

import pytest

from kschedctl.render.report import report_html
from kschedctl.render.report.page import SCRIPT, STYLE
from kschedctl.render.report.svg import nice_ticks
from tests.cli.helpers import run_cli
from tests.render.reports import COMMANDS, HOSTILE, ROOT, hostile_results

#: Elements a report may contain; anything else came from an input.
ALLOWED_TAGS = {
    "html", "head", "meta", "link", "title", "style", "body", "header", "main", "footer", "h1", "h2", "h3", "p",
    "b", "small", "br", "wbr", "i", "span", "a", "nav", "ul", "li", "section", "dl", "dt", "dd", "div", "table",
    "thead", "tbody", "tr", "th", "td", "details", "summary", "label", "input", "figure", "figcaption", "script",
    "svg", "rect", "text", "line", "path", "circle",
}


class _Page(HTMLParser):
    """Every element and attribute of a page, and the text of its script and style."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str, str]] = []
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self.text: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes.extend((tag, name, value or "") for name, value in attrs)
        if tag in ("script", "style"):
            self._in = tag
            (self.scripts if tag == "script" else self.styles).append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == self._in:
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "script":
            self.scripts[-1] += data
        elif self._in == "style":
            self.styles[-1] += data
        else:
            self.text.append(data)


def parse(page: str) -> _Page:
    parser = _Page()
    parser.feed(page)
    parser.close()
    return parser


def assert_inert_and_offline(page: str) -> _Page:
    """Only our own script and style; no event handler, no loaded resource, no link out."""
    parsed = parse(page)
    assert set(parsed.tags) <= ALLOWED_TAGS, set(parsed.tags) - ALLOWED_TAGS
    assert parsed.scripts == [SCRIPT] and parsed.styles == [STYLE]
    for tag, name, value in parsed.attributes:
        assert not name.startswith("on"), (tag, name, value)
        assert name not in ("src", "srcset", "action", "formaction", "background"), (tag, name, value)
        assert "javascript:" not in value.lower(), (tag, name, value)
        if name == "href":
            assert value.startswith("#") or value == "data:,", (tag, value)
    outside = re.findall(r"(?:https?:)?//[^\s\"'<>]+", page)
    assert set(outside) <= {"http://www.w3.org/2000/svg"}, outside
    return parsed


def _run(argv: list[str], report: Path | None) -> tuple[int, str, str]:
    args = [*argv, *(["--report", str(report)] if report else [])]
    result = run_cli(*args)
    return result.exit_code, result.stdout, result.stderr


def _timeless(text: str) -> str:
    """Output without the wall times that differ between two runs."""
    text = re.sub(r"\d+ in [\d.]+s \([\d,]+ pods/s\)", "N in Ts", text)
    text = re.sub(r"\([\d.]+s\)", "(Ts)", text)  # kschedctl test's summary line
    return re.sub(r'("?seconds"?: )[\d.e-]+', r"\1T", text)


FORMATS = {"explain": [[], ["-o", "json"], ["-o", "name"]], "simulate": [[], ["-o", "yaml"]],
           "diff": [[], ["-o", "json"]], "diff-simulate": [[]], "sweep": [[], ["-o", "csv"]],
           "simulate-drain": [[], ["-o", "json"]], "capacity": [[], ["-o", "json"]], "replay": [[], ["-o", "json"]],
           "test": [[]]}


@pytest.mark.parametrize("name,output", [(name, output) for name, outputs in FORMATS.items() for output in outputs],
                         ids=lambda v: v if isinstance(v, str) else " ".join(v) or "table")
def test_report_leaves_the_output_as_it_was(name: str, output: list[str], tmp_path: Path) -> None:
    argv = [*COMMANDS[name], *output]
    plain = _run(argv, None)
    report = tmp_path / "report.html"
    with_report = _run(argv, report)
    assert with_report[0] == plain[0], with_report[2]
    assert _timeless(with_report[1]) == _timeless(plain[1])
    assert with_report[2] == plain[2]
    page = report.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert_inert_and_offline(page)


@pytest.mark.parametrize("name", list(hostile_results()))
def test_hostile_names_are_text_never_markup(name: str) -> None:
    page = report_html(hostile_results()[name])
    parsed = assert_inert_and_offline(page)
    text = "".join(parsed.text)
    # The names read as they are, their control characters made visible as escapes.
    assert HOSTILE.replace("\x1b", "\\x1b").replace("\n", "\\n") in text
    assert "\x1b" not in page


def test_a_report_that_cannot_be_written_is_one_error_line(tmp_path: Path) -> None:
    target = tmp_path / "missing-dir" / "report.html"
    code, out, err = _run(COMMANDS["explain"], target)
    assert code == 2 and out == ""
    errors = [line for line in err.splitlines() if not line.startswith("warning: ")]
    assert len(errors) == 1 and errors[0].startswith("error: ") and str(target) in errors[0]
    assert not target.parent.exists()


def test_an_existing_report_is_replaced_whole(tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    target.write_text("old", encoding="utf-8")
    _run(COMMANDS["explain"], target)
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]  # no temporary file left


def _text(page: str) -> str:
    return re.sub(r"\s+", " ", "".join(parse(page).text))


def test_explain_says_who_won_and_why_first(tmp_path: Path) -> None:
    report = tmp_path / "explain.html"
    _run(COMMANDS["explain"], report)
    page = report.read_text(encoding="utf-8")
    text = _text(page)
    # every term of the 10-point margin, the negative one too (as the terminal says it)
    assert ("Scheduled on node-b2. Why: node-b2 by 10 points over node-c1: NodeResourcesFit +9, "
            "NodeResourcesBalancedAllocation +2, ImageLocality -1") in text
    assert ("Unschedulable: blocked by NodeResourcesFit (5 nodes), TaintToleration (2 nodes), "
            "NodeUnschedulable (1 node)") in text
    assert re.search(r'<tr class="winner"[^>]*data-node="node-b2"', page)


def test_explain_says_when_a_tie_break_chose(tmp_path: Path) -> None:
    report = tmp_path / "tie.html"
    _run(["explain", str(ROOT / "fixtures" / "pods" / "pod.yaml"), "--cluster", str(ROOT / "fixtures" / "cluster"),
          "-c", str(ROOT / "profiles" / "bin-packing.yaml"), "--seed", "0"], report)
    assert ("Scheduled on node-a1. Why: 2 nodes tie at 409 points (node-a1, node-b1); node-a1 was picked at random "
            "(seed 0)") in _text(
        report.read_text(encoding="utf-8"))


def test_simulate_shows_each_node_before_and_after(tmp_path: Path) -> None:
    report = tmp_path / "simulate.html"
    _run(COMMANDS["simulate"], report)
    page = report.read_text(encoding="utf-8")
    # the critical pod takes node-a1 from 17.9% to 99.5% of its cpu, evicting the report worker
    row = re.search(r'<tr data-node="node-a1">(.*?)</tr>', page).group(1)
    assert "<td class=\"num\">17.9%</td><td class=\"num\">99.5%</td>" in row
    assert "default/report-7c9d5f6b8-b6xzd" in _text(page)


def test_the_simulator_records_usage_before_the_run() -> None:
    from kschedctl.scheduler.setup import load_default_config
    from kschedctl.scheduler.simulate import Simulator
    from tests.framework.fakes import make_node, make_pod

    nodes = [make_node("n1", cpu="4"), make_node("n2", cpu="4")]
    running = make_pod("running", node="n1", containers=[{"name": "c", "resources": {"requests": {"cpu": "1"}}}])
    cluster = SimpleNamespace(nodes=nodes, pods=[running], priority_classes={}, namespaces={}, warnings=[],
                              namespace_labels=lambda ns: {"kubernetes.io/metadata.name": ns})
    batch = [make_pod(f"p{i}", containers=[{"name": "c", "resources": {"requests": {"cpu": "1"}}}]) for i in range(2)]
    result = Simulator(cluster, load_default_config(), seed=1).run(batch)
    before = {n.name: n.requested["cpu"] for n in result.nodes_before}
    after = {n.name: n.requested["cpu"] for n in result.nodes}
    assert before == {"n1": 1000, "n2": 0}
    assert sum(after.values()) == 3000
    assert "nodesBefore" not in str(result.to_dict())  # the JSON is unchanged


@pytest.mark.parametrize("low,high,expected", [
    (0, 1, [0, 0.2, 0.4, 0.6, 0.8, 1.0]),
    (18, 18, [18, 18.2, 18.4, 18.6, 18.8, 19.0]),
    (3, 6, [3, 4, 5, 6]),
    (0.04, 1.13, [0, 0.5, 1.0, 1.5]),
])
def test_axis_ticks_are_round_numbers(low: float, high: float, expected: list[float]) -> None:
    assert nice_ticks(low, high, 4 if high - low > 1 else 5) == pytest.approx(expected)


def test_a_large_cluster_keeps_the_page_small() -> None:
    from kschedctl.render.report.page import MAX_ROWS
    from kschedctl.render.report.simulate import CHART_NODES
    from kschedctl.scheduler.simulation_result import NodeUsage, Placement, SimulationResult

    nodes = [NodeUsage({"cpu": 4000, "memory": 1 << 33, "pods": 110}, {"cpu": 100 * (i % 3), "pods": i % 3},
                       name=f"node-{i:04d}", zone=f"zone-{i % 3}", placed=i % 3) for i in range(2000)]
    placements = [Placement(f"default/p{i}", "Scheduled", f"node-{i:04d}", order=i + 1) for i in range(3000)]
    page = report_html(SimulationResult(placements=placements, nodes=nodes))
    assert len(page) < 2_000_000
    chart = re.search(r'data-chart="placed-per-node".*?</svg>', page, re.S).group(0)
    assert chart.count('class="bar') == CHART_NODES
    assert re.findall(r'data-placed="([^"]+)" data-value="(\d+)"', page) == [
        ("0 pod(s)", "667"), ("1 pod(s)", "667"), ("2 pod(s)", "666")]
    assert f"{MAX_ROWS:,} of 2,000 rows shown." in page and f"{MAX_ROWS:,} of 3,000 rows shown." in page
