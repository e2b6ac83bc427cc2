"""VolumeBinding's column twin: its Filter verdict for every node at once, when every claim is bound.

The object form is ``VolumeBinding.filter`` (upstream volume_binding.go and binder.go, v1.34.4).
With every claim of the pod bound, Filter asks only each bound PV's required node affinity of the
node's labels (CheckNodeAffinity, matchFields seeing no name), or rejects every node for a
missing PV; this twin answers that yes or no from each node's values of the label keys the
affinity reads (see kschedctl.framework.twins), for a PV whose affinity is one term of In,
NotIn, Exists or DoesNotExist requirements. Anything else (an unbound claim, several terms, Gt
or Lt) is left to the plugin node by node. A rejected node's status names the first PV (in the
claims' order) whose affinity it fails, as Filter's does.

Nothing the twin skips is read later: with every claim bound, Reserve finds them bound whether
or not Filter recorded the node's (empty) bindings.
"""

from __future__ import annotations

import numpy as np

from kschedctl.framework.status import Status
from kschedctl.framework.twins import ColumnCycle, ColumnFilter, passes_all
from kschedctl.k8s.selectors import (
    OP_DOES_NOT_EXIST,
    OP_DOUBLE_EQUALS,
    OP_EQUALS,
    OP_EXISTS,
    OP_IN,
    OP_NOT_EQUALS,
    OP_NOT_IN,
)
from kschedctl.plugins.volume_binding import STATE_KEY, bound_volume_rejection

_IN = frozenset({OP_IN, OP_EQUALS, OP_DOUBLE_EQUALS})
_NOT_IN = frozenset({OP_NOT_IN, OP_NOT_EQUALS})
_COVERED = _IN | _NOT_IN | {OP_EXISTS, OP_DOES_NOT_EXIST}


def column_filter(cycle: ColumnCycle) -> ColumnFilter | None:
    """Every bound PV's node affinity requirements hold for the node's labels; a missing PV
    rejects every node."""
    try:
        data = cycle.state.read(STATE_KEY)
    except KeyError:
        return None  # the plugin reports the missing state itself
    if data.claims is None:
        return ColumnFilter(passes_all)  # no claim: Filter has nothing to check
    bound = data.bound_only
    if bound is None:
        return None
    checks: list = []
    for volume in bound:
        if volume.matches is None:
            checks.append(None)
            continue
        requirements = volume.requirements
        if requirements is None or any(r.operator not in _COVERED for r in requirements):
            return None
        checks.append(requirements)
    columns = cycle.columns

    def holds(requirements: list | None, at: np.ndarray) -> np.ndarray:
        """Whether one bound PV lets the pod onto each node at ``at`` (None: its PV is missing)."""
        ok = np.full(len(at), requirements is not None)
        for r in requirements or ():
            codes = columns.label_codes(r.key)[0][at]
            if r.operator in _IN or r.operator in _NOT_IN:
                listed = columns.counted(r.key, {(r.key, v): 1 for v in r.values})[codes]
                ok &= listed if r.operator in _IN else ~listed
            elif r.operator == OP_EXISTS:
                ok &= codes >= 0
            else:
                ok &= codes < 0
        return ok

    def verdicts(at: np.ndarray) -> np.ndarray:
        ok = np.ones(len(at), dtype=bool)
        for requirements in checks:
            ok &= holds(requirements, at)
            if requirements is None:
                break
        return ok

    def statuses(at: np.ndarray) -> tuple[np.ndarray, list[Status]]:
        """The object form's status on each node: that of the first PV in order (the claims'
        order) it does not hold for."""
        which = np.full(len(at), -1, dtype=np.int64)
        made: list[Status] = []
        for volume, requirements in zip(bound, checks):
            failed = (which < 0) & ~holds(requirements, at)
            if failed.any():
                which[failed] = len(made)
                made.append(bound_volume_rejection(volume))
            if requirements is None:
                break
        return which, made

    return ColumnFilter(verdicts, statuses=statuses)
