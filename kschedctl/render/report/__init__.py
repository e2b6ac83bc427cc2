"""``--report FILE.html``: one self-contained HTML page per command run, to open in any browser
and share (no network, no CDN, no external font; charts are inline SVG drawn here).

Each report renders the command's plain result objects: ``ExplainResult`` (one or several),
``SimulationResult``, ``DiffResult``, ``SweepResult``. Every input-derived string is escaped
(:func:`kschedctl.render.report.page.esc`); the page's only script and style are fixed text,
pinned by hash in its Content-Security-Policy.
"""

from __future__ import annotations

import os
from typing import Any, Sequence


def report_html(result: Any, *, timings: bool = True, what_if: Any = None) -> str:
    """The report of ``result``: an ``ExplainResult`` or a list of them, a ``SimulationResult``,
    a ``DiffResult``, a ``SweepResult``, a ``CapacityResult`` or ``MixCapacityResult``, a
    ``ReplayResult`` or a ``TestReport``; with ``what_if`` (a ``WhatIfReport``), the page opens
    with what the run changed in the cluster first."""
    page = _page(result, timings=timings, what_if=what_if)
    if what_if:
        from kschedctl.render.report.what_if import what_if_section

        page = page.replace("<main>\n", "<main>\n" + what_if_section(what_if), 1)
    return page


def _page(result: Any, *, timings: bool, what_if: Any) -> str:
    from kschedctl.analyses.diff import DiffResult
    from kschedctl.scheduler.result import ExplainResult
    from kschedctl.scheduler.simulation_result import SimulationResult

    if isinstance(result, ExplainResult) or _is_explain_list(result):
        from kschedctl.render.report.explain import explain_report

        return explain_report([result] if isinstance(result, ExplainResult) else list(result))
    if isinstance(result, SimulationResult):
        from kschedctl.render.report.simulate import simulation_report

        return simulation_report(result, before=what_if.usage_before() if what_if else None)
    if isinstance(result, DiffResult):
        from kschedctl.render.report.diff import diff_report

        return diff_report(result)
    if type(result).__name__ == "RemovableResult":  # capacity --removable
        from kschedctl.render.report.removable import removable_report

        return removable_report(result)
    if type(result).__name__ == "SweepResult":  # kschedctl.sweep.run imports the worker machinery
        from kschedctl.render.report.sweep import sweep_report

        return sweep_report(result, timings=timings)
    if type(result).__name__ in ("CapacityResult", "MixCapacityResult"):
        from kschedctl.render.report.capacity import capacity_report

        return capacity_report(result)
    if type(result).__name__ == "ReplayResult":
        from kschedctl.render.report.replay import replay_report

        return replay_report(result)
    if type(result).__name__ == "TestReport":
        from kschedctl.render.report.scenarios import test_report

        return test_report(result)
    raise TypeError(f"no report for {type(result).__name__}")


def _is_explain_list(result: Any) -> bool:
    from kschedctl.scheduler.result import ExplainResult

    return isinstance(result, Sequence) and bool(result) and all(isinstance(r, ExplainResult) for r in result)


def write_report(path: str | os.PathLike[str], result: Any, *, timings: bool = True, what_if: Any = None) -> None:
    """Write the report of ``result`` to ``path`` whole or not at all (InputError, exit 2, when
    it cannot be written)."""
    from kschedctl.atomic import write_text_atomic

    write_text_atomic(path, report_html(result, timings=timings, what_if=what_if))
