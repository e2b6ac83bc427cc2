"""Label selectors and node selectors, compiled once and matched with plain dict lookups.

Follows upstream (v1.34):
- ``k8s.io/apimachinery/pkg/labels/selector.go`` (Requirement, NewRequirement validation,
  Matches, String, SelectorFromSet),
- ``k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go`` (LabelSelectorAsSelector),
- ``k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go`` (NodeSelector,
  LazyErrorNodeSelector, PreferredSchedulingTerms, GetRequiredNodeAffinity).

Error messages mimic upstream ``field.Error`` strings (``<path>: Invalid value: ...: <detail>``)
and aggregates (``[e1, e2]``).

Known differences:
- ``matchFields`` accepts only the key ``metadata.name`` (as the API server's pod validation
  does); upstream's scheduler helper would compare any other key against an empty field. Such a
  pod cannot be created, so the term here counts as unparsable (never matches) and the error is
  reported in ``NodeSelector.errors``.
- Where Go iterates a map (``matchLabels``), keys are taken in sorted order so the first error
  reported is deterministic.
- Non-string keys or values (e.g. unquoted YAML ``true`` / ``1``), which Go's decoder would
  reject, are reported as a ``SelectorError``.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Mapping

from kschedctl.errors import InputError
from kschedctl.k8s.strconv import NumError, parse_int

__all__ = [
    "SelectorError",
    "Requirement",
    "Selector",
    "EVERYTHING",
    "NOTHING",
    "everything",
    "nothing",
    "label_selector",
    "selector_from_set",
    "validated_selector_from_set",
    "parse_selector",
    "is_valid_label_key",
    "label_key_errors",
    "label_value_errors",
    "requirement_errors",
    "is_valid_label_value",
    "parse_go_int64",
    "POD_FIELDS",
    "pod_field_selector",
]


class SelectorError(InputError, ValueError):
    """A selector upstream would refuse to build; the message is upstream's error text."""


# ---------------------------------------------------------------------------------------------
# Validation (apimachinery util/validation, v1.34 wording)
# ---------------------------------------------------------------------------------------------

_QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QUALIFIED_NAME_ERR = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character"
)
_QUALIFIED_NAME_RE = re.compile(_QUALIFIED_NAME_FMT)
_QUALIFIED_NAME_MAX = 63

_LABEL_VALUE_FMT = "(" + _QUALIFIED_NAME_FMT + ")?"
_LABEL_VALUE_ERR = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character"
)
_LABEL_VALUE_RE = re.compile(_LABEL_VALUE_FMT)
_LABEL_VALUE_MAX = 63

_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN_ERR = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character"
)
_DNS1123_SUBDOMAIN_RE = re.compile(_DNS1123_SUBDOMAIN_FMT)
_DNS1123_SUBDOMAIN_MAX = 253


def _max_len_error(n: int) -> str:
    return f"must be no more than {n} characters"


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    # Same construction as upstream RegexError, including its double space before "or".
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    out = msg + " (e.g. "
    for i, example in enumerate(examples):
        if i:
            out += " or "
        out += "'" + example + "', "
    return out + "regex used for validation is '" + fmt + "')"


def _blen(s: str) -> int:
    # Go's len() counts UTF-8 bytes.
    return len(s) if s.isascii() else len(s.encode("utf-8"))


