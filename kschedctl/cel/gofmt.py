"""Go formatting helpers: the texts upstream produces come from Go's fmt (%g, %v) and the tables of
Go's strings and strconv functions the libraries need. Go's number parsing and %q are
``kschedctl.k8s.strconv``."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from .values import _UInt


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


_BOOL_STRINGS = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True,
                 "0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False}
#: Go's unicode.IsSpace, which strings.TrimSpace uses (Python's str.strip also strips \x1c-\x1f).
_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
            "\u2028\u2029\u202f\u205f\u3000"
