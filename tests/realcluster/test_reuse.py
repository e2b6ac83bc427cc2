"""A control plane kept running between invocations: ``up`` starts etcd and kube-apiserver and
leaves them, explain given the same ``--workdir`` attaches instead of starting its own, ``down``
stops them by PID."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from benchmarks import realcluster

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "benchmarks.realcluster", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def test_explain_reuses_the_control_plane_up_started(binaries: Path, tmp_path: Path) -> None:
    workdir = tmp_path / "cp"
    up = _run("up", "--workdir", str(workdir), "--bin-dir", str(binaries))
    assert up.returncode == 0, up.stderr[-2000:]
    try:
        state = json.loads((workdir / realcluster.STATE_FILE).read_text())
        pids = state["pids"]
        assert set(pids) == {"etcd", "kube-apiserver"}
        again = _run("up", "--workdir", str(workdir))
        assert again.returncode == 0 and state["url"] in again.stdout  # the same one, not a second

        out = _run("explain", "fixtures/pods/pod.yaml", "--cluster", "fixtures/cluster", "--workdir", str(workdir))
        assert out.returncode == 0, out.stderr[-2000:]
        assert json.loads(out.stdout)["outcome"] == "Scheduled"
        # Attached, not started: the same processes still serve, and the scheduler it ran is gone.
        assert json.loads((workdir / realcluster.STATE_FILE).read_text()) == state
        assert all(realcluster._runs(pid, binaries / name) for name, pid in pids.items())
        assert (workdir / "kube-apiserver.log").read_text(errors="replace").count("Serving securely") == 1
        assert not any(realcluster._runs(p, binaries / "kube-scheduler") for p in _pids_of("kube-scheduler", workdir))
    finally:
        down = _run("down", "--workdir", str(workdir))
    assert down.returncode == 0, down.stderr
    assert not any(realcluster._runs(pid, binaries / name) for name, pid in pids.items())
    assert not (workdir / realcluster.STATE_FILE).exists()
    assert _run("down", "--workdir", str(workdir)).returncode == 1


def _pids_of(name: str, workdir: Path) -> list[int]:
    out = subprocess.run(["pgrep", "-f", f"{name} --config={workdir}"], capture_output=True, text=True)
    return [int(p) for p in out.stdout.split()]


def test_workload_files_run_as_kschedctl_expands_them(control_plane: realcluster.ControlPlane) -> None:
    """No controller-manager runs: kschedctl's expansion stands in for it, with the owners the
    scheduler reads (the ReplicaSet whose selector spreads the replicas by default)."""
    from benchmarks.differential import run_kschedctl

    cluster = realcluster.read_documents([str(ROOT / "fixtures/cluster")])
    files = [str(ROOT / "fixtures/pods/gpu-job.yaml"), str(ROOT / "fixtures/pods/web-deployment.yaml")]
    pods, brought = realcluster.workload_pods("explain", files, [str(ROOT / "fixtures/cluster")])
    assert [p["metadata"]["name"] for p in pods] == ["train-resnet-7fk9t", "web-d5795885d-zf67l"]
    assert [(o["kind"], o["metadata"]["name"]) for o in brought] == [("ReplicaSet", "web-d5795885d")]
    real = realcluster.explain(control_plane, cluster + brought, pods, None)
    ours = run_kschedctl(["explain", *files, "--cluster", str(ROOT / "fixtures/cluster"), "-o", "json"])
    for mine, theirs in zip(ours["items"], real["items"], strict=True):
        assert realcluster.compare(mine, theirs) == []

    replicas, brought = realcluster.workload_pods("simulate", files[1:], [str(ROOT / "fixtures/cluster")])
    assert len(replicas) == 3
    placed = realcluster.simulate(control_plane, cluster + brought, replicas, None)["placements"]
    ours = run_kschedctl(["simulate", files[1], "--cluster", str(ROOT / "fixtures/cluster"), "-o", "json"])
    assert sorted(p["node"] for p in placed) == sorted(p["node"] for p in ours["placements"])
