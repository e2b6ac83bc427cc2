"""json_gate never accepts what the Python checks it stands in for refuse.

The gate's one promise: an object whose JSON text it accepts passes the unknown-field check
(fields.py), the shape check of its kind (shapes.py, pods and nodes) and the label check
(cluster.py). Each seed object of cases/json_gate_seeds.yaml is mutated at every place (each
field and item replaced by values of every type, unknown fields and null items added, keys
repeated with another value), written as JSON text, and both sides are asked. What the gate
refuses costs only speed (the Python checks then decide), so it may refuse more.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kschedctl.errors import InputError
from kschedctl.fastpaths import FastPaths, using
from kschedctl.inputs import json_gate, loader, shapes
from kschedctl.inputs.cluster import _check_labels
from kschedctl.inputs.fields import unknown_fields
from kschedctl.inputs.loader import parse_text
from tests.mutations import at, paths, replaced

SEEDS = list(yaml.safe_load_all((Path(__file__).parent / "cases" / "json_gate_seeds.yaml").read_text()))


class Raw(str):
    """A JSON token written as is (``1e400``, ``NaN``)."""


class Pairs(tuple):
    """A JSON object that may repeat a key: its (key, value) pairs in order."""


def to_json(value: Any) -> str:
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, Pairs):
        return "{" + ",".join(f"{json.dumps(k)}:{to_json(v)}" for k, v in value) + "}"
    if isinstance(value, dict):
        return to_json(Pairs(value.items()))
    if isinstance(value, list):
        return "[" + ",".join(to_json(v) for v in value) + "]"
    return json.dumps(value, allow_nan=True)  # ensure_ascii: a lone surrogate as \\udXXX


def python_accepts(obj: Any) -> bool:
    """What the checks a gated document skips say of ``obj``."""
    if not isinstance(obj, dict):
        return False
    if unknown_fields(obj):
        return False
    try:
        if obj.get("kind") == "Pod":
            shapes.check_pod(obj)
        elif obj.get("kind") == "Node":
            shapes.check_node(obj)
        elif obj.get("apiVersion") == "resource.k8s.io/v1":
            shapes.check_dra(obj)
        meta = obj.get("metadata")
        if isinstance(meta, dict):
            _check_labels(meta, obj.get("kind"), None)
    except InputError:
        return False
    return True


def gate_accepts(text: str, obj: dict) -> bool:
    return json_gate.accepts(text.encode("utf-8"), obj.get("apiVersion"), obj.get("kind"))


REPLACEMENTS: list[Any] = [
    None, True, False, 0, 1, -1, 1.0, 0.0, -0.5, 2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**63, 2**64, 10**30,
    -(10**30), "x", "", "1", "true", [], [None], ["x"], [1], [[]], [{}], {}, {"zzUnknown": 1}, {"key": "x"},
    {"key": None}, {"name": 1}, float("nan"), float("inf"), float("-inf"), "\ud800", "a\udfffb", "\ud83d\ude00",
    Raw("1e400"), Raw("-1e400"), Raw("1E2"), Raw("-0"), Raw("1.0e0"), Raw("12345678901234567890123456789012345678901"),
]


def mutants(seed: dict) -> Iterator[tuple[str, str]]:
    """(what was changed, the JSON text) for every single change of ``seed``."""
    for path in paths(seed):
        where = ".".join(map(str, path)) or "(root)"
        here = at(seed, path)
        if path:
            for new in REPLACEMENTS:
                yield f"{where} = {new!r}", to_json(replaced(seed, path, new))
        if isinstance(here, dict):
            for extra in ({"zzUnknown": 1}, {"zzUnknown": None}, {"zzUnknown": {}}):
                yield f"{where} + {extra}", to_json(replaced(seed, path, {**here, **extra}))
            for key, item in here.items():
                for other in (None, 1, "x", {"zzUnknown": 1}, [None]):
                    # The same key twice: json keeps the last value; both orders.
                    pairs = [(k, v) for k, v in here.items() if k != key]
                    yield (f"{where}.{key} twice ({other!r} first)",
                           to_json(replaced(seed, path, Pairs([(key, other), *pairs, (key, item)]))))
                    yield (f"{where}.{key} twice ({other!r} last)",
                           to_json(replaced(seed, path, Pairs([(key, item), *pairs, (key, other)]))))
                if key.lower() != key:
                    yield f"{where}.{key} in lower case", to_json(replaced(seed, path, {key.lower(): item}))
        if isinstance(here, list):
            for extra in (None, {}, "x", 1, {"zzUnknown": 1}):
                yield f"{where} + [{extra!r}]", to_json(replaced(seed, path, [*here, extra]))


@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: s["kind"])
def test_the_seeds_pass_both(seed: dict) -> None:
    text = to_json(seed)
    assert python_accepts(json.loads(text))
    assert gate_accepts(text, seed)


@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: s["kind"])
def test_the_gate_never_accepts_what_the_python_checks_refuse(seed: dict) -> None:
    wrong, refused_by_python = [], 0
    for change, text in mutants(seed):
        obj = json.loads(text)
        if python_accepts(obj):
            continue
        refused_by_python += 1
        if gate_accepts(text, seed):
            wrong.append(change)
    assert not wrong, wrong[:20]
    assert refused_by_python > 5  # the mutations do reach the checks


@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: s["kind"])
def test_the_gate_accepts_changes_the_checks_accept(seed: dict) -> None:
    """Not a promise, but the gate's worth: plain values of the right type pass."""
    accepted = sum(gate_accepts(text, seed) for _, text in mutants(seed))
    assert accepted > 100


