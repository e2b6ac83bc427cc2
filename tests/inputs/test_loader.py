"""Loading YAML/JSON: documents with file and line, and every kind of bad input failing fast."""

from __future__ import annotations

import io
import json
import os
import random
import re
from pathlib import Path
from typing import Any, Callable

import pytest
import yaml

from kschedctl.errors import InputError
from kschedctl.inputs import loader
from kschedctl.inputs.loader import (
    MAX_DEPTH,
    MAX_FILE_BYTES,
    STDIN_NAME,
    Document,
    load_documents,
    parse_text,
)
from tests.work import calls_made

HERE = Path(__file__).parent
FILES = HERE / "files"
CASES = yaml.safe_load((HERE / "cases" / "loader.yaml").read_text(encoding="utf-8"))["cases"]

#: Bound on the function calls of "fails fast, never hangs" (the cases take at most about 10,000;
#: a hostile input that got past a limit would take millions). A count, not seconds: it holds on
#: a busy machine.
FAST = 100_000


@pytest.mark.parametrize("case", [pytest.param(c, id=f"Loader_{c['name']}") for c in CASES])
def test_loader_cases(case: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FILES)
    result, calls = calls_made(lambda: load_documents(case["paths"]))
    assert calls < FAST
    if "error" in case:
        want = case["error"]
        assert isinstance(result, InputError), f"expected an error, got {result!r}"
        assert os.path.normpath(result.file) == os.path.normpath(want["file"])
        assert result.line == want["line"]
        assert want["contains"] in str(result)
        assert "\n" not in str(result)
        return
    assert not isinstance(result, InputError), str(result)
    got = []
    for doc in result:
        entry = {"kind": doc.kind, "name": doc.obj["metadata"]["name"],
                 "file": os.path.relpath(doc.file).replace(os.sep, "/"), "line": doc.line}
        got.append(entry)
    want_docs = [{k: v for k, v in d.items() if k != "apiVersion"} for d in case["docs"]]
    assert got == want_docs
    for doc, want in zip(result, case["docs"]):
        if "apiVersion" in want:
            assert doc.obj["apiVersion"] == want["apiVersion"]


# --------------------------------------------------------------------------- hostile input

def _deep_flow(n: int) -> str:
    return "apiVersion: v1\nkind: Pod\nx: " + "[" * n + "]" * n + "\n"


def _deep_block(n: int) -> str:
    return "apiVersion: v1\nkind: Pod\n" + "".join(" " * i + f"k{i}:\n" for i in range(n)) + " " * n + "v\n"


def _deep_json(n: int, pad: int = 0) -> str:
    return '{"apiVersion": "v1", "kind": "Pod", "pad": "' + "a" * pad + '", "x": ' + "[" * n + "]" * n + "}"


