"""A quick "no problem here" check of a configuration against its shipped schema.

Importing jsonschema and building its validator costs more than the rest of reading a
configuration (about 70 ms against a few), and a configuration is read by nearly every command.
Most files are valid: this walk over the few keywords the shipped schemas use (``build`` in this
package) says so without jsonschema, and only a file it cannot vouch for is handed to jsonschema,
which alone finds and words the errors.

So ``conforms`` may answer False for a valid document (it then costs only the import), but never
True for one jsonschema refuses. Where jsonschema's answer turns on a fine point (a whole float
where an integer is wanted, ``const`` across types, a keyword or reference this walk does not
know), it answers False. tests/config/test_schema_gate.py checks it against jsonschema on every
shipped configuration and on mutations of them.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

__all__ = ["conforms"]

#: Keywords that only annotate: they never fail a document.
_ANNOTATIONS = frozenset(("$schema", "$id", "$defs", "title", "description"))
_KNOWN = frozenset(("type", "properties", "additionalProperties", "items", "minimum", "maximum", "required",
                    "const", "if", "then", "allOf", "$ref", "format")) | _ANNOTATIONS


class _Unsure(Exception):
    """jsonschema's answer is not certain here: ask it."""


def conforms(document: Any, schema: Mapping[str, Any], formats: Mapping[str, Callable[[Any], Any]]) -> bool:
    """Whether jsonschema (draft 2020-12, with ``formats``: format name -> a check raising
    ValueError) certainly finds no error in ``document`` under ``schema``; False when it may."""
    try:
        return _Walk(schema, formats).valid(document, schema)
    except _Unsure:
        return False
    except RecursionError:  # a document nested past Python's stack: jsonschema words it
        return False


class _Walk:
    __slots__ = ("root", "formats")

    def __init__(self, root: Mapping[str, Any], formats: Mapping[str, Callable[[Any], Any]]) -> None:
        self.root = root
        self.formats = formats

    def valid(self, value: Any, schema: Any) -> bool:
        if schema is True:
            return True
        if schema is False:
            return False
        if not isinstance(schema, dict):
            raise _Unsure
        for keyword in schema:
            if keyword not in _KNOWN:
                raise _Unsure
        ref = schema.get("$ref")
        if ref is not None and not self.valid(value, self._target(ref)):
            return False
        kinds = schema.get("type")
        if kinds is not None and not _has_type(value, kinds):
            return False
        if "const" in schema and not _equal(value, schema["const"]):
            return False
        if isinstance(value, dict):
            if not self._object(value, schema):
                return False
        elif isinstance(value, list):
            items = schema.get("items")
            if items is not None:
                for item in value:
                    if not self.valid(item, items):
                        return False
        elif _is_number(value):
            low, high = schema.get("minimum"), schema.get("maximum")
            if (low is not None and value < low) or (high is not None and value > high):
                return False
        fmt = schema.get("format")
        if fmt is not None:
            check = self.formats.get(fmt)
            if check is None:
                raise _Unsure  # jsonschema's own checker may know this format
            try:
                if not check(value):
                    return False
            except ValueError:
                return False
        for sub in schema.get("allOf") or ():
            if not self.valid(value, sub):
                return False
        condition = schema.get("if")
        if condition is not None and self.valid(value, condition):
            then = schema.get("then")
            if then is not None and not self.valid(value, then):
                return False
        return True

    def _object(self, value: dict, schema: Mapping[str, Any]) -> bool:
        for key in schema.get("required") or ():
            if key not in value:
                return False
        properties = schema.get("properties") or {}
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            sub = properties.get(key)
            if sub is None:
                if key in properties:  # a property whose schema is null: not a schema
                    raise _Unsure
                sub = extra
            if not self.valid(item, sub):
                return False
        return True

    def _target(self, ref: Any) -> Any:
        """The schema a local reference (``#/$defs/Name``) names."""
        if not isinstance(ref, str) or not ref.startswith("#/"):
            raise _Unsure
        node: Any = self.root
        for part in ref[2:].split("/"):
            if not isinstance(node, dict) or part not in node or "~" in part or "%" in part:
                raise _Unsure
            node = node[part]
        return node


def _is_number(value: Any) -> bool:
    cls = value.__class__
    return cls is int or cls is float


_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: v.__class__ is bool,
    "null": lambda v: v is None,
    "number": _is_number,
}


def _has_type(value: Any, kinds: Any) -> bool:
    for kind in (kinds,) if isinstance(kinds, str) else kinds:
        if kind == "integer":
            if value.__class__ is int:
                return True
            if value.__class__ is float:
                raise _Unsure  # jsonschema counts 1.0 an integer, and a float may still fail elsewhere
            continue
        check = _TYPES.get(kind)
        if check is None:
            raise _Unsure
        if check(value):
            return True
    return False


#: Classes whose values jsonschema's ``const`` compares as Python does.
_PLAIN = (str, int, bool, type(None))


def _equal(value: Any, const: Any) -> bool:
    if value.__class__ is const.__class__ and value.__class__ in _PLAIN:
        return value == const
    if value.__class__ is str or const.__class__ is str:
        return False  # a string equals no value of another type, in every jsonschema version
    raise _Unsure  # 1, 1.0 and True: equal or not depending on jsonschema's version
