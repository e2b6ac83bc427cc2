"""kschedctl.inputs.kube: cleaning objects, kubeconfig resolution, paging, retries and failure modes.

Requests go through the real ``kubernetes`` client to the fake API server of tests/live (127.0.0.1).
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest
import yaml

from kschedctl.errors import ClusterAccessError
from kschedctl.inputs import cluster as cluster_module
from kschedctl.inputs import kube
from kschedctl.inputs.cluster import ClusterState, load_cluster
from kschedctl.inputs.kinds import KIND_BY_NAME
from kschedctl.inputs.kube import KINDS, read_cluster, read_objects, strip_object
from tests.cli.helpers import run_cli
from tests.live.conftest import kubeconfig, local_only_environment, server  # noqa: F401 (fixtures)
from tests.live.server import RESOURCES, TOKEN, FakeApiServer, fixture_objects

FIXTURE_CLUSTER = Path(__file__).resolve().parents[2] / "fixtures" / "cluster"


class Sleeps(list):
    """A ``sleep`` that remembers instead of waiting."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def read(kubeconfig: str, **kwargs):  # noqa: F811
    kwargs.setdefault("sleep", Sleeps())
    return read_objects(kubeconfig, **kwargs)


# -- kinds ---------------------------------------------------------------------------------------


def test_every_kind_has_its_collection_and_its_defaults_apply_to_known_kinds() -> None:
    # one table (kinds.KINDS) for the live reader and the file loader: each kind is kept somewhere
    state = ClusterState()
    for k in KINDS:
        assert isinstance(getattr(state, k.collection), list if k.kind in ("Node", "Pod") else dict), k.kind
    assert len({k.collection for k in KINDS}) == len(KINDS)
    assert set(cluster_module._DEFAULTERS) <= set(KIND_BY_NAME)
    assert {k.kind for k in KINDS if k.required} == {"Node", "Pod"}


@pytest.mark.parametrize("kind,namespace,path", [
    ("Pod", None, "/api/v1/pods"),
    ("Pod", "ml", "/api/v1/namespaces/ml/pods"),
    ("Node", "ml", "/api/v1/nodes"),
    ("PodDisruptionBudget", "default", "/apis/policy/v1/namespaces/default/poddisruptionbudgets"),
    ("CSINode", None, "/apis/storage.k8s.io/v1/csinodes"),
    ("PodGroup", None, "/apis/scheduling.x-k8s.io/v1alpha1/podgroups"),
], ids=lambda v: str(v))
def test_list_paths(kind: str, namespace: str | None, path: str) -> None:
    assert kube.KIND_BY_NAME[kind].path(namespace) == path


def test_only_nodes_and_pods_are_required() -> None:
    assert {k.kind for k in KINDS if k.required} == {"Node", "Pod"}
    assert {k.kind for k in KINDS if k.crd} == {"PodGroup", "ElasticQuota", "NodeResourceTopology", "AppGroup", "NetworkTopology"}
    assert all(k.affects for k in KINDS if not k.required)


# -- strip_object --------------------------------------------------------------------------------


