"""Go's time.ParseDuration test table (src/time/time_test.go), as facts."""

from __future__ import annotations

import pytest

from kschedctl.k8s.duration import parse_go_duration_ns, parse_metav1_duration

NS, US, MS, S, M, H = 1, 1_000, 1_000_000, 1_000_000_000, 60_000_000_000, 3_600_000_000_000

VALID = [
    ("0", 0), ("5s", 5 * S), ("30s", 30 * S), ("1478s", 1478 * S), ("-5s", -5 * S), ("+5s", 5 * S), ("-0", 0),
    ("+0", 0), ("5.0s", 5 * S), ("5.6s", 5 * S + 600 * MS), ("5.s", 5 * S), (".5s", 500 * MS), ("1.0s", 1 * S),
    ("1.00s", 1 * S), ("1.004s", 1 * S + 4 * MS), ("1.0040s", 1 * S + 4 * MS), ("100.00100s", 100 * S + 1 * MS),
    ("10ns", 10 * NS), ("11us", 11 * US), ("12µs", 12 * US), ("12μs", 12 * US), ("13ms", 13 * MS), ("14s", 14 * S),
    ("15m", 15 * M), ("16h", 16 * H), ("3h30m", 3 * H + 30 * M), ("10.5s4m", 4 * M + 10 * S + 500 * MS),
    ("-2m3.4s", -(2 * M + 3 * S + 400 * MS)), ("1h2m3s4ms5us6ns", 1 * H + 2 * M + 3 * S + 4 * MS + 5 * US + 6 * NS),
    ("39h9m14.425s", 39 * H + 9 * M + 14 * S + 425 * MS), ("52763797000ns", 52763797000 * NS),
    ("0.3333333333333333333h", 20 * M), ("9007199254740993ns", (1 << 53) + 1),
    ("9223372036854775807ns", (1 << 63) - 1), ("9223372036854775.807us", (1 << 63) - 1),
    ("-9223372036854775808ns", -(1 << 63)), ("0.100000000000000000000h", 6 * M),
]
INVALID = ["", "3", "-", "s", ".", "-.", ".s", "+.s", "1d", "9223372036854775810ns", "-9223372036854775809ns"]


@pytest.mark.parametrize("text,ns", VALID)
def test_valid(text: str, ns: int) -> None:
    assert parse_go_duration_ns(text) == ns


@pytest.mark.parametrize("text", INVALID)
def test_invalid(text: str) -> None:
    with pytest.raises(ValueError) as exc:
        parse_go_duration_ns(text)
    assert str(exc.value).startswith("time: ")


def test_go_messages() -> None:
    with pytest.raises(ValueError, match=r'^time: invalid duration "soon"$'):
        parse_go_duration_ns("soon")
    with pytest.raises(ValueError, match=r'^time: missing unit in duration "3"$'):
        parse_go_duration_ns("3")
    with pytest.raises(ValueError, match=r'^time: unknown unit "d" in duration "1d"$'):
        parse_go_duration_ns("1d")


def test_metav1_duration() -> None:
    assert parse_metav1_duration(None) == 0.0
    assert parse_metav1_duration(5_000_000_000) == 5.0
    assert parse_metav1_duration("1m30s") == 90.0
