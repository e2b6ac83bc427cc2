"""The one safe YAML reader: the lean builder reads exactly what PyYAML's SafeLoader read before it.

The expected values below were recorded from the loader as it was before the lean builder
(``yaml.CSafeLoader`` composing, SafeConstructor building, timestamps kept as strings, aliases
unshared); the seeded differential test compares the two paths of the reader on generated
documents.
"""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

import pytest
import yaml

from kschedctl.config.lines import load_yaml
from kschedctl.errors import InputError
from kschedctl.inputs import yaml_reader
from kschedctl.inputs.loader import parse_text
from kschedctl.inputs.yaml_reader import Doc, documents, load_all

INF = float("inf")

#: name -> (text, [(value, line, item_lines)] as recorded from the previous loader, fast path?)
EQUIVALENT: dict[str, tuple[str, list[tuple[Any, int, list[int] | None]], bool]] = {
    "bool words (YAML 1.1)": (
        "a: yes\nb: On\nc: off\nd: y\ne: n\nf: True\ng: NO\nh: tRUE\n",
        [({"a": True, "b": True, "c": False, "d": "y", "e": "n", "f": True, "g": False, "h": "tRUE"}, 1, None)], True),
    "integers (octal, binary, hex, sexagesimal)": (
        "a: 017\nb: 0o17\nc: 0b101\nd: 0x1F\ne: 0x_1F\nf: 1_000\ng: 1:30\nh: -1:30\ni: +12\nj: -0\nk: 08\n"
        "l: 12345678901234567890123\n",
        [({"a": 15, "b": "0o17", "c": 5, "d": 31, "e": 31, "f": 1000, "g": 90, "h": -90, "i": 12, "j": 0, "k": "08",
           "l": 12345678901234567890123}, 1, None)], True),
    "floats": (
        "a: 1.5\nb: .5\nc: 1e3\nd: 1.0e+3\ne: 6.8523015e+5\nf: 190:20:30.15\ng: .inf\nh: -.Inf\ni: 1.\nj: -1_0.5\n",
        [({"a": 1.5, "b": 0.5, "c": "1e3", "d": 1000.0, "e": 685230.15, "f": 685230.15, "g": INF, "h": -INF, "i": 1.0,
           "j": -10.5}, 1, None)], True),
    "nulls": (
        "a: ~\nb: null\nc: Null\nd: NULL\ne:\nf: nUll\ng: ''\n",
        [({"a": None, "b": None, "c": None, "d": None, "e": None, "f": "nUll", "g": ""}, 1, None)], True),
    "timestamps stay strings": (
        "a: 2001-12-14\nb: 2001-12-14t21:59:43.10-05:00\nc: 2001-12-14 21:59:43.10 -5\nd: !!timestamp 2001-12-14\n"
        "2001-12-14: key\n",
        [({"a": "2001-12-14", "b": "2001-12-14t21:59:43.10-05:00", "c": "2001-12-14 21:59:43.10 -5",
           "d": "2001-12-14", "2001-12-14": "key"}, 1, None)], True),
    "quoted and block scalars": (
        "a: 'yes'\nb: \"1\"\nc: 'it''s'\nd: |\n  x\n   y\ne: >\n  folded\n  text\nf: |-\n  z\ng: \"t\\tab\"\n",
        [({"a": "yes", "b": "1", "c": "it's", "d": "x\n y\n", "e": "folded text\n", "f": "z", "g": "t\tab"}, 1, None)],
        True),
    "explicit core tags": (
        "a: !!str 12\nb: !!int '12'\nc: !!float 1\nd: !!bool yes\ne: !!null x\nf: ! 12\n"
        "g: !<tag:yaml.org,2002:int> 7\nh: !!str\n",
        [({"a": "12", "b": 12, "c": 1.0, "d": True, "e": None, "f": 12, "g": 7, "h": ""}, 1, None)], True),
    "tag directive": (
        "%TAG !e! tag:yaml.org,2002:\n---\na: !e!int 5\nb: !e!str 5\n", [({"a": 5, "b": "5"}, 3, None)], True),
    "other PyYAML tags (built by PyYAML)": (
        "a: !!binary aGVsbG8=\nb: !!omap [{a: 1}, {b: 2}]\nc: !!pairs [{a: 1}, {a: 2}]\nd: !!set {x}\n",
        [({"a": b"hello", "b": [("a", 1), ("b", 2)], "c": [("a", 1), ("a", 2)], "d": {"x"}}, 1, None)], False),
    "keys of every kind": (
        "1: a\ntrue: b\n~: c\n1.5: d\n= : e\n'q': f\n0x10: g\n",
        [({1: "b", None: "c", 1.5: "d", "=": "e", "q": "f", 16: "g"}, 1, None)], True),
    "duplicate keys keep the last value": ("a: 1\nb: 2\na: 3\n", [({"a": 3, "b": 2}, 1, None)], True),
    "anchors and aliases": (
        "a: &x [1, {k: v}]\nb: *x\nc: &s str\nd: *s\n*s : as key\n",
        [({"a": [1, {"k": "v"}], "b": [1, {"k": "v"}], "c": "str", "d": "str", "str": "as key"}, 1, None)], True),
    "merge keys, explicit keys win": (
        "base: &b {p: 1, q: 1}\nm: {q: 2, <<: *b, r: 3}\n",
        [({"base": {"p": 1, "q": 1}, "m": {"p": 1, "q": 2, "r": 3}}, 1, None)], True),
    "merge list, earlier sources win": (
        "x: &x {p: x}\ny: &y {p: y, r: y}\nm: {<<: [*x, *y], s: 1}\n",
        [({"x": {"p": "x"}, "y": {"p": "y", "r": "y"}, "m": {"p": "x", "r": "y", "s": 1}}, 1, None)], True),
    "nested merges": (
        "a: &a {<<: {z: 1}, y: 2}\nb: {<<: *a, x: 3}\n",
        [({"a": {"z": 1, "y": 2}, "b": {"z": 1, "y": 2, "x": 3}}, 1, None)], True),
    "flow style": (
        "{a: [1, {b: c}, [d]], e: {}, f: []}\n", [({"a": [1, {"b": "c"}, ["d"]], "e": {}, "f": []}, 1, None)], True),
    "documents in a stream": (
        "a: 1\n---\n--- 5\n---\n[x]\n...\n", [({"a": 1}, 1, None), (None, 3, None), (5, 3, None), (["x"], 5, None)],
        True),
    "List item lines": (
        "kind: List\nitems:\n- a\n-\n  b: 1\n- [1]\n- &x {c: 2}\n- *x\n",
        [({"kind": "List", "items": ["a", {"b": 1}, [1], {"c": 2}, {"c": 2}]}, 1, [3, 5, 6, 7, 7])], True),
}

