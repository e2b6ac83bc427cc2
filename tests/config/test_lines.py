"""The configuration's line layer over the safe YAML reader: field path -> line, Go-strict scalars,
duplicate keys, and the limits configuration users know (with their words)."""

from __future__ import annotations

import pytest

from kschedctl.config.api import validate_text
from kschedctl.config.lines import MAX_DEPTH, MAX_NODES, line_for, load_yaml, nearest_line, read_nodes
from kschedctl.errors import InputError
from kschedctl.scenarios.files import parse_text as parse_scenarios

TEXT = """a: 1
b:
  - x
  - {c: 2,
     d: 3}
base: &b {p: 1, q: 2}
m:
  <<: *b
  q: 5
a: 9
"""


def test_every_field_path_has_its_line() -> None:
    loaded = load_yaml(TEXT, "c.yaml")
    assert loaded.data == {"a": 9, "b": ["x", {"c": 2, "d": 3}], "base": {"p": 1, "q": 2}, "m": {"q": 5, "p": 1}}
    assert list(loaded.data["m"]) == ["q", "p"]  # explicit keys first, merged ones after
    assert loaded.lines == {"a": 10, "b": 2, "b[0]": 3, "b[1]": 4, "b[1].c": 4, "b[1].d": 5, "base": 6, "base.p": 6,
                            "base.q": 6, "m": 7, "m.p": 6, "m.q": 9}
    assert loaded.duplicates == [("a", 10)]


@pytest.mark.parametrize("text,data", [
    ("a: yes\nb: 0x10\nc: 1.5\nd: ~\ne: 2001-12-14\nf: !!binary aGk=\ng: !custom x\n1: one\ntrue: t\n",
     {"a": True, "b": 16, "c": 1.5, "d": None, "e": "2001-12-14", "f": "aGk=", "g": "x", "1": "one", "true": "t"}),
], ids=["ConfigScalars_as Go decodes them"])
def test_scalars_and_keys_read_as_go_would(text: str, data: dict) -> None:
    assert load_yaml(text, "c.yaml").data == data


@pytest.mark.parametrize("text,message,line", [
    ("a: [1, 2\n", "not valid YAML: did not find expected ',' or ']'", 2),
    ("a: 1\n---\nb: 2\n", "not valid YAML: but found another document", 2),
    ("", "the file is empty", None),
    ("a: 99999999999999999999\n", "number 99999999999999999999 is out of range for a 64-bit integer", 1),
    ("a: .inf\n", "number .inf cannot be represented", 1),
    ("? [a]\n: b\n", "mapping keys must be plain strings", 1),
    ("a: {<<: [1]}\n", "a merge key (<<) must refer to a mapping", 1),
    ("a: " + "[" * 65 + "]" * 65 + "\n", f"document is nested more than {MAX_DEPTH} levels deep", None),
    ("- " * 65 + "x\n", f"document is nested more than {MAX_DEPTH} levels deep", 1),
    ("a: &a [x, x, x, x, x, x, x, x, x, x]\n"
     + "".join(f"{c}: &{c} [{', '.join(['*' + p] * 10)}]\n" for p, c in zip("abcdef", "bcdefg")),
     f"document expands to more than {MAX_NODES} nodes (alias bomb?)", 1),
], ids=[f"ConfigFault_{n}" for n in ("syntax", "two documents", "empty", "int64 range", "infinity",
                                      "complex key", "merge of a scalar", "deep flow", "deep block", "alias bomb")])
def test_faults_in_configuration_words(text: str, message: str, line: int | None) -> None:
    with pytest.raises(InputError) as exc:
        load_yaml(text, "c.yaml")
    assert (exc.value.message, exc.value.file, exc.value.line) == (message, "c.yaml", line)


def test_nesting_the_c_composer_cannot_take_is_refused_not_crashed() -> None:
    # Compact sequences nest without indentation: 50,000 levels used to overflow the C stack.
    text = "a:\n" + "- " * 50_000 + "x\n"
    with pytest.raises(InputError) as exc:
        validate_text(text, "cfg.yaml")
    assert (exc.value.message, exc.value.line) == (f"document is nested more than {MAX_DEPTH} levels deep", 2)
    scenarios, findings = parse_scenarios(text, "s.yaml")
    assert not scenarios and [(f.line, f.message) for f in findings] == [
        (2, f"document is nested more than {MAX_DEPTH} levels deep")]


def test_read_nodes_gives_every_document() -> None:
    nodes = read_nodes("a: 1\n---\n---\nb: 2\n", "s.yaml")
    assert [n.start_mark.line + 1 for n in nodes] == [1, 3, 4]


def test_line_of_the_nearest_ancestor() -> None:
    lines = {"profiles": 3, "profiles[0]": 4, "profiles[0].pluginConfig[1].args.scoringStrategy": 9,
             "profiles[0].pluginConfig[1].args.scoringStrategy.requestedToCapacityRatio.shape": 11}
    assert nearest_line(lines, "profiles[0].plugins.score") == 4
    assert nearest_line(lines, "percentageOfNodesToScore") is None
    assert nearest_line(lines, "") is None
    # upstream reports RequestedToCapacityRatio shape errors without the requestedToCapacityRatio step
    assert line_for(lines, "profiles[0].pluginConfig[1].args.scoringStrategy.shape[0].score") == 11