@pytest.mark.parametrize("text,why", [
    ('{"apiVersion":"v1","kind":"Pod","spec":{"priority":NaN}}', "NaN"),
    ('{"apiVersion":"v1","kind":"Pod","spec":{"priority":Infinity}}', "Infinity"),
    ('{"apiVersion":"v1","kind":"Pod","spec":{"priority":1e400}}', "past a float's range"),
    ('{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p\\ud800"}}', "lone surrogate"),
    ('{"apiVersion":"v1","kind":"Pod","metadata":{"annotations":{"a":"\\udc00"}}}', "lone low surrogate"),
    ('{"apiVersion":"v1","kind":"Pod","spec":{"overhead":{"cpu":NaN}}}', "NaN where any value goes"),
    ('{"apiVersion":"v1","kind":"Pod","spec":{"priority":1.0}}', "1.0 is not an integer"),
    ('{"apiVersion":"v1","kind":"Pod","spec":{"hostNetwork":1}}', "1 is not true"),
    ('{"apiVersion":"v1","kind":"Pod","spec":{"priority":true}}', "true is not 1"),
])
def test_what_json_reads_and_msgspec_does_not_goes_the_python_way(text: str, why: str) -> None:
    obj = json.loads(text)
    assert not gate_accepts(text, obj), why


def test_a_valid_surrogate_pair_passes() -> None:
    text = '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","annotations":{"a":"\\ud83d\\ude00"}}}'
    assert json.loads(text)["metadata"]["annotations"]["a"] == "\U0001F600"
    assert gate_accepts(text, json.loads(text))


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["name", "key", "values", "zz", "operator", "matchLabels", "weight", "items"]), inner, max_size=3),
    max_leaves=6)


@settings(max_examples=300, deadline=None)
@given(seed=st.sampled_from(SEEDS[:2]), where=st.integers(min_value=0), new=_JSON_VALUES,
       other=st.integers(min_value=0), new2=_JSON_VALUES)
def test_random_changes_in_two_places(seed: dict, where: int, new: Any, other: int, new2: Any) -> None:
    places = [p for p in paths(seed) if p]
    obj = replaced(replaced(seed, places[where % len(places)], new), places[other % len(places)], new2) \
        if places[other % len(places)][:len(places[where % len(places)])] != places[where % len(places)] \
        else replaced(seed, places[where % len(places)], new)
    text = to_json(obj)
    if gate_accepts(text, seed):
        assert python_accepts(json.loads(text)), text


# --------------------------------------------------------------------------- marking documents


