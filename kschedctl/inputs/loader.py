"""Files in, plain dicts out: YAML/JSON documents with the file and line each one starts at.

``load_documents(paths)`` reads files, directories (recursively, in lexical order, only
``*.yaml``/``*.yml``/``*.json``; entries whose name starts with ``.`` are skipped) and ``-``
(standard input). A file may hold several YAML documents (``---``), a stream of JSON values,
and ``kind: List`` or any ``kind: <Kind>List`` object, whose ``items`` become documents of
their own (they keep the file, and the line of the item where it is known; items of a typed
list such as ``PodList`` without a kind of their own get ``Pod`` and the list's apiVersion).

What the files hold is never trusted. Every failure is an ``InputError`` naming the file and,
where known, the line, and every check is made before anything large is built:

- at most ``MAX_FILE_BYTES`` (2048 MiB) per file or standard input, ``MAX_OBJECTS`` objects in all
  (every limit is set in :mod:`kschedctl.limits`);
- text must be UTF-8 (an UTF-8/16/32 byte-order mark is honoured); a NUL byte means binary;
- YAML goes through :mod:`kschedctl.inputs.yaml_reader`, the one safe YAML reader: nesting
  at most ``MAX_DEPTH`` levels, aliases checked with go-yaml's rule before anything is built
  (no "billion laughs", no shared dicts), integer literals at most ``MAX_NUMBER_CHARS``
  characters, timestamps kept as strings as go-yaml gives them to kubectl;
- JSON is held to the same nesting and number limits here;
- every file is opened, and every directory listed, through :mod:`kschedctl.inputs.access`,
  which refuses what a confined run (``kschedctl test``, ``kschedctl sweep``) may not read.
- field names are checked as kube-apiserver's strict decoding checks them
  (:mod:`kschedctl.inputs.fields`, under the ``--validate`` setting in force).

JSON is read with ``json`` when the text starts with ``{`` or ``[`` (a stream of values is
fine); YAML with the reader (libyaml's ``CSafeLoader`` when PyYAML has it).
"""

from __future__ import annotations

import gc
import json
import mmap
import os
import re
import stat
import sys
from contextlib import closing, contextmanager
from functools import lru_cache, partial
from typing import IO, Any, Callable, Iterable, Iterator

from kschedctl import fastpaths, limits
from kschedctl.errors import InputError
from kschedctl.inputs import access, yaml_reader
from kschedctl.inputs.fields import check_documents
from kschedctl.inputs.yaml_reader import MAX_DEPTH, MAX_NUMBER_CHARS, number_reason

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_OBJECTS",
    "MAX_DEPTH",
    "MAX_NUMBER_CHARS",
    "STDIN_NAME",
    "Document",
    "load_documents",
    "load_file",
    "parse_text",
    "expand_paths",
    "check_json_depth",
    "gc_paused",
]

#: Largest input file (or standard input) accepted, in bytes (kschedctl.limits).
MAX_FILE_BYTES = limits.INPUT_FILE_MAX_BYTES
#: Most objects one load may hold.
MAX_OBJECTS = limits.INPUT_MAX_OBJECTS
#: The name standard input goes by in messages.
STDIN_NAME = "<stdin>"
#: File name endings read from a directory (as kubectl's -R).
EXTENSIONS = (".yaml", ".yml", ".json")
#: A JSON file of at least this many objects goes through the typed gate (json_gate): below it,
#: building the gate's types (a tenth of a second) costs more than the Python checks it spares.
GATE_MIN_OBJECTS = 5000

_CHUNK = 1 << 20


class Document:
    """One object read from a file: the dict, the file it came from and its 1-based start line.

    For items of a JSON ``List`` the line is found only when first asked for (finding it
    means scanning the file again, which is only worth it for an error message).
    """

    __slots__ = ("obj", "file", "_line", "_locate", "_index", "gated")

    def __init__(self, obj: dict, file: str, line: int | None = None,
                 locate: Callable[..., int | None] | None = None, index: int | None = None) -> None:
        """``locate()`` finds the line when first asked for; with ``index``, ``locate(index)`` (one
        locator shared by a List's items, rather than one object per item of 650,000)."""
        self.obj = obj
        self.file = file
        self._line = line
        self._locate = locate
        self._index = index
        #: The object's JSON text passed :mod:`kschedctl.inputs.json_gate`: the checks it stands
        #: for (field names, the shapes of pods and nodes, label values) need not walk it again.
        self.gated = False

    @property
    def line(self) -> int | None:
        """1-based line where the object starts, or None when unknown."""
        if self._line is None and self._locate is not None:
            locate, self._locate = self._locate, None
            try:
                self._line = locate() if self._index is None else locate(self._index)
            except Exception:  # a locator is best effort, never a reason to fail
                self._line = None
        return self._line

    @line.setter
    def line(self, value: int | None) -> None:
        self._line = value
        self._locate = None

    @property
    def kind(self) -> str:
        """The object's ``kind`` ("" when missing)."""
        kind = self.obj.get("kind")
        return kind if isinstance(kind, str) else ""

    @property
    def api_version(self) -> str:
        """The object's ``apiVersion`` ("" when missing)."""
        v = self.obj.get("apiVersion")
        return v if isinstance(v, str) else ""

    @property
    def where(self) -> str:
        """``file:line`` (or just the file) for messages."""
        line = self.line
        return self.file if line is None else f"{self.file}:{line}"

    def error(self, message: str) -> InputError:
        """An ``InputError`` located at this document."""
        return InputError(message, self.file, self.line)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Document):
            return NotImplemented
        return (self.obj, self.file, self.line) == (other.obj, other.file, other.line)

    def __repr__(self) -> str:
        return f"Document({self.kind or '?'} {_object_name(self.obj)!r} at {self.where})"


