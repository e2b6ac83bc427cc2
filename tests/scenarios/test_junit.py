"""JUnit XML of a run, read back with a JUnit parser (xml.etree, as CI systems read it)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from kschedctl.scenarios import Finding, to_junit_xml, write_junit
from tests.scenarios.helpers import PODS, run, scenario

HELLO = str(PODS / "pod.yaml")


def parse(text: str) -> ET.Element:
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    return ET.fromstring(text.encode("utf-8"))


def test_suites_cases_failures_and_errors(tmp_path: Path) -> None:
    report = run(tmp_path,
                 scenario("passes & fails <here>", pods=[HELLO], expect=[
                     {"node": "node-b2"}, {"name": 'wrong "node"', "node": "node-a1"}]),
                 scenario("broken", cluster="nope", pods=[HELLO]))
    root = parse(to_junit_xml(report))
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("3", "1", "1")
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["passes & fails <here>", "broken"]
    first, second = suites
    assert [first.get(k) for k in ("tests", "failures", "errors", "skipped")] == ["2", "1", "0", "0"]
    assert first.get("file") == str(tmp_path / "scenario.yaml")
    ok, bad = first.findall("testcase")
    assert ok.get("name") == "(the pod): node node-b2" and ok.find("failure") is None and ok.find("error") is None
    assert ok.get("classname") == "passes & fails <here>" and ok.get("line") == "8"
    assert float(ok.get("time")) >= 0
    assert bad.get("name") == 'wrong "node"'
    failure = bad.find("failure")
    assert failure.get("type") == "ExpectationFailed"
    assert failure.get("message") == "expected node node-a1, got node-b2"
    lines = failure.text.splitlines()
    assert lines[0] == f"{tmp_path / 'scenario.yaml'}:9: expected node node-a1, got node-b2"
    assert lines[1].startswith("node-a1 scored 479, node-b2 494 (-15): ")
    (case,) = second.findall("testcase")
    error = case.find("error")
    assert error.get("type") == "ScenarioError"
    assert error.get("message") == \
        f"{tmp_path / 'scenario.yaml'}:15: cluster: {tmp_path / 'nope'}: no such file or directory"


def test_file_errors_become_an_error_suite(tmp_path: Path) -> None:
    root = parse(to_junit_xml(None, [Finding("a.yaml", 3, "name: required field is missing"),
                                     Finding("b.yaml", None, "no such file or directory")]))
    assert (root.get("tests"), root.get("errors"), root.get("failures")) == ("2", "2", "0")
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == "scenario files"
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["a.yaml:3", "b.yaml"]
    assert cases[0].get("line") == "3" and cases[1].get("line") is None
    assert [c.find("error").get("message") for c in cases] == ["name: required field is missing",
                                                               "no such file or directory"]


def test_characters_xml_cannot_carry_are_escaped(tmp_path: Path) -> None:
    report = run(tmp_path, scenario("bell\x07 name", pods=[HELLO], expect=[{"messageContains": "\x01x"}]))
    root = parse(to_junit_xml(report))
    suite = root.find("testsuite")
    assert suite.get("name") == "bell\\x07 name"  # visible, as the table and the annotations show it
    assert suite.find("testcase/failure").get("message") == 'message does not contain "\\u0001x"'


def test_write_junit(tmp_path: Path) -> None:
    report = run(tmp_path, scenario(pods=[HELLO]))
    out = tmp_path / "junit.xml"
    write_junit(str(out), report)
    assert ET.parse(out).getroot().get("tests") == "1"
