"""Quantities: apimachinery's ParseQuantity, including which representation it picks (int64Amount or
inf.Dec, which asInteger()/isInteger() depend on), and the Quantity arithmetic and conversions of
the k8s quantity library."""

from __future__ import annotations

import math
import re
from typing import Any

from kschedctl.k8s.quantity import ERR_FORMAT_WRONG, ERR_NUMERIC, ERR_SUFFIX

from .bigint import _decimal_digits, _int_text, _parse_digits, _pow10
from .errors import CelError, _MAX_INT, _MIN_INT
from .gofmt import _DIGITS, _INT_RE, _parse_bounded
from .values import Quantity


_DEC_SUFFIX = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BIN_SUFFIX = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")
#: Quantities of more digits than this are not computed: a guard, not upstream, whose big decimals
#: have no bound (a selector could build a string of millions of digits; parsing it, or rescaling
#: 1e2000000000 to nano units, would take seconds or more). Every literal fits (10 KiB).
_MAX_QUANTITY_DIGITS = 100_000
_QUANTITY_TOO_LARGE = f"kschedctl: a quantity of more than {_MAX_QUANTITY_DIGITS} digits is not evaluated"


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