def _laughs(levels: int) -> str:
    out = ["apiVersion: v1", "kind: ConfigMap", "data:", '  l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels):
        out.append(f"  l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 9) + "]")
    return "\n".join(out) + "\n"


def _mapping_laughs(levels: int) -> str:
    # the same bomb with mappings and merge keys instead of sequences
    out = ["apiVersion: v1", "kind: ConfigMap", "a0: &a0 {x: 1, y: 2, z: 3, u: 4, v: 5, w: 6, p: 7, q: 8, r: 9}"]
    for i in range(1, levels):
        out.append(f"a{i}: &a{i} {{" + ", ".join(f"k{j}: *a{i - 1}" for j in range(9)) + "}")
    return "\n".join(out) + "\n"


HOSTILE = [
    # name, text (str or bytes), file name, expected line (None: any), message part
    ("deep flow YAML nesting", lambda: _deep_flow(100_000), "deep.yaml", 3, f"nested deeper than {MAX_DEPTH} levels"),
    ("deep block YAML nesting", lambda: _deep_block(1_000), "deep.yaml", 3 + MAX_DEPTH, "nested deeper than"),
    ("deep compact sequences", lambda: "apiVersion: v1\nkind: Pod\nx:\n" + "- " * 50_000 + "x\n", "deep.yaml", 4,
     "nested deeper than"),
    ("deep JSON nesting (C recursion)", lambda: _deep_json(100_000), "deep.json", 1, "nested deeper than"),
    ("JSON nested just past the limit", lambda: _deep_json(MAX_DEPTH), "deep.json", 1, "nested deeper than"),
    ("JSON nested just past the limit in a 2 MiB file", lambda: _deep_json(MAX_DEPTH, pad=2 << 20), "deep.json", 1,
     "nested deeper than"),
    ("billion laughs, 9 levels", lambda: _laughs(9), "laughs.yaml", None, "excessive aliasing"),
    ("billion laughs, 30 levels", lambda: _laughs(30), "laughs.yaml", None, "excessive aliasing"),
    ("billion laughs with mappings", lambda: _mapping_laughs(12), "laughs.yaml", None, "excessive aliasing"),
    ("aliases deepen past the limit", lambda: "apiVersion: v1\nkind: Pod\na: &a " + "[" * 150 + "]" * 150
     + "\nb: " + "[" * 100 + "*a" + "]" * 100 + "\n", "alias-deep.yaml", 4, "through alias 'a'"),
    ("YAML integer of 100000 digits", lambda: "apiVersion: v1\nkind: Pod\nspec:\n  priority: " + "9" * 100_000 + "\n",
     "int.yaml", 4, "integer literal of 100000 characters is too large"),
    ("YAML sexagesimal integer of 600000 characters", lambda: "apiVersion: v1\nkind: Pod\nx: 1" + ":59" * 200_000 + "\n",
     "int.yaml", 3, "too large"),
    ("JSON integer of 100000 digits", lambda: '{"apiVersion": "v1", "kind": "Pod", "x": ' + "9" * 100_000 + "}",
     "int.json", 1, "integer literal too large"),
    ("NUL bytes", lambda: b"apiVersion: v1\nkind: Pod\n\x00\x00", "nul.yaml", 3, "binary data"),
    ("random bytes", lambda: bytes(range(256)) * 64, "random.yaml", 1, "binary data"),
    ("invalid UTF-8 on line 3", lambda: b"apiVersion: v1\nkind: Pod\nx: \xff\xfe\n", "bad.yaml", 3, "not UTF-8 text"),
    ("a document that is a number", lambda: "42\n", "n.yaml", 1, "document is a number"),
    ("a JSON document that is a list of numbers", lambda: "[1, 2]", "n.json", 1, "document is a number"),
    ("kind that is not a string", lambda: "apiVersion: v1\nkind: [Pod]\n", "k.yaml", 1, "kind must be a string"),
]


@pytest.mark.parametrize("name,make,file,line,part", [pytest.param(*h, id=f"Hostile_{h[0]}") for h in HOSTILE])
def test_hostile_input_fails_fast(name: str, make: Callable[[], Any], file: str, line: int | None, part: str) -> None:
    text = make()
    result, calls = calls_made(lambda: parse_text(text, file))
    assert isinstance(result, InputError), f"expected an error, got {result!r}"
    assert calls < FAST, f"{name} made {calls:,} calls"
    assert result.file == file
    if line is not None:
        assert result.line == line
    assert part in str(result)
    assert "\n" not in str(result)


def test_nesting_up_to_the_limit_is_fine() -> None:
    docs = parse_text(_deep_json(MAX_DEPTH - 1), "ok.json")  # the object itself is one level
    assert docs[0].kind == "Pod"
    docs = parse_text(_deep_json(MAX_DEPTH - 1, pad=2 << 20), "ok.json")
    assert docs[0].kind == "Pod"
    docs = parse_text(_deep_flow(MAX_DEPTH - 1), "ok.yaml")
    assert docs[0].kind == "Pod"


def test_json_depth_ignores_brackets_inside_strings() -> None:
    text = json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "[" * 500 + "{" * 500},
                       "note": 'a \\" ] } [ {', "x": [[[]]]})
    docs = parse_text(text, "strings.json")
    assert docs[0].obj["metadata"]["name"].startswith("[[[")


def _by_replaces(text: bytes) -> bytes:
    return text.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, loader._JSON_DELETE)


@pytest.mark.parametrize("text", [
    b"", b"plain", b"\\", b"\\\\", b"\\\\\\", b'\\"', b'\\\\"', b'\\\\\\"', b'a\\nb\\"c\\\\d"',
    b'["\\\\", "\\"]", "x\\\\\\"[{"]', b"end\\", b'"\\u005c"',
])
def test_escapes_dropped_as_the_two_replaces_would(text: bytes) -> None:
    assert loader._quotes_and_brackets(text) == _by_replaces(text)
    assert loader._quotes_and_brackets(text * 3) == _by_replaces(text * 3)


def test_escapes_dropped_in_random_text_and_past_the_few_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(30)
    for size in (1, 2, 5, 40, 400):
        for _ in range(200):
            text = bytes(rng.choice(b'\\\\"a[ ') for _ in range(size))
            assert loader._quotes_and_brackets(text) == _by_replaces(text)
    monkeypatch.setattr(loader, "_FEW_BACKSLASH_RUNS", 2)
    text = b'a\\"b\\\\c\\"d\\'
    assert loader._quotes_and_brackets(text) == _by_replaces(text)


def test_small_aliases_are_expanded_into_separate_objects() -> None:
    docs = load_documents([str(FILES / "good" / "anchors.yaml")])
    pod = docs[0].obj
    assert pod["spec"]["nodeSelector"] == {"app": "web"}
    assert pod["spec"]["nodeSelector"] is not pod["metadata"]["labels"]
    assert pod["spec"]["containers"][1] == {"name": "b", "image": "nginx"}


