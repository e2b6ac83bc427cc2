"""Decoding: bad input is one InputError (exit 2) with file and line; versions; schema findings."""

from __future__ import annotations

from pathlib import Path

import pytest

from kschedctl.config import schema
from kschedctl.config.api import ConfigInvalidError, load_config, validate_text
from kschedctl.errors import EXIT_BAD_INPUT, InputError

HEAD = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"

BAD_INPUT = {
    "not_yaml": ("apiVersion: [unclosed\n", None),
    "tab_indentation": ("apiVersion: x\n\tkind: y\n", 2),
    "not_a_mapping": ("- a\n- b\n", 1),
    "scalar_document": ("just a string\n", 1),
    "empty_file": ("", None),
    "other_kind": ("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n", 2),
    "missing_kind": ("apiVersion: kubescheduler.config.k8s.io/v1\n", 1),
    "unknown_version": ("apiVersion: kubescheduler.config.k8s.io/v2\nkind: KubeSchedulerConfiguration\n", 1),
    "two_documents": (HEAD + "---\n" + HEAD, 3),
    "alias_bomb": ("a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                   + "".join(f"{c}: &{c} [{', '.join(['*' + p] * 10)}]\n"
                             for p, c in zip("abcdefgh", "bcdefghi")), None),
    "huge_integer": (HEAD + "parallelism: 1" + "0" * 30 + "\n", 3),
    "gigantic_integer": (HEAD + "parallelism: " + "9" * 5000 + "\n", 3),
    "infinite_float": (HEAD + "parallelism: .inf\n", 3),
    "deeply_nested_flow": ("a: " + "[" * 500 + "]" * 500 + "\n", None),
    "deeply_nested_block": ("".join("  " * i + f"k{i}:\n" for i in range(80)) + "  " * 80 + "v: 1\n", None),
    "recursive_alias": ("a: &a [*a]\n", None),
    "complex_key": ("? [a, b]\n: c\n", 1),
}


@pytest.mark.parametrize("text,line", BAD_INPUT.values(), ids=list(BAD_INPUT))
def test_bad_input_is_one_input_error(text: str, line: int | None) -> None:
    with pytest.raises(InputError) as exc:
        validate_text(text, "cfg.yaml")
    err = exc.value
    assert err.exit_code == EXIT_BAD_INPUT
    assert err.file == "cfg.yaml"
    if line is not None:
        assert err.line == line
    assert "\n" not in str(err)


@pytest.mark.parametrize("version,release", [("v1beta1", "v1.23"), ("v1alpha2", "v1.18"), ("v1alpha1", "v1.16")])
def test_old_versions_are_refused_naming_plugins_to_migrate(version: str, release: str) -> None:
    text = (f"apiVersion: kubescheduler.config.k8s.io/{version}\nkind: KubeSchedulerConfiguration\n"
            "profiles:\n- schedulerName: x\n  plugins:\n    score:\n      enabled:\n"
            "      - name: NodeResourcesLeastAllocated\n      - name: RequestedToCapacityRatio\n")
    with pytest.raises(InputError) as exc:
        validate_text(text, "old.yaml")
    msg = str(exc.value)
    assert release in msg
    assert "NodeResourcesLeastAllocated (use NodeResourcesFit with scoringStrategy.type LeastAllocated)" in msg
    assert "RequestedToCapacityRatio (use NodeResourcesFit" in msg
    assert exc.value.line == 1


@pytest.mark.parametrize("version,release", [("v1beta3", "v1.29"), ("v1beta2", "v1.28")])
def test_removed_versions_convert_with_a_warning(version: str, release: str) -> None:
    text = f"apiVersion: kubescheduler.config.k8s.io/{version}\nkind: KubeSchedulerConfiguration\n"
    result = validate_text(text, "old.yaml")
    assert result.valid
    assert len(result.warnings) == 1
    assert f"removed in Kubernetes {release}" in result.warnings[0].message
    assert result.config is not None and result.config.api_version.endswith(version)
    assert result.config.profiles[0].scheduler_name == "default-scheduler"


def test_v1beta2_only_fields_are_dropped_with_a_warning() -> None:
    text = ("apiVersion: kubescheduler.config.k8s.io/v1beta2\nkind: KubeSchedulerConfiguration\n"
            "healthzBindAddress: 0.0.0.0:10251\n")
    result = validate_text(text, "old.yaml")
    assert result.valid
    assert [w.field for w in result.warnings] == ["apiVersion", "healthzBindAddress"]
    assert result.warnings[1].line == 3
    # ...but v1 does not know the field.
    v1 = validate_text(HEAD + "healthzBindAddress: 0.0.0.0:10251\n", "new.yaml")
    assert [(e.field, e.message) for e in v1.errors] == [("healthzBindAddress", 'unknown field "healthzBindAddress"')]


