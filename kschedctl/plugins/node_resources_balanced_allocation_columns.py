"""NodeResourcesBalancedAllocation's column twin: its Score for every node at once.

The object form is ``resource_allocation.balanced_resource_scorer`` (upstream
balanced_allocation.go, v1.34.4); see kschedctl.framework.twins.
"""

from __future__ import annotations

import numpy as np

from kschedctl.framework.cycle_state import StateNotFound
from kschedctl.framework.twins import ColumnCycle, ColumnScores
from kschedctl.plugins.node_resources_balanced_allocation import PRE_SCORE_STATE_KEY
from kschedctl.plugins.resource_allocation_columns import balanced, resource_scores


def column_score(cycle: ColumnCycle, at: np.ndarray) -> ColumnScores | None:
    """``(1 - std) * 100`` of each node's requested/allocatable fractions, from the PreScore plan."""
    try:
        plan = cycle.state.read(PRE_SCORE_STATE_KEY)
    except StateNotFound:
        return None
    values = resource_scores(cycle.columns, cycle.plugin.scorer, balanced, plan, at)
    return None if values is None else ColumnScores(values, at)
