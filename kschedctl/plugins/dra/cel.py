"""A CEL (Common Expression Language) evaluator for DRA device selectors, written for kschedctl.

What it implements
------------------
The ``CELDeviceSelector.expression`` language of Kubernetes v1.34's scheduler: the environment that
``k8s.io/dynamic-resource-allocation/cel`` (``compile.go``, release-1.34) builds on
``environment.StoredExpressions`` (every library, feature gates ignored), evaluated against one
variable, ``device`` (``driver``, ``attributes`` and ``capacity`` by domain and id, names without a
domain under the driver's, and ``allowMultipleAllocations``, always false: the v1.34 allocators do
not pass it). The value is built once per device (``Device.cel_value``); expressions are compiled
once per run (``CelCache``):

* a lexer and recursive-descent parser for the CEL grammar (cel-go v0.26.0 ``CEL.g4``): int / uint /
  double / string / bytes literals (raw, triple-quoted, every escape), ``null``, bools, lists, maps,
  ``! - * / % + - < <= > >= == != in && || ?:``, ``.field`` (reserved words such as ``if`` and
  identifiers such as ``bool`` or ``int`` are plain field names after ``.``; the tokens ``in true
  false null`` are not, as in CEL.g4), ``[index]``, global and
  member calls, and the macros ``has all exists exists_one map (2 and 3 args) filter``, ``cel.bind``,
  the two-variable comprehensions (``all exists existsOne exists_one`` with 3 args, ``transformList``,
  ``transformMap``, ``transformMapEntry``) and ``sortBy``;
* a type checker that follows cel-go's ``checker`` (overload resolution with type parameters,
  ``dyn``/``any`` handling, the output-type rule of ``compile.go``) so that compile errors read as
  upstream's, e.g. ``compilation failed: ERROR: <input>:1:1: undeclared reference to 'noSuchVar'
  (in container '')\\n | noSuchVar\\n | ^``, plus the validators k8s enables (homogeneous aggregate
  literals, regex literals);
* an evaluator that turns the checked tree into nested Python closures once per expression, with
  cel-go's runtime semantics: error-absorbing, commutative ``&&``/``||`` and comprehensions, int64 /
  uint64 overflow errors, heterogeneous ``==`` (false, not an error), cross-type numeric ordering,
  ``no such key``, ``no such overload``, and the DRA map wrapper that turns an unknown domain of
  ``device.attributes`` / ``device.capacity`` into an empty map;
* libraries: the CEL standard functions (``size contains startsWith endsWith matches``, the
  conversions ``int uint double string bool bytes dyn type``), ext strings v2 (``charAt indexOf
  lastIndexOf lowerAscii upperAscii replace split substring trim join strings.quote``), ext sets,
  ext lists v3 (``slice flatten sort sortBy lists.range reverse distinct``), and the Kubernetes
  libraries of ``k8s.io/apiserver/pkg/cel/library`` (release-1.34): quantity, semver (v1, with the
  normalizing overloads), regex (``find findAll``) and lists (``isSorted sum min max indexOf
  lastIndexOf``);
* a runtime cost counter modelled on cel-go's ``interpreter/runtimecost.go`` and the k8s
  ``library.CostEstimator.CallCost``: 1 per identifier, field select, index and most calls, string
  traversal factor 0.1, regex factor 0.25, 10 per non-constant list literal, 30 per map literal, the
  per-iteration costs of the macro expansions, constant folding of literals and conversions as
  ``cel.OptOptimize`` does. Above 1,000,000 evaluation stops with ``operation cancelled: actual cost
  limit exceeded`` (the counter is checked on every comprehension iteration and at the end).

Upstream sources followed: k8s.io/dynamic-resource-allocation ``cel/compile.go`` (release-1.34),
github.com/google/cel-go v0.26.0 (parser, checker, interpreter, common/types, ext), k8s.io/apiserver
``pkg/cel`` and ``pkg/cel/library`` (release-1.34), k8s.io/apimachinery ``pkg/api/resource``
(ParseQuantity, int64Amount) and github.com/blang/semver v4.0.0 (``Parse``).

Known differences from upstream
-------------------------------
* Not implemented, and rejected at compile time with an ``undeclared reference ... kschedctl does not
  implement`` or ``unsupported syntax`` error: optional types (``.?f``, ``[?k]``, ``optional.*``,
  ``orValue`` ...), timestamps and durations, the strings ``format`` function, the URL, IP/CIDR,
  format and authz libraries, message construction (``T{...}``).
* Estimated (static) costs, which only API validation uses, are not computed (upstream's tests
  check them; ours check that the actual cost stays within them). The runtime cost follows cel-go's
  tracker rules, but on error paths it can differ slightly (cel-go keeps evaluating sibling
  arguments after an error value, this evaluator stops at the first unabsorbed error), so the point
  where a long evaluation stops may differ a little, and when an evaluation both fails and exceeds
  the limit, which of the two errors is reported may differ.
* Syntax errors carry ``Syntax error: ...`` at the right line and column in cel-go's format, but the
  wording only approximates ANTLR's, and only the first syntax error is reported.
* Runtime type errors read ``no such overload`` or ``no such overload: f(types)``; the exact variant
  cel-go picks depends on its dispatch path and is not always reproduced.
* ``matches``/``find``/``findAll`` run on RE2 (google-re2), whose syntax and matching Go's regexp
  reimplements. Go's own limits are applied where they differ: ``\\C`` is refused, a parse tree
  higher than 1000 is "expression nests too deeply" (the height is computed as Go's parser builds
  the tree, except that Go's factoring of common prefixes out of alternatives is not modelled).
  RE2's memory budget (its default 8 MiB, kept so that no pattern costs more than about 0.1 s to
  refuse) is smaller than Go's program size limit, and RE2 expands a Unicode class into UTF-8 byte
  ranges where Go keeps one instruction: a pattern such as ``\\pL{1000}`` is "expression too
  large" here and accepted upstream. ``.{1000}``, ``[a-z]{1000}`` and ``\\p{Greek}{1000}`` compile.
* Quantities are immutable here. Upstream's apimachinery code mutates a ``Quantity`` in a few
  places (``compareTo`` promotes the receiver to its decimal form, ``add``/``sub`` on a decimal
  quantity write through a shared pointer), which can change later ``isInteger()`` /
  ``asApproximateFloat()`` results within one evaluation; kschedctl does not reproduce that.
* A quantity of more than 100,000 digits (only a string built at run time can hold one, or an
  exponent such as ``12345678901234567890e2000000000`` that upstream would expand to two billion
  digits) is an error here; upstream computes it, or takes minutes trying.
* ``sort``/``sortBy`` are stable here; Go's sort.Slice may order equal keys differently.
* No interrupt/deadline checks (kschedctl has no contexts); Go map iteration order is random
  upstream, here maps iterate in insertion order.
"""

from __future__ import annotations

import functools
import math
import operator
import re
import sys
from decimal import Decimal
from typing import Any, Callable, NoReturn

import re2

from kschedctl.k8s.quantity import ERR_FORMAT_WRONG, ERR_NUMERIC, ERR_SUFFIX

__all__ = ["CelError", "CompilationResult", "CelCache", "COST_LIMIT", "Quantity", "Semver"]

#: resourceapi.CELSelectorExpressionMaxCost: the runtime cost limit of one evaluation.
COST_LIMIT = 1_000_000

_COST_EXCEEDED = "operation cancelled: actual cost limit exceeded"
_MIN_INT = -(1 << 63)
_MAX_INT = (1 << 63) - 1
_MAX_UINT = (1 << 64) - 1
#: Recursion limits of cel-go's parser (parser.MaxRecursionDepth default).
_MAX_DEPTH = 250


class CelError(Exception):
    """A CEL runtime error; ``str(err)`` is the text upstream would report."""


class _CostLimit(Exception):
    """Raised past the cost limit. Deliberately not a CelError: nothing may absorb it."""


class _CompileFailure(Exception):
    """A failed compilation; ``args[0]`` is the full upstream error text."""


def _no_overload() -> CelError:
    return CelError("no such overload")


def _no_overload_sig(name: str, args: tuple) -> CelError:
    return CelError(f"no such overload: {name}({', '.join(_type_name(a) for a in args)})")


# --------------------------------------------------------------------------------------------
# Runtime values. ints, floats, strs, bytes, bools, None, lists and dicts are used as they are;
# uint needs its own type so that 1u and 1 stay distinguishable.
# --------------------------------------------------------------------------------------------


class _UInt(int):
    """A CEL uint (equal and hash-equal to the same int, as cel-go's map lookups allow)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"{int(self)}u"


class CelType:
    """A CEL type value, as ``type(x)`` returns and identifiers like ``int`` denote."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CelType) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("type", self.name))

    def __repr__(self) -> str:
        return self.name


class _DefaultMap(dict):
    """``device.attributes`` / ``device.capacity``: upstream wraps them so that looking up an
    unknown domain yields an empty map, while ``in``, ``size`` and iteration see the real keys."""

    __slots__ = ()

    def __missing__(self, key: Any) -> dict:
        return {}


class Quantity:
    """A ``kubernetes.Quantity`` value: the exact amount ``m * 10**e`` plus how apimachinery
    would hold it, because ``asInteger``/``isInteger`` depend on that (an int64Amount with a
    non-negative scale converts; a negative scale or an inf.Dec does not)."""

    __slots__ = ("m", "e", "dec", "ptr")

    def __init__(self, m: int, e: int, dec: bool, ptr: bool = False) -> None:
        self.m = m
        self.e = e
        #: True when upstream holds an inf.Dec rather than an int64Amount.
        self.dec = dec
        #: True for results of add/sub, which upstream returns as *Quantity; its Equal method
        #: refuses a pointer on the right-hand side.
        self.ptr = ptr

    def __repr__(self) -> str:
        m = self.m if _decimal_digits(self.m) <= 100 else f"<{_decimal_digits(self.m)} digits>"
        return f"Quantity({m}e{self.e}{', dec' if self.dec else ''})"

    def cmp(self, other: "Quantity") -> int:
        return _qcmp(self.m, self.e, other.m, other.e)


class Semver:
    """A ``kubernetes.Semver`` value (blang/semver v4 ``Version``)."""

    __slots__ = ("major", "minor", "patch", "pre", "build")

    def __init__(self, major: int, minor: int, patch: int, pre: tuple, build: tuple) -> None:
        self.major = major
        self.minor = minor
        self.patch = patch
        self.pre = pre  # tuple of (is_num, int, str)
        self.build = build

    def __repr__(self) -> str:
        s = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            s += "-" + ".".join(str(n) if isnum else t for isnum, n, t in self.pre)
        if self.build:
            s += "+" + ".".join(self.build)
        return f"Semver({s})"

    def cmp(self, o: "Semver") -> int:
        for a, b in ((self.major, o.major), (self.minor, o.minor), (self.patch, o.patch)):
            if a != b:
                return 1 if a > b else -1
        if not self.pre or not o.pre:
            return (not self.pre) - (not o.pre)
        for (an, av, at), (bn, bv, bt) in zip(self.pre, o.pre):
            if an != bn:
                return -1 if an else 1  # numeric identifiers sort before alphanumeric ones
            if an:
                if av != bv:
                    return 1 if av > bv else -1
            elif at != bt:
                return 1 if at > bt else -1  # byte-wise, as Go compares strings
        return (len(self.pre) > len(o.pre)) - (len(self.pre) < len(o.pre))


_TYPE_NAMES = {int: "int", _UInt: "uint", float: "double", str: "string", bool: "bool", bytes: "bytes",
               type(None): "null_type", list: "list", dict: "map", _DefaultMap: "map",
               Quantity: "kubernetes.Quantity", Semver: "kubernetes.Semver", CelType: "type"}


def _type_name(v: Any) -> str:
    return _TYPE_NAMES.get(type(v), type(v).__name__)


# --------------------------------------------------------------------------------------------
# Go formatting and parsing helpers: the texts upstream produces come from Go's fmt and strconv.
# --------------------------------------------------------------------------------------------


#: The characters Go's %q writes as a short escape; ext strings' strings.quote uses the same ones.
_QUOTE_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\a": "\\a",
                  "\b": "\\b", "\f": "\\f", "\v": "\\v"}


def _go_quote(s: str) -> str:
    """Go's ``%q`` of a string."""
    out = ['"']
    for ch in s:
        esc = _QUOTE_ESCAPES.get(ch)
        if esc is not None:
            out.append(esc)
            continue
        o = ord(ch)
        if o < 0x20 or o == 0x7F:
            out.append(f"\\x{o:02x}")
        elif ch.isprintable():
            out.append(ch)
        elif o < 0x10000:
            out.append(f"\\u{o:04x}")
        else:
            out.append(f"\\U{o:08x}")
    out.append('"')
    return "".join(out)


def _go_g(f: float) -> str:
    """Go's ``%g`` (and ``%v``) of a float64: the shortest digits, exponent form below 1e-4 and
    from 1e6 on (``1.234567e+06``), which Python's repr does not match."""
    if f != f:
        return "NaN"
    if f in (math.inf, -math.inf):
        return "+Inf" if f > 0 else "-Inf"
    if f == 0:
        return "-0" if math.copysign(1.0, f) < 0 else "0"
    sign, digits, exp = Decimal(repr(f)).as_tuple()
    ds = "".join(map(str, digits)).rstrip("0")
    exp += len(digits) - len(ds)
    nd = len(ds)
    dp = nd + exp  # the decimal point sits after dp digits
    x = dp - 1
    neg = "-" if sign else ""
    if x < -4 or x >= 6:
        mant = ds[0] + ("." + ds[1:] if nd > 1 else "")
        return f"{neg}{mant}e{'-' if x < 0 else '+'}{abs(x):02d}"
    if dp <= 0:
        return f"{neg}0.{'0' * -dp}{ds}"
    if dp >= nd:
        return f"{neg}{ds}{'0' * (dp - nd)}"
    return f"{neg}{ds[:dp]}.{ds[dp:]}"


def _fmt_v(v: Any) -> str:
    """Go's ``%v`` of a CEL value, as error texts like ``no such key: %v`` show it."""
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return "NULL_VALUE"
    t = type(v)
    if t is float:
        return _go_g(v)
    if t is int or t is _UInt:
        return str(int(v))
    if t is str:
        return v
    if t is bytes:
        return "[" + " ".join(str(b) for b in v) + "]"
    if t is list:
        return "[" + ", ".join(_fmt_v(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_fmt_v(k)}: {_fmt_v(x)}" for k, x in v.items()) + "}"
    return repr(v)


_INT_RE = re.compile(r"[+-]?[0-9]+\Z")
_UINT_RE = re.compile(r"[0-9]+\Z")
_FLOAT_RE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
_FLOAT_SPECIAL_RE = re.compile(r"[+-]?(?:inf|infinity|nan)\Z", re.IGNORECASE)
_FLOAT_HEX_RE = re.compile(r"[+-]?0[xX](?:[0-9a-fA-F]+(?:\.[0-9a-fA-F]*)?|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+\Z")
_BOOL_STRINGS = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True,
                 "0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False}
#: Go's unicode.IsSpace, which strings.TrimSpace uses (Python's str.strip also strips \x1c-\x1f).
_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
            "\u2028\u2029\u202f\u205f\u3000"


def _go_parse_float(s: str) -> float | None:
    """strconv.ParseFloat(s, 64), or None where Go reports an error (syntax or out of range)."""
    if _FLOAT_RE.match(s):
        f = float(s)
        return None if f in (math.inf, -math.inf) else f
    if _FLOAT_SPECIAL_RE.match(s):
        return float(s)
    if _FLOAT_HEX_RE.match(s):
        try:
            return float.fromhex(s)
        except OverflowError:
            return None
    return None


# --------------------------------------------------------------------------------------------
# Quantities: apimachinery's ParseQuantity, including which representation it picks.
# kschedctl.k8s.quantity.parse_quantity is not enough here: it trims white space (only JSON
# decoding does), refuses values above 2^63-1 (ParseQuantity caps them) and does not say whether
# upstream would hold an int64Amount, which asInteger()/isInteger() depend on.
# --------------------------------------------------------------------------------------------

_DEC_SUFFIX = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BIN_SUFFIX = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")
_DIGITS = frozenset("0123456789")
#: Quantities of more digits than this are not computed: a guard, not upstream, whose big decimals
#: have no bound (a selector could build a string of millions of digits; parsing it, or rescaling
#: 1e2000000000 to nano units, would take seconds or more). Every literal fits (10 KiB).
_MAX_QUANTITY_DIGITS = 100_000
_QUANTITY_TOO_LARGE = f"kschedctl: a quantity of more than {_MAX_QUANTITY_DIGITS} digits is not evaluated"


@functools.lru_cache(maxsize=128)
def _pow10(n: int) -> int:
    return 10 ** n


def _decimal_digits(n: int) -> int:
    """The number of decimal digits of abs(n), without str(): Python refuses to convert an int of
    more than 4300 digits to text."""
    n = abs(n)
    if n < 10 ** 18:
        return len(str(n))
    d = int(n.bit_length() * 0.30102999566398114)  # the count is d or d + 1
    return d + 1 if n >= _pow10(d) else d


def _parse_digits(digits: str) -> int:
    """int(digits) for a string of ASCII digits of any length: int() refuses more than 4300
    digits, so long strings are split and joined (in subquadratic time)."""
    if len(digits) <= 4000:
        return int(digits)
    half = len(digits) // 2
    return _parse_digits(digits[:half]) * _pow10(len(digits) - half) + _parse_digits(digits[half:])


