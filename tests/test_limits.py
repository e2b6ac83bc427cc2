"""Each limit of kschedctl.limits, held at the limit and one past it, through the CLI.

The byte and object-count limits are lowered for the test (the real ones are hundreds of MiB);
the depth and number limits are tested at their real values.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kschedctl import limits
from kschedctl.config import lines
from kschedctl.inputs import loader, trace, workloads
from tests.cli.helpers import run_cli

ROOT = Path(__file__).resolve().parents[1]
CLUSTER = ROOT / "fixtures" / "cluster" / "nodes.yaml"
POD = str(ROOT / "fixtures" / "pods" / "pod.yaml")
CONFIG_HEAD = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def _explain(cluster: Path) -> tuple[int, str]:
    result = run_cli("explain", "--cluster", str(cluster), POD, "-o", "json")
    assert "Traceback" not in result.stderr
    return result.exit_code, result.stderr


def test_the_limits_are_the_ones_the_readers_use() -> None:
    assert loader.MAX_FILE_BYTES == limits.INPUT_FILE_MAX_BYTES == 2 * 1024 * 1024 * 1024
    assert loader.MAX_OBJECTS == limits.INPUT_MAX_OBJECTS
    assert loader.MAX_DEPTH == limits.INPUT_MAX_DEPTH
    assert (lines.MAX_BYTES, lines.MAX_NODES, lines.MAX_DEPTH) == (
        limits.CONFIG_FILE_MAX_BYTES, limits.CONFIG_MAX_NODES, limits.CONFIG_MAX_DEPTH)
    assert workloads.MAX_PODS == limits.WORKLOAD_MAX_PODS == 1_000_000
    assert (trace.MAX_FILE_BYTES, trace.MAX_EVENTS, trace.MAX_LINE_BYTES) == (
        limits.TRACE_FILE_MAX_BYTES, limits.TRACE_MAX_EVENTS, limits.TRACE_LINE_MAX_BYTES)


@pytest.mark.parametrize("name", limits.__all__)
def test_every_limit_is_listed_in_the_readme(name: str) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Limits on what kschedctl reads", 1)[1].split("\n## ", 1)[0]
    value = getattr(limits, name)
    shown = f"{value // 2**20} MiB" if value % 2**20 == 0 else f"{value:,}"
    assert shown in section, (name, shown)


@pytest.mark.parametrize("past", [False, True], ids=["at_limit", "past_limit"])
def test_input_file_size(monkeypatch: pytest.MonkeyPatch, past: bool) -> None:
    size = CLUSTER.stat().st_size
    monkeypatch.setattr(loader, "MAX_FILE_BYTES", size - 1 if past else size)
    code, stderr = _explain(CLUSTER)
    if past:
        assert code == 2 and f"{CLUSTER}: larger than" in stderr
    else:
        assert code == 0, stderr


@pytest.mark.parametrize("past", [False, True], ids=["at_limit", "past_limit"])
def test_input_object_count(monkeypatch: pytest.MonkeyPatch, past: bool) -> None:
    count = len(loader.load_documents([str(CLUSTER)]))
    monkeypatch.setattr(loader, "MAX_OBJECTS", count - 1 if past else count)
    code, stderr = _explain(CLUSTER)
    if past:
        assert code == 2 and f"more than {count - 1:,} objects, the limit for one load" in stderr
    else:
        assert code == 0, stderr


def _lists(levels: int) -> object:
    """``levels`` lists nested in each other."""
    value: object = "x"
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize("syntax", ["yaml", "json"])
@pytest.mark.parametrize("past", [False, True], ids=["at_limit", "past_limit"])
def test_input_depth(tmp_path: Path, syntax: str, past: bool) -> None:
    levels = limits.INPUT_MAX_DEPTH + (1 if past else 0)
    doc = {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"},
           "spec": _lists(levels - 1)}  # the document's own mapping is the first level
    path = tmp_path / f"deep.{syntax}"
    text = json.dumps(doc)  # JSON is YAML too: the same text goes through both readers
    path.write_text(text, encoding="utf-8")
    if syntax == "yaml":
        path.write_text("# yaml\n" + text, encoding="utf-8")
    cluster = tmp_path / "cluster"
    cluster.mkdir()
    (cluster / "nodes.yaml").write_text(CLUSTER.read_text(encoding="utf-8"), encoding="utf-8")
    (cluster / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    code, stderr = _explain(cluster)
    if past:
        assert code == 2 and f"nested deeper than {limits.INPUT_MAX_DEPTH} levels" in stderr, stderr
    else:
        assert code == 0, stderr


@pytest.mark.parametrize("past", [False, True], ids=["at_limit", "past_limit"])
def test_number_length(tmp_path: Path, past: bool) -> None:
    digits = "9" * (limits.MAX_NUMBER_CHARS + (1 if past else 0))
    cluster = tmp_path / "cluster"
    cluster.mkdir()
    (cluster / "nodes.yaml").write_text(CLUSTER.read_text(encoding="utf-8"), encoding="utf-8")
    (cluster / "gadget.yaml").write_text(f"apiVersion: example.com/v1\nkind: Gadget\nmetadata: {{name: g}}\n"
                                         f"spec: {{size: {digits}}}\n", encoding="utf-8")
    code, stderr = _explain(cluster)
    if past:
        assert code == 2 and "gadget.yaml:4" in stderr, stderr
    else:
        assert code == 0, stderr


@pytest.mark.parametrize("past", [False, True], ids=["at_limit", "past_limit"])
def test_config_file_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, past: bool) -> None:
    path = tmp_path / "cfg.yaml"
    path.write_text(CONFIG_HEAD + "parallelism: 16\n", encoding="utf-8")
    size = len(path.read_text(encoding="utf-8"))
    monkeypatch.setattr(lines, "MAX_BYTES", size - 1 if past else size)
    result = run_cli("validate", str(path))
    assert result.exit_code == (2 if past else 0), result.stderr
    if past:
        assert "file is larger than" in result.stderr


@pytest.mark.parametrize("past", [False, True], ids=["at_limit", "past_limit"])
def test_config_depth(tmp_path: Path, past: bool) -> None:
    # An unknown field: read (and refused as unknown) at the limit, refused unread past it.
    levels = limits.CONFIG_MAX_DEPTH + (1 if past else 0)
    path = tmp_path / "cfg.yaml"
    path.write_text(CONFIG_HEAD + "x: " + json.dumps(_lists(levels - 1)) + "\n", encoding="utf-8")
    result = run_cli("validate", str(path))
    assert "Traceback" not in result.stderr
    if past:
        assert result.exit_code == 2 and f"more than {limits.CONFIG_MAX_DEPTH} levels deep" in result.stderr
    else:
        assert result.exit_code == 1 and 'unknown field "x"' in result.stdout  # read, then judged


@pytest.mark.parametrize("past", [False, True], ids=["at_limit", "past_limit"])
def test_config_node_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, past: bool) -> None:
    path = tmp_path / "cfg.yaml"
    path.write_text(CONFIG_HEAD + "profiles:\n- schedulerName: a\n", encoding="utf-8")
    # apiVersion, kind, profiles and their values, the profile map and its pair: count them once.
    monkeypatch.setattr(lines, "MAX_NODES", 10**6)
    assert run_cli("validate", str(path)).exit_code == 0
    used = _nodes_used(path)
    monkeypatch.setattr(lines, "MAX_NODES", used - 1 if past else used)
    result = run_cli("validate", str(path))
    assert result.exit_code == (2 if past else 0), (used, result.stderr)


def _nodes_used(path: Path) -> int:
    # The smallest budget that reads the file.
    lo, hi = 1, 1000
    while lo < hi:
        mid = (lo + hi) // 2
        lines.MAX_NODES = mid
        try:
            lines.load_yaml(path.read_text(encoding="utf-8"), str(path))
        except Exception:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _replica_set(name: str, replicas: int) -> str:
    return (f"apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {{name: {name}}}\nspec:\n  replicas: {replicas}\n"
            "  selector: {matchLabels: {app: r}}\n  template:\n    metadata: {labels: {app: r}}\n"
            "    spec: {containers: [{name: c, resources: {requests: {cpu: 10m}}}]}\n")


@pytest.mark.parametrize("past", [False, True], ids=["at_limit", "past_limit"])
def test_workload_pods(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, past: bool) -> None:
    # Two workloads of 3 pods each, the limit 6 or 5: counted over the whole load.
    monkeypatch.setattr(workloads, "MAX_PODS", 5 if past else 6)
    path = tmp_path / "replicas.yaml"
    path.write_text(_replica_set("a", 3) + "---\n" + _replica_set("b", 3), encoding="utf-8")
    result = run_cli("simulate", "--cluster", str(CLUSTER), str(path), "-o", "json")
    assert "Traceback" not in result.stderr
    if past:
        assert result.exit_code == 2
        assert result.stderr == (f"error: {path}:15: ReplicaSet b: spec.replicas: 6 pods from the workloads of this "
                                 "run so far, past the limit of 5\n")
    else:
        assert result.exit_code in (0, 1), result.stderr
        assert len(json.loads(result.stdout)["placements"]) == 6


@pytest.mark.parametrize("replicas,message", [
    (limits.WORKLOAD_MAX_PODS + 1, "ReplicaSet r: spec.replicas: 1,000,001 pods from the workloads of this run so "
                                   "far, past the limit of 1,000,000"),
    (2**63 - 1, "ReplicaSet r: spec.replicas must be a 32-bit integer, not 9223372036854775807"),
])
def test_huge_replica_counts_are_refused_before_any_pod_is_made(tmp_path: Path, replicas: int, message: str) -> None:
    # A separate process with a deadline: a count that is expanded runs until memory runs out.
    path = tmp_path / "replicas.yaml"
    path.write_text(_replica_set("r", replicas), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "kschedctl", "simulate", "--cluster", str(CLUSTER), str(path)],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2
    assert proc.stderr == f"error: {path}:5: {message}\n"


@pytest.mark.parametrize("command", ["explain", "simulate"])
def test_daemonset_pods_count_per_node_where_they_are_made(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                          command: str) -> None:
    # 8 nodes: simulate would make 8 pods, past a limit of 7; explain makes one.
    monkeypatch.setattr(workloads, "MAX_PODS", 7)
    path = tmp_path / "daemonset.yaml"
    path.write_text("apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\nspec:\n"
                    "  selector: {matchLabels: {app: agent}}\n  template:\n    metadata: {labels: {app: agent}}\n"
                    "    spec: {containers: [{name: c}]}\n", encoding="utf-8")
    result = run_cli(command, "--cluster", str(CLUSTER), str(path), "-o", "json")
    if command == "explain":
        assert result.exit_code == 0, result.stderr
    else:
        assert result.exit_code == 2
        assert result.stderr == f"error: {path}:1: 8 pods from the workloads of this run so far, past the limit of 7\n"


def test_workload_pods_of_a_scenario_count_over_all_its_pods_entries(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # Two pods entries of 3 replicas each, the limit 5: each entry alone is under it.
    monkeypatch.setattr(workloads, "MAX_PODS", 5)
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.yaml").write_text(_replica_set("a", 3), encoding="utf-8")
    (tmp_path / "b.yaml").write_text(_replica_set("b", 3), encoding="utf-8")
    (tmp_path / "nodes.yaml").write_text(CLUSTER.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "s.yaml").write_text(
        "apiVersion: kschedctl/v1\nkind: Scenario\nname: s\ncluster: [nodes.yaml]\npods: [a.yaml, b.yaml]\n"
        "expect:\n- simulate: {scheduled: 6}\n", encoding="utf-8")
    result = run_cli("test", "s.yaml", "-o", "json")
    assert result.exit_code == 2, result.stdout
    assert "6 pods from the workloads of this run so far, past the limit of 5" in result.stdout


def _steps_file(tmp_path: Path, steps: list[str]) -> str:
    path = tmp_path / "steps.yaml"
    path.write_text("apiVersion: kschedctl/v1\nkind: Steps\nsteps:\n" + "".join(f"  - {s}\n" for s in steps),
                    encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("past", [False, True])
def test_steps_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, past: bool) -> None:
    from kschedctl.analyses import steps

    monkeypatch.setattr(steps, "STEPS_MAX", 3)
    path = _steps_file(tmp_path, ["advance: 1s"] * (4 if past else 3))
    result = run_cli("simulate", "--cluster", str(CLUSTER), "--steps", path, "-o", "json")
    if past:
        assert result.exit_code == 2
        assert result.stderr == f"error: {path}:3: steps: 4 steps, past the limit of 3\n"
    else:
        assert result.exit_code == 0, result.stderr


@pytest.mark.parametrize("past", [False, True])
def test_steps_virtual_time(tmp_path: Path, past: bool) -> None:
    # 366 days in two advance steps, at the real limit, then one second more.
    path = _steps_file(tmp_path, ["advance: 4392h", "advance: 4392h1s" if past else "advance: 4392h"])
    result = run_cli("simulate", "--cluster", str(CLUSTER), "--steps", path, "-o", "json")
    if past:
        assert result.exit_code == 2
        assert result.stderr == (f"error: {path}:3: steps: advance 8784h1s in all, past the limit of "
                                 "8784h of virtual time\n")
    else:
        assert result.exit_code == 0, result.stderr


TRACE = ROOT / "fixtures" / "traces" / "small.jsonl"


@pytest.mark.parametrize("past", [False, True], ids=["at_limit", "past_limit"])
@pytest.mark.parametrize("limit", ["MAX_FILE_BYTES", "MAX_EVENTS", "MAX_LINE_BYTES"])
def test_trace_limits(monkeypatch: pytest.MonkeyPatch, limit: str, past: bool) -> None:
    text = TRACE.read_bytes()
    at = {"MAX_FILE_BYTES": len(text), "MAX_EVENTS": len(trace.read_trace(str(TRACE)).events),
          "MAX_LINE_BYTES": max(len(line) for line in text.split(b"\n"))}[limit]
    monkeypatch.setattr(trace, limit, at - 1 if past else at)
    result = run_cli("replay", str(TRACE))
    assert "Traceback" not in result.stderr
    if not past:
        assert result.exit_code == 0, result.stderr
        return
    assert result.exit_code == 2 and result.stderr.startswith(f"error: {TRACE}")
    assert {"MAX_FILE_BYTES": "the trace is larger than", "MAX_EVENTS": "events, the limit for one trace",
            "MAX_LINE_BYTES": "the limit for one trace line"}[limit] in result.stderr, result.stderr


@pytest.mark.parametrize("past", [False, True], ids=["at_limit", "past_limit"])
def test_trace_line_depth(tmp_path: Path, past: bool) -> None:
    # the line's own mapping is the first level, the event's object the second
    levels = limits.INPUT_MAX_DEPTH + (1 if past else 0)
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "annotations": {}},
            "status": {"allocatable": {"cpu": "1"}}}
    deep = json.dumps(_lists(levels - 4))  # line > object > metadata > annotations > ...: a string leaf
    line = json.dumps({"type": "NodeAdded", "time": "2027-01-15T08:00:01Z", "object": node})
    line = line.replace('"annotations": {}', '"annotations": {"x": ' + json.dumps(deep) + '}')
    line = line.replace('"status":', '"deep": ' + json.dumps(_lists(levels - 2)) + ', "status":')
    path = tmp_path / "deep.jsonl"
    path.write_text(json.dumps({"apiVersion": "kschedctl.io/trace/v1", "kind": "Trace",
                                "started": "2027-01-15T08:00:00Z", "objects": 0}) + "\n" + line + "\n",
                    encoding="utf-8")
    result = run_cli("replay", str(path), "--validate", "ignore")
    assert "Traceback" not in result.stderr
    if past:
        assert result.exit_code == 2 and f"{path}:2: nested deeper than" in result.stderr, result.stderr
    else:
        assert result.exit_code in (0, 1), result.stderr