SCHEMA_FINDINGS = {
    "unknown_top_field": ("percentageOfNodeToScore: 100\n", "percentageOfNodeToScore", 3),
    "unknown_args_field": ("profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n"
                           "      scoringStrategy:\n        resourcess: []\n",
                           "profiles[0].pluginConfig[0].args.scoringStrategy.resourcess", 8),
    "wrong_type": ("parallelism: many\n", "parallelism", 3),
    "int32_overflow": ("parallelism: 3000000000\n", "parallelism", 3),
    "bad_duration": ("leaderElection:\n  leaseDuration: soon\n", "leaderElection.leaseDuration", 4),
    "bad_filter_timeout": ("profiles:\n- pluginConfig:\n  - name: DynamicResources\n    args: {filterTimeout: 10x}\n",
                           "profiles[0].pluginConfig[0].args.filterTimeout", 6),
    "duplicate_key": ("parallelism: 1\nparallelism: 2\n", "parallelism", 4),
    "weight_not_int": ("profiles:\n- plugins:\n    score:\n      enabled:\n      - {name: ImageLocality, weight: high}\n",
                       "profiles[0].plugins.score.enabled[0].weight", 7),
}


@pytest.mark.parametrize("body,field,line", SCHEMA_FINDINGS.values(), ids=list(SCHEMA_FINDINGS))
def test_schema_findings_have_path_and_line(body: str, field: str, line: int) -> None:
    result = validate_text(HEAD + body, "cfg.yaml")
    assert not result.valid
    assert result.errors[0].field == field
    assert result.errors[0].line == line


def test_out_of_tree_args_are_free_form() -> None:
    result = validate_text(HEAD + "profiles:\n- pluginConfig:\n  - name: Coscheduling\n    args: {anything: [1, 2]}\n",
                           "cfg.yaml")
    assert result.valid
    assert [w.field for w in result.warnings] == ["profiles[0].pluginConfig[0]"]


def test_null_means_unset() -> None:
    result = validate_text(HEAD + "parallelism: null\nprofiles:\n- schedulerName: null\n", "cfg.yaml")
    assert result.valid and result.config is not None
    assert result.config.parallelism == 16
    assert result.config.profiles[0].scheduler_name == "default-scheduler"


def test_json_input() -> None:
    text = '{"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration", "parallelism": 4}'
    result = validate_text(text, "cfg.json")
    assert result.valid and result.config is not None and result.config.parallelism == 4


def test_shipped_schemas_are_current() -> None:
    for version in schema.VERSIONS:
        assert schema.load(version) == schema.build(version), f"run python -m kschedctl.config.schema ({version})"


def test_load_config_raises_exit_2_naming_file_and_first_findings(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(HEAD + "parallelism: 0\npodInitialBackoffSeconds: 0\npodMaxBackoffSeconds: -1\nprofiles:\n- schedulerName: a\n"
                    "- schedulerName: a\n", encoding="utf-8")
    with pytest.raises(ConfigInvalidError) as exc:
        load_config(str(path))
    assert exc.value.exit_code == EXIT_BAD_INPUT
    msg = str(exc.value)
    assert msg.startswith(f"{path}:3: invalid scheduler configuration: parallelism: Invalid value: 0")
    assert "and 1 more" in msg


def test_load_config_none_is_the_builtin_default() -> None:
    cfg = load_config(None)
    assert [p.scheduler_name for p in cfg.profiles] == ["default-scheduler"]
    assert cfg.parallelism == 16 and cfg.percentage_of_nodes_to_score == 0
    assert cfg.pod_initial_backoff_seconds == 1 and cfg.pod_max_backoff_seconds == 10
    assert cfg.profiles[0].args_for("NodeResourcesFit") == {
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "NodeResourcesFitArgs",
        "scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": "cpu", "weight": 1},
                                                                    {"name": "memory", "weight": 1}]}}


def test_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(InputError) as exc:
        load_config(str(tmp_path / "missing.yaml"))
    assert "missing.yaml" in str(exc.value)
    (tmp_path / "bin.yaml").write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(InputError):
        load_config(str(tmp_path / "bin.yaml"))