def _int_text(n: int) -> str:
    """str(n) for an int of any length (str() refuses more than 4300 digits)."""
    if n < 0:
        return "-" + _int_text(-n)
    digits = _decimal_digits(n)
    if digits <= 4000:
        return str(n)
    half = digits // 2
    high, low = divmod(n, _pow10(half))
    return _int_text(high) + _int_text(low).rjust(half, "0")


def _parse_bounded(text: str, lo: int, hi: int) -> int | None:
    """int(text) for an optionally signed decimal integer, or None outside [lo, hi] (int64 or
    uint64 bounds, as strconv reports a range error); never converts thousands of digits."""
    sign = -1 if text[:1] == "-" else 1
    digits = text.lstrip("+-").lstrip("0") or "0"
    if len(digits) > 20:
        return None
    v = sign * int(digits)
    return v if lo <= v <= hi else None


def _qcmp(m1: int, e1: int, m2: int, e2: int) -> int:
    """Compare m1*10**e1 with m2*10**e2 exactly without building huge powers of ten."""
    s1 = (m1 > 0) - (m1 < 0)
    s2 = (m2 > 0) - (m2 < 0)
    if s1 != s2:
        return 1 if s1 > s2 else -1
    if s1 == 0:
        return 0
    mag1 = _decimal_digits(m1) + e1
    mag2 = _decimal_digits(m2) + e2
    if mag1 != mag2:
        return s1 if mag1 > mag2 else -s1
    if e1 >= e2:
        a, b = m1 * 10 ** (e1 - e2), m2
    else:
        a, b = m1, m2 * 10 ** (e2 - e1)
    return (a > b) - (a < b)