def test_strip_object_removes_noise_and_secret_prone_fields() -> None:
    pod = {
        "metadata": {"name": "p", "namespace": "default", "resourceVersion": "1", "selfLink": "/x",
                     "generation": 3, "managedFields": [{"manager": "m"}], "uid": "u-1",
                     "creationTimestamp": "2025-01-01T00:00:00Z",
                     "annotations": {kube.LAST_APPLIED_ANNOTATION: "{...}", "keep": "me"}},
        "spec": {"containers": [{"name": "c", "image": "i", "env": [{"name": "A", "value": "s3cret"}],
                                 "envFrom": [{"secretRef": {"name": "x"}}], "command": ["x"], "args": ["--pw=1"],
                                 "resources": {"requests": {"cpu": "1"}}, "ports": [{"containerPort": 80}]}],
                 "initContainers": [{"name": "i", "image": "i", "env": [{"name": "B", "value": "v"}]}],
                 "nodeName": "n1"},
        "status": {"phase": "Running", "startTime": "2025-01-01T00:00:01Z"},
    }
    out = strip_object(copy.deepcopy(pod), kube.KIND_BY_NAME["Pod"])
    assert list(out)[:2] == ["apiVersion", "kind"]
    assert out["apiVersion"] == "v1" and out["kind"] == "Pod"
    assert out["metadata"] == {"name": "p", "namespace": "default", "uid": "u-1",
                               "creationTimestamp": "2025-01-01T00:00:00Z", "annotations": {"keep": "me"}}
    assert out["spec"]["containers"] == [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}},
                                          "ports": [{"containerPort": 80}]}]
    assert out["spec"]["initContainers"] == [{"name": "i", "image": "i"}]
    assert out["spec"]["nodeName"] == "n1" and out["status"] == pod["status"]


def test_strip_object_cleans_workload_templates() -> None:
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
          "metadata": {"name": "r", "annotations": {kube.LAST_APPLIED_ANNOTATION: "x"}},
          "spec": {"selector": {"matchLabels": {"a": "b"}},
                   "template": {"metadata": {"labels": {"a": "b"}},
                                "spec": {"containers": [{"name": "c", "env": [{"name": "X", "value": "y"}]}]}}}}
    out = strip_object(rs)
    assert "annotations" not in out["metadata"]
    assert out["spec"]["template"]["spec"]["containers"] == [{"name": "c"}]
    assert out["spec"]["selector"] == {"matchLabels": {"a": "b"}}


def test_strip_object_leaves_what_the_scheduler_reads() -> None:
    for obj in fixture_objects():
        expected = copy.deepcopy(obj)
        if obj["kind"] == "StorageClass":  # the provisioner's, never the scheduler's (issue 43)
            expected.pop("parameters", None)
        assert strip_object(copy.deepcopy(obj)) == expected, obj["metadata"]["name"]


# -- redaction -----------------------------------------------------------------------------------


def test_redactor_hides_tokens_with_and_without_bearer() -> None:
    redact = kube._Redactor()
    redact.add("Bearer abcdef123456")
    redact.add("short")  # too short to be a credential worth hiding (and hiding it would mangle text)
    assert redact("sent Bearer abcdef123456 and abcdef123456") == "sent [redacted] and [redacted]"
    assert redact("short") == "short"


@pytest.mark.parametrize("url,shown", [
    ("https://admin:pw@example.com:6443/prefix?token=x#f", "https://example.com:6443/prefix"),
    ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
    ("https://[::1]:6443", "https://[::1]:6443"),
])
def test_safe_url(url: str, shown: str) -> None:
    assert kube._safe_url(url) == shown


# -- kubeconfig ----------------------------------------------------------------------------------


def write_kubeconfig(path: Path, **overrides) -> str:
    config = {"apiVersion": "v1", "kind": "Config", "current-context": "c",
              "clusters": [{"name": "k", "cluster": {"server": "http://127.0.0.1:1"}}],
              "users": [{"name": "u", "user": {"token": "tok-Secret-0123456789"}}],
              "contexts": [{"name": "c", "context": {"cluster": "k", "user": "u"}}]}
    config.update(overrides)
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return str(path)


def access_error(*args, **kwargs) -> str:
    with pytest.raises(ClusterAccessError) as info:
        kube.connect(*args, **kwargs)
    assert info.value.exit_code == 2
    return str(info.value)


def test_missing_kubeconfig_file(tmp_path: Path) -> None:
    assert access_error(tmp_path / "nope") == f"--kubeconfig {tmp_path / 'nope'}: no such file"


def test_kubeconfig_variable_with_no_existing_file(tmp_path: Path) -> None:
    listed = f"{tmp_path / 'a'}{os.pathsep}{tmp_path / 'b'}"
    assert access_error(env={"KUBECONFIG": listed}) == f"KUBECONFIG={listed}: none of these files exists"


