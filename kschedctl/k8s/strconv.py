"""Go's ``strconv.ParseInt`` for base 10, with its error messages.

Annotations and flags that upstream reads with ``strconv.ParseInt(s, 10, bits)`` must accept and
refuse exactly the same strings here: an optional sign and ASCII digits, nothing else (no
spaces, no underscores, no ``0x``), within the signed range of ``bits``.
"""

from __future__ import annotations

import json
import re

__all__ = ["NumError", "parse_int"]

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
