"""The schema gate never vouches for a configuration jsonschema refuses, and vouches for the
shipped ones (else every command would import jsonschema for nothing)."""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kschedctl.config import decode
from kschedctl.config import schema as schemas
from kschedctl.config.schema.gate import conforms
from tests.mutations import at, paths, replaced

ROOT = Path(__file__).resolve().parents[2]
GROUP = "kubescheduler.config.k8s.io"


def _shipped() -> list[tuple[str, dict]]:
    """Every KubeSchedulerConfiguration document in profiles/ and fixtures/."""
    out = []
    for path in sorted([*ROOT.glob("profiles/**/*.yaml"), *ROOT.glob("fixtures/**/*.yaml")]):
        try:
            docs = list(yaml.safe_load_all(path.read_text()))
        except yaml.YAMLError:
            continue
        for i, doc in enumerate(docs):
            if isinstance(doc, dict) and doc.get("kind") == "KubeSchedulerConfiguration":
                out.append((f"{path.relative_to(ROOT)}#{i}", doc))
    return out


SHIPPED = _shipped()


def _version(doc: dict) -> str:
    api_version = doc.get("apiVersion")
    return api_version.rsplit("/", 1)[1] if isinstance(api_version, str) and "/" in api_version else "v1"


def _jsonschema_errors(doc: Any, version: str) -> list:
    return list(decode._validator(version).iter_errors(doc))


def _gate(doc: Any, version: str) -> bool:
    return conforms(doc, schemas.load(version), decode._FORMATS)


def _agrees(doc: Any, version: str = "v1") -> bool:
    """The gate's promise: what it vouches for, jsonschema finds valid."""
    return not _gate(doc, version) or not _jsonschema_errors(doc, version)


def test_shipped_configurations_exist() -> None:
    assert len(SHIPPED) >= 15


@pytest.mark.parametrize("name,doc", SHIPPED, ids=[n for n, _ in SHIPPED])
def test_gate_vouches_for_every_valid_shipped_configuration(name: str, doc: dict) -> None:
    version = _version(doc)
    assert not _jsonschema_errors(doc, version), f"{name} is not valid"
    assert _gate(doc, version), f"the gate sends {name} to jsonschema"


V1_HEAD = {"apiVersion": f"{GROUP}/v1", "kind": "KubeSchedulerConfiguration"}


def _profile(**fields: Any) -> dict:
    return {**V1_HEAD, "profiles": [{"schedulerName": "default-scheduler", **fields}]}


def _args(plugin: str, args: Any) -> dict:
    return _profile(pluginConfig=[{"name": plugin, "args": args}])


# (case, document, what the gate answers). False is jsonschema's error, or a fine point it is
# asked about: the table also pins where the gate hands over.
CASES = [
    ("empty v1", V1_HEAD, True),
    ("top-level scalars", {**V1_HEAD, "parallelism": 16, "percentageOfNodesToScore": 0,
                           "podInitialBackoffSeconds": 1, "podMaxBackoffSeconds": 2**40}, True),
    ("nulls mean unset", {**V1_HEAD, "parallelism": None, "profiles": None, "extenders": None}, True),
    ("unknown top-level field", {**V1_HEAD, "parallelizm": 16}, False),
    ("unknown field in a profile", _profile(weight=1), False),
    ("string for an integer", {**V1_HEAD, "parallelism": "16"}, False),
    ("boolean for an integer", {**V1_HEAD, "parallelism": True}, False),
    ("whole float for an integer: jsonschema decides", {**V1_HEAD, "parallelism": 16.0}, False),
    ("fraction for an integer", {**V1_HEAD, "parallelism": 1.5}, False),
    ("int32 at its top", {**V1_HEAD, "parallelism": 2**31 - 1}, True),
    ("int32 past its top", {**V1_HEAD, "parallelism": 2**31}, False),
    ("int32 past its bottom", {**V1_HEAD, "parallelism": -(2**31) - 1}, False),
    ("int64 past its top", {**V1_HEAD, "podMaxBackoffSeconds": 2**63}, False),
    ("a number field takes a float", {**V1_HEAD, "clientConnection": {"qps": 50.5}}, True),
    ("a number field takes an integer", {**V1_HEAD, "clientConnection": {"qps": 50}}, True),
    ("a number field refuses a boolean", {**V1_HEAD, "clientConnection": {"qps": False}}, False),
    ("a number field takes NaN as jsonschema does", {**V1_HEAD, "clientConnection": {"qps": math.nan}}, True),
    ("a list for an object", {**V1_HEAD, "leaderElection": []}, False),
    ("a duration", {**V1_HEAD, "leaderElection": {"leaseDuration": "15s", "renewDeadline": "1m30s"}}, True),
    ("not a duration", {**V1_HEAD, "leaderElection": {"leaseDuration": "15 seconds"}}, False),
    ("a number for a duration", {**V1_HEAD, "leaderElection": {"leaseDuration": 15}}, False),
    ("plugins", _profile(plugins={"score": {"enabled": [{"name": "NodeResourcesFit", "weight": 3}],
                                           "disabled": [{"name": "*"}]}}), True),
    ("null in a plugin list", _profile(plugins={"score": {"enabled": [None]}}), False),
    ("unknown extension point", _profile(plugins={"scores": {}}), False),
    ("args of their kind", _args("NodeResourcesFit", {"scoringStrategy": {"type": "MostAllocated", "resources": [
        {"name": "cpu", "weight": 1}]}}), True),
    ("args typed by the plugin named", _args("NodeResourcesFit", {"scoringStrategy": {"typo": 1}}), False),
    ("another plugin's args field", _args("InterPodAffinity", {"scoringStrategy": {}}), False),
    ("args of a plugin without an args kind are free", _args("Coscheduling", {"anything": [1, {"x": None}]}), True),
    ("args out of range", _args("InterPodAffinity", {"hardPodAffinityWeight": 2**31}), False),
    ("a duration in args", _args("DynamicResources", {"filterTimeout": "10s"}), True),
    ("not a duration in args", _args("DynamicResources", {"filterTimeout": "ten"}), False),
    ("args not a mapping", _args("NodeResourcesFit", [1]), False),
    ("args without a plugin name are free", _profile(pluginConfig=[{"args": {"anything": 1}}]), True),
    ("a plugin name not a string", _profile(pluginConfig=[{"name": 7, "args": {"x": 1}}]), False),
    ("a label selector", _args("PodTopologySpread", {"defaultConstraints": [{
        "maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway",
        "labelSelector": {"matchLabels": {"app": "a"}, "matchExpressions": [
            {"key": "k", "operator": "In", "values": ["v"]}]}}]}), True),
    ("a label value not a string", _args("PodTopologySpread", {"defaultConstraints": [{
        "labelSelector": {"matchLabels": {"app": 1}}}]}), False),
    ("extenders", {**V1_HEAD, "extenders": [{"urlPrefix": "http://x", "weight": 1, "httpTimeout": "5s",
                                             "managedResources": [{"name": "r", "ignoredByScheduler": True}]}]}, True),
    ("an extender's unknown field", {**V1_HEAD, "extenders": [{"url": "http://x"}]}, False),
]


