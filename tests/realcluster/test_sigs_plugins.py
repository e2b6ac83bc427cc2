"""scheduler-plugins against their own code (benchmarks.realcluster_sigs): their scheduler
(oracle/bin/kube-scheduler-sigs, v0.34.7 on the v1.34.4 framework) on the session's control
plane with their CRDs installed, beside kschedctl on the same objects. A handful of cases, one
per plugin family and a few of the shipped scenarios; the full run is
``python -m benchmarks.realcluster_sigs --table --seed 1 --cases 45``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from benchmarks import realcluster, realcluster_sigs

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("config, expected", [
    pytest.param(None, False, id="no-config"),
    pytest.param({"profiles": [{"schedulerName": "x"}]}, False, id="defaults"),
    pytest.param({"profiles": [{"plugins": {"score": {"enabled": [{"name": "ImageLocality"}]}}}]}, False,
                 id="in-tree-only"),
    pytest.param({"profiles": [{"plugins": {"queueSort": {"enabled": [{"name": "QOSSort"}]}}}]}, True,
                 id="enabled"),
    pytest.param({"profiles": [{}, {"pluginConfig": [{"name": "TargetLoadPacking", "args": {}}]}]}, True,
                 id="configured-second-profile"),
    pytest.param({"profiles": [{"plugins": {"postFilter": {"disabled": [{"name": "CapacityScheduling"}]}}}]}, False,
                 id="disabled-only"),
])
def test_which_configurations_need_the_sigs_scheduler(config: dict | None, expected: bool) -> None:
    assert realcluster_sigs.names_sigs_plugins(config) is expected


def test_the_watcher_address_is_rewritten_for_every_trimaran_plugin_only() -> None:
    cfg = realcluster_sigs.config({}, [{"name": "TargetLoadPacking", "args": {"watcherAddress": "http://x:1"}},
                                       {"name": "NodeResourcesFit", "args": {}}])
    out = realcluster_sigs.with_watcher(cfg, "http://127.0.0.1:9")
    assert out["profiles"][0]["pluginConfig"][0]["args"]["watcherAddress"] == "http://127.0.0.1:9"
    assert out["profiles"][0]["pluginConfig"][1]["args"] == {}
    assert cfg["profiles"][0]["pluginConfig"][0]["args"]["watcherAddress"] == "http://x:1"


def test_the_load_watcher_serves_the_metrics_json() -> None:
    import urllib.error
    import urllib.request

    metrics = {"window": {"end": 1}, "data": {"NodeMetricsMap": {"n1": {"metrics": []}}}}
    with realcluster_sigs.LoadWatcher(metrics) as watcher:
        with urllib.request.urlopen(f"{watcher.url}/watcher", timeout=10) as resp:
            assert json.loads(resp.read()) == metrics
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(f"{watcher.url}/other", timeout=10)


def test_the_generator_is_a_function_of_seed_and_index_and_covers_every_family() -> None:
    a = [realcluster_sigs.generate(7, i) for i in range(len(realcluster_sigs.FAMILIES))]
    b = [realcluster_sigs.generate(7, i) for i in range(len(realcluster_sigs.FAMILIES))]
    assert [(c.cluster, c.pods, c.config, c.metrics) for c in a] == [(c.cluster, c.pods, c.config, c.metrics) for c in b]
    assert all(realcluster_sigs.names_sigs_plugins(c.config) for c in a)
    plugins = {c.plugin for c in a}
    assert {"QOSSort", "Coscheduling", "CapacityScheduling", "NodeResourcesAllocatable", "NodeResourceTopologyMatch",
            "PreemptionToleration", "NetworkOverhead", "TopologicalSort", "PodState"} <= plugins
    assert plugins & set(realcluster_sigs.TRIMARAN)


def _placements(*rows: tuple[str, str, str, str]) -> dict:
    return {"placements": [{"pod": p, "outcome": o, "node": n, "message": m} for p, o, n, m in rows]}


@pytest.mark.parametrize("ours, real, exact, messages, expected", [
    pytest.param([("a", "Scheduled", "n1", "")], [("a", "Scheduled", "n1", "")], True, True, [], id="same"),
    pytest.param([("a", "Scheduled", "n1", "")], [("a", "Scheduled", "n2", "")], True, True,
                 ["a: node kschedctl 'n1' != real 'n2'"], id="other-node"),
    pytest.param([("a", "Scheduled", "n1", ""), ("b", "Scheduled", "n2", "")],
                 [("a", "Scheduled", "n2", ""), ("b", "Scheduled", "n1", "")], False, True, [], id="tie-swapped"),
    pytest.param([("a", "Scheduled", "n1", ""), ("b", "Scheduled", "n1", "")],
                 [("a", "Scheduled", "n2", ""), ("b", "Scheduled", "n1", "")], False, True,
                 ["pods per node: kschedctl [2] != real [1, 1]"], id="tie-other-spread"),
    pytest.param([("a", "Rejected", "", "x")], [("a", "Unschedulable", "", "x")], True, True, [],
                 id="rejected-is-unschedulable-on-the-pod"),
    pytest.param([("a", "Unschedulable", "", "x")], [("a", "Unschedulable", "", "y")], True, True,
                 ["a: message kschedctl 'x' != real 'y'"], id="message"),
    pytest.param([("a", "Unschedulable", "", "x")], [("a", "Unschedulable", "", "y")], True, False, [],
                 id="message-not-compared"),
    pytest.param([("a", "Scheduled", "n1", "")], [("a", "Unschedulable", "", "y")], True, False,
                 ["a: outcome kschedctl 'Scheduled' () != real 'Unschedulable' (y)"], id="outcome"),
    pytest.param([], [("a", "Scheduled", "n1", "")], True, True, ["a: not in kschedctl's placements"], id="missing"),
])
def test_simulate_comparison(ours: list, real: list, exact: bool, messages: bool, expected: list) -> None:
    assert realcluster_sigs.compare_simulate(_placements(*ours), _placements(*real), exact, messages) == expected


def test_the_crds_come_from_the_module_cache() -> None:
    if not (realcluster_sigs.module_dir() / "go.mod").is_file():
        pytest.skip(f"{realcluster_sigs.SIGS_MODULE}@{realcluster_sigs.SIGS_VERSION} is not in the module cache")
    kinds = {d["spec"]["names"]["kind"] for d in realcluster_sigs.crd_documents()}
    assert kinds == set(realcluster_sigs.SIGS_KINDS)


# -- on the real control plane --------------------------------------------------------------

@pytest.fixture(scope="session")
def sigs_control_plane(control_plane: realcluster.ControlPlane) -> realcluster_sigs.SigsControlPlane:
    if not realcluster_sigs.binary_present(control_plane.bin_dir):
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but `make -C oracle controlplane` left no {realcluster_sigs.SIGS_BINARY}")
        pytest.skip(f"no {realcluster_sigs.SIGS_BINARY}: build it with `make -C oracle controlplane`")
    return realcluster_sigs.SigsControlPlane.adopt(control_plane)


def test_the_sigs_scheduler_says_v1_34_4(sigs_control_plane: realcluster_sigs.SigsControlPlane) -> None:
    out = subprocess.run([str(sigs_control_plane.bin_dir / realcluster_sigs.SIGS_BINARY), "--version"],
                         capture_output=True, text=True)
    assert out.stdout.strip() == "Kubernetes v1.34.4"


def test_every_crd_is_served(sigs_control_plane: realcluster_sigs.SigsControlPlane) -> None:
    for prefix, plural, _ in realcluster_sigs.SIGS_KINDS.values():
        assert sigs_control_plane.admin.get(f"{prefix}/{plural}")["items"] is not None


def _generated(index: int) -> realcluster_sigs.Case:
    return realcluster_sigs.generate(1, index)


# One case per family (seed 1, the first nine), and three shipped scenarios.
CASES = [pytest.param(i, id=f"generated-{i}") for i in range(len(realcluster_sigs.FAMILIES))]
SCENARIOS = ("numa-aware-0-db", "trimaran-1", "preemption-toleration-0")


@pytest.mark.parametrize("index", CASES)
def test_generated_case_agrees(index: int, sigs_control_plane: realcluster_sigs.SigsControlPlane,
                               tmp_path: Path) -> None:
    case = _generated(index)
    assert realcluster_sigs.run_case(sigs_control_plane, case, tmp_path) == []
    terminating = [p["metadata"]["name"] for p in case.cluster if p.get("metadata", {}).get("deletionTimestamp")]
    for name in terminating:  # PodState's input: still there, being deleted
        assert sigs_control_plane.pod("default", name)["metadata"].get("deletionTimestamp")
    assert realcluster.ControlPlane.scheduler_binary(sigs_control_plane, case.config) == "kube-scheduler"
    assert sigs_control_plane.scheduler_binary(case.config) == realcluster_sigs.SIGS_BINARY


@pytest.mark.parametrize("name", SCENARIOS)
def test_scenario_agrees(name: str, sigs_control_plane: realcluster_sigs.SigsControlPlane, tmp_path: Path) -> None:
    case = next(c for c in realcluster_sigs.scenario_cases() if c.name == name)
    assert realcluster_sigs.run_case(sigs_control_plane, case, tmp_path) == []


def test_the_command_runs_the_sigs_scheduler_for_its_plugins(sigs_control_plane: realcluster_sigs.SigsControlPlane,
                                                             tmp_path: Path) -> None:
    """`python -m benchmarks.realcluster explain` with a NodeResourceTopologyMatch configuration
    starts a control plane of its own, with the CRDs, and kube-scheduler-sigs decides."""
    scen = ROOT / "profiles" / "scenarios"
    cfg = yaml.safe_load((ROOT / "profiles" / "numa-aware.yaml").read_text())
    cfg["profiles"] = [dict(cfg["profiles"][0], schedulerName="default-scheduler")]  # numa-spread
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.realcluster", "explain", str(scen / "pods" / "numa-db.yaml"),
         "--cluster", str(scen / "cluster" / "numa.yaml"), "--config", str(tmp_path / "config.yaml"),
         "-o", "json", "--workdir", str(tmp_path / "cp"), "--bin-dir", str(sigs_control_plane.bin_dir)],
        capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    # Only NodeResourceTopologyMatch keeps the pod off numa-n1 (kube-scheduler would refuse
    # the configuration and exit).
    result = json.loads(out.stdout)
    assert (result["outcome"], result["selectedNode"]) == ("Scheduled", "numa-n3")
