"""Results of ``kschedctl test``: one ``CheckResult`` per expectation, grouped by scenario.

``TestReport.to_dict()`` is the ``-o json`` / ``-o yaml`` structure (``kind: TestReport``);
``exit_code`` follows the contract: 0 all passed, 1 any failed, 2 a scenario could not run, and
3 (beyond the contract's three) when one met a bug in kschedctl: a crash never reads as "no".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kschedctl.errors import EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_NO, EXIT_OK
from kschedctl.scenarios.model import Scenario

PASSED = "passed"
FAILED = "failed"
#: The expectation could not be checked: a file it needs is bad, a pod it names does not exist.
ERROR = "error"


@dataclass
class CheckResult:
    """The verdict on one expectation."""

    title: str
    status: str
    line: int | None = None
    pod: str | None = None
    #: One line: what was expected and what happened ("" when passed).
    reason: str = ""
    #: Why, in more lines: the decisive plugins, filter verdicts, hints.
    details: list[str] = field(default_factory=list)
    #: What was observed, for machines (outcome, node, message, ...).
    actual: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    #: An error because of a bug in kschedctl (an unexpected exception), not because of the inputs.
    internal: bool = False

    @property
    def passed(self) -> bool:
        return self.status == PASSED

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.title, "status": self.status, "line": self.line}
        if self.pod:
            out["pod"] = self.pod
        if self.reason:
            out["reason"] = self.reason
        if self.details:
            out["details"] = list(self.details)
        if self.actual:
            out["actual"] = self.actual
        return out


@dataclass
class ScenarioResult:
    """Every check of one scenario."""

    scenario: Scenario
    checks: list[CheckResult] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def status(self) -> str:
        statuses = {c.status for c in self.checks}
        if ERROR in statuses:
            return ERROR
        if FAILED in statuses:
            return FAILED
        return PASSED

    def to_dict(self) -> dict[str, Any]:
        s = self.scenario
        return {"name": s.name, "file": s.file, "line": s.line, "status": self.status,
                "seconds": round(self.seconds, 4), "checks": [c.to_dict() for c in self.checks]}


@dataclass
class TestReport:
    """The outcome of a ``kschedctl test`` run."""

    __test__ = False  # not a pytest test class, whatever its name

    scenarios: list[ScenarioResult] = field(default_factory=list)
    seconds: float = 0.0

    def checks(self) -> list[tuple[ScenarioResult, CheckResult]]:
        return [(s, c) for s in self.scenarios for c in s.checks]

    def counts(self) -> dict[str, int]:
        out = {PASSED: 0, FAILED: 0, ERROR: 0}
        for _, c in self.checks():
            out[c.status] = out.get(c.status, 0) + 1
        return out

    @property
    def exit_code(self) -> int:
        counts = self.counts()
        if any(c.internal for _, c in self.checks()):
            return EXIT_INTERNAL
        if counts[ERROR]:
            return EXIT_BAD_INPUT
        return EXIT_NO if counts[FAILED] else EXIT_OK

    def summary(self) -> str:
        """``12 passed, 1 failed, 0 errors in 3 scenarios (0.41s)``."""
        c = self.counts()
        n = len(self.scenarios)
        return (f"{c[PASSED]} passed, {c[FAILED]} failed, {c[ERROR]} error{'s' if c[ERROR] != 1 else ''} "
                f"in {n} scenario{'s' if n != 1 else ''} ({self.seconds:.2f}s)")

    def to_dict(self) -> dict[str, Any]:
        c = self.counts()
        return {
            "kind": "TestReport",
            "passed": self.exit_code == EXIT_OK,
            "summary": {"scenarios": len(self.scenarios), "checks": sum(c.values()), "passed": c[PASSED],
                        "failed": c[FAILED], "errors": c[ERROR], "seconds": round(self.seconds, 3)},
            "scenarios": [s.to_dict() for s in self.scenarios],
        }