@pytest.mark.parametrize("case,doc,expected", CASES, ids=[c[0] for c in CASES])
def test_gate_table(case: str, doc: dict, expected: bool) -> None:
    assert _gate(doc, "v1") is expected
    if expected:
        assert not _jsonschema_errors(doc, "v1")


REPLACEMENTS = [None, True, False, 0, 1, -1, 1.0, 2.5, 2**31, -(2**31) - 1, 2**63, math.inf, "", "x", "10s", "ten",
                "NodeResourcesFit", [], [None], [1], {}, {"unknown": 1}, {"name": "x"}]


@pytest.mark.parametrize("name,doc", SHIPPED, ids=[n for n, _ in SHIPPED])
def test_gate_never_vouches_for_a_mutation_jsonschema_refuses(name: str, doc: dict) -> None:
    version = _version(doc)
    refused = 0
    for path in paths(doc):
        if path[:1] in (("apiVersion",), ("kind",)):
            continue
        for value in REPLACEMENTS:
            mutated = replaced(doc, path, value)
            assert _agrees(mutated, version), f"{name}: {path} = {value!r}"
            refused += not _gate(mutated, version)
        target = copy.deepcopy(doc)
        holder = at(target, path)
        if isinstance(holder, dict):
            holder["unknownField"] = 1
            assert _agrees(target, version), f"{name}: unknown field at {path}"
            assert not _gate(target, version) or _args_free(path), f"{name}: unknown field at {path}"
    assert refused  # the mutations reach places the gate refuses


def _args_free(path: tuple) -> bool:
    """Whether ``path`` lies in a plugin's args, which are free-form for plugins without an args kind."""
    return "args" in path


_FIELDS = ["parallelism", "percentageOfNodesToScore", "profiles", "extenders", "leaderElection", "leaseDuration",
           "clientConnection", "qps", "schedulerName", "plugins", "pluginConfig", "name", "args", "weight",
           "enabled", "disabled", "score", "filter", "scoringStrategy", "type", "resources", "shape", "utilization",
           "NodeResourcesFit", "PodTopologySpread", "DefaultPreemption", "DynamicResources", "filterTimeout",
           "defaultConstraints", "labelSelector", "matchLabels", "hardPodAffinityWeight", "InterPodAffinity",
           "kind", "apiVersion", f"{GROUP}/v1", "InterPodAffinityArgs", "10s"]
_scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**65), max_value=2**65),
                     st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(_FIELDS), st.text(max_size=6))
_values: Any = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(_FIELDS), inner, max_size=4)),
    max_leaves=25,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(_FIELDS), _values, max_size=5))
def test_gate_agrees_with_jsonschema_on_any_document(fields: dict) -> None:
    doc = {**fields, **V1_HEAD}
    assert _agrees(doc)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["NodeResourcesFit", "InterPodAffinity", "PodTopologySpread", "DefaultPreemption",
                        "DynamicResources", "VolumeBinding", "NodeAffinity", "Other", 3, None]), _values)
def test_gate_agrees_with_jsonschema_on_any_args(plugin: Any, args: Any) -> None:
    assert _agrees(_profile(pluginConfig=[{"name": plugin, "args": args}]))
