"""Go's ``strconv.ParseInt`` (base 10) and ``strconv.ParseFloat``, with their error messages.

Annotations and flags that upstream reads with ``strconv.ParseInt(s, 10, bits)`` must accept and
refuse exactly the same strings here: an optional sign and ASCII digits, nothing else (no
spaces, no underscores, no ``0x``), within the signed range of ``bits``.
"""

from __future__ import annotations

import json
import re

__all__ = ["NumError", "parse_int", "parse_float"]

_DECIMAL = re.compile(r"[+-]?[0-9]+")


class NumError(ValueError):
    """Go's ``*strconv.NumError``: ``strconv.ParseInt: parsing "x": invalid syntax``."""


def parse_int(text: str, bit_size: int = 64) -> int:
    """``strconv.ParseInt(text, 10, bit_size)``; raises ``NumError`` where Go returns an error."""
    quoted = json.dumps(text, ensure_ascii=False) if isinstance(text, str) else json.dumps(str(text))
    if not isinstance(text, str) or not _DECIMAL.fullmatch(text):
        raise NumError(f"strconv.ParseInt: parsing {quoted}: invalid syntax")
    n = int(text)
    bound = 1 << (bit_size - 1)
    if n < -bound or n >= bound:
        raise NumError(f"strconv.ParseInt: parsing {quoted}: value out of range")
    return n


_FLOAT_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_FLOAT_SPECIAL = re.compile(r"[+-]?(?:inf|infinity|nan)", re.IGNORECASE)
_FLOAT_HEX = re.compile(r"[+-]?0[xX](?:[0-9a-fA-F_]+\.?[0-9a-fA-F_]*|\.[0-9a-fA-F_]+)[pP][+-]?[0-9]+")


def parse_float(text: str) -> float:
    """``strconv.ParseFloat(text, 64)``; raises ``NumError`` where Go returns an error.

    Decimal and hexadecimal (``0x1p-2``) literals, ``Inf``/``Infinity``/``NaN`` in any case; no
    spaces; a finite literal too large for a float64 is "value out of range"."""
    quoted = json.dumps(text, ensure_ascii=False) if isinstance(text, str) else json.dumps(str(text))
    if isinstance(text, str):
        if _FLOAT_SPECIAL.fullmatch(text):
            return float(text)
        value: float | None = None
        if _FLOAT_DECIMAL.fullmatch(text):
            value = float(text)
        elif _FLOAT_HEX.fullmatch(text) and "__" not in text:
            value = float.fromhex(text.replace("_", ""))
        if value is not None:
            if value in (float("inf"), float("-inf")):
                raise NumError(f"strconv.ParseFloat: parsing {quoted}: value out of range")
            return value
    raise NumError(f"strconv.ParseFloat: parsing {quoted}: invalid syntax")
