"""PodTopologySpread's column twin: Filter, Score and NormalizeScore for every node at once.

The object forms are ``filtering`` (Filter's skew check), ``scoring.score_nodes`` and
``scoring.normalize_values`` (upstream filtering.go and scoring.go, v1.34.4); this twin answers
the same from the cycle's PreFilter / PreScore state and each node's topology values, codes into
the state's domain counts (see kschedctl.framework.twins). Hostname constraints count each
node's matching pods, again only on the nodes whose pods changed. A rejected node's status still
comes from the plugin's Filter.

Bit for bit: the float sum takes the same IEEE operations in the same order, element by element
(no reduction whose order numpy picks), and rounds half up as ``score_nodes`` does (a score never
negative); NormalizeScore's division truncates toward zero as ``go_div`` does.
"""

from __future__ import annotations

import numpy as np

from kschedctl.framework.interfaces import MAX_NODE_SCORE
from kschedctl.framework.twins import ColumnCycle, ColumnFilter, ColumnScores
from kschedctl.plugins.normalize_columns import go_div_by
from kschedctl.plugins.pod_topology_spread import NAME, PRE_FILTER_STATE_KEY, PRE_SCORE_STATE_KEY
from kschedctl.plugins.pod_topology_spread.common import count_node_pods_match_selector


def _by_code(values: list[str], counts: dict[str, int]) -> np.ndarray:
    """``counts`` per value code, then a trailing 0 that code -1 (no label) picks."""
    return np.array([counts.get(v, 0) for v in values] + [0], dtype=np.int64)


def column_filter(cycle: ColumnCycle) -> ColumnFilter | None:
    """A node passes when it has every constraint's topology key and, per constraint, its
    domain's ``matchNum + selfMatch - minMatchNum`` is at most maxSkew."""
    try:
        s = cycle.state.read(PRE_FILTER_STATE_KEY)
    except KeyError:
        return None  # the plugin reports the missing state itself
    columns = cycle.columns

    def verdicts(at: np.ndarray) -> np.ndarray:
        ok = np.ones(len(at), dtype=bool)
        for i, c in enumerate(s.constraints):
            codes, values = columns.label_codes(c.topology_key)
            node_codes = codes[at]
            skew = _by_code(values, s.tp_value_to_match_num[i])[node_codes] + (s.self_match[i] - s.min_match_num(i))
            ok &= (node_codes >= 0) & (skew <= c.max_skew)
        return ok

    return ColumnFilter(verdicts)


def column_score(cycle: ColumnCycle, at: np.ndarray) -> ColumnScores | None:
    """Per constraint, in order, ``float(count) * weight + float(maxSkew - 1)`` added where the
    node has the topology label, then rounded half up; ignored nodes score 0."""
    try:
        s = cycle.state.read(PRE_SCORE_STATE_KEY)
    except KeyError:
        return None  # the plugin reports the missing state itself
    columns = cycle.columns
    namespace = cycle.pod_info.namespace
    score = np.zeros(len(at), dtype=np.float64)
    for i, c in enumerate(s.constraints):
        codes, values = columns.label_codes(c.topology_key)
        node_codes = codes[at]
        if c.is_hostname:
            key = None if c.selector_key is None else (NAME, c.selector_key, namespace)
            count = columns.node_counts(key, lambda node_info, c=c: count_node_pods_match_selector(
                node_info, c, namespace), at)
        else:
            count = _by_code(values, s.topology_value_to_pod_counts[i])[node_codes]
        term = count.astype(np.float64) * s.topology_normalizing_weight[i] + float(c.max_skew - 1)
        score = np.where(node_codes >= 0, score + term, score)
    rounded = np.trunc(score)
    raw = (rounded + np.where(score - rounded >= 0.5, 1.0, 0.0)).astype(np.int64)
    ignored = columns.ignored(s.ignored_nodes, at)
    if ignored is not None:
        raw = np.where(ignored, 0, raw)
    return ColumnScores(raw, at, (s, raw))


def column_normalize(cycle: ColumnCycle, scores: ColumnScores) -> np.ndarray:
    """``100 * (max + min - score) // max`` over the nodes not ignored (100 each when the
    maximum is 0); ignored nodes get 0."""
    s, values = scores.context
    ignored = cycle.columns.ignored(s.ignored_nodes, scores.at)
    counted = values if ignored is None else values[~ignored]
    low = int(counted.min()) if len(counted) else 0
    high = max(int(counted.max()), 0) if len(counted) else 0
    if high == 0:
        out = np.full(len(values), MAX_NODE_SCORE, dtype=np.int64)
    else:
        out = go_div_by(MAX_NODE_SCORE * (high + low - values), high)
    return out if ignored is None else np.where(ignored, 0, out)
