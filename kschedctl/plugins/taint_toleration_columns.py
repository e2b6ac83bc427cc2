"""TaintToleration's column twin: its NormalizeScore for every node at once (its Score is kept
per node object, ``PluginFacts.object_local``). The object form is the plugin's
``normalize_values``: upstream's DefaultNormalizeScore, reversed (taint_toleration.go, v1.34.4);
see kschedctl.framework.twins.
"""

from __future__ import annotations

import numpy as np

from kschedctl.framework.interfaces import MAX_NODE_SCORE
from kschedctl.framework.twins import ColumnCycle, ColumnScores
from kschedctl.plugins.normalize_columns import default_normalize


def column_normalize(cycle: ColumnCycle, scores: ColumnScores) -> np.ndarray:
    """Fewer intolerable PreferNoSchedule taints, a higher score."""
    return default_normalize(MAX_NODE_SCORE, True, scores.values)