# --------------------------------------------------------------------------- public API


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector: building many dicts would trigger it for nothing."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def load_documents(paths: Iterable[str], stdin: IO[Any] | None = None) -> list[Document]:
    """Every document of every path, in order; directories expand recursively (sorted)."""
    docs: list[Document] = []
    with gc_paused():
        for path in paths:
            path = os.fspath(path)
            if path == "-":
                docs.extend(_load_stdin(stdin))
                _check_count(docs, STDIN_NAME)
                continue
            for file in expand_paths([path]):
                docs.extend(check_documents(load_file(file), lambda file=file: _decode(_read_file(file), file)))
                _check_count(docs, file)
    return docs


def _check_count(docs: list[Document], name: str) -> None:
    if len(docs) > MAX_OBJECTS:
        raise InputError(f"more than {MAX_OBJECTS:,} objects, the limit for one load", name)


def expand_paths(paths: Iterable[str]) -> list[str]:
    """The files ``paths`` stand for: files as given, directories walked in lexical order.

    Raises ``InputError`` for a path that does not exist or cannot be listed.
    """
    out: list[str] = []
    for path in paths:
        path = os.fspath(path)
        try:
            is_dir = os.path.isdir(path)
            exists = is_dir or os.path.exists(path)
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read: {_os_reason(exc)}", path) from None
        if not exists:
            raise InputError("no such file or directory", path)
        if is_dir:
            access.check_path(path)
            _walk(path, out, set())
        else:
            out.append(path)
    return out


def load_file(path: str) -> list[Document]:
    """The documents of one file (``[]`` when it holds none)."""
    with gc_paused():
        # The bytes are handed over, not kept here: the parser drops them (and, for a file, the
        # decoded text too) as soon as it can, since a cluster dump is hundreds of megabytes.
        return _parse_text(_read_file(path), path, reread=_rereader(path))


def _rereader(path: str) -> Callable[[], str] | None:
    """What reads a regular file's text again, for line numbers asked for after parsing; None
    for anything else (a pipe cannot be read twice)."""
    try:
        regular = stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return None
    return (lambda: _decode(_read_file(path), path)) if regular else None


def load_values(path: str) -> list[tuple[Any, int | None]]:
    """The plain values of one file that holds no Kubernetes objects (a tool's JSON answer), each
    with its start line: the same size, depth and alias limits as ``load_file``, no kind checks."""
    raw = _read_file(path)
    if len(raw) > MAX_FILE_BYTES:
        raise _too_big(path)
    text = _decode(raw, path)
    if "\x00" in text:
        raise InputError("binary data (NUL byte), not YAML or JSON text", path, _line_at(text, text.index("\x00")))
    if not text.strip(" \t\r\n\ufeff"):
        return []
    with gc_paused():
        if text.lstrip(" \t\r\n\ufeff")[0] in "{[" and path.lower().endswith(".json"):
            return [(value, line) for value, line, _ in _parse_json_stream(text, path, decoded=True)]
        with closing(yaml_reader.documents(text, path)) as found:
            return [(obj, line) for obj, line, _ in found]


def parse_text(text: str | bytes, name: str) -> list[Document]:
    """The documents in ``text`` (bytes are decoded as a file would be); ``name`` is the file."""
    with gc_paused():
        return _parse_text(text, name)


def _parse_text(text: str | bytes, name: str, reread: Callable[[], str] | None = None) -> list[Document]:
    """The documents of ``text``; ``reread`` gives the same text again (a file read anew), so that
    line locators need not keep the whole text alive for an error message that may never come."""
    utf8: bytes | None = None
    decoded = isinstance(text, (bytes, bytearray, memoryview))  # so no lone surrogate but escaped ones
    start: tuple[int, int] | None = None
    if decoded:
        raw = bytes(text)
        del text
        if len(raw) > MAX_FILE_BYTES:
            raise _too_big(name)
        # The JSON depth check works on UTF-8 bytes: reuse the file's when they are exactly that.
        if not raw.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\x00\x00")):
            utf8 = raw
        start = _undecoded_start(utf8, reread)
        # A large JSON file msgspec reads from its bytes is not decoded to text at all (a copy of
        # it as large as the file): msgspec checks the UTF-8, and a file it refuses is decoded then.
        text = None if start is not None else _decode(raw, name)  # type: ignore[assignment]
        del raw
    elif len(text) > MAX_FILE_BYTES:
        raise _too_big(name)
    if text is not None:
        if "\x00" in text:
            raise InputError("binary data (NUL byte), not YAML or JSON text", name, _line_at(text, text.index("\x00")))
        stripped = text.lstrip(" \t\r\n\ufeff")
        if not stripped:
            return []
        is_json = stripped[0] in "{["
        del stripped
    else:
        is_json = True
    if is_json:
        gate: tuple[list, list[bool]] | None = None
        try:
            values = None
            with_msgspec = utf8 is not None and len(utf8) >= MSGSPEC_MIN_BYTES and fastpaths.settings().msgspec_decode
            # msgspec held to the depth limit decodes a text deeper than it not at all: then the
            # check below (or json, after it) says where, once the text is known to need it.
            depth_checked = not (with_msgspec and _depth_limit_works())
            if depth_checked:
                check_json_depth(text, name, utf8)
            if with_msgspec:
                if start is None:
                    start = _first_value(text)
                split = None
                if reread is not None:
                    text = None  # type: ignore[assignment]  # the bytes alone while msgspec builds the objects
                    if len(utf8) >= SPLIT_MIN_BYTES:  # type: ignore[arg-type]
                        split = _split_list(utf8, depth_limited=not depth_checked)  # type: ignore[arg-type]
                if split is not None:
                    utf8 = None  # the file's bytes go before the objects are built: at the peak, the objects alone
                    values, gate = _read_split_list(split, start, reread,  # type: ignore[arg-type]
                                                    depth_limited=not depth_checked)
                    if values is None:  # an item msgspec does not read: json reads the file again
                        text = reread()  # type: ignore[misc]
                else:
                    values, gate, text = _read_with_msgspec(text, utf8, name, reread, start,  # type: ignore[arg-type]
                                                            depth_limited=not depth_checked)
            if values is None and not depth_checked:
                check_json_depth(text, name, utf8)
            utf8 = None  # the file's bytes are not needed while the objects are built
            if values is None:
                values = _parse_json_stream(text, name, depth_checked=True, reread=reread, decoded=decoded)
        except InputError as json_error:
            # A flow-style YAML document also starts with a brace; a .json file gets the JSON error,
            # as does a file whose bytes are no text at all.
            if name.lower().endswith(".json") or text is None:
                raise
            try:
                return _parse_yaml(text, name)
            except InputError:
                raise json_error from None
        text = None  # before the documents are made: at the peak, the objects alone
        docs: list[Document] = []
        for value, line, item_locator in values:
            docs.extend(_documents_of(value, name, line, item_locator))
        if gate is not None:
            from kschedctl.inputs.json_gate import mark

            mark(docs, *gate)
        return docs
    return _parse_yaml(text, name)


