"""Shipped profiles, start-up checks (framework construction), unknown plugins, rendering."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kschedctl.config.api import default_config_dict, default_configuration, load_config, validate_text
from kschedctl.config.expand import expand_plugins, points_lookup

PROFILES = sorted((Path(__file__).resolve().parents[2] / "profiles").glob("*.yaml"))
HEAD = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


@pytest.mark.parametrize("path", PROFILES, ids=[p.stem for p in PROFILES])
def test_every_shipped_profile_is_valid_and_explained(path: Path) -> None:
    result = validate_text(path.read_text(encoding="utf-8"), str(path))
    assert result.valid, [str(e) for e in result.errors]
    assert result.warnings == []
    assert path.read_text(encoding="utf-8").startswith("# ")


def test_shipped_profile_names() -> None:
    assert {p.stem for p in PROFILES} >= {"default", "bin-packing", "spreading", "gpu-packing", "two-profiles"}


def test_default_profile_file_equals_the_builtin_default() -> None:
    path = next(p for p in PROFILES if p.stem == "default")
    assert default_config_dict(load_config(str(path))) == default_config_dict(default_configuration())


def test_bin_packing_uses_most_allocated() -> None:
    path = next(p for p in PROFILES if p.stem == "bin-packing")
    args = load_config(str(path)).profiles[0].args_for("NodeResourcesFit")
    assert args is not None and args["scoringStrategy"]["type"] == "MostAllocated"


def test_default_rendering_matches_write_config_to_shape() -> None:
    out = default_config_dict(default_configuration())
    assert list(out) == sorted(out)
    prof = out["profiles"][0]
    assert prof["plugins"]["filter"] == {}
    assert prof["plugins"]["multiPoint"]["enabled"][0] == {"name": "SchedulingGates", "weight": 0}
    assert out["clientConnection"]["kubeconfig"] == ""
    yaml.safe_dump(out)


def _errors(body: str, **kw: object) -> list[tuple[str, str]]:
    result = validate_text(HEAD + body, "cfg.yaml", **kw)  # type: ignore[arg-type]
    return [(e.field, e.message) for e in result.errors]


STARTUP = {
    "does_not_extend": (
        "profiles:\n- plugins:\n    score:\n      enabled: [{name: PrioritySort}]\n",
        [("profiles[0].plugins.score.enabled[0]", 'plugin "PrioritySort" does not extend ScorePlugin plugin')]),
    "duplicate_at_point": (
        "profiles:\n- plugins:\n    filter:\n      enabled: [{name: NodeName}, {name: NodeName}]\n",
        [("profiles[0].plugins.filter.enabled[1]", 'plugin "NodeName" already registered as "FilterPlugin"')]),
    "duplicate_in_multipoint": (
        "profiles:\n- plugins:\n    multiPoint:\n      enabled: [{name: ImageLocality}, {name: ImageLocality, weight: 2}]\n",
        [("profiles[0].plugins.multiPoint.enabled[19]", 'plugin "ImageLocality" already registered as "ScorePlugin"')]),
    "no_queue_sort": (
        "profiles:\n- schedulerName: x\n  plugins:\n    multiPoint:\n      disabled: [{name: PrioritySort}]\n",
        [("profiles[0].plugins.queueSort",
          'only one queue sort plugin required for profile with scheduler name "x", but got 0')]),
    "no_bind": (
        "profiles:\n- plugins:\n    bind:\n      disabled: [{name: '*'}]\n",
        [("profiles[0].plugins.bind", 'at least one bind plugin is needed for profile with scheduler name '
                                      '"default-scheduler"')]),
    "fit_args_checked_when_built": (
        "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n"
        "        type: LeastAllocated\n        resources: [{name: cpu, weight: 200}]\n",
        [("profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].weight",
          "Invalid value: 200: resource weight of cpu not in valid range (0, 100]")]),
    "effective_queue_sort_differs": (
        "profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n    multiPoint:\n"
        "      disabled: [{name: PrioritySort}]\n      enabled: [{name: SchedulingGates}]\n",
        [("profiles[1].plugins.queueSort",
          'only one queue sort plugin required for profile with scheduler name "b", but got 0')]),
}


@pytest.mark.parametrize("body,want", STARTUP.values(), ids=list(STARTUP))
def test_startup_errors(body: str, want: list[tuple[str, str]]) -> None:
    assert _errors(body) == want


def test_fit_args_of_disabled_plugin_are_not_checked() -> None:
    body = ("profiles:\n- plugins:\n    multiPoint:\n      disabled: [{name: NodeResourcesFit}]\n  pluginConfig:\n"
            "  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        resources: [{name: cpu, weight: 200}]\n")
    result = validate_text(HEAD + body, "cfg.yaml")
    assert result.valid
    assert [w.field for w in result.warnings] == ["profiles[0].pluginConfig[0]"]


def test_unknown_plugins_are_errors_or_warnings() -> None:
    body = "profiles:\n- plugins:\n    filter:\n      enabled: [{name: MyFilter}]\n"
    assert _errors(body)[0][0] == "profiles[0].plugins.filter.enabled[0]"
    relaxed = validate_text(HEAD + body, "cfg.yaml", allow_unknown_plugins=True)
    assert relaxed.valid and relaxed.warnings[0].field == "profiles[0].plugins.filter.enabled[0]"
    extra = validate_text(HEAD + body, "cfg.yaml", extra_plugins={"MyFilter": ["filter"]})
    assert extra.valid and extra.warnings == []
    wrong_point = validate_text(HEAD + body, "cfg.yaml", extra_plugins={"MyFilter": ["score"]})
    assert [e.message for e in wrong_point.errors] == ['plugin "MyFilter" does not extend FilterPlugin plugin']


def test_unknown_plugin_hints() -> None:
    result = validate_text(HEAD + "profiles:\n- plugins:\n    score:\n      enabled: [{name: NodeResourceFit}, "
                           "{name: NodeResourcesMostAllocated}]\n", "cfg.yaml")
    assert [e.hint for e in result.errors] == [
        "did you mean NodeResourcesFit?", "use NodeResourcesFit with scoringStrategy.type MostAllocated"]


def test_removed_plugin_reported_once_with_upstream_message() -> None:
    errors = _errors("profiles:\n- plugins:\n    filter:\n      enabled: [{name: EBSLimits}]\n")
    assert errors == [("profiles[0].plugins.filter.enabled[0]",
                       'Invalid value: "EBSLimits": was invalid in version "kubescheduler.config.k8s.io/v1" '
                       '(KubeSchedulerConfiguration is version "kubescheduler.config.k8s.io/v1")')]


def test_negative_score_weight_is_a_warning() -> None:
    result = validate_text(HEAD + "profiles:\n- plugins:\n    multiPoint:\n      enabled: [{name: ImageLocality, "
                           "weight: -2}]\n", "cfg.yaml")
    assert result.valid
    assert "negative weight" in result.warnings[0].message


def test_expand_explicit_weight_overrides_multipoint() -> None:
    cfg = load_config(None)
    points_of, _ = points_lookup()
    result = validate_text(HEAD + "profiles:\n- plugins:\n    score:\n      enabled: [{name: ImageLocality, weight: 0}]\n",
                           "cfg.yaml")
    assert result.config is not None
    score = expand_plugins(result.config.profiles[0], points_of)["score"]
    # ImageLocality explicitly at score: it moves first (an override), weight 0 -> 1.
    assert (score[0].name, score[0].weight) == ("ImageLocality", 1)
    default_score = expand_plugins(cfg.profiles[0], points_of)["score"]
    assert [r.name for r in default_score][-1] == "ImageLocality"


def test_lines_point_at_the_offending_field() -> None:
    body = ("profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n"
            "        type: RequestedToCapacityRatio\n        requestedToCapacityRatio:\n          shape:\n"
            "          - utilization: 10\n            score: 11\n")
    result = validate_text(HEAD + body, "cfg.yaml")
    assert [(e.field, e.line) for e in result.errors] == [
        ("profiles[0].pluginConfig[0].args.scoringStrategy.shape[0].score", 12)]
