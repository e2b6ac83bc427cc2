"""kschedctl's live commands against a real kube-apiserver v1.34.4, with a token bound only to the
ClusterRole the README documents ("What kschedctl reads, and the RBAC it needs"): that role is
enough, and the audit log shows kschedctl sent nothing but get, list and watch."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest
import yaml

from benchmarks import realcluster
from benchmarks.differential import run_kschedctl

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
apiVersion: v1
kind: Pod
metadata: {name: running, namespace: default}
spec:
  nodeName: pend-a
  terminationGracePeriodSeconds: 0
  containers: [{name: c, image: app:1, resources: {requests: {cpu: 1500m}}}]
status: {phase: Running, startTime: "2026-01-01T00:00:00Z"}
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
    real = realcluster.wait_decisions(control_plane, pending)
    control_plane.stop_scheduler()  # what kschedctl reads no longer moves
    assert real["default/fits"]["outcome"] == "Scheduled"
    unschedulable = {k: v for k, v in real.items() if v["outcome"] == "Unschedulable"}
    assert len(unschedulable) == 4, real
    mark = _audit_mark(control_plane)
    ours = run_kschedctl(["explain", "--pending", "-A", "--kubeconfig", str(reader), "-o", "json"])
    assert "error" not in ours, ours
    items = ours["items"] if ours.get("kind", "").endswith("List") else [ours]
    verdicts = {i["pod"]: (i["outcome"], i["message"]) for i in items}
    # the bound pod is not pending any more; each pending one as the real PodScheduled condition says
    assert verdicts == {k: (v["outcome"], v["message"]) for k, v in unschedulable.items()}
    _only_reads(_audited(control_plane, mark))
    one = run_kschedctl(["explain", "--pending", "-n", "pend-other", "--kubeconfig", str(reader), "-o", "json"])
    assert (one.get("pod"), one.get("message")) == ("pend-other/too-much-memory",
                                                    unschedulable["pend-other/too-much-memory"]["message"]), one
