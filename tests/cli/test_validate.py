"""``kschedctl validate``: exit codes, table, JSON/YAML of the contract, GitHub annotations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.cli.helpers import run_cli

HEAD = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
PROFILES = Path(__file__).resolve().parents[2] / "profiles"


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


BAD_WEIGHT = HEAD + ("profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n"
                     "        type: MostAllocated\n        resources:\n        - name: cpu\n          weight: 101\n")


def test_valid_file_exits_0(tmp_path: Path) -> None:
    result = run_cli("validate", _write(tmp_path, "ok.yaml", HEAD))
    assert result.exit_code == 0, result.stderr
    assert "valid" in result.stdout


def test_shipped_profiles_validate() -> None:
    files = sorted(str(p) for p in PROFILES.glob("*.yaml"))
    result = run_cli("validate", *files)
    assert result.exit_code == 0, result.stdout


def test_invalid_file_exits_1_with_table(tmp_path: Path) -> None:
    result = run_cli("validate", _write(tmp_path, "bad.yaml", BAD_WEIGHT))
    assert result.exit_code == 1
    assert "invalid (1 error)" in result.stdout
    assert "weight" in result.stdout


def test_json_output_is_the_contract(tmp_path: Path) -> None:
    path = _write(tmp_path, "bad.yaml", BAD_WEIGHT)
    result = run_cli("validate", "-o", "json", path)
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["kind"] == "ValidationResult" and data["file"] == path and data["valid"] is False
    err = data["errors"][0]
    assert err["field"] == "profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].weight"
    assert err["type"] == "Invalid"
    assert err["message"] == "Invalid value: 101: resource weight of cpu not in valid range (0, 100]"
    assert err["line"] == 11
    assert data["warnings"] == []


def test_yaml_output_and_several_files(tmp_path: Path) -> None:
    good = _write(tmp_path, "good.yaml", HEAD)
    bad = _write(tmp_path, "bad.yaml", BAD_WEIGHT)
    result = run_cli("validate", "-o", "yaml", good, bad)
    assert result.exit_code == 1
    data = yaml.safe_load(result.stdout)
    assert data["kind"] == "ValidationResultList"
    assert [item["valid"] for item in data["items"]] == [True, False]


def test_github_annotations(tmp_path: Path) -> None:
    path = _write(tmp_path, "bad.yaml", BAD_WEIGHT)
    result = run_cli("validate", "-o", "github", path)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"::error file={path},line=11::profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].weight: "
        "Invalid value: 101: resource weight of cpu not in valid range (0, 100]"]


def test_warnings_apart_and_allow_unknown_plugins(tmp_path: Path) -> None:
    path = _write(tmp_path, "custom.yaml", HEAD + "profiles:\n- plugins:\n    filter:\n      enabled:\n"
                                                 "      - name: MyFilter\n")
    strict = run_cli("validate", "-o", "json", path)
    assert strict.exit_code == 1
    relaxed = run_cli("validate", "--allow-unknown-plugins", "-o", "json", path)
    assert relaxed.exit_code == 0
    data = json.loads(relaxed.stdout)
    assert data["errors"] == [] and data["warnings"][0]["field"] == "profiles[0].plugins.filter.enabled[0]"
    table = run_cli("validate", "--allow-unknown-plugins", path)
    assert "warnings" in table.stdout


def test_removed_version_warns_and_converts(tmp_path: Path) -> None:
    path = _write(tmp_path, "old.yaml", "apiVersion: kubescheduler.config.k8s.io/v1beta3\n"
                                         "kind: KubeSchedulerConfiguration\n")
    result = run_cli("validate", "-o", "github", path)
    assert result.exit_code == 0
    assert result.stdout.startswith(f"::warning file={path},line=1::apiVersion: kubescheduler.config.k8s.io/v1beta3 "
                                    "was removed in Kubernetes v1.29")


@pytest.mark.parametrize("text", [
    "key: [unclosed\n",
    "- a list\n",
    "apiVersion: v1\nkind: Pod\n",
    "apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n",
    "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
    "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
    "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n",
    HEAD + "parallelism: 99999999999999999999999999\n",
    "a: " + "[" * 1000 + "]" * 1000 + "\n",
], ids=["not_yaml", "not_mapping", "other_kind", "old_version", "alias_bomb", "huge_number", "deeply_nested"])
def test_bad_input_exits_2_with_one_line(tmp_path: Path, text: str) -> None:
    path = _write(tmp_path, "cfg.yaml", text)
    result = run_cli("validate", path)
    assert result.exit_code == 2
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and path in lines[0]


def test_missing_file_exits_2(tmp_path: Path) -> None:
    result = run_cli("validate", str(tmp_path / "nope.yaml"))
    assert result.exit_code == 2
    assert "nope.yaml" in result.stderr


def test_stdin() -> None:
    result = run_cli("validate", "-o", "json", "-", stdin=HEAD)
    assert result.exit_code == 0
    assert json.loads(result.stdout)["file"] == "-"


def test_bad_output_format_is_usage_error(tmp_path: Path) -> None:
    result = run_cli("validate", "-o", "xml", _write(tmp_path, "ok.yaml", HEAD))
    assert result.exit_code == 2
