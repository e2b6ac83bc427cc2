"""Whatever the input, decoding and validation end in a result or one InputError, never a crash."""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kschedctl.config.api import validate_text
from kschedctl.errors import InputError

HEAD = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"

_FIELDS = ["parallelism", "percentageOfNodesToScore", "podInitialBackoffSeconds", "podMaxBackoffSeconds", "profiles",
           "extenders", "leaderElection", "clientConnection", "schedulerName", "plugins", "pluginConfig", "name",
           "args", "weight", "enabled", "disabled", "multiPoint", "score", "filter", "queueSort", "bind",
           "scoringStrategy", "type", "resources", "shape", "utilization", "defaultConstraints", "minCandidateNodesAbsolute",
           "NodeResourcesFit", "PodTopologySpread", "DefaultPreemption", "VolumeBinding", "*", "leaderElect",
           "prioritizeVerb", "managedResources", "requestedToCapacityRatio", "filterTimeout", "addedAffinity"]

_scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
                     st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(_FIELDS),
                     st.text(max_size=12))
_values: Any = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.sampled_from(_FIELDS), inner, max_size=5)),
    max_leaves=30,
)


def _outcome(text: str) -> int:
    try:
        result = validate_text(text, "fuzz.yaml")
    except InputError as exc:
        assert exc.exit_code == 2 and "\n" not in str(exc)
        return 2
    assert result.to_dict()["kind"] == "ValidationResult"
    return 0 if result.valid else 1


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(_FIELDS), _values, max_size=6))
def test_structured_documents(body: dict[str, Any]) -> None:
    text = HEAD + (yaml.safe_dump(body) if body else "")
    assert _outcome(text) in (0, 1, 2)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["parallelism", "profiles", "extenders", "percentageOfNodesToScore"]),
                       _values, max_size=3),
       st.lists(st.dictionaries(st.sampled_from(_FIELDS), _values, max_size=4), max_size=3))
def test_profiles_shaped_documents(top: dict[str, Any], profiles: list[dict[str, Any]]) -> None:
    body = dict(top)
    body["profiles"] = profiles
    assert _outcome(HEAD + yaml.safe_dump(body)) in (0, 1, 2)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text(text: str) -> None:
    assert _outcome(text) in (0, 1, 2)
    assert _outcome(HEAD + text) in (0, 1, 2)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.one_of(_values, st.sampled_from(["kubescheduler.config.k8s.io/v1", "kubescheduler.config.k8s.io/v1beta3"])),
       st.one_of(_values, st.just("KubeSchedulerConfiguration")))
def test_header_values_of_any_type(api_version: Any, kind: Any) -> None:
    # apiVersion: [] was a traceback (an unhashable version looked up in a dict).
    assert _outcome(yaml.safe_dump({"apiVersion": api_version, "kind": kind, "parallelism": 4})) in (0, 1, 2)