def test_yaml_scalars_read_as_kubectl_reads_them() -> None:
    pod = load_documents([str(FILES / "good" / "types.yaml")])[0].obj
    assert pod["metadata"]["creationTimestamp"] == "2024-01-02T03:04:05Z"  # not a datetime
    assert pod["spec"]["priority"] == 1_000_000
    assert pod["spec"]["overhead"]["cpu"] == 0.5
    assert pod["spec"]["hostname"] == "1e400"


def test_huge_float_literals_do_not_hang() -> None:
    (doc,), calls = calls_made(lambda: parse_text("apiVersion: v1\nkind: Pod\nx: 1.0e+400\ny: 1e400\n", "f.yaml"))
    assert doc.obj["x"] == float("inf") and doc.obj["y"] == "1e400"
    (doc,), _ = calls_made(lambda: parse_text('{"apiVersion": "v1", "kind": "Pod", "x": 1e400}', "f.json"))
    assert doc.obj["x"] == float("inf")
    assert calls < FAST


def test_file_over_the_size_cap_is_refused_without_reading(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    with open(big, "wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)  # sparse: nothing is written
    result, calls = calls_made(lambda: load_documents([str(big)]))
    assert isinstance(result, InputError)
    assert "larger than 2048 MiB" in str(result)
    assert result.file == str(big)
    assert calls < FAST


def test_stdin_over_the_size_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loader, "MAX_FILE_BYTES", 1000)
    result, _ = calls_made(lambda: load_documents(["-"], stdin=io.BytesIO(b"a: b\n" * 1000)))
    assert isinstance(result, InputError) and "larger than" in str(result)
    assert result.file == STDIN_NAME


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_device_of_zeros_fails_fast() -> None:
    result, calls = calls_made(lambda: load_documents(["/dev/zero"]))
    assert isinstance(result, InputError) and "binary data" in str(result)
    assert calls < FAST


def test_a_directory_without_yaml_gives_no_documents(tmp_path: Path) -> None:
    (tmp_path / "readme.txt").write_text("nothing")
    assert load_documents([str(tmp_path)]) == []


def test_unreadable_file(tmp_path: Path) -> None:
    f = tmp_path / "secret.yaml"
    f.write_text("apiVersion: v1\nkind: Pod\n")
    f.chmod(0)
    try:
        if os.access(f, os.R_OK):
            pytest.skip("running as a user who can read anything")
        result, _ = calls_made(lambda: load_documents([str(f)]))
        assert isinstance(result, InputError) and "permission denied" in str(result)
    finally:
        f.chmod(0o644)


# --------------------------------------------------------------------------- stdin

STDIN_CASES = [
    ("YAML text stream", io.StringIO("apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\n"
                                     "apiVersion: v1\nkind: Pod\nmetadata: {name: b}\n"), [("a", 1), ("b", 5)]),
    ("JSON bytes stream", io.BytesIO(b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"j"}}'), [("j", 1)]),
    ("empty", io.StringIO(""), []),
]


@pytest.mark.parametrize("stream,expected", [pytest.param(s, e, id=f"Stdin_{n}") for n, s, e in STDIN_CASES])
def test_stdin(stream: io.IOBase, expected: list[tuple[str, int]]) -> None:
    docs = load_documents(["-"], stdin=stream)
    assert [(d.obj["metadata"]["name"], d.line) for d in docs] == expected
    assert all(d.file == STDIN_NAME for d in docs)


def test_stdin_errors_name_stdin() -> None:
    with pytest.raises(InputError) as err:
        load_documents(["-"], stdin=io.StringIO("apiVersion: v1\nkind: Pod\n  bad: [\n"))
    assert err.value.file == STDIN_NAME
    assert str(err.value).startswith(f"{STDIN_NAME}:")


# --------------------------------------------------------------------------- Document and speed

def test_document_api() -> None:
    doc = Document({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"}}, "f.yaml", 3)
    assert (doc.kind, doc.api_version, doc.where) == ("Pod", "v1", "f.yaml:3")
    err = doc.error("boom")
    assert (err.file, err.line, str(err)) == ("f.yaml", 3, "f.yaml:3: boom")
    assert Document({"kind": "Pod"}, "f.yaml").where == "f.yaml"


def test_json_list_item_lines_are_found_lazily() -> None:
    items = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}"}} for i in range(3)]
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=1)
    docs = parse_text(text, "l.json")
    lines = [d.line for d in docs]
    expected = [i + 1 for i, ln in enumerate(text.splitlines()) if ln == "  {"]
    assert lines == expected


@pytest.mark.parametrize("text,lines", [
    ('{"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "a"}}', [1]),
    ('\n\n\n{"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "a"}}', [4]),
    ('\n \n{"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "a"}}\n\n'
     '{"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "b"}}', [3, 5]),
    ('{"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "a"}} {"kind": "Pod", "apiVersion": "v1", '
     '"metadata": {"name": "b"}}', [1, 1]),
], ids=["first line", "after blank lines", "a stream after blank lines", "a stream on one line"])
def test_json_values_start_on_their_own_line(text: str, lines: list[int]) -> None:
    assert [d.line for d in parse_text(text, "s.json")] == lines
    assert [d.line for d in parse_text(text.encode(), "s.json")] == lines


@pytest.mark.parametrize("shape", ["list", "array"])
def test_a_json_files_text_is_read_again_for_a_line_not_kept(tmp_path: Path, shape: str) -> None:
    """A 600 MB cluster dump is not kept in memory beside its objects for an error message that
    may never come: the line of a List item (or of a top-level array's element) is found by
    reading the file again. Shown by changing the file after loading: the line follows the file."""
    items = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}"}} for i in range(3)]
    value = items if shape == "array" else {"apiVersion": "v1", "kind": "List", "items": items}
    path = tmp_path / "l.json"
    path.write_text(json.dumps(value, indent=1))
    docs = loader.load_file(str(path))
    before = path.read_text()
    # Blanks turned into line breaks: every offset stays, every line after the first moves.
    after = before.replace("\n ", "\n\n")
    path.write_text(after)
    starts = [m.end() - 1 for m in re.finditer(r"(?m)^ *\{", before)][-3:]  # the items' braces
    expected = [after.count("\n", 0, i) + 1 for i in starts]
    assert [d.line for d in docs] == expected
    assert expected != [before.count("\n", 0, i) + 1 for i in starts]


