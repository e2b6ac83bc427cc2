"""A C-speed gate in front of the Python checks of JSON objects: field names and value types.

Every object read from a file goes through two Python walks: the unknown-field check
(:mod:`kschedctl.inputs.fields`, ``--validate``) and, for pods and nodes, the value-type check
(:mod:`kschedctl.inputs.shapes`), plus the string check of labels and annotations
(``inputs.cluster``). On a 50,000-pod snapshot they cost more than reading the file. Here the
same rules are compiled, for each kind when a large file first holds one, into msgspec types (a
Struct per object type of ``schema/fields.json`` refusing unknown fields, the shapes' value
types on the fields they describe), and each object's JSON bytes are decoded against its kind's
type, the result thrown away. An object the gate accepts is marked (``Document.gated``) and its
Python walks are skipped, with the API checks of a cluster file (``api_checks.problems``: a
gated object's kind is one ``fields.json`` describes, so one the API server serves).

The gate only ever says "no problem here". An object it refuses (or one it has no type for, or
any input it cannot decode: ``NaN``, ``Infinity``, numbers past a float's range, lone
surrogates, which Python's ``json`` reads and msgspec does not) goes through the Python checks
as before, which alone word the error, find its line and apply ``--validate=warn``/``ignore``.
So the gate may refuse more than the checks (values of the wrong type in fields the checks leave
alone cost only speed), but must never accept what they refuse: tests/inputs/test_json_gate.py
checks that on mutations of every kind.

Built from the same data as the checks: the field names and nesting of ``fields.json`` (read
through ``fields.schema_types``), the shapes of ``shapes.POD``/``shapes.NODE`` and
``shapes.STRING_MAP``. What each check accepts, and the type given for it here:

- unknown-field check (fields.py ``_clean``): a mapping where an object type stands has only that
  type's fields; any other value there (list, scalar, null, and every falsy value) is not looked
  at. Here: the type's Struct (unknown fields refused) or any value that is not a mapping;
- shapes (shapes.py ``_compile``): null is allowed in every field, never as a list item; scalars
  by their exact type (``true`` is not an integer, ``1.0`` is not an integer), int32 in range.
  Here: the same msgspec type, strict.
"""

from __future__ import annotations

from functools import lru_cache, reduce
from operator import or_
from typing import Annotated, Any, Iterable, Union

import msgspec

from kschedctl.inputs import shapes
from kschedctl.inputs.fields import schema_types
from kschedctl.k8s.dra import V1 as _DRA_V1

__all__ = ["decoder_for", "accepts", "verdicts", "chunk_verdicts", "mark", "mark_documents"]

#: The shape each gated kind is held to beyond field names (metadata's labels and annotations:
#: strings, as ``cluster._check_labels`` wants them, for every kind).
_META_STRINGS = {"labels": shapes.STRING_MAP, "annotations": shapes.STRING_MAP}


def _with_meta_strings(shape: dict) -> dict:
    return {**shape, "metadata": {**shape.get("metadata", {}), **_META_STRINGS}}


#: (apiVersion, kind) -> what the gate checks of it besides field names. Only kinds whose checks
#: the readers skip on a gated document: Pod and Node (shapes), resource.k8s.io/v1 objects
#: (their shapes, checked as v1: the version read needs no conversion), and every kind's labels.
_SHAPES: dict[tuple[str, str], dict] = {
    ("v1", "Pod"): _with_meta_strings(shapes.POD),
    ("v1", "Node"): _with_meta_strings(shapes.NODE),
    **{(_DRA_V1, kind): _with_meta_strings(shape) for kind, shape in shapes.DRA_SHAPES.items()},
}

_INT32 = Annotated[int, msgspec.Meta(ge=shapes._INT32_MIN, le=shapes._INT32_MAX)]
_SCALARS: dict[str, tuple[Any, ...]] = {
    shapes.STR: (str,), shapes.INT: (int,), shapes.BOOL: (bool,), shapes.INT32: (_INT32,),
    shapes.INT_OR_STR: (_INT32, str),
}
#: What is not a mapping nor a list: a union may hold one type of each kind (mapping, list, ...).
_NOT_CONTAINERS = (str, int, float, bool)
_NO_NULL = (dict[str, Any], list[Any], *_NOT_CONTAINERS)
#: Any value: ``None`` as the members of a union means no constraint at all.
_ANYTHING = None


class _Unsupported(Exception):
    """A rule the gate cannot express as a msgspec type: its kind is not gated."""


