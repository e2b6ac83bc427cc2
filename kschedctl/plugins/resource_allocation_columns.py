"""The column forms of the resource-allocation scorers (``resource_allocation``), for the twins of
NodeResourcesFit and NodeResourcesBalancedAllocation (``node_resources_fit_columns``,
``node_resources_balanced_allocation_columns``; see kschedctl.framework.twins).

Bit for bit the scalar scorers' answers:

- the scalar code works on Python integers, which never overflow; the columns hold amounts in
  [0, ``SAFE_AMOUNT``) (2**54: ``(a - (b + c)) * 100`` of three fits in an int64), and a request
  beyond it is not covered (the object form answers);
- integer divisions are Python's (floor), which numpy's ``//`` is too;
- float sums take the same IEEE operations in the same order, element by element (no reductions
  whose order numpy picks), and rounding is the scorer's (``go_round``, half away from zero);
- RequestedToCapacityRatio's shape function is the scorer's own, called once per utilization.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from kschedctl.framework.interfaces import MAX_NODE_SCORE
from kschedctl.framework.twins import (
    ALLOC_CPU,
    ALLOC_EPHEMERAL,
    ALLOC_MEMORY,
    NZ_CPU,
    NZ_MEMORY,
    REQ_CPU,
    REQ_EPHEMERAL,
    REQ_MEMORY,
    SAFE_AMOUNT,
    ColumnsView,
)
from kschedctl.plugins.resource_allocation import (
    MAX_UTILIZATION,
    RESOURCE_KIND_CPU,
    RESOURCE_KIND_EPHEMERAL,
    RESOURCE_KIND_MEMORY,
    ResourceAllocationScorer,
    Scorer,
)


def resource_scores(columns: ColumnsView, scorer: ResourceAllocationScorer, form: Callable[..., np.ndarray],
                    plan: Any, at: np.ndarray) -> np.ndarray | None:
    """``scorer.score(node, plan)`` for the nodes at positions ``at``, ``form`` being the column
    form of ``scorer.scorer`` (one of those below); None when not covered (a request beyond
    ``SAFE_AMOUNT``)."""
    if not scorer.resources:
        return None  # the plugin's Error status
    requested_list: list[np.ndarray] = []
    allocatable_list: list[np.ndarray] = []
    valid_list: list[np.ndarray] = []
    weights: list[int] = []
    fixed = columns.fixed
    use_requested = scorer.use_requested
    for kind, res, weight, request in plan.entries:
        if not 0 <= request < SAFE_AMOUNT:
            return None
        if kind == RESOURCE_KIND_CPU:
            alloc = fixed[ALLOC_CPU, at]
            used = fixed[REQ_CPU if use_requested else NZ_CPU, at]
            present = None
        elif kind == RESOURCE_KIND_MEMORY:
            alloc = fixed[ALLOC_MEMORY, at]
            used = fixed[REQ_MEMORY if use_requested else NZ_MEMORY, at]
            present = None
        elif kind == RESOURCE_KIND_EPHEMERAL:
            alloc = fixed[ALLOC_EPHEMERAL, at]
            used = fixed[REQ_EPHEMERAL, at]
            present = None
        else:
            column = columns.scalar(res)
            alloc = column.allocatable[at]
            used = column.requested[at]
            present = column.present[at]
        valid = alloc != 0
        if present is not None:
            valid &= present
        requested_list.append(used + request)
        allocatable_list.append(alloc)
        valid_list.append(valid)
        weights.append(weight)
    return form(requested_list, allocatable_list, valid_list, weights, len(at))


def least_allocated(requested: list[np.ndarray], allocatable: list[np.ndarray], valid: list[np.ndarray],
                    weights: list[int], size: int) -> np.ndarray:
    """``least_allocated_scorer``, element by element."""
    return _mean_share(requested, allocatable, valid, weights, size, least=True)


def most_allocated(requested: list[np.ndarray], allocatable: list[np.ndarray], valid: list[np.ndarray],
                   weights: list[int], size: int) -> np.ndarray:
    """``most_allocated_scorer``, element by element."""
    return _mean_share(requested, allocatable, valid, weights, size, least=False)


def _mean_share(requested: list[np.ndarray], allocatable: list[np.ndarray], valid: list[np.ndarray],
                weights: list[int], size: int, least: bool) -> np.ndarray:
    node_score = np.zeros(size, dtype=np.int64)
    weight_sum = np.zeros(size, dtype=np.int64)
    for req, alloc, ok, weight in zip(requested, allocatable, valid, weights):
        divisor = np.where(ok, alloc, 1)
        if least:
            share = np.where(req > alloc, 0, (alloc - req) * MAX_NODE_SCORE // divisor)
        else:
            share = np.minimum(req, alloc) * MAX_NODE_SCORE // divisor
        node_score += np.where(ok, share * weight, 0)
        weight_sum += np.where(ok, weight, 0)
    out = np.where(weight_sum != 0, node_score // np.where(weight_sum != 0, weight_sum, 1), 0)
    return out


def requested_to_capacity_ratio(scorer: Scorer) -> Callable[..., list[int]]:
    """The column form of ``scorer``, a ``requested_to_capacity_ratio_scorer``: the same shape
    function, called once per distinct utilization."""
    shape, at_max = scorer.shape_function, scorer.score_at_max  # type: ignore[attr-defined]

    def form(requested: list[np.ndarray], allocatable: list[np.ndarray], valid: list[np.ndarray],
             weights: list[int], size: int) -> np.ndarray:
        return _requested_to_capacity_ratio(shape, at_max, requested, allocatable, valid, weights, size)

    return form


def _requested_to_capacity_ratio(shape: Any, at_max: int, requested: list[np.ndarray], allocatable: list[np.ndarray],
                                 valid: list[np.ndarray], weights: list[int], size: int) -> np.ndarray:
    node_score = np.zeros(size, dtype=np.int64)
    weight_sum = np.zeros(size, dtype=np.int64)
    for req, alloc, ok, weight in zip(requested, allocatable, valid, weights):
        divisor = np.where(ok, alloc, 1)
        utilization = req * MAX_UTILIZATION // divisor
        distinct, inverse = np.unique(utilization, return_inverse=True)
        mapped = np.array([shape(int(u)) for u in distinct.tolist()], dtype=np.int64)[inverse.reshape(-1)]
        score = np.where(req > alloc, at_max, mapped)
        counted = ok & (score > 0)
        node_score += np.where(counted, score * weight, 0)
        weight_sum += np.where(counted, weight, 0)
    mean = node_score.astype(np.float64) / np.where(weight_sum != 0, weight_sum, 1).astype(np.float64)
    whole = np.trunc(mean)
    rounded = whole + np.where(np.abs(mean - whole) >= 0.5, np.where(mean > 0, 1.0, -1.0), 0.0)
    return np.where(weight_sum != 0, rounded, 0.0).astype(np.int64)


def balanced(requested: list[np.ndarray], allocatable: list[np.ndarray], valid: list[np.ndarray],
             weights: list[int], size: int) -> np.ndarray:
    """``balanced_resource_scorer``, element by element (fractions summed in the same order;
    weights ignored, as there)."""
    fractions: list[np.ndarray] = []
    total = np.zeros(size, dtype=np.float64)
    count = np.zeros(size, dtype=np.int64)
    first = np.zeros(size, dtype=np.float64)
    second = np.zeros(size, dtype=np.float64)
    for req, alloc, ok in zip(requested, allocatable, valid):
        fraction = req.astype(np.float64) / np.where(ok, alloc, 1).astype(np.float64)
        fraction = np.where(fraction > 1, 1.0, fraction)
        total = np.where(ok, total + fraction, total)
        first = np.where(ok & (count == 0), fraction, first)
        second = np.where(ok & (count == 1), fraction, second)
        count += ok
        fractions.append(fraction)
    std = np.zeros(size, dtype=np.float64)
    std = np.where(count == 2, np.abs((first - second) / 2), std)
    many = count > 2
    if many.any():
        n = np.where(many, count, 1).astype(np.float64)
        mean = total / n
        acc = np.zeros(size, dtype=np.float64)
        for fraction, ok in zip(fractions, valid):
            acc = np.where(ok, acc + (fraction - mean) * (fraction - mean), acc)
        std = np.where(many, np.sqrt(acc / n), std)
    return np.trunc((1 - std) * float(MAX_NODE_SCORE)).astype(np.int64)