def test_no_kubeconfig_and_not_in_a_pod(tmp_path: Path) -> None:
    message = access_error(env={"HOME": str(tmp_path)})
    assert message.startswith(f"no kubeconfig found: KUBECONFIG is not set and {tmp_path}/.kube/config does not exist")


def test_default_kubeconfig_in_home(tmp_path: Path) -> None:
    (tmp_path / ".kube").mkdir()
    write_kubeconfig(tmp_path / ".kube" / "config")
    client = kube.connect(env={"HOME": str(tmp_path)})
    assert client.server == "http://127.0.0.1:1"
    assert client.source.context == "c"
    client.close()


def test_no_current_context(tmp_path: Path) -> None:
    path = write_kubeconfig(tmp_path / "kc", **{"current-context": ""})
    assert access_error(path) == f"kubeconfig {path} has no current-context: choose one with --context (contexts: c)"


def test_unknown_context(tmp_path: Path) -> None:
    path = write_kubeconfig(tmp_path / "kc")
    assert access_error(path, "prod") == f'kubeconfig {path}: no context named "prod" (contexts: c)'


def test_invalid_yaml_kubeconfig(tmp_path: Path) -> None:
    path = tmp_path / "kc"
    path.write_text("clusters: [\n", encoding="utf-8")
    assert access_error(path).startswith(f"kubeconfig {path}:")


def test_client_errors_never_quote_credentials(tmp_path: Path) -> None:
    # The client's message for this one quotes the whole user entry, client secret included.
    path = write_kubeconfig(tmp_path / "kc", users=[{"name": "u", "user": {
        "token": "tok-Secret-0123456789",
        "auth-provider": {"name": "oidc", "config": {"client-id": "x", "client-secret": "Client-Secret-987"}}}}])
    message = access_error(path)
    assert "Expected key id-token" in message
    assert "tok-Secret-0123456789" not in message and "Client-Secret-987" not in message


def test_in_cluster_service_account(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kubernetes.config import incluster_config

    sa = tmp_path / "sa"
    sa.mkdir()
    (sa / "token").write_text("in-cluster-token-5551234", encoding="utf-8")
    (sa / "ca.crt").write_text("-----BEGIN CERTIFICATE-----\n", encoding="utf-8")
    monkeypatch.setattr(incluster_config, "SERVICE_TOKEN_FILENAME", str(sa / "token"))
    monkeypatch.setattr(incluster_config, "SERVICE_CERT_FILENAME", str(sa / "ca.crt"))
    monkeypatch.setattr(kube, "_SERVICE_ACCOUNT_DIR", str(sa))
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "443")
    client = kube.connect(env={"HOME": str(tmp_path), "KUBERNETES_SERVICE_HOST": "10.0.0.1"})
    assert client.source.description == "in-cluster service account"
    assert client.server == "https://10.0.0.1:443"
    assert client.redact("x in-cluster-token-5551234 y") == "x [redacted] y"
    client.close()
    assert "--context x: no kubeconfig found" in access_error(None, "x", env={"HOME": str(tmp_path)})


def test_in_cluster_without_token_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kubernetes.config import incluster_config

    monkeypatch.setattr(incluster_config, "SERVICE_TOKEN_FILENAME", str(tmp_path / "none"))
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "443")
    message = access_error(env={"HOME": str(tmp_path), "KUBERNETES_SERVICE_HOST": "10.0.0.1"})
    assert message == "in-cluster service account: Service token file does not exist."


# -- reading -------------------------------------------------------------------------------------


