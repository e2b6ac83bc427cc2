"""k8s/quantity.py against the kubernetes client's ``parse_quantity`` on generated quantities:
the same value wherever both accept it, rounded up to whole nanounits as upstream's
``Quantity`` does, away from zero (the client keeps the exact Decimal)."""

from __future__ import annotations

import math
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st
from kubernetes.utils import parse_quantity

from kschedctl.errors import QuantityError
from kschedctl.k8s.quantity import MAX_QUANTITY, nanos

SUFFIXES = ["", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "e3", "E6", "e-3"]


@st.composite
def quantities(draw: st.DrawFn) -> str:
    whole = draw(st.integers(min_value=0, max_value=10**12))
    frac = draw(st.one_of(st.just(""), st.integers(min_value=0, max_value=10**9).map(lambda f: f".{f}")))
    sign = draw(st.sampled_from(["", "", "+", "-"]))
    return f"{sign}{whole}{frac}{draw(st.sampled_from(SUFFIXES))}"


@settings(max_examples=500, deadline=None)
@given(quantities())
def test_same_value_as_the_kubernetes_client(text: str) -> None:
    exact = parse_quantity(text) * Decimal(10**9)
    if abs(exact) > Decimal(MAX_QUANTITY) * Decimal(10**9):
        return  # past what a Quantity holds: upstream caps, the client does not
    try:
        ours = nanos(text)
    except QuantityError:
        raise AssertionError(f"{text!r} refused, the client reads {exact}") from None
    # Upstream rounds to whole nanounits away from zero (inf.Dec's RoundUp).
    expected = math.ceil(abs(exact)) * (-1 if exact < 0 else 1)
    assert ours == expected, text
