"""Label and node selectors against upstream's test tables (cases/selectors.yaml, cases/node_selectors.yaml)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from kschedctl.errors import InputError
from kschedctl.k8s.selectors import (
    EVERYTHING,
    NOTHING,
    Requirement,
    Selector,
    SelectorError,
    label_selector,
    parse_go_int64,
    parse_selector,
    selector_from_set,
    validated_selector_from_set,
)
from kschedctl.k8s.node_selectors import (
    NodeSelector,
    PreferredSchedulingTerms,
    RequiredNodeAffinity,
    match_node_selector_terms,
    new_node_selector,
    node_selector_requirements_as_selector,
)

CASES = Path(__file__).parent / "cases"


def _load(stem: str) -> dict[str, Any]:
    with open(CASES / f"{stem}.yaml", encoding="utf-8") as f:
        return yaml.safe_load(f)


SEL = _load("selectors")
NODE = _load("node_selectors")


def _params(thing: str, cases: list[dict], name_of=lambda c, i: c.get("name", str(i))) -> list:
    return [pytest.param(c, id=f"{thing}_{name_of(c, i)}") for i, c in enumerate(cases)]


def _error_parts(message: str) -> list[str]:
    """Split an aggregate ``[a, b]`` back into its errors (upstream details contain no ', n')."""
    if message.startswith("[") and message.endswith("]"):
        inner = message[1:-1]
        # Errors start with a field path; split on ", " followed by a path start.
        return _split_top(inner)
    return [message]


def _split_top(inner: str) -> list[str]:
    out: list[str] = []
    cur = ""
    i = 0
    while i < len(inner):
        if inner.startswith(", ", i) and (
            inner.startswith("nodeSelectorTerms[", i + 2) or inner.startswith("[", i + 2) or inner.startswith("root[", i + 2)
        ):
            out.append(cur)
            cur = ""
            i += 2
            continue
        cur += inner[i]
        i += 1
    out.append(cur)
    return out


def _assert_field_errors(errors: list[str], expected: list[dict]) -> None:
    """Upstream compares type, field and detail, ignoring the bad value."""
    assert len(errors) == len(expected), errors
    for got, want in zip(errors, expected):
        assert got.startswith(f"{want['field']}: {want['type']}: "), got
        assert got.endswith(f": {want['detail']}"), got


# --- label selectors -------------------------------------------------------------------------


@pytest.mark.parametrize("case", _params("LabelSelectorAsSelector", SEL["label_selector_as_selector"]))
def test_label_selector_as_selector(case: dict) -> None:
    original = copy.deepcopy(case["in"])
    if "error" in case:
        with pytest.raises(SelectorError) as info:
            label_selector(case["in"])
        assert str(info.value) == case["error"]
        assert isinstance(info.value, InputError) and isinstance(info.value, ValueError)
    else:
        sel = label_selector(case["in"])
        if case.get("nothing"):
            assert sel is NOTHING and sel.nothing and not sel.empty
            assert not sel.matches({}) and not sel.matches({"any": "label"})
        else:
            assert str(sel) == case["out"]
            assert sel.empty == bool(case.get("empty"))
            # Upstream compares fmt.Sprint of both selectors.
            assert str(parse_selector(case["out"])) == case["out"]
    assert case["in"] == original  # the input is not modified


@pytest.mark.parametrize("case", _params("LabelSelectorErrors", SEL["label_selector_errors"]))
def test_label_selector_errors(case: dict) -> None:
    with pytest.raises(SelectorError) as info:
        label_selector(case["in"])
    assert str(info.value) == case["error"]


@pytest.mark.parametrize(
    "case", _params("SelectorMatches", SEL["selector_matches"], lambda c, i: f"{i}_{c['selector'] or 'empty'}")
)
def test_selector_matches(case: dict) -> None:
    sel = parse_selector(case["selector"])
    assert sel.matches(case["labels"]) is case["match"]


@pytest.mark.parametrize("case", _params("SetMatches", SEL["set_matches"], lambda c, i: str(i)))
def test_set_matches(case: dict) -> None:
    assert selector_from_set(case["set"]).matches(case["labels"]) is case["match"]
    assert validated_selector_from_set(case["set"]).matches(case["labels"]) is case["match"]


@pytest.mark.parametrize("text", [pytest.param(t, id=f"SelectorParse_good_{i}") for i, t in enumerate(SEL["selector_parse_good"])])
def test_selector_parse_good(text: str) -> None:
    assert str(parse_selector(text)) == text.replace(" ", "")


@pytest.mark.parametrize("text", [pytest.param(t, id=f"SelectorParse_bad_{i}") for i, t in enumerate(SEL["selector_parse_bad"])])
def test_selector_parse_bad(text: str) -> None:
    with pytest.raises(SelectorError):
        parse_selector(text)


def test_deterministic_parse() -> None:
    assert str(parse_selector("x=a,a=x")) == str(parse_selector("a=x,x=a"))


@pytest.mark.parametrize("case", _params("SetSelectorParser", SEL["set_selector_parser"], lambda c, i: f"{i}"))
def test_set_selector_parser(case: dict) -> None:
    if case["valid"]:
        sel = parse_selector(case["in"])
        if "out" in case:
            assert str(sel) == case["out"]
    else:
        with pytest.raises(SelectorError):
            parse_selector(case["in"])


@pytest.mark.parametrize("case", _params("RequirementConstructor", SEL["requirement_constructor"], lambda c, i: str(i)))
def test_requirement_constructor(case: dict) -> None:
    key = case["key"] if "key" in case else case["key_repeat"][0] * case["key_repeat"][1]
    if case["ok"]:
        Requirement.new(key, case["op"], case["values"])
    else:
        with pytest.raises(SelectorError):
            Requirement.new(key, case["op"], case["values"])


@pytest.mark.parametrize("case", _params("ToString", SEL["to_string"], lambda c, i: str(i)))
def test_to_string(case: dict) -> None:
    sel = Selector(Requirement.new(k, op, vals) for k, op, vals in case["reqs"])
    assert str(sel) == case["out"]


@pytest.mark.parametrize("case", _params("RequirementSelectorMatching", SEL["requirement_selector_matching"], lambda c, i: str(i)))
def test_requirement_selector_matching(case: dict) -> None:
    sel = Selector(Requirement.new(k, op, vals) for k, op, vals in case["reqs"])
    assert sel.matches(case["labels"]) is case["match"]


def test_everything_and_nothing() -> None:
    assert EVERYTHING.matches({"x": "y"}) and EVERYTHING.empty and not EVERYTHING.nothing
    assert Selector.empty is EVERYTHING and Selector.nothing is NOTHING
    assert not NOTHING.matches({"x": "y"}) and not NOTHING.empty
    assert selector_from_set(None).empty and selector_from_set({}).empty  # TestNilMapIsValid, TestSetIsEmpty
    assert Selector().empty
    assert EVERYTHING.matches(None)


def test_add_keeps_key_order() -> None:  # TestAdd
    sel = Selector().add(Requirement.new("key", "in", ["value"]))
    assert [r.key for r in sel.requirements] == ["key"]
    sel = sel.add(Requirement.new("key2", "=", ["value2"]))
    assert str(sel) == "key in (value),key2=value2"
    assert sel.requires_exact_match("key") == "value"


def test_gt_lt_parse_go_int() -> None:
    assert parse_go_int64("+5") == 5 and parse_go_int64("-0") == 0
    assert parse_go_int64("1_000") is None and parse_go_int64(" 1") is None and parse_go_int64("") is None
    assert parse_go_int64(str(2**63)) is None and parse_go_int64(str(2**63 - 1)) == 2**63 - 1
    assert parse_go_int64("1\n") is None


# --- node selectors --------------------------------------------------------------------------


@pytest.mark.parametrize("case", _params("NodeSelectorMatch", NODE["node_selector_match"]))
def test_node_selector_match(case: dict) -> None:
    if "errors" in case:
        with pytest.raises(SelectorError) as info:
            new_node_selector(case["terms"])
        _assert_field_errors(_error_parts(str(info.value)), case["errors"])
        lazy = NodeSelector(case["terms"])
        _assert_field_errors(lazy.errors, case["errors"])
        return
    sel = new_node_selector(case["terms"])
    assert sel.match(case["node"]) is case["match"]


@pytest.mark.parametrize("case", _params("PreferredSchedulingTermsScore", NODE["preferred_scheduling_terms_score"]))
def test_preferred_scheduling_terms_score(case: dict) -> None:
    if "errors" in case:
        with pytest.raises(SelectorError) as info:
            PreferredSchedulingTerms(case["terms"])
        _assert_field_errors(_error_parts(str(info.value)), case["errors"])
        return
    assert PreferredSchedulingTerms(case["terms"]).score(case["node"]) == case["score"]


@pytest.mark.parametrize("case", _params("NodeSelectorRequirementsAsSelector", NODE["node_selector_requirements_as_selector"]))
def test_node_selector_requirements_as_selector(case: dict) -> None:
    sel, errs = node_selector_requirements_as_selector(case["in"], "root")
    if "errors" in case:
        assert sel is None
        _assert_field_errors(errs, case["errors"])
    elif case.get("nothing"):
        assert sel is NOTHING and errs == []
    else:
        assert errs == [] and str(sel) == case["out"] == str(parse_selector(case["out"]))


@pytest.mark.parametrize(
    "case", _params("PodMatchesNodeSelectorAndAffinityTerms", NODE["pod_matches_node_selector_and_affinity_terms"])
)
def test_pod_matches_node_selector_and_affinity_terms(case: dict) -> None:
    pod = copy.deepcopy(case.get("pod") or {})
    if "required" in case:
        spec = pod.setdefault("spec", {})
        spec["affinity"] = {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": case["required"]}}
        }
    node = {"metadata": {"name": case.get("node_name", ""), "labels": case.get("labels")}}
    assert RequiredNodeAffinity(pod).match(node) is case["want"]
    matched, _ = RequiredNodeAffinity(pod).match_with_error(node)
    assert matched is case["want"]


@pytest.mark.parametrize("case", _params("MatchNodeSelectorTerms", NODE["match_node_selector_terms"]))
def test_match_node_selector_terms(case: dict) -> None:
    assert match_node_selector_terms(case["node"], case["node_selector"]) is case["want"]


@pytest.mark.parametrize("case", _params("MatchNodeSelectorTermsStateless", NODE["match_node_selector_terms_stateless"]))
def test_match_node_selector_terms_stateless(case: dict) -> None:
    before = copy.deepcopy(case["node_selector"])
    match_node_selector_terms(case["node"], case["node_selector"])
    NodeSelector(case["node_selector"]["nodeSelectorTerms"]).match(case["node"])
    assert case["node_selector"] == before


def test_lazy_error_only_when_no_term_matches() -> None:
    terms = [
        {"matchExpressions": [{"key": "invalid key", "operator": "In", "values": ["v"]}]},
        {"matchExpressions": [{"key": "a", "operator": "In", "values": ["b"]}]},
    ]
    sel = NodeSelector(terms)
    assert sel.match_with_error({"metadata": {"labels": {"a": "b"}}}) == (True, None)
    matched, err = sel.match_with_error({"metadata": {"labels": {"a": "c"}}})
    assert not matched and err is not None and err.startswith("nodeSelectorTerms[0].matchExpressions[0].key: ")


def test_match_fields_only_metadata_name() -> None:
    sel = NodeSelector([{"matchFields": [{"key": "metadata.uid", "operator": "NotIn", "values": ["x"]}]}])
    assert sel.errors == ['nodeSelectorTerms[0].matchFields[0].key: Invalid value: "metadata.uid": not a valid field selector key']
    assert not sel.match({"metadata": {"name": "n"}})
    sel = NodeSelector([{"matchFields": [{"key": "metadata.name", "operator": "Exists"}]}])
    assert sel.errors == [
        'nodeSelectorTerms[0].matchFields[0].operator: Unsupported value: "Exists": supported values: "In", "NotIn"'
    ]


def test_node_selector_unknown_operator() -> None:
    sel = NodeSelector([{"matchExpressions": [{"key": "a", "operator": "Foo", "values": ["1"]}]}])
    assert sel.errors == [
        'nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: "Foo": supported values: '
        '"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"'
    ]


def test_gt_lt_requirements() -> None:
    sel, errs = node_selector_requirements_as_selector([{"key": "a", "operator": "Gt", "values": ["x"]}], "p")
    assert sel is None and errs == ["p[0].values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer"]
    sel, errs = node_selector_requirements_as_selector([{"key": "a", "operator": "Lt", "values": ["1", "2"]}], "p")
    assert sel is None and errs[0].startswith("p[0].values: Invalid value: []string{\"1\", \"2\"}: for 'Gt', 'Lt'")
    # The bound is also validated as a label value, so a negative bound is refused upstream.
    sel, errs = node_selector_requirements_as_selector([{"key": "a", "operator": "Gt", "values": ["-3"]}], "p")
    assert sel is None and errs[0].startswith('p[0].values[0][a]: Invalid value: "-3": a valid label must be')
    sel, _ = node_selector_requirements_as_selector([{"key": "a", "operator": "Gt", "values": ["3"]}], "p")
    assert sel.matches({"a": "4"}) and sel.matches({"a": "+04"}) and not sel.matches({"a": "3"})
    assert not sel.matches({"a": "x"}) and not sel.matches({}) and not sel.matches({"a": "-5"})


# -- pod field selectors (explain --pending --field-selector, kschedctl.api.pending_pods) -----------

_POD = {"metadata": {"name": "web-0", "namespace": "shop"},
        "spec": {"schedulerName": "my-scheduler", "priorityClassName": "high"}, "status": {}}

POD_FIELD_SELECTORS = [
    ("name-equals", "metadata.name=web-0", True),
    ("name-double-equals", "metadata.name==web-0", True),
    ("name-not-equals", "metadata.name!=web-0", False),
    ("every-term-must-hold", "metadata.namespace=shop,spec.schedulerName=default-scheduler", False),
    ("an-unset-node-compares-as-empty", "spec.nodeName=", True),
    ("an-unset-phase-is-pending", "status.phase=Pending", True),
    ("an-unset-nomination-compares-as-empty", "status.nominatedNodeName!=node-1", True),
    ("spaces-around-terms", " spec.priorityClassName = high , metadata.namespace=shop ", True),
]


@pytest.mark.parametrize("text,matches", [c[1:] for c in POD_FIELD_SELECTORS], ids=[c[0] for c in POD_FIELD_SELECTORS])
def test_pod_field_selector(text: str, matches: bool) -> None:
    from kschedctl.k8s.selectors import pod_field_selector

    assert pod_field_selector(text)(_POD) is matches


@pytest.mark.parametrize("text,words", [
    ("spec.color=blue", '"spec.color" is not a known field selector: only "metadata.name"'),
    ("metadata.name", "'metadata.name' is not KEY=VALUE or KEY!=VALUE"),
])
def test_pod_field_selector_refuses(text: str, words: str) -> None:
    from kschedctl.k8s.selectors import pod_field_selector

    with pytest.raises(ValueError) as caught:
        pod_field_selector(text)
    assert words in str(caught.value)


@pytest.mark.parametrize("case", _params("NodeSelectorMatch", NODE["node_selector_match"]))
def test_node_selector_labels_matcher_answers_as_match_labels_without_a_name(case: dict) -> None:
    """``labels_matcher`` (a PV's node affinity asked of many nodes) and, where given,
    ``label_requirements`` answer as ``match_labels(labels, "")`` for the table's selectors,
    well-formed or not, on the table's node and on label sets around it."""
    lazy = NodeSelector(case["terms"])
    matcher = lazy.labels_matcher()
    node_labels = ((case.get("node") or {}).get("metadata") or {}).get("labels")
    label_sets = [node_labels, None, {}, {"label_1": "label_1_val"}, {"label_1": "other"},
                  {"label_1": "label_1_val", "label_2": "label_2_val"}]
    requirements = lazy.label_requirements()
    for labels in label_sets:
        assert matcher(labels) is lazy.match_labels(labels, ""), labels
        if requirements is not None:  # what the column twins check, one requirement at a time
            assert all(r.matches(labels or {}) for r in requirements) is lazy.match_labels(labels, ""), labels
