"""kschedctl's live commands against a real kube-apiserver v1.34.4, with a token bound only to the
ClusterRole the README documents ("What kschedctl reads, and the RBAC it needs"): that role is
enough, and the audit log shows kschedctl sent nothing but get, list and watch. ``snapshot`` and
``explain --kubeconfig``; ``explain --pending`` against the PodScheduled conditions the real
kube-scheduler wrote; ``record`` while it binds, preempts and draws among ties, and ``replay`` of
that trace against its bindings. What a real server cannot easily be made to do (410 Gone,
dropped connections, forbidden watches) stays with the fake server of tests/live."""

from __future__ import annotations

import contextlib
import io
import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from benchmarks import realcluster
from benchmarks.differential import run_kschedctl
from tests.cli.helpers import with_default_sigint

ROOT = Path(__file__).resolve().parents[2]
READER = "kschedctl-reader"

CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: live-a, labels: {kubernetes.io/hostname: live-a}}
spec: {}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}, capacity: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: live-b, labels: {kubernetes.io/hostname: live-b}}
spec: {}
status: {allocatable: {cpu: "1", memory: 2Gi, pods: "110"}, capacity: {cpu: "1", memory: 2Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: running, namespace: default}
spec:
  nodeName: live-a
  containers: [{name: c, image: app:1, resources: {requests: {cpu: 1500m}}}]
status: {phase: Running, startTime: "2026-01-01T00:00:00Z"}
"""

POD = """
apiVersion: v1
kind: Pod
metadata: {name: probe, namespace: default}
spec:
  containers: [{name: c, image: app:1, resources: {requests: {cpu: 800m}}}]
"""


def _kschedctl(args: list[str]) -> tuple[int, str]:
    from kschedctl.cli.app import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            main(args)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return code, err.getvalue()


def _readme_role() -> list[dict]:
    """The README's ClusterRole and binding, the binding's subject made the reader token's user."""
    text = (ROOT / "README.md").read_text()
    section = text.split("### What kschedctl reads, and the RBAC it needs", 1)[1]
    block = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert block, "the README's RBAC section has no YAML block"
    docs = list(yaml.safe_load_all(block.group(1)))
    for doc in docs:
        if doc["kind"] == "ClusterRoleBinding":
            doc["subjects"] = [{"kind": "User", "name": READER, "apiGroup": "rbac.authorization.k8s.io"}]
    return docs


@pytest.fixture(scope="module")
def reader(control_plane: realcluster.ControlPlane) -> Path:
    api = control_plane.admin
    for doc in _readme_role():
        plural = "clusterroles" if doc["kind"] == "ClusterRole" else "clusterrolebindings"
        api.request("DELETE", f"apis/rbac.authorization.k8s.io/v1/{plural}/{doc['metadata']['name']}",
                    ok_missing=True)
        api.request("POST", f"apis/rbac.authorization.k8s.io/v1/{plural}", doc)
    control_plane.stop_scheduler()
    control_plane.clear()
    control_plane.load(yaml.safe_load_all(CLUSTER))
    return control_plane.kubeconfig(realcluster.READER_TOKEN, READER)


def _reader_requests(control_plane: realcluster.ControlPlane) -> list[dict]:
    events = [json.loads(line) for line in control_plane.audit_log.read_text().splitlines() if line.strip()]
    return [e for e in events if e.get("user", {}).get("username") == READER and e.get("stage") == "ResponseComplete"]


def test_snapshot_and_explain_read_a_real_api_server_with_the_documented_role(
        control_plane: realcluster.ControlPlane, reader: Path, tmp_path: Path) -> None:
    snap = tmp_path / "snapshot.yaml"
    code, err = _kschedctl(["snapshot", "--kubeconfig", str(reader), "--file", str(snap)])
    assert code == 0, err
    kinds = sorted({d["kind"] for d in yaml.safe_load_all(snap.read_text()) if d})
    assert "Node" in kinds and "Pod" in kinds
    (tmp_path / "pod.yaml").write_text(POD)
    live = run_kschedctl(["explain", str(tmp_path / "pod.yaml"), "--kubeconfig", str(reader), "-o", "json"])
    offline = run_kschedctl(["explain", str(tmp_path / "pod.yaml"), "--cluster", str(snap), "-o", "json"])
    assert live["outcome"] == offline["outcome"] == "Scheduled"
    assert live["selectedNode"] == offline["selectedNode"] == "live-b"
    requests = _reader_requests(control_plane)
    assert requests, "the audit log has no request from the reader"
    assert {e["verb"] for e in requests} <= {"get", "list", "watch"}
    forbidden = [(e["verb"], e["requestURI"]) for e in requests if e.get("responseStatus", {}).get("code") == 403]
    assert forbidden == []


def test_the_real_scheduler_places_the_probe_where_live_explain_said(
        control_plane: realcluster.ControlPlane, reader: Path, tmp_path: Path) -> None:
    (tmp_path / "pod.yaml").write_text(POD)
    live = run_kschedctl(["explain", str(tmp_path / "pod.yaml"), "--kubeconfig", str(reader), "-o", "json"])
    real = realcluster.explain(control_plane, list(yaml.safe_load_all(CLUSTER)), list(yaml.safe_load_all(POD)), None)
    assert realcluster.compare(live, real) == []


# -- explain --pending: the pods the real scheduler left pending, message for message ----------------

PENDING = """
apiVersion: v1
kind: Node
metadata: {name: pend-a, labels: {kubernetes.io/hostname: pend-a, disk: hdd}}
spec: {}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}, capacity: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: pend-b, labels: {kubernetes.io/hostname: pend-b, disk: hdd}}
spec:
  taints: [{key: dedicated, value: gpu, effect: NoSchedule}]
status: {allocatable: {cpu: "1", memory: 2Gi, pods: "110"}, capacity: {cpu: "1", memory: 2Gi, pods: "110"}}
---
apiVersion: v1
kind: Namespace
metadata: {name: pend-other}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: pend-high}
value: 1000
---
apiVersion: v1
kind: Pod
metadata: {name: running, namespace: default}
spec:
  nodeName: pend-a
  terminationGracePeriodSeconds: 30   # preempted, it stays Terminating: no kubelet ends it
  containers: [{name: c, image: app:1, resources: {requests: {cpu: 1500m}}}]
status: {phase: Running, startTime: "2026-01-01T00:00:00Z"}
---
apiVersion: v1
kind: Pod
metadata: {name: preemptor, namespace: default}
spec:
  priorityClassName: pend-high
  containers: [{name: c, image: app:1, resources: {requests: {cpu: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: gated, namespace: default}
spec:
  schedulingGates: [{name: example.com/approval}]
  containers: [{name: c, image: app:1}]
---
apiVersion: v1
kind: Pod
metadata: {name: too-big, namespace: default}
spec:
  containers: [{name: c, image: app:1, resources: {requests: {cpu: "3"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: wants-ssd, namespace: default}
spec:
  nodeSelector: {disk: ssd}
  containers: [{name: c, image: app:1}]
---
apiVersion: v1
kind: Pod
metadata: {name: taint-and-cpu, namespace: default}
spec:
  containers: [{name: c, image: app:1, resources: {requests: {cpu: 800m}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: too-much-memory, namespace: pend-other}
spec:
  tolerations: [{key: dedicated, operator: Exists}]
  containers: [{name: c, image: app:1, resources: {requests: {memory: 5Gi}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: fits, namespace: default}
spec:
  tolerations: [{key: dedicated, operator: Exists}]
  containers: [{name: c, image: app:1, resources: {requests: {cpu: 100m}}}]
"""


def _audited(control_plane: realcluster.ControlPlane, since: int) -> list[dict]:
    """The reader's requests in the audit log after its first ``since`` lines."""
    lines = control_plane.audit_log.read_text().splitlines()[since:]
    events = [json.loads(line) for line in lines if line.strip()]
    return [e for e in events if e.get("user", {}).get("username") == READER and e.get("stage") == "ResponseComplete"]


def _audit_mark(control_plane: realcluster.ControlPlane) -> int:
    return len(control_plane.audit_log.read_text().splitlines())


def _only_reads(requests: list[dict]) -> None:
    assert requests, "the audit log has no request from the reader"
    assert {e["verb"] for e in requests} <= {"get", "list", "watch"}, {(e["verb"], e["requestURI"]) for e in requests}
    forbidden = sorted({(e["verb"], e["requestURI"]) for e in requests
                        if e.get("responseStatus", {}).get("code") == 403})
    assert forbidden == [], "the README's ClusterRole does not cover: " + repr(forbidden)


def test_explain_pending_gives_the_real_schedulers_messages(control_plane: realcluster.ControlPlane, reader: Path,
                                                            tmp_path: Path) -> None:
    docs = list(yaml.safe_load_all(PENDING))
    control_plane.stop_scheduler()
    control_plane.clear()
    created = control_plane.load(docs)
    pending = [p for p in created if not p["spec"].get("nodeName")]
    control_plane.start_scheduler()
    first = realcluster.wait_decisions(control_plane, pending)
    assert first["default/fits"]["outcome"] == "Scheduled"
    assert first["default/preemptor"]["nominatedNode"] == "pend-a", first["default/preemptor"]
    # The preemptor's condition still holds the attempt that nominated it; kschedctl answers the
    # next attempt, which a restarted scheduler makes at once (its victim is still terminating).
    control_plane.start_scheduler()
    retried = _until(lambda: "terminating pod" in (realcluster.decision(
        control_plane.pod("default", "preemptor")) or {}).get("message", ""), "the preemptor's retry")
    assert retried
    control_plane.stop_scheduler()  # what kschedctl reads no longer moves
    real = {k: realcluster.decision(control_plane.pod(*k.split("/"))) for k in first}
    unschedulable = {k: v for k, v in real.items() if v and v["outcome"] == "Unschedulable"}
    assert len(unschedulable) == 5, real
    mark = _audit_mark(control_plane)
    ours = run_kschedctl(["explain", "--pending", "-A", "--kubeconfig", str(reader), "-o", "json"])
    assert "error" not in ours, ours
    items = ours["items"] if ours.get("kind", "").endswith("List") else [ours]
    verdicts = {i["pod"]: (i["outcome"], i["message"]) for i in items}
    # A gated pod's condition is the API server's (reason SchedulingGated, written at creation);
    # kschedctl gives SchedulingGates' own status, which names the gates (docs/fidelity.md).
    assert real["default/gated"]["outcome"] == "SchedulingGated"
    assert verdicts.pop("default/gated") == ("Gated", "waiting for scheduling gates: [example.com/approval]")
    # the bound pod is not pending any more; each pending one as the real PodScheduled condition says
    assert verdicts == {k: (v["outcome"], v["message"]) for k, v in unschedulable.items()}
    _only_reads(_audited(control_plane, mark))
    one = run_kschedctl(["explain", "--pending", "-n", "pend-other", "--kubeconfig", str(reader), "-o", "json"])
    assert (one.get("pod"), one.get("message")) == ("pend-other/too-much-memory",
                                                    unschedulable["pend-other/too-much-memory"]["message"]), one


# -- record while the real scheduler binds pods, then replay ----------------------------------------

RECORDED = """
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: rec-high}
value: 1000
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: rec-top}
value: 2000
""" + "".join(f"""---
apiVersion: v1
kind: Node
metadata: {{name: rec-{n}, labels: {{kubernetes.io/hostname: rec-{n}}}}}
spec: {{}}
status: {{allocatable: {{cpu: "2", memory: 4Gi, pods: "110"}}, capacity: {{cpu: "2", memory: 4Gi, pods: "110"}}}}
""" for n in (1, 2, 3, 4)) + "".join(f"""---
apiVersion: v1
kind: Pod
metadata: {{name: low-{n}, namespace: default}}
spec:
  nodeName: rec-{n}
  terminationGracePeriodSeconds: 0
  containers: [{{name: c, image: app:1, resources: {{requests: {{cpu: 1500m}}}}}}]
status: {{phase: Running, startTime: "2026-01-01T00:00:00Z"}}
""" for n in (3, 4))


def _pod(name: str, cpu: str, priority_class: str | None = None) -> dict:
    spec: dict = {"terminationGracePeriodSeconds": 0,
                  "containers": [{"name": "c", "image": "app:1", "resources": {"requests": {"cpu": cpu}}}]}
    if priority_class:
        spec["priorityClassName"] = priority_class
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def _until(check: Any, what: str, timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _bound(control_plane: realcluster.ControlPlane, *names: str) -> dict[str, str]:
    def check() -> dict[str, str] | None:
        pods = {n: control_plane.pod("default", n) for n in names}
        nodes = {n: (p or {}).get("spec", {}).get("nodeName") for n, p in pods.items()}
        return nodes if all(nodes.values()) else None
    return _until(check, f"{', '.join(names)} bound")


def _start_record(reader: Path, trace: Path, *extra: str) -> subprocess.Popen:
    """``kschedctl record`` as a user runs it, returned once it watches (its stderr said so)."""
    proc = subprocess.Popen([sys.executable, "-m", "kschedctl", "record", "--kubeconfig", str(reader), "-o",
                             str(trace), *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT, preexec_fn=with_default_sigint)
    seen = []
    for line in proc.stderr:  # type: ignore[union-attr]
        seen.append(line)
        if line.startswith("recording "):
            return proc
    proc.wait(timeout=30)
    raise AssertionError(f"record exited {proc.returncode} before watching: {''.join(seen)[-1500:]}")


def test_record_while_the_real_scheduler_binds_then_replay_reproduces_it(
        control_plane: realcluster.ControlPlane, reader: Path, tmp_path: Path) -> None:
    control_plane.stop_scheduler()
    control_plane.clear()
    control_plane.load(yaml.safe_load_all(RECORDED))
    control_plane.start_scheduler()
    trace = tmp_path / "trace.jsonl"
    mark = _audit_mark(control_plane)
    proc = _start_record(reader, trace)
    try:
        create = control_plane.create
        create(_pod("unfit", "3"))
        _until(lambda: realcluster.decision(control_plane.pod("default", "unfit")), "unfit to be unschedulable")
        create(_pod("a", "1", "rec-high"))  # rec-1 and rec-2 tie: a random draw
        _bound(control_plane, "a")
        create(_pod("b", "1", "rec-high"))  # the other one, by score
        _bound(control_plane, "b")
        # fits nowhere; rec-3 and rec-4 each need their low pod gone, equal on every criterion, so
        # the nominated node is random (rec-1 and rec-2 would lose a or b, of a higher priority)
        create(_pod("c", "1500m", "rec-top"))
        _bound(control_plane, "c")
        for n in range(4):  # a burst, scheduled in queue order
            create(_pod(f"burst-{n}", "100m"))
        real = _bound(control_plane, "a", "b", "c", *(f"burst-{n}" for n in range(4)))
        time.sleep(1)  # the last bindings reach the recorder's watch
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "interrupted: wrote" in err
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    assert lines[-1]["type"] == "End" and lines[-1]["reason"] == "interrupted"
    _only_reads(_audited(control_plane, mark))
    assert any(e["verb"] == "watch" for e in _audited(control_plane, mark))

    victim = next(line["pod"] for line in lines if line.get("type") == "PodDeleted")
    nominated = real["c"]
    assert victim == f"default/low-{nominated[-1]}"
    for seed in ("0", "1", "2"):
        data = run_kschedctl(["replay", str(trace), "--seed", seed, "-o", "json"])
        assert "error" not in data, data
        pods = {p["pod"]: p for p in data["pods"]}
        assert {k.split("/")[1]: p["replay"]["node"] for k, p in pods.items() if p["replay"]["node"]} == real
        assert pods["default/unfit"]["change"] == "bothPending"
        assert pods["default/unfit"]["replay"]["message"] == realcluster.decision(
            control_plane.pod("default", "unfit"))["message"]
        assert pods["default/a"]["change"] == "tie" and pods["default/a"]["replay"]["tiedNodes"] == ["rec-1", "rec-2"]
        assert pods["default/c"]["change"] == "tie" and pods["default/c"]["replay"]["tiedNodes"] == ["rec-3", "rec-4"]
        assert data["summary"]["differences"] == 0, data["summary"]
        actual, replayed = data["preemptions"]["actual"], data["preemptions"]["replay"]
        assert [(p["pod"], p["node"], p["victims"]) for p in actual] == [("default/c", nominated, [victim])]
        assert [(p["pod"], p["node"], p["victims"]) for p in replayed] == [("default/c", nominated, [victim])]


def test_record_for_a_duration_ends_by_itself(control_plane: realcluster.ControlPlane, reader: Path,
                                              tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    mark = _audit_mark(control_plane)
    proc = _start_record(reader, trace, "--duration", "2s")
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "done: wrote" in err
    end = json.loads(trace.read_text().splitlines()[-1])
    assert end["type"] == "End" and end["reason"] == "duration"
    _only_reads(_audited(control_plane, mark))