# --------------------------------------------------------------------------- reading


def _walk(directory: str, out: list[str], seen: set[str]) -> None:
    real = os.path.realpath(directory)
    if real in seen:  # a symlink loop
        return
    seen.add(real)
    try:
        with os.scandir(directory) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError as exc:
        raise InputError(f"cannot list directory: {_os_reason(exc)}", directory) from None
    for entry in entries:
        if entry.name.startswith("."):
            continue
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        if is_dir:
            access.check_path(entry.path)  # a symlinked directory is listed only inside the roots
            _walk(entry.path, out, seen)
        elif entry.name.lower().endswith(EXTENSIONS):
            out.append(entry.path)


def _read_file(path: str) -> bytes:
    try:
        with access.open_input(path) as f:
            st = os.fstat(f.fileno())
            if st.st_size > MAX_FILE_BYTES:
                raise _too_big(path)
            return _read_limited(f, path, st.st_size if stat.S_ISREG(st.st_mode) else 0)
    except InputError:
        raise
    except IsADirectoryError:
        raise InputError("is a directory", path) from None
    except OSError as exc:
        raise InputError(f"cannot read: {_os_reason(exc)}", path) from None


def _read_limited(f: IO[Any], name: str, size: int = 0) -> bytes:
    """Read at most MAX_FILE_BYTES, failing early on binary data (think /dev/zero or a pipe).

    ``size``: what a regular file holds, read in one piece (chunks joined would touch the memory
    of the file twice); whatever it holds beyond that is read on as from a pipe."""
    chunks: list[bytes] = []
    total = 0
    first = True
    while True:
        chunk = f.read(size if first and size > _CHUNK else _CHUNK)
        if not chunk:
            break
        if isinstance(chunk, str):
            chunk = chunk.encode("utf-8", "surrogatepass")
        if first:
            first = False
            nul = chunk.find(b"\x00", 0, _CHUNK)
            if nul >= 0 and not chunk.startswith((b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")):
                raise InputError("binary data (NUL byte), not YAML or JSON text", name, chunk.count(b"\n", 0, nul) + 1)
        total += len(chunk)
        if total > MAX_FILE_BYTES:
            raise _too_big(name)
        chunks.append(chunk)
    return b"".join(chunks)


def _load_stdin(stdin: IO[Any] | None) -> list[Document]:
    stream = stdin if stdin is not None else sys.stdin
    if stream is None:
        raise InputError("standard input is not available", STDIN_NAME)
    source = getattr(stream, "buffer", stream)
    try:
        data = _read_limited(source, STDIN_NAME)
    except InputError:
        raise
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read: {_os_reason(exc)}", STDIN_NAME) from None
    return check_documents(parse_text(data, STDIN_NAME), lambda: _decode(data, STDIN_NAME))


def _decode(raw: bytes, name: str) -> str:
    for bom, codec in ((b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xff\xfe\x00\x00", "utf-32-le"),
                       (b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if raw.startswith(bom):
            try:
                return raw[len(bom):].decode(codec)
            except UnicodeDecodeError:
                raise InputError(f"not valid {codec.upper()} text (after its byte-order mark)", name) from None
    nul = raw.find(b"\x00")
    if nul >= 0:
        raise InputError("binary data (NUL byte), not YAML or JSON text", name, raw.count(b"\n", 0, nul) + 1)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = raw[exc.start:exc.start + 1].hex()
        raise InputError(f"not UTF-8 text (byte 0x{bad} cannot be decoded)", name,
                         raw.count(b"\n", 0, exc.start) + 1) from None


def _too_big(name: str) -> InputError:
    return InputError(f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB, the limit for one input", name)


def _os_reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return str(exc) or type(exc).__name__


def _line_at(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


# --------------------------------------------------------------------------- documents


def _object_name(obj: dict) -> str:
    meta = obj.get("metadata")
    if isinstance(meta, dict):
        name = meta.get("name") or meta.get("generateName")
        if isinstance(name, str):
            ns = meta.get("namespace")
            return f"{ns}/{name}" if isinstance(ns, str) and ns else name
    return ""


def _check_object(obj: Any, name: str, line: int | None, what: str = "document") -> dict:
    if not isinstance(obj, dict):
        raise InputError(f"{what} is {_describe(obj)}, not a mapping (a Kubernetes object)", name, line)
    kind = obj.get("kind")
    api_version = obj.get("apiVersion")
    missing = [f for f, v in (("apiVersion", api_version), ("kind", kind)) if v is None or v == ""]
    if missing:
        raise InputError(f"{what} has no {' and no '.join(missing)}"
                         f"{' (' + _object_name(obj) + ')' if _object_name(obj) else ''}", name, line)
    if not isinstance(kind, str):
        raise InputError(f"kind must be a string, not {_describe(kind)}", name, line)
    if not isinstance(api_version, str):
        raise InputError(f"apiVersion must be a string, not {_describe(api_version)}", name, line)
    return obj


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"a {type(value).__name__}"


def _is_list_kind(obj: dict) -> bool:
    kind = obj.get("kind")
    return isinstance(kind, str) and kind.endswith("List") and "items" in obj


def _documents_of(obj: Any, name: str, line: int | None,
                  item_line: Callable[[int], int | None] | None = None,
                  nesting: int = 0) -> list[Document]:
    """``obj`` as documents: itself, or its items when it is a List (recursively)."""
    if obj is None:  # an empty document
        return []
    if line is None and item_line is not None and getattr(item_line, "element", False):
        # An element of a top-level JSON array: its own line, found only when needed.
        element_line = item_line
        try:
            obj = _check_object(obj, name, None)
        except InputError as exc:
            exc.line = element_line(0)
            raise
        if not _is_list_kind(obj):
            return [Document(obj, name, None, lambda: element_line(0))]
        line, item_line = element_line(0), None
    obj = _check_object(obj, name, line)
    if not _is_list_kind(obj):
        return [Document(obj, name, line)]
    if nesting > 8:
        raise InputError("Lists nested too deeply", name, line)
    items = obj.get("items")
    if items is None:
        return []
    if not isinstance(items, list):
        raise InputError(f"items of a {obj['kind']} must be a list, not {_describe(items)}", name, line)
    list_kind = obj["kind"]
    item_kind = list_kind[: -len("List")]
    api_version = obj.get("apiVersion")
    out: list[Document] = []
    lazy = item_line is not None and getattr(item_line, "lazy", False)
    for i, item in enumerate(items):
        ln: int | None = None
        locate: Callable[[], int | None] | None = None
        if isinstance(item, dict) and item_kind and not item.get("kind"):
            # A typed list straight from the API server leaves kind/apiVersion off its items.
            item.setdefault("apiVersion", api_version)
            item["kind"] = item_kind
        if lazy:
            if item.__class__ is dict:
                # The common item, inline: what _check_object accepts, not itself a List (50,000 pods).
                kind, version = item.get("kind"), item.get("apiVersion")
                if (kind.__class__ is str and kind and version.__class__ is str and version
                        and not (kind.endswith("List") and "items" in item)):
                    out.append(Document(item, name, None, item_line, i))
                    continue
            locate = partial(item_line, i)  # type: ignore[arg-type]
        elif item_line is not None:
            ln = item_line(i)
        if locate is not None:
            try:
                _check_object(item, name, None, f"item {i} of the {list_kind}")
            except InputError as exc:
                exc.line = locate()
                raise
            if _is_list_kind(item):
                out.extend(_documents_of(item, name, None, None, nesting + 1))
            else:
                out.append(Document(item, name, None, locate))
        else:
            _check_object(item, name, ln if ln is not None else line, f"item {i} of the {list_kind}")
            if _is_list_kind(item):
                out.extend(_documents_of(item, name, ln, None, nesting + 1))
            else:
                out.append(Document(item, name, ln if ln is not None else line))
    return out


# --------------------------------------------------------------------------- JSON

_JSON_DECODER = json.JSONDecoder()
_WS = re.compile(r"[ \t\n\r]*")
_JSON_DELETE = bytes(c for c in range(256) if c not in b'"[]{}')
_JSON_SAME_BRACKETS = bytes.maketrans(b"{}", b"[]")
_RUNS = re.compile(rb"\[+|\]+")


def _parse_json_stream(text: str, name: str, utf8: bytes | None = None, *, depth_checked: bool = False,
                       reread: Callable[[], str] | None = None, decoded: bool = False,
                       ) -> list[tuple[Any, int | None, Callable[[int], int | None] | None]]:
    """Every JSON value in ``text`` (one, or several one after another) with its start line.

    The lazy line locators of a List's items read ``reread()`` when one is first asked for, and
    keep ``text`` itself only when there is no ``reread``. ``decoded``: ``text`` was decoded
    from bytes, so a lone surrogate can only come from an escape."""
    out: list[tuple[Any, int | None, Callable[[int], int | None] | None]] = []
    if not depth_checked:
        check_json_depth(text, name, utf8)
    source: str | Callable[[], str] = reread if reread is not None else text
    idx, line = _first_value(text)
    last = idx  # the lines before the first value are counted in ``line`` already
    end_all = len(text)
    lone = "\\ud" in text or "\\uD" in text or (not decoded and _LONE_SURROGATE.search(text) is not None)
    while idx < end_all:
        line += text.count("\n", last, idx)
        last = idx
        try:
            value, end = _JSON_DECODER.raw_decode(text, idx)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc.msg} (column {exc.colno})", name, exc.lineno) from None
        except RecursionError:
            raise InputError(f"document nested deeper than {MAX_DEPTH} levels", name, line) from None
        except ValueError as exc:  # an integer literal beyond Python's digit limit
            raise InputError(f"invalid JSON: {number_reason(exc)}", name, line) from None
        _append_value(_go_strings(value) if lone else value, idx, line, source, out)
        idx = _WS.match(text, end).end()  # type: ignore[union-attr]
    return out


def _undecoded_start(utf8: bytes | None, reread: Callable[[], str] | None) -> tuple[int, int] | None:
    """Where the JSON value of a file's bytes ``utf8`` starts (offset and line), when the file is
    read by msgspec from its bytes alone: large, one that can be read again for line numbers
    (``reread``), no NUL byte, starting with an object or an array. None otherwise."""
    if (utf8 is None or reread is None or len(utf8) < MSGSPEC_MIN_BYTES or not fastpaths.settings().msgspec_decode
            or utf8.find(b"\x00") >= 0):
        return None
    idx = _WS_BYTES.match(utf8).end()  # type: ignore[union-attr]
    if utf8[idx:idx + 1] not in (b"{", b"["):
        return None
    # Only ASCII whitespace before it: its byte offset is its offset in the text.
    return idx, 1 + utf8.count(b"\n", 0, idx)


_WS_BYTES = re.compile(rb"[ \t\n\r]*")


def _first_value(text: str) -> tuple[int, int]:
    """Where the first JSON value of ``text`` starts: its offset and line."""
    idx = _WS.match(text, 0).end()  # type: ignore[union-attr]
    if text.startswith("\ufeff", idx):
        idx = _WS.match(text, idx + 1).end()  # type: ignore[union-attr]
    return idx, 1 + text.count("\n", 0, idx)


def _append_value(value: Any, idx: int, line: int, source: str | Callable[[], str],
                  out: list[tuple[Any, int | None, Callable[[int], int | None] | None]]) -> None:
    """``value`` (starting at ``idx``, on ``line``) as what ``_documents_of`` takes."""
    if isinstance(value, list):
        # A top-level array of objects: each element is a document.
        array_lines = _lazy_lines(source, partial(_json_array_offsets, start=idx))
        for i, element in enumerate(value):
            out.append((element, None, _element_locator(array_lines, i)))
    else:
        locator = None
        if isinstance(value, dict) and _is_list_kind(value):
            locator = _lazy_lines(source, partial(_json_items_offsets, start=idx))
        out.append((value, line, locator))


def _read_with_msgspec(text: str | None, utf8: bytes, name: str, reread: Callable[[], str] | None,
                       start: tuple[int, int], depth_limited: bool = False) -> tuple[Any, Any, Any]:
    """(values as ``_parse_json_stream`` gives them, the gate's verdicts, the text) of a file of one
    JSON value (at ``start``: offset and line) read by msgspec; values None when msgspec does not
    read it (json then does, from the text, decoded again when the caller let it go).

    With ``reread`` the caller lets the text go: at the peak, the bytes and the objects, as
    ``json`` has the text and the objects. ``depth_limited``: a text nested deeper than
    ``MAX_DEPTH`` is not decoded (values None), its depth not having been checked.
    """
    idx, line = start
    value = _whole_value(utf8, depth_limited)
    if value is _NOT_ONE_VALUE:
        return None, None, text if text is not None else _decode(utf8, name)
    values: list[tuple[Any, int | None, Callable[[int], int | None] | None]] = []
    _append_value(value, idx, line, reread if reread is not None else text, values)
    gate = None
    if fastpaths.settings().typed_gate:
        from kschedctl.inputs.json_gate import verdicts

        gate = verdicts(utf8, value, GATE_MIN_OBJECTS)
    return values, gate, text


#: A List's items are decoded this many at a time from a copy of their texts (``_split_list``)
#: when its file is this large: below it the file's bytes are a small share of the memory a
#: load needs, and the copies cost about 4 % of an explain's CPU time.
SPLIT_ITEMS = 4096
SPLIT_MIN_BYTES = 256 << 20


class _SplitList:
    """A JSON List cut into its parts: its fields other than ``items`` decoded, and its items'
    texts copied out of the file's bytes, as JSON arrays of ``SPLIT_ITEMS`` items each."""

    __slots__ = ("fields", "chunks", "count")

    def __init__(self, fields: dict[str, Any], chunks: list[Any], count: int) -> None:
        self.fields, self.chunks, self.count = fields, chunks, count


def _split_list(utf8: bytes, depth_limited: bool = False) -> _SplitList | None:
    """``utf8`` cut as a List (None when it is not one object with ``items``, or msgspec does not
    read it). The copies of the items' texts let the file's bytes go before the objects are
    built: the copies go chunk by chunk as the objects come, so at the peak a 600 MB file's objects
    are not held beside its whole text. ``depth_limited``: what is nested deeper than MAX_DEPTH
    in the file is not read (None), its depth not having been checked."""
    import msgspec

    # A field's value starts one level down in the file.
    decode = partial(_decode_within_depth, depth=MAX_DEPTH - 1) if depth_limited else msgspec.json.decode
    try:
        fields = _TOP_LEVEL().decode(utf8)
        items = fields.get("items")
        if items is None:
            return None
        raws = _RAW_ITEMS().decode(items)
        decoded: dict[str, Any] = {key: None if key == "items" else decode(raw) for key, raw in fields.items()}
    except (msgspec.DecodeError, ValueError, RecursionError):
        return None
    if not _is_list_kind(decoded):
        return None
    chunks: list[Any] = []
    for i in range(0, len(raws), SPLIT_ITEMS):
        texts = b",".join(raws[i:i + SPLIT_ITEMS])
        # In memory of its own, given back to the system when closed: the heap would keep the
        # freed copies as its own free space, as large as the file.
        chunk = mmap.mmap(-1, len(texts) + 2)
        chunk.write(b"[")
        chunk.write(texts)
        chunk.write(b"]")
        chunks.append(chunk)
    return _SplitList(decoded, chunks, len(raws))


def _read_split_list(split: _SplitList, start: tuple[int, int], reread: Callable[[], str],
                     depth_limited: bool = False) -> tuple[Any, Any]:
    """(values as ``_parse_json_stream`` gives them, the gate's verdicts) of a List cut by
    ``_split_list``; (None, None) when msgspec does not read one of its items (``depth_limited``:
    nor one nested deeper than MAX_DEPTH in the file)."""
    import msgspec

    # A chunk is an array of items, which start two levels down in the file: one level less here.
    decode = partial(_decode_within_depth, depth=MAX_DEPTH - 1) if depth_limited else msgspec.json.decode

    fields = split.fields
    kind = fields["kind"]
    item_kind, list_version = kind[: -len("List")], fields.get("apiVersion")
    check = None
    if fastpaths.settings().typed_gate and split.count >= GATE_MIN_OBJECTS:
        from kschedctl.inputs.json_gate import chunk_verdicts as check
    items: list[Any] = []
    flags: list[bool] | None = [] if check is not None else None
    chunks = split.chunks
    try:
        for i, chunk in enumerate(chunks):
            chunks[i] = None  # each copy goes once its objects are made
            with chunk:
                try:
                    objects = decode(chunk)
                except (msgspec.DecodeError, ValueError, RecursionError):
                    return None, None
                items.extend(objects)
                if flags is not None:
                    found = check(objects, chunk, item_kind, list_version)  # type: ignore[misc]
                    if found is None:
                        flags = None  # the gate has nothing to say of this file: the Python checks run
                    else:
                        flags.extend(found)
    finally:
        for chunk in chunks:
            if chunk is not None:
                chunk.close()
    value = {key: items if key == "items" else field for key, field in fields.items()}
    values: list[tuple[Any, int | None, Callable[[int], int | None] | None]] = []
    idx, line = start
    _append_value(value, idx, line, reread, values)
    return values, None if flags is None else (items, flags)


@lru_cache(maxsize=None)
def _TOP_LEVEL() -> Any:
    import msgspec

    return msgspec.json.Decoder(dict[str, msgspec.Raw])


@lru_cache(maxsize=None)
def _RAW_ITEMS() -> Any:
    import msgspec

    return msgspec.json.Decoder(list[msgspec.Raw])


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _go_strings(value: Any) -> Any:
    """``value`` with each lone surrogate in its strings (keys too) as U+FFFD, as Go's JSON decoder
    reads ``"\\ud800"`` (json keeps it, and no output could then print it). A valid pair is one
    character by now, so a surrogate left is a lone one."""
    cls = value.__class__
    if cls is str:
        return _LONE_SURROGATE.sub("\ufffd", value) if _LONE_SURROGATE.search(value) else value
    if cls is dict:
        return {_go_strings(k): _go_strings(v) for k, v in value.items()}
    if cls is list:
        return [_go_strings(v) for v in value]
    return value


_NOT_ONE_VALUE = object()
#: A JSON file of at least this many bytes is decoded by msgspec first (its import and
#: set-up cost more than they save on a small file).
MSGSPEC_MIN_BYTES = 1 << 20


def _whole_value(utf8: bytes, depth_limited: bool = False) -> Any:
    """The one JSON value of ``utf8``, decoded by msgspec (a third faster than ``json``), or
    ``_NOT_ONE_VALUE`` when msgspec does not read it: a stream of several values, or what
    ``json`` reads and msgspec refuses (NaN, Infinity, numbers past a float's range, lone
    surrogates, integers past Python's digit limit). ``json`` then reads it as before, with its
    own errors. Where both read a text, they give equal values (tests/inputs/test_json_gate.py)."""
    if not fastpaths.settings().msgspec_decode:
        return _NOT_ONE_VALUE
    import msgspec

    try:
        if depth_limited:
            return _decode_within_depth(utf8)
        return msgspec.json.decode(utf8)
    except (msgspec.DecodeError, ValueError, RecursionError):
        return _NOT_ONE_VALUE


def _stack_depth() -> int:
    frame = sys._getframe(1)
    depth = 0
    while frame is not None:
        depth += 1
        frame = frame.f_back
    return depth


def _nested(depth: int, array: bool) -> bytes:
    return b"[" * depth + b"1" + b"]" * depth if array else b'{"a":' * depth + b'"x"' + b"}" * depth


_slack_hint = 0


@lru_cache(maxsize=4)
def _probes(depth: int) -> tuple[tuple[bytes, ...], tuple[bytes, ...]]:
    """Texts nested exactly ``depth`` deep, then one level more, as arrays and as objects."""
    return (_nested(depth, True), _nested(depth, False)), (_nested(depth + 1, True), _nested(depth + 1, False))


def _decode_within_depth(utf8: Any, depth: int = MAX_DEPTH) -> Any:
    """msgspec's decoding of ``utf8`` under a recursion limit that it reaches past ``depth``
    levels of nesting: RecursionError then, and also where no limit does that here (where
    msgspec's nesting does not count against it: Python 3.12 and later).

    The limit is found by trying texts nested at ``depth`` and one level past it, from here: the
    recursion the stack below takes is counted the same for them and for ``utf8``.
    """
    import msgspec

    decode = msgspec.json.decode
    at_limit, past_limit = _probes(depth)
    limit = sys.getrecursionlimit()
    base = _stack_depth() + depth
    global _slack_hint
    try:
        for slack in (_slack_hint, *range(-8, 17)):  # the last slack found first: most calls come from one place
            sys.setrecursionlimit(base + slack)
            try:
                for text in at_limit:
                    decode(text)
            except RecursionError:
                continue  # too tight still
            for text in past_limit:
                try:
                    decode(text)
                except RecursionError:
                    continue
                break  # what the limit lets through is one level too deep
            else:
                _slack_hint = slack
                return decode(utf8)
            if slack != _slack_hint:
                break
    finally:
        sys.setrecursionlimit(limit)
    raise RecursionError("msgspec cannot be held to the depth limit here")


def _depth_limit_works() -> bool:
    """Whether msgspec can be held to the depth limit here: where the recursion limit bounds its
    nesting at all, and only while no other thread runs (the limit is the whole process's, and
    another thread might be deeper than this one)."""
    import threading

    return threading.active_count() == 1 and _recursion_limit_bounds_msgspec()


@lru_cache(maxsize=1)
def _recursion_limit_bounds_msgspec() -> bool:
    """Not on Python 3.12 and later, whose C recursion is counted apart: there the separate check
    runs, then msgspec reads the file as before."""
    try:
        _decode_within_depth(b"[]")
    except RecursionError:
        return False
    return True


def check_json_depth(text: str | None, name: str, utf8: bytes | None = None) -> None:
    """Refuse JSON nested deeper than MAX_DEPTH before json builds it (``text`` may be None when
    ``utf8`` holds it: it is decoded only to say where).

    Works on bytes with C-speed operations: drop escaped backslashes and quotes, keep only
    quotes and brackets, drop the strings, then peel innermost pairs one level per pass
    (each pass lowers the maximum depth by exactly one) until few runs of brackets are
    left, whose depth a short loop then measures.
    """
    # A quick way out for small texts; a large one is checked anyway (its counts would cost more).
    if text is None:
        if len(utf8) < (1 << 20) and utf8.count(b"[") + utf8.count(b"{") <= MAX_DEPTH:  # type: ignore[arg-type]
            return
    elif len(text) < (1 << 20) and text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    b = utf8 if utf8 is not None else text.encode("utf-8", "surrogatepass")  # type: ignore[union-attr]
    b = _quotes_and_brackets(b)
    # Strings without brackets vanish here; the few left are removed by the regex below.
    b = b.replace(b'""', b"")
    if b'"' in b:
        b = re.sub(rb'"[^"]*"', b"", b)
    b = b.translate(_JSON_SAME_BRACKETS)
    for peeled in range(MAX_DEPTH + 1):
        if not b:
            return
        if b.count(b"[]") + b.count(b"][") < 100_000:
            depth = deepest = 0
            for run in _RUNS.finditer(b):
                if b[run.start()] == 91:  # "["
                    depth += run.end() - run.start()
                    if depth > deepest:
                        deepest = depth
                else:
                    depth -= run.end() - run.start()
            if peeled + deepest <= MAX_DEPTH:
                return
            break
        b = b.replace(b"[]", b"")
    if text is None:
        text = _decode(utf8, name)  # type: ignore[arg-type]
    raise InputError(f"document nested deeper than {MAX_DEPTH} levels", name, _json_deep_line(text))


def _quotes_and_brackets(b: bytes) -> bytes:
    """The quotes and brackets of JSON text ``b``, without its escaped quotes: what
    ``b.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _JSON_DELETE)`` gives, without
    two copies of the whole text (and their slow two-byte searches) when backslashes are few, as
    in a cluster dump.

    Per run of backslashes: its pairs go, and an odd one left goes with the quote that follows it.
    Here what goes is overwritten in a copy with a byte the translation deletes anyway.
    """
    find = b.find
    pos = find(b"\\")  # one byte: a memchr
    if pos < 0:
        return b.translate(None, _JSON_DELETE)
    size = len(b)
    text = bytearray(b)
    runs = 0
    while pos >= 0:
        runs += 1
        if runs > _FEW_BACKSLASH_RUNS:
            return b.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _JSON_DELETE)
        end = pos + 1
        while end < size and b[end] == 92:  # backslash
            end += 1
        if (end - pos) % 2 and end < size and b[end] == 34:  # an escaped quote
            end += 1
        text[pos:end] = b" " * (end - pos)
        pos = find(b"\\", end)
    return bytes(text.translate(None, _JSON_DELETE))


_FEW_BACKSLASH_RUNS = 10_000


def _json_deep_line(text: str) -> int | None:
    """Line of the bracket that opens level MAX_DEPTH+1 (only for texts small enough to walk)."""
    if len(text) > (4 << 20):
        return None
    depth = 0
    in_str = esc = False
    for i, ch in enumerate(text):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return _line_at(text, i)
        elif ch in "]}":
            depth -= 1
    return None


def _json_array_offsets(text: str, start: int) -> list[int]:
    """Start offsets of the elements of the JSON array at ``start`` (already known valid)."""
    offsets: list[int] = []
    scan = _JSON_DECODER.scan_once
    idx = _WS.match(text, start + 1).end()  # type: ignore[union-attr]
    if text.startswith("]", idx):
        return offsets
    while True:
        offsets.append(idx)
        _, idx = scan(text, idx)
        idx = _WS.match(text, idx).end()  # type: ignore[union-attr]
        if text.startswith(",", idx):
            idx = _WS.match(text, idx + 1).end()  # type: ignore[union-attr]
            continue
        return offsets


def _json_items_offsets(text: str, start: int) -> list[int] | None:
    """Start offsets of ``items[*]`` of the JSON object at ``start``, or None."""
    scan = _JSON_DECODER.scan_once
    idx = _WS.match(text, start + 1).end()  # type: ignore[union-attr]
    while idx < len(text) and text[idx] == '"':
        key, idx = scan(text, idx)
        idx = _WS.match(text, idx).end()  # type: ignore[union-attr]
        idx = _WS.match(text, idx + 1).end()  # type: ignore[union-attr]  # past ':'
        if key == "items" and text.startswith("[", idx):
            return _json_array_offsets(text, idx)
        _, idx = scan(text, idx)
        idx = _WS.match(text, idx).end()  # type: ignore[union-attr]
        if text.startswith(",", idx):
            idx = _WS.match(text, idx + 1).end()  # type: ignore[union-attr]
    return None


def _lazy_lines(source: str | Callable[[], str], find_offsets: Callable[[str], list[int] | None],
                ) -> Callable[[int], int | None]:
    """``line_of(i)``: the line of the i-th offset ``find_offsets(text)`` gives, all computed on
    first use; ``source`` is the text or what reads it again.

    Scanning the text again is only worth it when a line is asked for (for a message).
    """
    cache: list[list[int]] = []

    def line_of(i: int) -> int | None:
        if not cache:
            lines: list[int] = []
            try:
                text = source if isinstance(source, str) else source()
            except (InputError, OSError):
                return None  # the file is gone or changed: the message goes without its line
            offsets = find_offsets(text) or []
            line, last = 1, 0
            for off in offsets:
                line += text.count("\n", last, off)
                last = off
                lines.append(line)
            cache.append(lines)
        lines = cache[0]
        return lines[i] if i < len(lines) else None

    line_of.lazy = True  # type: ignore[attr-defined]
    return line_of


def _element_locator(line_of: Callable[[int], int | None], i: int) -> Callable[[int], int | None]:
    """A locator for a top-level array element, in the shape _documents_of expects."""

    def locate(_: int) -> int | None:
        return line_of(i)

    locate.lazy = True  # type: ignore[attr-defined]
    locate.element = True  # type: ignore[attr-defined]
    return locate


# --------------------------------------------------------------------------- YAML


def _parse_yaml(text: str, name: str) -> list[Document]:
    docs: list[Document] = []
    with closing(yaml_reader.documents(text, name)) as found:
        for obj, line, item_lines in found:
            lines = item_lines if isinstance(obj, dict) and _is_list_kind(obj) else None
            docs.extend(_documents_of(obj, name, line, _item_line(lines) if lines is not None else None))
    return docs


def _item_line(lines: list[int]) -> Callable[[int], int | None]:
    return lambda i: lines[i] if i < len(lines) else None


# --------------------------------------------------------------------------- error lines

_FIELD_IN_MESSAGE = re.compile(r"(?:^|: )((?:metadata|spec|status)(?:\.[A-Za-z0-9_./-]+|\[\d+\])*)(?::| must)")
#: Where a workload keeps its pod template, to find a pod field in the workload's own file.
_TEMPLATE_PREFIXES = ("", "spec.template.", "spec.jobTemplate.spec.template.")


def field_line(doc: "Document", message: str) -> int | None:
    """The line of the field an error ``message`` names (``spec.containers[0]...cpu: ...``) in the
    document ``doc`` was read from, else the document's own line. Only called on errors: it
    reads the file again."""
    match = _FIELD_IN_MESSAGE.search(message)
    if match is None or not doc.file or doc.file == STDIN_NAME or doc.line is None:
        return doc.line
    try:
        with access.open_input(doc.file) as fh:
            text = fh.read(MAX_FILE_BYTES + 1).decode("utf-8-sig")
        import yaml

        for node in yaml.compose_all(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
            if node is None or node.start_mark.line + 1 > doc.line or node.end_mark.line + 1 < doc.line:
                continue
            for prefix in _TEMPLATE_PREFIXES:
                found = _node_line(node, prefix + match.group(1))
                if found is not None:
                    return found
    except Exception:  # the line is a courtesy: never let finding it hide the error itself
        return doc.line
    return doc.line


def _node_line(node: Any, path: str) -> int | None:
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        if part.startswith("["):
            index = int(part[1:-1])
            if not hasattr(node, "value") or not isinstance(node.value, list) or index >= len(node.value) \
                    or node.tag.endswith(":map"):
                return None
            node = node.value[index]
        else:
            if not node.tag.endswith(":map"):
                return None
            for key, value in node.value:
                if key.value == part:
                    node = value
                    break
            else:
                return None
    return node.start_mark.line + 1
