"""CEL types and the declarations of the environment (semantics of cel-go checker/types.go): the type
values, the ``device`` variable's fields and every function overload the DRA environment declares,
and the functions of Kubernetes' environment kschedctl does not implement."""

from __future__ import annotations

from .values import CelType


class _T:
    __slots__ = ("kind", "name", "params")

    def __init__(self, kind: str, name: str, params: tuple = ()) -> None:
        self.kind = kind
        self.name = name
        self.params = params

    def __repr__(self) -> str:
        return _fmt_type(self)


def _fmt_type(t: _T) -> str:
    """checker.FormatCELType, used in checker messages."""
    k = t.kind
    if k == "any":
        return "any"
    if k == "null":
        return "null"
    if k == "error":
        return "!error!"
    if not t.params:
        return t.name
    return f"{t.name}({', '.join(_fmt_type(p) for p in t.params)})"


def _str_type(t: _T) -> str:
    """types.Type.String(), used in the output type message of compile.go."""
    if not t.params:
        return t.name
    return f"{t.name}({', '.join(_str_type(p) for p in t.params)})"


_DYN = _T("dyn", "dyn")
_ANY = _T("any", "google.protobuf.Any")
_ERR = _T("error", "*error*")
_NULL = _T("null", "null_type")
_BOOL = _T("bool", "bool")
_INT = _T("int", "int")
_UINT = _T("uint", "uint")
_DOUBLE = _T("double", "double")
_STRING = _T("string", "string")
_BYTES = _T("bytes", "bytes")
_QUANTITY = _T("struct", "kubernetes.Quantity")
_SEMVER = _T("struct", "kubernetes.Semver")
_DEVICE = _T("struct", "kubernetes.DRADevice")
_TYPE = _T("type", "type")
_PRIMS = {"bool", "int", "uint", "double", "string", "bytes"}


def _list(t: _T) -> _T:
    return _T("list", "list", (t,))


def _map(k: _T, v: _T) -> _T:
    return _T("map", "map", (k, v))


def _tp(name: str) -> _T:
    return _T("tparam", name)


def _type_of(t: _T) -> _T:
    return _T("type", "type", (t,))


_A, _B, _TT = _tp("A"), _tp("B"), _tp("T")

#: The fields of the ``device`` variable (deviceTypeV134ConsumableCapacity: the stored env
#: declares it whatever the feature gate says).
_DEVICE_FIELDS = {
    "driver": _STRING,
    "attributes": _map(_STRING, _map(_STRING, _ANY)),
    "capacity": _map(_STRING, _map(_STRING, _QUANTITY)),
    "allowMultipleAllocations": _BOOL,
}
_STRUCT_FIELDS = {"kubernetes.DRADevice": _DEVICE_FIELDS, "kubernetes.Quantity": {}, "kubernetes.Semver": {}}

_GLOBAL_IDENTS = {
    "device": _DEVICE,
    "bool": _type_of(_BOOL), "bytes": _type_of(_BYTES), "double": _type_of(_DOUBLE), "int": _type_of(_INT),
    "list": _type_of(_list(_A)), "map": _type_of(_map(_A, _B)), "null_type": _type_of(_NULL),
    "string": _type_of(_STRING), "type": _type_of(_TYPE), "uint": _type_of(_UINT),
    "kubernetes.Quantity": _type_of(_QUANTITY), "kubernetes.Semver": _type_of(_SEMVER),
    "kubernetes.DRADevice": _type_of(_DEVICE),
}
_TYPE_VALUES = {"bool": CelType("bool"), "bytes": CelType("bytes"), "double": CelType("double"),
                "int": CelType("int"), "list": CelType("list"), "map": CelType("map"),
                "null_type": CelType("null_type"), "string": CelType("string"), "type": CelType("type"),
                "uint": CelType("uint"), "kubernetes.Quantity": CelType("kubernetes.Quantity"),
                "kubernetes.Semver": CelType("kubernetes.Semver"),
                "kubernetes.DRADevice": CelType("kubernetes.DRADevice")}


class _Ov:
    __slots__ = ("oid", "member", "params", "result", "tparams")

    def __init__(self, oid: str, member: bool, params: tuple, result: _T) -> None:
        self.oid = oid
        self.member = member
        self.params = params
        self.result = result
        names: list[str] = []

        def walk(t: _T) -> None:
            if t.kind == "tparam" and t.name not in names:
                names.append(t.name)
            for p in t.params:
                walk(p)
        for t in params + (result,):
            walk(t)
        self.tparams = tuple(names)


_DECLS: dict[str, list[_Ov]] = {}


