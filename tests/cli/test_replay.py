"""``kschedctl replay`` end to end: what each kind of event does to the replay, what it reports, and
how a bad trace is refused (one line naming the file and line, exit 2). Also a trace as the
workload of ``diff`` and ``sweep``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kschedctl.inputs.trace import API_VERSION, format_time, write_lines
from tests.cli.helpers import run_cli

REPO = Path(__file__).resolve().parents[2]
BUNDLED = str(REPO / "fixtures" / "traces" / "small.jsonl")
BIN_PACKING = str(REPO / "profiles" / "bin-packing.yaml")
T0 = 1_800_000_000.0


def node(name: str, cpu: str = "2", **spec: Any) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "spec": spec, "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}}


def pod(name: str, cpu: str = "1", node_name: str | None = None, priority: int | None = None, **spec: Any) -> dict:
    out: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
                           "spec": {"containers": [{"name": "c", "image": "app:1",
                                                    "resources": {"requests": {"cpu": cpu}}}], **spec},
                           "status": {"phase": "Pending"}}
    if node_name:
        out["spec"]["nodeName"] = node_name
        out["status"]["phase"] = "Running"
    if priority is not None:
        out["spec"]["priority"] = priority
    return out


def event(at: float, kind: str, **fields: Any) -> dict:
    return {"type": kind, "time": format_time(T0 + at), **fields}


def arrival(at: float, obj: dict) -> dict:
    return event(at, "PodCreated", pod=f"default/{obj['metadata']['name']}", object=obj)


def trace_text(objects: list[dict], events: list[dict], end: float | None = 60.0) -> str:
    header = {"apiVersion": API_VERSION, "kind": "Trace", "started": format_time(T0), "kschedctlVersion": "test",
              "objects": len(objects)}
    lines = [header, *({"type": "Object", "object": o} for o in objects), *events]
    if end is not None:
        lines.append({"type": "End", "time": format_time(T0 + end), "reason": "duration", "events": len(events)})
    return write_lines(lines)


def replay_json(tmp_path: Path, objects: list[dict], events: list[dict], *args: str) -> tuple[int, dict]:
    path = tmp_path / "trace.jsonl"
    path.write_text(trace_text(objects, events), encoding="utf-8")
    result = run_cli("replay", str(path), "-o", "json", *args)
    assert result.exit_code in (0, 1), result.stderr
    data = json.loads(result.stdout)
    return result.exit_code, data


def by_pod(data: dict) -> dict[str, dict]:
    return {p["pod"]: p for p in data["pods"]}


# -- what the replay does with each kind of event ---------------------------------------------------


def test_preemption_in_the_replay_and_in_the_trace(tmp_path: Path) -> None:
    objects = [node("node-1"), pod("low", "2", "node-1", priority=0)]
    events = [arrival(1, pod("critical", "1", priority=1000)),
              event(1.2, "PodNominated", pod="default/critical", node="node-1"),
              event(1.5, "PodDeleted", pod="default/low"),
              event(2.0, "PodBound", pod="default/critical", node="node-1")]
    code, data = replay_json(tmp_path, objects, events)
    assert code == 0
    critical = by_pod(data)["default/critical"]
    assert critical["change"] == "same" and critical["actual"]["nominatedNode"] == "node-1"
    assert data["preemptions"]["replay"] == [{"at": 1.0, "pod": "default/critical", "node": "node-1",
                                              "victims": ["default/low"]}]
    assert data["preemptions"]["actual"] == [{"at": 1.2, "pod": "default/critical", "node": "node-1", "victims": []}]


def started_pod(name: str, cpu: str, node_name: str, priority: int = 0) -> dict:
    """A running pod with a start time, so that preemption candidates can tie on every criterion."""
    out = pod(name, cpu, node_name, priority=priority)
    out["status"]["startTime"] = "2026-01-01T00:00:00Z"
    return out


PREEMPTED = {"reason": "PreemptionByScheduler"}

# Where the real scheduler drew among tied nodes, the replay takes its draw and says "tie"; where
# the replay does not tie there (or the trace's node lost), the difference stays a difference.
# (objects, events, pod -> (change, replay node, tied nodes), actual victims, replay victims)
TIES = {
    "score_tie_drawn_the_other_way": (
        [node("node-1"), node("node-2")],
        [arrival(1, pod("web")), event(1.1, "PodBound", pod="default/web", node="node-2"),
         # the next pod goes where the draw left room: the same node in the replay, no tie
         arrival(2, pod("api", "2")), event(2.1, "PodBound", pod="default/api", node="node-1")],
        {"default/web": ("tie", "node-2", ["node-1", "node-2"]), "default/api": ("same", "node-1", None)},
        None, None),
    "no_tie_where_the_trace_went_elsewhere": (
        [node("node-1", "4"), node("node-2")],
        [arrival(1, pod("web")), event(1.1, "PodBound", pod="default/web", node="node-2")],
        {"default/web": ("differentNode", "node-1", None)}, None, None),
    "preemption_among_equal_candidates": (
        [node("node-1"), node("node-2"), started_pod("low-1", "2", "node-1"), started_pod("low-2", "2", "node-2")],
        [arrival(1, pod("critical", "1", priority=1000)),
         event(1.1, "PodNominated", pod="default/critical", node="node-2"),
         event(1.2, "PodDeleted", pod="default/low-2", **PREEMPTED),
         event(1.3, "PodBound", pod="default/critical", node="node-2")],
        {"default/critical": ("tie", "node-2", ["node-1", "node-2"])},
        ["default/low-2"], ["default/low-2"]),
    "a_deletion_not_for_preemption_names_no_victim": (
        [node("node-1"), started_pod("low-1", "2", "node-1"), started_pod("other", "0", "node-1")],
        [arrival(1, pod("critical", "1", priority=1000)),
         event(1.1, "PodNominated", pod="default/critical", node="node-1"),
         event(1.2, "PodDeleted", pod="default/other"),
         event(1.2, "PodDeleted", pod="default/low-1", **PREEMPTED),
         event(1.3, "PodBound", pod="default/critical", node="node-1")],
        {"default/critical": ("same", "node-1", None)}, ["default/low-1"], ["default/low-1"]),
}


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("objects,events,expected,actual_victims,replay_victims", TIES.values(), ids=TIES.keys())
def test_a_random_draw_of_the_real_scheduler_is_a_tie(tmp_path: Path, objects: list[dict], events: list[dict],
                                                      expected: dict, actual_victims: list[str] | None,
                                                      replay_victims: list[str] | None, seed: int) -> None:
    code, data = replay_json(tmp_path, objects, events, "--seed", str(seed))
    pods = by_pod(data)
    for key, (change, node_name, tied) in expected.items():
        assert (pods[key]["change"], pods[key]["replay"]["node"]) == (change, node_name), pods[key]
        assert sorted(pods[key]["replay"].get("tiedNodes") or []) == sorted(tied or [])
    assert code == (1 if any(c == "differentNode" for c, _, _ in expected.values()) else 0)
    assert data["summary"]["tie"] == sum(c == "tie" for c, _, _ in expected.values())
    if actual_victims is not None:
        assert [p["victims"] for p in data["preemptions"]["actual"]] == [actual_victims]
        assert [p["victims"] for p in data["preemptions"]["replay"]] == [replay_victims]


def test_the_table_says_which_placements_were_draws(tmp_path: Path) -> None:
    objects, events = TIES["preemption_among_equal_candidates"][:2]
    path = tmp_path / "trace.jsonl"
    path.write_text(trace_text(objects, events), encoding="utf-8")
    result = run_cli("replay", str(path), "--wide")
    assert result.exit_code == 0, result.stderr
    assert "1 a tie, as drawn" in result.stdout and "drawn among node-1, node-2" in result.stdout
    assert "(not recorded)" not in result.stdout


def test_a_pod_that_would_stay_pending_says_why(tmp_path: Path) -> None:
    events = [arrival(1, pod("big", "3")), event(1.5, "PodBound", pod="default/big", node="node-1")]
    code, data = replay_json(tmp_path, [node("node-1")], events)
    assert code == 1
    big = by_pod(data)["default/big"]
    assert big["change"] == "wouldStayPending"
    assert "Insufficient cpu" in big["replay"]["message"]
    assert big["replay"]["stillPending"] and big["replay"]["pendingSeconds"] == 59.0
    assert big["actual"]["pendingSeconds"] == 0.5


def test_a_pod_pending_in_the_trace_that_would_schedule(tmp_path: Path) -> None:
    code, data = replay_json(tmp_path, [node("node-1")], [arrival(1, pod("small"))])
    assert code == 1
    small = by_pod(data)["default/small"]
    assert small["change"] == "wouldSchedule" and small["replay"]["node"] == "node-1"
    assert small["actual"]["stillPending"] and small["actual"]["pendingSeconds"] == 59.0


def test_a_deletion_lets_a_pending_pod_in_at_its_time(tmp_path: Path) -> None:
    objects = [node("node-1"), pod("old", "2", "node-1")]
    events = [arrival(1, pod("new")), event(10, "PodDeleted", pod="default/old"),
              event(10.5, "PodBound", pod="default/new", node="node-1")]
    code, data = replay_json(tmp_path, objects, events)
    assert code == 0
    new = by_pod(data)["default/new"]
    assert new["replay"] == {"outcome": "Scheduled", "node": "node-1", "boundAt": 10.0, "pendingSeconds": 9.0}
    assert new["actual"]["pendingSeconds"] == 9.5


def test_a_pod_deleted_while_pending_is_pending_in_both(tmp_path: Path) -> None:
    events = [arrival(1, pod("huge", "9")), event(4, "PodDeleted", pod="default/huge")]
    code, data = replay_json(tmp_path, [node("node-1")], events)
    assert code == 0
    huge = by_pod(data)["default/huge"]
    assert huge["change"] == "bothPending"
    assert huge["actual"]["pendingSeconds"] == huge["replay"]["pendingSeconds"] == 3.0


def test_node_changes_apply_when_they_happened(tmp_path: Path) -> None:
    cordoned = node("node-1", unschedulable=True)
    events = [event(1, "NodeAdded", object=node("node-2")), event(2, "NodeUpdated", object=cordoned),
              arrival(3, pod("web")), event(3.2, "PodBound", pod="default/web", node="node-2"),
              event(4, "NodeDeleted", node="node-2"), arrival(5, pod("late")),
              event(6, "NodeUpdated", object=node("node-1")),
              event(6.2, "PodBound", pod="default/late", node="node-1")]
    code, data = replay_json(tmp_path, [node("node-1")], events)
    assert code == 0, data
    pods = by_pod(data)
    assert pods["default/web"]["replay"]["node"] == "node-2"
    assert pods["default/late"]["replay"]["node"] == "node-1" and pods["default/late"]["replay"]["boundAt"] == 6.0


def test_another_schedulers_pods_follow_what_happened(tmp_path: Path) -> None:
    other = pod("other", "2", schedulerName="my-scheduler")
    events = [arrival(1, other), event(1.5, "PodBound", pod="default/other", node="node-1"),
              arrival(2, pod("web")), event(2.5, "PodBound", pod="default/web", node="node-2")]
    code, data = replay_json(tmp_path, [node("node-1"), node("node-2")], events)
    assert code == 0
    assert [p["pod"] for p in data["pods"]] == ["default/web"]  # node-1 is full with the other scheduler's pod


def test_table_lists_the_differences(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_text(trace_text([node("node-1")], [arrival(1, pod("small"))]), encoding="utf-8")
    result = run_cli("replay", str(path))
    assert result.exit_code == 1
    assert "would schedule" in result.stdout and "default/small" in result.stdout


def test_bundled_trace_replays_as_recorded_and_differs_under_bin_packing() -> None:
    same = run_cli("replay", BUNDLED)
    assert same.exit_code == 0, same.stderr
    assert "6 same node" in same.stdout
    other = run_cli("replay", BUNDLED, "-c", BIN_PACKING, "-o", "yaml")
    assert other.exit_code == 1
    assert "kind: ReplayResult" in other.stdout and "change: differentNode" in other.stdout


# -- a bad trace: one line, file and line, exit 2 ----------------------------------------------------

HEADER = {"apiVersion": API_VERSION, "kind": "Trace", "started": "2027-01-15T08:00:00.000Z", "objects": 0}
GOOD_EVENT = {"type": "PodBound", "time": "2027-01-15T08:00:01.000Z", "pod": "default/web", "node": "node-1"}


def _lines(*records: Any) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records)


BAD_TRACES = {
    "empty": ("", None, "an empty trace"),
    "not_json": (_lines("{not json"), 1, "not a JSON line"),
    "not_an_object": (_lines([1, 2]), 1, "a trace line is a JSON object, not list"),
    "not_a_trace": (_lines({"apiVersion": "v1", "kind": "List"}), 1, "not a trace"),
    "no_start_time": (_lines({**HEADER, "started": "yesterday"}), 1, "started must be an RFC 3339 time"),
    "unknown_event": (_lines(HEADER, {"type": "PodExploded", "time": "2027-01-15T08:00:01Z"}), 2,
                      "unknown event type 'PodExploded'"),
    "missing_field": (_lines(HEADER, {**GOOD_EVENT, "node": None}), 2, "PodBound: node must be a non-empty string"),
    "bad_time": (_lines(HEADER, GOOD_EVENT, {**GOOD_EVENT, "time": "08:00"}), 3, "time must be an RFC 3339 time"),
    "bad_pod_key": (_lines(HEADER, {**GOOD_EVENT, "pod": "web"}), 2, "pod must be NAMESPACE/NAME"),
    "object_after_events": (_lines({**HEADER, "objects": 1}, GOOD_EVENT, {"type": "Object", "object": node("n")}), 3,
                            "an Object line after the first event"),
    "truncated": (_lines({**HEADER, "objects": 2}, {"type": "Object", "object": node("n")}), None,
                  "the header announces 2 objects, the file holds 1"),
    "after_end": (_lines(HEADER, {"type": "End", "time": "2027-01-15T08:00:09Z"}, GOOD_EVENT), 3,
                  "a line after the End line"),
    "wrong_object_kind": (_lines(HEADER, {"type": "NodeAdded", "time": "2027-01-15T08:00:01Z", "object": pod("p")}),
                          2, "NodeAdded: the object is a Pod, not a Node"),
    "object_of_another_pod": (_lines(HEADER, {"type": "PodCreated", "time": "2027-01-15T08:00:01Z",
                                              "pod": "default/a", "object": pod("b")}), 2,
                              "PodCreated: pod default/a but the object is default/b"),
    "unknown_field": (_lines({**HEADER, "objects": 1},
                             {"type": "Object", "object": {**node("n"), "spec": {"unschedulabel": True}}}), 2,
                      'strict decoding error: unknown field "spec.unschedulabel"'),
    "invalid_object": (_lines({**HEADER, "objects": 1}, {"type": "Object", "object": {"kind": "Node"}}), 2,
                       "Node has no metadata.name"),
    "huge_number": (_lines(HEADER, '{"type": "PodBound", "x": ' + "9" * 5000 + "}"), 2, "not a JSON line"),
    "deep": (_lines(HEADER, "[" * 100_000 + "]" * 100_000), 2, "nested deeper than 200 levels"),
    # issue 43: shapes that ended in an internal error, fields nothing reads, a line no event needs
    "type_is_a_list": (_lines(HEADER, {**GOOD_EVENT, "type": ["PodBound"]}), 2, 'type must be a string, not ["PodBound"]'),
    "status_is_a_string": (_lines(HEADER, {"type": "PodCreated", "time": "2027-01-15T08:00:01Z", "pod": "default/p",
                                           "object": {**pod("p"), "status": "Pending"}}), 2,
                           "PodCreated: status must be a mapping, not 'Pending'"),
    "spec_is_an_integer": (_lines(HEADER, {"type": "PodUpdated", "time": "2027-01-15T08:00:01Z", "pod": "default/p",
                                           "object": {**pod("p"), "spec": 1}}), 2,
                           "PodUpdated: spec must be a mapping, not 1"),
    "metadata_is_a_string": (_lines(HEADER, {"type": "PodCreated", "time": "2027-01-15T08:00:01Z", "pod": "default/p",
                                             "object": {**pod("p"), "metadata": "p"}}), 2,
                             "PodCreated: metadata must be a mapping, not 'p'"),
    "node_taints_not_a_list": (_lines(HEADER, {"type": "NodeUpdated", "time": "2027-01-15T08:00:01Z",
                                               "object": node("n", taints=1)}), 2, "NodeUpdated: spec.taints must be"),
    "unknown_event_field": (_lines(HEADER, {**GOOD_EVENT, "padding": "x"}), 2, "PodBound: unknown field 'padding'"),
    "unknown_end_field": (_lines(HEADER, {"type": "End", "time": "2027-01-15T08:00:09Z", "x": 1}), 2,
                          "End: unknown field 'x'"),
    "unknown_object_line_field": (_lines({**HEADER, "objects": 1}, {"type": "Object", "object": node("n"), "x": 1}),
                                  2, "an Object line: unknown field 'x'"),
    "unknown_header_field": (_lines({**HEADER, "x": 1}), 1, "header: unknown field 'x'"),
    "resync_not_a_boolean": (_lines(HEADER, {**GOOD_EVENT, "resync": "yes"}), 2, "resync must be true or false"),
    "deletion_reason_not_a_string": (_lines(HEADER, {"type": "PodDeleted", "time": "2027-01-15T08:00:01Z",
                                                     "pod": "default/p", "reason": 1}), 2,
                                     "PodDeleted: reason must be a string, not 1"),
    "line_of_15_mib": (_lines(HEADER, {**GOOD_EVENT, "pod": "default/" + "x" * (15 * 2**20)}), 2,
                       "the line is longer than 3 MiB, the limit for one trace line"),
}


@pytest.mark.parametrize("text,line,message", BAD_TRACES.values(), ids=BAD_TRACES.keys())
def test_a_bad_trace_is_refused_with_its_file_and_line(tmp_path: Path, text: str, line: int | None,
                                                       message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text, encoding="utf-8")
    result = run_cli("replay", str(path))
    assert result.exit_code == 2, result.stdout
    where = f"{path}:{line}: " if line else f"{path}: "
    assert result.stderr.startswith(f"error: {where}"), result.stderr
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_a_missing_trace_is_bad_input(tmp_path: Path) -> None:
    result = run_cli("replay", str(tmp_path / "nope.jsonl"))
    assert result.exit_code == 2 and result.stderr.startswith(f"error: {tmp_path / 'nope.jsonl'}: cannot read")


# -- a trace as the workload of diff and sweep ---------------------------------------------------------


def test_diff_replays_a_trace_under_both_sides() -> None:
    result = run_cli("diff", "-c", BIN_PACKING, "-c", str(REPO / "profiles" / "spreading.yaml"), BUNDLED, "-o", "json")
    assert result.exit_code == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["kind"] == "DiffResult" and data["summary"]["pods"] == 6 and data["summary"]["moved"] >= 1
    same = run_cli("diff", "--profile", "default-scheduler", "--profile", "default-scheduler", BUNDLED)
    assert same.exit_code == 0, same.stderr


def test_diff_takes_one_trace_and_no_pod_files() -> None:
    result = run_cli("diff", "-c", BIN_PACKING, "-c", BIN_PACKING, BUNDLED, str(REPO / "fixtures" / "pods" / "pod.yaml"))
    assert result.exit_code == 2 and "one trace" in result.stderr


def test_diff_of_a_trace_refuses_node_what_ifs() -> None:
    # a trace replays its own node changes: a what-if flag would be silently dropped
    result = run_cli("diff", "-c", BIN_PACKING, "-c", BIN_PACKING, BUNDLED, "--cordon", "node-a1")
    assert result.exit_code == 2, result.stderr
    assert result.stderr == "error: node what-ifs do not apply to a trace: its node changes are replayed as recorded\n"


def test_sweep_takes_a_trace_as_cluster_and_workload(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    result = run_cli("sweep", "profiles/sweeps/replay.yaml", "-o", "json", "--no-timings", "-j", "1")
    assert result.exit_code == 0, result.stderr
    cells = json.loads(result.stdout)["cells"]
    assert len(cells) == 3 and all(c["error"] is None and c["metrics"]["scheduled"] == 6 for c in cells)


def test_sweep_reads_a_trace_only_inside_the_scenario_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "t.jsonl").write_text(Path(BUNDLED).read_text(encoding="utf-8"), encoding="utf-8")
    root = tmp_path / "root"
    root.mkdir()
    (root / "sweep.yaml").write_text(
        "apiVersion: kschedctl/v1\nkind: Sweep\nconfigs: [{name: default}]\n"
        f"clusters: [{REPO / 'fixtures' / 'cluster'}]\nworkloads: [../outside/t.jsonl]\n", encoding="utf-8")
    monkeypatch.chdir(root)
    result = run_cli("sweep", "sweep.yaml", "-o", "json", "-j", "1", "--allow-outside-paths")
    assert result.exit_code == 0, result.stderr
    (root / "sweep.yaml").write_text(
        "apiVersion: kschedctl/v1\nkind: Sweep\nconfigs: [{name: default}]\n"
        "clusters: [../outside/t.jsonl]\nworkloads: [../outside/t.jsonl]\n", encoding="utf-8")
    result = run_cli("sweep", "sweep.yaml", "-o", "json", "-j", "1")
    assert result.exit_code == 1
    error = json.loads(result.stdout)["cells"][0]["error"]
    assert "t.jsonl" in error and "outside the scenario root" in error


def test_a_claim_created_later_lets_its_pod_in(tmp_path: Path) -> None:
    volume = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-1"},
              "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/d"},
                       "claimRef": {"namespace": "default", "name": "data"}},
              "status": {"phase": "Bound"}}
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "default"},
             "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
                      "volumeName": "pv-1"},
             "status": {"phase": "Bound"}}
    app = pod("app", volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}])
    events = [arrival(1, app), event(2, "ObjectAdded", object=claim),
              event(2.5, "PodBound", pod="default/app", node="node-1")]
    code, data = replay_json(tmp_path, [node("node-1"), volume], events)
    assert code == 0, data
    replayed = by_pod(data)["default/app"]["replay"]
    assert replayed["node"] == "node-1" and replayed["boundAt"] == 2.0


def test_an_event_the_loaders_refuse_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_text(trace_text([node("node-1")], [arrival(1, pod("web", priorityClassName="no-such-class"))]),
                    encoding="utf-8")
    result = run_cli("replay", str(path))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {path}:3: ") and "no-such-class" in result.stderr, result.stderr


def test_a_pending_pod_whose_scheduling_gate_is_removed_is_scheduled_then(tmp_path: Path) -> None:
    gated = pod("gated", schedulingGates=[{"name": "example.com/quota"}])
    events = [arrival(1, gated), event(5, "PodUpdated", pod="default/gated", object=pod("gated")),
              event(5.2, "PodBound", pod="default/gated", node="node-1")]
    code, data = replay_json(tmp_path, [node("node-1")], events)
    assert code == 0, data
    assert by_pod(data)["default/gated"]["replay"] == {"outcome": "Scheduled", "node": "node-1", "boundAt": 4.0 + 1.0,
                                                       "pendingSeconds": 4.0}
