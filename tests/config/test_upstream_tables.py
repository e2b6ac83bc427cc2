"""Upstream's own test tables (ported as YAML under cases/), run against kschedctl.config."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from kschedctl.config import args as pluginargs
from kschedctl.config.api import build_config
from kschedctl.config.decode import _args_kind_findings
from kschedctl.config.defaults import default_config, default_plugins, merge_plugins
from kschedctl.config.expand import expand_plugins, framework_errors
from kschedctl.config.types import EXTENSION_POINTS
from kschedctl.config.validation import validate_upstream
from tests.config.cases import load, pairs, params


def _check_errors(errors: list[Any], case: dict[str, Any]) -> None:
    if "expect" in case:  # upstream only checks a substring, and only when there are errors
        if errors:
            assert any(case["expect"] in e.message for e in errors), [e.message for e in errors]
        return
    want = case.get("want") or []
    assert pairs(errors) == [(w["field"], w["type"]) for w in want]
    for got, w in zip(errors, want):
        if "message" in w:
            assert got.message == w["message"]


@pytest.mark.parametrize("case", params("plugin_args_validation", "PluginArgs"))
def test_plugin_args_validation(case: dict[str, Any]) -> None:
    errors = pluginargs.validate_args(case["plugin"], "", copy.deepcopy(case["args"]))
    _check_errors(errors, case)


@pytest.mark.parametrize("case", params("plugin_args_defaults", "PluginArgsDefaults"))
def test_plugin_args_defaults(case: dict[str, Any]) -> None:
    args = copy.deepcopy(case["in"])
    pluginargs.default_args(case["plugin"], args)
    assert args == case["want"]


_SEGMENT = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _set(doc: dict[str, Any], path: str, value: Any) -> None:
    parts: list[Any] = [int(i) if i else k for k, i in _SEGMENT.findall(path)]
    node: Any = doc
    for part in parts[:-1]:
        node = node[part]
    last = parts[-1]
    if value == "__delete__":
        del node[last]
    elif isinstance(node, list) and last == len(node):
        node.append(value)
    else:
        node[last] = value


@pytest.mark.parametrize("case", params("config_validation", "KubeSchedulerConfigurationV1"))
def test_config_validation(case: dict[str, Any]) -> None:
    doc = copy.deepcopy(load("config_validation")["base"])
    for path, value in (case.get("set") or {}).items():
        _set(doc, path, copy.deepcopy(value))
    # Upstream validates the internal config as given (no defaulting); the type mismatch of
    # invalid-plugin-args is found by kschedctl's decoder, with the same field and type.
    errors = _args_kind_findings(doc) or validate_upstream(doc)
    _check_errors(errors, case)


@pytest.mark.parametrize("case", params("merge_plugins", "MergePlugins"))
def test_merge_plugins(case: dict[str, Any]) -> None:
    got = merge_plugins(copy.deepcopy(case["default"]), copy.deepcopy(case["custom"]))
    got = {k: v for k, v in got.items() if v}
    assert got == case["want"]


def _expand_registry(case_file: dict[str, Any]) -> tuple[Any, Any]:
    registry = case_file["registry"]
    return (lambda n: registry.get(n, ())), (lambda n: n in registry)


@pytest.mark.parametrize("case", params("multipoint_expansion", "NewFrameworkMultiPointExpansion"))
def test_multipoint_expansion(case: dict[str, Any]) -> None:
    points_of, known = _expand_registry(load("multipoint_expansion"))
    doc = {"profiles": [{"schedulerName": "", "plugins": case["plugins"]}]}
    cfg = build_config(doc)
    profile = cfg.profiles[0]
    errors = framework_errors(profile, "profiles[0]", points_of, known)
    if "wantErr" in case:
        assert any(case["wantErr"] in e.message for e in errors), [e.message for e in errors]
        return
    assert errors == []
    got = expand_plugins(profile, points_of)
    want = case["want"]
    for point in EXTENSION_POINTS:
        expected = want.get(point, [])
        if point == "score":
            assert [[r.name, r.weight] for r in got[point]] == expected, point
        else:
            assert [r.name for r in got[point]] == expected, point


def test_apply_feature_gates_default_plugin_order() -> None:
    want = load("scheduler_defaults")["defaultPlugins"]
    assert default_plugins() == want


def _expand_want(case_file: dict[str, Any], value: Any) -> Any:
    plugins = case_file["defaultPlugins"]
    configs = case_file["defaultPluginConfig"]
    if value == "DEFAULT_PLUGINS":
        return copy.deepcopy(plugins)
    if value == "DEFAULT_MULTIPOINT":
        return copy.deepcopy(plugins["multiPoint"])
    if value == "DEFAULT_PLUGIN_CONFIG":
        return copy.deepcopy(configs)
    if isinstance(value, str) and value.startswith("DEFAULT_PLUGIN_CONFIG_EXCEPT_"):
        skip = value.removeprefix("DEFAULT_PLUGIN_CONFIG_EXCEPT_")
        return [copy.deepcopy(c) for c in configs if c["name"] != skip]
    if isinstance(value, dict):
        return {k: _expand_want(case_file, v) for k, v in value.items()}
    if isinstance(value, list):
        out: list[Any] = []
        for v in value:
            expanded = _expand_want(case_file, v)
            if isinstance(v, str) and v.startswith("DEFAULT_PLUGIN_CONFIG"):
                out.extend(expanded)
            else:
                out.append(expanded)
        return out
    return value


@pytest.mark.parametrize("case", params("scheduler_defaults", "SchedulerDefaults"))
def test_scheduler_defaults(case: dict[str, Any]) -> None:
    case_file = load("scheduler_defaults")
    got = default_config(copy.deepcopy(case["config"]))
    want = {**copy.deepcopy(case_file["defaultTop"]), **(case.get("wantTop") or {})}
    want["profiles"] = _expand_want(case_file, case["wantProfiles"])
    # merge_plugins fills every extension point; empty ones are nil upstream.
    for prof in got["profiles"]:
        prof["plugins"] = {k: v for k, v in prof["plugins"].items() if v}
    assert got == want
