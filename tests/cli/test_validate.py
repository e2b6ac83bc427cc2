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


REMOVED_VERSIONS = [("v1beta3", "v1.29"), ("v1beta2", "v1.28")]


@pytest.mark.parametrize("version,release", REMOVED_VERSIONS)
def test_removed_version_is_invalid_with_upstreams_refusal(tmp_path: Path, version: str, release: str) -> None:
    path = _write(tmp_path, "old.yaml", f"apiVersion: kubescheduler.config.k8s.io/{version}\n"
                                         "kind: KubeSchedulerConfiguration\n")
    result = run_cli("validate", "-o", "json", path)
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["valid"] is False and data["warnings"] == []
    [error] = data["errors"]
    assert (error["field"], error["type"], error["line"]) == ("apiVersion", "Invalid", 1)
    assert error["message"] == (
        f'no kind "KubeSchedulerConfiguration" is registered for version "kubescheduler.config.k8s.io/{version}" '
        'in scheme "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme/scheme.go:30" '
        f"(kubescheduler.config.k8s.io/{version} was removed in Kubernetes {release})")
    assert f"`kschedctl defaults {path}` prints the v1 equivalent" in error["hint"]


def test_v1beta2_migration_hint_lists_weights_fields_and_plugins(tmp_path: Path) -> None:
    path = _write(tmp_path, "old.yaml", "apiVersion: kubescheduler.config.k8s.io/v1beta2\n"
                                         "kind: KubeSchedulerConfiguration\nhealthzBindAddress: 0.0.0.0:10251\n"
                                         "profiles:\n- plugins:\n    score:\n      enabled:\n"
                                         "      - {name: NodeResourcesMostAllocated, weight: 2}\n")
    result = run_cli("validate", "-o", "github", path)
    assert result.exit_code == 1
    first = result.stdout.splitlines()[0]
    assert first.startswith(f"::error file={path},line=1::apiVersion: no kind \"KubeSchedulerConfiguration\"")
    for change in ("TaintToleration 1 -> 3", "NodeAffinity 1 -> 2", "InterPodAffinity 1 -> 2",
                   "healthzBindAddress and metricsBindAddress no longer exist",
                   "NodeResourcesMostAllocated (use NodeResourcesFit with scoringStrategy.type MostAllocated)"):
        assert change in first
    # The converted file's own findings follow, so that one migration fixes everything.
    assert "profiles[0].plugins.score.enabled[0]" in result.stdout


@pytest.mark.parametrize("command", ["explain", "simulate", "capacity"])
def test_other_commands_convert_removed_versions_with_one_warning(tmp_path: Path, command: str) -> None:
    path = _write(tmp_path, "old.yaml", "apiVersion: kubescheduler.config.k8s.io/v1beta3\n"
                                         "kind: KubeSchedulerConfiguration\n")
    fixtures = PROFILES.parent / "fixtures"
    result = run_cli(command, "--cluster", str(fixtures / "cluster"), "-c", path, "-o", "json",
                     str(fixtures / "pods" / "pod.yaml"))
    assert result.exit_code in (0, 1), result.stderr
    warnings = [line for line in result.stderr.splitlines() if "v1beta3" in line]
    assert warnings == [f"warning: {path}: kube-scheduler v1.34 refuses kubescheduler.config.k8s.io/v1beta3 "
                        "(removed in Kubernetes v1.29); converted to kubescheduler.config.k8s.io/v1 for this run; "
                        f"`kschedctl defaults {path}` prints the v1 equivalent"]
    assert "v1beta3" not in run_cli(command, "--cluster", str(fixtures / "cluster"), "-c", path, "-o", "json",
                                    "--quiet", str(fixtures / "pods" / "pod.yaml")).stderr


def test_several_files_are_all_reported_and_exit_2_wins(tmp_path: Path) -> None:
    good = _write(tmp_path, "good.yaml", HEAD)
    bad_weight = _write(tmp_path, "weight.yaml", BAD_WEIGHT)
    broken = _write(tmp_path, "broken.yaml", "key: [unclosed\n")
    missing = str(tmp_path / "missing.yaml")
    result = run_cli("validate", "-o", "json", good, broken, bad_weight, missing)
    assert result.exit_code == 2
    items = json.loads(result.stdout)["items"]
    assert [(i["file"], i["valid"], i.get("unreadable", False)) for i in items] == [
        (good, True, False), (broken, False, True), (bad_weight, False, False), (missing, False, True)]
    assert items[1]["errors"] == [{"field": "", "type": "Invalid", "line": 2,
                                   "message": "not valid YAML: did not find expected ',' or ']'"}]
    assert result.stderr.splitlines() == [
        f"error: {broken}:2: not valid YAML: did not find expected ',' or ']'",
        f"error: {missing}: cannot read the file: No such file or directory"]
    table = run_cli("validate", good, broken, bad_weight)
    assert table.exit_code == 2
    assert f"{good}: valid" in table.stdout and f"{bad_weight}: invalid (1 error)" in table.stdout
    github = run_cli("validate", "-o", "github", broken, good)
    assert github.stdout.startswith(f"::error file={broken},line=2::not valid YAML")


