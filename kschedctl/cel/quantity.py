"""Quantities of the k8s quantity library: parsed by ``kschedctl.k8s.quantity.parse_exact``
(apimachinery's ParseQuantity, with the representation it picks: int64Amount or inf.Dec, which
asInteger()/isInteger() depend on), and the Quantity arithmetic and conversions."""

from __future__ import annotations

import math
from typing import Any

from kschedctl.errors import QuantityError
from kschedctl.k8s.quantity import ERR_FORMAT_WRONG, decimal_digits, int_text, parse_exact

from .errors import CelError, _MAX_INT, _MIN_INT
from .values import Quantity


#: Quantities of more digits than this are not computed: a guard, not upstream, whose big decimals
#: have no bound (a selector could build a string of millions of digits; parsing it, or rescaling
#: 1e2000000000 to nano units, would take seconds or more). Every literal fits (10 KiB).
_MAX_QUANTITY_DIGITS = 100_000
_QUANTITY_TOO_LARGE = f"kschedctl: a quantity of more than {_MAX_QUANTITY_DIGITS} digits is not evaluated"


def _parse_quantity(s: str) -> Quantity:
    """resource.ParseQuantity(s) as a Quantity; CelError with upstream's text on failure."""
    try:
        exact = parse_exact(s, _MAX_QUANTITY_DIGITS)
    except QuantityError as err:
        raise CelError(str(err)) from None
    return Quantity(exact.mantissa, exact.exponent, exact.decimal)


def _quantity_from_input(value: Any) -> Quantity:
    """A device capacity value as the API server decoded it (UnmarshalJSON trims white space)."""
    if isinstance(value, bool) or value is None:
        raise CelError(ERR_FORMAT_WRONG)
    if isinstance(value, int):
        if decimal_digits(value) > _MAX_QUANTITY_DIGITS:
            raise CelError(_QUANTITY_TOO_LARGE)
        text = int_text(value)
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
