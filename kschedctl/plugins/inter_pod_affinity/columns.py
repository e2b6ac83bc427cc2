"""InterPodAffinity's column twin: its Filter verdict, Score and NormalizeScore for every node
at once.

The object forms are ``filtering.filter_node`` (upstream filtering.go, v1.34.4), and
``scoring.node_score`` and ``scoring.normalize`` (scoring.go); this twin answers the same from
the cycle's PreFilter counts or PreScore map and each node's values of the topology keys they
hold (see kschedctl.framework.twins). A rejected node's status, with its reasons and details,
still comes from ``filter_node``.
"""

from __future__ import annotations

import numpy as np

from kschedctl.framework.cycle_state import StateNotFound
from kschedctl.framework.interfaces import MAX_NODE_SCORE
from kschedctl.framework.twins import ColumnCycle, ColumnFilter, ColumnScores
from kschedctl.plugins.inter_pod_affinity.filtering import PRE_FILTER_STATE_KEY, first_of_group
from kschedctl.plugins.inter_pod_affinity.scoring import PRE_SCORE_STATE_KEY

#: Topology keys a score map may hold for the sum of their amounts (each below ``SAFE_AMOUNT``,
#: 2**54) to stay within int64.
_MAX_KEYS = 256


def column_filter(cycle: ColumnCycle) -> ColumnFilter | None:
    """Each of the pod's affinity terms needs its key on the node and a matching pod in the node's
    domain (unless the pod is the first of its group: then the keys alone); a domain counted by
    the pod's anti-affinity or by existing pods' anti-affinity against it rejects the node."""
    try:
        s = cycle.state.read(PRE_FILTER_STATE_KEY)
    except KeyError:
        return None  # the plugin reports the missing state itself
    columns = cycle.columns

    def verdicts(at: np.ndarray) -> np.ndarray:
        ok = np.ones(len(at), dtype=bool)
        if s.affinity_terms:
            first = first_of_group(s)
            for term in s.affinity_terms:
                codes = columns.label_codes(term.topology_key)[0][at]
                ok &= codes >= 0
                if not first:
                    ok &= columns.counted(term.topology_key, s.affinity.counts, s.affinity.shared)[codes]
        existing = s.existing_anti
        for counts, keys, lent in ((s.anti.counts, s.anti_keys, s.anti.shared),
                                   (existing.counts, existing.keys if existing.keys is not None
                                    else existing.topology_keys(), existing.shared)):
            if counts:
                for key in dict.fromkeys(keys):
                    # a dict lent by the sums kept across cycles never changes: its answer is kept
                    ok &= ~columns.counted(key, counts, lent)[columns.label_codes(key)[0][at]]
        return ok

    return ColumnFilter(verdicts)


def column_score(cycle: ColumnCycle, at: np.ndarray) -> ColumnScores | None:
    """The sum, over the topology keys of PreScore's map, of the amount kept for the node's value
    of the key (0 without the label or without an amount)."""
    try:
        s = cycle.state.read(PRE_SCORE_STATE_KEY)
    except StateNotFound:
        return None  # the plugin reports the missing state itself
    topology_score = s.topology_score
    if len(topology_score) > _MAX_KEYS:
        return None
    columns = cycle.columns
    total = np.zeros(len(at), dtype=np.int64)
    for key, amounts in topology_score.items():
        table = columns.valued(key, amounts, s.lent)  # a lent map's value dicts never change
        if table is None:
            return None
        total += table[columns.label_codes(key)[0][at]]
    return ColumnScores(total, at, s)


def column_normalize(cycle: ColumnCycle, scores: ColumnScores) -> np.ndarray:
    """Min-max scaling to ``[0, MAX_NODE_SCORE]`` in float64, truncated, as upstream; every node 0
    when all scores are equal."""
    values = np.asarray(scores.values, dtype=np.int64)
    if not scores.context.topology_score or not len(values):
        return values
    low = int(values.min())
    spread = int(values.max()) - low
    if spread <= 0:
        return np.zeros(len(values), dtype=np.int64)
    # the same float64 operations as the object form (and Go), element by element; f >= 0, so
    # the conversion truncates as int() does
    return (float(MAX_NODE_SCORE) * ((values - low).astype(np.float64) / float(spread))).astype(np.int64)
