"""What became of a pod: the one spelling of every outcome a result can carry.

A ``StrEnum``: each member is its string (``Outcome.SCHEDULED == "Scheduled"``), so JSON prints
the plain word and results compare with the words a scenario file or a user writes. YAML needs
the plain ``str``: ``kschedctl.render.output`` represents any ``str`` subclass as its value.
"""

from __future__ import annotations

from enum import StrEnum


class Outcome(StrEnum):
    """Upstream's scheduling results plus what kschedctl's batch adds."""

    #: The pod got a node (a simulate batch: bound; explain: where it would be bound).
    SCHEDULED = "Scheduled"
    #: No node fits (upstream FitError); preemption may have nominated a node for a later attempt.
    UNSCHEDULABLE = "Unschedulable"
    #: A node was chosen, then Reserve, Permit, PreBind or Bind turned the pod away.
    REJECTED = "Rejected"
    #: A PreEnqueue plugin (scheduling gates, Coscheduling, ...) holds the pod back.
    GATED = "Gated"
    #: A Permit plugin asked to wait; the binding cycle has not ended yet.
    WAITING = "Waiting"
    #: A plugin or an extender failed: the cycle ended in an error.
    ERROR = "Error"
    #: A pod the batch placed and a later preemption evicted.
    PREEMPTED = "Preempted"
    #: A pod whose spec.schedulerName no profile serves: kube-scheduler never queues it.
    NOT_HANDLED = "NotHandled"
    #: A pod of a batch that has had no scheduling cycle yet.
    PENDING = "Pending"


#: The outcomes a simulate batch's pods end with, in the order the reports count them.
BATCH_OUTCOMES: tuple[Outcome, ...] = (Outcome.SCHEDULED, Outcome.UNSCHEDULABLE, Outcome.GATED, Outcome.REJECTED,
                                       Outcome.PREEMPTED, Outcome.ERROR, Outcome.NOT_HANDLED)