def test_reads_every_kind_paged_and_stripped(server: FakeApiServer, kubeconfig: str) -> None:  # noqa: F811
    seen: list[tuple[str, int]] = []
    live = read(kubeconfig, page_size=2, on_progress=lambda kind, n: seen.append((kind, n)))
    expected: dict[str, int] = {}
    for obj in fixture_objects():
        expected[obj["kind"]] = expected.get(obj["kind"], 0) + 1
    assert live.counts() == expected
    assert live.warnings == []
    assert {r.method for r in server.requests} == {"GET"}
    pods = [r for r in server.requests if r.path == "/api/v1/pods"]
    assert [r.query["limit"] for r in pods] == [["2"]] * 5
    # progress: a 0 when a kind starts, then the running count, ending at the total
    pod_counts = [n for k, n in seen if k == "Pod"]
    assert pod_counts == [0, 2, 4, 6, 8, 10]
    for obj in live.all():
        assert "managedFields" not in obj["metadata"] and "resourceVersion" not in obj["metadata"]


def test_live_state_equals_the_files_it_came_from(server: FakeApiServer, kubeconfig: str) -> None:  # noqa: F811
    state = read_cluster(kubeconfig, sleep=Sleeps())
    files = load_cluster([str(FIXTURE_CLUSTER)])
    assert state.counts() == files.counts()
    assert [n["metadata"]["name"] for n in state.nodes] == [n["metadata"]["name"] for n in files.nodes]
    assert state.access_warnings == []
    strip = lambda o: {k: v for k, v in o["metadata"].items() if k != "uid"}  # noqa: E731
    assert [strip(p) for p in state.pods] == [strip(p) for p in files.pods]
    assert [p["spec"] for p in state.pods] == [p["spec"] for p in files.pods]


def test_finished_pods_are_not_read(server: FakeApiServer, kubeconfig: str) -> None:  # noqa: F811
    for phase in ("Succeeded", "Failed", "Running"):
        server.add({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"done-{phase}"},
                    "spec": {"nodeName": "node-a1", "containers": [{"name": "c", "image": "i"}]},
                    "status": {"phase": phase}})
    names = {p["metadata"]["name"] for p in read(kubeconfig).objects["Pod"]}
    assert "done-Running" in names and "done-Succeeded" not in names and "done-Failed" not in names


def test_namespace_filter_lists_per_namespace(server: FakeApiServer, kubeconfig: str) -> None:  # noqa: F811
    live = read(kubeconfig, namespaces=["ml", "kube-system"])
    assert {p["metadata"]["namespace"] for p in live.objects["Pod"]} == {"ml", "kube-system"}
    assert [n["metadata"]["name"] for n in live.objects["Namespace"]] == ["kube-system", "ml"]
    assert len(live.objects["Node"]) == 8
    paths = set(server.paths())
    assert "/api/v1/namespaces/ml/pods" in paths and "/api/v1/namespaces/kube-system/pods" in paths
    assert "/api/v1/pods" not in paths


@pytest.mark.parametrize("failures", [(503, 503), (500,), ((429, 7),), ("reset",), ("reset", 502)],
                         ids=["503x2", "500", "429-retry-after", "reset", "reset-then-502"])
def test_transient_failures_are_retried(server: FakeApiServer, kubeconfig: str, failures) -> None:  # noqa: F811
    server.fail_next("pods", *failures)
    sleeps = Sleeps()
    live = read(kubeconfig, sleep=sleeps)
    assert len(live.objects["Pod"]) == 10
    assert len(sleeps) == len(failures)
    if failures == ((429, 7),):
        assert sleeps == [7.0]
    else:
        assert all(0 < s <= kube._MAX_BACKOFF * 1.25 for s in sleeps)


def test_retries_are_bounded_for_pods(server: FakeApiServer, kubeconfig: str) -> None:  # noqa: F811
    server.fail_next("pods", *[503] * 5)
    with pytest.raises(ClusterAccessError) as info:
        read(kubeconfig, retries=4)
    message = str(info.value)
    assert message.startswith("listing pods at the cluster scope failed at http://127.0.0.1:")
    assert "503 Service Unavailable: injected failure 503 (after 5 attempts)" in message


