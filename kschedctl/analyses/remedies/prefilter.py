"""The hint of a PreFilter rejection: every node said no at once, so the change is the pod's or the
cluster's, not a node's."""

from __future__ import annotations

from kschedctl.framework.status import Status
from kschedctl.scheduler.result import Hint


def prefilter_hint(s: Status) -> Hint:
    """The one pod-level hint of PreFilter status ``s`` (advice: nothing is simulated)."""
    d = dict(s.details or {})
    reason = s.message()
    if d.get("claims"):
        text = f"needs PersistentVolumeClaims {', '.join(d['claims'])} bound first ({reason})"
    elif d.get("claim"):
        text = f"needs PersistentVolumeClaim {d['claim']} to exist and be usable ({reason})"
    elif reason == "pod affinity terms conflict":
        text = "needs node affinity terms that name at least one node (its matchFields name none)"
    else:
        text = f"is rejected by {s.plugin or 'PreFilter'} on every node: {reason}"
    return Hint(plugin=s.plugin or "PreFilter", text=text, changes=[], details=d, verified=False,
                resolvable=False, reasons=list(s.reasons))
