"""Time-stepped scenarios (``steps:``): the YAML scenarios of tests/scenarios/steps pass, each
expectation naming what the controllers and the scheduler did; bad steps are findings with the
scenario file's line; a step that names no node is an error check at its line; files a step
creates are read within the trust boundary."""

from __future__ import annotations

from pathlib import Path

import pytest

from kschedctl.limits import STEPS_MAX
from kschedctl.scenarios import ScenarioFileError, ScenarioRunner, load_scenarios
from kschedctl.scenarios.trust import TrustPolicy
from kschedctl.scenarios.report import ERROR, PASSED
from tests.scenarios.helpers import checks, write

STEPS = Path(__file__).resolve().parent / "steps"
CLUSTER = str(STEPS / "cluster.yaml")

# (scenario file, how many checks it makes)
SCENARIOS = [
    ("drain-recreate.yaml", 3),
    ("notready-eviction.yaml", 5),
    ("job-completions.yaml", 3),
    ("preempted-replica.yaml", 2),
    ("preemption-toleration-clock.yaml", 3),
    ("node-edits.yaml", 5),
]


@pytest.mark.parametrize("name,count", SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_step_scenarios_pass(name: str, count: int) -> None:
    report = ScenarioRunner().run(load_scenarios([str(STEPS / name)]))
    got = checks(report)
    assert len(got) == count
    assert [(c.title, c.status, c.reason) for c in got if c.status != PASSED] == []


def _doc(steps: list, **extra: object) -> dict:
    return {"apiVersion": "kschedctl/v1", "kind": "Scenario", "name": "s", "cluster": CLUSTER, "steps": steps,
            **extra}


# (steps, text the finding holds, line of the finding in the file)
BAD_STEPS = [
    ([{"drian": "node-1", "expect": [{"pending": []}]}], 'steps[0].drian: unknown field (did you mean "drain"?)', 6),
    ([{"advance": "5 minutes", "expect": [{"pending": []}]}], "steps[0].advance: '5 minutes' is not a duration", 6),
    ([{"advance": "400d", "expect": [{"pending": []}]}], "is not a duration", 6),
    ([{"advance": "9000h", "expect": [{"pending": []}]}], "past the limit of", 6),
    ([{"cordon": "node-1", "drain": "node-2", "expect": [{"pending": []}]}], "this one has 2 actions", 6),
    ([{"taint": {"nodes": "node-1", "taints": ["gpu"]}, "expect": [{"pending": []}]}],
     "expected key[=value]:Effect", 6),
    ([{"complete": {"job": "j", "pods": ["p"]}, "expect": [{"pending": []}]}], "give job: (with count:) or pods:", 6),
    ([{"cordon": "node-1"}], "the scenario checks nothing", 5),
    ([{"expect": [{"pending": []}]}], "this one has no action", 6),
    ([{"cordon": "node-1", "expect": [{"pendng": []}]}], "steps[0].expect[0].pendng: unknown field", 8),
]


@pytest.mark.parametrize("steps,text,line", BAD_STEPS, ids=[b[1][:40] for b in BAD_STEPS])
def test_bad_steps_are_findings_with_lines(tmp_path: Path, steps: list, text: str, line: int) -> None:
    path = write(tmp_path / "scenario.yaml", _doc(steps))
    with pytest.raises(ScenarioFileError) as info:
        load_scenarios([str(path)])
    finding = info.value.findings[0]
    assert text in finding.message
    assert (finding.file, finding.line) == (str(path), line)


def test_too_many_steps_is_a_finding(tmp_path: Path) -> None:
    steps = [{"advance": "1s"}] * (STEPS_MAX + 1)
    steps[0] = {"advance": "1s", "expect": [{"pending": []}]}
    path = write(tmp_path / "scenario.yaml", _doc(steps))
    with pytest.raises(ScenarioFileError) as info:
        load_scenarios([str(path)])
    assert f"past the limit of {STEPS_MAX:,}" in info.value.findings[0].message


def test_unknown_node_is_an_error_at_the_step(tmp_path: Path) -> None:
    path = write(tmp_path / "scenario.yaml", _doc([{"cordon": "node-1"}, {"drain": "node-9",
                                                                         "expect": [{"pending": []}]}]))
    report = ScenarioRunner().run(load_scenarios([str(path)]))
    [check] = checks(report)
    assert check.status == ERROR and check.line == 7
    assert "steps[1].drain" in check.reason and "no node 'node-9'" in check.reason
    assert report.exit_code == 2


def test_create_files_are_read_within_the_trust_boundary(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    outside = write(tmp_path / "pod.yaml", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                                            "spec": {"containers": [{"name": "c", "image": "x"}]}})
    path = write(root / "scenario.yaml", _doc([{"create": str(outside), "expect": [{"pending": []}]}],
                                              cluster=str(write(root / "cluster.yaml", open(CLUSTER).read()))))
    report = ScenarioRunner(trust=TrustPolicy.for_run(cwd=str(root))).run(load_scenarios([str(path)]))
    [check] = checks(report)
    assert check.status == ERROR
    assert "steps[0].create" in check.reason and "outside" in check.reason