def test_exhausted_retries_on_an_optional_kind_warn(server: FakeApiServer, kubeconfig: str) -> None:  # noqa: F811
    server.fail_next("services", *[503] * 3)
    live = read(kubeconfig, retries=2)
    assert live.objects["Service"] == []
    assert live.warnings == [
        "listing services at the cluster scope failed (503 Service Unavailable: injected failure 503, after "
        "3 attempts); carrying on without Service objects: default topology spreading does not see "
        "services' selectors"]


def test_expired_continue_token_restarts_the_list(server: FakeApiServer, kubeconfig: str) -> None:  # noqa: F811
    server.expire_continue("pods")
    live = read(kubeconfig)
    assert len(live.objects["Pod"]) == 10
    assert len({p["metadata"]["name"] for p in live.objects["Pod"]}) == 10


def test_forbidden_optional_kinds_become_warnings(server: FakeApiServer, kubeconfig: str) -> None:  # noqa: F811
    server.forbidden.update({"csinodes.storage.k8s.io", "namespaces"})
    live = read(kubeconfig)
    assert live.warnings == [
        "not allowed to list namespaces (Namespace) at the cluster scope (403 Forbidden: verb list); carrying on "
        "without Namespace objects: namespace selectors of pod affinity see only each namespace's name label",
        "not allowed to list csinodes.storage.k8s.io (CSINode) at the cluster scope (403 Forbidden: verb list); "
        "carrying on without CSINode objects: CSI volume limits per node (NodeVolumeLimits) are not known",
    ]
    assert len(live.objects["Pod"]) == 10


def test_kind_the_server_does_not_serve(server: FakeApiServer, kubeconfig: str) -> None:  # noqa: F811
    server.missing.add("volumeattachments")
    live = read(kubeconfig)
    assert live.warnings == [
        "the API server does not serve volumeattachments.storage.k8s.io storage.k8s.io/v1 (404); carrying on "
        "without VolumeAttachment objects: volumes attached to nodes are not counted against CSI volume limits"]


def test_sequential_and_parallel_reads_agree(server: FakeApiServer, kubeconfig: str) -> None:  # noqa: F811
    assert read(kubeconfig, workers=1).objects == read(kubeconfig, workers=8).objects


def test_first_failure_stops_the_parallel_read(server: FakeApiServer, kubeconfig: str) -> None:  # noqa: F811
    server.forbidden.add("pods")
    with pytest.raises(ClusterAccessError, match=r"not allowed to list pods \(Pod\)"):
        read(kubeconfig, workers=4)


def test_not_json_answer(server: FakeApiServer, tmp_path: Path) -> None:  # noqa: F811
    import http.server
    import threading

    class Html(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            body = b"<html>hello</html>"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Html)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        kc = write_kubeconfig(tmp_path / "kc", clusters=[{"name": "k", "cluster": {
            "server": f"http://127.0.0.1:{httpd.server_address[1]}"}}])
        with pytest.raises(ClusterAccessError, match="the answer is not JSON"):
            read(kc)
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_token_is_sent_but_never_in_messages(server: FakeApiServer, kubeconfig: str) -> None:  # noqa: F811
    server.forbidden.add("pods")
    with pytest.raises(ClusterAccessError) as info:
        read(kubeconfig)
    assert TOKEN not in str(info.value)
    assert all(r.authorized for r in server.requests)


# -- what snapshot and record leave out (issue 43) ------------------------------------------------