def test_a_json_list_read_from_a_pipe_keeps_its_lines(tmp_path: Path) -> None:
    """A pipe cannot be read twice: its text stays for the lines."""
    items = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}"}} for i in range(2)]
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=1)
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    import threading

    writer = threading.Thread(target=lambda: fifo.write_text(text))
    writer.start()
    docs = loader.load_file(str(fifo))
    writer.join()
    assert [d.line for d in docs] == [i + 1 for i, ln in enumerate(text.splitlines()) if ln == "  {"]


def test_a_json_list_of_pods_loads_in_work_proportional_to_its_length(tmp_path: Path) -> None:
    """Ten times the pods cost at most ten times the calls (one quadratic step would cost a
    hundred times): what "50,000 pods load in about a second" rests on, counted, not timed."""
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "p", "namespace": "default", "labels": {"app": "web", "pod-template-hash": "abc"},
                        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-abc",
                                             "uid": "u", "controller": True}]},
           "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "nginx", "resources": {
               "requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}}}],
               "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"}]},
           "status": {"phase": "Running"}}
    one = json.dumps(pod).replace('"name": "p"', '"name": "p%d"')
    counts = {}
    for n in (2_000, 20_000):
        path = tmp_path / f"pods-{n}.json"
        path.write_text('{"apiVersion": "v1", "kind": "List", "items": ['
                        + ",".join(one % i for i in range(n)) + "]}")
        docs, counts[n] = calls_made(lambda: load_documents([str(path)]))
        assert len(docs) == n
    assert counts[20_000] <= 10 * counts[2_000], counts


_BIG_POD = '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "annotations": {"pad": "%s"}}}\n'


@pytest.mark.parametrize("pad,nul_at,error_line", [
    (10, None, None),
    ((1 << 20) - 100, None, None),  # about the size of one read
    ((1 << 20) + 100, None, None),  # just past it
    (3 << 20, None, None),
    (3 << 20, 5, 3),  # a NUL byte in the first MiB: refused as binary before anything is parsed
    (3 << 20, (2 << 20), 3),  # past the first MiB: refused by the text checks (same message)
], ids=["small", "one read", "just past one read", "three reads", "NUL early", "NUL late"])
def test_a_file_is_read_whole_in_one_piece_or_many(pad: int, nul_at: int | None, error_line: int | None,
                                                   tmp_path: Path) -> None:
    data = ("\n" * 2 + _BIG_POD % ("a" * pad)).encode()
    if nul_at is not None:
        data = data[:nul_at] + b"\x00" + data[nul_at + 1:]
    path = tmp_path / "pod.json"
    path.write_bytes(data)
    if nul_at is None:
        docs = loader.load_file(str(path))
        assert [(d.obj["metadata"]["annotations"]["pad"] == "a" * pad, d.line) for d in docs] == [(True, 3)]
        return
    with pytest.raises(InputError, match="binary data") as found:
        loader.load_file(str(path))
    assert found.value.line == error_line
