"""NodeResourcesFit's column twin: its Filter verdict and its Score for every node at once.

The object forms are ``node_resources_fit._fits_request`` and the strategy's scorer in
``resource_allocation`` (upstream fit.go and least_allocated.go, most_allocated.go,
requested_to_capacity_ratio.go, v1.34.4); see kschedctl.framework.twins. A rejected node's
status, with its insufficient resources, still comes from the plugin's Filter.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from kschedctl.framework.cycle_state import StateNotFound
from kschedctl.framework.twins import (
    ALLOC_CPU,
    ALLOC_EPHEMERAL,
    ALLOC_MEMORY,
    ALLOC_PODS,
    POD_COUNT,
    REQ_CPU,
    REQ_EPHEMERAL,
    REQ_MEMORY,
    ColumnCycle,
    ColumnFilter,
    ColumnScores,
    safe,
)
from kschedctl.plugins.node_resources_fit import PRE_FILTER_STATE_KEY, PRE_SCORE_STATE_KEY
from kschedctl.plugins.resource_allocation import LEAST_ALLOCATED, MOST_ALLOCATED
from kschedctl.plugins.resource_allocation_columns import (
    least_allocated,
    most_allocated,
    requested_to_capacity_ratio,
    resource_scores,
)


def column_filter(cycle: ColumnCycle) -> ColumnFilter | None:
    """The node fits when one more pod and each amount the pod requests are within what is left
    of its allocatable (``_fits_request`` finds nothing missing)."""
    try:
        request = cycle.state.read(PRE_FILTER_STATE_KEY)
    except KeyError:
        return None  # the plugin reports the missing state itself
    amounts = [request.milli_cpu, request.memory, request.ephemeral_storage]
    amounts.extend(quantity for _, quantity in request.scalars)
    if not safe(amounts):
        return None
    columns = cycle.columns
    cpu, memory, storage = request.milli_cpu, request.memory, request.ephemeral_storage

    def verdicts(at: np.ndarray) -> np.ndarray:
        fixed = columns.fixed
        fits = fixed[POD_COUNT, at] + 1 <= fixed[ALLOC_PODS, at]
        if cpu > 0:
            fits &= cpu <= fixed[ALLOC_CPU, at] - fixed[REQ_CPU, at]
        if memory > 0:
            fits &= memory <= fixed[ALLOC_MEMORY, at] - fixed[REQ_MEMORY, at]
        if storage > 0:
            fits &= storage <= fixed[ALLOC_EPHEMERAL, at] - fixed[REQ_EPHEMERAL, at]
        for name, quantity in request.scalars:
            column = columns.scalar(name)
            fits &= quantity <= column.allocatable[at] - column.requested[at]
        return fits

    return ColumnFilter(verdicts)


def _form(plugin: Any) -> Callable[..., list[int]]:
    """The column form of the plugin's scorer, picked by its strategy as the plugin picks it."""
    if plugin.strategy == LEAST_ALLOCATED:
        return least_allocated
    if plugin.strategy == MOST_ALLOCATED:
        return most_allocated
    return requested_to_capacity_ratio(plugin.scorer.scorer)


def column_score(cycle: ColumnCycle, at: np.ndarray) -> ColumnScores | None:
    """The strategy's score of each node, from the pod's PreScore plan."""
    try:
        plan = cycle.state.read(PRE_SCORE_STATE_KEY)
    except StateNotFound:
        return None
    plugin = cycle.plugin
    values = resource_scores(cycle.columns, plugin.scorer, _form(plugin), plan, at)
    return None if values is None else ColumnScores(values, at)