def _decl(name: str, oid: str, member: bool, params: tuple, result: _T) -> None:
    _DECLS.setdefault(name, []).append(_Ov(oid, member, params, result))


def _declare_all() -> None:
    B, I, U, D, S, Y = _BOOL, _INT, _UINT, _DOUBLE, _STRING, _BYTES
    _decl("_?_:_", "conditional", False, (B, _A, _A), _A)
    _decl("!_", "logical_not", False, (B,), B)
    _decl("_==_", "equals", False, (_A, _A), B)
    _decl("_!=_", "not_equals", False, (_A, _A), B)
    for op, word, kinds in (("_+_", "add", (Y, D, I, S, U)), ("_-_", "subtract", (D, I, U)),
                            ("_*_", "multiply", (D, I, U)), ("_/_", "divide", (D, I, U)),
                            ("_%_", "modulo", (I, U))):
        for t in kinds:
            _decl(op, f"{word}_{t.name}", False, (t, t), t)
    _decl("_+_", "add_list", False, (_list(_A), _list(_A)), _list(_A))
    _decl("-_", "negate_double", False, (D,), D)
    _decl("-_", "negate_int64", False, (I,), I)
    for op, word in (("_<_", "less"), ("_<=_", "less_equals"), ("_>_", "greater"),
                     ("_>=_", "greater_equals")):
        for a, b in ((B, B), (I, I), (I, D), (I, U), (U, U), (U, D), (U, I), (D, D), (D, I), (D, U),
                     (S, S), (Y, Y)):
            _decl(op, f"{word}_{a.name}" + ("" if a is b else f"_{b.name}"), False, (a, b), B)
    _decl("_[_]", "index_list", False, (_list(_A), I), _A)
    _decl("_[_]", "index_map", False, (_map(_A, _B), _A), _B)
    _decl("@in", "in_list", False, (_A, _list(_A)), B)
    _decl("@in", "in_map", False, (_A, _map(_A, _B)), B)
    for t in (Y, _list(_A), _map(_A, _B), S):
        _decl("size", f"size_{t.name}", False, (t,), I)
        _decl("size", f"{t.name}_size", True, (t,), I)
    _decl("type", "type", False, (_A,), _type_of(_A))
    _decl("dyn", "to_dyn", False, (_A,), _DYN)
    for fn, target, sources in (("bool", B, (B, S)), ("bytes", Y, (Y, S)), ("double", D, (D, I, S, U)),
                                ("int", I, (I, D, S, U)), ("string", S, (S, B, Y, D, I, U)),
                                ("uint", U, (U, D, I, S))):
        for src in sources:
            _decl(fn, f"{src.name}_to_{target.name}", False, (src,), target)
    for fn, oid in (("contains", "contains_string"), ("endsWith", "ends_with_string"),
                    ("startsWith", "starts_with_string")):
        _decl(fn, oid, True, (S, S), B)
    _decl("matches", "matches", False, (S, S), B)
    _decl("matches", "matches_string", True, (S, S), B)
    # ext strings v2
    _decl("charAt", "string_char_at_int", True, (S, I), S)
    for fn, word in (("indexOf", "index_of"), ("lastIndexOf", "last_index_of")):
        _decl(fn, f"string_{word}_string", True, (S, S), I)
        _decl(fn, f"string_{word}_string_int", True, (S, S, I), I)
        _decl(fn, f"list_a_{word}_int", True, (_list(_A), _A), I)  # k8s lists library
    _decl("lowerAscii", "string_lower_ascii", True, (S,), S)
    _decl("upperAscii", "string_upper_ascii", True, (S,), S)
    _decl("replace", "string_replace_string_string", True, (S, S, S), S)
    _decl("replace", "string_replace_string_string_int", True, (S, S, S, I), S)
    _decl("split", "string_split_string", True, (S, S), _list(S))
    _decl("split", "string_split_string_int", True, (S, S, I), _list(S))
    _decl("substring", "string_substring_int", True, (S, I), S)
    _decl("substring", "string_substring_int_int", True, (S, I, I), S)
    _decl("trim", "string_trim", True, (S,), S)
    _decl("join", "list_join", True, (_list(S),), S)
    _decl("join", "list_join_string", True, (_list(S), S), S)
    _decl("strings.quote", "strings_quote", False, (S,), S)
    # k8s regex and lists libraries
    _decl("find", "string_find_string", True, (S, S), S)
    _decl("findAll", "string_find_all_string", True, (S, S), _list(S))
    _decl("findAll", "string_find_all_string_int", True, (S, S, I), _list(S))
    for t in (I, U, D, B, S, Y):
        _decl("isSorted", f"list_{t.name}_is_sorted_bool", True, (_list(t),), B)
        _decl("max", f"list_{t.name}_max_{t.name}", True, (_list(t),), t)
        _decl("min", f"list_{t.name}_min_{t.name}", True, (_list(t),), t)
        _decl("sort", f"list_{t.name}_sort", True, (_list(t),), _list(t))
        _decl("@sortByAssociatedKeys", f"list_{t.name}_sortByAssociatedKeys", True,
              (_list(_TT), _list(t)), _list(_TT))
    for t in (I, U, D):
        _decl("sum", f"list_{t.name}_sum_{t.name}", True, (_list(t),), t)
    # k8s quantity and semver libraries
    Q, V = _QUANTITY, _SEMVER
    _decl("quantity", "string_to_quantity", False, (S,), Q)
    _decl("isQuantity", "is_quantity_string", False, (S,), B)
    _decl("sign", "quantity_sign", False, (Q,), I)
    for fn, word, res in (("isGreaterThan", "is_greater_than", B), ("isLessThan", "is_less_than", B),
                          ("compareTo", "compare_to", I)):
        _decl(fn, f"quantity_{word}", True, (Q, Q), res)
        _decl(fn, f"semver_{word}", True, (V, V), res)
    _decl("asApproximateFloat", "quantity_get_float", True, (Q,), D)
    _decl("asInteger", "quantity_get_int", True, (Q,), I)
    _decl("isInteger", "quantity_is_integer", True, (Q,), B)
    for fn in ("add", "sub"):
        _decl(fn, f"quantity_{fn}", True, (Q, Q), Q)
        _decl(fn, f"quantity_{fn}_int", True, (Q, I), Q)
    _decl("semver", "string_to_semver", False, (S,), V)
    _decl("semver", "string_bool_to_semver", False, (S, B), V)
    _decl("isSemver", "is_semver_string", False, (S,), B)
    _decl("isSemver", "is_semver_string_bool", False, (S, B), B)
    for fn in ("major", "minor", "patch"):
        _decl(fn, f"semver_{fn}", True, (V,), I)
    # ext sets and ext lists v3
    for fn in ("contains", "equivalent", "intersects"):
        _decl(f"sets.{fn}", f"list_sets_{fn}_list", False, (_list(_A), _list(_A)), B)
    _decl("slice", "list_slice", True, (_list(_TT), I, I), _list(_TT))
    _decl("flatten", "list_flatten", True, (_list(_list(_TT)),), _list(_TT))
    _decl("flatten", "list_flatten_int", True, (_list(_DYN), I), _list(_DYN))
    _decl("lists.range", "lists_range", False, (I,), _list(I))
    _decl("reverse", "list_reverse", True, (_list(_TT),), _list(_TT))
    _decl("distinct", "list_distinct", True, (_list(_TT),), _list(_TT))
    # ext two-variable comprehensions
    _decl("cel.@mapInsert", "cel_map_insert_key_value", False, (_map(_A, _B), _A, _B), _map(_A, _B))
    _decl("cel.@mapInsert", "cel_map_insert_map", False, (_map(_A, _B), _map(_A, _B)), _map(_A, _B))


