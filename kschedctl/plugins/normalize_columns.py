"""Upstream's DefaultNormalizeScore over an array of raw scores: the column form of
``helper.default_normalize_values`` (pkg/scheduler/framework/plugins/helper/normalize_score.go,
v1.34.4), shared by the twins of the plugins that normalize with it, and Go's integer division
on arrays for any twin. See kschedctl.framework.twins.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


def go_div_by(numerators: np.ndarray, divisor: int) -> np.ndarray:
    """``go_div`` of each of ``numerators`` by a positive ``divisor``: truncated toward zero,
    as Go's ``/`` on int64 (numpy's ``//`` floors)."""
    quotient = np.abs(numerators) // divisor
    return np.where(numerators >= 0, quotient, -quotient)


def default_normalize(max_priority: int, reverse: bool, raw: Sequence[int]) -> np.ndarray:
    """``[0, max(raw)]`` rescaled to ``[0, max_priority]`` (Go's integer division, truncated toward
    zero), then ``max_priority - score`` under ``reverse``; when no score is above 0, every node
    gets ``max_priority`` under ``reverse`` and keeps its score otherwise."""
    values = np.asarray(raw, dtype=np.int64)
    top = int(values.max()) if len(values) else 0
    if top <= 0:
        return np.full(len(values), max_priority, dtype=np.int64) if reverse else values
    quotient = go_div_by(max_priority * values, top)
    return max_priority - quotient if reverse else quotient