class _Builder:
    """msgspec types from fields.json's types and the shapes, one Struct per (type, shape)."""

    def __init__(self, types: dict[str, dict[str, str]]) -> None:
        self.types = types
        self.structs: dict[tuple[str | None, int], Any] = {}
        self.building: set[tuple[str | None, int]] = set()
        self.count = 0

    def value(self, ref: str | None, shape: Any, nullable: bool = True) -> Any:
        """The type of a value at ``ref`` (a fields.json reference) held to ``shape``."""
        members = self._members(ref, shape)
        if members is _ANYTHING:
            return Any if nullable else Union[_NO_NULL]  # type: ignore[return-value]
        if nullable:
            members = (*members, None)
        if len(members) == 1:
            return members[0]
        try:
            # ``a | b`` makes a types.UnionType in C; typing.Union costs ten times as much, and a
            # Pod's types need a few hundred of them.
            return reduce(or_, members)
        except TypeError:  # a member without ``|`` (typing forms of older Pythons)
            return Union[members]  # type: ignore[return-value]

    def _members(self, ref: str | None, shape: Any) -> tuple[Any, ...] | None:
        if shape is None or shape is shapes.ANY:
            return self._unshaped(ref)
        scalar = _SCALARS.get(shape) if isinstance(shape, str) else None
        if scalar is not None:
            # A scalar is never walked by the field check, whatever its ref.
            return scalar
        obj = ref if ref in self.types else None
        sub = ref[2:] if ref is not None and ref[:2] in ("[]", "{}") else None
        if shape is shapes.ANY_MAP:
            if obj is not None:
                return (self.struct(obj, None),)
            if ref is not None and ref.startswith("{}"):
                return (dict[str, self.value(sub, None)],)
            return (dict[str, Any],)
        if isinstance(shape, dict):
            if ref is not None and ref.startswith("{}"):
                raise _Unsupported(f"a mapping shape on map {ref}")
            return (self.struct(obj, shape),)
        if isinstance(shape, shapes.ListOf):
            inner = sub if ref is not None and ref.startswith("[]") else None
            return (list[self.value(inner, shape.item, nullable=False)],)  # type: ignore[misc]
        if isinstance(shape, shapes.MapOf):
            if obj is not None:
                raise _Unsupported(f"a map shape on object type {ref}")
            inner = sub if ref is not None and ref.startswith("{}") else None
            return (dict[str, self.value(inner, shape.value, nullable=shape.nulls)],)  # type: ignore[misc]
        raise _Unsupported(f"not a shape: {shape!r}")

    def _unshaped(self, ref: str | None) -> tuple[Any, ...] | None:
        """What the field check alone accepts at ``ref``: only mappings (and lists) are walked."""
        if ref is None:
            return _ANYTHING
        if ref in self.types:
            return (self.struct(ref, None), list[Any], *_NOT_CONTAINERS)
        if ref.startswith("[]"):
            inner = self.value(ref[2:], None)
            return _ANYTHING if inner is Any else (dict[str, Any], list[inner], *_NOT_CONTAINERS)  # type: ignore[valid-type]
        if ref.startswith("{}"):
            inner = self.value(ref[2:], None)
            return _ANYTHING if inner is Any else (dict[str, inner], list[Any], *_NOT_CONTAINERS)  # type: ignore[valid-type]
        return _ANYTHING  # a scalar type of the schema: names only are checked

    def struct(self, ref: str | None, shape: dict | None) -> Any:
        """A Struct for object type ``ref`` (unknown fields refused), or for a shape alone (a
        mapping the field check does not describe: only the shape's fields are looked at)."""
        key = (ref, id(shape))
        found = self.structs.get(key)
        if found is not None:
            return found
        if key in self.building:
            raise _Unsupported(f"{ref} holds itself")
        self.building.add(key)
        try:
            names = list(self.types[ref]) if ref is not None else list(shape or {})
            shape = shape or {}
            fields = []
            rename = {}
            for i, name in enumerate(names):
                ref_of = self.types[ref][name] if ref is not None else None
                fields.append((f"f{i}", self.value(ref_of, shape.get(name)), None))
                rename[f"f{i}"] = name
            self.count += 1
            found = msgspec.defstruct(f"Gate{self.count}", fields, rename=rename, gc=False,
                                      forbid_unknown_fields=ref is not None)
        finally:
            self.building.discard(key)
        self.structs[key] = found
        return found


@lru_cache(maxsize=1)
def _schema() -> tuple[dict[str, str], _Builder]:
    kinds, types = schema_types()
    return kinds, _Builder(types)


#: The gate of each kind asked about so far (None: the gate has none). Built when a kind is
#: first met: a file holds a dozen of the 38 kinds, and each costs a millisecond or more.
_DECODERS: dict[tuple[str, str], msgspec.json.Decoder | None] = {}
#: Not in ``_DECODERS`` yet (None there means the kind has no gate).
_UNKNOWN: Any = object()


def decoder_for(api_version: Any, kind: Any) -> msgspec.json.Decoder | None:
    """The gate of objects of ``apiVersion``/``kind``, or None when the gate has none."""
    if api_version.__class__ is not str or kind.__class__ is not str:
        return None
    key = (api_version, kind)
    try:
        return _DECODERS[key]
    except KeyError:
        pass
    kinds, builder = _schema()
    ref = kinds.get(f"{api_version}/{kind}")
    decoder = None
    if ref is not None:
        shape = _SHAPES.get(key) or _with_meta_strings({})
        try:
            decoder = msgspec.json.Decoder(builder.struct(ref, shape))
        except _Unsupported:
            decoder = None
    _DECODERS[key] = decoder
    return decoder


