"""``kschedctl record`` against the fake API server with watches, and the trace replayed.

The fake cluster's life (tests/live/trace_scenario.py) binds every pod where the default profile
puts it; along the way the watches get a bookmark, a dropped connection and a 410 Gone. The
recorded trace must replay to those very bindings under the default profile, and to others
under bin-packing. Only GET requests, no credentials and no secret-bearing fields anywhere.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Iterator

import pytest

from kschedctl.inputs.trace import read_trace
from tests.cli.helpers import run_cli
from tests.live.server import TOKEN, FakeApiServer
from tests.live.trace_scenario import DEFAULT_PLACEMENTS, initial_objects, record

REPO = Path(__file__).resolve().parents[2]
BIN_PACKING = str(REPO / "profiles" / "bin-packing.yaml")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[FakeApiServer, Path, object]]:
    """One recording of the scenario, shared by the tests of this module (it takes a few seconds)."""
    tmp = tmp_path_factory.mktemp("record")
    saved = {k: os.environ.get(k) for k in ("NO_PROXY", "no_proxy", "KUBECONFIG", "HTTP_PROXY", "HTTPS_PROXY")}
    os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"
    for k in ("KUBECONFIG", "HTTP_PROXY", "HTTPS_PROXY"):
        os.environ.pop(k, None)
    try:
        with FakeApiServer(objects=initial_objects()) as server:
            kubeconfig = str(server.write_kubeconfig(tmp / "kubeconfig"))
            trace = tmp / "trace.jsonl"
            result = record(server, kubeconfig, trace)
            yield server, trace, result
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def test_record_sends_only_gets_and_writes_a_private_trace(recorded: tuple) -> None:
    server, trace, result = recorded
    assert result.exit_code == 0, result.stderr
    assert server.methods() == {"GET"}
    assert not any("/secrets" in p or "/configmaps" in p for p in server.paths())
    assert stat.S_IMODE(trace.stat().st_mode) == 0o600
    text = trace.read_text(encoding="utf-8")
    for secret in (TOKEN, "hunter2-trace-password", "last-applied-secret-value", "managedFields"):
        assert secret not in text and secret not in result.stderr
    assert "Traceback" not in result.stderr
    assert f"wrote {trace}" in result.stderr
    assert not [p for p in trace.parent.iterdir() if p.name.endswith(".tmp")]


def test_watches_ask_for_bookmarks_and_resume_from_them(recorded: tuple) -> None:
    server, _, _ = recorded
    watches = server.watches()
    assert {w.path for w in watches} >= {"/api/v1/nodes", "/api/v1/pods"}
    assert all(w.query.get("allowWatchBookmarks") == ["true"] for w in watches)
    assert all(w.query.get("resourceVersion") for w in watches)
    pods = [w for w in watches if w.path == "/api/v1/pods"]
    assert pods[0].query["fieldSelector"] == ["status.phase!=Succeeded,status.phase!=Failed"]
    # no node changed before the connections dropped: the node watch reopened from the bookmark's version
    nodes = [int(w.query["resourceVersion"][0]) for w in watches if w.path == "/api/v1/nodes"]
    assert nodes[0] == 5000 and nodes[1] > 5000


def test_the_trace_holds_arrivals_bindings_deletions_and_the_resync(recorded: tuple) -> None:
    _, path, result = recorded
    trace = read_trace(str(path))
    assert trace.header["apiVersion"] == "kschedctl.io/trace/v1"
    assert {obj["metadata"]["name"] for obj, _ in trace.objects} == {"node-1", "node-2", "db-0", "batch-0"}
    bound = {e.pod: e.node for e in trace.events if e.type == "PodBound"}
    assert bound == DEFAULT_PLACEMENTS
    arrivals = [e.pod for e in trace.events if e.type == "PodCreated"]
    assert arrivals == ["default/web-1", "default/web-2", "default/big-1", "default/huge-1", "default/web-3"]
    assert [e.pod for e in trace.events if e.type == "PodDeleted"] == ["default/db-0"]
    assert [e.object["metadata"]["name"] for e in trace.events if e.type == "NodeAdded"] == ["node-3"]
    assert {e.data["kind"] for e in trace.events if e.type == "Resync"} >= {"Node", "Pod"}  # 410 Gone
    assert trace.end_reason == "duration"
    assert "reconnects" in result.stderr  # the dropped connection


def test_the_trace_replays_to_the_recorded_bindings_under_the_same_profile(recorded: tuple) -> None:
    _, trace, _ = recorded
    result = run_cli("replay", str(trace), "-o", "json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert {p["pod"]: p["replay"]["node"] for p in data["pods"]} == DEFAULT_PLACEMENTS
    assert {p["change"] for p in data["pods"]} == {"same"}
    assert data["summary"]["differences"] == 0


def test_the_trace_replays_to_other_placements_under_bin_packing(recorded: tuple) -> None:
    _, trace, _ = recorded
    result = run_cli("replay", str(trace), "-c", BIN_PACKING, "-o", "json")
    assert result.exit_code == 1, result.stderr
    data = json.loads(result.stdout)
    replayed = {p["pod"]: p["replay"]["node"] for p in data["pods"]}
    assert replayed["default/batch-0"] == "node-1"  # the fuller node: MostAllocated
    assert replayed != DEFAULT_PLACEMENTS
    assert data["summary"]["differentNode"] >= 1


def test_ctrl_c_ends_the_recording_with_a_valid_trace(server: FakeApiServer, kubeconfig: str, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from kschedctl.inputs import recorder

    original = recorder.Recorder.run

    def interrupted_run(self: recorder.Recorder, until: float | None, on_tick=None, tick: float = 1.0) -> str:
        def press_ctrl_c() -> None:
            raise KeyboardInterrupt
        return original(self, until, on_tick=press_ctrl_c, tick=0.05)

    monkeypatch.setattr(recorder.Recorder, "run", interrupted_run)
    out = tmp_path / "trace.jsonl"
    result = run_cli("record", "--kubeconfig", kubeconfig, "-o", str(out))
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines()[-1].startswith(f"interrupted: wrote {out}")
    trace = read_trace(str(out))
    assert trace.end_reason == "interrupted" and trace.objects
    assert server.methods() == {"GET"}


@pytest.mark.parametrize("problem", ["bad-token", "no-server"])
def test_a_recording_that_cannot_start_writes_nothing(server: FakeApiServer, tmp_path: Path, problem: str) -> None:
    kubeconfig = server.write_kubeconfig(tmp_path / "kubeconfig", token="wrong-token-123456")
    if problem == "no-server":
        kubeconfig = server.write_kubeconfig(tmp_path / "kubeconfig")
        server.stop()
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    result = run_cli("record", "--kubeconfig", str(kubeconfig), "--duration", "1s", "-o", str(out_dir / "t.jsonl"))
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1 and result.stderr.startswith("error: ")
    assert "wrong-token-123456" not in result.stderr
    assert list(out_dir.iterdir()) == []  # not even a temporary file


@pytest.mark.parametrize("value", ["0s", "soon", "-5m"])
def test_duration_must_be_a_positive_duration(value: str, tmp_path: Path) -> None:
    result = run_cli("record", "--duration", value, "-o", str(tmp_path / "t.jsonl"))
    assert result.exit_code == 2
    assert "--duration" in result.stderr


def test_nominations_node_changes_and_volumes_are_recorded(tmp_path: Path) -> None:
    """What the first scenario does not show: a nomination, a node heartbeat (not recorded) and a
    label change (recorded), a pod that succeeds, a PersistentVolumeClaim created and deleted."""
    import threading
    import time

    from tests.live.trace_scenario import _wait, node, pod

    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "default"},
             "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}
    with FakeApiServer(objects=[node("node-1"), pod("job-0", "1", "2Gi", "node-1")]) as server:
        kubeconfig = str(server.write_kubeconfig(tmp_path / "kubeconfig"))

        def play() -> None:
            _wait(lambda: len(server.watches()) >= 4)
            server.create(pod("critical", "4", "8Gi"))
            time.sleep(0.2)
            server.nominate("critical", "node-1")
            server.update("Node", "node-1", lambda n: n["status"]["conditions"][0].__setitem__(
                "lastHeartbeatTime", "2026-11-26T05:00:00Z"))
            server.update("Node", "node-1", lambda n: n["metadata"]["labels"].__setitem__("pool", "batch"))
            server.update("Pod", "job-0", lambda p: p["status"].__setitem__("phase", "Succeeded"), "default")
            server.create(claim)
            time.sleep(0.2)
            server.delete("PersistentVolumeClaim", "data", "default")

        thread = threading.Thread(target=play, daemon=True)
        thread.start()
        out = tmp_path / "trace.jsonl"
        result = run_cli("record", "--kubeconfig", kubeconfig, "--duration", "3s", "-o", str(out), "--quiet")
        thread.join(timeout=20)
        assert result.exit_code == 0 and result.stderr == "", result.stderr
    # each kind has its own watch: events keep their order within a kind
    by_kind: dict[str, list[tuple[str, str]]] = {}
    for e in read_trace(str(out)).events:
        name = e.data.get("pod") or e.data.get("node") or e.data.get("name") or e.object["metadata"]["name"]
        by_kind.setdefault(e.type[:3], []).append((e.type, name))
    assert by_kind == {
        "Pod": [("PodCreated", "default/critical"), ("PodNominated", "default/critical"),
                ("PodDeleted", "default/job-0")],  # succeeded: the scheduler's informer drops it
        "Nod": [("NodeUpdated", "node-1")],  # the label; the heartbeat alone is not recorded
        "Obj": [("ObjectAdded", "data"), ("ObjectDeleted", "default/data")]}


@pytest.mark.parametrize("plural,code", [("persistentvolumes", 0), ("pods", 2)])
def test_a_watch_rbac_forbids(server: FakeApiServer, kubeconfig: str, tmp_path: Path, plural: str, code: int) -> None:
    """A ClusterRole with list but without watch: nodes and pods are needed, volumes are not."""
    server.forbidden_watch.add(plural)
    out = tmp_path / "trace.jsonl"
    result = run_cli("record", "--kubeconfig", kubeconfig, "--duration", "1500ms", "-o", str(out))
    assert result.exit_code == code, result.stderr
    if code == 0:
        assert "warning: not allowed to watch persistentvolumes (PersistentVolume) (403 Forbidden): changes of " \
               "PersistentVolume objects are not recorded" in result.stderr
        assert read_trace(str(out)).end_reason == "duration"
    else:
        errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
        assert errors == [result.stderr.splitlines()[-1]]
        assert errors[0].startswith("error: not allowed to watch pods (Pod) (403 Forbidden): kschedctl record "
                                    "needs the verb watch")
        assert not out.exists()


def _condition(type_: str, status: str, reason: str | None) -> dict:
    out = {"type": type_, "status": status}
    if reason is not None:
        out["reason"] = reason
    return out


# A deleted pod's DisruptionTarget condition: the reason its deleter gave (preemption's victims).
DISRUPTIONS = {
    "preempted": ([_condition("DisruptionTarget", "True", "PreemptionByScheduler")], "PreemptionByScheduler"),
    "evicted": ([_condition("Ready", "True", None), _condition("DisruptionTarget", "True", "EvictionByEvictionAPI")],
                "EvictionByEvictionAPI"),
    "condition_false": ([_condition("DisruptionTarget", "False", "PreemptionByScheduler")], None),
    "no_reason": ([_condition("DisruptionTarget", "True", None)], None),
    "other_conditions_only": ([_condition("PodScheduled", "True", "Scheduled")], None),
    "no_conditions": (None, None),
}


@pytest.mark.parametrize("conditions,reason", DISRUPTIONS.values(), ids=DISRUPTIONS.keys())
def test_a_deleted_pods_disruption_reason(conditions: list | None, reason: str | None) -> None:
    from kschedctl.inputs.recorder import disruption_reason

    pod = {"kind": "Pod", "metadata": {"name": "p"}, "status": {} if conditions is None else {"conditions": conditions}}
    assert disruption_reason(pod) == reason
