"""Go's strconv functions (kschedctl.k8s.strconv): the strings they accept and the errors they give.

The ParseFloat cases are Go's own (strconv/atof_test.go, Go 1.24: the underscore and special-value
rows); the CEL interpreter converts strings with these functions, so a difference here would be
one in ``double("...")`` too.
"""

from __future__ import annotations

import math

import pytest

from kschedctl.k8s.strconv import NumError, parse_float, parse_int, parse_uint, quote

SYNTAX = "invalid syntax"
RANGE = "value out of range"


@pytest.mark.parametrize("text, expect", [
    ("1_23.50_0_0e+1_2", 1.235e14),
    ("-_123.5e+12", SYNTAX), ("+_123.5e+12", SYNTAX), ("_123.5e+12", SYNTAX), ("1__23.5e+12", SYNTAX),
    ("123_.5e+12", SYNTAX), ("123._5e+12", SYNTAX), ("123.5_e+12", SYNTAX), ("123.5__0e+12", SYNTAX),
    ("123.5e_+12", SYNTAX), ("123.5e+_12", SYNTAX), ("123.5e_-12", SYNTAX), ("123.5e-_12", SYNTAX),
    ("123.5e+1__2", SYNTAX), ("123.5e+12_", SYNTAX),
    ("0x_1_2.3_4_5p+1_2", 74565.0),
    ("-_0x12.345p+12", SYNTAX), ("+_0x12.345p+12", SYNTAX), ("_0x12.345p+12", SYNTAX), ("0x__12.345p+12", SYNTAX),
    ("0x1__2.345p+12", SYNTAX), ("0x12_.345p+12", SYNTAX), ("0x12._345p+12", SYNTAX), ("0x12.3__45p+12", SYNTAX),
    ("0x12.345_p+12", SYNTAX), ("0x12.345p_+12", SYNTAX), ("0x12.345p+_12", SYNTAX), ("0x12.345p_-12", SYNTAX),
    ("0x12.345p-_12", SYNTAX), ("0x12.345p+1__2", SYNTAX), ("0x12.345p+12_", SYNTAX),
    ("0x_p0", SYNTAX), ("0x1", SYNTAX), ("0x.p1", SYNTAX), ("1e", SYNTAX), (".", SYNTAX), (" 1", SYNTAX),
    ("infinity", math.inf), ("+inf", math.inf), ("-Infinity", -math.inf), ("infinit", SYNTAX),
    ("nan", "nan"), ("NaN", "nan"), ("+nan", SYNTAX), ("-nan", SYNTAX),
    ("1e400", RANGE), ("-1e400", RANGE), ("1e-400", 0.0), ("1e+18446744073709551616", RANGE),
    ("0x1p99999", RANGE), ("-0x1p99999", RANGE), ("0x1.fffffffffffffp1023", 1.7976931348623157e308),
    ("1.5", 1.5), (".5", 0.5), ("5.", 5.0), ("0x1p-2", 0.25),
])
def test_parse_float(text: str, expect: object) -> None:
    if expect in (SYNTAX, RANGE):
        with pytest.raises(NumError) as info:
            parse_float(text)
        assert str(info.value) == f"strconv.ParseFloat: parsing {quote(text)}: {expect}"
    elif expect == "nan":
        assert math.isnan(parse_float(text))
    else:
        assert parse_float(text) == expect


@pytest.mark.parametrize("function, text, bits, expect", [
    (parse_int, "-9223372036854775808", 64, -(1 << 63)),
    (parse_int, "9223372036854775808", 64, f"strconv.ParseInt: parsing \"9223372036854775808\": {RANGE}"),
    (parse_int, "+0000000000000000000000000000042", 8, 42),
    (parse_int, "9" * 5000, 64, RANGE),     # more digits than Python's int() reads: a range error
    (parse_int, "-" + "0" * 5000 + "7", 64, -7),
    (parse_int, "1_0", 64, SYNTAX),
    (parse_uint, "18446744073709551615", 64, (1 << 64) - 1),
    (parse_uint, "18446744073709551616", 64, f"strconv.ParseUint: parsing \"18446744073709551616\": {RANGE}"),
    (parse_uint, "+1", 64, 'strconv.ParseUint: parsing "+1": invalid syntax'),
    (parse_uint, "9" * 5000, 64, RANGE),
])
def test_parse_int_and_uint(function: object, text: str, bits: int, expect: object) -> None:
    if isinstance(expect, int):
        assert function(text, bits) == expect  # type: ignore[operator]
        return
    with pytest.raises(NumError) as info:
        function(text, bits)  # type: ignore[operator]
    assert str(info.value).endswith(expect)  # type: ignore[arg-type]


@pytest.mark.parametrize("text, quoted", [
    ("a", '"a"'), ('"\\', '"\\"\\\\"'), ("\n\t", '"\\n\\t"'), ("\x01\x7f", '"\\x01\\x7f"'),
    ("é", '"é"'), ("\u200b", '"\\u200b"'), ("\U000e0001", '"\\U000e0001"'),
])
def test_quote_is_go_percent_q(text: str, quoted: str) -> None:
    assert quote(text) == quoted


@pytest.mark.parametrize("text", ["1" * 200_000 + "x", "0x" + "1" * 200_000 + "x", "1_" * 100_000 + "x"])
def test_long_strings_are_refused_in_linear_time(text: str) -> None:
    """A CEL expression can build a string this long at run time and convert it."""
    with pytest.raises(NumError, match="invalid syntax"):
        parse_float(text)
