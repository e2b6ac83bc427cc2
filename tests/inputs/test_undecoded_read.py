"""A large JSON file read from disk goes to msgspec as bytes, never decoded to text first: the
documents, their lines and every error must be those of reading it as text (msgspec off)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from kschedctl.errors import InputError
from kschedctl.fastpaths import FastPaths, using
from kschedctl.inputs import loader
from kschedctl.inputs.yaml_reader import MAX_DEPTH

PAD = "a" * (1 << 20)  # past MSGSPEC_MIN_BYTES


def _pod(name: str, **meta: Any) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", **meta},
            "spec": {"containers": [{"name": "c"}]}}


def _list(*items: dict) -> bytes:
    return ('{"apiVersion": "v1", "kind": "List", "items": [\n'
            + ",\n".join(json.dumps(i) for i in items) + "\n]}\n").encode()


BIG = _pod("big", annotations={"pad": PAD})

# (case, file name, its bytes)
CASES = [
    ("a list", "cluster.json", _list(_pod("a"), BIG, _pod("b"))),
    ("blank lines first", "cluster.json", b"\n\n  \n" + _list(_pod("a"), BIG)),
    ("an array of objects", "cluster.json", ("[\n" + ",\n".join(json.dumps(o) for o in (_pod("a"), BIG)) + "\n]")
     .encode()),
    ("one object", "pod.json", json.dumps(BIG).encode()),
    ("one object after blank lines", "pod.json", b"\n \n\n" + json.dumps(BIG).encode()),
    ("multi-byte text", "cluster.json", _list(_pod("é", labels={"x": "ü"}), BIG)),
    ("not UTF-8 in a string", "cluster.json", _list(_pod("a"), BIG).replace(b'"name": "a"', b'"name": "\xff"')),
    ("not UTF-8, a .yaml file", "cluster.yaml", _list(_pod("a"), BIG).replace(b'"name": "a"', b'"name": "\xc3"')),
    ("a NUL byte", "cluster.json", _list(_pod("a"), BIG).replace(b'"name": "a"', b'"name": "\x00"')),
    ("a lone surrogate", "cluster.json", _list(_pod("a"), BIG).replace(b'"name": "a"', b'"name": "a\\ud800"')),
    ("NaN", "cluster.json", _list(_pod("a"), BIG).replace(b'"kind": "Pod"', b'"kind": "Pod", "x": NaN', 1)),
    ("flow YAML in a .yaml file", "cluster.yaml", b"{apiVersion: v1, kind: Pod, metadata: {name: y, annotations: {pad: "
     + PAD.encode() + b"}}}\n"),
    ("flow YAML in a .json file", "cluster.json", b"{apiVersion: v1, kind: Pod, metadata: {name: y, annotations: {pad: "
     + PAD.encode() + b"}}}\n"),
    ("two values", "cluster.json", json.dumps(_pod("a")).encode() + b"\n" + json.dumps(BIG).encode()),
    ("broken JSON", "cluster.json", _list(_pod("a"), BIG)[:-5]),
    ("a byte-order mark", "cluster.json", b"\xef\xbb\xbf" + _list(_pod("a"), BIG)),
    ("nested too deep", "cluster.json", _list(_pod("a"), BIG).replace(
        b'"kind": "Pod"', b'"kind": "Pod", "x": ' + b"[" * MAX_DEPTH + b"]" * MAX_DEPTH, 1)),
    ("nested too deep, not UTF-8", "cluster.json", _list(_pod("a"), BIG).replace(
        b'"kind": "Pod"', b'"kind": "Pod", "x": ' + b"[" * MAX_DEPTH + b"]" * MAX_DEPTH, 1).replace(
        b'"name": "b"', b'"name": "\xff"')),
]


def _read(path: Path, paths: FastPaths) -> Any:
    try:
        with using(paths):
            return loader.load_file(str(path))
    except InputError as exc:
        return ("error", str(exc), exc.line)


def _seen(read: Any) -> Any:
    """The documents with their lines (a List's items find theirs in the text, read again)."""
    return read if isinstance(read, tuple) else [(d.obj, d.file, d.line) for d in read]


@pytest.mark.parametrize("thread", [False, True], ids=["alone", "another thread running"])
@pytest.mark.parametrize("case,name,data", CASES, ids=[c[0] for c in CASES])
def test_bytes_read_as_text_would_be(case: str, name: str, data: bytes, thread: bool, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # Another thread keeps msgspec from being held to the depth limit: the depth is checked on
    # the bytes first then.
    path = tmp_path / name
    path.write_bytes(data)
    decoded: list[int] = []
    real = loader._decode
    monkeypatch.setattr(loader, "_decode", lambda raw, n: decoded.append(len(raw)) or real(raw, n))
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    if thread:
        other.start()
    try:
        fast = _read(path, FastPaths())
    finally:
        stop.set()
    undecoded = not decoded
    assert _seen(fast) == _seen(_read(path, FastPaths(msgspec_decode=False, typed_gate=False)))
    if case in ("a list", "blank lines first", "an array of objects", "one object", "one object after blank lines",
                "multi-byte text"):
        assert undecoded  # msgspec read it from its bytes
