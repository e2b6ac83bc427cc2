"""``kschedctl test``: exit codes, table, -o json|yaml|github, --junit, many scenarios, kubectl-ksched."""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
import yaml

from tests.cli.helpers import run_cli
from tests.scenarios.helpers import CLUSTER, PODS, PROFILES, pod, scenario, write

ROOT = Path(__file__).resolve().parents[2]
HELLO = str(PODS / "pod.yaml")
PASSING = scenario("hello lands on the emptiest node", pods=[HELLO],
                   expect=[{"outcome": "Scheduled", "node": "node-b2"}])
FAILING = scenario("hello on a full node", pods=[HELLO], expect=[{"node": "node-a1"}, {"outcome": "Scheduled"}])


def test_all_passed_exit_0(tmp_path: Path) -> None:
    write(tmp_path / "ok.yaml", PASSING)
    result = run_cli("test", "--allow-outside-paths", str(tmp_path))
    assert result.exit_code == 0, result.stderr
    assert "PASS" in result.stdout and "hello lands on the emptiest node" in result.stdout
    assert re.search(r"1 passed, 0 failed, 0 errors in 1 scenario \(\d+\.\d\ds\)", result.stdout)
    assert result.stderr == ""


def test_a_failure_exits_1_with_the_reason_and_decisive_plugins(tmp_path: Path) -> None:
    write(tmp_path / "ok.yaml", PASSING)
    write(tmp_path / "bad.yaml", FAILING)
    result = run_cli("test", "--allow-outside-paths", str(tmp_path))
    assert result.exit_code == 1
    out = " ".join(result.stdout.split())  # the table wraps long cells
    assert "FAIL" in out and "expected node node-a1, got node-b2" in out
    assert "node-a1 scored 479, node-b2 494 (-15): NodeResourcesFit 84 vs 96 (-12)" in out
    assert f"({tmp_path / 'bad.yaml'}:8)" in out
    assert "2 passed, 1 failed, 0 errors in 2 scenarios" in out


def test_failures_only(tmp_path: Path) -> None:
    write(tmp_path / "bad.yaml", FAILING)
    result = run_cli("test", "--allow-outside-paths", str(tmp_path), "--failures-only")
    assert result.exit_code == 1
    assert "PASS" not in result.stdout and "FAIL" in result.stdout


@pytest.mark.parametrize("text,message", [
    ("apiVersion: kschedctl/v1\nkind: Scenario\nname: s\ncluster: c\npods: p.yaml\nexpect:\n- outcome: Sceduled\n",
     '7: expect[0].outcome: "Sceduled" is not one of Scheduled, Unschedulable, Gated, Rejected, Error, NotHandled '
     '(did you mean "Scheduled"?)'),
    ("apiVersion: kschedctl/v1\nkind: Scenario\nname: [\n", "4: not valid YAML: "),
    ("apiVersion: v1\nkind: Pod\n", "2: not a scenario (kind Pod): expected apiVersion: kschedctl/v1, kind: Scenario"),
])
def test_malformed_scenario_file_exits_2_with_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    result = run_cli("test", "--allow-outside-paths", str(path))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {path}:{message}")
    assert "Traceback" not in result.stderr + result.stdout
    assert result.stdout == ""


def test_missing_path_and_no_scenarios(tmp_path: Path) -> None:
    result = run_cli("test", "--allow-outside-paths", str(tmp_path / "nope"))
    assert result.exit_code == 2 and result.stderr == f"error: {tmp_path / 'nope'}: no such file or directory\n"
    write(tmp_path / "pod.yaml", pod("p"))
    result = run_cli("test", "--allow-outside-paths", str(tmp_path))
    assert result.exit_code == 2 and "no scenario files found" in result.stderr


def test_a_file_a_scenario_names_cannot_be_loaded_exits_2(tmp_path: Path) -> None:
    write(tmp_path / "s.yaml", scenario("s", cluster="missing", pods=[HELLO]), PASSING)
    result = run_cli("test", "--allow-outside-paths", str(tmp_path), "-o", "json")
    assert result.exit_code == 2
    data = json.loads(result.stdout)
    assert [s["status"] for s in data["scenarios"]] == ["error", "passed"]
    assert data["scenarios"][0]["checks"][0]["reason"] == \
        f"{tmp_path / 's.yaml'}:4: cluster: {tmp_path / 'missing'}: no such file or directory"


