"""`kschedctl snapshot` writes none of the secrets a cluster's objects carry where the scheduler
never looks (tests/live/secret-bearing.yaml marks each with s3cr3t), keeps what it reads, and
writes its file readable by its owner only."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
import yaml

from tests.cli.helpers import run_cli
from tests.live.server import FakeApiServer

SECRET_BEARING = Path(__file__).with_name("secret-bearing.yaml")
POD = Path(__file__).resolve().parents[2] / "fixtures" / "pods" / "pod.yaml"


@pytest.fixture
def leaky_server(server: FakeApiServer) -> FakeApiServer:
    for obj in yaml.safe_load_all(SECRET_BEARING.read_text(encoding="utf-8")):
        server.add(obj)
    return server


def _by_name(docs: list[dict], kind: str, name: str) -> dict:
    return next(d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name)


def test_snapshot_writes_no_secret_and_keeps_what_the_scheduler_reads(
        leaky_server: FakeApiServer, kubeconfig: str, tmp_path: Path) -> None:
    target = tmp_path / "snap.yaml"
    result = run_cli("snapshot", "--kubeconfig", kubeconfig, "--file", str(target))
    assert result.exit_code == 0, result.stderr
    text = target.read_text(encoding="utf-8")
    assert "s3cr3t" not in text
    docs = [d for d in yaml.safe_load_all(text) if d]
    pod = _by_name(docs, "Pod", "leaky")
    app = pod["spec"]["containers"][0]
    assert "lifecycle" not in app
    assert app["livenessProbe"] == {"periodSeconds": 7, "httpGet": {"port": 8080}}  # a path may carry a token
    assert app["readinessProbe"] == {"exec": {}} and app["startupProbe"] == {"exec": {}}
    assert pod["spec"]["initContainers"][0]["restartPolicy"] == "Always"  # a sidecar stays a sidecar
    assert pod["spec"]["volumes"] == [{"name": "flex", "flexVolume": {"driver": "example.com/flex"}},
                                      {"name": "inline-csi", "csi": {"driver": "csi.example.com"}}]
    template = _by_name(docs, "ReplicaSet", "leaky-rs")["spec"]["template"]["spec"]
    assert "lifecycle" not in template["containers"][0]
    assert _by_name(docs, "PersistentVolume", "pv-csi")["spec"]["csi"] == {"driver": "csi.example.com",
                                                                          "volumeHandle": "vol-0001"}
    assert _by_name(docs, "PersistentVolume", "pv-flex")["spec"]["flexVolume"] == {"driver": "example.com/flex"}
    opaque = {"driver": "gpu.example.com", "parameters": {}}
    assert _by_name(docs, "DeviceClass", "gpu.example.com")["spec"]["config"] == [{"opaque": opaque}]
    claim = _by_name(docs, "ResourceClaim", "gpu-claim")
    assert claim["spec"]["devices"]["config"] == [{"requests": ["gpu"], "opaque": opaque}]
    assert claim["status"]["allocation"]["devices"]["config"] == [
        {"source": "FromClaim", "requests": ["gpu"], "opaque": opaque}]
    assert claim["status"]["allocation"]["devices"]["results"][0]["device"] == "gpu-0"
    claim_template = _by_name(docs, "ResourceClaimTemplate", "gpu-template")
    assert claim_template["spec"]["spec"]["devices"]["config"] == [{"requests": ["gpu"], "opaque": opaque}]
    replay = run_cli("explain", str(POD), "--cluster", str(target), "-o", "json")  # reads back
    assert replay.exit_code == 0, replay.stderr


@pytest.mark.parametrize("existing", [None, 0o644], ids=["new_file", "replacing_a_0644_file"])
def test_snapshot_file_is_0600(server: FakeApiServer, kubeconfig: str, tmp_path: Path,
                               monkeypatch: pytest.MonkeyPatch, existing: int | None) -> None:
    target = tmp_path / "snap.json"
    if existing is not None:
        target.write_text("{}", encoding="utf-8")
        os.chmod(target, existing)
    created: list[int] = []
    real_mkstemp = __import__("tempfile").mkstemp

    def watching_mkstemp(*args: object, **kwargs: object) -> tuple[int, str]:
        fd, name = real_mkstemp(*args, **kwargs)  # type: ignore[arg-type]
        created.append(stat.S_IMODE(os.fstat(fd).st_mode))
        return fd, name

    monkeypatch.setattr("kschedctl.atomic.tempfile.mkstemp", watching_mkstemp)
    old_umask = os.umask(0o022)
    try:
        result = run_cli("snapshot", "--kubeconfig", kubeconfig, "-o", "json", "--file", str(target))
    finally:
        os.umask(old_umask)
    assert result.exit_code == 0, result.stderr
    assert created == [0o600]  # the text is never in a file others can read, not even for a moment
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_fields_of_a_newer_api_server_are_left_out_and_the_snapshot_reads_back_strictly(
        server: FakeApiServer, kubeconfig: str, tmp_path: Path) -> None:
    # A v1.35+ API server may send fields v1.34 lacks; kube-scheduler v1.34's client drops them.
    newer = yaml.safe_load(POD.read_text(encoding="utf-8"))
    newer["metadata"]["name"] = "from-the-future"
    newer["spec"]["nodeName"] = ""
    newer["spec"]["futureField"] = {"x": 1}
    newer["spec"]["containers"][0]["futureResize"] = "Auto"
    server.add(newer)
    target = tmp_path / "snap.yaml"
    result = run_cli("snapshot", "--kubeconfig", kubeconfig, "--file", str(target))
    assert result.exit_code == 0, result.stderr
    assert "were left out, as its client leaves them out: " in result.stderr
    assert "Pod spec.futureField" in result.stderr and "Pod spec.containers[0].futureResize" in result.stderr
    pod = _by_name([d for d in yaml.safe_load_all(target.read_text(encoding="utf-8")) if d], "Pod", "from-the-future")
    assert "futureField" not in pod["spec"] and "futureResize" not in pod["spec"]["containers"][0]
    replay = run_cli("explain", str(POD), "--cluster", str(target), "-o", "json")  # strict by default
    assert replay.exit_code == 0, replay.stderr
