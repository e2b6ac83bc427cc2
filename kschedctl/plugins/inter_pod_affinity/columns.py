"""InterPodAffinity's column twin: its Filter verdict for every node at once.

The object form is ``filtering.filter_node`` (upstream filtering.go, v1.34.4); this twin answers
the same yes or no from the cycle's PreFilter counts and each node's values of the topology keys
they count (see kschedctl.framework.twins). A rejected node's status, with its reasons and
details, still comes from ``filter_node``.
"""

from __future__ import annotations

import numpy as np

from kschedctl.framework.twins import ColumnCycle, ColumnFilter
from kschedctl.plugins.inter_pod_affinity.filtering import PRE_FILTER_STATE_KEY, first_of_group


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
                    ok &= columns.counted(term.topology_key, s.affinity.counts)[codes]
        existing = s.existing_anti
        for counts, keys in ((s.anti.counts, s.anti_keys),
                             (existing.counts, existing.keys if existing.keys is not None else existing.topology_keys())):
            if counts:
                for key in dict.fromkeys(keys):
                    ok &= ~columns.counted(key, counts)[columns.label_codes(key)[0][at]]
        return ok

    return ColumnFilter(verdicts)
