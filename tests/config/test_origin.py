"""Where each plugin setting came from: upstream's merge rules (TestMergePlugins inputs), the
multiPoint expansion per extension point, and the classic traps."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from kschedctl.config.origin import (
    APPENDED,
    DEFAULT_SET,
    REWEIGHTED_IN_PLACE,
    USER_DISABLED,
    USER_ENABLED,
    USER_ENABLED_OVERRIDE,
    config_origins,
    plugin_set_origins,
)
from kschedctl.config.types import EXTENSION_POINTS
from tests.config.cases import params

D, R, A, U, X = DEFAULT_SET, REWEIGHTED_IN_PLACE, APPENDED, USER_ENABLED, USER_DISABLED

#: Per TestMergePlugins case (tests/config/cases/merge_plugins.yaml): per extension point, the
#: origin of each entry of the merged list, then of the default entries the user removed.
ORIGINS: dict[str, dict[str, list[tuple[str, str]]]] = {
    "AppendCustomPlugin": {"filter": [("DefaultPlugin1", D), ("DefaultPlugin2", D), ("CustomPlugin", A)]},
    "InsertAfterDefaultPlugins2": {"filter": [("DefaultPlugin1", D), ("CustomPlugin", A), ("DefaultPlugin2", A)]},
    "InsertBeforeAllPlugins": {"filter": [("CustomPlugin", U), ("DefaultPlugin1", U), ("DefaultPlugin2", U)]},
    "ReorderDefaultPlugins": {"filter": [("DefaultPlugin2", U), ("DefaultPlugin1", U)]},
    "ApplyNilCustomPlugin": {"filter": [("DefaultPlugin1", D), ("DefaultPlugin2", D)]},
    "CustomPluginOverrideDefaultPlugin": {"filter": [("Plugin1", R), ("Plugin2", D), ("Plugin3", R)]},
    "OrderPreserveAfterOverride": {"filter": [("Plugin1", R), ("Plugin2", R), ("Plugin3", D)]},
    "RepeatedCustomPlugin": {"filter": [("Plugin1", R), ("Plugin2", R), ("Plugin3", R), ("Plugin2", A)]},
    "Append custom MultiPoint plugin": {
        "multiPoint": [("DefaultPlugin1", D), ("DefaultPlugin2", D), ("CustomPlugin", A)]},
    "Append disabled Multipoint plugins": {
        "multiPoint": [("DefaultPlugin1", D), ("CustomPlugin", A), ("CustomPlugin2", A), ("DefaultPlugin2", X)],
        "score": []},
    "override default MultiPoint plugins with custom value": {"multiPoint": [("DefaultPlugin", R)]},
    "disabled MultiPoint plugin in default set": {"multiPoint": [("DefaultPlugin", D), ("CustomPlugin", A)]},
    "disabled MultiPoint plugin in default set for specific extension point": {
        "multiPoint": [("DefaultPlugin", D), ("CustomPlugin", A)], "score": []},
    "multipoint with only disabled gets merged": {"multiPoint": [("DefaultPlugin", X)]},
}


@pytest.mark.parametrize("case", params("merge_plugins", "MergePluginsOrigin"))
def test_merge_plugins_origins(case: dict[str, Any]) -> None:
    default, custom, want = case["default"], case["custom"], case["want"]
    expected = ORIGINS[case["name"]]
    for point in sorted(set(default) | set(custom or {}) | set(want)):
        entries = plugin_set_origins(copy.deepcopy(default.get(point)),
                                     None if custom is None else copy.deepcopy(custom.get(point)),
                                     point, f"profiles[0].plugins.{point}")
        enabled = [e for e in entries if e.enabled]
        # The merged list itself is upstream's (mergePluginSet), weights included.
        assert [{"name": e.plugin, **({"weight": e.weight} if e.weight is not None else {})} for e in enabled] \
            == (want.get(point) or {}).get("enabled", [])
        assert [(e.plugin, e.origin) for e in entries] == expected.get(point, []), point
        for e in entries:
            assert e.via == point
            assert (e.field is None) == (e.origin == D or (e.origin == X and custom is None))


def test_repeated_custom_plugin_fields_point_at_the_user_entries() -> None:
    entries = plugin_set_origins({"enabled": [{"name": "Plugin1"}, {"name": "Plugin2"}, {"name": "Plugin3"}]},
                                 {"enabled": [{"name": "Plugin1"}, {"name": "Plugin2", "weight": 2},
                                              {"name": "Plugin3"}, {"name": "Plugin2", "weight": 4}]},
                                 "filter", "p.filter")
    # The last of two entries replaces the default in place; the earlier one is appended.
    assert [(e.plugin, e.weight, e.field) for e in entries] == [
        ("Plugin1", None, "p.filter.enabled[0]"), ("Plugin2", 4, "p.filter.enabled[3]"),
        ("Plugin3", None, "p.filter.enabled[2]"), ("Plugin2", 2, "p.filter.enabled[1]")]
    assert entries[1].detail == "re-weighted in place (unset -> 4)"
    assert entries[0].detail == "listed again, replaced in place (weight unset as before)"
    assert entries[3].detail == "default plugin enabled again, appended"


def _origins(text: str) -> Any:
    raw = yaml.safe_load("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n" + text)
    return config_origins(raw)


def _rows(profile: Any, point: str) -> list[tuple[Any, ...]]:
    return [(e.plugin, e.weight, e.origin, e.via) for e in profile.point(point).entries]


def test_default_set_through_multipoint() -> None:
    prof = config_origins(None).profiles[0]
    assert prof.scheduler_name == "default-scheduler"
    assert all(e.origin == D and e.field is None for e in prof.multi_point.entries)
    assert [e.plugin for e in prof.multi_point.entries][:2] == ["SchedulingGates", "PrioritySort"]
    for po in prof.points:
        assert all(e.origin == D and e.via == "multiPoint" and e.enabled for e in po.entries), po.point
    assert _rows(prof, "score") == [
        ("TaintToleration", 3, D, "multiPoint"), ("NodeAffinity", 2, D, "multiPoint"),
        ("NodeResourcesFit", 1, D, "multiPoint"), ("VolumeBinding", 1, D, "multiPoint"),
        ("PodTopologySpread", 2, D, "multiPoint"), ("InterPodAffinity", 2, D, "multiPoint"),
        ("NodeResourcesBalancedAllocation", 1, D, "multiPoint"), ("ImageLocality", 1, D, "multiPoint")]
    assert _rows(prof, "queueSort") == [("PrioritySort", None, D, "multiPoint")]
    assert [p["origin"] for p in prof.plugin_config] == ["Default"] * 8
    assert prof.warnings == []
    # Unchanged plugins: the same as an empty plugins section.
    assert config_origins({"profiles": [{"plugins": {}}]}).to_dict() == config_origins(None).to_dict()


def test_reweighted_in_place_keeps_position_and_reaches_every_point() -> None:
    prof = _origins("profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - {name: PodTopologySpread, "
                    "weight: 5}\n").profiles[0]
    names = [e.plugin for e in prof.multi_point.entries]
    assert names.index("PodTopologySpread") == 12  # where the default set has it
    e = prof.multi_point.entries[12]
    assert (e.origin, e.weight, e.field, e.detail) == (R, 5, "profiles[0].plugins.multiPoint.enabled[0]",
                                                       "re-weighted in place (2 -> 5)")
    for point in ("preFilter", "filter", "preScore", "score"):
        row = next(x for x in prof.point(point).entries if x.plugin == "PodTopologySpread")
        assert (row.origin, row.via, row.field) == (R, "multiPoint", "profiles[0].plugins.multiPoint.enabled[0]")
    score = next(x for x in prof.point("score").entries if x.plugin == "PodTopologySpread")
    assert score.weight == 5
    assert score.detail.endswith("weight from multiPoint.enabled: 5")


def test_disabled_star_at_score_with_user_plugins() -> None:
    prof = _origins("profiles:\n- plugins:\n    score:\n      enabled:\n      - {name: ImageLocality, weight: 4}\n"
                    "      - {name: NodeResourcesFit}\n      disabled:\n      - {name: '*'}\n").profiles[0]
    running = [r for r in _rows(prof, "score") if r[2] != X]
    assert running == [("ImageLocality", 4, U, "score"), ("NodeResourcesFit", 1, U, "score")]
    disabled = [(e.plugin, e.via, e.field) for e in prof.point("score").entries if not e.enabled]
    assert ("TaintToleration", "score", "profiles[0].plugins.score.disabled[0]") in disabled
    assert len(disabled) == 6  # the other default score plugins
    # Other points keep the default set.
    assert all(e.origin == D for e in prof.point("filter").entries)


def test_specific_point_overrides_multipoint_and_custom_plugin_appended() -> None:
    prof = _origins("profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - {name: Coscheduling}\n"
                    "    score:\n      enabled:\n      - {name: NodeResourcesFit, weight: 3}\n").profiles[0]
    last = prof.multi_point.entries[-1]
    assert (last.plugin, last.origin, last.detail) == ("Coscheduling", A, "custom plugin, appended")
    score = _rows(prof, "score")
    # The explicit entry runs first, with its own weight; the others follow in multiPoint order.
    assert score[0] == ("NodeResourcesFit", 3, USER_ENABLED_OVERRIDE, "score")
    assert [r[0] for r in score[1:]] == ["TaintToleration", "NodeAffinity", "VolumeBinding", "PodTopologySpread",
                                         "InterPodAffinity", "NodeResourcesBalancedAllocation", "ImageLocality"]
    qs = _rows(prof, "permit")
    assert ("Coscheduling", None, A, "multiPoint") in qs


def test_disabled_at_one_point_only() -> None:
    prof = _origins("profiles:\n- plugins:\n    score:\n      disabled:\n      - {name: ImageLocality}\n"
                    "    preScore:\n      disabled:\n      - {name: '*'}\n").profiles[0]
    assert ("ImageLocality", None, X, "score") in _rows(prof, "score")
    assert all(r[2] == X and r[3] == "preScore" for r in _rows(prof, "preScore"))
    assert all(e.origin == D for e in prof.multi_point.entries)
    assert prof.warnings == []


def _codes(text: str) -> list[tuple[str, str]]:
    return [(w.code, w.field) for w in _origins(text).profiles[0].warnings]


def test_trap_weight_on_a_plugin_that_is_not_a_score_plugin() -> None:
    assert _codes("profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - {name: DefaultBinder, weight: 4}\n"
                  "    filter:\n      enabled:\n      - {name: NodePorts, weight: 3}\n") == [
        ("WeightIgnored", "profiles[0].plugins.multiPoint.enabled[0].weight"),
        ("WeightIgnored", "profiles[0].plugins.filter.enabled[0].weight")]


def test_trap_weight_zero_reset_and_shadowed() -> None:
    prof = _origins("profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - {name: NodeAffinity}\n"
                    "      - {name: ImageLocality, weight: 0}\n      - {name: TaintToleration, weight: 9}\n"
                    "    score:\n      enabled:\n      - {name: TaintToleration, weight: 4}\n").profiles[0]
    assert [(w.code, w.field) for w in prof.warnings] == [
        ("WeightReset", "profiles[0].plugins.multiPoint.enabled[0]"),
        ("WeightZero", "profiles[0].plugins.multiPoint.enabled[1].weight"),
        ("WeightShadowed", "profiles[0].plugins.multiPoint.enabled[2].weight")]
    assert prof.warnings[0].message == ('"NodeAffinity" is listed again without a weight: it replaces the default '
                                        "entry, so its weight goes from 2 to 1")
    weights = {e.plugin: e.weight for e in prof.point("score").entries}
    assert weights["NodeAffinity"] == 1 and weights["ImageLocality"] == 1 and weights["TaintToleration"] == 4


def test_trap_plugin_enabled_twice() -> None:
    prof = _origins("profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - {name: Coscheduling}\n"
                    "      - {name: Coscheduling}\n    filter:\n      enabled:\n      - {name: NodePorts}\n"
                    "      - {name: NodePorts}\n").profiles[0]
    assert [(w.code, w.field) for w in prof.warnings] == [
        ("EnabledTwice", "profiles[0].plugins.multiPoint.enabled[1]"),
        ("EnabledTwice", "profiles[0].plugins.filter.enabled[1]")]
    assert "kube-scheduler refuses to start" in prof.warnings[0].message


def test_trap_disabled_at_one_point_enabled_at_another() -> None:
    prof = _origins("profiles:\n- plugins:\n    multiPoint:\n      disabled:\n      - {name: NodeResourcesFit}\n"
                    "    filter:\n      enabled:\n      - {name: NodeResourcesFit}\n").profiles[0]
    assert [(w.code, w.field, w.message) for w in prof.warnings] == [
        ("DisabledReenabled", "profiles[0].plugins.multiPoint.disabled[0]",
         '"NodeResourcesFit" is disabled at multiPoint but enabled at filter: it runs at filter, not at preFilter, '
         "preScore, score")]
    assert ("NodeResourcesFit", None, U, "filter") in _rows(prof, "filter")
    assert ("NodeResourcesFit", None, X, "multiPoint") in _rows(prof, "preFilter")


def test_multipoint_enabled_point_disabled_is_not_a_trap() -> None:
    # Upstream's documented way to keep a plugin off one extension point.
    assert _codes("profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - {name: Coscheduling}\n"
                  "    permit:\n      disabled:\n      - {name: Coscheduling}\n") == []


def test_trap_disable_without_effect() -> None:
    assert _codes("profiles:\n- plugins:\n    filter:\n      disabled:\n      - {name: ImageLocality}\n"
                  "    multiPoint:\n      disabled:\n      - {name: Coscheduling}\n") == [
        ("DisableNoEffect", "profiles[0].plugins.multiPoint.disabled[0]"),
        ("DisableNoEffect", "profiles[0].plugins.filter.disabled[0]")]


def test_trap_plugin_config_for_a_plugin_not_enabled() -> None:
    prof = _origins("profiles:\n- plugins:\n    multiPoint:\n      disabled:\n      - {name: NodeAffinity}\n"
                    "  pluginConfig:\n  - name: NodeAffinity\n    args: {}\n").profiles[0]
    assert [(w.code, w.field) for w in prof.warnings] == [("PluginConfigUnused", "profiles[0].pluginConfig[0]")]
    assert prof.plugin_config[0] == {"name": "NodeAffinity", "origin": "User", "field": "profiles[0].pluginConfig[0]"}


def test_several_profiles_and_json_shape() -> None:
    origins = _origins("profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n    score:\n      disabled:\n"
                       "      - {name: '*'}\n")
    data = origins.to_dict()
    assert data["kind"] == "PluginOrigins"
    assert [p["schedulerName"] for p in data["profiles"]] == ["a", "b"]
    points = [p["extensionPoint"] for p in data["profiles"][1]["extensionPoints"]]
    assert points == list(EXTENSION_POINTS)
    score = data["profiles"][1]["extensionPoints"][points.index("score")]["plugins"]
    assert score[0] == {"plugin": "TaintToleration", "weight": None, "origin": "UserDisabled", "via": "score",
                        "enabled": False, "field": "profiles[1].plugins.score.disabled[0]",
                        "detail": "disabled at score"}
