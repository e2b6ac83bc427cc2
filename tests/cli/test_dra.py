"""Pods with ResourceClaims through the CLI: the bundled GPU cluster, malformed DRA objects
(one line naming file, line and field, exit 2), and messages printed as they are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.cli.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2] / "profiles" / "scenarios"
CLUSTER = str(ROOT / "cluster" / "dra-gpus.yaml")
BIG_GPU = str(ROOT / "pods" / "dra-big-gpu.yaml")


def test_explain_json_has_the_devices_per_node() -> None:
    result = run_cli("explain", BIG_GPU, "--cluster", CLUSTER, "-o", "json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    chosen = next(n for n in doc["nodes"] if n["name"] == doc["selectedNode"])
    assert [d["device"] for d in chosen["allocations"][0]["devices"]] == ["gpu-0"]
    assert doc["selectedNode"] == "h100-1"


def test_explain_table_names_the_devices_and_the_gap() -> None:
    result = run_cli("explain", BIG_GPU, "--cluster", CLUSTER)
    assert result.exit_code == 0, result.stderr
    assert "Devices allocated on h100-1" in result.stdout
    assert "0 of them match" in result.stdout


def test_simulate_yaml_lists_each_pods_devices() -> None:
    result = run_cli("simulate", BIG_GPU, str(ROOT / "pods" / "dra-two-gpus.yaml"), "--cluster", CLUSTER, "-o", "yaml")
    assert result.exit_code == 0, result.stderr
    placements = {p["pod"]: p for p in yaml.safe_load(result.stdout)["placements"]}
    assert placements["default/big-model"]["devices"] == ["gpu.example.com/h100-1/gpu-0"]
    assert len(placements["default/finetune"]["devices"]) == 2


def _broken_cluster(tmp_path: Path, edit) -> str:
    docs = [d for d in yaml.safe_load_all(Path(CLUSTER).read_text(encoding="utf-8")) if d]
    for d in docs:
        edit(d)
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(docs), encoding="utf-8")
    return str(path)


def _slice(field: str, value):
    def edit(d: dict) -> None:
        if d["kind"] == "ResourceSlice" and d["metadata"]["name"] == "h100-1-gpu.example.com":
            target = d["spec"]["devices"][0] if field.startswith("device.") else d["spec"]
            target[field.removeprefix("device.")] = value
    return edit


@pytest.mark.parametrize("edit, message", [
    (_slice("devices", "x"), "ResourceSlice h100-1-gpu.example.com: spec.devices must be a list, not \"x\""),
    (_slice("device.attributes", ["a"]), "spec.devices[0].attributes must be a mapping, not a list"),
    (_slice("device.capacity", {"memory": {"value": "lots"}}),
     "spec.devices[0].capacity.memory.value: invalid quantity 'lots'"),
    (_slice("pool", {"name": "p", "resourceSliceCount": 0}), "spec.pool.resourceSliceCount must be at least 1, not 0"),
    (lambda d: d["kind"] == "DeviceClass" and d["spec"]["selectors"][0]["cel"].update(expression="true || " * 1300 + "true"),
     "DeviceClass gpu.example.com: spec.selectors[0].cel.expression: Too long: may not be more than 10240 bytes"),
])
def test_malformed_dra_objects_are_input_errors(tmp_path: Path, edit, message: str) -> None:
    result = run_cli("explain", BIG_GPU, "--cluster", _broken_cluster(tmp_path, edit))
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1


def test_messages_are_printed_as_they_are(tmp_path: Path) -> None:
    """A CEL error quoting what looks like rich markup reaches the terminal unchanged."""
    def edit(d: dict) -> None:
        if d["kind"] == "DeviceClass":
            d["spec"]["selectors"][0]["cel"]["expression"] = 'device.attributes["gpu.example.com"]["[bold]x"] == 1'
    result = run_cli("explain", BIG_GPU, "--cluster", _broken_cluster(tmp_path, edit))
    assert result.exit_code == 1
    message = next(line for line in result.stdout.splitlines() if line.strip().startswith("Message"))
    assert message.endswith("CEL runtime error: no such key: [bold]x")


def test_allocation_mode_from_a_newer_api_server_fails_the_claim_at_filter_not_the_input() -> None:
    # Upstream's allocator answers an unknown mode (version skew) with an error for that claim.
    cases = Path(__file__).parent / "cases" / "dra"
    result = run_cli("explain", str(cases / "pod-using-claim-skewed.yaml"), "--cluster", CLUSTER,
                     "--cluster", str(cases / "claim-with-newer-allocation-mode.yaml"), "-o", "json")
    assert result.exit_code == 1, result.stderr
    doc = json.loads(result.stdout)
    assert doc["outcome"] == "Error"
    assert doc["message"] == ('running "DynamicResources" filter plugin: claim default/skewed, request gpu: '
                              "unsupported count mode AtLeast")


BUNDLED = str(Path(__file__).parent / "cases" / "dra" / "claim-bundled-with-its-pod.yaml")


@pytest.mark.parametrize("command", ["explain", "simulate", "capacity"])
def test_a_claim_bundled_with_its_pod_joins_the_cluster_state_and_is_named(command: str) -> None:
    result = run_cli(command, BUNDLED, "--cluster", CLUSTER, "-o", "json", "--seed", "1")
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines() == [
        f"note: {BUNDLED}: ResourceClaim default/gpu-claim joined the cluster state for this run, as if applied "
        "before the pods"]
    doc = json.loads(result.stdout)
    if command == "explain":
        assert doc["outcome"] == "Scheduled"
    elif command == "simulate":
        assert doc["placements"][0]["outcome"] == "Scheduled"
    else:
        # Copies share the one claim: allocated once, it pins every copy to the node of its device.
        assert doc["count"] > 0 and len(doc["perNode"]) == 1
