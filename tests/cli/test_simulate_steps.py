"""``kschedctl simulate --steps FILE`` end to end: the table's step blocks, the SteppedSimulation
JSON, exit 1 on a failed check, and one-line errors (exit 2) for bad steps files."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from tests.cli.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = str(ROOT / "tests" / "scenarios" / "steps" / "cluster.yaml")


def steps_file(tmp_path: Path, steps: list, name: str = "steps.yaml") -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump({"apiVersion": "kschedctl/v1", "kind": "Steps", "steps": steps},
                                   sort_keys=False), encoding="utf-8")
    return str(path)


def test_table_shows_each_step(tmp_path: Path) -> None:
    path = steps_file(tmp_path, [{"drain": "node-1", "expect": [{"selector": "app=web", "unschedulable": 1}]},
                                 {"advance": "5m"}])
    result = run_cli("simulate", "--cluster", CLUSTER, "--steps", path)
    assert result.exit_code == 0, result.stdout + result.stderr
    out = result.stdout
    assert "step 1: drain node-1" in out and "step 2: advance 5m" in out and "(t+5m)" in out
    assert "evicted default/web-7d4b9c-aaaaa" in out
    assert "PASS selector app=web, unschedulable 1" in out
    assert "1 of 1 checks passed" in out


def test_json_per_step_and_failed_check_exit_1(tmp_path: Path) -> None:
    path = steps_file(tmp_path, [{"notReady": "node-2", "expect": [{"evicted": []}]}])
    result = run_cli("simulate", "--cluster", CLUSTER, "--steps", path, "-o", "json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["kind"] == "SteppedSimulation" and data["passed"] is False
    [step] = data["steps"]
    assert step["action"] == "notReady" and step["evicted"][0]["pod"] == "default/web-7d4b9c-bbbbb"
    assert {"pod", "reason"} <= set(step["replacements"][0])
    [check] = data["checks"]
    assert check["status"] == "failed" and "evicted: expected []" in check["reason"]


def test_pods_then_steps_create_files_relative_to_the_steps_file(tmp_path: Path) -> None:
    (tmp_path / "pods").mkdir()
    (tmp_path / "pods" / "job.yaml").write_text(yaml.safe_dump({
        "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "batch"},
        "spec": {"parallelism": 1, "completions": 2, "template": {
            "metadata": {"labels": {"app": "batch"}},
            "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox",
                                                                "resources": {"requests": {"cpu": "100m"}}}]}}}}))
    path = steps_file(tmp_path, [{"create": "pods/job.yaml", "expect": [{"selector": "app=batch", "scheduled": 1}]},
                                 {"complete": {"job": "batch"}, "expect": [{"selector": "app=batch", "scheduled": 1}]},
                                 {"complete": {"job": "batch"}, "expect": [{"selector": "app=batch", "scheduled": 0}]}])
    result = run_cli("simulate", "--cluster", CLUSTER, "--steps", path, "-o", "yaml")
    assert result.exit_code == 0, result.stdout + result.stderr
    data = yaml.safe_load(result.stdout)
    assert [len(s["completed"]) for s in data["steps"]] == [0, 1, 1]
    assert "Job default/batch complete (2 of 2 succeeded)" in data["steps"][2]["notes"]


# (steps file text, what the one-line error says, its line)
BAD_FILES = [
    ("apiVersion: kschedctl/v1\nkind: Steps\nsteps:\n  - advance: soon\n", "steps[0].advance: 'soon' is not a duration",
     4),
    ("apiVersion: kschedctl/v1\nkind: Steps\nsteps:\n  - uncordon: node-1\n", "steps[0].uncordon: unknown field", 4),
    ("apiVersion: kschedctl/v1\nkind: Scenario\nsteps:\n  - advance: 1m\n", 'kind: must be "Steps"', 2),
    ("apiVersion: kschedctl/v1\nkind: Steps\nsteps:\n  - drain: node-9\n", "steps[0].drain: no node 'node-9'",
     4),
    # issue 43: shapes that ended in an internal error
    ("apiVersion: kschedctl/v1\nkind: Steps\nsteps:\n  - taint: {nodes: node-1, taints: 1}\n",
     "steps[0].taint: expected taints: key=value:Effect", 4),
    ("apiVersion: kschedctl/v1\nkind: Steps\nsteps:\n  - taint: {nodes: node-1, remove: {a: b}}\n",
     "steps[0].taint: expected remove: key or key:Effect", 4),
    ("apiVersion: kschedctl/v1\nkind: Steps\nsteps:\n  - addNodes: {like: node-1, labels: [a]}\n",
     "steps[0].addNodes: expected a mapping (labels: {key: value})", 4),
    ("apiVersion: kschedctl/v1\nkind: Steps\nsteps:\n  - create: [{apiVersion: v1, kind: Pod, metadata: x}]\n",
     'Pod: metadata must be a mapping, not "x"', 4),
]


@pytest.mark.parametrize("text,message,line", BAD_FILES, ids=[b[1][:30] for b in BAD_FILES])
def test_bad_steps_file_one_line_exit_2(tmp_path: Path, text: str, message: str, line: int) -> None:
    path = tmp_path / "steps.yaml"
    path.write_text(text, encoding="utf-8")
    result = run_cli("simulate", "--cluster", CLUSTER, "--steps", str(path))
    assert result.exit_code == 2, result.stdout + result.stderr
    [err] = result.stderr.strip().splitlines()
    assert err.startswith(f"error: {path}:{line}: ") and message in err, err
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("flag", ["--report", "--no-cluster-pending"])
def test_flags_steps_does_not_take(tmp_path: Path, flag: str) -> None:
    path = steps_file(tmp_path, [{"advance": "1m"}])
    extra = [flag, str(tmp_path / "r.html")] if flag == "--report" else [flag]
    result = run_cli("simulate", "--cluster", CLUSTER, "--steps", path, *extra)
    assert result.exit_code == 2
    assert result.stderr == f"error: --steps does not take {flag}: every step schedules all pending pods\n"


# -- the create files of a steps file: kschedctl test's trust rules (issue 43) ----------------------


def _create_steps(repo: Path, target: str) -> str:
    (repo / ".git").mkdir(parents=True, exist_ok=True)
    return steps_file(repo, [{"create": target}])


@pytest.mark.parametrize("target", ["/etc/passwd", "/proc/self/environ", "../outside/pod.yaml"])
def test_create_files_outside_the_steps_files_repository_are_refused(tmp_path: Path, target: str) -> None:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "pod.yaml").write_text(yaml.safe_dump(_POD), encoding="utf-8")
    path = _create_steps(tmp_path / "repo", target)
    result = run_cli("simulate", "--cluster", CLUSTER, "--steps", path)
    assert result.exit_code == 2, result.stdout + result.stderr
    [err] = result.stderr.strip().splitlines()
    assert "is outside the scenario root" in err and "--allow-outside-paths" in err, err
    assert "root:" not in result.stdout + result.stderr  # nothing of /etc/passwd is shown
    if target.startswith(".."):
        allowed = run_cli("simulate", "--cluster", CLUSTER, "--steps", path, "--allow-outside-paths", "-o", "json")
        assert allowed.exit_code == 0, allowed.stderr
        assert json.loads(allowed.stdout)["steps"][0]["action"] == "create"


@pytest.mark.parametrize("allow", [False, True])
def test_a_fifo_is_refused_not_waited_on(tmp_path: Path, allow: bool) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    os.mkfifo(repo / "pods.yaml")
    path = _create_steps(repo, "pods.yaml")
    result = run_cli("simulate", "--cluster", CLUSTER, "--steps", path, *(["--allow-outside-paths"] if allow else []))
    assert result.exit_code == 2, result.stdout + result.stderr
    assert result.stderr.strip().endswith("pods.yaml: not a regular file"), result.stderr
    fifo_steps = repo / "steps-fifo.yaml"
    os.mkfifo(fifo_steps)
    result = run_cli("simulate", "--cluster", CLUSTER, "--steps", str(fifo_steps))
    assert result.exit_code == 2 and "not a regular file" in result.stderr, result.stderr


def test_create_files_inside_the_repository_are_read(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "pods").mkdir(parents=True)
    (repo / "pods" / "pod.yaml").write_text(yaml.safe_dump(_POD), encoding="utf-8")
    (repo / "steps").mkdir()
    path = _create_steps(repo / "steps", "../pods/pod.yaml")
    (repo / "steps" / ".git").rmdir()
    (repo / ".git").mkdir()
    result = run_cli("simulate", "--cluster", CLUSTER, "--steps", path, "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["steps"][0]["scheduled"]


_POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "extra", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "100m"}}}]}}


def test_a_create_step_brings_the_priority_class_its_file_holds(tmp_path: Path) -> None:
    """A create step's file is applied as simulate's files are: the PriorityClass beside the pod
    joins the cluster state, so the pod is admitted with its value (it was dropped, and admission
    then refused the pod for a PriorityClass it could not find)."""
    (tmp_path / "urgent.yaml").write_text(yaml.safe_dump_all([
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "urgent"},
         "value": 1000},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "urgent", "labels": {"app": "urgent"}},
         "spec": {"priorityClassName": "urgent", "containers": [
             {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "100m"}}}]}},
    ]), encoding="utf-8")
    path = steps_file(tmp_path, [{"create": "urgent.yaml", "expect": [{"selector": "app=urgent", "scheduled": 1}]}])
    result = run_cli("simulate", "--cluster", CLUSTER, "--steps", path, "--allow-outside-paths", "-o", "json")
    assert result.exit_code == 0, result.stdout + result.stderr
    [check] = json.loads(result.stdout)["checks"]
    assert check["status"] == "passed"