def _split_quantity(s: str) -> tuple[bool, str, str, str, str]:
    """apimachinery parseQuantityString: (positive, value, num, denom, suffix)."""
    end = len(s)
    pos = 0
    positive = True
    if pos < end and s[0] in "+-":
        positive = s[0] == "+"
        pos += 1
    while True:  # leading zeros
        if pos >= end:
            return positive, "0", "0", "", ""
        if s[pos] != "0":
            break
        pos += 1
    start = pos
    while pos < end and s[pos] in _DIGITS:
        pos += 1
    if pos >= end:
        return positive, s, s[start:] or "0", "", ""
    num = s[start:pos] or "0"
    denom = ""
    if s[pos] == ".":
        pos += 1
        start = pos
        while pos < end and s[pos] in _DIGITS:
            pos += 1
        denom = s[start:pos]
        if pos >= end:
            return positive, s, num, denom, ""
    value = s[:pos]
    suffix_start = pos
    while pos < end and s[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos >= end:
        return positive, value, num, denom, s[suffix_start:]
    if s[pos] in "+-":
        pos += 1
    while pos < end and s[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise CelError(ERR_FORMAT_WRONG)
    return positive, value, num, denom, s[suffix_start:]


def _parse_quantity(s: str) -> Quantity:
    """resource.ParseQuantity(s) as a Quantity; CelError with upstream's text on failure."""
    if not s:
        raise CelError(ERR_FORMAT_WRONG)
    positive, value, num, denom, suffix = _split_quantity(s)
    binary = False
    if suffix in _DEC_SUFFIX:
        exponent = _DEC_SUFFIX[suffix]
    elif suffix in _BIN_SUFFIX:
        exponent = _BIN_SUFFIX[suffix]
        binary = True
    elif len(suffix) > 1 and suffix[0] in "eE" and _INT_RE.match(suffix[1:]) and \
            _parse_bounded(suffix[1:], _MIN_INT, _MAX_INT) is not None:  # strconv.ParseInt(s, 10, 64)
        exponent = ((_parse_bounded(suffix[1:], _MIN_INT, _MAX_INT) + (1 << 31)) % (1 << 32)) \
            - (1 << 31)  # Go's int32(parsed)
    else:
        raise CelError(ERR_SUFFIX)
    mantissa = 1
    scale = 0
    if not binary:
        scale = exponent
        precision = 18 - (len(num) + len(denom))
    elif exponent >= 0 and not denom:
        mantissa = 1 << exponent
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1
    else:
        precision = -1
    if precision >= 0:
        scale -= len(denom)
        if scale >= -9:
            shifted = num + denom
            v = int(shifted)
            if v > _MAX_INT:
                raise CelError(ERR_NUMERIC)
            result = v * mantissa
            if result <= _MAX_INT:  # int64Multiply did not overflow: an int64Amount
                return Quantity(result if positive else -result, scale, False)
    # The inf.Dec path: the exact decimal, rounded up (away from zero) to nano units; a binary
    # amount is capped at 2^63-1 (maxAllowed), a decimal one is not. |value| = digits * 10**ue
    # (times 2**exponent when binary), computed without materialising more than the result.
    m = re.fullmatch(r"[+-]?([0-9]*)(?:\.([0-9]*))?", value)
    if m is None or not (m.group(1) or m.group(2)):
        raise CelError(ERR_NUMERIC)
    ip, fp = m.group(1), m.group(2) or ""
    digits = (ip + fp).lstrip("0")
    ue = -len(fp) if binary else exponent - len(fp)
    if not digits:
        return Quantity(0, ue, True)  # zero is not rounded
    shift = exponent if binary else 0
    if binary and len(digits) + ue > 19:  # at least 10**19 > 2^63-1
        return Quantity(_MAX_INT if positive else -_MAX_INT, 0, True)  # maxAllowed, at scale 0
    below_nano = -9 - ue  # digits under the nano unit
    if below_nano > 0:
        if below_nano >= len(digits) + (19 if binary else 0):  # the value is under one nano unit
            um = 1
        else:
            if len(digits) > _MAX_QUANTITY_DIGITS:
                raise CelError(_QUANTITY_TOO_LARGE)
            q, r = divmod(_parse_digits(digits) << shift, _pow10(below_nano))
            um = q + (1 if r else 0)
    else:
        if len(digits) - below_nano > _MAX_QUANTITY_DIGITS:
            raise CelError(_QUANTITY_TOO_LARGE)
        um = (_parse_digits(digits) << shift) * _pow10(-below_nano)  # Round(Nano) rescales
    if binary and um > _MAX_INT * 1_000_000_000:
        return Quantity(_MAX_INT if positive else -_MAX_INT, 0, True)
    return Quantity(um if positive else -um, -9, True)


def _quantity_from_input(value: Any) -> Quantity:
    """A device capacity value as the API server decoded it (UnmarshalJSON trims white space)."""
    if isinstance(value, bool) or value is None:
        raise CelError(ERR_FORMAT_WRONG)
    if isinstance(value, int):
        if _decimal_digits(value) > _MAX_QUANTITY_DIGITS:
            raise CelError(_QUANTITY_TOO_LARGE)
        text = _int_text(value)
    elif isinstance(value, float):
        text = repr(value)
    else:
        text = str(value).strip()
    return _parse_quantity(text)


def _q_int64(q: Quantity) -> int | None:
    """Quantity.AsInt64: None where upstream reports ok=false."""
    if q.dec or q.e < 0:
        return None
    if q.e == 0 or q.m == 0:
        return q.m
    if q.e > 19:
        return None
    v = q.m * 10 ** q.e
    return v if _MIN_INT <= v <= _MAX_INT else None


def _go_pow10(e: int) -> float:
    if e > 308:
        return math.inf
    if e < -323:
        return 0.0
    return 10.0 ** e


def _q_float(q: Quantity) -> float:
    """AsApproximateFloat64: base * math.Pow10(exponent), as Go computes it."""
    try:
        base = float(q.m)
    except OverflowError:
        base = math.inf if q.m > 0 else -math.inf
    if q.e == 0:
        return base
    p = _go_pow10(q.e)
    if base == 0 and math.isinf(p):
        return math.nan
    return base * p


def _q_add(a: Quantity, b: Quantity, negate: bool) -> Quantity:
    """Quantity.Add / Sub on copies: int64Amount arithmetic when both fit, else exact decimals."""
    bm = -b.m if negate else b.m
    if not a.dec and not b.dec:
        if bm == 0:
            return Quantity(a.m, a.e, False, True)
        if a.m == 0:
            return Quantity(bm, b.e, False, True)
        if a.e == b.e:
            m, e = a.m + bm, a.e
        elif a.e > b.e:
            m, e = _scale_up(a.m, a.e - b.e), b.e
            m = None if m is None else m + bm
        else:
            m, e = _scale_up(bm, b.e - a.e), a.e
            m = None if m is None else a.m + m
        if m is not None and _MIN_INT <= m <= _MAX_INT:
            return Quantity(m, e, False, True)
    e = min(a.e, b.e)
    if max(a.e, b.e) - e > _MAX_QUANTITY_DIGITS:
        raise CelError("kschedctl: quantity arithmetic over too many digits")
    m = a.m * 10 ** (a.e - e) + bm * 10 ** (b.e - e)
    return Quantity(m, e, True, True)


def _scale_up(v: int, n: int) -> int | None:
    """positiveScaleInt64: v * 10**n, None on int64 overflow."""
    if v == 0:
        return 0
    if n > 19:
        return None
    r = v * 10 ** n
    return r if _MIN_INT <= r <= _MAX_INT else None


# --------------------------------------------------------------------------------------------
# Semantic versions: blang/semver v4 Parse, and the apiserver's normalizing variant.
# --------------------------------------------------------------------------------------------

_SEMVER_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789")


def _parse_uint64(s: str) -> int:
    if not _UINT_RE.match(s):
        raise CelError(f"strconv.ParseUint: parsing {_go_quote(s)}: invalid syntax")
    v = _parse_bounded(s, 0, _MAX_UINT)
    if v is None:
        raise CelError(f"strconv.ParseUint: parsing {_go_quote(s)}: value out of range")
    return v


def _only(s: str, chars: frozenset) -> bool:
    return all(c in chars for c in s)


def _parse_semver(s: str) -> Semver:
    """semver.Parse (strict); CelError with blang's error text."""
    if not s:
        raise CelError("Version string empty")
    parts = s.split(".", 2)
    if len(parts) != 3:
        raise CelError("No Major.Minor.Patch elements found")
    nums = []
    for label, p in (("major", parts[0]), ("minor", parts[1])):
        if not _only(p, _DIGITS):
            raise CelError(f"Invalid character(s) found in {label} number {_go_quote(p)}")
        if len(p) > 1 and p[0] == "0":
            raise CelError(f"{label.capitalize()} number must not contain leading zeroes {_go_quote(p)}")
        nums.append(_parse_uint64(p))
    patch = parts[2]
    build: list[str] = []
    pre: list[str] = []
    i = patch.find("+")
    if i >= 0:
        build = patch[i + 1:].split(".")
        patch = patch[:i]
    i = patch.find("-")
    if i >= 0:
        pre = patch[i + 1:].split(".")
        patch = patch[:i]
    if not _only(patch, _DIGITS):
        raise CelError(f"Invalid character(s) found in patch number {_go_quote(patch)}")
    if len(patch) > 1 and patch[0] == "0":
        raise CelError(f"Patch number must not contain leading zeroes {_go_quote(patch)}")
    nums.append(_parse_uint64(patch))
    pres = []
    for p in pre:
        if not p:
            raise CelError("Prerelease is empty")
        if _only(p, _DIGITS):
            if len(p) > 1 and p[0] == "0":
                raise CelError(f"Numeric PreRelease version must not contain leading zeroes {_go_quote(p)}")
            pres.append((True, _parse_uint64(p), ""))
        elif _only(p, _SEMVER_ALNUM):
            pres.append((False, 0, p))
        else:
            raise CelError(f"Invalid character(s) found in prerelease {_go_quote(p)}")
    for b in build:
        if not b:
            raise CelError("Build meta data is empty")
        if not _only(b, _SEMVER_ALNUM):
            raise CelError(f"Invalid character(s) found in build meta data {_go_quote(b)}")
    return Semver(nums[0], nums[1], nums[2], tuple(pres), tuple(build))


def _normalize_parse_semver(s: str) -> Semver:
    """The apiserver's normalizeAndParse: tolerate a leading v, leading zeros and missing parts."""
    if s.startswith("v"):
        s = s[1:]
    parts = s.split(".", 2)
    for i, p in enumerate(parts):
        if len(p) > 1:
            p = p.lstrip("0")
            if not p or p[0] not in _DIGITS:
                p = "0" + p
            parts[i] = p
    if len(parts) < 3:
        if any(c in parts[-1] for c in "+-"):
            raise CelError("short version cannot contain PreRelease/Build meta data")
        parts += ["0"] * (3 - len(parts))
    return _parse_semver(".".join(parts))


def _go_int64(u: int) -> int:
    """types.Int(uint64): Go's conversion wraps values above 2^63-1."""
    return u - (1 << 64) if u > _MAX_INT else u


# --------------------------------------------------------------------------------------------
# Regular expressions. cel-go's ``matches`` and the k8s regex library (``find``, ``findAll``) use
# Go's regexp package: RE2 syntax, matching in time linear in the text, unanchored search. They
# run here on RE2 itself (google-re2), over UTF-8 bytes as Go matches strings. Go's parser is a port
# of RE2's; where the two accept different patterns (``\C``, nesting depth), Go's rule is applied
# first. Errors read as Go's.
# --------------------------------------------------------------------------------------------


class _RegexError(CelError):
    """A pattern Go's regexp package rejects (text: Go's error)."""


#: RE2's error codes (re2/regexp.cc) in Go's regexp/syntax wording, longest first so that a code
#: that is a prefix of another ("invalid character class") is tried last.
_GO_REGEX_ERRORS = sorted({
    "invalid escape sequence": "invalid escape sequence",
    "invalid character class": "invalid character class",
    "invalid character class range": "invalid character class range",
    "missing ]": "missing closing ]",
    "missing )": "missing closing )",
    "unexpected )": "unexpected )",
    "trailing \\": "trailing backslash at end of expression",
    "no argument for repetition operator": "missing argument to repetition operator",
    "invalid repetition size": "invalid repeat count",
    "bad repetition operator": "invalid nested repetition operator",
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "invalid UTF-8": "invalid UTF-8",
    "invalid named capture group": "invalid named capture",
}.items(), key=lambda item: -len(item[0]))
#: Go's maxHeight: a parse tree higher than this is "expression nests too deeply".
_GO_REGEX_MAX_HEIGHT = 1000
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # RE2 would otherwise log every bad pattern on stderr
#: Compiled patterns by text, oldest first. Each RE2 object keeps its program and a lazily grown
#: DFA (both within RE2's 8 MiB budget), so the cache is bounded by entries and by instructions.
_REGEX_CACHE: dict[str, Any] = {}
_REGEX_CACHE_ENTRIES = 64
_REGEX_CACHE_INSTRUCTIONS = 1 << 20
_regex_cache_instructions = 0


def _go_regex_error(code: str, arg: str) -> _RegexError:
    return _RegexError(f"error parsing regexp: {code}: `{arg}`")


_SURROGATE_RE = re.compile("[\ud800-\udfff]")


def _utf8(s: str) -> bytes:
    """s as Go holds it: UTF-8, a lone surrogate (which no Go string decoded from JSON or YAML
    holds) as U+FFFD."""
    try:
        return s.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE_RE.sub("\ufffd", s).encode("utf-8")


def _re2_compile(pattern: str) -> Any:
    """RE2's compiled pattern, or _RegexError with Go's text for what RE2 refuses."""
    try:
        return re2.compile(_utf8(pattern), _RE2_OPTIONS)
    except re2.error as err:
        message = err.args[0] if err.args else ""
        if isinstance(message, bytes):
            message = message.decode("utf-8", "replace")
        if message.startswith("pattern too large"):
            raise _go_regex_error("expression too large", pattern) from None
        for re2_code, go_code in _GO_REGEX_ERRORS:
            if message == re2_code or message.startswith(re2_code + ": "):
                raise _go_regex_error(go_code, message[len(re2_code) + 2:]) from None
        raise _RegexError(f"error parsing regexp: {message}") from None


def _any_byte_escape(pattern: str) -> int:
    """The offset of the first ``\\C`` outside ``\\Q...\\E``, or -1. RE2 reads it as "any byte";
    Go's parser refuses it as an invalid escape."""
    i, n = 0, len(pattern)
    while i < n - 1:
        if pattern[i] != "\\":
            i += 1
        elif pattern[i + 1] == "C":
            return i
        elif pattern[i + 1] == "Q":
            end = pattern.find("\\E", i + 2)
            i = n if end < 0 else end + 2
        else:
            i += 2
    return -1


def _go_tree_height(pattern: str) -> int:
    """About the height of the parse tree Go's regexp/syntax builds (checkHeight): a capture or a
    repetition is a node over its operand; a concatenation or an alternation of several parts is
    one node over them, flattened through non-capturing groups; adjacent literal characters are one
    node, alternatives of single characters one class. Go's factoring of common prefixes out of
    alternatives is not modelled. Only called on patterns RE2 parsed."""
    # a node is (height, kind); kind "cat"/"alt" nodes are flattened into a parent of their kind
    def join(nodes: list[tuple[int, str]], kind: str, empty: int) -> tuple[int, str]:
        if not nodes:
            return empty, "empty"
        if len(nodes) == 1:
            return nodes[0]
        if kind == "alt" and all(k == "char" for _, k in nodes):
            return 1, "char"  # one character class
        return 1 + max(h - 1 if k == kind else h for h, k in nodes), kind

    # one frame per open group: [capturing, finished branches, nodes of the current branch]
    stack: list[list] = [[False, [], []]]
    i, n = 0, len(pattern)
    prev_literal = False  # the last node is a literal that a next literal character joins
    while i < n:
        c = pattern[i]
        nodes = stack[-1][2]
        if c == "(":
            capturing = not pattern.startswith("?", i + 1) or pattern.startswith(("?P<", "?<"), i + 1)
            if pattern.startswith("?", i + 1):
                close = min(x for x in (pattern.find(":", i), pattern.find(")", i), n) if x >= 0)
                if not capturing and pattern[close:close + 1] == ")":  # a flag group: "(?i)"
                    i, prev_literal = close + 1, False
                    continue
                i = pattern.find(">", i) + 1 if capturing else close + 1
            else:
                i += 1
            stack.append([capturing, [], []])
            prev_literal = False
            continue
        if c == ")" and len(stack) > 1:
            capturing, branches, last = stack.pop()
            height, kind = join(branches + [join(last, "cat", 1)], "alt", 1)
            stack[-1][2].append((height + 1, "cap") if capturing else (height, kind))
            i, prev_literal = i + 1, False
            continue
        if c == "|":
            stack[-1][1].append(join(nodes, "cat", 1))
            stack[-1][2] = []
            i, prev_literal = i + 1, False
            continue
        if c in "*+?{":
            end = pattern.find("}", i) + 1 if c == "{" else i + 1
            if c != "{" or re.fullmatch(r"\{[0-9]+(,[0-9]*)?\}", pattern[i:end]):
                if nodes:
                    nodes[-1] = (nodes[-1][0] + 1, "rep")
                i = end + (pattern[end:end + 1] == "?")
                prev_literal = False
                continue
        if c == "[":
            j = i + 1 + (pattern[i + 1:i + 2] == "^")
            j += pattern[j:j + 1] == "]"
            while j < n and pattern[j] != "]":
                if pattern.startswith("[:", j) and pattern.find(":]", j + 2) >= 0:
                    j = pattern.find(":]", j + 2) + 2
                else:
                    j += 2 if pattern[j] == "\\" else 1
            nodes.append((1, "char"))
            i, prev_literal = j + 1, False
            continue
        literal = c != "\\" and c not in ".^$"
        i += 1
        if c == "\\":
            i += 1
            if pattern[i - 1:i] in ("p", "P", "x") and pattern[i:i + 1] == "{":
                i = pattern.find("}", i) + 1
            elif pattern[i - 1:i] in ("p", "P"):
                i += 1
        followed_by_repeat = i < n and pattern[i] in "*+?{"
        if literal and prev_literal and not followed_by_repeat:
            nodes[-1] = (1, "leaf")  # a literal of several characters
        else:
            nodes.append((1, "char" if c not in "^$" else "leaf"))
        prev_literal = literal
    frame = stack[0]
    return join(frame[1] + [join(frame[2], "cat", 1)], "alt", 1)[0]


def _regex(pattern: str) -> Any:
    """The compiled RE2 pattern (cached); _RegexError with Go's text if Go refuses it."""
    compiled = _REGEX_CACHE.get(pattern)
    if compiled is not None:
        return compiled
    any_byte = _any_byte_escape(pattern)
    if any_byte >= 0:
        # Go stops at the first error it meets; RE2's own errors before \C come first, except
        # the missing ) or ] that cutting the pattern there creates
        try:
            _re2_compile(pattern[:any_byte])
        except _RegexError as err:
            if str(err).startswith("error parsing regexp: unexpected ): "):
                raise _go_regex_error("unexpected )", pattern) from None  # whose text is the whole pattern
            if not str(err).startswith("error parsing regexp: missing closing "):
                raise
        raise _go_regex_error("invalid escape sequence", "\\C")
    compiled = _re2_compile(pattern)
    if pattern.count("(") >= _GO_REGEX_MAX_HEIGHT // 2 and _go_tree_height(pattern) > _GO_REGEX_MAX_HEIGHT:
        raise _go_regex_error("expression nests too deeply", pattern)
    global _regex_cache_instructions
    size = compiled.programsize
    while _REGEX_CACHE and (len(_REGEX_CACHE) >= _REGEX_CACHE_ENTRIES
                            or _regex_cache_instructions + size > _REGEX_CACHE_INSTRUCTIONS):
        _regex_cache_instructions -= _REGEX_CACHE.pop(next(iter(_REGEX_CACHE))).programsize
    _REGEX_CACHE[pattern] = compiled
    _regex_cache_instructions += size
    return compiled


def _search(rx: Any, b: bytes, pos: int = 0) -> Any:
    """The leftmost match in b from pos, as Go finds it. RE2 tests empty-width assertions at
    every byte, so ``\\B`` can hold inside a multi-byte character, where Go never looks; such an
    empty match is skipped. (A match that consumes text always starts on a character.)"""
    while True:
        m = rx.search(b, pos)
        if m is None:
            return None
        st = m.start()
        if st == len(b) or not 0x80 <= b[st] < 0xC0 or m.end() != st:
            return m
        pos = st + 1
        while pos < len(b) and 0x80 <= b[pos] < 0xC0:
            pos += 1


def _utf8_width(b: bytes, pos: int) -> int:
    """The length of the UTF-8 sequence at b[pos] (b is well-formed UTF-8)."""
    lead = b[pos]
    return 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4


def _find_all(rx: Any, text: str, limit: int) -> list[str]:
    """Go's Regexp.FindAllString (allMatches): an empty match right after a previous match is
    skipped, and the search then moves on by one character."""
    b = _utf8(text)
    out: list[str] = []
    end = len(b)
    if limit < 0:
        limit = end + 1
    pos, prev_end = 0, -1
    while len(out) < limit and pos <= end:
        m = _search(rx, b, pos)
        if m is None:
            break
        st, en = m.span()
        accept = True
        if en == pos:  # an empty match at pos
            if st == prev_end:
                accept = False
            pos += _utf8_width(b, pos) if pos < end else 1
        else:
            pos = en
        prev_end = en
        if accept:
            out.append(b[st:en].decode("utf-8"))
    return out


# --------------------------------------------------------------------------------------------
# Source positions and compile error texts (cel-go common.Errors.ToDisplayString).
# --------------------------------------------------------------------------------------------


class _Source:
    def __init__(self, text: str) -> None:
        # cel-go normalizes nothing here, but counts columns in code points per line
        self.text = text
        self.line_starts = [0]
        for i, ch in enumerate(text):
            if ch == "\n":
                self.line_starts.append(i + 1)

    def location(self, offset: int) -> tuple[int, int]:
        """(line, 0-based column) of a code point offset; (-1, -1) for no location."""
        if offset < 0:
            return -1, -1
        lo, hi = 0, len(self.line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.line_starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, offset - self.line_starts[lo]

    def snippet(self, line: int) -> str | None:
        if line < 1 or line > len(self.line_starts):
            return None
        start = self.line_starts[line - 1]
        end = self.line_starts[line] - 1 if line < len(self.line_starts) else len(self.text)
        return self.text[start:end]


class _Errors:
    """Collected compile errors, displayed as cel-go displays them."""

    def __init__(self, src: _Source) -> None:
        self.src = src
        self.items: list[tuple[int, int, int, str]] = []  # (line, col, seq, message)

    def add(self, offset: int, message: str) -> None:
        line, col = self.src.location(offset)
        self.items.append((line, col, len(self.items), message))

    def __bool__(self) -> bool:
        return bool(self.items)

    def display(self) -> str:
        out = []
        for line, col, _, msg in sorted(self.items)[:100]:
            text = f"ERROR: <input>:{line}:{col + 1}: {msg}"
            snippet = self.src.snippet(line)
            if snippet is not None and len(snippet.encode("utf-8")) <= 16384:
                snippet = snippet.replace("\t", " ")
                marks = "".join("\uff0e" if ord(ch) > 0x7F else "." for ch in snippet[:col])
                at = snippet[col:col + 1]
                marks += "\uff3e" if at and ord(at) > 0x7F else "^"
                text += "\n | " + snippet + "\n | " + marks
            out.append(text)
        if len(self.items) > 100:
            out.append(f"{len(self.items) - 100} more errors were truncated")
        return "\n".join(out)


# --------------------------------------------------------------------------------------------
# Lexer (CEL.g4 lexer rules).
# --------------------------------------------------------------------------------------------


class _Tok:
    __slots__ = ("kind", "text", "pos")

    def __init__(self, kind: str, text: str, pos: int) -> None:
        self.kind = kind  # 'int' 'uint' 'float' 'string' 'bytes' 'ident' 'escident' 'eof' or the operator text
        self.text = text
        self.pos = pos

    def show(self) -> str:
        return "<EOF>" if self.kind == "eof" else self.text


class _SyntaxError(Exception):
    pass


_KEYWORDS = {"true", "false", "null", "in"}
_OPS2 = {"==", "!=", "<=", ">=", "&&", "||"}
_OPS1 = set("<>[]{}().,-!?:+*/%")
_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ESCIDENT_RE = re.compile(r"`[A-Za-z0-9_./ -]+`")
_NUM_RES = (
    ("float", re.compile(r"[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+|\.[0-9]+(?:[eE][+-]?[0-9]+)?")),
    ("uint", re.compile(r"0x[0-9a-fA-F]+[uU]|[0-9]+[uU]")),
    ("int", re.compile(r"0x[0-9a-fA-F]+|[0-9]+")),
)
_ESC_SEQ_RE = re.compile(r"\\(?:[abfnrtv\"'\\?`]|[0-3][0-7][0-7]|[xX][0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})")


def _lex_string(s: str, i: int) -> int | None:
    """End offset of a STRING token starting at i (after any b/B prefix), or None."""
    raw = s[i] in "rR"
    j = i + 1 if raw else i
    if j >= len(s) or s[j] not in "\"'":
        return None
    q = s[j]
    if s.startswith(q * 3, j):  # triple quoted: newlines allowed, the first closing triple ends it
        k = j + 3
        while k < len(s):
            if s.startswith(q * 3, k):
                return k + 3
            if s[k] == "\\" and not raw:
                m = _ESC_SEQ_RE.match(s, k)
                if m is None:
                    break
                k = m.end()
            else:
                k += 1
        # no closing triple: fall back to the single-quoted form ("" then an unterminated ")
    k = j + 1
    while k < len(s):
        ch = s[k]
        if ch == q:
            return k + 1
        if ch in "\n\r":
            return None
        if ch == "\\" and not raw:
            m = _ESC_SEQ_RE.match(s, k)
            if m is None:
                return None
            k = m.end()
        else:
            k += 1
    return None


def _lex(src: _Source) -> list[_Tok]:
    s = src.text
    n = len(s)
    i = 0
    toks: list[_Tok] = []
    while i < n:
        c = s[i]
        if c in " \t\r\n\f":
            i += 1
            continue
        if s.startswith("//", i):
            j = s.find("\n", i)
            i = n if j < 0 else j
            continue
        if c in _DIGITS or (c == "." and i + 1 < n and s[i + 1] in _DIGITS):
            best = None
            for kind, rx in _NUM_RES:
                m = rx.match(s, i)
                if m and (best is None or m.end() > best[1]):
                    best = (kind, m.end())
            toks.append(_Tok(best[0], s[i:best[1]], i))
            i = best[1]
            continue
        j = i + 1 if c in "bB" else i  # j: where the STRING rule starts (after a bytes prefix)
        if j < n and (s[j] in "\"'" or (s[j] in "rR" and j + 1 < n and s[j + 1] in "\"'")) and \
                (c in "\"'bBrR"):
            end = _lex_string(s, j)
            if end is None:
                bad = s[i:]
                stop = re.search(r"[\n\r]", bad)
                raise _SyntaxError((i, "Syntax error: token recognition error at: "
                                       f"'{bad[:stop.start()] if stop else bad}'"))
            toks.append(_Tok("bytes" if c in "bB" else "string", s[i:end], i))
            i = end
            continue
        m = _IDENT_RE.match(s, i)
        if m:
            word = m.group(0)
            toks.append(_Tok(word if word in _KEYWORDS else "ident", word, i))
            i = m.end()
            continue
        if c == "`":
            m = _ESCIDENT_RE.match(s, i)
            if m:
                toks.append(_Tok("escident", m.group(0), i))
                i = m.end()
                continue
        two = s[i:i + 2]
        if two in _OPS2:
            toks.append(_Tok(two, two, i))
            i += 2
            continue
        if c in _OPS1:
            toks.append(_Tok(c, c, i))
            i += 1
            continue
        raise _SyntaxError((i, f"Syntax error: token recognition error at: '{s[i:i + 2] if c in '|&=' else c}'"))
    toks.append(_Tok("eof", "", n))
    return toks


def _unescape(text: str, is_bytes: bool) -> str | bytes:
    """A STRING token's value (cel-go parser/unescape.go); ValueError with cel-go's text."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    raw = text[0] in "rR"
    if raw:
        text = text[1:]
    if len(text) >= 6 and (text.startswith('"""') or text.startswith("'''")):
        body = text[3:-3]
    else:
        body = text[1:-1]
    if raw or "\\" not in body:
        return body.encode("utf-8") if is_bytes else body
    out = bytearray()
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        if ch != "\\":
            out += ch.encode("utf-8")
            i += 1
            continue
        if i + 1 >= n:
            raise ValueError("unable to unescape string, found '\\' as last character")
        c = body[i + 1]
        i += 2
        simple = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92, "'": 39, '"': 34,
                  "`": 96, "?": 63}
        if c in simple:
            out.append(simple[c])
            continue
        if c in "xXuU":
            width = {"x": 2, "X": 2, "u": 4, "U": 8}[c]
            if is_bytes and c in "uU":
                raise ValueError("unable to unescape string")
            digits = body[i:i + width]
            if len(digits) < width or not re.fullmatch(r"[0-9a-fA-F]+", digits):
                raise ValueError("unable to unescape string")
            i += width
            v = int(digits, 16)
            if is_bytes:
                out.append(v)
            else:
                if v > 0x10FFFF or 0xD800 <= v <= 0xDFFF:
                    raise ValueError("invalid unicode code point")
                out += chr(v).encode("utf-8")
            continue
        if c in "0123":
            digits = body[i:i + 2]
            if len(digits) < 2 or not all(d in "01234567" for d in digits):
                raise ValueError("unable to unescape octal sequence in string")
            i += 2
            v = int(c + digits, 8)
            if is_bytes:
                out.append(v)
            else:
                out += chr(v).encode("utf-8")
            continue
        raise ValueError("unable to unescape string")
    return bytes(out) if is_bytes else out.decode("utf-8", errors="replace")


# --------------------------------------------------------------------------------------------
# Syntax tree. Macros are kept as their own node kinds (not expanded into generic
# comprehensions), but checked and costed as cel-go's expansions.
# --------------------------------------------------------------------------------------------


class _N:
    __slots__ = ("pos", "t")

    def __init__(self, pos: int) -> None:
        self.pos = pos
        self.t: Any = None


class _Lit(_N):
    __slots__ = ("value",)

    def __init__(self, pos: int, value: Any) -> None:
        super().__init__(pos)
        self.value = value


class _Ident(_N):
    __slots__ = ("name",)

    def __init__(self, pos: int, name: str) -> None:
        super().__init__(pos)
        self.name = name


class _Select(_N):
    __slots__ = ("operand", "field", "test", "qualified")

    def __init__(self, pos: int, operand: _N, field: str, test: bool = False) -> None:
        super().__init__(pos)
        self.operand = operand
        self.field = field
        self.test = test
        #: set by the checker when "a.b" names a declared identifier (e.g. kubernetes.Quantity)
        self.qualified: str | None = None


class _Call(_N):
    __slots__ = ("fn", "target", "args", "oids")

    def __init__(self, pos: int, fn: str, target: _N | None, args: list) -> None:
        super().__init__(pos)
        self.fn = fn
        self.target = target
        self.args = args
        self.oids: list[str] = []  # overloads the checker found applicable


class _Logic(_N):
    __slots__ = ("op", "terms")

    def __init__(self, pos: int, op: str, terms: list) -> None:
        super().__init__(pos)
        self.op = op
        self.terms = terms


class _Cond(_N):
    __slots__ = ("cond", "yes", "no")

    def __init__(self, pos: int, cond: _N, yes: _N, no: _N) -> None:
        super().__init__(pos)
        self.cond = cond
        self.yes = yes
        self.no = no


class _List(_N):
    __slots__ = ("elems",)

    def __init__(self, pos: int, elems: list) -> None:
        super().__init__(pos)
        self.elems = elems


class _Map(_N):
    __slots__ = ("entries",)

    def __init__(self, pos: int, entries: list) -> None:
        super().__init__(pos)
        self.entries = entries  # [(key, value)]


class _Comp(_N):
    """A macro: all/exists/exists_one/map/filter (one variable), their two-variable forms,
    transformList/transformMap/transformMapEntry, sortBy, and cel.bind (kind "bind": v1 is the
    variable, args = [init, body], rng unused)."""

    __slots__ = ("kind", "rng", "v1", "v2", "args")

    def __init__(self, pos: int, kind: str, rng: _N | None, v1: str, v2: str | None, args: list) -> None:
        super().__init__(pos)
        self.kind = kind
        self.rng = rng
        self.v1 = v1
        self.v2 = v2
        self.args = args


#: The operators of CEL.g4's relation, additive and multiplicative rules, loosest first.
_BINARY_LEVELS = (("<", "<=", ">", ">=", "==", "!=", "in"), ("+", "-"), ("*", "/", "%"))
_BINOPS = {"==": "_==_", "!=": "_!=_", "<": "_<_", "<=": "_<=_", ">": "_>_", ">=": "_>=_", "in": "@in",
           "+": "_+_", "-": "_-_", "*": "_*_", "/": "_/_", "%": "_%_"}
_EXPR_START = ("{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, "
               "STRING, BYTES, IDENTIFIER}")
_START_KINDS = {"[", "{", "(", ".", "-", "!", "true", "false", "null", "float", "int", "uint", "string",
                "bytes", "ident"}
_RESERVED = {"as", "break", "const", "continue", "else", "false", "for", "function", "if", "import", "in",
             "let", "loop", "package", "namespace", "null", "return", "true", "var", "void", "while"}
_ACCUMULATORS = {"__result__", "@result"}
_OPTIONAL_NOTE = "kschedctl does not implement CEL optional types"


class _Parser:
    """Recursive descent over CEL.g4, building the tree and expanding macros as cel-go does."""

    def __init__(self, src: _Source, errors: _Errors) -> None:
        self.src = src
        self.errors = errors
        self.toks = _lex(src)
        self.i = 0
        self.depth = 0

    # -- token helpers
    def peek(self, k: int = 0) -> _Tok:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def take(self) -> _Tok:
        t = self.toks[self.i]
        if t.kind != "eof":
            self.i += 1
        return t

    def syntax(self, tok: _Tok, message: str) -> NoReturn:
        raise _SyntaxError((tok.pos, "Syntax error: " + message))

    def expect(self, kind: str, expecting: str | None = None) -> _Tok:
        t = self.peek()
        if t.kind != kind:
            self.syntax(t, f"mismatched input '{t.show()}' expecting {expecting or repr(kind)}")
        return self.take()

    def parse(self) -> _N:
        e = self.expr()
        t = self.peek()
        if t.kind != "eof":
            word = "extraneous" if self.peek(1).kind == "eof" else "mismatched"
            self.syntax(t, f"{word} input '{t.show()}' expecting <EOF>")
        return e

    # -- grammar
    def expr(self) -> _N:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise _SyntaxError((-1, f"expression recursion limit exceeded: {_MAX_DEPTH}"))
        e = self.logic("||")
        if self.peek().kind == "?":
            q = self.take()
            yes = self.logic("||")
            self.expect(":", "':'")
            no = self.expr()
            e = _Cond(q.pos, e, yes, no)
        self.depth -= 1
        return e

    def logic(self, op: str) -> _N:
        sub = (lambda: self.logic("&&")) if op == "||" else self.binary
        first = sub()
        if self.peek().kind != op:
            return first
        pos = self.peek().pos
        terms = [first]
        while self.peek().kind == op:
            self.take()
            terms.append(sub())
        return _Logic(pos, op, terms)

    def binary(self, level: int = 0) -> _N:
        """The rules relation, additive and multiplicative (``level`` 0, 1, 2): each a
        left-associative chain of the next rule's expressions."""
        if level == len(_BINARY_LEVELS):
            return self.unary()
        ops = _BINARY_LEVELS[level]
        e = self.binary(level + 1)
        while self.peek().kind in ops:
            t = self.take()
            e = _Call(t.pos, _BINOPS[t.kind], None, [e, self.binary(level + 1)])
        return e

    def unary(self) -> _N:
        t = self.peek()
        if t.kind not in ("!", "-"):
            return self.member()
        count = 0
        while self.peek().kind == t.kind:
            self.take()
            count += 1
        if t.kind == "-" and count == 1 and self.peek().kind in ("int", "float"):
            # CEL.g4 reads "-1" as a signed literal, not as a negation
            return self.member(signed=t)
        e = self.member()
        if count % 2 == 0:
            return e
        return _Call(t.pos, "!_" if t.kind == "!" else "-_", None, [e])

    def member(self, signed: _Tok | None = None) -> _N:
        e = self.primary(signed)
        while True:
            t = self.peek()
            if t.kind == ".":
                self.take()
                self.optional_marker(".?", t.pos)
                f = self.peek()
                if f.kind == "escident":
                    self.errors.add(f.pos, "unsupported syntax: '`'")
                    self.take()
                    e = _Select(t.pos, e, f.text[1:-1])
                    continue
                if f.kind != "ident":
                    self.syntax(f, f"mismatched input '{f.show()}' expecting IDENTIFIER")
                self.take()
                if self.peek().kind == "(":
                    op = self.take()
                    args = self.call_args()
                    e = self.receiver_call(op.pos, f.text, e, args)
                else:
                    e = _Select(t.pos, e, f.text)
            elif t.kind == "[":
                self.take()
                self.optional_marker("[?", t.pos)
                idx = self.expr()
                self.expect("]", "']'")
                e = _Call(t.pos, "_[_]", None, [e, idx])
            else:
                return e

    def call_args(self) -> list:
        args: list = []
        if self.peek().kind == ")":
            self.take()
            return args
        while True:
            args.append(self.expr())
            t = self.peek()
            if t.kind == ")":
                self.take()
                return args
            if t.kind != ",":
                self.syntax(t, f"mismatched input '{t.show()}' expecting {{')', ','}}")
            self.take()

    def primary(self, signed: _Tok | None = None) -> _N:
        t = self.peek()
        k = t.kind
        if signed is not None or k in ("int", "uint", "float", "string", "bytes", "true", "false", "null"):
            self.take()
            return self.literal(t, signed)
        if k == "." or k == "ident":
            self.take()
            dot = ""
            if k == ".":
                t = self.peek()
                if t.kind != "ident":
                    self.syntax(t, f"no viable alternative at input '.{t.show()}'")
                self.take()
                dot = "."
            name = t.text
            if self.peek().kind == "(":
                op = self.take()
                args = self.call_args()
                if name in _RESERVED:
                    self.errors.add(t.pos, f"reserved identifier: {name}")
                return self.global_call(op.pos, dot + name, args)
            if self.peek().kind == "{":
                self.errors.add(self.peek().pos, f"undeclared reference to '{dot + name}' (in container ''): "
                                                 "kschedctl does not implement message construction")
                self.skip_braces()
                return _Lit(t.pos, None)
            if name in _RESERVED:
                self.errors.add(t.pos, f"reserved identifier: {name}")
            return _Ident(t.pos, dot + name)
        if k == "(":
            self.take()
            e = self.expr()
            self.expect(")", "')'")
            return e
        if k == "[":
            self.take()
            return _List(t.pos, self.aggregate("]", self.expr))
        if k == "{":
            self.take()
            return _Map(t.pos, self.aggregate("}", self.map_entry))
        if k != "eof" and self.peek(1).kind in _START_KINDS:
            self.syntax(t, f"extraneous input '{t.show()}' expecting {_EXPR_START}")
        self.syntax(t, f"mismatched input '{t.show()}' expecting {_EXPR_START}")

    def optional_marker(self, syntax: str, pos: int | None = None) -> None:
        """Report and skip the '?' of optional syntax, which kschedctl does not implement; parsing
        goes on so that later errors are reported too."""
        q = self.peek()
        if q.kind == "?":
            self.errors.add(q.pos if pos is None else pos, f"unsupported syntax '{syntax}': {_OPTIONAL_NOTE}")
            self.take()

    def aggregate(self, close: str, element: Callable[[], Any]) -> list:
        """The elements of a list or map literal, after its opening bracket through ``close``
        (unlike call arguments, a trailing comma is allowed)."""
        items: list = []
        while self.peek().kind != close:
            self.optional_marker("?")
            items.append(element())
            nxt = self.peek()
            if nxt.kind == ",":
                self.take()
            elif nxt.kind != close:
                self.syntax(nxt, f"mismatched input '{nxt.show()}' expecting {{'{close}', ','}}")
        self.take()
        return items

    def map_entry(self) -> tuple[_N, _N]:
        key = self.expr()
        self.expect(":", "':'")
        return key, self.expr()

    def skip_braces(self) -> None:
        depth = 0
        while True:
            t = self.take()
            if t.kind == "{":
                depth += 1
            elif t.kind == "}":
                depth -= 1
                if depth == 0:
                    return
            elif t.kind == "eof":
                self.syntax(t, "mismatched input '<EOF>' expecting '}'")

    def literal(self, t: _Tok, signed: _Tok | None) -> _N:
        pos = signed.pos if signed is not None else t.pos
        k = t.kind
        if k == "int":
            text = ("-" if signed is not None else "") + t.text
            v = int(text.replace("0x", ""), 16) if "0x" in text else _parse_bounded(text, _MIN_INT, _MAX_INT)
            if v is None or not _MIN_INT <= v <= _MAX_INT:
                self.errors.add(pos, "invalid int literal")
                v = 0
            return _Lit(pos, v)
        if k == "uint":
            text = t.text[:-1]
            v = int(text[2:], 16) if text.startswith("0x") else _parse_bounded(text, 0, _MAX_UINT)
            if v is None or v > _MAX_UINT:
                self.errors.add(pos, "invalid uint literal")
                v = 0
            return _Lit(pos, _UInt(v))
        if k == "float":
            f = float(t.text)
            if math.isinf(f):
                self.errors.add(pos, "invalid double literal")
            return _Lit(pos, -f if signed is not None else f)
        if k in ("string", "bytes"):
            try:
                return _Lit(pos, _unescape(t.text[1:] if k == "bytes" else t.text, k == "bytes"))
            except ValueError as err:
                self.errors.add(pos, str(err))
                return _Lit(pos, "")
        return _Lit(pos, {"true": True, "false": False, "null": None}[k])

    # -- macros (cel-go parser/macro.go, ext/bindings.go, ext/comprehensions.go, ext/lists.go)
    def global_call(self, pos: int, name: str, args: list) -> _N:
        if name == "has" and len(args) == 1:
            arg = args[0]
            if isinstance(arg, _Select) and not arg.test:
                return _Select(pos, arg.operand, arg.field, True)
            self.errors.add(arg.pos, "invalid argument to has() macro")
            return _Lit(pos, False)
        return _Call(pos, name, None, args)

    def ident_arg(self, arg: _N, message: str) -> str | None:
        if isinstance(arg, _Ident) and not arg.name.startswith("."):
            if arg.name in _ACCUMULATORS:
                self.errors.add(arg.pos, "iteration variable overwrites accumulator variable")
                return None
            return arg.name
        self.errors.add(arg.pos, message)
        return None

    def receiver_call(self, pos: int, name: str, target: _N, args: list) -> _N:
        n = len(args)
        if name == "bind" and n == 3 and isinstance(target, _Ident) and target.name == "cel":
            if not isinstance(args[0], _Ident) or args[0].name.startswith("."):
                self.errors.add(args[0].pos, "cel.bind() variable names must be simple identifiers")
                return _Lit(pos, None)
            return _Comp(pos, "bind", None, args[0].name, None, [args[1], args[2]])
        if n == 2 and name in ("all", "exists", "exists_one"):
            v = self.ident_arg(args[0], "argument must be a simple name")
            return _Comp(pos, name, target, v or "", None, [args[1]])
        if (name == "map" and n in (2, 3)) or (name == "filter" and n == 2):
            v = self.ident_arg(args[0], "argument is not an identifier")
            return _Comp(pos, name, target, v or "", None, args[1:])
        if (n == 3 and name in ("all", "exists", "existsOne", "exists_one")) or \
                (n in (3, 4) and name in ("transformList", "transformMap", "transformMapEntry")):
            v1 = self.ident_arg(args[0], "argument must be a simple name")
            v2 = self.ident_arg(args[1], "argument must be a simple name")
            if v1 is not None and v1 == v2:
                self.errors.add(args[1].pos, f"duplicate variable name: {v1}")
            kind = {"all": "all2", "exists": "exists2", "existsOne": "exists_one2",
                    "exists_one": "exists_one2"}.get(name, name)
            return _Comp(pos, kind, target, v1 or "", v2 or "", args[2:])
        if name == "sortBy" and n == 2:
            if not isinstance(target, (_List, _Select, _Ident, _Comp, _Call, _Logic, _Cond)):
                self.errors.add(target.pos, "sortBy can only be applied to a list, identifier, comprehension, "
                                            "call or select expression")
            v = self.ident_arg(args[0], "argument is not an identifier")
            return _Comp(pos, "sortBy", target, v or "", None, [args[1]])
        return _Call(pos, name, target, args)


def _visit_depth(root: _N) -> int:
    """Nesting depth as cel-go's parser visitor counts it (operators, selects, calls, index),
    computed without recursion: the checker and evaluator recurse on this depth."""
    best = 0
    stack = [(root, 0)]
    while stack:
        node, d = stack.pop()
        children: list = []
        if isinstance(node, _Select):
            d += 1
            children = [node.operand]
        elif isinstance(node, _Call):
            if node.target is not None or node.fn.startswith("_") or node.fn == "@in":
                d += 1
            children = ([node.target] if node.target is not None else []) + list(node.args)
        elif isinstance(node, _Cond):
            d += 1
            children = [node.cond, node.yes, node.no]
        elif isinstance(node, _Logic):
            children = list(node.terms)
        elif isinstance(node, _List):
            children = list(node.elems)
        elif isinstance(node, _Map):
            children = [x for kv in node.entries for x in kv]
        elif isinstance(node, _Comp):
            d += 1
            children = ([node.rng] if node.rng is not None else []) + list(node.args)
        best = max(best, d)
        stack.extend((c, d) for c in children)
    return best


# --------------------------------------------------------------------------------------------
# Types and the checker (semantics of cel-go checker/checker.go and checker/types.go).
# --------------------------------------------------------------------------------------------


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


def _exact(a: _T, b: _T) -> bool:
    if a is b:
        return True
    if a.kind != b.kind or a.name != b.name or len(a.params) != len(b.params):
        return False
    return all(_exact(x, y) for x, y in zip(a.params, b.params))


def _is_dyn(t: _T) -> bool:
    return t.kind == "dyn" or t.kind == "any"


def _subst(m: dict, t: _T, to_dyn: bool) -> _T:
    if t.kind == "tparam":
        s = m.get(t.name)
        if s is not None:
            return _subst(m, s, to_dyn)
        return _DYN if to_dyn else t
    if t.params:
        return _T(t.kind, t.name, tuple(_subst(m, p, to_dyn) for p in t.params))
    return t


def _less_specific(t1: _T, t2: _T) -> bool:
    """isEqualOrLessSpecific."""
    if _is_dyn(t1) or t1.kind == "tparam":
        return True
    if _is_dyn(t2) or t2.kind == "tparam":
        return False
    if t1.kind != t2.kind:
        return False
    if t1.kind in ("opaque", "list", "map"):
        if t1.name != t2.name or len(t1.params) != len(t2.params):
            return False
        return all(_less_specific(a, b) for a, b in zip(t1.params, t2.params))
    if t1.kind == "type":
        return True
    return _exact(t1, t2)


def _most_general(t1: _T, t2: _T) -> _T:
    return t1 if _less_specific(t1, t2) else t2


def _not_referenced(m: dict, t: _T, within: _T) -> bool:
    """The occurs check of unification."""
    if _exact(t, within):
        return False
    if within.kind == "tparam":
        s = m.get(within.name)
        return True if s is None else _not_referenced(m, t, s)
    return all(_not_referenced(m, t, p) for p in within.params)


def _assignable_from(t: _T, frm: _T) -> bool:
    """types.Type.IsAssignableType: t accepts frm."""
    if t is frm or t.kind in ("dyn", "any", "tparam"):
        return True
    if t.kind != frm.kind or t.name != frm.name or len(t.params) != len(frm.params):
        return False
    return all(_assignable_from(a, b) for a, b in zip(t.params, frm.params))


def _nullable(t: _T) -> bool:
    return t.kind in ("opaque", "struct", "any", "null", "dyn", "tparam")


def _valid_sub(m: dict, t1: _T, t2: _T) -> tuple[bool, bool]:
    """isValidTypeSubstitution(t1, t2) with t2 a type parameter: (valid, t2 had a substitution)."""
    if t1.kind == t2.kind and _exact(t1, t2):
        return True, True
    sub = m.get(t2.name)
    if sub is not None:
        if t1.kind == sub.kind and _exact(t1, sub):
            return True, True
        if _assign(m, t1, sub):
            new = _most_general(t1, sub)
            if _not_referenced(m, t2, new):
                m[t2.name] = new
            return True, True
        return False, True
    if _not_referenced(m, t2, t1):
        m[t2.name] = t1
        return True, False
    return False, False


def _assign(m: dict, t1: _T, t2: _T) -> bool:
    """internalIsAssignable: may t1 be used where t2 is expected (updating m)."""
    if t2.kind == "tparam":
        valid, had = _valid_sub(m, t1, t2)
        if valid:
            return True
        if had:
            return False
    if t1.kind == "tparam":
        return _valid_sub(m, t2, t1)[0]
    if t1.kind in ("dyn", "any", "error") or t2.kind in ("dyn", "any", "error"):
        return True
    if t1.kind == "null":
        return _nullable(t2)
    if t2.kind == "null":
        return _nullable(t1)
    if t1.kind in _PRIMS or t1.kind == "struct":
        return _assignable_from(t2, t1)
    if t1.kind == "type":
        return t2.kind == "type"
    if t1.kind in ("list", "map", "opaque"):
        return t1.kind == t2.kind and t1.name == t2.name and len(t1.params) == len(t2.params) and \
            all(_assign(m, a, b) for a, b in zip(t1.params, t2.params))
    return False


def _walk(root: _N) -> list[_N]:
    out: list[_N] = []
    stack = [root]
    while stack:
        n = stack.pop()
        out.append(n)
        if isinstance(n, _Select):
            stack.append(n.operand)
        elif isinstance(n, _Call):
            if n.target is not None:
                stack.append(n.target)
            stack.extend(n.args)
        elif isinstance(n, _Logic):
            stack.extend(n.terms)
        elif isinstance(n, _Cond):
            stack.extend((n.cond, n.yes, n.no))
        elif isinstance(n, _List):
            stack.extend(n.elems)
        elif isinstance(n, _Map):
            stack.extend(x for kv in n.entries for x in kv)
        elif isinstance(n, _Comp):
            if n.rng is not None:
                stack.append(n.rng)
            stack.extend(n.args)
    return out


def _qualified_name(e: _N) -> str | None:
    """containers.ToQualifiedName: "a.b.c" for a chain of identifiers and selects."""
    if isinstance(e, _Ident):
        return e.name.lstrip(".")
    if isinstance(e, _Select) and not e.test:
        prefix = _qualified_name(e.operand)
        return None if prefix is None else prefix + "." + e.field
    return None


class _Checker:
    def __init__(self, errors: _Errors) -> None:
        self.errors = errors
        self.m: dict[str, _T] = {}
        self.nvar = 0
        self.scopes: list[dict[str, _T]] = []

    def fresh(self) -> _T:
        self.nvar += 1
        return _tp(f"_var{self.nvar - 1}")

    def assignable(self, t1: _T, t2: _T) -> bool:
        m = dict(self.m)
        if _assign(m, t1, t2):
            self.m = m
            return True
        return False

    def sub(self, t: _T) -> _T:
        return _subst(self.m, t, False)

    def lookup(self, name: str) -> _T | None:
        if not name.startswith("."):
            for scope in reversed(self.scopes):
                if name in scope:
                    return scope[name]
        return _GLOBAL_IDENTS.get(name.lstrip("."))

    def undeclared(self, pos: int, name: str) -> None:
        if _unsupported(name):
            self.errors.add(pos, f"undeclared reference to '{name}' (in container ''): "
                                 "kschedctl does not implement this Kubernetes CEL function or type")
        else:
            self.errors.add(pos, f"undeclared reference to '{name}' (in container '')")

    def check(self, e: _N) -> _T:
        t = self._check(e)
        e.t = t
        return t

    def _check(self, e: _N) -> _T:
        if isinstance(e, _Lit):
            v = e.value
            if v is None:
                return _NULL
            return {bool: _BOOL, int: _INT, _UInt: _UINT, float: _DOUBLE, str: _STRING,
                    bytes: _BYTES}[type(v)]
        if isinstance(e, _Ident):
            t = self.lookup(e.name)
            if t is None:
                self.undeclared(e.pos, e.name.lstrip("."))
                return _ERR
            return t
        if isinstance(e, _Select):
            return self.check_select(e)
        if isinstance(e, _Call):
            return self.check_call(e)
        if isinstance(e, _Logic):
            bad = False
            for term in e.terms:
                tt = self.check(term)
                if not self.assignable(tt, _BOOL):
                    self.errors.add(term.pos, f"expected type 'bool' but found '{_fmt_type(self.sub(tt))}'")
                    bad = True
            return _ERR if bad else _BOOL
        if isinstance(e, _Cond):
            types = [self.check(x) for x in (e.cond, e.yes, e.no)]
            return self.resolve(e, "_?_:_", None, types) or _ERR
        if isinstance(e, _List):
            elem = None
            for x in e.elems:
                elem = self.join(elem, self.check(x))
            return _list(elem if elem is not None else self.fresh())
        if isinstance(e, _Map):
            kt = vt = None
            for k, v in e.entries:
                kt = self.join(kt, self.check(k))
                vt = self.join(vt, self.check(v))
            if kt is None:
                return _map(self.fresh(), self.fresh())
            return _map(kt, vt)
        if isinstance(e, _Comp):
            return self.check_comp(e)
        raise AssertionError(f"unexpected node {e!r}")

    def join(self, prev: _T | None, cur: _T) -> _T:
        if prev is None:
            return cur
        if self.assignable(prev, cur):
            return _most_general(prev, cur)
        return _DYN  # mixed literals type-check as dyn; the homogeneity validator reports them

    def check_select(self, e: _Select) -> _T:
        if not e.test:
            q = _qualified_name(e)
            if q is not None and "." in q and q in _GLOBAL_IDENTS:
                e.qualified = q
                return _GLOBAL_IDENTS[q]
        ot = self.sub(self.check(e.operand))
        k = ot.kind
        if k == "map":
            rt = ot.params[1]
        elif k == "struct":
            fields = _STRUCT_FIELDS.get(ot.name, {})
            if e.field in fields:
                rt = fields[e.field]
            else:
                self.errors.add(e.pos, f"undefined field '{e.field}'")
                rt = _ERR
        elif k == "tparam":
            self.assignable(_DYN, ot)
            rt = _DYN
        else:
            if k not in ("dyn", "any", "error"):
                self.errors.add(e.pos, f"type '{_fmt_type(ot)}' does not support field selection")
            rt = _DYN
        return _BOOL if e.test else self.sub(rt)

    def check_call(self, e: _Call) -> _T:
        if e.target is not None:
            prefix = _qualified_name(e.target)
            if prefix is not None:
                q = prefix + "." + e.fn
                if q in _DECLS:  # a namespaced global function such as sets.contains
                    e.fn, e.target = q, None
                elif _unsupported(q) or prefix in ("optional", "format"):
                    self.undeclared(e.pos, q)
                    return _ERR
        arg_types = [self.check(a) for a in e.args]
        if e.target is None:
            if e.fn not in _DECLS:
                self.undeclared(e.pos, e.fn.lstrip("."))
                return _ERR
            return self.resolve(e, e.fn, None, arg_types) or _ERR
        target_t = self.check(e.target)
        if e.fn not in _DECLS:
            self.undeclared(e.pos, e.fn)
            return _ERR
        return self.resolve(e, e.fn, target_t, arg_types) or _ERR

    def resolve(self, e: _N, fn: str, target: _T | None, args: list[_T]) -> _T | None:
        """Overload resolution (resolveOverload): the result type, or None after an error."""
        arg_types = ([target] if target is not None else []) + args
        result: _T | None = None
        oids: list[str] = []
        for ov in _DECLS[fn]:
            if ov.member != (target is not None) or len(ov.params) != len(arg_types):
                continue
            params, res = ov.params, ov.result
            if ov.tparams:
                inst = {name: self.fresh() for name in ov.tparams}
                params = tuple(_subst(inst, p, False) for p in params)
                res = _subst(inst, res, False)
            m = dict(self.m)
            if all(_assign(m, a, p) for a, p in zip(arg_types, params)):
                self.m = m
                oids.append(ov.oid)
                rt = _subst(self.m, res, False)
                if result is None:
                    result = rt
                elif not _is_dyn(result) and not _exact(rt, result):
                    result = _DYN
        if result is None:
            shown = [_fmt_type(_subst(self.m, t, True)) for t in arg_types]
            sig = (shown[0] + ".(" + ", ".join(shown[1:]) + ")") if target is not None else \
                "(" + ", ".join(shown) + ")"
            self.errors.add(e.pos, f"found no matching overload for '{fn}' applied to '{sig}'")
            return None
        if isinstance(e, _Call):
            e.oids = oids
        return result

    def range_vars(self, e: _Comp, two: bool) -> tuple[_T, _T | None]:
        rt = self.sub(self.check(e.rng))
        if rt.kind == "list":
            return (_INT, rt.params[0]) if two else (rt.params[0], None)
        if rt.kind == "map":
            return rt.params[0], (rt.params[1] if two else None)
        if rt.kind in ("dyn", "any", "error", "tparam"):
            self.assignable(_DYN, rt)
            return _DYN, (_DYN if two else None)
        self.errors.add(e.rng.pos, f"expression of type '{_fmt_type(rt)}' cannot be range of a comprehension "
                                   "(must be list, map, or dynamic)")
        return _ERR, (_ERR if two else None)

    def in_scope(self, names: dict[str, _T], node: _N) -> _T:
        self.scopes.append(names)
        try:
            return self.check(node)
        finally:
            self.scopes.pop()

    def check_comp(self, e: _Comp) -> _T:
        k = e.kind
        if k == "bind":
            init_t = self.check(e.args[0])
            return self.in_scope({e.v1: init_t}, e.args[1])
        two = k in ("all2", "exists2", "exists_one2", "transformList", "transformMap", "transformMapEntry")
        t1, t2 = self.range_vars(e, two)
        names = {e.v1: t1}
        if two:
            names[e.v2] = t2
        if k in ("all", "exists", "all2", "exists2"):
            pt = self.in_scope(names, e.args[0])
            if not self.assignable(pt, _BOOL):
                self.errors.add(e.args[0].pos, f"expected type 'bool' but found '{_fmt_type(self.sub(pt))}'")
            return _BOOL
        if k in ("exists_one", "exists_one2"):
            pt = self.in_scope(names, e.args[0])
            self.resolve(e, "_?_:_", None, [pt, _INT, _INT])
            return _BOOL
        if k in ("map", "transformList"):
            if len(e.args) == 2:
                ft = self.in_scope(names, e.args[0])
                vt = self.in_scope(names, e.args[1])
                self.resolve(e, "_?_:_", None, [ft, _list(vt), _list(vt)])
            else:
                vt = self.in_scope(names, e.args[0])
            return _list(self.sub(vt))
        if k == "filter":
            pt = self.in_scope(names, e.args[0])
            self.resolve(e, "_?_:_", None, [pt, _list(t1), _list(t1)])
            return _list(self.sub(t1))
        if k in ("transformMap", "transformMapEntry"):
            accu = _map(self.fresh(), self.fresh())
            if len(e.args) == 2:
                ft = self.in_scope(names, e.args[0])
                self.resolve(e, "_?_:_", None, [ft, accu, accu])
            xt = self.in_scope(names, e.args[-1])
            ins = [accu, t1, xt] if k == "transformMap" else [accu, xt]
            rt = self.resolve(e, "cel.@mapInsert", None, ins)
            return self.sub(rt) if rt is not None else _ERR
        if k == "sortBy":
            lt = self.sub(self.check(e.rng))
            elem = lt.params[0] if lt.kind == "list" else _DYN
            if lt.kind not in ("list", "dyn", "any", "error", "tparam"):
                self.errors.add(e.rng.pos, f"expression of type '{_fmt_type(lt)}' cannot be range of a "
                                           "comprehension (must be list, map, or dynamic)")
            kt = self.in_scope({e.v1: elem}, e.args[0])
            rt = self.resolve(e, "@sortByAssociatedKeys", lt, [_list(kt)])
            return self.sub(rt) if rt is not None else _ERR
        raise AssertionError(k)

    def finish(self, root: _N) -> list[_N]:
        nodes = _walk(root)
        for n in nodes:
            if n.t is not None:
                n.t = _subst(self.m, n.t, True)
        return nodes


def _validate(nodes: list[_N], errors: _Errors) -> None:
    """The AST validators of the k8s base env that concern selectors."""
    for n in nodes:
        if isinstance(n, _List) and len(n.elems) > 1:
            first = n.elems[0].t
            for x in n.elems[1:]:
                if not _exact(first, x.t):
                    errors.add(x.pos, f"expected type '{_fmt_type(first)}' but found '{_fmt_type(x.t)}'")
                    break
        elif isinstance(n, _Map) and len(n.entries) > 1:
            k0, v0 = n.entries[0][0].t, n.entries[0][1].t
            for k, v in n.entries[1:]:
                if not _exact(k0, k.t):
                    errors.add(k.pos, f"expected type '{_fmt_type(k0)}' but found '{_fmt_type(k.t)}'")
                if not _exact(v0, v.t):
                    errors.add(v.pos, f"expected type '{_fmt_type(v0)}' but found '{_fmt_type(v.t)}'")
        elif isinstance(n, _Call) and n.fn == "matches" and n.args and isinstance(n.args[0], _Lit) \
                and isinstance(n.args[0].value, str):
            try:
                _regex(n.args[0].value)
            except _RegexError:
                errors.add(n.args[0].pos, "invalid matches argument")


# --------------------------------------------------------------------------------------------
# Runtime operations (cel-go common/types semantics). Errors are raised as CelError.
# --------------------------------------------------------------------------------------------

_MISSING = object()
_NUMERIC = (int, _UInt, float)
_F_MIN_INT = -9.223372036854775808e18  # float64(math.MinInt64)
_F_MAX_INT = 9.223372036854775808e18   # float64(math.MaxInt64) rounds up to 2^63
_F_MAX_UINT = 1.8446744073709551616e19


def _cmp_double(d: float, n: int) -> int:
    """A double against an int or uint: outside the integer type's range the double wins outright;
    inside it, cel-go converts the integer to a double (so 2^53+1 == 2^53.0)."""
    if type(n) is _UInt:
        lo, hi = 0, _F_MAX_UINT
    else:
        lo, hi = _F_MIN_INT, _F_MAX_INT
    if d < lo:
        return -1
    if d > hi:
        return 1
    fn = float(n)
    return (d > fn) - (d < fn)


def _num_eq(a: Any, b: Any) -> bool:
    """Heterogeneous numeric equality (Int/Uint/Double.Equal)."""
    ta, tb = type(a), type(b)
    if ta is float:
        if a != a or (tb is float and b != b):
            return False
        if tb is float:
            return a == b
        return _cmp_double(a, b) == 0
    if tb is float:
        if b != b:
            return False
        return _cmp_double(b, a) == 0
    return int(a) == int(b)


def _eq(a: Any, b: Any) -> bool:
    """types.Equal: null-aware, heterogeneous (false across types), numeric across int/uint/double.
    Quantity and Semver refuse other operands with 'no such overload', as upstream."""
    if a is None or b is None:
        return a is b
    ta, tb = type(a), type(b)
    if ta is tb:
        if ta is str or ta is int or ta is bool or ta is float or ta is bytes or ta is _UInt:
            return a == b
        if ta is list:
            return _list_eq(a, b)
        if ta is Quantity:
            if b.ptr:
                raise CelError("no such overload")
            return _qcmp(a.m, a.e, b.m, b.e) == 0
        if ta is Semver:
            return a.cmp(b) == 0
        if ta is CelType:
            return a.name == b.name
        if isinstance(a, dict):
            return _map_eq(a, b)
        return False
    if ta in _NUMERIC and tb in _NUMERIC:
        return _num_eq(a, b)
    if isinstance(a, dict) and isinstance(b, dict):
        return _map_eq(a, b)
    if ta is Quantity or ta is Semver:
        raise CelError("no such overload")
    return False


def _eq_quiet(a: Any, b: Any) -> bool | None:
    """Equality where an error counts as 'not false' (list/map Equal, Contains): None on error."""
    try:
        return _eq(a, b)
    except CelError:
        return None


def _list_eq(a: list, b: list) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if _eq_quiet(x, y) is False:
            return False
    return True


def _map_find(d: dict, k: Any) -> Any:
    """traits.Mapper.Find: the value or _MISSING (numeric keys match across int/uint/double,
    never bools)."""
    if type(k) is str:
        return dict.get(d, k, _MISSING)
    try:
        v = dict.get(d, k, _MISSING)
    except TypeError:
        return _MISSING
    if v is _MISSING:
        return _MISSING
    kb = type(k) is bool
    for sk, sv in d.items():
        if (type(sk) is bool) == kb and type(sk) is not str and sk == k:
            return sv
    return _MISSING


def _map_eq(a: dict, b: dict) -> bool:
    if len(a) != len(b):
        return False
    for k, v in a.items():
        w = _map_find(b, k)
        if w is _MISSING:
            return False
        if _eq_quiet(v, w) is False:
            return False
    return True


def _in(x: Any, c: Any) -> bool:
    if type(c) is list:
        for e in c:
            if _eq_quiet(x, e):
                return True
        return False
    if isinstance(c, dict):
        return _map_find(c, x) is not _MISSING
    raise _no_overload()


def _cmp(a: Any, b: Any) -> int:
    """traits.Comparer.Compare with cross-type numeric ordering."""
    ta, tb = type(a), type(b)
    if ta is tb:
        if ta is int or ta is str or ta is _UInt or ta is bool or ta is bytes:
            return (a > b) - (a < b)
        if ta is float:
            if a != a or b != b:
                raise CelError("NaN values cannot be ordered")
            return (a > b) - (a < b)
        raise _no_overload()
    if ta in _NUMERIC and tb in _NUMERIC:
        if ta is float or tb is float:
            if (ta is float and a != a) or (tb is float and b != b):
                raise CelError("NaN values cannot be ordered")
            if ta is float:
                return _cmp_double(a, b)
            return -_cmp_double(b, a)
        return (a > b) - (a < b)  # int vs uint: exact, as compareIntUint
    raise _no_overload()


def _lt(a: Any, b: Any) -> bool:
    if type(a) is int and type(b) is int:
        return a < b
    return _cmp(a, b) < 0


def _le(a: Any, b: Any) -> bool:
    if type(a) is int and type(b) is int:
        return a <= b
    return _cmp(a, b) <= 0


def _gt(a: Any, b: Any) -> bool:
    if type(a) is int and type(b) is int:
        return a > b
    return _cmp(a, b) > 0


def _ge(a: Any, b: Any) -> bool:
    if type(a) is int and type(b) is int:
        return a >= b
    return _cmp(a, b) >= 0


def _int_result(v: int) -> int:
    if _MIN_INT <= v <= _MAX_INT:
        return v
    raise CelError("integer overflow")


def _uint_result(v: int) -> _UInt:
    if 0 <= v <= _MAX_UINT:
        return _UInt(v)
    raise CelError("unsigned integer overflow")


def _arithmetic(op: Callable[[Any, Any], Any], unchecked: tuple) -> Callable[[Any, Any], Any]:
    """``+ - *`` on two operands of one type: int and uint results must stay in range, the
    ``unchecked`` types' results need no check."""
    def arithmetic(a: Any, b: Any) -> Any:
        ta = type(a)
        if ta is not type(b):
            raise _no_overload()
        if ta is int:
            return _int_result(op(a, b))
        if ta in unchecked:
            return op(a, b)
        if ta is _UInt:
            return _uint_result(op(a, b))
        raise _no_overload()
    return arithmetic


_add = _arithmetic(operator.add, (str, float, bytes, list))
_sub = _arithmetic(operator.sub, (float,))
_mul = _arithmetic(operator.mul, (float,))


def _go_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _go_mod(a: int, b: int) -> int:
    # Go's remainder takes the dividend's sign; Python's takes the divisor's
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def _float_div(a: float, b: float) -> float:
    if b == 0:  # IEEE: Go yields ±Inf or NaN where Python raises
        if a == 0 or a != a:
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def _division(by_zero: str, on_int: Callable[[int, int], int], on_uint: Callable[[int, int], int],
              on_float: Callable[[float, float], float] | None) -> Callable[[Any, Any], Any]:
    """``/`` and ``%``: a zero int or uint divisor is an error (``by_zero``), and so is MinInt64
    by -1, which overflows int64; doubles follow IEEE (``%`` has none, ``on_float`` None)."""
    def division(a: Any, b: Any) -> Any:
        ta = type(a)
        if ta is not type(b):
            raise _no_overload()
        if ta is int:
            if b == 0:
                raise CelError(by_zero)
            if a == _MIN_INT and b == -1:
                raise CelError("integer overflow")
            return on_int(a, b)
        if ta is _UInt:
            if b == 0:
                raise CelError(by_zero)
            return _UInt(on_uint(a, b))
        if ta is float and on_float is not None:
            return on_float(a, b)
        raise _no_overload()
    return division


_div = _division("division by zero", _go_div, operator.floordiv, _float_div)
_mod = _division("modulus by zero", _go_mod, operator.mod, None)


def _neg(a: Any) -> Any:
    t = type(a)
    if t is int:
        return _int_result(-a)
    if t is float:
        return -a
    raise _no_overload()


def _not(a: Any) -> bool:
    if a is True:
        return False
    if a is False:
        return True
    raise _no_overload()


def _size(v: Any) -> int:
    t = type(v)
    if t is str or t is bytes or t is list or isinstance(v, dict):
        return len(v)
    raise _no_overload_sig("size", (v,))


def _runtime_type(v: Any) -> CelType:
    return _TYPE_VALUES.get(_type_name(v)) or CelType(_type_name(v))


def _conv_error(v: Any, target: str) -> CelError:
    return CelError(f"type conversion error from '{_type_name(v)}' to '{target}'")


def _to_int(v: Any) -> int:
    t = type(v)
    if t is int:
        return v
    if t is _UInt:
        return _int_result(int(v))
    if t is float:
        if v != v or v in (math.inf, -math.inf) or v <= _F_MIN_INT or v >= _F_MAX_INT:
            raise CelError("integer overflow")
        return int(v)
    if t is str:
        if _INT_RE.match(v) and _parse_bounded(v, _MIN_INT, _MAX_INT) is not None:
            return _parse_bounded(v, _MIN_INT, _MAX_INT)
        raise _conv_error(v, "int")
    raise _no_overload_sig("int", (v,))


def _to_uint(v: Any) -> _UInt:
    t = type(v)
    if t is _UInt:
        return v
    if t is int:
        if v < 0:
            raise CelError("unsigned integer overflow")
        return _UInt(v)
    if t is float:
        if v != v or v in (math.inf, -math.inf) or v < 0 or v >= _F_MAX_UINT:
            raise CelError("unsigned integer overflow")
        return _UInt(int(v))
    if t is str:
        if _UINT_RE.match(v) and _parse_bounded(v, 0, _MAX_UINT) is not None:
            return _UInt(_parse_bounded(v, 0, _MAX_UINT))
        raise _conv_error(v, "uint")
    raise _no_overload_sig("uint", (v,))


def _to_double(v: Any) -> float:
    t = type(v)
    if t is float:
        return v
    if t is int or t is _UInt:
        return float(v)
    if t is str:
        f = _go_parse_float(v)
        if f is None:
            raise _conv_error(v, "double")
        return f
    raise _no_overload_sig("double", (v,))


def _to_string(v: Any) -> str:
    t = type(v)
    if t is str:
        return v
    if t is bool:
        return "true" if v else "false"
    if t is int or t is _UInt:
        return str(int(v))
    if t is float:
        return _go_g(v)
    if t is bytes:
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            raise CelError("invalid UTF-8 in bytes, cannot convert to string") from None
    raise _no_overload_sig("string", (v,))


def _to_bool(v: Any) -> bool:
    t = type(v)
    if t is bool:
        return v
    if t is str:
        b = _BOOL_STRINGS.get(v)
        if b is None:
            raise _conv_error(v, "bool")
        return b
    raise _no_overload_sig("bool", (v,))


def _to_bytes(v: Any) -> bytes:
    t = type(v)
    if t is bytes:
        return v
    if t is str:
        return v.encode("utf-8", errors="surrogatepass")
    raise _no_overload_sig("bytes", (v,))


def _want(name: str, args: tuple, *types: type) -> None:
    """The runtime signature guard of library overloads ('no such overload: f(types)')."""
    for a, t in zip(args, types):
        if type(a) is not t:
            raise _no_overload_sig(name, args)


# -- standard string functions


def _contains(s: Any, sub: Any) -> bool:
    _want("contains", (s, sub), str, str)
    return sub in s


def _starts_with(s: Any, p: Any) -> bool:
    _want("startsWith", (s, p), str, str)
    return s.startswith(p)


def _ends_with(s: Any, p: Any) -> bool:
    _want("endsWith", (s, p), str, str)
    return s.endswith(p)


def _matches(s: Any, pattern: Any) -> bool:
    _want("matches", (s, pattern), str, str)
    return _search(_regex(pattern), _utf8(s)) is not None


def _find(s: Any, pattern: Any) -> str:
    _want("find", (s, pattern), str, str)
    try:
        rx = _regex(pattern)
    except _RegexError as err:
        raise CelError(f"Illegal regex: {err}") from None
    m = _search(rx, _utf8(s))
    return m.group(0).decode("utf-8") if m else ""


def _find_all_fn(s: Any, pattern: Any, n: Any = -1) -> list:
    _want("findAll", (s, pattern, n), str, str, int)
    try:
        rx = _regex(pattern)
    except _RegexError as err:
        raise CelError(f"Illegal regex: {err}") from None
    return _find_all(rx, s, n)


# -- ext strings (v2)


def _char_at(s: Any, i: Any) -> str:
    _want("charAt", (s, i), str, int)
    if i < 0 or i > len(s):
        raise CelError(f"index out of range: {i}")
    return s[i] if i < len(s) else ""


def _list_position(lst: list, x: Any, positions: range) -> int:
    """The k8s lists library's indexOf / lastIndexOf: the first of ``positions`` that holds x
    (an element that cannot be compared with x does not), or -1."""
    for i in positions:
        if _eq_quiet(lst[i], x):
            return i
    return -1


def _index_of(s: Any, sub: Any, off: Any = None) -> int:
    if type(s) is list:
        return _list_position(s, sub, range(len(s)))
    _want("indexOf", (s, sub) + (() if off is None else (off,)), str, str, int)
    offset = 0 if off is None else off
    if sub == "":
        return offset
    if offset < 0:
        raise CelError(f"index out of range: {offset}")
    if offset >= len(s):
        return -1
    return s.find(sub, offset)


def _last_index_of(s: Any, sub: Any, off: Any = None) -> int:
    if type(s) is list:
        return _list_position(s, sub, range(len(s) - 1, -1, -1))
    _want("lastIndexOf", (s, sub) + (() if off is None else (off,)), str, str, int)
    if off is None:
        if sub == "":
            return len(s)
        if len(s.encode("utf-8")) < len(sub.encode("utf-8")):
            return -1
        off = len(s) - 1
    if sub == "":
        return off
    if off < 0:
        raise CelError(f"index out of range: {off}")
    if off >= len(s):
        return -1
    return s.rfind(sub, 0, min(off, len(s) - len(sub)) + len(sub))


_LOWER = {i: i + 32 for i in range(65, 91)}
_UPPER = {i + 32: i for i in range(65, 91)}


def _lower_ascii(s: Any) -> str:
    _want("lowerAscii", (s,), str)
    return s.translate(_LOWER)


def _upper_ascii(s: Any) -> str:
    _want("upperAscii", (s,), str)
    return s.translate(_UPPER)


def _replace(s: Any, old: Any, new: Any, n: Any = -1) -> str:
    _want("replace", (s, old, new, n), str, str, str, int)
    return s.replace(old, new, n if n >= 0 else -1)


def _split(s: Any, sep: Any, n: Any = -1) -> list:
    _want("split", (s, sep, n), str, str, int)
    if n == 0:
        return []
    if sep == "":  # Go splits into single characters (the last one keeps the rest)
        chars = list(s)
        if 0 < n < len(chars):
            return chars[:n - 1] + ["".join(chars[n - 1:])]
        return chars
    return s.split(sep, n - 1) if n > 0 else s.split(sep)


def _substring(s: Any, start: Any, end: Any = None) -> str:
    _want("substring", (s, start) + (() if end is None else (end,)), str, int, int)
    n = len(s)
    if end is None:
        if start < 0 or start > n:
            raise CelError(f"index out of range: {start}")
        return s[start:]
    if start > end:
        raise CelError(f"invalid substring range. start: {start}, end: {end}")
    if start < 0 or start > n:
        raise CelError(f"index out of range: {start}")
    if end < 0 or end > n:
        raise CelError(f"index out of range: {end}")
    return s[start:end]


def _trim(s: Any) -> str:
    _want("trim", (s,), str)
    return s.strip(_GO_SPACE)


def _join(lst: Any, sep: Any = "") -> str:
    _want("join", (lst, sep), list, str)
    for x in lst:
        if type(x) is not str:
            raise CelError(f"join: invalid input: {_fmt_v(x)}")
    return sep.join(lst)


def _quote(s: Any) -> str:
    _want("strings.quote", (s,), str)
    return '"' + "".join(_QUOTE_ESCAPES.get(c, c) for c in s) + '"'


# -- k8s lists library


def _is_sorted(lst: Any) -> bool:
    _want("isSorted", (lst,), list)
    for a, b in zip(lst, lst[1:]):
        if _cmp(a, b) > 0:
            return False
    return True


def _sum(lst: Any, zero: Any) -> Any:
    acc = zero
    for x in lst:
        acc = _add(acc, x)
    return acc


def _min_max(lst: Any, name: str, prefer: int) -> Any:
    _want(name, (lst,), list)
    if not lst:
        raise CelError(f"{name} called on empty list")
    best = lst[0]
    for x in lst[1:]:
        if _cmp(best, x) == prefer:
            best = x
    return best


# -- k8s quantity library


def _quantity(s: Any) -> Quantity:
    _want("quantity", (s,), str)
    return _parse_quantity(s)


def _is_quantity(s: Any) -> bool:
    _want("isQuantity", (s,), str)
    try:
        _parse_quantity(s)
    except CelError:
        return False
    return True


def _q_or_s_cmp(name: str, a: Any, b: Any) -> int:
    ta = type(a)
    if ta is not type(b) or ta not in (Quantity, Semver):
        raise _no_overload_sig(name, (a, b))
    return a.cmp(b)


def _is_greater_than(a: Any, b: Any) -> bool:
    return _q_or_s_cmp("isGreaterThan", a, b) == 1


def _is_less_than(a: Any, b: Any) -> bool:
    return _q_or_s_cmp("isLessThan", a, b) == -1


def _compare_to(a: Any, b: Any) -> int:
    return _q_or_s_cmp("compareTo", a, b)


def _sign(q: Any) -> int:
    _want("sign", (q,), Quantity)
    return (q.m > 0) - (q.m < 0)


def _as_integer(q: Any) -> int:
    _want("asInteger", (q,), Quantity)
    v = _q_int64(q)
    if v is None:
        raise CelError("cannot convert value to integer")
    return v


def _is_integer(q: Any) -> bool:
    _want("isInteger", (q,), Quantity)
    return _q_int64(q) is not None


def _as_float(q: Any) -> float:
    _want("asApproximateFloat", (q,), Quantity)
    return _q_float(q)


def _q_arith(name: str, q: Any, o: Any, negate: bool) -> Quantity:
    if type(q) is not Quantity or type(o) not in (Quantity, int):
        raise _no_overload_sig(name, (q, o))
    if type(o) is int:
        o = Quantity(o, 0, False)  # resource.NewQuantity(i, DecimalExponent)
    return _q_add(q, o, negate)


def _q_add_fn(q: Any, o: Any) -> Quantity:
    return _q_arith("add", q, o, False)


def _q_sub_fn(q: Any, o: Any) -> Quantity:
    return _q_arith("sub", q, o, True)


# -- k8s semver library


def _semver(s: Any, normalize: Any = False) -> Semver:
    _want("semver", (s, normalize), str, bool)
    return _normalize_parse_semver(s) if normalize else _parse_semver(s)


def _is_semver(s: Any, normalize: Any = False) -> bool:
    _want("isSemver", (s, normalize), str, bool)
    try:
        _semver(s, normalize)
    except CelError:
        return False
    return True


def _semver_part(name: str) -> Callable[[Any], int]:
    def part(v: Any) -> int:
        _want(name, (v,), Semver)
        return _go_int64(getattr(v, name))
    return part


# -- ext sets and ext lists


def _set_contains(a: Any, b: Any) -> bool:
    _want("sets.contains", (a, b), list, list)
    return all(_in(x, a) for x in b)


def _set_equivalent(a: Any, b: Any) -> bool:
    _want("sets.equivalent", (a, b), list, list)
    return _set_contains(a, b) and _set_contains(b, a)


def _set_intersects(a: Any, b: Any) -> bool:
    _want("sets.intersects", (a, b), list, list)
    return any(_in(x, b) for x in a)


def _slice(lst: Any, start: Any, end: Any) -> list:
    _want("slice", (lst, start, end), list, int, int)
    if start < 0 or end < 0:
        raise CelError(f"cannot slice({start}, {end}), negative indexes not supported")
    if start > end:
        raise CelError(f"cannot slice({start}, {end}), start index must be less than or equal to end index")
    if len(lst) < end:
        raise CelError(f"cannot slice({start}, {end}), list is length {len(lst)}")
    return lst[start:end]


def _flatten(lst: Any, depth: Any = 1) -> list:
    if type(lst) is not list or type(depth) is not int:
        raise CelError(f"no such overload: {_type_name(lst)}.flatten({_type_name(depth)})")
    if depth < 0:
        raise CelError("level must be non-negative")
    out: list = []
    for x in lst:
        if type(x) is list and depth > 0:
            out.extend(_flatten(x, depth - 1))
        else:
            out.append(x)
    return out


def _lists_range(n: Any) -> list:
    _want("lists.range", (n,), int)
    if n > COST_LIMIT:  # its cost (the result's size) is over the limit: do not build it
        raise _CostLimit()
    return list(range(n))


def _reverse(lst: Any) -> list:
    _want("reverse", (lst,), list)
    return lst[::-1]


def _distinct(lst: Any) -> list:
    _want("distinct", (lst,), list)
    out: list = []
    for x in lst:
        if not any(_eq_quiet(x, y) for y in out):
            out.append(x)
    return out


def _sort_by_keys(lst: list, keys: list) -> list:
    if len(lst) != len(keys):
        raise CelError("@sortByAssociatedKeys() expected a list of the same size as the associated keys "
                       f"list, but got {len(lst)} and {len(keys)} elements respectively")
    if not lst:
        return lst
    first = type(keys[0])
    if first not in (int, _UInt, float, bool, str, bytes):
        raise CelError("list elements must be comparable")
    if any(type(k) is not first for k in keys):
        raise CelError("list elements must have the same type")
    if first is float and any(k != k for k in keys):
        raise CelError("NaN values cannot be ordered")
    order = sorted(range(len(keys)), key=lambda i: keys[i])
    return [lst[i] for i in order]


def _sort(lst: Any) -> list:
    if type(lst) is not list:
        raise CelError("no such overload: sort")
    return _sort_by_keys(lst, lst)


def _map_insert(m: dict, k: Any, v: Any = _MISSING) -> dict:
    out = dict(m)
    items = v.items() if v is _MISSING and isinstance(k, dict) else ((k, v),)
    if v is _MISSING and not isinstance(k, dict):
        raise _no_overload()
    for key, val in items:
        if _map_find(out, key) is not _MISSING:
            raise CelError(f"insert failed: key {_fmt_v(key)} already exists")
        out[key] = val
    return out


_SEMVER_MAJOR = _semver_part("major")
_SEMVER_MINOR = _semver_part("minor")
_SEMVER_PATCH = _semver_part("patch")

#: Function name -> implementation (the receiver, if any, comes first).
_IMPLS: dict[str, Callable[..., Any]] = {
    "!_": _not, "-_": _neg, "_+_": _add, "_-_": _sub, "_*_": _mul, "_/_": _div, "_%_": _mod,
    "_<_": _lt, "_<=_": _le, "_>_": _gt, "_>=_": _ge, "@in": _in, "size": _size,
    "type": _runtime_type, "dyn": lambda v: v, "int": _to_int, "uint": _to_uint, "double": _to_double,
    "string": _to_string, "bool": _to_bool, "bytes": _to_bytes,
    "contains": _contains, "startsWith": _starts_with, "endsWith": _ends_with, "matches": _matches,
    "charAt": _char_at, "indexOf": _index_of, "lastIndexOf": _last_index_of, "lowerAscii": _lower_ascii,
    "upperAscii": _upper_ascii, "replace": _replace, "split": _split, "substring": _substring,
    "trim": _trim, "join": _join, "strings.quote": _quote, "find": _find, "findAll": _find_all_fn,
    "isSorted": _is_sorted, "max": lambda lst: _min_max(lst, "max", -1),
    "min": lambda lst: _min_max(lst, "min", 1),
    "quantity": _quantity, "isQuantity": _is_quantity, "sign": _sign, "isGreaterThan": _is_greater_than,
    "isLessThan": _is_less_than, "compareTo": _compare_to, "asInteger": _as_integer,
    "isInteger": _is_integer, "asApproximateFloat": _as_float, "add": _q_add_fn, "sub": _q_sub_fn,
    "semver": _semver, "isSemver": _is_semver, "major": _SEMVER_MAJOR, "minor": _SEMVER_MINOR,
    "patch": _SEMVER_PATCH, "sets.contains": _set_contains, "sets.equivalent": _set_equivalent,
    "sets.intersects": _set_intersects, "slice": _slice, "flatten": _flatten, "lists.range": _lists_range,
    "reverse": _reverse, "distinct": _distinct, "sort": _sort,
    "@sortByAssociatedKeys": lambda lst, keys: _sort_by_keys(lst, keys),
    "cel.@mapInsert": _map_insert,
}
_CONVERSIONS = {"bool", "bytes", "double", "dyn", "int", "string", "type", "uint"}


# --------------------------------------------------------------------------------------------
# Compilation to closures. Every node becomes ``f(r) -> value`` (raising CelError); ``r`` is the
# per-evaluation state: the cost counter, the ``device`` value and the local variable slots.
# --------------------------------------------------------------------------------------------


class _Run:
    __slots__ = ("cost", "device", "slots")

    def __init__(self, device: Any, nslots: int) -> None:
        self.cost = 0
        self.device = device
        self.slots = [None] * nslots


_NC = object()      # "not a constant"
_UNSET = object()   # a cel.bind variable not evaluated yet


def _size_of(v: Any) -> int:
    """interpreter.actualSize: the length of strings (in code points), bytes, lists and maps."""
    t = type(v)
    if t is str or t is bytes or t is list or isinstance(v, dict):
        return len(v)
    return 1


def _traversal(v: Any) -> int:
    """The k8s library's traversalCost."""
    t = type(v)
    if t is str:
        return int((len(v) if v.isascii() else len(v.encode("utf-8"))) * 0.1)
    if t is bytes:
        return int(len(v) * 0.1)
    if t is list:
        return sum(_traversal(x) for x in v)
    if isinstance(v, dict):
        return sum(_traversal(k) + _traversal(x) for k, x in v.items())
    return 1


def _regex_cost(s: Any, pattern: Any) -> int:
    return math.ceil((1.0 + _size_of(s)) * 0.1) * math.ceil(_size_of(pattern) * 0.25)


def _tenth(n: int) -> int:
    return math.ceil(n * 0.1)


def _self_compare_cost(lst: Any) -> int:
    sz = _size_of(lst)
    factor = 2.0
    if sz and type(lst) is list and type(lst[0]) in (str, bytes):
        factor += 0.1
    return int(sz * sz * factor) + 11


_K8S_UNIT_COST = {"sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan", "isLessThan",
                  "compareTo", "add", "sub", "major", "minor", "patch"}


def _call_cost(fn: str, oids: list[str]) -> Any:
    """The cost of one call: an int, or a function of (args, result). Order as cel-go's
    CostTracker: overload trackers of the ext libraries, then the k8s CostEstimator (by function
    name), then cel-go's defaults (by overload id, only when the checker resolved one)."""
    oid = oids[0] if len(oids) == 1 else ""
    if oid in ("list_slice", "lists_range", "list_reverse"):
        return lambda args, res: _size_of(res) + 11
    if oid in ("list_flatten", "list_flatten_int"):
        return lambda args, res: int(_size_of(args[0]) * float(args[1] if len(args) > 1 else 1)) + 11
    if oid == "list_distinct" or (oid.startswith("list_") and oid.endswith("_sort")):
        return lambda args, res: _self_compare_cost(args[0])
    if oid.endswith("_sortByAssociatedKeys"):
        return lambda args, res: _self_compare_cost(args[1])
    if oid.startswith("list_sets_"):
        factor = 2.0 if "equivalent" in oid else 1.0
        return lambda args, res: 1 + int(_size_of(args[0]) * _size_of(args[1]) * factor)
    if fn in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf"):
        return lambda args, res: _traversal(args[0])
    if fn in ("lowerAscii", "upperAscii", "substring", "trim", "quantity", "isQuantity", "semver", "isSemver"):
        return lambda args, res: _tenth(_size_of(args[0]))
    if fn in ("replace", "split"):
        return lambda args, res: math.ceil(_size_of(args[0]) * 2 * 0.1)
    if fn == "join":
        return lambda args, res: math.ceil(_size_of(res) * 2 * 0.1)
    if fn in ("find", "findAll"):
        return lambda args, res: _regex_cost(args[0], args[1])
    if fn in _K8S_UNIT_COST:
        return 1
    if oid in ("starts_with_string", "ends_with_string", "string_to_bytes", "bytes_to_string", "strings_quote"):
        return lambda args, res: _tenth(_size_of(args[0]))
    if oid == "in_list":
        return lambda args, res: _size_of(args[1])
    if oid.startswith(("less_string", "less_bytes", "less_equals_string", "less_equals_bytes",
                       "greater_string", "greater_bytes", "greater_equals_string", "greater_equals_bytes")):
        return lambda args, res: _tenth(min(_size_of(args[0]), _size_of(args[1])))
    if oid in ("add_string", "add_bytes"):
        return lambda args, res: _tenth(_size_of(args[0]) + _size_of(args[1]))
    if oid == "matches_string":
        return lambda args, res: _regex_cost(args[0], args[1])
    if oid == "contains_string":
        return lambda args, res: _tenth(_size_of(args[0])) * _tenth(_size_of(args[1]))
    return 1


def _eq_cost(a: Any, b: Any) -> int:
    if type(a) is Quantity or type(a) is Semver:
        return 1
    return _tenth(min(_size_of(a), _size_of(b)))


def _items(v: Any, two: bool) -> list:
    """The values a comprehension iterates over (map keys, or (key, value)/(index, value))."""
    if type(v) is list:
        return list(enumerate(v)) if two else v
    if isinstance(v, dict):
        return list(v.items()) if two else list(v)
    if two:
        raise CelError(f"unsupported comprehension range type: {_go_type(v)}")
    raise CelError(f"got '{_go_type(v)}', expected iterable type")


def _go_type(v: Any) -> str:
    return {int: "types.Int", _UInt: "types.Uint", float: "types.Double", str: "types.String",
            bool: "types.Bool", bytes: "types.Bytes", type(None): "types.Null", Quantity: "cel.Quantity",
            Semver: "cel.Semver", CelType: "*types.Type"}.get(type(v), type(v).__name__)


def _check_limit(r: _Run) -> None:
    if r.cost > COST_LIMIT:
        raise _CostLimit()


def _string_key(op: Callable[[_Run], Any], key: str, cost: int) -> Callable[[_Run], Any]:
    """``o.key`` and ``o["key"]`` with a constant string: upstream gives both the same lookup,
    errors included, and this is the hot path of ``device.attributes[...]`` selectors."""
    def lookup(r: _Run) -> Any:
        o = op(r)
        r.cost += cost
        if isinstance(o, dict):
            try:
                return o[key]
            except KeyError:
                raise CelError(f"no such key: {key}") from None
        if type(o) is list:
            raise CelError("unsupported index type 'string' in list")
        raise CelError(f"no such key: {key}")
    return lookup


def _list_index(k: Any) -> int:
    t = type(k)
    if t is int:
        return k
    if t is _UInt:
        if k <= _MAX_INT:
            return int(k)
        raise CelError(f"unsupported index value {_fmt_v(k)} in list")
    if t is float:
        if k == k and abs(k) < _F_MAX_INT and k == int(k):
            return int(k)
        raise CelError(f"unsupported index value {_fmt_v(k)} in list")
    raise CelError(f"unsupported index type '{_type_name(k)}' in list")


def _index(o: Any, k: Any) -> Any:
    if isinstance(o, dict):
        if type(k) is str:
            try:
                return o[k]
            except KeyError:
                raise CelError(f"no such key: {k}") from None
        v = _map_find(o, k)
        if v is _MISSING:
            if type(o) is _DefaultMap:
                return {}
            raise CelError(f"no such key: {_fmt_v(k)}")
        return v
    if type(o) is list:
        i = _list_index(k)
        if 0 <= i < len(o):
            return o[i]
        raise CelError(f"index out of bounds: {_fmt_v(k)}")
    raise CelError(f"no such key: {_fmt_v(k)}")


def _has(o: Any, field: str) -> bool:
    if type(o) is _DefaultMap:
        return True  # upstream's mapper.Find never misses
    if isinstance(o, dict):
        return field in o
    if type(o) is list:
        raise CelError("unsupported index type 'string' in list")
    return False


def _bool_or_error(v: Any) -> Any:
    """A term of && / ||: True, False, or the CelError it stands for."""
    if v is True or v is False:
        return v
    return CelError("no such overload")


class _Compiler:
    def __init__(self) -> None:
        self.nslots = 0
        self.scopes: list[dict[str, tuple]] = []

    def new_slot(self) -> int:
        self.nslots += 1
        return self.nslots - 1

    def local(self, name: str) -> tuple | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def fn(self, e: _N) -> Callable[[_Run], Any]:
        f, c = self.compile(e)
        if c is _NC:
            return f
        return lambda r: c

    def compile(self, e: _N) -> tuple[Callable[[_Run], Any], Any]:
        if isinstance(e, _Lit):
            v = e.value
            return (lambda r: v), v
        if isinstance(e, _Ident):
            return self.ident(e)
        if isinstance(e, _Select):
            return self.select(e)
        if isinstance(e, _Call):
            return self.call(e)
        if isinstance(e, _Logic):
            return self.logic(e), _NC
        if isinstance(e, _Cond):
            return self.cond(e), _NC
        if isinstance(e, _List):
            return self.list_lit(e)
        if isinstance(e, _Map):
            return self.map_lit(e)
        if isinstance(e, _Comp):
            return self.comp(e), _NC
        raise AssertionError(e)

    # -- identifiers and attribute access
    def ident(self, e: _Ident) -> tuple:
        name = e.name
        loc = None if name.startswith(".") else self.local(name)
        if loc is None:
            name = name.lstrip(".")
            if name == "device":
                def dev(r: _Run) -> Any:
                    r.cost += 1
                    return r.device
                return dev, _NC
            tv = _TYPE_VALUES[name]
            return (lambda r: tv), tv
        if loc[0] == "slot":
            i = loc[1]

            def var(r: _Run) -> Any:
                r.cost += 1
                return r.slots[i]
            return var, _NC
        _, i, init = loc

        def bound(r: _Run) -> Any:
            r.cost += 1
            slots = r.slots
            v = slots[i]
            if v is _UNSET:
                v = slots[i] = init(r)
            return v
        return bound, _NC

    @staticmethod
    def is_attribute(e: _N) -> bool:
        """Whether cel-go plans e as an attribute rooted at a variable (one cost per qualifier);
        selecting from any other value first builds a relative attribute (one more)."""
        while True:
            if isinstance(e, _Ident):
                return True
            if isinstance(e, _Select) and not e.test and e.qualified is None:
                e = e.operand
            elif isinstance(e, _Call) and e.fn == "_[_]":
                e = e.args[0]
            else:
                return False

    def select(self, e: _Select) -> tuple:
        if e.qualified is not None:
            tv = _TYPE_VALUES[e.qualified]
            return (lambda r: tv), tv
        op = self.fn(e.operand)
        field = e.field
        if e.test:
            extra = 0 if self.is_attribute(e.operand) else 1

            def has(r: _Run) -> bool:
                o = op(r)
                r.cost += extra
                return _has(o, field)
            return has, _NC
        return _string_key(op, field, 1 if self.is_attribute(e.operand) else 2), _NC

    # -- calls
    def call(self, e: _Call) -> tuple:
        fn = e.fn
        if fn == "_[_]":
            return self.index(e), _NC
        if fn in ("_==_", "_!=_"):
            return self.equality(e, fn == "_!=_"), _NC
        compiled = [self.compile(a) for a in ([e.target] if e.target is not None else []) + e.args]
        argfns = [f for f, _ in compiled]
        consts = [c for _, c in compiled]
        if fn in _CONVERSIONS and len(consts) == 1 and consts[0] is not _NC:
            # cel.OptOptimize folds conversions of constants; a failure stops program creation
            try:
                v = _IMPLS[fn](consts[0])
            except CelError as err:
                raise _CompileFailure(f"program instantiation failed: {err}") from None
            return (lambda r: v), v
        if fn == "@in" and consts[1] is not _NC and type(consts[1]) is list and \
                all(type(x) in (bool, int, _UInt, float, str) for x in consts[1]):
            return self.set_membership(argfns[0], consts[1]), _NC
        if fn in ("matches", "find", "findAll") and len(consts) >= 2 and type(consts[1]) is str:
            try:
                _regex(consts[1])  # compiled once here, as cel-go's regex optimization does
            except _RegexError as err:
                raise _CompileFailure(f"program instantiation failed: {str(err)}") from None
        impl = _IMPLS[fn] if fn != "sum" else self.sum_impl(e.oids)
        return self.make_call(impl, argfns, _call_cost(fn, e.oids)), _NC

    @staticmethod
    def sum_impl(oids: list[str]) -> Callable[[Any], Any]:
        # the overload the checker picked decides the zero (cel-go tries list(int) first)
        zero = {"list_uint_sum_uint": _UInt(0), "list_double_sum_double": 0.0}.get(
            oids[0] if len(oids) == 1 else "", 0)

        def sum_(lst: Any) -> Any:
            _want("sum", (lst,), list)
            return _sum(lst, zero)
        return sum_

    @staticmethod
    def make_call(impl: Callable[..., Any], argfns: list, cost: Any) -> Callable[[_Run], Any]:
        n = len(argfns)
        if isinstance(cost, int):
            if n == 1:
                a0 = argfns[0]

                def call1(r: _Run) -> Any:
                    v = a0(r)
                    r.cost += cost
                    return impl(v)
                return call1
            if n == 2:
                a0, a1 = argfns

                def call2(r: _Run) -> Any:
                    v0 = a0(r)
                    v1 = a1(r)
                    r.cost += cost
                    return impl(v0, v1)
                return call2

            def calln(r: _Run) -> Any:
                args = [a(r) for a in argfns]
                r.cost += cost
                return impl(*args)
            return calln

        def call_dyn(r: _Run) -> Any:
            args = [a(r) for a in argfns]
            res = impl(*args)
            r.cost += cost(args, res)
            if r.cost > COST_LIMIT:
                raise _CostLimit()
            return res
        return call_dyn

    def equality(self, e: _Call, negate: bool) -> Callable[[_Run], Any]:
        lf, rf = self.fn(e.args[0]), self.fn(e.args[1])

        def eq(r: _Run) -> bool:
            a = lf(r)
            b = rf(r)
            if type(a) is str and type(b) is str:
                r.cost += math.ceil(min(len(a), len(b)) * 0.1)
                return (a != b) if negate else (a == b)
            r.cost += _eq_cost(a, b)
            return _eq(a, b) != negate
        return eq

    def set_membership(self, lf: Callable[[_Run], Any], values: list) -> Callable[[_Run], Any]:
        if not values:
            return lambda r: False  # upstream folds "x in []" to false without evaluating x
        keys = {("b", v) if type(v) is bool else ("v", v) for v in values}

        def member(r: _Run) -> bool:
            x = lf(r)
            if type(x) is bool:
                return ("b", x) in keys
            if type(x) is float and x != x:
                return False
            try:
                return ("v", x) in keys
            except TypeError:
                return False
        return member

    def index(self, e: _Call) -> Callable[[_Run], Any]:
        op = self.fn(e.args[0])
        kf, kc = self.compile(e.args[1])
        cost = 1 if self.is_attribute(e.args[0]) else 2
        if kc is not _NC and type(kc) is str:
            return _string_key(op, kc, cost)
        return self.make_call(_index, [op, kf], cost)

    # -- logic
    def logic(self, e: _Logic) -> Callable[[_Run], Any]:
        terms = [self.fn(t) for t in e.terms]
        stop = e.op == "||"  # the value that decides the result

        def logic(r: _Run) -> bool:
            err: CelError | None = None
            for t in terms:
                try:
                    v = t(r)
                except CelError as ex:
                    if err is None:
                        err = ex
                    continue
                if v is stop:
                    return stop
                if v is not (not stop) and err is None:
                    err = CelError("no such overload")
            if err is not None:
                raise err
            return not stop
        if len(terms) != 2:
            return logic
        t0, t1 = terms
        go = not stop

        def logic2(r: _Run) -> bool:
            err: CelError | None = None
            try:
                v = t0(r)
            except CelError as ex:
                err = ex
            else:
                if v is stop:
                    return stop
                if v is not go:
                    err = CelError("no such overload")
            try:
                w = t1(r)
            except CelError as ex:
                raise (err or ex) from None
            if w is stop:
                return stop
            if err is not None:
                raise err
            if w is not go:
                raise CelError("no such overload")
            return go
        return logic2

    def cond(self, e: _Cond) -> Callable[[_Run], Any]:
        cf, yf, nf = self.fn(e.cond), self.fn(e.yes), self.fn(e.no)

        def cond(r: _Run) -> Any:
            c = cf(r)
            if c is True:
                return yf(r)
            if c is False:
                return nf(r)
            raise CelError("no such overload")
        return cond

    # -- literals
    def list_lit(self, e: _List) -> tuple:
        compiled = [self.compile(x) for x in e.elems]
        if all(c is not _NC for _, c in compiled):
            v = [c for _, c in compiled]
            return (lambda r: v), v
        fns = [f for f, _ in compiled]

        def make_list(r: _Run) -> list:
            out = [f(r) for f in fns]
            r.cost += 10
            return out
        return make_list, _NC

    def map_lit(self, e: _Map) -> tuple:
        compiled = [(self.compile(k), self.compile(v)) for k, v in e.entries]
        if all(kc is not _NC and vc is not _NC for (_, kc), (_, vc) in compiled):
            try:
                v = _build_map([(kc, vc) for (_, kc), (_, vc) in compiled])
            except CelError:
                pass  # upstream folds it into an error value, reported when evaluated
            else:
                return (lambda r: v), v
        fns = [(kf, vf) for (kf, _), (vf, _) in compiled]

        def make_map(r: _Run) -> dict:
            out = _build_map([(kf(r), vf(r)) for kf, vf in fns])
            r.cost += 30
            return out
        return make_map, _NC

    # -- macros
    def comp(self, e: _Comp) -> Callable[[_Run], Any]:
        k = e.kind
        if k == "bind":
            init = self.fn(e.args[0])
            i = self.new_slot()
            self.scopes.append({e.v1: ("bind", i, init)})
            body = self.fn(e.args[1])
            self.scopes.pop()

            def bind(r: _Run) -> Any:
                r.slots[i] = _UNSET
                return body(r)
            return bind
        rng = self.fn(e.rng)
        two = e.v2 is not None
        i1 = self.new_slot()
        scope = {e.v1: ("slot", i1)}
        i2 = -1
        if two:
            i2 = self.new_slot()
            scope[e.v2] = ("slot", i2)
        self.scopes.append(scope)
        args = [self.fn(a) for a in e.args]
        self.scopes.pop()
        if k == "sortBy":
            return self.sort_by(e, rng, i1, args[0])
        builder = getattr(self, "comp_" + k.rstrip("2"))
        return builder(rng, two, i1, i2, args)

    def comp_all(self, rng: Callable, two: bool, i1: int, i2: int, args: list) -> Callable[[_Run], Any]:
        # loop condition @not_strictly_false(@result): 2 per iteration
        return self.quantifier(rng, two, i1, i2, args[0], False, 2)

    def comp_exists(self, rng: Callable, two: bool, i1: int, i2: int, args: list) -> Callable[[_Run], Any]:
        # loop condition @not_strictly_false(!@result): the negation costs one more
        return self.quantifier(rng, two, i1, i2, args[0], True, 3)

    @staticmethod
    def quantifier(rng: Callable, two: bool, i1: int, i2: int, pred: Callable, stop: bool,
                   loop_cost: int) -> Callable[[_Run], Any]:
        """all (``stop`` False) and exists (``stop`` True): a predicate yielding ``stop`` decides
        the result, whatever errors came before it; otherwise the first error (or non-bool) is
        raised."""
        go = not stop

        def quantify(r: _Run) -> Any:
            items = _items(rng(r), two)
            slots = r.slots
            acc: Any = go
            for x in items:
                r.cost += loop_cost
                if acc is stop:
                    break
                r.cost += 1  # @result in the step
                if two:
                    slots[i1], slots[i2] = x
                else:
                    slots[i1] = x
                try:
                    v = pred(r)
                except CelError as err:
                    v = err
                if v is stop:
                    acc = stop
                elif v is not go and acc is go:
                    acc = v if isinstance(v, CelError) else CelError("no such overload")
                if r.cost > COST_LIMIT:
                    raise _CostLimit()
            r.cost += 1  # result: @result
            if acc is True or acc is False:
                return acc
            raise acc
        return quantify

    def comp_exists_one(self, rng: Callable, two: bool, i1: int, i2: int, args: list) -> Callable[[_Run], Any]:
        pred = args[0]

        def exists_one(r: _Run) -> Any:
            items = _items(rng(r), two)
            slots = r.slots
            count = 0
            for x in items:
                if two:
                    slots[i1], slots[i2] = x
                else:
                    slots[i1] = x
                v = pred(r)
                if v is True:
                    count += 1
                    r.cost += 2  # @result + 1
                elif v is False:
                    r.cost += 1  # @result
                else:
                    raise CelError("no such overload")
                if r.cost > COST_LIMIT:
                    raise _CostLimit()
            r.cost += 2  # result: @result == 1
            return count == 1
        return exists_one

    def comp_map(self, rng: Callable, two: bool, i1: int, i2: int, args: list) -> Callable[[_Run], Any]:
        return self.transform(rng, two, i1, i2, args, None)

    comp_transformList = comp_map

    def comp_filter(self, rng: Callable, two: bool, i1: int, i2: int, args: list) -> Callable[[_Run], Any]:
        pred = args[0]

        def filter_(r: _Run) -> list:
            items = _items(rng(r), two)
            slots = r.slots
            out = []
            for x in items:
                slots[i1] = x
                c = pred(r)
                if c is True:
                    out.append(x)
                    r.cost += 13  # @result + [x]
                elif c is False:
                    r.cost += 1
                else:
                    raise CelError("no such overload")
                if r.cost > COST_LIMIT:
                    raise _CostLimit()
            r.cost += 1
            return out
        return filter_

    def comp_transformMap(self, rng: Callable, two: bool, i1: int, i2: int,
                          args: list) -> Callable[[_Run], Any]:
        return self.transform(rng, two, i1, i2, args, False)

    def comp_transformMapEntry(self, rng: Callable, two: bool, i1: int, i2: int,
                               args: list) -> Callable[[_Run], Any]:
        return self.transform(rng, two, i1, i2, args, True)

    @staticmethod
    def transform(rng: Callable, two: bool, i1: int, i2: int, args: list,
                  entry: bool | None) -> Callable[[_Run], Any]:
        """map and transformList (``entry`` None: the list of results), transformMap (False: each
        key to its result) and transformMapEntry (True: the entries of the result maps), each with
        an optional filter as the first of two arguments."""
        filt = args[0] if len(args) == 2 else None
        fn = args[-1]
        to_list = entry is None

        def transform(r: _Run) -> Any:
            items = _items(rng(r), two)
            slots = r.slots
            out: Any = [] if to_list else {}
            for x in items:
                if two:
                    slots[i1], slots[i2] = x
                else:
                    slots[i1] = x
                if filt is not None:
                    c = filt(r)
                    if c is False:
                        r.cost += 1
                        continue
                    if c is not True:
                        raise CelError("no such overload")
                v = fn(r)
                if to_list:
                    out.append(v)
                    r.cost += 12  # @result + [value]: identifier, list literal, list concatenation
                else:
                    if entry:
                        if not isinstance(v, dict):
                            raise _no_overload_sig("cel.@mapInsert", (out, v))
                        new = v.items()
                        r.cost += 2  # cel.@mapInsert(@result, entry)
                    else:
                        new = ((x[0], v),)
                        r.cost += 3  # cel.@mapInsert(@result, key, value)
                    for key, val in new:
                        if _map_find(out, key) is not _MISSING:
                            raise CelError(f"insert failed: key {_fmt_v(key)} already exists")
                        out[key] = val
                if r.cost > COST_LIMIT:
                    raise _CostLimit()
            r.cost += 1
            return out
        return transform

    def sort_by(self, e: _Comp, rng: Callable, i1: int, key: Callable) -> Callable[[_Run], Any]:
        def sort_by(r: _Run) -> list:
            lst = rng(r)
            r.cost += 2  # two references to the bound input
            if type(lst) is not list:
                raise _no_overload()
            slots = r.slots
            keys = []
            for x in lst:
                slots[i1] = x
                keys.append(key(r))
                r.cost += 12
                if r.cost > COST_LIMIT:
                    raise _CostLimit()
            r.cost += 1 + _self_compare_cost(keys)
            return _sort_by_keys(lst, keys)
        return sort_by


def _build_map(entries: list) -> dict:
    out: dict = {}
    for k, v in entries:
        if type(k) in (bytes, list) or isinstance(k, dict):  # unhashable as Go map keys
            raise CelError(f"unsupported key type: {_type_name(k)}")
        out[k] = v
    return out


# --------------------------------------------------------------------------------------------
# The ``device`` variable and the public interface.
# --------------------------------------------------------------------------------------------


def _attribute_value(name: str, attr: Any) -> Any:
    """getAttributeValue: the first of int, bool, string, version that is set."""
    if isinstance(attr, dict):
        v = attr.get("int")
        if v is not None:
            if type(v) is not int or not _MIN_INT <= v <= _MAX_INT:
                raise CelError(f"attribute {name}: invalid int value {v!r}")
            return v
        v = attr.get("bool")
        if v is not None:
            if type(v) is not bool:
                raise CelError(f"attribute {name}: invalid bool value {v!r}")
            return v
        v = attr.get("string")
        if v is not None:
            return str(v)
        v = attr.get("version")
        if v is not None:
            try:
                return _parse_semver(str(v))
            except CelError as err:
                raise CelError(f"attribute {name}: parse semantic version: {err}") from None
    raise CelError(f"attribute {name}: unsupported attribute value")


def _qualified(name: str, driver: str) -> tuple[str, str]:
    """parseQualifiedName: split at the first '/', the driver being the default domain."""
    domain, sep, ident = name.partition("/")
    return (domain, ident) if sep else (driver, name)


def _build_device(device: Any) -> dict:
    """The value of ``device`` for one device (DeviceMatches' maps), built once per device."""
    driver = device.id.driver
    attributes: dict[str, dict] = {}
    for name, attr in (device.attributes or {}).items():
        value = _attribute_value(str(name), attr)
        domain, ident = _qualified(str(name), driver)
        attributes.setdefault(domain, {})[ident] = value
    capacity: dict[str, dict] = {}
    for name, cap in (device.capacity or {}).items():
        raw = cap.get("value") if isinstance(cap, dict) else cap
        try:
            q = Quantity(0, 0, False) if raw is None else _quantity_from_input(raw)
        except CelError as err:
            raise CelError(f"capacity {name}: {err}") from None
        domain, ident = _qualified(str(name), driver)
        capacity.setdefault(domain, {})[ident] = q
    return {
        "driver": driver,
        # DRAConsumableCapacity is off in v1.34: the allocator leaves it unset, which reads as false
        "allowMultipleAllocations": False,
        "attributes": _DefaultMap(attributes),
        "capacity": _DefaultMap(capacity),
    }


_NATIVE_BOOL_ERRORS = {
    int: "unsupported type conversion from 'int' to bool",
    _UInt: "unsupported type conversion from 'uint' to bool",
    float: "type conversion error from Double to 'bool'",
    str: "unsupported native conversion from string to 'bool'",
    bytes: "type conversion error from Bytes to 'bool'",
    type(None): "type conversion error from 'null_type' to 'bool'",
    list: "type conversion error from list to 'bool'",
    dict: "type conversion error from map to 'bool'",
    _DefaultMap: "type conversion error from map to 'bool'",
    CelType: "type conversion not supported for 'type'",
    Quantity: "type conversion error from 'Quantity' to 'bool'",
    Semver: "type conversion error from 'Semver' to 'bool'",
}


class CompilationResult:
    """One compiled selector expression (or the reason it did not compile)."""

    __slots__ = ("expression", "error", "_fn", "_nslots")

    def __init__(self, expression: str, error: str | None, fn: Callable[[_Run], Any] | None = None,
                 nslots: int = 0) -> None:
        self.expression = expression
        #: upstream's compile error text, or None
        self.error = error
        self._fn = fn
        self._nslots = nslots

    def evaluate(self, device: Any = None) -> tuple[Any, int]:
        """(the expression's CEL value, its runtime cost) for ``device`` (a pools.Device, or None
        for an expression that does not use it). CelError as upstream's Program.Eval fails."""
        if self._fn is None:
            raise CelError(self.error or "expression did not compile")
        dev = device.cel_value(_build_device) if device is not None else _EMPTY_DEVICE
        r = _Run(dev, self._nslots)
        try:
            value = self._fn(r)
        except CelError:
            if r.cost > COST_LIMIT:
                raise CelError(_COST_EXCEEDED) from None
            raise
        except _CostLimit:
            raise CelError(_COST_EXCEEDED) from None
        except RecursionError:
            raise CelError("kschedctl: the expression is nested too deeply to evaluate") from None
        if r.cost > COST_LIMIT:
            raise CelError(_COST_EXCEEDED)
        return value, r.cost

    def device_matches(self, device: Any) -> bool:
        """DeviceMatches: whether the selector accepts ``device``; CelError with upstream's text."""
        value, _ = self.evaluate(device)
        if value is True or value is False:
            return value
        detail = _NATIVE_BOOL_ERRORS.get(type(value), f"cannot convert {_type_name(value)} to bool")
        raise CelError(f"CEL result of type {_type_name(value)} could not be converted to bool: {detail}")


_EMPTY_DEVICE = {"driver": "", "allowMultipleAllocations": False, "attributes": _DefaultMap(),
                 "capacity": _DefaultMap()}


def _failed(expression: str, error: str) -> CompilationResult:
    return CompilationResult(expression, error)


def compile_expression(expression: str, bool_result: bool = True) -> CompilationResult:
    """Compile one expression in the DRA selector environment (``CompileCELExpression``).

    ``bool_result=False`` skips the "must evaluate to bool" rule, for evaluating library
    expressions in tests.
    """
    # The parser and checker recurse per nesting level; cel-go accepts 250 levels, which takes
    # more Python frames than the default limit allows.
    limit = sys.getrecursionlimit()
    if limit < _COMPILE_RECURSION_LIMIT:
        sys.setrecursionlimit(_COMPILE_RECURSION_LIMIT)
    try:
        return _compile(expression, bool_result)
    except RecursionError:
        return _failed(expression, "compilation failed: ERROR: <input>:-1:0: max recursion depth exceeded")
    finally:
        if limit < _COMPILE_RECURSION_LIMIT:
            sys.setrecursionlimit(limit)


_COMPILE_RECURSION_LIMIT = 20000


def _compile(expression: str, bool_result: bool) -> CompilationResult:
    src = _Source(expression)
    errors = _Errors(src)
    root: _N | None = None
    try:
        root = _Parser(src, errors).parse()
    except _SyntaxError as err:
        pos, msg = err.args[0]
        errors.add(pos, msg)
    if errors or root is None:
        return _failed(expression, "compilation failed: " + errors.display())
    if _visit_depth(root) > _MAX_DEPTH:
        errors.add(-1, "max recursion depth exceeded")
        return _failed(expression, "compilation failed: " + errors.display())
    checker = _Checker(errors)
    checker.check(root)
    if errors:
        return _failed(expression, "compilation failed: " + errors.display())
    _validate(checker.finish(root), errors)
    if errors:
        return _failed(expression, "compilation failed: " + errors.display())
    if bool_result and root.t.kind not in ("bool", "any"):
        return _failed(expression, f"must evaluate to bool or the unknown type, not {_str_type(root.t)}")
    compiler = _Compiler()
    try:
        fn = compiler.fn(root)
    except _CompileFailure as err:
        return _failed(expression, err.args[0])
    return CompilationResult(expression, None, fn, compiler.nslots)


class CelCache:
    """Compiled expressions by their text (upstream's cel.Cache): each is compiled once;
    failures are not cached. ``max_entries`` > 0 bounds the cache (least recently used first
    out); 0 means unbounded."""

    def __init__(self, max_entries: int = 0) -> None:
        self._max = max_entries
        self._entries: dict[str, CompilationResult] = {}

    def get_or_compile(self, expression: str) -> CompilationResult:
        hit = self._entries.get(expression)
        if hit is not None:
            if self._max > 0:  # mark as most recently used
                del self._entries[expression]
                self._entries[expression] = hit
            return hit
        result = compile_expression(expression)
        if result.error is None:
            if self._max > 0 and len(self._entries) >= self._max:
                del self._entries[next(iter(self._entries))]
            self._entries[expression] = result
        return result
