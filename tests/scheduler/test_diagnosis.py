"""FitError.Error(): upstream's TestFitError_Error cases (cases/fit_error.yaml)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kschedctl.framework.status import Code, Status
from kschedctl.scheduler.diagnosis import fit_error_message, rejections_by_plugin

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "fit_error.yaml").read_text(encoding="utf-8"))["cases"]


def _status(spec: list[str]) -> Status:
    return Status(Code[spec[0]], *spec[1:])


@pytest.mark.parametrize("case", [pytest.param(c, id=f"FitError_Error_{c['name']}") for c in CASES])
def test_fit_error_error(case: dict) -> None:
    statuses = {n: _status(s) for n, s in case["nodeToStatus"].items()}
    absent = _status(case["absent"]) if "absent" in case else None
    got = fit_error_message(case["numAllNodes"], statuses, absent, case.get("preFilterMsg", ""),
                            case.get("postFilterMsg", ""))
    assert got == case["wantReasonMsg"]


def test_rejections_by_plugin_counts_and_orders() -> None:
    rows = rejections_by_plugin([("A", "Unschedulable", "x"), ("B", "Unschedulable", "y"), ("A", "Unschedulable", "x")])
    assert rows == [("A", "Unschedulable", "x", 2), ("B", "Unschedulable", "y", 1)]
