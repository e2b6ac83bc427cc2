"""``kschedctl defaults``: the effective configuration, as --write-config-to prints it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.cli.helpers import run_cli

HEAD = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def test_builtin_default_yaml() -> None:
    result = run_cli("defaults")
    assert result.exit_code == 0, result.stderr
    data = yaml.safe_load(result.stdout)
    assert data["apiVersion"] == "kubescheduler.config.k8s.io/v1"
    assert data["kind"] == "KubeSchedulerConfiguration"
    prof = data["profiles"][0]
    assert prof["schedulerName"] == "default-scheduler"
    names = [p["name"] for p in prof["plugins"]["multiPoint"]["enabled"]]
    assert names[0] == "SchedulingGates" and names[-1] == "DefaultBinder"
    assert names.index("DynamicResources") + 1 == names.index("DefaultPreemption")
    assert [pc["name"] for pc in prof["pluginConfig"]] == [
        "DefaultPreemption", "DynamicResources", "InterPodAffinity", "NodeAffinity",
        "NodeResourcesBalancedAllocation", "NodeResourcesFit", "PodTopologySpread", "VolumeBinding"]
    assert data["percentageOfNodesToScore"] == 0


def test_json_output_of_a_file(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(HEAD + "profiles:\n- schedulerName: packer\n  pluginConfig:\n  - name: NodeResourcesFit\n"
                    "    args: {scoringStrategy: {type: MostAllocated}}\n", encoding="utf-8")
    result = run_cli("defaults", "-o", "json", str(path))
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    fit = data["profiles"][0]["pluginConfig"][0]
    assert fit == {"name": "NodeResourcesFit", "args": {
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "NodeResourcesFitArgs",
        "scoringStrategy": {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
                            "type": "MostAllocated"}}}


def test_defaults_of_the_output_are_a_fixed_point(tmp_path: Path) -> None:
    first = run_cli("defaults")
    path = tmp_path / "d.yaml"
    path.write_text(first.stdout, encoding="utf-8")
    second = run_cli("defaults", str(path))
    assert second.exit_code == 0, second.stderr
    assert yaml.safe_load(second.stdout) == yaml.safe_load(first.stdout)


def test_invalid_config_is_printed_defaulted_with_its_errors_as_warnings_and_exit_1(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(HEAD + "parallelism: 0\nprofiles: [{schedulerName: a, plugins: {score: {disabled: [{name: '*'}]}}}]\n",
                    encoding="utf-8")
    result = run_cli("defaults", str(path))
    assert result.exit_code == 1
    printed = yaml.safe_load(result.stdout)
    assert printed["parallelism"] == 0 and printed["podMaxBackoffSeconds"] == 10  # defaulting still ran
    assert printed["profiles"][0]["pluginConfig"]  # default plugin args filled in
    assert result.stderr.splitlines() == [
        f"warning: {path}:3: invalid: parallelism: Invalid value: 0: should be an integer value greater than zero",
        f"warning: {path}: kube-scheduler would refuse to start with this configuration (1 validation error(s))",
    ]


def test_config_that_does_not_decode_exits_2_naming_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(HEAD + "parallelism: many\n", encoding="utf-8")
    result = run_cli("defaults", str(path))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith(f"error: {path}:3: ")


def test_removed_version_warning_on_stderr(tmp_path: Path) -> None:
    path = tmp_path / "old.yaml"
    path.write_text("apiVersion: kubescheduler.config.k8s.io/v1beta2\nkind: KubeSchedulerConfiguration\n",
                    encoding="utf-8")
    result = run_cli("defaults", str(path))
    assert result.exit_code == 0
    assert "removed in Kubernetes v1.28" in result.stderr
    assert yaml.safe_load(result.stdout)["apiVersion"] == "kubescheduler.config.k8s.io/v1"


@pytest.mark.parametrize("version", ["v1beta2", "v1beta3"])
def test_removed_version_migrates_to_an_equivalent_v1_file(tmp_path: Path, version: str) -> None:
    old = tmp_path / "old.yaml"
    old.write_text(f"apiVersion: kubescheduler.config.k8s.io/{version}\nkind: KubeSchedulerConfiguration\n"
                   "profiles:\n- schedulerName: packer\n  plugins:\n    score:\n      disabled:\n"
                   "      - name: ImageLocality\n  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n"
                   "      scoringStrategy:\n        type: MostAllocated\n", encoding="utf-8")
    migrated = run_cli("defaults", str(old))
    assert migrated.exit_code == 0, migrated.stderr
    new = tmp_path / "new.yaml"
    new.write_text(migrated.stdout, encoding="utf-8")
    # The printed file is a v1 configuration kube-scheduler v1.34 accepts as it is...
    checked = run_cli("validate", "-o", "json", str(new))
    assert checked.exit_code == 0 and json.loads(checked.stdout)["warnings"] == []
    # ...and it means the same: defaulting it again changes nothing.
    again = run_cli("defaults", str(new))
    assert again.exit_code == 0 and again.stderr == ""
    assert yaml.safe_load(again.stdout) == yaml.safe_load(migrated.stdout)
    profile = yaml.safe_load(migrated.stdout)["profiles"][0]
    assert profile["schedulerName"] == "packer"
    # upstream's internal->v1 round trip prints weight 0 on every entry without one
    assert {"name": "ImageLocality", "weight": 0} in profile["plugins"]["score"]["disabled"]
