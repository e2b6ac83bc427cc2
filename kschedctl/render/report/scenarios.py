"""The ``kschedctl test`` report: the run's counts, then each scenario with its checks (passed,
failed with what was expected and what happened, errors), failures first. It formats the
``TestReport``."""

from __future__ import annotations

from typing import Any

from kschedctl.render.report.page import MAX_ROWS, cell, document, esc, facts, raw_cell, row, table

_STATUS_CLASS = {"passed": "ok", "failed": "bad", "error": "warn"}


def test_report(report: Any) -> str:
    data = report.to_dict()
    summary = data["summary"]
    body = ["<h2>Summary</h2>", facts([
        ("Scenarios", esc(summary["scenarios"])), ("Checks", esc(summary["checks"])),
        ("Passed", _status("passed", summary["passed"])), ("Failed", _status("failed", summary["failed"])),
        ("Errors", _status("error", summary["errors"])), ("Time", esc(f"{summary['seconds']:.2f}s"))])]
    passed = data["passed"]
    body.append(f'<p class="verdict {"ok" if passed else "bad"}" data-passed="{"yes" if passed else "no"}">'
                f"{esc(report.summary())}</p>")
    order = {"error": 0, "failed": 1, "passed": 2}
    scenarios = sorted(data["scenarios"], key=lambda s: order.get(s["status"], 3))
    rows = []
    for s in scenarios:
        for check in s["checks"]:
            why = check.get("reason", "")
            details = "".join(f"<small>{esc(d)}</small>" for d in check.get("details", ()))
            rows.append(row([cell(s["name"]), cell(f"{s['file']}:{check['line']}" if check.get("line") else s["file"]),
                             cell(check["name"]), raw_cell(_status(check["status"])),
                             raw_cell(esc(why) + details)], data_status=check["status"]))
    body.append("<h2>Checks</h2>" + table(["Scenario", "Where", "Check", "Status", "What happened"],
                                          rows[:MAX_ROWS], total=len(rows), shown=min(len(rows), MAX_ROWS),
                                          class_="checks"))
    return document("test", "kschedctl test", "\n".join(body), subtitle=report.summary())


def _status(status: str, count: int | None = None) -> str:
    text = status if count is None else f"{count}"
    return f'<span class="badge {_STATUS_CLASS.get(status, "info")}">{esc(text)}</span>'
