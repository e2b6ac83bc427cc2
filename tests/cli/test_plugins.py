"""``kschedctl plugins``, and every new profile validated and explained end to end on the fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from kschedctl.plugins import loader
from tests.cli.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
CASES = yaml.safe_load((Path(__file__).parent / "cases" / "profiles.yaml").read_text(encoding="utf-8"))["cases"]


@pytest.fixture(autouse=True)
def _fresh_loader():
    loader.forget_custom_plugins()
    yield
    loader.forget_custom_plugins()


def _cluster() -> Path:
    fixtures = ROOT / "fixtures" / "cluster"
    if not fixtures.is_dir():
        pytest.skip("fixtures/cluster not there yet")
    return fixtures


def test_plugins_json_lists_every_origin() -> None:
    res = run_cli("plugins", "-o", "json")
    assert res.exit_code == 0, res.stderr
    data = json.loads(res.stdout)
    assert data["kind"] == "PluginList"
    items = {i["name"]: i for i in data["items"]}
    assert items["NodeResourcesFit"]["origin"] == "built-in"
    assert items["NodeResourcesFit"]["defaultWeight"] == 1 and items["TaintToleration"]["defaultWeight"] == 3
    assert items["NodeResourcesFit"]["args"]["scoringStrategy"]["type"] == "LeastAllocated"
    assert items["Coscheduling"] == {**items["Coscheduling"], "origin": "out-of-tree",
                                     "extensionPoints": ["QueueSort", "PreFilter", "PostFilter", "Reserve", "Permit"],
                                     "defaultWeight": None, "enabledByDefault": False,
                                     "args": {"permitWaitingTimeSeconds": 60, "podGroupBackoffSeconds": 0,
                                              "podGroupRejectPercentage": 10}}
    assert items["PodCapacityOfNode"]["extensionPoints"] == ["Score"]
    assert items["sample-plugin"]["argsSchema"]["properties"]["favorite_number"] == {"type": "integer"}
    for name in ("QOSSort", "PodState", "NodeResourcesAllocatable", "CapacityScheduling", "CrossNodePreemption"):
        assert items[name]["origin"] == "out-of-tree", name


def test_plugins_yaml_and_custom_plugin() -> None:
    res = run_cli("plugins", "-o", "yaml", "--plugin", str(ROOT / "examples/custom-plugin/prefer_label.py:PreferLabel"))
    assert res.exit_code == 0, res.stderr
    items = {i["name"]: i for i in yaml.safe_load(res.stdout)["items"]}
    assert items["PreferLabel"]["origin"] == "custom"
    assert items["PreferLabel"]["extensionPoints"] == ["Filter", "Score"]
    assert items["PreferLabel"]["args"]["key"] == "topology.kubernetes.io/zone"


def test_plugins_table() -> None:
    res = run_cli("plugins")
    assert res.exit_code == 0, res.stderr
    assert "Coscheduling" in res.stdout and "out-of-tree" in res.stdout and "built-in" in res.stdout


def test_plugins_broken_custom_plugin_exits_2() -> None:
    res = run_cli("plugins", "--plugin", "no_such_module_abc:Thing")
    assert res.exit_code == 2 and "no_such_module_abc:Thing" in res.stderr and "Traceback" not in res.stderr


@pytest.mark.parametrize("case", CASES, ids=[f"profiles_{c['name']}" for c in CASES])
def test_profile_validates_and_explains(case: dict) -> None:
    plugin = ["--plugin", str(ROOT / case["plugin"])] if case.get("plugin") else []
    config = str(ROOT / case["config"])
    res = run_cli("validate", *plugin, config)
    assert res.exit_code == 0, res.stdout + res.stderr
    profile = ["--profile", case["profile"]] if case.get("profile") else []
    pod = ROOT / "fixtures" / "pods" / "pod.yaml"
    if not pod.exists():
        pytest.skip("fixtures/pods/pod.yaml not there yet")
    res = run_cli("explain", *plugin, *profile, "-c", config, "--cluster", str(_cluster()), str(pod), "-o", "json")
    assert res.exit_code in (0, 1), res.stderr
    data = json.loads(res.stdout)
    assert data["kind"] == "ExplainResult"
    stages = {(s["extensionPoint"], s["plugin"]) for s in data["stages"]}
    for point, name in case.get("stages", []):
        assert (point, name) in stages, (point, name, sorted(stages))
    scored = [n for n in data["nodes"] if n["scores"]]
    if "scores" in case:
        assert scored and all([s["plugin"] for s in n["scores"]] == case["scores"] for n in scored)
    for name in case.get("scores_include", []):
        assert scored and all(name in [s["plugin"] for s in n["scores"]] for n in scored)
    for name in case.get("filters", []):
        assert any(name in [f["plugin"] for f in n["filters"]] for n in data["nodes"])
    table = run_cli("explain", *plugin, *profile, "-c", config, "--cluster", str(_cluster()), str(pod))
    assert table.exit_code == res.exit_code and "Traceback" not in table.stderr
