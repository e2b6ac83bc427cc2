"""``kschedctl diff``: two configurations or two profiles, exit codes, table, JSON/YAML, --simulate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.cli.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = str(ROOT / "fixtures" / "cluster")
POD = str(ROOT / "fixtures" / "pods" / "pod.yaml")
SPREAD = str(ROOT / "fixtures" / "pods" / "spread.yaml")
WEB = str(ROOT / "fixtures" / "pods" / "web-deployment.yaml")
PROFILES = ROOT / "profiles"
HEAD = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
WEIGHT = HEAD + ("profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: ImageLocality\n"
                 "        weight: 100\n")
NO_TAINTS = HEAD + "profiles:\n- plugins:\n    multiPoint:\n      disabled:\n      - name: TaintToleration\n"
TWO = HEAD + ("profiles:\n- schedulerName: base\n- schedulerName: no-taints\n  plugins:\n    multiPoint:\n"
              "      disabled:\n      - name: TaintToleration\n")


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_weight_change_moves_pod_exit_1(tmp_path: Path) -> None:
    b = _write(tmp_path, "b.yaml", WEIGHT)
    result = run_cli("diff", "-c", str(PROFILES / "default.yaml"), "-c", b, "--cluster", CLUSTER, POD, SPREAD, "-o", "json")
    assert result.exit_code == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["kind"] == "DiffResult" and data["identical"] is False
    assert data["b"]["config"] == b
    moved = [(p["pod"], p["a"]["node"], p["b"]["node"]) for p in data["pods"] if p["moved"]]
    assert moved == [("default/hello", "node-b2", "node-c1")]
    plugins = data["pods"][0]["scoreDiff"]["plugins"]
    assert (plugins[0]["plugin"], plugins[0]["change"]) == ("ImageLocality", 99)


def test_disabled_plugin_two_profiles_of_one_file_table(tmp_path: Path) -> None:
    cfg = _write(tmp_path, "two.yaml", TWO)
    result = run_cli("diff", "-c", cfg, "--profile", "base", "--profile", "no-taints", "--cluster", CLUSTER, POD, SPREAD)
    assert result.exit_code == 1, result.stderr
    out = " ".join(result.stdout.split())
    assert "1 of 2 pod(s) placed differently" in out
    assert "gpu-b1" in out and "TaintToleration" in out
    assert "profile no-taints" in out


def test_identical_exit_0(tmp_path: Path) -> None:
    result = run_cli("diff", "-c", str(PROFILES / "default.yaml"), "-c", str(PROFILES / "default.yaml"),
                     "--cluster", CLUSTER, POD, SPREAD)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "identical" in result.stdout


def test_yaml_output_of_two_profiles_without_config_file_is_usage_error() -> None:
    # The built-in default has one profile: a second one does not exist.
    result = run_cli("diff", "--profile", "default-scheduler", "--profile", "other", "--cluster", CLUSTER, POD)
    assert result.exit_code == 2
    assert 'no profile with scheduler name "other"' in result.stderr


def test_simulate_diff(tmp_path: Path) -> None:
    result = run_cli("diff", "-c", str(PROFILES / "default.yaml"), "-c", str(PROFILES / "bin-packing.yaml"),
                     "--cluster", CLUSTER, "--simulate", "--no-cluster-pending", WEB, "-o", "yaml")
    assert result.exit_code == 1, result.stderr
    data = yaml.safe_load(result.stdout)
    assert data["mode"] == "simulate"
    assert data["firstDivergence"]["index"] == 0
    assert data["spread"]["a"]["nodesUsed"] == 3 and data["spread"]["b"]["nodesUsed"] == 1
    assert data["unschedulable"] == {"a": [], "b": []}
    zones = {z["name"]: (z["a"]["placedPods"], z["b"]["placedPods"]) for z in data["zones"]}
    assert zones == {"us-east-1a": (1, 3), "us-east-1b": (1, 0), "us-east-1c": (1, 0)}


def test_simulate_table_and_identical(tmp_path: Path) -> None:
    moved = run_cli("diff", "-c", str(PROFILES / "default.yaml"), "-c", str(PROFILES / "bin-packing.yaml"),
                    "--cluster", CLUSTER, "--simulate", "--no-cluster-pending", WEB)
    assert moved.exit_code == 1
    out = " ".join(moved.stdout.split())
    assert "first divergence" in out and "spread / packing" in out
    same = run_cli("diff", "-c", str(PROFILES / "default.yaml"), "-c", str(PROFILES / "default.yaml"),
                   "--cluster", CLUSTER, "--simulate", "--no-cluster-pending", WEB)
    assert same.exit_code == 0
    assert "identical: all 3 pod(s)" in same.stdout


@pytest.mark.parametrize("args, message", [
    (["-c", "x.yaml"], "diff needs two sides"),
    (["--profile", "a"], "diff needs two sides"),
    (["-c", "a", "-c", "b", "-c", "c"], "at most twice"),
])
def test_usage_errors_exit_2(args: list[str], message: str) -> None:
    result = run_cli("diff", *args, "--cluster", CLUSTER, POD)
    assert result.exit_code == 2
    assert message in result.stderr


def test_bad_config_exits_2(tmp_path: Path) -> None:
    bad = _write(tmp_path, "bad.yaml", HEAD + "parallelism: 0\n")
    result = run_cli("diff", "-c", str(PROFILES / "default.yaml"), "-c", bad, "--cluster", CLUSTER, POD)
    assert result.exit_code == 2
    assert "bad.yaml" in result.stderr and "Traceback" not in result.stderr


def test_missing_pod_file_exits_2() -> None:
    result = run_cli("diff", "-c", str(PROFILES / "default.yaml"), "-c", str(PROFILES / "bin-packing.yaml"),
                     "--cluster", CLUSTER, "/nonexistent/pod.yaml")
    assert result.exit_code == 2
