"""Decimal arithmetic on integers of any length: Python refuses to convert ints of more than 4300
digits to or from text, and quantities may hold many more."""

from __future__ import annotations

import functools


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
