"""`kschedctl sweep` end to end through the CLI: outputs, charts, errors, Ray's absence."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
import yaml

from tests.cli.helpers import run_cli, with_default_sigint

ROOT = Path(__file__).resolve().parents[2]
SWEEP = str(ROOT / "profiles" / "sweeps" / "packing.yaml")


def test_table_ranks_the_cells() -> None:
    r = run_cli("sweep", SWEEP, "--rank-by", "cpuSpreadNodes", "-j", "1", "--no-timings", "--width", "250")
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "Sweep spreading vs packing: 12 cells, ranked by cpuSpreadNodes within each cluster and workload"
    rows = [line.split() for line in lines if line.strip()[:2] in ("=1", "=3")]
    # per cluster: default's two seeds tie first, the four bin-packing cells tie third; never a lone "best"
    assert [(row[0], row[1], row[2]) for row in rows] == [
        ("=1", "default", "bundled"), ("=1", "default", "bundled"), *[("=3", "bin-packing", "bundled")] * 2,
        *[("=3", "bin-packing[percentageOfNodesToScore=50]", "bundled")] * 2,
        ("=1", "default", "big-nodes"), ("=1", "default", "big-nodes"), *[("=3", "bin-packing", "big-nodes")] * 2,
        *[("=3", "bin-packing[percentageOfNodesToScore=50]", "big-nodes")] * 2]
    assert lines[-1] == "  =N: tied on cpuSpreadNodes with another cell of its cluster and workload"
    assert any("bin-packing[percentageOfNodesToScore=50]" in line for line in lines)
    assert "seconds" not in lines[2]


def test_yaml_and_csv_carry_every_cell() -> None:
    r = run_cli("sweep", SWEEP, "-o", "yaml", "-j", "1")
    assert r.exit_code == 0, r.stderr
    doc = yaml.safe_load(r.stdout)
    assert doc["kind"] == "SweepResult" and len(doc["cells"]) == 12
    assert doc["rankedWithin"] == ["cluster", "workload"]
    assert [(c["rank"], c["tied"]) for c in doc["cells"]] == [(1, True)] * 12  # every cell schedules all 18
    assert doc["cells"][0]["metrics"]["scheduled"] == 18 and "seconds" in doc["cells"][0]["metrics"]
    r = run_cli("sweep", SWEEP, "-o", "csv", "-j", "1", "--no-timings")
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert len(rows) == 12 and rows[0]["config"] == "default" and rows[0]["scheduled"] == "18"
    assert (rows[0]["rank"], rows[0]["tied"]) == ("1", "true")
    assert "seconds" not in rows[0]


@pytest.mark.parametrize("suffix", [".html", ".svg", ".png"])
def test_plot(tmp_path: Path, suffix: str) -> None:
    pytest.importorskip("matplotlib", reason="matplotlib is not installed (pip install 'kschedctl[plot]')")
    out = tmp_path / f"sweep{suffix}"
    r = run_cli("sweep", SWEEP, "-j", "1", "-o", "json", "--plot", str(out))
    assert r.exit_code == 0, r.stderr
    data = out.read_bytes()
    if suffix == ".html":
        text = data.decode()
        assert text.count("<svg") == 10 and "nodes used" in text
    elif suffix == ".svg":
        assert data.lstrip().startswith(b"<?xml") and b"<svg" in data
    else:
        assert data.startswith(b"\x89PNG")


@pytest.mark.parametrize(("args", "message"), [
    (["--rank-by", "speed"], "--rank-by speed: not a metric"),
    (["--plot", "x.pdf"], "--plot x.pdf: the file must end in .png, .svg or .html"),
    (["-j", "2", "--ray-address", "local"], "--workers and --ray-address exclude each other"),
])
def test_usage_errors(args: list[str], message: str) -> None:
    r = run_cli("sweep", SWEEP, "-o", "json", *args)
    assert r.exit_code == 2 and message in r.stderr and "Traceback" not in r.stderr


def test_without_ray_the_address_is_refused_clearly() -> None:
    try:
        import ray  # noqa: F401
    except ImportError:
        r = run_cli("sweep", SWEEP, "--ray-address", "local")
        assert r.exit_code == 2 and "--ray-address needs Ray: pip install 'kschedctl[ray]'" in r.stderr
    else:  # pragma: no cover - only where ray is installed
        pytest.skip("ray is installed: tests/sweep/test_run.py runs it in local mode")


def test_a_bad_sweep_file_lists_its_problems_with_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the scenario root: files outside the working directory are refused
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: kschedctl/v1\nkind: Sweep\nconfigs: [{}]\nclusters: []\nworkloads: [w.yaml]\n"
                   "seeds: 3\n")
    r = run_cli("sweep", str(bad))
    assert r.exit_code == 2
    assert f"{bad}:4: clusters: must not be empty" in r.stderr
    assert f"{bad}:6: seeds: unknown field" in r.stderr


def test_ctrl_c_stops_the_workers_cleanly(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    nodes = "---\n".join(
        f"apiVersion: v1\nkind: Node\nmetadata: {{name: n{i}}}\nstatus: {{allocatable: {{cpu: '4', memory: 16Gi, pods: '110'}}}}\n"
        for i in range(300))
    (tmp_path / "nodes.yaml").write_text(nodes)
    (tmp_path / "web.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 200\n"
        "  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n"
        "    spec: {containers: [{name: c, image: c, resources: {requests: {cpu: 100m}}}]}\n")
    long = tmp_path / "long.yaml"
    long.write_text("apiVersion: kschedctl/v1\nkind: Sweep\nconfigs: [{}]\nclusters: [nodes.yaml]\n"
                    "workloads: [web.yaml]\nrepetitions: 1000\n")
    proc = subprocess.Popen([sys.executable, "-m", "kschedctl", "sweep", str(long), "-j", "2", "-o", "json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                            preexec_fn=with_default_sigint)
    # Interrupt once the workers run (a fixed sleep raced with a slow start on a busy machine).
    children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and proc.poll() is None:
        if children.exists() and children.read_text().split():
            break
        time.sleep(0.1)
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err and out == ""
