"""Reading scenario files: discovery, the JSON Schema and the sense checks, with file:line errors."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from kschedctl.scenarios import ScenarioFileError, load_scenarios, parse_text, schema
from kschedctl.scenarios.files import discover
from tests.scenarios.helpers import CLUSTER, scenario, write

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "malformed.yaml").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", [pytest.param(c, id=f"Malformed_{c['name']}") for c in CASES])
def test_malformed_files_report_every_problem_with_its_line(case: dict) -> None:
    scenarios, findings = parse_text(case["text"], "scenario.yaml")
    assert [f"{f.line}: {f.message}" for f in findings] == case["errors"]
    assert all(f.file == "scenario.yaml" for f in findings)
    if len(case["errors"]) and "second document" not in case["name"]:
        assert scenarios == []


def test_shipped_schema_is_valid_draft_2020_12() -> None:
    jsonschema.Draft202012Validator.check_schema(schema())
    packaged = Path(__file__).resolve().parents[2] / "kschedctl" / "scenarios" / "schema.json"
    assert json.loads(packaged.read_text(encoding="utf-8")) == schema()


def test_paths_are_resolved_against_the_scenario_file(tmp_path: Path) -> None:
    path = write(tmp_path / "sub" / "s.yaml", scenario(
        config="../profiles/p.yaml", cluster=["../c1", "/abs/c2"], pods=["pods/p.yaml", {"kind": "Pod"}],
        expect=[{"pod": "p", "outcome": "Scheduled"}]))
    (s,) = load_scenarios([str(path)])
    assert s.config == str(tmp_path / "profiles" / "p.yaml")
    assert s.cluster == [str(tmp_path / "c1"), "/abs/c2"]
    assert s.pods[0] == str(tmp_path / "sub" / "pods" / "p.yaml")
    assert s.pods[1].obj == {"kind": "Pod"} and s.pods[1].line == 10
    assert s.line == 1 and s.expectations[0].line == 12


def test_one_path_may_be_a_string(tmp_path: Path) -> None:
    path = write(tmp_path / "s.yaml", scenario(cluster="c", pods="p.yaml", expect=[{"outcome": "Scheduled"}]))
    (s,) = load_scenarios([str(path)])
    assert s.cluster == [str(tmp_path / "c")] and s.pods == [str(tmp_path / "p.yaml")] and s.config is None


def test_several_scenarios_in_one_file(tmp_path: Path) -> None:
    path = write(tmp_path / "s.yaml", scenario("one", pods="p.yaml"), scenario("two", pods="p.yaml"))
    assert [s.name for s in load_scenarios([str(path)])] == ["one", "two"]


def test_directories_hold_scenarios_and_other_yaml_that_is_skipped(tmp_path: Path) -> None:
    write(tmp_path / "b.yaml", scenario("b", pods="p.yaml"))
    write(tmp_path / "nested" / "a.yml", scenario("a", pods="p.yaml"))
    write(tmp_path / "nested" / "pod.yaml", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}})
    (tmp_path / "nested" / "broken.yaml").write_text("key: [unclosed\n", encoding="utf-8")  # not a scenario
    write(tmp_path / ".hidden" / "c.yaml", scenario("hidden", pods="p.yaml"))
    (tmp_path / "notes.txt").write_text("kind: Scenario\n", encoding="utf-8")
    files, problems = discover([str(tmp_path)])
    assert problems == []
    assert files == [str(tmp_path / "b.yaml"), str(tmp_path / "nested" / "a.yml")]
    assert [s.name for s in load_scenarios([str(tmp_path)])] == ["b", "a"]


def test_a_file_given_twice_is_read_once(tmp_path: Path) -> None:
    path = write(tmp_path / "s.yaml", scenario(pods="p.yaml"))
    assert len(load_scenarios([str(path), str(tmp_path)])) == 1


def test_problems_of_every_file_are_collected(tmp_path: Path) -> None:
    write(tmp_path / "a.yaml", "apiVersion: kschedctl/v1\nkind: Scenario\nname: 1\n")
    write(tmp_path / "b.yaml", "apiVersion: kschedctl/v1\nkind: Scenario\n")
    with pytest.raises(ScenarioFileError) as info:
        load_scenarios([str(tmp_path), str(tmp_path / "missing.yaml")])
    lines = [str(f) for f in info.value.findings]
    assert f"{tmp_path / 'missing.yaml'}: no such file or directory" in lines
    assert f"{tmp_path / 'a.yaml'}:3: name: must be a string, not the integer 1" in lines
    assert f"{tmp_path / 'b.yaml'}:1: name: required field is missing" in lines
    assert info.value.exit_code == 2


def test_no_scenarios_found_is_an_error(tmp_path: Path) -> None:
    write(tmp_path / "pod.yaml", {"apiVersion": "v1", "kind": "Pod"})
    with pytest.raises(ScenarioFileError, match="no scenario files found"):
        load_scenarios([str(tmp_path)])


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_bytes(b"kind: Scenario\nname: \xff\n")
    with pytest.raises(ScenarioFileError) as info:
        load_scenarios([str(path)])
    assert str(info.value.findings[0]) == f"{path}: the file is not UTF-8 text"


def test_expectation_titles() -> None:
    (s,), _ = parse_text(yaml.safe_dump(scenario(cluster=CLUSTER, pods="p.yaml", expect=[
        {"pod": "default/web", "outcome": "Scheduled", "nodeIn": ["a", "b"]},
        {"name": "custom title", "node": "a"},
        {"simulate": {"countPerZone": {"z": 1}, "includeClusterPending": False}},
        {"messageContains": ""},
    ])), "s.yaml")
    assert [e.title for e in s.expectations] == [
        "default/web: outcome Scheduled, nodeIn [a, b]", "custom title", "simulate: countPerZone {z: 1}",
        "(the pod): messageContains ''"]
