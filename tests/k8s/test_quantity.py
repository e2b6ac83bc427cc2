"""Quantity parsing and printing, against upstream quantity_test.go tables (cases/quantity.yaml)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
import yaml

from kschedctl.errors import QuantityError
from kschedctl.k8s.quantity import (
    ExactQuantity,
    format_bytes,
    format_decimal,
    format_milli_cpu,
    format_quantity,
    int_value,
    milli_value,
    parse_exact,
    parse_quantity,
)

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "quantity.yaml").read_text())


def _params(section: str, key: str = "input") -> list:
    return [pytest.param(c, id=f"Quantity_{section}_{c[key] if isinstance(c, dict) else c}") for c in CASES[section]]


@pytest.mark.parametrize("case", _params("parse"))
def test_parse(case: dict) -> None:
    assert parse_quantity(case["input"]) == Fraction(case["value"])
    if "canonical" in case:
        assert format_quantity(case["input"]) == case["canonical"]


@pytest.mark.parametrize("case", _params("parse"))
def test_parse_signed(case: dict) -> None:
    # upstream re-runs the table with an explicit "-" and "+" in front of every input
    value = Fraction(case["value"])
    assert parse_quantity("-" + case["input"].lstrip("+-")) == -abs(value)
    assert parse_quantity("+" + case["input"].lstrip("+-")) == abs(value)


@pytest.mark.parametrize("case", _params("invalid"))
def test_invalid(case: dict) -> None:
    with pytest.raises(QuantityError, match=case["error"]) as info:
        parse_quantity(case["input"])
    assert repr(case["input"]) in str(info.value)


@pytest.mark.parametrize("text", _params("too_large"))
def test_too_large_is_rejected(text: str) -> None:
    with pytest.raises(QuantityError, match="too large"):
        parse_quantity(text)


@pytest.mark.parametrize("case", _params("format", "expect"))
def test_format(case: dict) -> None:
    fmt = {"binary": format_bytes, "decimal": format_decimal, "milli": format_milli_cpu}[case["kind"]]
    assert fmt(case["value"]) == case["expect"]


@pytest.mark.parametrize(
    ("value", "milli", "integer"),
    [
        ("100m", 100, 1),  # Value() rounds up
        ("1.5", 1500, 2),
        ("0.1m", 1, 1),  # MilliValue() rounds up
        ("1Gi", 1073741824000, 1073741824),
        ("-1.5m", -2, -1),  # away from zero, as upstream's RoundUp
        (2, 2000, 2),  # YAML int
        (0.5, 500, 1),  # YAML float
        (None, 0, 0),  # JSON null
        (Fraction(3, 2), 1500, 2),
    ],
)
def test_milli_and_int_value(value: object, milli: int, integer: int) -> None:
    assert milli_value(value) == milli
    assert int_value(value) == integer


def test_surrounding_white_space_is_trimmed_like_unmarshal_json() -> None:
    assert parse_quantity(" 1 ") == 1


@pytest.mark.parametrize("bad", [True, [1], {"a": 1}, float("inf"), "1" * 2000])
def test_non_quantities_are_rejected(bad: object) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(bad)  # type: ignore[arg-type]


def test_huge_exponents_do_not_hang() -> None:
    with pytest.raises(QuantityError):
        parse_quantity("1e999999999")
    assert parse_quantity("1e-999999999") == Fraction(1, 10**9)  # rounds up to one nano


def test_an_exponent_of_thousands_of_digits_is_a_suffix_error_not_a_crash() -> None:
    """Python's int() refuses more than 4300 digits; the exponent is read as strconv.ParseInt."""
    with pytest.raises(QuantityError, match="unable to parse quantity's suffix"):
        parse_quantity("1e" + "1" * 5000)
    assert parse_quantity("1e-" + "0" * 5000 + "1") == Fraction(1, 10)


@pytest.mark.parametrize("text, mantissa, exponent, decimal", [
    ("1", 1, 0, False),
    ("1500m", 1500, -3, False),
    ("1.5Gi", 1610612736 * 10**9, -9, True),           # a binary fraction: the inf.Dec path
    ("999999999999999999", 999999999999999999, 0, False),          # 18 digits: still an int64Amount
    ("9223372036854775808", 9223372036854775808 * 10**9, -9, True),  # above int64: not capped
    ("16Ei", 9223372036854775807, 0, True),            # a binary amount is capped at 2^63-1
    ("0.1n", 1, -9, True),                              # under a nano: rounded up to one
    ("0.000e-20", 0, -23, True),                        # zero is not rounded
    (" 1", None, None, None),                           # no trimming (only JSON decoding trims)
])
def test_parse_exact_keeps_upstream_representation(text: str, mantissa: int | None, exponent: int | None,
                                                   decimal: bool | None) -> None:
    if mantissa is None:
        with pytest.raises(QuantityError, match="quantities must match the regular expression"):
            parse_exact(text, 1000)
        return
    assert parse_exact(text, 1000) == ExactQuantity(mantissa, exponent, decimal)


def test_parse_exact_guards_against_huge_expansions() -> None:
    with pytest.raises(QuantityError, match="kschedctl: a quantity of more than 50 digits is not evaluated"):
        parse_exact("1" * 20 + "e60", 50)
    # more digits than Python's int() reads (last session's quantity("9" * 4991) fix), rescaled to nanos
    assert parse_exact("9" * 4991, 100_000) == ExactQuantity((10**4991 - 1) * 10**9, -9, True)
