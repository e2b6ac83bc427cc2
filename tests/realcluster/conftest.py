"""A real control plane for the tests: etcd, kube-apiserver and kube-scheduler v1.34.4, built by
`make -C oracle controlplane` (benchmarks.realcluster starts and stops them).

Without the built binaries these tests skip with one line, except under CI=true, where they are
built (Go needed) and must run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Iterator

import pytest

from benchmarks import realcluster

ROOT = Path(__file__).resolve().parents[2]


def _binaries() -> Path:
    ci = os.environ.get("CI") == "true"
    if not realcluster.binaries_present() and not ci:
        pytest.skip("no real control plane: build it with `make -C oracle controlplane` (Go, 10-25 min the first time)")
    if shutil.which("go") is None or shutil.which("make") is None:
        if realcluster.binaries_present():
            return realcluster.BIN_DIR
        pytest.fail("CI=true but Go or make is missing: the real control plane must run in CI")
    started = time.perf_counter()
    build = subprocess.run(["make", "-C", str(ROOT / "oracle"), "controlplane"], capture_output=True, text=True,
                           timeout=3600)
    assert build.returncode == 0, build.stdout[-2000:] + build.stderr[-4000:]
    print(f"control plane build: {time.perf_counter() - started:.1f} s")
    return realcluster.BIN_DIR


@pytest.fixture(scope="session")
def binaries() -> Path:
    """oracle/bin with etcd, kube-apiserver and kube-scheduler (or a one-line skip)."""
    return _binaries()


@pytest.fixture(scope="session")
def control_plane(binaries: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[realcluster.ControlPlane]:
    """etcd + kube-apiserver (RBAC, static tokens, default admission, audit log), stopped by PID
    at the end of the session; tests start kube-scheduler with their configuration."""
    bin_dir = binaries
    # While working on these tests: `python -m benchmarks.realcluster up --workdir D` once, then
    # KSCHEDCTL_REALCLUSTER_WORKDIR=D pytest tests/realcluster skips the start and leaves it running.
    reused = os.environ.get("KSCHEDCTL_REALCLUSTER_WORKDIR")
    cp = realcluster.ControlPlane.attach(Path(reused)) if reused else None
    if cp is None:
        cp = realcluster.ControlPlane(tmp_path_factory.mktemp("controlplane"), bin_dir)
        cp.start()
    try:
        yield cp
    finally:
        cp.stop()