#: name -> (text, message, line) as the previous loader reported them.
ERRORS = {
    "unknown tag": ("a: !foo x\n", "invalid YAML: could not determine a constructor for the tag '!foo' (column 4)", 1),
    "value tag as a value": (
        "a: =\n", "invalid YAML: could not determine a constructor for the tag 'tag:yaml.org,2002:value' (column 4)", 1),
    "merge key as a value": (
        "a: <<\n", "invalid YAML: could not determine a constructor for the tag 'tag:yaml.org,2002:merge' (column 4)", 1),
    "complex key": ("? [1]\n: 2\n", "invalid YAML: while constructing a mapping, found unhashable key (column 3)", 1),
    "duplicate anchor": (
        "a: &x 1\nb: &x 2\n", "invalid YAML: found duplicate anchor; first occurrence, second occurrence (column 4)", 2),
    "scalar tag on a sequence": ("a: !!str [1]\n", "invalid YAML: expected a scalar node, but found sequence (column 4)", 1),
    "unreadable tagged int": ("x: 1\na: !!int abc\n", "invalid YAML: invalid literal for int() with base 10: 'abc'", 1),
    "merge of a scalar": (
        "b: {<<: 1}\n", "invalid YAML: while constructing a mapping, expected a mapping or list of mappings for "
        "merging, but found scalar (column 9)", 1),
    "unclosed flow": (
        "a: [1, 2\n", "invalid YAML: while parsing a flow sequence, did not find expected ',' or ']' (column 1)", 2),
    "tab indentation": (
        "a:\n\tb: 1\n", "invalid YAML: while scanning for the next token, found character that cannot start any token "
        "(a tab: YAML is indented with spaces only) (column 1)", 2),
    "integer of 1001 digits": (
        "a: " + "9" * 1001 + "\n", "invalid YAML: integer literal of 1001 characters is too large (column 4)", 1),
    "syntax error in a later document": (
        "a: 2\n---\nb: [\n", "invalid YAML: while parsing a flow node, did not find expected node content (column 1)", 4),
    "self-referencing alias": ("a: &a [*a]\n", "invalid YAML: anchor 'a' value contains itself", 1),
    "unknown alias": ("a: *nope\n", "invalid YAML: unknown anchor 'nope' referenced", 1),
    # PyYAML fails with a KeyError here; the previous loader let it through as a traceback.
    "unreadable tagged bool": ("a: !!bool maybe\n",
                               "invalid YAML: a tagged value cannot be read (KeyError: 'maybe')", 1),
}