_SECRETS = Path(__file__).resolve().parent / "cases" / "secrets.yaml"
#: (kind, dotted path) -> value that must survive the stripping: what kube-scheduler v1.34 reads.
_KEPT = {
    ("Pod", "spec.volumes[1].iscsi.iqn"): "iqn.2001-04.com.example:disk",
    ("Pod", "spec.volumes[1].iscsi.readOnly"): True,
    ("Pod", "spec.volumes[2].rbd.monitors"): ["10.0.0.1:6789"],
    ("Pod", "spec.volumes[2].rbd.pool"): "kube",
    ("Pod", "spec.volumes[2].rbd.image"): "img",
    ("Pod", "spec.volumes[9].cinder.volumeID"): "vol-1",
    ("Pod", "spec.volumes[10].flexVolume.driver"): "example/flex",
    ("Pod", "spec.volumes[11].csi.driver"): "csi.example.com",
    ("Pod", "spec.volumes[12].gcePersistentDisk.pdName"): "disk-1",
    ("Pod", "spec.containers[0].livenessProbe.httpGet.port"): 8080,
    ("Pod", "metadata.annotations"): {"keep": "me"},
    ("StatefulSet", "spec.volumeClaimTemplates[0].metadata.annotations"): {"keep": "me"},
    ("StorageClass", "provisioner"): "example.com/fast",
    ("StorageClass", "volumeBindingMode"): "WaitForFirstConsumer",
    ("StorageClass", "allowedTopologies[0].matchLabelExpressions[0].values"): ["zone-a"],
    ("PersistentVolume", "spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].key"):
        "topology.kubernetes.io/zone",
    ("PersistentVolume", "spec.capacity"): {"storage": "1Gi"},
    ("ResourceClaim", "status.allocation.devices.results[0].device"): "gpu-0",
    ("ResourceClaim", "status.devices[0].conditions[0].type"): "Ready",
}


def _at(obj: object, dotted: str) -> object:
    for part in dotted.replace("[", ".[").split("."):
        obj = obj[int(part[1:-1])] if part.startswith("[") else obj[part]  # type: ignore[index]
    return obj


def test_strip_object_leaves_no_secret_and_keeps_what_the_scheduler_reads() -> None:
    objects = [d for d in yaml.safe_load_all(_SECRETS.read_text(encoding="utf-8")) if d]
    assert "s3cret" in json.dumps(objects)  # the fixture can fail the test
    stripped = {o["kind"]: strip_object(copy.deepcopy(o)) for o in objects}
    text = json.dumps(stripped)
    assert "s3cret" not in text, [k for k, o in stripped.items() if "s3cret" in json.dumps(o)]
    assert kube.LAST_APPLIED_ANNOTATION not in text
    for (kind, dotted), value in _KEPT.items():
        assert _at(stripped[kind], dotted) == value, (kind, dotted)
    assert _at(stripped["Pod"], "spec.volumes[0].gitRepo") == {"revision": "main"}


def test_snapshot_and_record_leave_no_secret_and_the_header_says_what_is_left_out(tmp_path: Path) -> None:
    objects = [d for d in yaml.safe_load_all(_SECRETS.read_text(encoding="utf-8")) if d]
    served = [o for o in objects if o["kind"] in RESOURCES]  # the kinds kschedctl lists
    with FakeApiServer([*fixture_objects(), *served]) as srv:
        config = str(srv.write_kubeconfig(tmp_path / "kubeconfig"))
        shown = {fmt: run_cli("snapshot", "--kubeconfig", config, "-o", fmt) for fmt in ("yaml", "json")}
        trace = tmp_path / "t.jsonl"
        record = run_cli("record", "--kubeconfig", config, "--duration", "1s", "-o", str(trace))
    for result in (*shown.values(), record):
        assert result.exit_code == 0, result.stderr
    assert "kind: StorageClass" in shown["yaml"].stdout and "gpu-0" in shown["json"].stdout
    assert "s3cret" not in shown["yaml"].stdout + shown["json"].stdout
    text = trace.read_text(encoding="utf-8")
    assert "example.com/fast" in text and "s3cret" not in text
    header = [line for line in shown["yaml"].stdout.splitlines() if line.startswith("#")]
    assert any(line.startswith("# Left out (kube-scheduler v1.34 never reads them") and "StorageClass parameters"
               in line and "gitRepo repository" in line for line in header), header