def accepts(data: Any, api_version: Any, kind: Any) -> bool:
    """Whether the gate accepts the JSON text ``data`` (bytes) as an object of ``kind``."""
    decoder = decoder_for(api_version, kind)
    if decoder is None:
        return False
    try:
        decoder.decode(data)
    except (msgspec.DecodeError, ValueError, RecursionError):
        return False
    return True


class _Items(msgspec.Struct):
    """A List's items, each kept as its raw JSON text."""

    items: Union[list[msgspec.Raw], None] = None


_ITEMS = msgspec.json.Decoder(_Items)
_ELEMENTS = msgspec.json.Decoder(list[msgspec.Raw])


def verdicts(data: bytes, value: Any, min_objects: int = 0) -> tuple[list, list[bool]] | None:
    """(the objects of ``value``, whether the gate accepts each one's text), or None when the
    gate has nothing to say (fewer than ``min_objects`` objects, or text msgspec does not read).

    ``value`` is what ``data`` decodes to, all of it: one object, a List of objects, or an array
    of objects. Asked before the documents are made, so that the bytes can go before they are.
    """
    # A typed List's items without a kind get the List's (loader._documents_of, later).
    item_kind = list_version = None
    if value.__class__ is dict:
        items = value.get("items")
        if items.__class__ is list and _is_list(value):
            objects, decoder = items, _ITEMS
            item_kind, list_version = value["kind"][:-4], value.get("apiVersion")
        else:
            objects, decoder = [value], None
    elif value.__class__ is list:
        objects, decoder = value, _ELEMENTS
    else:
        return None
    if len(objects) < min_objects:
        return None
    try:
        raws = [data] if decoder is None else decoder.decode(data)
    except (msgspec.DecodeError, ValueError, RecursionError):
        return None
    if decoder is _ITEMS:
        raws = raws.items
    # json and msgspec both keep the last of repeated keys, so raw i is the text of object i.
    if raws is None or len(raws) != len(objects):
        return None
    return objects, _flags(objects, raws, item_kind, list_version)


def chunk_verdicts(objects: list, chunk: bytes, item_kind: str | None, list_version: Any) -> list[bool] | None:
    """Whether the gate accepts each of ``objects``, the items of a List that ``chunk`` (a JSON
    array of some of its items' texts) decodes to; None when msgspec does not read ``chunk``.
    ``item_kind`` and ``list_version``: what a typed List gives items without a kind."""
    try:
        raws = _ELEMENTS.decode(chunk)
    except (msgspec.DecodeError, ValueError, RecursionError):
        return None
    if len(raws) != len(objects):
        return None
    return _flags(objects, raws, item_kind, list_version)


def _flags(objects: list, raws: list, item_kind: str | None, list_version: Any) -> list[bool]:
    decoders = _DECODERS
    flags = []
    # A dump holds its objects kind by kind: the last kind's decoder, without a lookup.
    last_version = last_kind = last_decode = None
    for obj, raw in zip(objects, raws):
        decode = None
        if obj.__class__ is dict:
            if item_kind and not obj.get("kind"):
                version, kind = obj["apiVersion"] if "apiVersion" in obj else list_version, item_kind
            else:
                version, kind = obj.get("apiVersion"), obj.get("kind")
            if version.__class__ is str and kind.__class__ is str:  # else the loader refuses it
                if kind == last_kind and version == last_version:
                    decode = last_decode
                else:
                    decode = decoders.get((version, kind), _UNKNOWN)
                    if decode is _UNKNOWN:
                        decode = decoder_for(version, kind)
                    last_version, last_kind, last_decode = version, kind, decode
        if decode is None:
            flags.append(False)
            continue
        try:
            decode.decode(raw)
        except (msgspec.DecodeError, ValueError, RecursionError):
            flags.append(False)
        else:
            flags.append(True)
    return flags


def _is_list(obj: dict) -> bool:
    kind = obj.get("kind")
    return kind.__class__ is str and kind.endswith("List")


def mark(docs: Iterable[Any], objects: list, flags: list[bool]) -> int:
    """Mark ``gated`` the documents holding the objects the gate accepted, in order, while each
    document holds the next object (a List inside the List breaks the line-up); how many."""
    marked = 0
    for doc, obj, ok in zip(docs, objects, flags):
        if doc.obj is not obj:
            break
        if ok:
            doc.gated = True
            marked += 1
    return marked


def mark_documents(data: bytes, value: Any, docs: Iterable[Any]) -> int:
    """``verdicts`` then ``mark``: how many of ``docs`` (made of ``value``) the gate accepted."""
    found = verdicts(data, value)
    return 0 if found is None else mark(docs, *found)