def same(a: Any, b: Any) -> bool:
    """Equal, with the same types everywhere (True is not 1), keys in the same order, NaN equal to NaN."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, dict):
        return (list(a) == list(b) and all(type(x) is type(y) for x, y in zip(a, b))
                and all(same(x, y) for x, y in zip(a.values(), b.values())))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return bool(a == b)


def containers(value: Any) -> list[int]:
    """The ids of every dict and list in ``value`` (to see that none is shared)."""
    out: list[int] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, (dict, list)):
            out.append(id(v))
            stack.extend(v.values() if isinstance(v, dict) else v)
    return out


def _no_fallback(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("the document went to PyYAML's constructor")


@pytest.mark.parametrize("name", list(EQUIVALENT), ids=[f"Reader_{n}" for n in EQUIVALENT])
def test_reads_what_the_previous_loader_read(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text, expected, fast = EQUIVALENT[name]
    if fast:
        monkeypatch.setattr(yaml_reader, "_constructed_documents", _no_fallback)
    got = list(documents(text, "t.yaml"))
    assert [tuple(d) for d in got] == expected  # values, lines, item lines
    for doc, want in zip(got, expected):
        assert same(doc.value, want[0]), doc.value
        ids = containers(doc.value)
        assert len(ids) == len(set(ids)), "a dict or list is shared"


@pytest.mark.parametrize("name", list(ERRORS), ids=[f"ReaderError_{n}" for n in ERRORS])
def test_faults_are_worded_as_before(name: str) -> None:
    text, message, line = ERRORS[name]
    with pytest.raises(InputError) as exc:
        load_all(text, "t.yaml")
    assert (exc.value.message, exc.value.file, exc.value.line) == (message, "t.yaml", line)


def test_nan_and_sets() -> None:
    value = load_all("a: .NaN\nb: !!set {x, y}\n", "t.yaml")[0]
    assert math.isnan(value["a"]) and value["b"] == {"x", "y"}


#: Cases where the previous loader was plain SafeLoader (no timestamps, no over-long integers).
SAFE_LOADER_CASES = ["bool words (YAML 1.1)", "integers (octal, binary, hex, sexagesimal)", "floats", "nulls",
                     "quoted and block scalars", "explicit core tags", "keys of every kind",
                     "duplicate keys keep the last value", "anchors and aliases", "merge keys, explicit keys win",
                     "merge list, earlier sources win", "nested merges", "flow style",
                     "documents in a stream", "List item lines", "other PyYAML tags (built by PyYAML)"]


def test_two_merge_keys_are_read_as_the_installed_pyyaml_reads_them() -> None:
    """Which one wins changed in PyYAML 6.0.4; the reader leaves such a mapping to PyYAML."""
    text = "m: {<<: {p: 1}, <<: {p: 2, q: 3}}\n"
    want = yaml.load(text, Loader=yaml_reader.CLoader)
    assert want["m"]["q"] == 3 and want["m"]["p"] in (1, 2)
    assert load_all(text, "t.yaml") == [want]


def test_agrees_with_pyyaml_safe_loader_where_the_previous_loader_did() -> None:
    text = "".join("---\n" + EQUIVALENT[name][0] for name in SAFE_LOADER_CASES)
    want = list(yaml.load_all(text, Loader=yaml_reader.CLoader))
    assert same(load_all(text, "t.yaml"), want)


def test_documents_are_read_one_at_a_time() -> None:
    # The caller sees the first document before the reader meets a syntax error in the second.
    found = documents("a: 1\n---\nb: [\n", "t.yaml")
    assert next(found) == Doc({"a": 1}, 1, None)
    with pytest.raises(InputError) as exc:
        next(found)
    assert exc.value.line == 4


def test_a_document_left_to_pyyaml_keeps_the_ones_before() -> None:
    text = "a: &x {k: 1}\nb: *x\n---\nc: !!binary aGk=\nd: 1\n"
    assert load_all(text, "t.yaml") == [{"a": {"k": 1}, "b": {"k": 1}}, {"c": b"hi", "d": 1}]


# --------------------------------------------------------------------------- differential

_SCALARS = ["yes", "No", "on", "OFF", "y", "~", "null", "", "0", "-0", "017", "0o17", "0b101", "0x1F", "1_000",
            "1:30", "1.5", ".5", "1e3", "1.0e+3", "190:20:30.15", ".inf", "-.Inf", ".nan", "2001-12-14",
            "2001-12-14t21:59:43.10-05:00", "'quoted'", '"1"', "'yes'", "v", "name", "12abc", "+1", "1.", "Yes",
            "!!str 1", "!!int '12'", "!!float 1", "!!bool yes", "!!null ''", "! 12", "!!binary aGk="]
_KEYS = ["a", "b", "items", "kind", "<<", "=", "1", "true", "~", "'q'", "yes", "1.5"]


def _generate(rnd: random.Random, counter: itertools.count, depth: int, indent: int, anchors: list[str],
              flow: bool = False) -> str:
    if depth > 3 or rnd.random() < 0.35:
        if anchors and rnd.random() < 0.15:
            return "*" + rnd.choice(anchors)
        scalar = rnd.choice(_SCALARS)
        if rnd.random() < 0.1:
            name = f"a{next(counter)}"
            anchors.append(name)
            return f"&{name} {scalar}"
        return scalar
    anchor = f"a{next(counter)}" if rnd.random() < 0.2 else ""
    prefix = f"&{anchor} " if anchor else ""
    if flow or rnd.random() < 0.3:
        if rnd.random() < 0.5:
            body = "[" + ", ".join(_generate(rnd, counter, depth + 1, 0, anchors, True)
                                   for _ in range(rnd.randint(0, 3))) + "]"
        else:
            body = "{" + ", ".join(f"{rnd.choice(_KEYS)}: {_generate(rnd, counter, depth + 1, 0, anchors, True)}"
                                   for _ in range(rnd.randint(0, 3))) + "}"
    else:
        pad = " " * indent
        if rnd.random() < 0.5:
            body = "".join(f"\n{pad}- {_generate(rnd, counter, depth + 1, indent + 2, anchors)}"
                           for _ in range(rnd.randint(1, 3)))
        else:
            body = "".join(f"\n{pad}{rnd.choice(_KEYS)}: {_generate(rnd, counter, depth + 1, indent + 2, anchors)}"
                           for _ in range(rnd.randint(1, 3)))
    if anchor:
        anchors.append(anchor)
    return prefix + body


def _outcome(read: Any, text: str) -> tuple[str, Any]:
    try:
        return "ok", [tuple(d) for d in read(text)]
    except InputError as exc:
        return "error", (exc.message, exc.line)
    except yaml.YAMLError as exc:
        error = yaml_reader.Wording().syntax(exc, "t.yaml", text)
        return "error", (error.message, error.line)


def test_lean_builder_matches_pyyaml_constructor_on_generated_documents() -> None:
    rnd = random.Random(20240601)
    counter = itertools.count()
    fast = 0
    for _ in range(400):
        docs = []
        for _ in range(rnd.randint(1, 3)):
            body = _generate(rnd, counter, 0, 0, [])
            docs.append("x:" + body if body.startswith("\n") else body)
        text = "\n---\n".join(docs) + "\n"
        if "*" in text:
            try:
                yaml_reader._check(text, "t.yaml", yaml_reader.Rules())
            except InputError:
                continue  # refused before either builder runs

        def reference(t: str) -> list[Doc]:
            return list(yaml_reader._constructed_documents(t, "t.yaml", yaml_reader.Wording(), 0, "*" in t))

        def lean(t: str) -> list[Doc]:
            return list(yaml_reader._fast_documents(t))

        want = _outcome(reference, text)
        try:
            got = _outcome(lean, text)
        except yaml_reader._Unusual:
            continue  # left to PyYAML, which is the reference
        if want[0] == "ok":
            fast += 1
            assert got[0] == "ok" and len(got[1]) == len(want[1]), text
            for g, w in zip(got[1], want[1]):
                assert same(g[0], w[0]) and g[1:] == w[1:], text
        else:
            assert got == want, text  # the same syntax error, at the same place
    assert fast > 200  # most generated documents stay on the lean path


# --------------------------------------------------------------------------- wording


def test_each_caller_keeps_its_words_for_the_same_fault() -> None:
    text = "a: [1, 2\n"
    with pytest.raises(InputError) as inputs:
        parse_text(text, "c.yaml")
    with pytest.raises(InputError) as config:
        load_yaml(text, "c.yaml")
    assert (inputs.value.message, inputs.value.line) == (
        "invalid YAML: while parsing a flow sequence, did not find expected ',' or ']' (column 1)", 2)
    assert (config.value.message, config.value.line) == ("not valid YAML: did not find expected ',' or ']'", 2)


def test_deep_block_nesting_is_refused_before_composing() -> None:
    # 50,000 compact sequences: the C composer would overflow the C stack on them.
    text = "a:\n" + "- " * 50_000 + "x\n"
    with pytest.raises(InputError) as exc:
        yaml_reader.compose(text, "d.yaml")
    assert (exc.value.message, exc.value.line) == ("document nested deeper than 200 levels", 2)
