"""Go's ``time.ParseDuration``, the one duration parser of kschedctl (config durations, extender
``httpTimeout``, ``--request-timeout``).

Parsed as Go does, in integer nanoseconds: a sign, then one or more ``<number><unit>`` with units
ns, us (µs, μs), ms, s, m, h; ``0`` alone needs no unit; a number may have a fraction (``1.5h``,
``.5s``, ``5.s``); more than 2^63-1 nanoseconds is an overflow. Errors carry Go's message
(``time: invalid duration "1d"``). Go's own test strings (src/time/time_test.go) are the table
of tests/k8s/test_duration.py.
"""

from __future__ import annotations

import json
import re
from typing import Any

_UNITS_NS = {"ns": 1, "us": 1_000, "µs": 1_000, "μs": 1_000, "ms": 1_000_000, "s": 1_000_000_000,
             "m": 60_000_000_000, "h": 3_600_000_000_000}
_PART = re.compile(r"([0-9]*)(\.[0-9]*)?(ns|us|µs|μs|ms|s|m|h)")
_MAX_NS = (1 << 63) - 1


def _invalid(text: str, why: str = "invalid duration") -> ValueError:
    return ValueError(f"time: {why} {json.dumps(text, ensure_ascii=False)}")


def parse_go_duration_ns(text: str) -> int:
    """Nanoseconds of Go duration ``text``; ValueError with Go's message if it is not one."""
    s = text
    negative = False
    if s[:1] in ("+", "-"):
        negative, s = s[0] == "-", s[1:]
    if s == "0":
        return 0
    if not s:
        raise _invalid(text)
    total, pos = 0, 0
    while pos < len(s):
        m = _PART.match(s, pos)
        if m is None:
            # Go's wording: the number, then the unit up to the next digit or dot.
            number_end = pos
            while number_end < len(s) and (s[number_end].isdigit() or s[number_end] == "."):
                number_end += 1
            if number_end == pos or s[pos:number_end] == ".":
                raise _invalid(text)
            unit_end = number_end
            while unit_end < len(s) and not (s[unit_end].isdigit() or s[unit_end] == "."):
                unit_end += 1
            if unit_end == number_end:
                raise _invalid(text, "missing unit in duration")
            raise ValueError(f"time: unknown unit {json.dumps(s[number_end:unit_end], ensure_ascii=False)} "
                             f"in duration {json.dumps(text, ensure_ascii=False)}")
        whole, frac, unit = m.group(1), (m.group(2) or "")[1:], m.group(3)
        if not whole and not frac:
            raise _invalid(text)  # "." alone, ".s"
        scale = _UNITS_NS[unit]
        value = int(whole or "0") * scale
        if frac:
            # As Go: the fraction's digits as an integer (those that fit in an int64), times the
            # unit over their scale, in float64, truncated (nanosecond-exact for fractions of hours).
            x, frac_scale = 0, 1.0
            for ch in frac:
                if x > _MAX_NS // 10:
                    break
                y = x * 10 + int(ch)
                if y > 1 << 63:
                    break
                x, frac_scale = y, frac_scale * 10
            value += int(float(x) * (float(scale) / frac_scale))
        total += value
        if total > _MAX_NS + (1 if negative else 0):
            raise _invalid(text)
        pos = m.end()
    return -total if negative else total


def parse_go_duration(text: str) -> float:
    """Seconds of Go duration ``text`` (``"10s"``, ``"1m30s"``, ``"-1.5h"``, ``"0"``)."""
    return parse_go_duration_ns(str(text)) / 1e9


def parse_metav1_duration(value: Any) -> float:
    """Seconds of a ``metav1.Duration`` field as Go's JSON decoding reads it: a duration string,
    a number of nanoseconds, or nothing (0)."""
    if value is None or value == "":
        return 0.0
    if isinstance(value, bool):
        raise _invalid(str(value))
    if isinstance(value, (int, float)):
        return float(value) * 1e-9
    return parse_go_duration(str(value))
