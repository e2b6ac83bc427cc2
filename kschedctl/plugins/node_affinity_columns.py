"""NodeAffinity's column twin: its NormalizeScore for every node at once (its Score is kept per
node object, ``PluginFacts.object_local``). The object form is the plugin's ``normalize_score``:
upstream's DefaultNormalizeScore (node_affinity.go, v1.34.4); see kschedctl.framework.twins.
"""

from __future__ import annotations

import numpy as np

from kschedctl.framework.interfaces import MAX_NODE_SCORE
from kschedctl.framework.twins import ColumnCycle, ColumnScores
from kschedctl.plugins.normalize_columns import default_normalize


def column_normalize(cycle: ColumnCycle, scores: ColumnScores) -> np.ndarray:
    """The preferred terms' weights matched, scaled to the best node's."""
    return default_normalize(MAX_NODE_SCORE, False, scores.values)
