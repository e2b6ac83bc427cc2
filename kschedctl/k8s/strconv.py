"""Go's ``strconv.ParseInt`` and ``strconv.ParseUint`` (base 10), ``strconv.ParseFloat`` and
``strconv.Quote``, with Go's error messages.

Annotations and flags that upstream reads with ``strconv.ParseInt(s, 10, bits)`` must accept and
refuse exactly the same strings here: an optional sign and ASCII digits, nothing else (no
spaces, no underscores, no ``0x``), within the signed range of ``bits``. The CEL interpreter
(``kschedctl.cel``) converts strings with the same functions, so strings of any
length are read without Python's limit on int conversions (4300 digits).
"""

from __future__ import annotations

import re

__all__ = ["NumError", "QUOTE_ESCAPES", "parse_int", "parse_uint", "parse_float", "quote"]

_DECIMAL = re.compile(r"[+-]?[0-9]+")
_UNSIGNED = re.compile(r"[0-9]+")
#: More significant digits than this are out of the range of any int64 or uint64.
_MAX_SIGNIFICANT_DIGITS = 20

#: The characters Go's strconv.Quote writes as a short escape (ext strings' strings.quote too).
QUOTE_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\a": "\\a",
                  "\b": "\\b", "\f": "\\f", "\v": "\\v"}


class NumError(ValueError):
    """Go's ``*strconv.NumError``: ``strconv.ParseInt: parsing "x": invalid syntax``."""


def quote(s: str) -> str:
    """Go's ``strconv.Quote`` (``%q``) of a string, as Go's error messages quote their input."""
    out = ['"']
    for ch in s:
        esc = QUOTE_ESCAPES.get(ch)
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


def _quoted(text: object) -> str:
    return quote(text if isinstance(text, str) else str(text))


def _bounded(function: str, text: str, lo: int, hi: int) -> int:
    """The value of a string of an optional sign and ASCII digits, or Go's range error; a string of
    thousands of digits is out of range without being converted."""
    digits = text.lstrip("+-").lstrip("0") or "0"
    if len(digits) <= _MAX_SIGNIFICANT_DIGITS:
        n = -int(digits) if text[:1] == "-" else int(digits)
        if lo <= n <= hi:
            return n
    raise NumError(f"strconv.{function}: parsing {_quoted(text)}: value out of range")


def parse_int(text: str, bit_size: int = 64) -> int:
    """``strconv.ParseInt(text, 10, bit_size)``; raises ``NumError`` where Go returns an error."""
    if not isinstance(text, str) or not _DECIMAL.fullmatch(text):
        raise NumError(f"strconv.ParseInt: parsing {_quoted(text)}: invalid syntax")
    bound = 1 << (bit_size - 1)
    return _bounded("ParseInt", text, -bound, bound - 1)


def parse_uint(text: str, bit_size: int = 64) -> int:
    """``strconv.ParseUint(text, 10, bit_size)``: no sign; raises ``NumError`` where Go returns an error."""
    if not isinstance(text, str) or not _UNSIGNED.fullmatch(text):
        raise NumError(f"strconv.ParseUint: parsing {_quoted(text)}: invalid syntax")
    return _bounded("ParseUint", text, 0, (1 << bit_size) - 1)


#: Go's float syntax (readFloat): digits may be separated by underscores, which underscoreOK then
#: checks; an exponent starts with a digit; a hexadecimal mantissa needs a ``p`` exponent and at
#: least one hex digit (checked apart). No two parts of a pattern match the same characters, so a
#: long string that fails is refused in linear time.
_FLOAT_DECIMAL = re.compile(r"[+-]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9][0-9_]*)?")
_FLOAT_HEX = re.compile(r"[+-]?0[xX]([0-9a-fA-F_]*(?:\.[0-9a-fA-F_]*)?)[pP][+-]?[0-9][0-9_]*")
_HEX_DIGIT = re.compile(r"[0-9a-fA-F]")
#: Go's special(): a sign is accepted before an infinity, not before NaN.
_FLOAT_SPECIAL = re.compile(r"[+-]?inf(?:inity)?|nan", re.IGNORECASE)


def _underscores_ok(text: str) -> bool:
    """Go's underscoreOK: each '_' follows a digit or the base prefix and is followed by a digit."""
    body = text[1:] if text[:1] in "+-" else text
    hexadecimal = body[:2] in ("0x", "0X")
    saw = "0" if hexadecimal else "^"
    for ch in body[2:] if hexadecimal else body:
        if ch in "0123456789" or (hexadecimal and ch in "abcdefABCDEF"):
            saw = "0"
        elif ch == "_":
            if saw != "0":
                return False
            saw = "_"
        elif saw == "_":
            return False
        else:
            saw = "!"
    return saw != "_"


def parse_float(text: str) -> float:
    """``strconv.ParseFloat(text, 64)``; raises ``NumError`` where Go returns an error.

    Decimal and hexadecimal (``0x1p-2``) literals with Go's underscores between digits,
    ``Inf``/``Infinity`` (signed or not) and ``NaN`` in any case; no spaces; a finite literal too
    large for a float64 is "value out of range"."""
    if isinstance(text, str):
        if _FLOAT_SPECIAL.fullmatch(text):
            return float(text)
        value: float | None = None
        if "_" in text and not _underscores_ok(text):
            value = None
        elif _FLOAT_DECIMAL.fullmatch(text):
            value = float(text.replace("_", ""))
        elif (hexadecimal := _FLOAT_HEX.fullmatch(text)) and _HEX_DIGIT.search(hexadecimal.group(1)):
            try:
                value = float.fromhex(text.replace("_", ""))
            except OverflowError:
                value = float("inf")
        if value is not None:
            if value in (float("inf"), float("-inf")):
                raise NumError(f"strconv.ParseFloat: parsing {_quoted(text)}: value out of range")
            return value
    raise NumError(f"strconv.ParseFloat: parsing {_quoted(text)}: invalid syntax")