def _dns1123_subdomain_errors(value: str) -> list[str]:
    errs: list[str] = []
    if _blen(value) > _DNS1123_SUBDOMAIN_MAX:
        errs.append(_max_len_error(_DNS1123_SUBDOMAIN_MAX))
    if not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errs.append(_regex_error(_DNS1123_SUBDOMAIN_ERR, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def label_key_errors(key: str) -> list[str]:
    """Upstream ``validation.IsQualifiedName``: the reasons ``key`` is not a valid label key."""
    errs: list[str] = []
    parts = key.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in _dns1123_subdomain_errors(prefix))
    else:
        return [
            "a qualified name "
            + _regex_error(_QUALIFIED_NAME_ERR, _QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part must be non-empty")
    elif _blen(name) > _QUALIFIED_NAME_MAX:
        errs.append("name part " + _max_len_error(_QUALIFIED_NAME_MAX))
    if not _QUALIFIED_NAME_RE.fullmatch(name):
        errs.append(
            "name part "
            + _regex_error(_QUALIFIED_NAME_ERR, _QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
        )
    return errs


def label_value_errors(value: str) -> list[str]:
    """Upstream ``validation.IsValidLabelValue``: the reasons ``value`` is not a label value."""
    errs: list[str] = []
    if _blen(value) > _LABEL_VALUE_MAX:
        errs.append(_max_len_error(_LABEL_VALUE_MAX))
    if not _LABEL_VALUE_RE.fullmatch(value):
        errs.append(_regex_error(_LABEL_VALUE_ERR, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


def is_valid_label_key(key: str) -> bool:
    """True when ``key`` is a valid label key (qualified name)."""
    return isinstance(key, str) and not label_key_errors(key)


def is_valid_label_value(value: str) -> bool:
    """True when ``value`` is a valid label value (empty allowed)."""
    return isinstance(value, str) and not label_value_errors(value)


def parse_go_int64(text: str) -> int | None:
    """``strconv.ParseInt(text, 10, 64)``: the integer, or None where Go returns an error."""
    try:
        return parse_int(text, 64)
    except NumError:
        return None


# ---------------------------------------------------------------------------------------------
# field.Error formatting
# ---------------------------------------------------------------------------------------------


def _go_quote(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def _go_value(value: Any) -> str:
    """How upstream field.Error prints a bad value."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return _go_quote(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "[]string{" + ", ".join(_go_value(v) for v in value) + "}"
    return repr(value)


def _go_values(values: list[str] | None) -> str:
    # A nil []string prints differently from an empty one (%#v).
    if values is None:
        return "[]string(nil)"
    return _go_value(list(values))


def _field_invalid(path: str, value_repr: str, detail: str) -> str:
    return f"{path}: Invalid value: {value_repr}: {detail}"


def _field_not_supported(path: str, value: Any, supported: Iterable[str]) -> str:
    allowed = ", ".join(_go_quote(s) for s in supported)
    return f"{path}: Unsupported value: {_go_value(value)}: supported values: {allowed}"


def _join_path(prefix: str, child: str) -> str:
    if not prefix:
        return child
    if child.startswith("["):
        return prefix + child
    return prefix + "." + child


def _aggregate(errs: list[str]) -> str:
    """Upstream utilerrors.Aggregate.Error(): one message, or ``[a, b]`` without duplicates."""
    seen: list[str] = []
    for e in errs:
        if e not in seen:
            seen.append(e)
    if len(seen) == 1:
        return seen[0]
    return "[" + ", ".join(seen) + "]"


# ---------------------------------------------------------------------------------------------
# Requirements and selectors
# ---------------------------------------------------------------------------------------------

# Upstream selection.Operator spellings.
OP_IN = "in"
OP_NOT_IN = "notin"
OP_EQUALS = "="
OP_DOUBLE_EQUALS = "=="
OP_NOT_EQUALS = "!="
OP_EXISTS = "exists"
OP_DOES_NOT_EXIST = "!"
OP_GT = "gt"
OP_LT = "lt"

_BINARY_OPERATORS = (OP_IN, OP_NOT_IN, OP_EQUALS, OP_DOUBLE_EQUALS, OP_NOT_EQUALS, OP_GT, OP_LT)
_VALID_OPERATORS = _BINARY_OPERATORS + (OP_EXISTS, OP_DOES_NOT_EXIST)

# Compiled check codes, ordered roughly by frequency.
_C_EQ, _C_IN, _C_NE, _C_NOT_IN, _C_EXISTS, _C_ABSENT, _C_GT, _C_LT = range(8)

_MISSING = object()
_EMPTY: dict[str, str] = {}


class Requirement:
    """One upstream ``labels.Requirement``: key, operator (selection spelling) and values."""

    __slots__ = ("key", "operator", "values", "_check")

    def __init__(self, key: str, operator: str, values: list[str]) -> None:
        self.key = key
        self.operator = operator
        self.values = list(values)
        self._check = _compile(key, operator, self.values)

    @classmethod
    def new(cls, key: Any, operator: str, values: Any, path: str = "") -> "Requirement":
        """Upstream ``NewRequirement``: validates and raises ``SelectorError`` with its text."""
        errs = requirement_errors(key, operator, values, path)
        if errs:
            raise SelectorError(_aggregate(errs))
        return cls(key, operator, list(values or ()))

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether this requirement alone matches ``labels``."""
        return _run_checks((self._check,), labels)

    def __str__(self) -> str:
        op = self.operator
        key = self.key
        if op == OP_EXISTS:
            return key
        if op == OP_DOES_NOT_EXIST:
            return "!" + key
        vals = self.values[0] if len(self.values) == 1 else ",".join(sorted(self.values))
        if op in (OP_IN, OP_NOT_IN):
            return f"{key} {op} ({vals})"
        sym = {OP_GT: ">", OP_LT: "<"}.get(op, op)
        return f"{key}{sym}{vals}"

    def __repr__(self) -> str:
        return f"Requirement({self.key!r}, {self.operator!r}, {self.values!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Requirement):
            return NotImplemented
        return (self.key, self.operator, self.values) == (other.key, other.operator, other.values)

    def __hash__(self) -> int:
        return hash((self.key, self.operator, tuple(self.values)))


def _compile(key: str, op: str, values: list[str]) -> tuple[int, str, Any]:
    if op in (OP_IN, OP_EQUALS, OP_DOUBLE_EQUALS):
        if len(values) == 1:
            return (_C_EQ, key, values[0])
        return (_C_IN, key, frozenset(values))
    if op in (OP_NOT_IN, OP_NOT_EQUALS):
        if len(values) == 1:
            return (_C_NE, key, values[0])
        return (_C_NOT_IN, key, frozenset(values))
    if op == OP_EXISTS:
        return (_C_EXISTS, key, None)
    if op == OP_DOES_NOT_EXIST:
        return (_C_ABSENT, key, None)
    if op in (OP_GT, OP_LT):
        # Upstream fails the match (not the parse) when the bound is not exactly one integer.
        bound = parse_go_int64(values[0]) if len(values) == 1 else None
        return (_C_GT if op == OP_GT else _C_LT, key, bound)
    raise ValueError(f"unknown operator {op!r}")


def _run_checks(checks: tuple[tuple[int, str, Any], ...], labels: Mapping[str, str] | None) -> bool:
    if labels is None:
        labels = _EMPTY
    get = labels.get
    for code, key, arg in checks:
        if code == _C_EQ:
            if get(key, _MISSING) != arg:
                return False
        elif code == _C_IN:
            if get(key, _MISSING) not in arg:
                return False
        elif code == _C_NE:
            if get(key, _MISSING) == arg:
                return False
        elif code == _C_NOT_IN:
            if get(key, _MISSING) in arg:
                return False
        elif code == _C_EXISTS:
            if key not in labels:
                return False
        elif code == _C_ABSENT:
            if key in labels:
                return False
        else:  # Gt / Lt
            raw = get(key)
            if raw is None or arg is None:
                return False
            n = parse_go_int64(raw)
            if n is None:
                return False
            if code == _C_GT:
                if not n > arg:
                    return False
            elif not n < arg:
                return False
    return True


def requirement_errors(key: Any, operator: str, values: Any, path: str = "") -> list[str]:
    """Every error upstream ``NewRequirement`` reports, as field.Error strings."""
    errs: list[str] = []
    key_path = _join_path(path, "key")
    if not isinstance(key, str):
        errs.append(_field_invalid(key_path, _go_value(key), "must be a string"))
        key = str(key)
    else:
        msgs = label_key_errors(key)
        if msgs:
            errs.append(_field_invalid(key_path, _go_quote(key), "; ".join(msgs)))

    values_path = _join_path(path, "values")
    if values is not None and not isinstance(values, (list, tuple)):
        errs.append(_field_invalid(values_path, _go_value(values), "must be a list of strings"))
        return errs
    vals = list(values) if values is not None else None
    n = len(vals or ())
    shown = _go_values(vals)
    if operator in (OP_IN, OP_NOT_IN):
        if n == 0:
            errs.append(_field_invalid(values_path, shown, "for 'in', 'notin' operators, values set can't be empty"))
    elif operator in (OP_EQUALS, OP_DOUBLE_EQUALS, OP_NOT_EQUALS):
        if n != 1:
            errs.append(_field_invalid(values_path, shown, "exact-match compatibility requires one single value"))
    elif operator in (OP_EXISTS, OP_DOES_NOT_EXIST):
        if n != 0:
            errs.append(_field_invalid(values_path, shown, "values set must be empty for exists and does not exist"))
    elif operator in (OP_GT, OP_LT):
        if n != 1:
            errs.append(
                _field_invalid(values_path, shown, "for 'Gt', 'Lt' operators, exactly one value is required")
            )
        for i, v in enumerate(vals or ()):
            if parse_go_int64(v) is None:
                errs.append(
                    _field_invalid(
                        f"{values_path}[{i}]", _go_value(v), "for 'Gt', 'Lt' operators, the value must be an integer"
                    )
                )
    else:
        errs.append(_field_not_supported(_join_path(path, "operator"), operator, _VALID_OPERATORS))

    for i, v in enumerate(vals or ()):
        item_path = f"{values_path}[{i}][{key}]"
        if not isinstance(v, str):
            errs.append(_field_invalid(item_path, _go_value(v), "must be a string"))
            continue
        msgs = label_value_errors(v)
        if msgs:
            errs.append(_field_invalid(item_path, _go_quote(v), "; ".join(msgs)))
    return errs


class _DualAttr:
    """``Selector.empty`` on the class is the shared selector; on an instance, a bool."""

    __slots__ = ("_flag", "_shared_name")

    def __init__(self, flag: str, shared_name: str) -> None:
        self._flag = flag
        self._shared_name = shared_name

    def __get__(self, obj: Any, owner: type) -> Any:
        if obj is None:
            return globals()[self._shared_name]
        return getattr(obj, self._flag)


class Selector:
    """A compiled label selector (upstream ``labels.Selector``): AND of its requirements.

    ``sel.matches(labels)`` is the hot call. ``sel.empty`` is True when the selector does not
    restrict anything (matches everything); ``sel.nothing`` is True for the selector that
    matches nothing (upstream ``labels.Nothing()``). On the class itself, ``Selector.empty``
    and ``Selector.nothing`` are the two shared selectors (also ``EVERYTHING`` / ``NOTHING``).
    """

    __slots__ = ("requirements", "_checks", "_is_nothing", "_is_empty")

    empty = _DualAttr("_is_empty", "EVERYTHING")
    nothing = _DualAttr("_is_nothing", "NOTHING")

    def __init__(self, requirements: Iterable[Requirement] = (), *, match_nothing: bool = False) -> None:
        # Upstream sorts requirements by key; a stable sort keeps the input order for equal keys.
        reqs = sorted(requirements, key=lambda r: r.key)
        self.requirements: tuple[Requirement, ...] = tuple(reqs)
        self._checks = tuple(r._check for r in reqs)
        self._is_nothing = match_nothing
        self._is_empty = not match_nothing and not reqs

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        """Whether every requirement matches ``labels`` (None is treated as no labels)."""
        if self._is_nothing:
            return False
        return _run_checks(self._checks, labels)

    __call__ = matches

    def add(self, *requirements: Requirement) -> "Selector":
        """A new selector with more requirements (upstream ``Add``)."""
        if self._is_nothing:
            return self
        return Selector(self.requirements + tuple(requirements))

    def requires_exact_match(self, label: str) -> str | None:
        """Upstream ``RequiresExactMatch``: the single value ``label`` must have, if any."""
        for r in self.requirements:
            if r.key == label:
                if r.operator in (OP_EQUALS, OP_DOUBLE_EQUALS, OP_IN) and len(r.values) == 1:
                    return r.values[0]
                return None
        return None

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)

    def __repr__(self) -> str:
        if self._is_nothing:
            return "Selector(<nothing>)"
        return f"Selector({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Selector):
            return NotImplemented
        return self._is_nothing == other._is_nothing and self.requirements == other.requirements

    def __hash__(self) -> int:
        return hash((self._is_nothing, self.requirements))


EVERYTHING = Selector()
NOTHING = Selector(match_nothing=True)


def everything() -> Selector:
    """The shared selector that matches every label set (upstream ``labels.Everything()``)."""
    return EVERYTHING


def nothing() -> Selector:
    """The shared selector that matches nothing (upstream ``labels.Nothing()``)."""
    return NOTHING


_LABEL_SELECTOR_OPS = {"In": OP_IN, "NotIn": OP_NOT_IN, "Exists": OP_EXISTS, "DoesNotExist": OP_DOES_NOT_EXIST}


def label_selector(sel: Mapping[str, Any] | None) -> Selector:
    """Upstream ``metav1.LabelSelectorAsSelector``.

    None matches nothing; a selector with neither matchLabels nor matchExpressions matches
    everything. Raises ``SelectorError`` with upstream's message for invalid keys, values or
    operators.
    """
    if sel is None:
        return NOTHING
    if not isinstance(sel, Mapping):
        raise SelectorError(f"label selector must be an object, not {_go_value(sel)}")
    match_labels = sel.get("matchLabels") or {}
    match_expressions = sel.get("matchExpressions") or []
    if not isinstance(match_labels, Mapping):
        raise SelectorError(f"matchLabels must be an object, not {_go_value(match_labels)}")
    if not isinstance(match_expressions, list):
        raise SelectorError(f"matchExpressions must be a list, not {_go_value(match_expressions)}")
    if not match_labels and not match_expressions:
        return EVERYTHING
    reqs: list[Requirement] = []
    for k in sorted(match_labels, key=str):
        reqs.append(Requirement.new(k, OP_EQUALS, [match_labels[k]]))
    for expr in match_expressions:
        if not isinstance(expr, Mapping):
            raise SelectorError(f"matchExpressions item must be an object, not {_go_value(expr)}")
        raw_op = expr.get("operator") or ""
        op = _LABEL_SELECTOR_OPS.get(raw_op) if isinstance(raw_op, str) else None
        if op is None:
            raise SelectorError(f"{_go_value(raw_op)} is not a valid pod selector operator")
        # Upstream copies values with append([]string(nil), ...), so an empty list prints as nil.
        reqs.append(Requirement.new(expr.get("key", ""), op, expr.get("values") or None))
    return Selector(reqs)


def selector_from_set(labels: Mapping[str, str] | None) -> Selector:
    """Upstream ``labels.SelectorFromSet``: exact match of every pair, without validation.

    None or an empty map matches everything.
    """
    if not labels:
        return EVERYTHING
    return Selector(Requirement(str(k), OP_EQUALS, [v]) for k, v in labels.items())


def validated_selector_from_set(labels: Mapping[str, str] | None) -> Selector:
    """Upstream ``labels.ValidatedSelectorFromSet``: like ``selector_from_set`` but validated."""
    if not labels:
        return EVERYTHING
    return Selector(Requirement.new(k, OP_EQUALS, [labels[k]]) for k in sorted(labels, key=str))


# ---------------------------------------------------------------------------------------------
# String selector syntax (upstream labels.Parse), for command-line selectors
# ---------------------------------------------------------------------------------------------

_T_ERROR, _T_EOS, _T_CLOSE, _T_COMMA, _T_NOT, _T_DEQ, _T_EQ, _T_GT, _T_ID, _T_IN, _T_LT, _T_NEQ, _T_NOTIN, _T_OPEN = range(
    14
)
_STRING2TOKEN = {
    ")": _T_CLOSE,
    ",": _T_COMMA,
    "!": _T_NOT,
    "==": _T_DEQ,
    "=": _T_EQ,
    ">": _T_GT,
    "in": _T_IN,
    "<": _T_LT,
    "!=": _T_NEQ,
    "notin": _T_NOTIN,
    "(": _T_OPEN,
}
_SPECIAL = frozenset("=!(),><")
_WHITESPACE = frozenset(" \t\r\n")


def _lex(s: str) -> list[tuple[int, str]]:
    items: list[tuple[int, str]] = []
    i, n = 0, len(s)
    while True:
        while i < n and s[i] in _WHITESPACE:
            i += 1
        if i >= n:
            items.append((_T_EOS, ""))
            return items
        if s[i] in _SPECIAL:
            buf = ""
            last: tuple[int, str] | None = None
            while i < n and s[i] in _SPECIAL:
                cand = buf + s[i]
                if cand in _STRING2TOKEN:
                    buf = cand
                    last = (_STRING2TOKEN[cand], cand)
                    i += 1
                elif last is not None:
                    break
                else:
                    buf = cand
                    i += 1
            if last is None:
                items.append((_T_ERROR, f"error expected: keyword found '{buf}'"))
            else:
                items.append(last)
        else:
            j = i
            while j < n and s[j] not in _SPECIAL and s[j] not in _WHITESPACE:
                j += 1
            word = s[i:j]
            i = j
            items.append((_STRING2TOKEN.get(word, _T_ID), word))


class _Parser:
    def __init__(self, text: str) -> None:
        self.items = _lex(text)
        self.pos = 0

    def _tok(self, values: bool, advance: bool) -> tuple[int, str]:
        tok, lit = self.items[self.pos]
        if advance:
            self.pos += 1
        if values and tok in (_T_IN, _T_NOTIN):
            tok = _T_ID
        return tok, lit

    def parse(self) -> list[Requirement]:
        reqs: list[Requirement] = []
        while True:
            tok, lit = self._tok(True, False)
            if tok in (_T_ID, _T_NOT):
                try:
                    reqs.append(self._requirement())
                except SelectorError as e:
                    raise SelectorError(f"unable to parse requirement: {e}") from None
                t, l = self._tok(True, True)
                if t == _T_EOS:
                    return reqs
                if t == _T_COMMA:
                    t2, l2 = self._tok(True, False)
                    if t2 not in (_T_ID, _T_NOT):
                        raise SelectorError(f"found '{l2}', expected: identifier after ','")
                else:
                    raise SelectorError(f"found '{l}', expected: ',' or 'end of string'")
            elif tok == _T_EOS:
                return reqs
            else:
                raise SelectorError(f"found '{lit}', expected: !, identifier, or 'end of string'")

    def _requirement(self) -> Requirement:
        op: str | None = None
        tok, lit = self._tok(True, True)
        if tok == _T_NOT:
            op = OP_DOES_NOT_EXIST
            tok, lit = self._tok(True, True)
        if tok != _T_ID:
            raise SelectorError(f"found '{lit}', expected: identifier")
        key = lit
        msgs = label_key_errors(key)
        if msgs:
            raise SelectorError(_field_invalid("<nil>", _go_quote(key), "; ".join(msgs)))
        t, _ = self._tok(True, False)
        if t in (_T_EOS, _T_COMMA):
            return Requirement.new(key, op or OP_EXISTS, [])
        if op == OP_DOES_NOT_EXIST:
            return Requirement.new(key, op, [])
        tok, lit = self._tok(False, True)
        ops = {_T_IN: OP_IN, _T_EQ: OP_EQUALS, _T_DEQ: OP_DOUBLE_EQUALS, _T_GT: OP_GT, _T_LT: OP_LT,
               _T_NOTIN: OP_NOT_IN, _T_NEQ: OP_NOT_EQUALS}
        if tok not in ops:
            raise SelectorError(f"found '{lit}', expected: {', '.join(_BINARY_OPERATORS)}")
        op = ops[tok]
        values = self._set_values() if op in (OP_IN, OP_NOT_IN) else self._exact_value()
        return Requirement.new(key, op, sorted(values))

    def _set_values(self) -> set[str]:
        tok, lit = self._tok(True, True)
        if tok != _T_OPEN:
            raise SelectorError(f"found '{lit}' expected: '('")
        tok, lit = self._tok(True, False)
        if tok in (_T_ID, _T_COMMA):
            s = self._identifiers()
            if self._tok(True, True)[0] != _T_CLOSE:
                raise SelectorError(f"found '{lit}', expected: ')'")
            return s
        if tok == _T_CLOSE:
            self._tok(True, True)
            return {""}
        raise SelectorError(f"found '{lit}', expected: ',', ')' or identifier")

    def _identifiers(self) -> set[str]:
        s: set[str] = set()
        while True:
            tok, lit = self._tok(True, True)
            if tok == _T_ID:
                s.add(lit)
                t2, l2 = self._tok(True, False)
                if t2 == _T_COMMA:
                    continue
                if t2 == _T_CLOSE:
                    return s
                raise SelectorError(f"found '{l2}', expected: ',' or ')'")
            if tok == _T_COMMA:
                if not s:
                    s.add("")
                t2, _ = self._tok(True, False)
                if t2 == _T_CLOSE:
                    s.add("")
                    return s
                if t2 == _T_COMMA:
                    s.add("")
            else:
                raise SelectorError(f"found '{lit}', expected: ',', or identifier")

    def _exact_value(self) -> set[str]:
        tok, _ = self._tok(True, False)
        if tok in (_T_EOS, _T_COMMA):
            return {""}
        tok, lit = self._tok(True, True)
        if tok == _T_ID:
            return {lit}
        raise SelectorError(f"found '{lit}', expected: identifier")


def parse_selector(text: str) -> Selector:
    """Upstream ``labels.Parse``: the string syntax (``a=b,c in (d,e),!f``).

    An empty string matches everything.
    """
    return Selector(_Parser(text).parse())


#: The pod fields a field selector may name, as the API server's pod field selectors
#: (``pkg/registry/core/pod/strategy.go`` ``PodToSelectableFields``, v1.34), with the value an
#: unset field compares as.
POD_FIELDS: dict[str, Any] = {
    "metadata.name": lambda pod: (pod.get("metadata") or {}).get("name") or "",
    "metadata.namespace": lambda pod: (pod.get("metadata") or {}).get("namespace") or "default",
    "spec.schedulerName": lambda pod: (pod.get("spec") or {}).get("schedulerName") or "default-scheduler",
    "spec.nodeName": lambda pod: (pod.get("spec") or {}).get("nodeName") or "",
    "spec.priorityClassName": lambda pod: (pod.get("spec") or {}).get("priorityClassName") or "",
    "status.phase": lambda pod: (pod.get("status") or {}).get("phase") or "Pending",
    "status.nominatedNodeName": lambda pod: (pod.get("status") or {}).get("nominatedNodeName") or "",
}


def pod_field_selector(text: str) -> Any:
    """A predicate over pods for ``key=value,key!=value`` (``==`` too) over ``POD_FIELDS``.

    Raises ``ValueError`` naming the part that is not ``KEY=VALUE`` or the unknown field.
    """
    checks = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        for op in ("!=", "==", "="):
            key, sep, value = part.partition(op)
            if sep:
                break
        else:
            raise ValueError(f"{part!r} is not KEY=VALUE or KEY!=VALUE")
        key = key.strip()
        if key not in POD_FIELDS:
            raise ValueError(f'"{key}" is not a known field selector: only ' + ", ".join(f'"{k}"' for k in POD_FIELDS))
        checks.append((POD_FIELDS[key], value.strip(), op == "!="))
    return lambda pod: all((get(pod) != value) if negate else (get(pod) == value) for get, value, negate in checks)
