"""Scenario files and ``kschedctl test``: CI checks that pin what a scheduler profile does.

A scenario (``apiVersion: kschedctl/v1``, ``kind: Scenario``) names a configuration, a cluster
state and pods, and lists expectations: a pod's outcome and node (``node``, ``nodeIn``,
``notNode``), its event message, a node's score rank, a filter verdict on a node, preemption
victims, and the placements of a whole ``simulate`` run. ``files`` reads and checks them
(JSON Schema ``schema.json`` first, file:line errors), ``runner`` runs them with shared caches,
``report`` holds the results, ``junit`` writes JUnit XML.
"""

from __future__ import annotations

from kschedctl.scenarios.files import Finding, ScenarioFileError, load_scenarios, parse_text, schema
from kschedctl.scenarios.junit import to_junit_xml, write_junit
from kschedctl.scenarios.model import Expectation, Scenario
from kschedctl.scenarios.report import CheckResult, ScenarioResult, TestReport
from kschedctl.scenarios.runner import ScenarioRunner, run_paths

__all__ = [
    "CheckResult",
    "Expectation",
    "Finding",
    "Scenario",
    "ScenarioFileError",
    "ScenarioResult",
    "ScenarioRunner",
    "TestReport",
    "load_scenarios",
    "parse_text",
    "run_paths",
    "schema",
    "to_junit_xml",
    "write_junit",
]