@pytest.fixture(autouse=True)
def _small_files_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small files take the way of large ones: msgspec, then the gate."""
    monkeypatch.setattr(loader, "GATE_MIN_OBJECTS", 1)
    monkeypatch.setattr(loader, "MSGSPEC_MIN_BYTES", 0)


def _docs(text: str) -> list[loader.Document]:
    with using(FastPaths()):
        return parse_text(text.encode("utf-8"), "cluster.json")


POD, NODE = SEEDS[0], SEEDS[1]
BAD_POD = replaced(POD, ("spec", "priority"), "high")


CLAIM_V1 = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "a", "namespace": "n"},
            "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu"}}]}}}
CLAIM_V1BETA1 = {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaim",
                 "metadata": {"name": "b", "namespace": "n"},
                 "spec": {"devices": {"requests": [{"name": "r", "deviceClassName": "gpu"}]}}}


@pytest.mark.parametrize("text,marked", [
    (to_json({"apiVersion": "v1", "kind": "List", "items": [POD, BAD_POD, NODE]}), [True, False, True]),
    (to_json([POD, NODE, BAD_POD]), [True, True, False]),
    (to_json(POD), [True]),
    (to_json(BAD_POD), [False]),
    # A typed list: items without kind or apiVersion get the list's.
    (to_json({"apiVersion": "v1", "kind": "PodList",
              "items": [{k: v for k, v in POD.items() if k not in ("kind", "apiVersion")}]}), [True]),
    # Repeated "items": json and msgspec both keep the last.
    (to_json(Pairs([("apiVersion", "v1"), ("kind", "List"), ("items", [POD, POD]), ("items", [BAD_POD])])), [False]),
    (to_json(Pairs([("apiVersion", "v1"), ("kind", "List"), ("items", [BAD_POD, BAD_POD]), ("items", [POD])])), [True]),
    # A List inside a List: from there on, items no longer line up with documents.
    (to_json({"apiVersion": "v1", "kind": "List", "items": [POD, {"apiVersion": "v1", "kind": "List", "items": [NODE]},
                                                            NODE]}), [True, False, False]),
    # Two arrays one after the other: msgspec reads one value only.
    (to_json([POD]) + to_json([NODE]), [False, False]),
    # A kind the schema does not know.
    (to_json({"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "x/v1", "kind": "Thing",
                                                             "metadata": {"name": "t"}}, POD]}), [False, True]),
    # Not the strings a kind and an apiVersion are: the loader's own error, not the gate's.
    (to_json({"apiVersion": "v1", "kind": "List", "items": [POD, {"apiVersion": ["v1"], "kind": {"a": 1}}]}), None),
    # Two values one after the other: not gated.
    (to_json(POD) + "\n" + to_json(NODE), [False, False]),
    # One kind in two versions, one after the other: each held to its own version's types.
    (to_json({"apiVersion": "v1", "kind": "List", "items": [CLAIM_V1, CLAIM_V1BETA1, CLAIM_V1]}), [True, True, True]),
])
def test_documents_are_marked_only_when_their_own_text_passes(text: str, marked: list[bool] | None) -> None:
    if marked is None:
        with pytest.raises(InputError, match="kind must be a string"):
            _docs(text)
        return
    assert [d.gated for d in _docs(text)] == marked


def test_the_gate_is_off_without_the_fast_paths() -> None:
    for paths in (FastPaths.off(), FastPaths(typed_gate=False)):
        with using(paths):
            docs = parse_text(to_json(POD).encode(), "pod.json")
        assert [d.gated for d in docs] == [False]


def test_every_kind_of_the_schema_has_a_gate() -> None:
    from kschedctl.inputs.fields import schema_types

    kinds, _ = schema_types()
    missing = [key for key in kinds if json_gate.decoder_for(*key.rsplit("/", 1)) is None]
    assert not missing


def test_nan_is_no_number_the_gate_lets_by() -> None:
    assert math.isnan(json.loads('{"a": NaN}')["a"])  # what json reads; the gate refuses it
    assert not gate_accepts('{"apiVersion":"v1","kind":"Node","metadata":{"name":"n","labels":{"a":NaN}}}',
                            {"apiVersion": "v1", "kind": "Node"})


# --------------------------------------------------------------------------- msgspec as the reader


@pytest.mark.parametrize("seed", SEEDS[:2], ids=lambda s: s["kind"])
def test_msgspec_reads_what_json_reads_or_nothing(seed: dict) -> None:
    """loader._whole_value decodes big files with msgspec: where it reads a text at all, the value
    is json's to the last detail (1 vs 1.0 vs true, key order, repeated keys, big integers)."""
    read = 0
    for change, text in mutants(seed):
        value = loader._whole_value(text.encode("utf-8"))
        if value is loader._NOT_ONE_VALUE:
            continue
        read += 1
        assert repr(value) == repr(json.loads(text)), change
    assert read > 1000