_declare_all()

#: Functions and namespaces of Kubernetes' CEL environment that kschedctl does not implement.
_UNSUPPORTED = {
    "duration", "timestamp", "getFullYear", "getMonth", "getDayOfYear", "getDayOfMonth", "getDate",
    "getDayOfWeek", "getHours", "getMinutes", "getSeconds", "getMilliseconds", "format", "url", "isURL",
    "getScheme", "getHost", "getHostname", "getPort", "getEscapedPath", "getQuery", "ip", "isIP", "cidr",
    "isCIDR", "family", "isCanonical", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
    "isLinkLocalUnicast", "isGlobalUnicast", "containsIP", "containsCIDR", "masked", "prefixLength",
    "ip.isCanonical", "format.named", "validate", "hasValue", "value", "or", "orValue", "optMap",
    "optFlatMap", "unwrapOpt", "first", "last", "optional.of", "optional.ofNonZeroValue", "optional.none",
    "optional.unwrap", "fieldSelector", "labelSelector", "google.protobuf.Timestamp",
    "google.protobuf.Duration",
}
_UNSUPPORTED_NAMESPACES = ("format.", "optional.")


def _unsupported(name: str) -> bool:
    return name in _UNSUPPORTED or name.startswith(_UNSUPPORTED_NAMESPACES)