def test_json_and_yaml(tmp_path: Path) -> None:
    write(tmp_path / "s.yaml", FAILING)
    data = json.loads(run_cli("test", "--allow-outside-paths", str(tmp_path), "-o", "json").stdout)
    same = yaml.safe_load(run_cli("test", "--allow-outside-paths", str(tmp_path), "-o", "yaml").stdout)
    for d in (data, same):
        d["summary"]["seconds"] = 0
        for s in d["scenarios"]:
            s["seconds"] = 0
    assert data == same
    assert data["kind"] == "TestReport" and data["passed"] is False
    assert data["summary"] == {"scenarios": 1, "checks": 2, "passed": 1, "failed": 1, "errors": 0, "seconds": 0}
    failed = data["scenarios"][0]["checks"][0]
    assert failed["status"] == "failed" and failed["line"] == 8 and failed["pod"] == "default/hello"
    assert failed["reason"] == "expected node node-a1, got node-b2"
    assert failed["actual"] == {"outcome": "Scheduled", "node": "node-b2", "message": ""}


def test_json_with_bad_files(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text("apiVersion: kschedctl/v1\nkind: Scenario\n", encoding="utf-8")
    result = run_cli("test", "--allow-outside-paths", str(tmp_path), "-o", "json")
    assert result.exit_code == 2
    data = json.loads(result.stdout)
    assert data["passed"] is False and data["summary"]["errors"] == 3
    assert data["fileErrors"][0] == {"file": str(tmp_path / "s.yaml"), "line": 1,
                                     "message": "cluster: required field is missing"}


_ANNOTATION = re.compile(r"^::(error|warning|notice)( [a-z]+=[^,:]*(,[a-z]+=[^,:]*)*)?::.*$")


def test_github_annotations(tmp_path: Path) -> None:
    write(tmp_path / "s, x.yaml", FAILING)
    result = run_cli("test", "--allow-outside-paths", str(tmp_path), "-o", "github")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert all(_ANNOTATION.match(line) for line in lines), lines
    first, summary = lines
    file_prop = str(tmp_path / "s, x.yaml").replace(":", "%3A").replace(",", "%2C")
    assert first.startswith(f"::error file={file_prop},line=8,title=hello on a full node%3A (the pod)%3A node "
                            f"node-a1::expected node node-a1, got node-b2%0Anode-a1 scored 479, node-b2 494 (-15): ")
    assert summary.startswith("::error title=kschedctl test::1 passed, 1 failed, 0 errors in 1 scenario (")


def test_github_annotations_all_passed_and_bad_files(tmp_path: Path) -> None:
    write(tmp_path / "ok.yaml", PASSING)
    result = run_cli("test", "--allow-outside-paths", str(tmp_path), "-o", "github")
    assert result.exit_code == 0
    assert result.stdout.startswith("::notice title=kschedctl test::1 passed, 0 failed, 0 errors in 1 scenario")
    (tmp_path / "bad.yaml").write_text("apiVersion: kschedctl/v1\nkind: Scenario\nname: 5\ncluster: c\n"
                                       "expect: [{outcome: Scheduled}]\npods: p\n", encoding="utf-8")
    result = run_cli("test", "--allow-outside-paths", str(tmp_path), "-o", "github")
    assert result.exit_code == 2
    assert result.stdout == (f"::error file={str(tmp_path / 'bad.yaml')},line=3,title=bad scenario file::"
                             "name: must be a string, not the integer 5\n")


def test_junit_file(tmp_path: Path) -> None:
    write(tmp_path / "s.yaml", PASSING, FAILING)
    out = tmp_path / "reports" / "junit.xml"
    out.parent.mkdir()
    result = run_cli("test", "--allow-outside-paths", str(tmp_path / "s.yaml"), "--junit", str(out), "-o", "json")
    assert result.exit_code == 1
    root = ET.parse(out).getroot()
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("3", "1", "0")
    assert [s.get("name") for s in root.iter("testsuite")] == ["hello lands on the emptiest node",
                                                               "hello on a full node"]
    failure = root.find(".//failure")
    assert failure.get("message") == "expected node node-a1, got node-b2"


def test_junit_with_bad_files_and_unwritable_path(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text("apiVersion: kschedctl/v1\nkind: Scenario\nname: x\n", encoding="utf-8")
    out = tmp_path / "junit.xml"
    result = run_cli("test", "--allow-outside-paths", str(tmp_path), "--junit", str(out))
    assert result.exit_code == 2
    root = ET.parse(out).getroot()
    assert root.get("errors") == "2" and root.find("testsuite").get("name") == "scenario files"
    write(tmp_path / "s.yaml", PASSING)
    result = run_cli("test", "--allow-outside-paths", str(tmp_path), "--junit", str(tmp_path / "no" / "such" / "dir.xml"))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {tmp_path / 'no' / 'such' / 'dir.xml'}: cannot write the file")


def test_current_directory_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "scenarios" / "ok.yaml", PASSING)
    monkeypatch.chdir(tmp_path)
    result = run_cli("test", "--allow-outside-paths", "-o", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["scenarios"][0]["file"] == "./scenarios/ok.yaml"


def test_custom_plugin(tmp_path: Path) -> None:
    write(tmp_path / "s.yaml", scenario("PreferLabel prefers us-east-1b", pods=[HELLO],
                                        config=str(ROOT / "examples" / "custom-plugin" / "profile.yaml"),
                                        expect=[{"node": "node-b2"}, {"rank": {"node": "node-b1", "is": 2}}]))
    plugin = f"{ROOT / 'examples' / 'custom-plugin' / 'prefer_label.py'}:PreferLabel"
    result = run_cli("test", "--allow-outside-paths", str(tmp_path), "--plugin", plugin, "-o", "json")
    assert result.exit_code == 0, result.stdout + result.stderr
    result = run_cli("test", "--allow-outside-paths", str(tmp_path), "-o", "json")  # without the plugin the profile is unknown
    assert result.exit_code == 2
    assert "PreferLabel" in json.loads(result.stdout)["scenarios"][0]["checks"][0]["reason"]


def test_profiles_directory_passes() -> None:
    # What the project's own CI runs.
    result = run_cli("test", "--allow-outside-paths", str(PROFILES), "--failures-only")
    assert result.exit_code == 0, result.stdout


def test_two_hundred_small_scenarios(tmp_path: Path) -> None:
    """200 generated scenarios, one file each, sharing one cluster and two configurations."""
    nodes = ["node-a1", "node-a2", "node-b1", "node-b2", "node-c1", "node-c2"]
    expected = {"passed": 0, "failed": 0}
    for i in range(200):
        node = nodes[i % len(nodes)]
        p = pod(f"p{i}", cpu=f"{100 + i}m", memory=f"{64 + i}Mi", nodeSelector={"kubernetes.io/hostname": node})
        if node == "node-c2":  # cordoned
            expect = [{"outcome": "Unschedulable",
                       "filter": {"node": "node-c2", "plugin": "NodeUnschedulable",
                                  "reason": "node(s) were unschedulable"}}]
        elif i % 25 == 7:  # a wrong expectation now and then
            expect = [{"node": "node-b2" if node != "node-b2" else "node-a1"}]
        else:
            expect = [{"outcome": "Scheduled", "node": node}, {"rank": {"node": node, "is": 1}}]
        wrong = i % 25 == 7 and node != "node-c2"
        expected["failed" if wrong else "passed"] += len(expect) if not wrong else 0
        expected["failed"] += 1 if wrong else 0
        config = str(PROFILES / "bin-packing.yaml") if i % 2 else None
        write(tmp_path / f"group{i % 4}" / f"s{i:03}.yaml",
              scenario(f"scenario {i}", cluster=CLUSTER, pods=[p], expect=expect, config=config))
    result = run_cli("test", "--allow-outside-paths", str(tmp_path), "-o", "json")
    data = json.loads(result.stdout)
    assert data["summary"]["scenarios"] == 200
    assert (data["summary"]["passed"], data["summary"]["failed"], data["summary"]["errors"]) == \
        (expected["passed"], expected["failed"], 0)
    assert result.exit_code == 1
    failed = [s["name"] for s in data["scenarios"] if s["status"] == "failed"]
    in_file_order = sorted(range(200), key=lambda i: (i % 4, i))  # group0/s000, group0/s004, ...
    assert failed == [f"scenario {i}" for i in in_file_order if i % 25 == 7 and i % 6 != 5]


def test_help_has_a_worked_example() -> None:
    result = run_cli("test", "--allow-outside-paths", "--help")
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    assert "apiVersion: kschedctl/v1" in text and "nodeIn: [node-a1, node-b1]" in text
    assert "kschedctl test profiles/ --junit report.xml" in text


# -- kubectl-ksched ----------------------------------------------------------------------------------


def _run_plugin(*args: str) -> tuple[int, str, str]:
    from kschedctl.cli.kubectl_plugin import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            main(list(args))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        else:  # pragma: no cover
            code = 0
    return code, out.getvalue(), err.getvalue()


def test_kubectl_plugin_reads_as_kubectl_ksched(tmp_path: Path) -> None:
    code, out, _ = _run_plugin("--help")
    assert code == 0 and "Usage: kubectl ksched [OPTIONS] COMMAND" in out
    code, out, _ = _run_plugin("explain", "--help")
    assert code == 0 and "Usage: kubectl ksched explain" in out
    write(tmp_path / "ok.yaml", PASSING)
    code, out, _ = _run_plugin("test", "--allow-outside-paths", str(tmp_path), "-o", "json")
    assert code == 0 and json.loads(out)["passed"] is True
    code, _, err = _run_plugin("test", str(tmp_path / "missing"))
    assert code == 2 and err.startswith("error: ")


def test_pre_commit_hooks() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    by_id = {h["id"]: h for h in hooks}
    assert set(by_id) == {"kschedctl-validate", "kschedctl-test"}
    for hook in hooks:
        assert {"id", "name", "entry", "language"} <= set(hook) and hook["language"] == "python"
        command = hook["entry"].split()
        assert command[0] == "kschedctl"
        assert run_cli(command[1], "--help").exit_code == 0
    assert by_id["kschedctl-test"]["pass_filenames"] is False
    files = re.compile(by_id["kschedctl-validate"]["files"])
    assert files.search("profiles/bin-packing.yaml") and files.search("deploy/kube-scheduler-config.yaml")
    assert not files.search("profiles/scenarios/default.yaml") and not files.search("fixtures/cluster/nodes.yaml")
    # what the validate hook would run on the shipped profiles passes
    profiles = sorted(str(p) for p in PROFILES.glob("*.yaml") if files.search(str(p.relative_to(ROOT))))
    assert run_cli("validate", *profiles).exit_code == 0


@pytest.mark.parametrize("create", [
    [{"apiVersion": "v1", "kind": "Pod", "metadata": "x", "spec": {"containers": [{"name": "c", "image": "b"}]}}],
    [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "y"}, "spec": 1}],
    [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "z"}, "status": "Running",
      "spec": {"containers": [{"name": "c", "image": "b"}]}}],
])
def test_a_bad_step_is_its_scenarios_error_not_the_runs(tmp_path: Path, create: list) -> None:
    # Issue 43: a create step whose object had a string metadata ended the whole run (exit 3).
    write(tmp_path / "ok.yaml", PASSING)
    write(tmp_path / "bad.yaml", scenario("bad step", pods=[HELLO], steps=[{"create": create,
                                                                            "expect": [{"scheduled": 2}]}]))
    result = run_cli("test", "--allow-outside-paths", str(tmp_path), "-o", "json")
    assert result.exit_code == 2, result.stderr
    data = json.loads(result.stdout)
    status = {s["name"]: [c["status"] for c in s["checks"]] for s in data["scenarios"]}
    assert status["hello lands on the emptiest node"] == ["passed"] and "error" in status["bad step"], status
    [reason] = [c["reason"] for s in data["scenarios"] for c in s["checks"] if c["status"] == "error"]
    assert reason.startswith(f"{tmp_path / 'bad.yaml'}:") and "steps[0].create: Pod" in reason, reason
    assert "internal error" not in reason and reason.count(str(tmp_path)) == 1