@pytest.mark.parametrize("text", [
    '{"a": NaN}', '{"a": Infinity}', '{"a": -Infinity}', '{"a": 1e400}', '["\\ud800"]', '{"a": "x\\udc00"}',
    "1" * 4301, '{"a": 1} {"b": 2}', '[1] [2]', '{"a": 1',
])
def test_what_msgspec_does_not_read_goes_to_json(text: str) -> None:
    assert loader._whole_value(text.encode("utf-8")) is loader._NOT_ONE_VALUE


@pytest.mark.parametrize("fast", [True, False])
def test_a_big_file_gives_the_same_documents_either_way(fast: bool) -> None:
    text = to_json({"apiVersion": "v1", "kind": "List", "items": [POD, NODE, BAD_POD] * 3})
    with using(FastPaths() if fast else FastPaths.off()):
        docs = parse_text(text.encode("utf-8"), "cluster.json")
    assert [(d.obj, d.line) for d in docs] == [(d.obj, d.line) for d in parse_text(text, "cluster.json")]


def test_every_gated_kind_is_served() -> None:
    """check_documents skips problems() for a gated document of a cluster file: its kind must be
    one that kind_problem finds nothing wrong with."""
    from kschedctl.inputs.api_checks import kind_problem
    from kschedctl.inputs.fields import schema_types

    kinds, _ = schema_types()
    for key in kinds:
        api_version, kind = key.rsplit("/", 1)
        assert json_gate.decoder_for(api_version, kind) is not None
        assert kind_problem({"apiVersion": api_version, "kind": kind}) is None, key


# --------------------------------------------------------------------------- a large List, cut


_CUT_CASES = [
    pytest.param({"apiVersion": "v1", "kind": "List", "items": [POD, BAD_POD, NODE, POD, NODE]}, id="list"),
    pytest.param(Pairs([("items", [NODE, POD, BAD_POD]), ("kind", "List"), ("apiVersion", "v1"),
                        ("metadata", {"resourceVersion": "7"})]), id="items-first"),
    pytest.param({"apiVersion": "v1", "kind": "PodList",
                  "items": [{k: v for k, v in POD.items() if k not in ("kind", "apiVersion")}] * 3}, id="typed-list"),
    pytest.param(Pairs([("apiVersion", "v1"), ("kind", "List"), ("items", [POD, POD]), ("items", [BAD_POD, POD,
                                                                                                    NODE])]),
                 id="items-twice"),
    pytest.param({"apiVersion": "v1", "kind": "List",
                  "items": [POD, {"apiVersion": "v1", "kind": "List", "items": [NODE, POD]}, NODE]}, id="nested-list"),
    pytest.param({"apiVersion": "v1", "kind": "List", "items": []}, id="empty"),
    pytest.param({"apiVersion": "v1", "kind": "List", "items": [POD, replaced(POD, ("metadata", "name"), "\ud800x")]},
                 id="lone-surrogate"),
    pytest.param({"apiVersion": "v1", "kind": "List", "items": [POD, NODE, replaced(POD, ("spec", "priority"),
                                                                                   float("nan"))]}, id="nan"),
    pytest.param({"apiVersion": "v1", "kind": "Pod", "items": [POD, NODE, POD]}, id="not-a-list-kind"),
]


@pytest.mark.parametrize("value", _CUT_CASES)
def test_a_list_read_in_cuts_gives_the_documents_of_a_list_read_whole(value: Any, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A large List's items are decoded a few thousand at a time from copies of their texts, so
    that the file's bytes go before its objects are built; what comes out is what reading the
    whole value gives: the same objects, the same gate verdicts, the same lines."""
    path = tmp_path / "cluster.json"
    path.write_text(to_json(value).replace("},{", "},\n{"))  # an item a line

    def read() -> list[tuple[Any, bool, int | None]]:
        with using(FastPaths()):
            return [(d.obj, d.gated, d.line) for d in loader.load_file(str(path))]

    monkeypatch.setattr(loader, "SPLIT_ITEMS", 2)
    monkeypatch.setattr(loader, "SPLIT_MIN_BYTES", 0)
    cut = read()
    monkeypatch.setattr(loader, "_split_list", lambda utf8, **_: None)
    assert cut == read()
