"""The live workflow end to end: the real ``kubernetes`` client against a fake API server on 127.0.0.1.

Explain reads the cluster, snapshot writes it down, ``--cluster`` replays the snapshot, and the
answers are the same. Along the way: only GET requests, never the token in any output, and each
failure mode (403 on an optional kind, 403 on pods, 401, unreachable server, no kubeconfig)
explained in one line with exit code 2, or a warning where kschedctl can carry on.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
import yaml

from tests.cli.helpers import CliResult, run_cli
from tests.live.server import TOKEN, FakeApiServer

REPO = Path(__file__).resolve().parents[2]
BUNDLED_PODS = sorted(str(p) for p in (REPO / "fixtures" / "pods").glob("*.yaml"))
FIXTURE_CLUSTER = str(REPO / "fixtures" / "cluster")


def pending_pod(name: str, namespace: str = "default", cpu: str = "500m", **spec: object) -> dict:
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "namespace": namespace, "labels": {"app": name}},
           "spec": {"containers": [{"name": "c", "image": "nginx:1.27",
                                    "env": [{"name": "DB_PASSWORD", "value": "hunter2-db-password"}],
                                    "command": ["run", "--password=hunter2-cli-password"],
                                    "resources": {"requests": {"cpu": cpu, "memory": "128Mi"}}}]},
           "status": {"phase": "Pending"}}
    pod["spec"].update(spec)
    return pod


def assert_clean(server: FakeApiServer, *results: CliResult) -> None:
    """The invariants of every live run: GET only, never a Secret, never the token in output."""
    assert server.methods() <= {"GET"}, server.methods()
    assert not any("/secrets" in p or "/configmaps" in p for p in server.paths())
    for r in results:
        assert TOKEN not in r.stdout and TOKEN not in r.stderr
        assert "Traceback" not in r.stderr


def explain_json(*args: str) -> tuple[CliResult, dict]:
    result = run_cli("explain", *args, "-o", "json", "--seed", "7")
    assert result.exit_code in (0, 1), result.stderr
    return result, json.loads(result.stdout)


# -- live == snapshot == files -------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_live_explain_equals_snapshot_replay(server: FakeApiServer, kubeconfig: str, tmp_path: Path,
                                             fmt: str) -> None:
    live, live_data = explain_json(*BUNDLED_PODS, "--kubeconfig", kubeconfig)
    snap_file = tmp_path / f"snapshot.{fmt}"
    snap = run_cli("snapshot", "--kubeconfig", kubeconfig, "-o", fmt, "--file", str(snap_file))
    assert snap.exit_code == 0, snap.stderr
    replay, replay_data = explain_json(*BUNDLED_PODS, "--cluster", str(snap_file))
    assert live_data == replay_data
    assert live.stdout == replay.stdout
    assert live.exit_code == replay.exit_code
    assert live_data["kind"] == "ExplainResultList" and len(live_data["items"]) == len(BUNDLED_PODS)
    assert_clean(server, live, snap, replay)
    assert TOKEN not in snap_file.read_text(encoding="utf-8")


def test_live_explain_equals_the_fixture_files_it_serves(server: FakeApiServer, kubeconfig: str) -> None:
    _, live_data = explain_json(*BUNDLED_PODS, "--kubeconfig", kubeconfig)
    _, file_data = explain_json(*BUNDLED_PODS, "--cluster", FIXTURE_CLUSTER)
    assert live_data == file_data


def test_lists_are_paginated_and_authenticated(server: FakeApiServer, kubeconfig: str) -> None:
    result = run_cli("explain", BUNDLED_PODS[0], "--kubeconfig", kubeconfig, "-o", "json")
    assert result.exit_code in (0, 1), result.stderr
    pods = [r for r in server.requests if r.path == "/api/v1/pods"]
    assert len(pods) >= 4  # 10 pods, at most 3 a page
    assert all(r.authorized for r in server.requests)
    assert all(r.query.get("limit") for r in pods)
    assert sum(1 for r in pods if r.query.get("continue")) == len(pods) - 1
    assert all(r.query["fieldSelector"] == ["status.phase!=Succeeded,status.phase!=Failed"] for r in pods)
    assert_clean(server, result)


def test_snapshot_is_clean_and_reads_back(server: FakeApiServer, kubeconfig: str, tmp_path: Path) -> None:
    server.add(pending_pod("waiting"))
    result = run_cli("snapshot", "--kubeconfig", kubeconfig)
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    for noise in ("managedFields", "resourceVersion", "selfLink", "last-applied-configuration",
                  "last-applied-secret-value", "hunter2", "DB_PASSWORD"):
        assert noise not in text, noise
    docs = [d for d in yaml.safe_load_all(text) if d]
    assert all(d.get("apiVersion") and d.get("kind") for d in docs)
    assert sum(d["kind"] == "Pod" for d in docs) == 11
    assert all(d["kind"] != "Secret" for d in docs)
    (tmp_path / "snap.yaml").write_text(text, encoding="utf-8")
    replay = run_cli("explain", "--pod", "default/waiting", "--cluster", str(tmp_path / "snap.yaml"), "-o", "json")
    assert replay.exit_code == 0, replay.stderr
    assert_clean(server, result, replay)


# -- explain --pod -------------------------------------------------------------------------------


def test_explain_pending_pod_from_the_cluster(server: FakeApiServer, kubeconfig: str, tmp_path: Path) -> None:
    server.add(pending_pod("waiting", cpu="250m"))
    live, data = explain_json("--pod", "default/waiting", "--kubeconfig", kubeconfig)
    assert live.exit_code == 0
    assert data["pod"] == "default/waiting"
    assert data["outcome"] == "Scheduled"
    snap = tmp_path / "snap.yaml"
    assert run_cli("snapshot", "--kubeconfig", kubeconfig, "--file", str(snap)).exit_code == 0
    _, replay = explain_json("--pod", "default/waiting", "--cluster", str(snap))
    assert replay == data
    assert_clean(server, live)


def test_explain_pod_uses_its_own_scheduler_name(server: FakeApiServer, kubeconfig: str) -> None:
    server.add(pending_pod("custom", schedulerName="my-scheduler"))
    result = run_cli("explain", "--pod", "default/custom", "--kubeconfig", kubeconfig)
    assert result.exit_code == 2
    assert 'asks for scheduler "my-scheduler"' in result.stderr
    assert_clean(server, result)


def test_explain_pod_files_and_cluster_pods_together(server: FakeApiServer, kubeconfig: str) -> None:
    server.add(pending_pod("waiting"))
    _, data = explain_json(BUNDLED_PODS[0], "--pod", "default/waiting", "--kubeconfig", kubeconfig)
    assert [i["pod"] for i in data["items"]][-1] == "default/waiting"


def test_explain_pod_that_does_not_exist(server: FakeApiServer, kubeconfig: str) -> None:
    result = run_cli("explain", "--pod", "default/ghost", "--kubeconfig", kubeconfig)
    assert result.exit_code == 2
    assert "--pod default/ghost: no such pod" in result.stderr
    assert_clean(server, result)


def test_explain_pod_already_bound(server: FakeApiServer, kubeconfig: str) -> None:
    result = run_cli("explain", "--pod", "kube-system/coredns-5d78c9869d-h2xkq", "--kubeconfig", kubeconfig)
    assert result.exit_code == 2
    assert "already bound to node node-a2" in result.stderr


def test_explain_without_pods_is_a_usage_error() -> None:
    result = run_cli("explain", "--cluster", FIXTURE_CLUSTER)
    assert result.exit_code == 2
    assert "nothing to explain" in result.stderr


# -- failure modes -------------------------------------------------------------------------------


def test_forbidden_optional_kind_warns_and_carries_on(server: FakeApiServer, kubeconfig: str) -> None:
    server.forbidden.add("poddisruptionbudgets.policy")
    result = run_cli("explain", BUNDLED_PODS[0], "--kubeconfig", kubeconfig, "-o", "json")
    assert result.exit_code in (0, 1), result.stderr
    warning = [line for line in result.stderr.splitlines() if "poddisruptionbudgets.policy" in line]
    assert warning and warning[0].startswith("warning: not allowed to list poddisruptionbudgets.policy")
    assert "403 Forbidden: verb list" in warning[0]
    assert "preemption does not respect PodDisruptionBudgets" in warning[0]
    assert json.loads(result.stdout)["kind"] == "ExplainResult"
    assert_clean(server, result)


def test_forbidden_optional_kind_quiet(server: FakeApiServer, kubeconfig: str) -> None:
    server.forbidden.add("poddisruptionbudgets.policy")
    result = run_cli("explain", BUNDLED_PODS[0], "--kubeconfig", kubeconfig, "-o", "json", "--quiet")
    assert result.exit_code in (0, 1)
    assert "poddisruptionbudgets" not in result.stderr


def test_forbidden_pods_fails_clearly(server: FakeApiServer, kubeconfig: str) -> None:
    server.forbidden.add("pods")
    result = run_cli("explain", BUNDLED_PODS[0], "--kubeconfig", kubeconfig)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: not allowed to list pods (Pod) at the cluster scope (403 Forbidden)")
    assert 'cannot list resource "pods"' in result.stderr
    assert "needs the verbs get and list on pods" in result.stderr
    assert result.stdout == ""
    assert_clean(server, result)


def test_forbidden_nodes_fails_clearly(server: FakeApiServer, kubeconfig: str) -> None:
    server.forbidden.add("nodes")
    result = run_cli("snapshot", "--kubeconfig", kubeconfig)
    assert result.exit_code == 2
    assert "not allowed to list nodes (Node) at the cluster scope (403 Forbidden)" in result.stderr
    assert result.stdout == ""


def test_wrong_token_is_401_and_never_printed(server: FakeApiServer, tmp_path: Path) -> None:
    wrong = "wrong-token-Yh7Kq2Rt9Vb1"
    kc = server.write_kubeconfig(tmp_path / "kc", token=wrong)
    result = run_cli("explain", BUNDLED_PODS[0], "--kubeconfig", str(kc))
    assert result.exit_code == 2
    assert "rejected the credentials (401 Unauthorized)" in result.stderr
    assert wrong not in result.stderr and wrong not in result.stdout
    assert_clean(server, result)


def test_unreachable_server_fails_fast(tmp_path: Path) -> None:
    with socket.socket() as sock:  # a port nobody listens on any more
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    kc = tmp_path / "kc"
    kc.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "gone",
        "clusters": [{"name": "gone", "cluster": {"server": f"http://127.0.0.1:{port}"}}],
        "users": [{"name": "u", "user": {"token": TOKEN}}],
        "contexts": [{"name": "gone", "context": {"cluster": "gone", "user": "u"}}]}), encoding="utf-8")
    result = run_cli("explain", BUNDLED_PODS[0], "--kubeconfig", str(kc))
    assert result.exit_code == 2
    assert f"error: cannot reach the API server at http://127.0.0.1:{port}" in result.stderr
    assert "connection refused" in result.stderr
    assert TOKEN not in result.stderr


def test_no_kubeconfig_anywhere() -> None:
    result = run_cli("explain", BUNDLED_PODS[0])
    assert result.exit_code == 2
    assert "error: no kubeconfig found" in result.stderr
    assert "--cluster" in result.stderr


def test_kubeconfig_from_environment_and_context(server: FakeApiServer, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    kc = server.write_kubeconfig(tmp_path / "kc", context="main", extra_contexts=["other"])
    monkeypatch.setenv("KUBECONFIG", f"{tmp_path / 'missing'}:{kc}")
    result = run_cli("explain", BUNDLED_PODS[0], "--context", "other", "-o", "json")
    assert result.exit_code in (0, 1), result.stderr
    assert server.requests
    unknown = run_cli("explain", BUNDLED_PODS[0], "--context", "nope")
    assert unknown.exit_code == 2
    assert 'no context named "nope" (contexts: main, other)' in unknown.stderr


def test_crds_not_installed_are_skipped_quietly(server: FakeApiServer, kubeconfig: str) -> None:
    result = run_cli("snapshot", "--kubeconfig", kubeconfig)
    assert result.exit_code == 0
    assert "warning" not in result.stderr
    assert any(p.endswith("/podgroups") for p in server.paths())


def test_crds_installed_are_read(server: FakeApiServer, kubeconfig: str) -> None:
    server.crds = True
    server.add({"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
                "metadata": {"name": "trainers", "namespace": "ml"}, "spec": {"minMember": 2}})
    result = run_cli("snapshot", "--kubeconfig", kubeconfig, "-o", "json")
    assert result.exit_code == 0, result.stderr
    items = json.loads(result.stdout)["items"]
    groups = [i for i in items if i["kind"] == "PodGroup"]
    assert groups and groups[0]["apiVersion"] == "scheduling.x-k8s.io/v1alpha1"


def test_cluster_and_kubeconfig_together_is_a_usage_error(kubeconfig: str) -> None:
    result = run_cli("explain", BUNDLED_PODS[0], "--cluster", FIXTURE_CLUSTER, "--kubeconfig", kubeconfig)
    assert result.exit_code == 2
    assert "--kubeconfig reads a live cluster; it cannot be combined with --cluster" in result.stderr


def test_live_dra_explain_equals_the_files(tmp_path: Path) -> None:
    """A GPU cluster served live (ResourceSlices, DeviceClass, templates, an allocated claim and
    its pod): explain reads the resource.k8s.io objects read-only and answers as from the files."""
    gpu_cluster = REPO / "profiles" / "scenarios" / "cluster" / "dra-gpus.yaml"
    objects = [d for d in yaml.safe_load_all(gpu_cluster.read_text(encoding="utf-8")) if d]
    pod = str(REPO / "profiles" / "scenarios" / "pods" / "dra-two-gpus.yaml")
    with FakeApiServer(objects=objects) as srv:
        config = str(srv.write_kubeconfig(tmp_path / "kubeconfig"))
        live, live_data = explain_json(pod, "--kubeconfig", config)
        assert_clean(srv, live)
        assert {p.rsplit("/", 1)[-1] for p in srv.paths()} >= {"resourceslices", "deviceclasses",
                                                                "resourceclaims", "resourceclaimtemplates"}
    _, file_data = explain_json(pod, "--cluster", str(gpu_cluster))
    assert live_data["selectedNode"] == file_data["selectedNode"]
    assert [n.get("allocations") for n in live_data["nodes"]] == [n.get("allocations") for n in file_data["nodes"]]
