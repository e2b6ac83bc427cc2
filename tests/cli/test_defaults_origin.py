"""``kschedctl defaults --explain-origin`` and the origin section of validate's table."""

from __future__ import annotations

import io
import json
from pathlib import Path

import yaml
from rich.console import Console

from tests.cli.helpers import run_cli

HEAD = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
PROFILES = Path(__file__).resolve().parents[2] / "profiles"

TRAPS = HEAD + """\
profiles:
- schedulerName: traps
  plugins:
    multiPoint:
      enabled:
      - name: NodeAffinity
      - name: DefaultBinder
        weight: 4
      disabled:
      - name: NodeResourcesFit
    filter:
      enabled:
      - name: NodeResourcesFit
  pluginConfig:
  - name: Coscheduling
    args: {}
"""


def _write(tmp_path: Path, text: str, name: str = "c.yaml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_table_of_the_builtin_default() -> None:
    result = run_cli("defaults", "--explain-origin")
    assert result.exit_code == 0, result.stderr
    assert "plugins of profile 'default-scheduler'" in result.stdout
    assert "multiPoint: default set" in result.stdout
    assert "plugin traps" not in result.stdout


def test_json_of_a_profile_file() -> None:
    result = run_cli("defaults", "--explain-origin", "-o", "json", str(PROFILES / "spreading.yaml"))
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["kind"] == "PluginOrigins"
    assert data["file"].endswith("spreading.yaml")
    prof = data["profiles"][0]
    pts = next(e for e in prof["multiPoint"] if e["plugin"] == "PodTopologySpread")
    assert pts == {"plugin": "PodTopologySpread", "weight": 5, "origin": "ReweightedInPlace", "via": "multiPoint",
                   "enabled": True, "field": "profiles[0].plugins.multiPoint.enabled[0]",
                   "detail": "re-weighted in place (2 -> 5)"}
    score = next(p for p in prof["extensionPoints"] if p["extensionPoint"] == "score")["plugins"]
    assert [(e["plugin"], e["weight"]) for e in score][4] == ("PodTopologySpread", 5)
    assert prof["pluginConfig"][0] == {"name": "PodTopologySpread", "origin": "User",
                                       "field": "profiles[0].pluginConfig[0]"}
    assert prof["warnings"] == []


def test_yaml_with_traps_from_stdin() -> None:
    result = run_cli("defaults", "--explain-origin", "-o", "yaml", "-", stdin=TRAPS)
    assert result.exit_code == 0, result.stderr
    data = yaml.safe_load(result.stdout)
    codes = [(w["code"], w["field"]) for w in data["profiles"][0]["warnings"]]
    assert codes == [
        ("WeightReset", "profiles[0].plugins.multiPoint.enabled[0]"),
        ("WeightIgnored", "profiles[0].plugins.multiPoint.enabled[1].weight"),
        ("DisabledReenabled", "profiles[0].plugins.multiPoint.disabled[0]"),
        ("PluginConfigUnused", "profiles[0].pluginConfig[0]")]


def test_table_shows_traps_and_fields(tmp_path: Path) -> None:
    result = run_cli("defaults", "--explain-origin", _write(tmp_path, TRAPS))
    assert result.exit_code == 0, result.stderr
    out = " ".join(result.stdout.split())
    for text in ("plugin traps", "WeightReset", "DisabledReenabled", "disabled at", "re-weighted", "NodeAffinity",
                 "user enabled"):
        assert text in out, text


def test_invalid_config_is_explained_with_its_errors_as_warnings_and_exit_1(tmp_path: Path) -> None:
    result = run_cli("defaults", "--explain-origin", _write(tmp_path, HEAD + "parallelism: 0\n"))
    assert result.exit_code == 1
    assert "default-scheduler" in result.stdout
    assert "invalid: parallelism: Invalid value: 0" in result.stderr


def test_table_format_needs_explain_origin() -> None:
    result = run_cli("defaults", "-o", "table")
    assert result.exit_code == 2
    assert "--explain-origin" in result.stderr


def test_plain_defaults_unchanged() -> None:
    result = run_cli("defaults")
    assert result.exit_code == 0
    assert yaml.safe_load(result.stdout)["kind"] == "KubeSchedulerConfiguration"


def test_validate_table_origin_section(tmp_path: Path) -> None:
    from kschedctl.config.api import raw_config, validate_file
    from kschedctl.config.origin import config_origins
    from kschedctl.render.validate import print_tables

    path = _write(tmp_path, TRAPS)
    results = [validate_file(path)]
    plain, with_origin = io.StringIO(), io.StringIO()
    print_tables(results, Console(file=plain, width=200))
    print_tables(results, Console(file=with_origin, width=200), origins=[config_origins(raw_config(path), path)])
    assert "where each setting came from" not in plain.getvalue()
    text = with_origin.getvalue()
    assert text.startswith(plain.getvalue())
    # Only what the user changed, then the traps.
    assert "re-weighted in place (2 -> unset)" in text and "default set" not in text.split("plugin traps")[0]
    assert "PluginConfigUnused" in text
