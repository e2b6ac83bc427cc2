"""JUnit XML of a ``kschedctl test`` run (``--junit FILE``), as CI systems read it.

One ``<testsuite>`` per scenario (named after it, with its file), one ``<testcase>`` per
expectation; a failed expectation carries ``<failure message=... type="ExpectationFailed">``
with the details as text, one that could not be checked ``<error type="ScenarioError">``.
Scenario files that could not be read at all become one suite of errors. Control characters
(which XML 1.0 cannot carry, or which would reach the terminal of whoever reads the report) are
written as visible escapes (``\x1b``), undecodable bytes of a file name as ``\xff``; line
breaks stay only in the failure text, where they separate the details.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any, Iterable

from kschedctl.printable import printable
from kschedctl.scenarios.report import ERROR, FAILED, TestReport


def _clean(text: Any) -> str:
    return printable(text)


def _clean_lines(text: Any) -> str:
    return printable(text, keep="\n")


def to_junit_xml(report: TestReport | None = None, file_errors: Iterable[Any] = ()) -> str:
    """The JUnit XML document (UTF-8 declaration included) of ``report`` and/or ``file_errors``."""
    root = ET.Element("testsuites", name="kschedctl test")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    errors = list(file_errors)
    if errors:
        suite = ET.SubElement(root, "testsuite", name="scenario files", tests=str(len(errors)),
                              failures="0", errors=str(len(errors)), skipped="0", time="0")
        for finding in errors:
            where = finding.file if finding.line is None else f"{finding.file}:{finding.line}"
            case = ET.SubElement(suite, "testcase", name=_clean(where), classname="scenario files",
                                 file=_clean(finding.file), time="0")
            if finding.line is not None:
                case.set("line", str(finding.line))
            err = ET.SubElement(case, "error", message=_clean(finding.message), type="ScenarioFileError")
            err.text = _clean_lines(str(finding))
        totals["tests"] += len(errors)
        totals["errors"] += len(errors)
    if report is not None:
        for sr in report.scenarios:
            s = sr.scenario
            checks = sr.checks
            failures = sum(1 for c in checks if c.status == FAILED)
            errs = sum(1 for c in checks if c.status == ERROR)
            suite = ET.SubElement(root, "testsuite", name=_clean(s.name), tests=str(len(checks)),
                                  failures=str(failures), errors=str(errs), skipped="0",
                                  time=f"{sr.seconds:.4f}", file=_clean(s.file))
            for check in checks:
                case = ET.SubElement(suite, "testcase", name=_clean(check.title), classname=_clean(s.name),
                                     file=_clean(s.file), time=f"{check.seconds:.4f}")
                if check.line is not None:
                    case.set("line", str(check.line))
                if check.status in (FAILED, ERROR):
                    failed = check.status == FAILED
                    tag, kind = ("failure", "ExpectationFailed") if failed else ("error", "ScenarioError")
                    el = ET.SubElement(case, tag, message=_clean(check.reason), type=kind)
                    where = s.file if check.line is None else f"{s.file}:{check.line}"
                    el.text = _clean_lines("\n".join([f"{where}: {check.reason}", *check.details]))
            totals["tests"] += len(checks)
            totals["failures"] += failures
            totals["errors"] += errs
        root.set("time", f"{report.seconds:.4f}")
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_junit(path: str, report: TestReport | None = None, file_errors: Iterable[Any] = ()) -> None:
    """Write the JUnit XML to ``path`` atomically; an ``InputError`` (exit 2) when it cannot be written."""
    from kschedctl.atomic import write_text_atomic

    write_text_atomic(path, to_junit_xml(report, file_errors))
