"""Dogfooding: the scenarios next to the shipped profiles pin their intended behaviour and pass.

This is what the project's CI runs as ``kschedctl test profiles/``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kschedctl.scenarios import ScenarioRunner, load_scenarios

PROFILES = Path(__file__).resolve().parents[2] / "profiles"
SCENARIOS = load_scenarios([str(PROFILES)])
_REPORT = None


def _report():  # one run for all parameters: the caches are the point
    global _REPORT
    if _REPORT is None:
        _REPORT = ScenarioRunner().run(SCENARIOS)
    return _REPORT


@pytest.mark.parametrize("index", range(len(SCENARIOS)),
                         ids=[f"Profile_{Path(s.file).stem}_{s.name}" for s in SCENARIOS])
def test_profile_scenario_passes(index: int) -> None:
    result = _report().scenarios[index]
    problems = [f"{c.title}: {c.reason} {c.details}" for c in result.checks if c.status != "passed"]
    assert not problems


def test_every_profile_has_scenarios() -> None:
    configs = {str(p.resolve()) for p in PROFILES.glob("*.yaml")}
    covered = {str(Path(s.config).resolve()) for s in SCENARIOS if s.config}
    missing = sorted(Path(c).name for c in configs - covered)
    assert not missing, f"profiles without scenarios in profiles/scenarios/: {missing}"