@pytest.mark.parametrize("files,code", [
    (["good"], 0), (["good", "weight"], 1), (["weight", "broken"], 2), (["good", "broken"], 2)])
def test_exit_code_of_several_files(tmp_path: Path, files: list[str], code: int) -> None:
    texts = {"good": HEAD, "weight": BAD_WEIGHT, "broken": "- a list\n"}
    result = run_cli("validate", *[_write(tmp_path, f"{f}.yaml", texts[f]) for f in files])
    assert result.exit_code == code


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


LINT_CASES = {
    # name: (profiles text, expected (field, line, message start, hint part))
    "zero_weight_in_score": (
        "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: ImageLocality\n        weight: 0\n",
        ("profiles[0].plugins.score.enabled[0].weight", 8,
         'Invalid value: 0: weight 0 counts as 1 for score plugin "ImageLocality"; to turn the plugin off, disable it',
         "plugins.score.disabled")),
    "zero_weight_in_multipoint": (
        "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: TaintToleration\n        weight: 0\n",
        ("profiles[0].plugins.multiPoint.enabled[0].weight", 8,
         'Invalid value: 0: weight 0 counts as 1 for score plugin "TaintToleration"', "plugins.score.disabled")),
    "negative_weight_names_its_entry": (
        "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: NodeAffinity\n      - name: ImageLocality\n"
        "        weight: -2\n",
        ("profiles[0].plugins.score.enabled[1].weight", 9, 'Invalid value: -2: score plugin "ImageLocality" has a '
         "negative weight", "")),
    "args_of_a_plugin_not_enabled": (
        "profiles:\n- plugins:\n    multiPoint:\n      disabled:\n      - name: NodeAffinity\n  pluginConfig:\n"
        "  - name: NodeAffinity\n    args: {}\n",
        ("profiles[0].pluginConfig[0]", 9,
         'Invalid value: "NodeAffinity": the plugin is not enabled in this profile; its args are ignored', "")),
}


@pytest.mark.parametrize("case", sorted(LINT_CASES))
def test_silent_no_ops_are_warnings_at_their_entry(tmp_path: Path, case: str) -> None:
    text, (field, line, message, hint) = LINT_CASES[case]
    result = run_cli("validate", "-o", "json", _write(tmp_path, "cfg.yaml", HEAD + text))
    assert result.exit_code == 0, result.stdout
    [warning] = json.loads(result.stdout)["warnings"]
    assert (warning["field"], warning["line"]) == (field, line)
    assert warning["message"].startswith(message)
    assert hint in warning.get("hint", "")


def test_defaults_output_validates_without_other_warnings(tmp_path: Path) -> None:
    # Upstream's --write-config-to prints weight 0 for a score entry written without a weight;
    # validate says what that 0 means. Nothing else in the printed file may be flagged.
    for profile in sorted(PROFILES.glob("*.yaml")):
        printed = run_cli("defaults", str(profile))
        assert printed.exit_code == 0, (profile, printed.stderr)
        result = run_cli("validate", "-o", "json", _write(tmp_path, profile.name, printed.stdout))
        others = [w for w in json.loads(result.stdout)["warnings"] if "weight 0 counts as 1" not in w["message"]]
        assert others == [], profile


def test_duplicate_and_queue_sort_findings_say_what_differs(tmp_path: Path) -> None:
    text = HEAD + ("profiles:\n- schedulerName: a\n- schedulerName: a\n  plugins:\n    queueSort:\n      enabled:\n"
                   "      - name: QOSSort\n      disabled:\n      - name: \"*\"\n")
    result = run_cli("validate", "-o", "json", _write(tmp_path, "cfg.yaml", text))
    errors = json.loads(result.stdout)["errors"]
    duplicate = next(e for e in errors if e["type"] == "Duplicate")
    assert (duplicate["field"], duplicate["line"], duplicate["message"]) == (
        "profiles[1].schedulerName", 5, "Duplicate value: {}")
    assert duplicate["hint"].startswith('"a" is already the name of profiles[0]')
    queue = next(e for e in errors if e["message"].endswith("must be the same for all profiles"))
    assert "profiles[0] sorts the queue with the default (PrioritySort), profiles[1] with QOSSort" in queue["hint"]
