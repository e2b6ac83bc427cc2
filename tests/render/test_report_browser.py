"""The reports in a real browser: Debian's Chromium, headless, driven by Playwright.

Each command writes its report from the bundled fixtures; the page is loaded from its file:
it must log no console error or warning, throw nothing, ask for nothing outside itself, and show
its key elements (the winner's row, a bar per node, the moved pods, the ranked cells). A
screenshot of each lands in the test's tmp dir. The hostile reports must run no script.

Without Chromium or Playwright these tests skip with a one-line reason, except under CI=true,
where they must run (.ci/run installs Chromium).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, Iterator

import pytest

from kschedctl.render.report import write_report
from tests.cli.helpers import run_cli
from tests.render.reports import COMMANDS, HOSTILE, hostile_results

#: Chromium as a test wants it: headless, no sandbox (root), and none of the background
#: connections a closed network refuses (Google's update, sync and safe-browsing hosts).
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-default-apps", "--disable-extensions"]
FIXTURE_NODES = {"node-a1", "node-b1", "node-c1", "node-a2", "node-b2", "node-c2", "gpu-a1", "gpu-b1"}


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    executable = _chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    reason = ("Playwright is not installed (pip install -e '.[test]')" if sync_playwright is None
              else "Chromium is not installed (apt-get install chromium)" if executable is None else None)
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but {reason}: the report tests must run in CI")
        pytest.skip(reason)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


class Opened:
    """A report loaded in a new page, and everything the page complained about or asked for."""

    def __init__(self, browser: Any, path: Path) -> None:
        self.problems: list[str] = []
        self.page = browser.new_page(viewport={"width": 1280, "height": 900})
        self.page.on("console", lambda m: self.problems.append(f"console {m.type}: {m.text}")
                     if m.type in ("error", "warning") else None)
        self.page.on("pageerror", lambda e: self.problems.append(f"uncaught: {e}"))
        self.page.on("dialog", lambda d: (self.problems.append(f"dialog: {d.message}"), d.dismiss()))
        self.page.on("request", lambda r: None if r.url.startswith(("file:", "data:"))
                     else self.problems.append(f"request: {r.url}"))
        self.page.on("requestfailed", lambda r: self.problems.append(f"request failed: {r.url}"))
        self.page.goto(path.resolve().as_uri())
        # Our script marks the body when it ran to its end.
        self.page.wait_for_selector("body[data-ready=yes]", timeout=10_000)

    def shot(self, path: Path) -> None:
        self.page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 1000

    def count(self, selector: str) -> int:
        return self.page.locator(selector).count()

    def texts(self, selector: str) -> list[str]:
        return [t.strip() for t in self.page.locator(selector).all_text_contents()]

    def close(self) -> None:
        self.page.close()


def _report(name: str, tmp_path: Path) -> Path:
    path = tmp_path / f"{name}.html"
    result = run_cli(*COMMANDS[name], "--report", str(path))
    assert result.exit_code in (0, 1), result.stderr
    return path


@pytest.fixture()
def opened(browser: Any, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Opened]:
    name = request.param
    page = Opened(browser, _report(name, tmp_path))
    try:
        yield page
        page.shot(tmp_path / f"{name}.png")
        assert page.problems == []
    finally:
        page.close()


@pytest.mark.parametrize("opened", ["explain"], indirect=True)
def test_explain_report_marks_the_winner_and_names_the_blockers(opened: Opened) -> None:
    assert opened.texts("section.pod > h2") == ["default/web-d5795885d-zf67l Scheduled", "default/too-big Unschedulable"]
    assert opened.texts("#matrix-0 tr.winner th[data-node]") == ["node-b2"]
    assert opened.count("#matrix-0 tbody tr") == len(FIXTURE_NODES)
    assert "by 10 points over node-c1" in opened.texts("#pod-0 [data-verdict]")[0]
    assert opened.texts("#pod-1 table.blockers tbody td:first-child")[:2] == ["NodeResourcesFit", "NodeResourcesFit"]
    assert opened.count("#pod-1 td.fail[data-plugin=NodeResourcesFit]") == 5
    # The filters that passed everywhere are folded until asked for.
    folded = opened.page.locator("#matrix-0 th.allpass").first
    assert not folded.is_visible()
    opened.page.locator("input[data-toggles=matrix-0]").check()
    assert folded.is_visible()
    # Sorting by the total puts the lowest first, then the highest; unscored nodes stay last.
    total = opened.page.locator("#matrix-0 thead th", has_text="Total")
    total.click()
    assert opened.texts("#matrix-0 tbody tr th")[:1] + opened.texts("#matrix-0 tbody tr th")[-3:] == [
        "node-a1", "node-c2", "gpu-a1", "gpu-b1"]
    total.click()
    assert opened.texts("#matrix-0 tbody tr:first-child th") == ["node-b2"]
    assert opened.count("#pod-0 svg[data-chart=scores] rect") > 0


@pytest.mark.parametrize("opened", ["simulate"], indirect=True)
def test_simulate_report_draws_a_bar_per_node_and_the_preemption(opened: Opened) -> None:
    bars = opened.page.locator("svg[data-chart=placed-per-node] rect.bar")
    assert {bars.nth(i).get_attribute("data-node") for i in range(bars.count())} == FIXTURE_NODES
    assert bars.count() == len(FIXTURE_NODES)
    assert opened.count("svg[data-chart=placed-per-zone] rect.bar") == 3
    assert opened.count("svg[data-chart=cpu-before-after] rect.before") == len(FIXTURE_NODES)
    assert opened.count("svg[data-chart=memory-before-after] rect.after") == len(FIXTURE_NODES)
    assert opened.count("svg[data-chart=placed-over-run] path") == 3
    assert opened.texts("table.preemptions tbody td")[:3] == ["default/critical", "node-a1", "1"]


@pytest.mark.parametrize("opened", ["diff"], indirect=True)
def test_diff_report_lists_the_moved_pod(opened: Opened) -> None:
    assert opened.count("#moved tbody tr") == 1
    assert opened.texts("#moved tbody td")[:4] == ["default/hello", "node-b2", "→", "node-a1"]
    assert "NodeResourcesFit +23" in opened.texts("#moved tbody td")[5]


@pytest.mark.parametrize("opened", ["diff-simulate"], indirect=True)
def test_diff_simulate_report_compares_the_nodes(opened: Opened) -> None:
    assert opened.count("#moved tbody tr") == 3
    assert opened.count("svg[data-chart=placed-a-b] rect") == 2 * len(FIXTURE_NODES)


@pytest.mark.parametrize("opened", ["sweep"], indirect=True)
def test_sweep_report_ranks_the_cells_and_charts_each_metric(opened: Opened) -> None:
    assert opened.count("#ranked tbody tr") == 12
    assert opened.count("svg[data-chart^=metric-]") == 9  # --no-timings: no wall-time chart
    assert opened.count("svg[data-chart=metric-nodesUsed] circle.dot") == 12
    column = opened.texts("#ranked thead th").index("nodes used")
    opened.page.locator("#ranked thead th", has_text="nodes used").click()
    assert opened.texts("#ranked tbody tr:first-child td")[column] == "3"
    opened.page.locator("#ranked thead th", has_text="nodes used").click()
    assert opened.texts("#ranked tbody tr:first-child td")[column] == "6"


@pytest.mark.parametrize("name", list(hostile_results()))
def test_hostile_names_run_nothing(browser: Any, tmp_path: Path, name: str) -> None:
    path = tmp_path / f"hostile-{name}.html"
    write_report(path, hostile_results()[name])
    page = Opened(browser, path)
    try:
        assert page.problems == []
        assert page.count("img") == 0 and page.count("script") == 1
        assert "<script>alert(1)</script>" in page.page.locator("main").inner_text()
        page.shot(tmp_path / f"hostile-{name}.png")
    finally:
        page.close()


@pytest.mark.parametrize("opened", ["simulate"], indirect=True)
def test_simulate_report_opens_a_placements_cycle_and_shows_the_queue(opened: Opened) -> None:
    folded = opened.page.locator("details.decision[data-pod='default/too-big']")
    assert folded.get_attribute("open") is None
    opened.page.locator("table.placements a", has_text="default/too-big").click()
    assert folded.get_attribute("open") is not None
    assert folded.locator("table.matrix tbody tr").count() == len(FIXTURE_NODES)
    assert folded.locator("td.fail[data-plugin=NodeResourcesFit]").count() > 0
    assert opened.count("#queue svg[data-chart=queue-over-run] path") == 3
    assert opened.texts("#queue table.attempts tbody td:first-child") == ["default/critical", "default/too-big"]


def _overflow(page: Any) -> dict[str, Any]:
    """How wide the page is, and the tables wider than their scrolling box."""
    return page.evaluate("""() => ({page: document.documentElement.scrollWidth,
        tables: Array.from(document.querySelectorAll('div.scroll'))
            .filter(d => d.scrollWidth > d.clientWidth + 1).map(d => d.firstElementChild.className)})""")


@pytest.mark.parametrize("name", ["explain", "simulate", "simulate-drain", "diff", "sweep", "capacity", "replay",
                                  "test"])
def test_every_report_fits_a_phone(browser: Any, tmp_path: Path, name: str) -> None:
    path = _report(name, tmp_path)
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        page.goto(path.resolve().as_uri())
        page.wait_for_selector("body[data-ready=yes]", timeout=10_000)
        # Charts scale to the screen; a wide table scrolls inside its own box, never the page.
        assert _overflow(page)["page"] <= 390
        page.screenshot(path=str(tmp_path / f"{name}-390.png"), full_page=True)
    finally:
        page.close()


@pytest.mark.parametrize("opened", ["sweep"], indirect=True)
def test_the_sweep_table_fits_1280(opened: Opened) -> None:
    assert _overflow(opened.page) == {"page": 1280, "tables": []}


@pytest.mark.parametrize("opened", ["simulate-drain"], indirect=True)
def test_a_drain_report_lists_each_eviction_and_refusal(opened: Opened) -> None:
    assert opened.texts("#what-if [data-drain]") == [
        "The drain does not complete: 1 eviction blocked by a PodDisruptionBudget; 3 replacements pending."]
    assert opened.count("#what-if table.evictions tbody tr") == 8
    assert opened.texts("#what-if table.refusals tbody td")[0] == "default/api-6d9f7b8c5d-8qrwx"
