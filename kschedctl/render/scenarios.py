"""Reports of ``kschedctl test``: a pass/fail table, JSON/YAML, or GitHub annotations."""

from __future__ import annotations

from typing import Any, Iterable

from rich.console import Console
from rich.table import Table
from rich.text import Text

from kschedctl.printable import printable
from kschedctl.render.github import escape_data as _escape_data
from kschedctl.render.github import escape_property as _escape_prop
from kschedctl.render.output import dump
from kschedctl.scenarios.report import ERROR, FAILED, PASSED, TestReport

_STYLE = {PASSED: ("PASS", "bold green"), FAILED: ("FAIL", "bold red"), ERROR: ("ERROR", "bold magenta")}


def render_table(report: TestReport, console: Console, failures_only: bool = False) -> None:
    """One row per expectation (``failures_only``: only those that did not pass), then each
    failure with its explanation (expected vs actual, the decisive plugins), then a summary."""
    table = Table(show_header=True, header_style="bold", expand=False, pad_edge=False)
    table.add_column("result", no_wrap=True)
    table.add_column("scenario", overflow="fold", style="cyan", ratio=2)
    table.add_column("expectation", overflow="fold", ratio=3)
    any_problem = any(c.status != PASSED for sr in report.scenarios for c in sr.checks)
    if any_problem:
        table.add_column("reason", overflow="fold", ratio=3)
    rows = 0
    for sr in report.scenarios:
        first = True
        for check in sr.checks:
            if failures_only and check.status == PASSED:
                continue
            label, style = _STYLE.get(check.status, (check.status, ""))
            reason = Text(printable(check.reason), style="red" if check.status == FAILED else "magenta")
            cells = [Text(label, style=style), Text(printable(sr.scenario.name) if first else ""),
                     Text(printable(check.title))]
            table.add_row(*cells, *([reason] if any_problem else []))
            first = False
            rows += 1
    if rows:
        console.print(table)
    problems = [(sr, c) for sr in report.scenarios for c in sr.checks if c.status != PASSED]
    for sr, check in problems:
        label, style = _STYLE.get(check.status, (check.status, ""))
        where = sr.scenario.file if check.line is None else f"{sr.scenario.file}:{check.line}"
        head = Text.assemble((label, style), " ", (printable(sr.scenario.name), "cyan"), " > ",
                             printable(check.title), " ", (f"({printable(where)})", "dim"))
        console.print()
        console.print(head, soft_wrap=True)
        console.print(Text("  " + printable(check.reason), style="red" if check.status == FAILED else "magenta"),
                      soft_wrap=True)
        for line in check.details:
            console.print(Text("    " + printable(line), style="dim"), soft_wrap=True)
    if problems:
        console.print()
    counts = report.counts()
    style = "bold green" if report.exit_code == 0 else "bold red"
    summary = Text(report.summary(), style=style)
    if failures_only and counts[PASSED] and not counts[FAILED] and not counts[ERROR]:
        summary.append(" (passing checks not listed)", style="dim")
    console.print(summary)


def render_machine(report: TestReport, fmt: str) -> str:
    """``-o json`` / ``-o yaml``: ``kind: TestReport``."""
    return dump(report.to_dict(), fmt)


def render_file_errors_machine(findings: Iterable[Any], fmt: str) -> str:
    """``-o json`` / ``-o yaml`` when scenario files could not be read (nothing ran)."""
    findings = list(findings)
    data = {"kind": "TestReport", "passed": False,
            "summary": {"scenarios": 0, "checks": 0, "passed": 0, "failed": 0, "errors": len(findings), "seconds": 0},
            "scenarios": [], "fileErrors": [f.to_dict() for f in findings]}
    return dump(data, fmt)


def _annotation(level: str, file: str, line: int | None, title: str, message: str) -> str:
    props = f"file={_escape_prop(file)}"
    if line is not None:
        props += f",line={line}"
    if title:
        props += f",title={_escape_prop(title)}"
    return f"::{level} {props}::{_escape_data(message)}"


def render_github(report: TestReport) -> str:
    """``::error file=F,line=N,title=T::reason%0Adetails`` per failed or broken check, then a notice."""
    lines = []
    for sr in report.scenarios:
        for check in sr.checks:
            if check.status == PASSED:
                continue
            message = "\n".join([check.reason, *check.details])
            title = f"{sr.scenario.name}: {check.title}"
            lines.append(_annotation("error", sr.scenario.file, check.line, title, message))
    level = "notice" if report.exit_code == 0 else "error"
    lines.append(f"::{level} title=kschedctl test::{_escape_data(report.summary())}")
    return "\n".join(lines) + "\n"


def render_file_errors_github(findings: Iterable[Any]) -> str:
    """One ``::error`` annotation per problem in a scenario file."""
    lines = [_annotation("error", f.file, f.line, "bad scenario file", f.message) for f in findings]
    return "\n".join(lines) + ("\n" if lines else "")
