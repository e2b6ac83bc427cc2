"""A large JSON file read by msgspec is held to the depth limit by the recursion limit, without
the separate pass over its text: what is nested MAX_DEPTH deep loads, one level more is refused
with the same error and line as the check gives, wherever the stack stands and whether or not
msgspec can be held to it (another thread running)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from kschedctl.errors import InputError
from kschedctl.fastpaths import FastPaths, using
from kschedctl.inputs import loader
from kschedctl.inputs.loader import parse_text
from kschedctl.inputs.yaml_reader import MAX_DEPTH

PAD = 1 << 20  # past MSGSPEC_MIN_BYTES: the msgspec way


def _pod(x: str, pad: int = PAD) -> bytes:
    """A Pod whose field x holds ``x``: its depth is one more than x's."""
    return ('{"apiVersion": "v1", "kind": "Pod",\n "metadata": {"name": "p", "annotations": {"pad": "'
            + "a" * pad + '"}},\n "x": ' + x + "}").encode()


def _arrays(depth: int) -> str:
    return "[" * depth + "1" + "]" * depth


def _objects(depth: int) -> str:
    return '{"a": ' * depth + '"v"' + "}" * depth


CASES = {
    "arrays at the limit": (_pod(_arrays(MAX_DEPTH - 1)), None),
    "objects at the limit": (_pod(_objects(MAX_DEPTH - 1)), None),
    "arrays one level past": (_pod(_arrays(MAX_DEPTH)), 3),
    "objects one level past": (_pod(_objects(MAX_DEPTH)), 3),
    "mixed, at the limit": (_pod("[" + _objects(MAX_DEPTH - 2) + "]"), None),
    "mixed, one level past": (_pod("[" + _objects(MAX_DEPTH - 1) + "]"), 3),
    "far past": (_pod(_arrays(100_000)), 3),
    "a List whose item is one level past": (b'{"apiVersion": "v1", "kind": "List", "items": [\n'
                                            + _pod(_arrays(MAX_DEPTH - 2)) + b"]}", 4),
    "a List whose item is at the limit": (b'{"apiVersion": "v1", "kind": "List", "items": [\n'
                                          + _pod(_arrays(MAX_DEPTH - 3)) + b"]}", None),
}


def _parse(text: bytes, stack: int = 0) -> Any:
    if stack:
        return _parse(text, stack - 1)
    try:
        with using(FastPaths()):
            return parse_text(text, "deep.json")
    except InputError as exc:
        return exc


@pytest.mark.parametrize("stack", [0, 150])
@pytest.mark.parametrize("text,line", CASES.values(), ids=CASES.keys())
def test_depth_limit_on_the_msgspec_way(text: bytes, line: int | None, stack: int) -> None:
    result = _parse(text, stack)
    if line is None:
        assert isinstance(result, list) and result[0].obj["kind"] in ("Pod",), result
    else:
        assert isinstance(result, InputError), result
        assert (str(result), result.line) == (f"deep.json:{line}: document nested deeper than {MAX_DEPTH} levels",
                                              line)


@pytest.mark.parametrize("text,line", CASES.values(), ids=CASES.keys())
def test_the_same_with_another_thread_running(text: bytes, line: int | None) -> None:
    """The recursion limit is the process's: with another thread, the separate check runs."""
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not loader._depth_limit_works()
        beside = _parse(text)
    finally:
        stop.set()
        other.join()
    alone = _parse(text)
    if line is None:
        assert [d.obj for d in beside] == [d.obj for d in alone]
    else:
        assert (str(beside), beside.line) == (str(alone), alone.line)


def test_the_recursion_limit_is_given_back() -> None:
    before = __import__("sys").getrecursionlimit()
    _parse(CASES["arrays one level past"][0])
    _parse(CASES["arrays at the limit"][0])
    assert __import__("sys").getrecursionlimit() == before


SPLIT_CASES = {
    "an item at the limit": CASES["a List whose item is at the limit"][0],
    "an item one level past": CASES["a List whose item is one level past"][0],
    "a later item one level past": (b'{"apiVersion": "v1", "kind": "List", "items": [\n' + _pod("1", pad=10) + b",\n"
                                    + _pod("2", pad=10) + b",\n" + _pod(_arrays(MAX_DEPTH - 2), pad=10) + b"]}"),
    "a field of the List one level past": (b'{"apiVersion": "v1", "kind": "List", "metadata": {"x": '
                                           + _arrays(MAX_DEPTH - 1).encode() + b'},\n "items": [\n' + _pod("1") + b"]}"),
    "a field of the List at the limit": (b'{"apiVersion": "v1", "kind": "List", "metadata": {"x": '
                                         + _arrays(MAX_DEPTH - 2).encode() + b'},\n "items": [\n' + _pod("1") + b"]}"),
}


def _load(path: str) -> Any:
    try:
        with using(FastPaths()):
            return [d.obj for d in loader.load_file(path)]
    except InputError as exc:
        return str(exc), exc.line


@pytest.mark.parametrize("name,text", SPLIT_CASES.items(), ids=SPLIT_CASES.keys())
def test_a_list_cut_in_chunks_is_held_to_the_limit_too(name: str, text: bytes, tmp_path: Any,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    if not loader._recursion_limit_bounds_msgspec():
        pytest.skip("msgspec's nesting is not bounded by the recursion limit here (Python 3.12+)")
    # held to the limit even when an earlier test of the session left a thread behind (an idle
    # server's: it runs no Python while the limit is lowered)
    monkeypatch.setattr(loader, "_depth_limit_works", lambda: True)
    path = tmp_path / "deep.json"
    path.write_bytes(text)
    monkeypatch.setattr(loader, "SPLIT_MIN_BYTES", 0)
    monkeypatch.setattr(loader, "MSGSPEC_MIN_BYTES", 0)
    monkeypatch.setattr(loader, "SPLIT_ITEMS", 1)
    cut = []
    split_list = loader._split_list
    monkeypatch.setattr(loader, "_split_list", lambda *a, **k: cut.append(1) or split_list(*a, **k))
    split = _load(str(path))
    assert cut  # the way of a large List
    monkeypatch.setattr(loader, "_depth_limit_works", lambda: False)  # the check, as before
    assert split == _load(str(path))
    if "past" in name:
        assert split[0] == f"{path}:{split[1]}: document nested deeper than {MAX_DEPTH} levels"
    else:
        assert isinstance(split, list) and split


def test_where_msgspec_cannot_be_held_the_check_runs_and_msgspec_still_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on Python 3.12 and later: not the slower json way for every large file."""
    monkeypatch.setattr(loader, "_recursion_limit_bounds_msgspec", lambda: False)
    decoded = []
    whole_value = loader._whole_value
    monkeypatch.setattr(loader, "_whole_value", lambda *a: decoded.append(a[1:]) or whole_value(*a))
    docs = _parse(CASES["arrays at the limit"][0])
    assert isinstance(docs, list) and docs[0].obj["kind"] == "Pod"
    assert decoded == [(False,)]  # msgspec read it, not held to the limit (the check ran first)
    past = _parse(CASES["arrays one level past"][0])
    assert isinstance(past, InputError) and past.line == 3
