"""What would make it fit (the remedy engine): per node and per blocking filter plugin, the
smallest concrete change that flips the verdict, found with the plugins' own evaluation.

Not upstream: kube-scheduler only reports a histogram of reasons. kschedctl takes each node the
pod does not fit, runs every filter plugin of the profile on it (as ``--all-filters`` does), and
for each plugin that says no, reads what it found (``Status.details`` and its PreFilter state)
to propose a change: the missing amount of a resource (and whether evicting lower-priority pods
of the node would free it), a toleration for the untolerated taint, the node label a node
selector or affinity term wants, the pods holding a host port, the pods to remove from an
overfull topology domain, the pods breaking (anti-)affinity, the zone or limit of a volume.

Every change is applied to a private copy of the node, the pod and the cycle state (pods are
removed and added through the PreFilter plugins' RemovePod/AddPod extensions, as preemption
does), and the plugin is asked again; a plugin that still says no gets its next change (a
second taint, a second constraint) until it says yes. A hint is ``verified`` when its plugin
accepted the changed node; ``fitsAfter`` on the node when every filter accepts it with all
hints applied. Nothing of this touches the verdicts, scores or messages of the cycle.

Nodes are ranked closest to fitting first: nodes whose hints make them fit, then fewest
blocking plugins, then smallest relative shortfall (missing amount / allocatable, pods to
remove / pods there).

The package is the engine; each plugin's remedy (``remedy(engine, scenario, status)``, written
with :mod:`kschedctl.plugins.remedy`) is one of the plugin's facts (``PluginFacts.remedy``). Modules, bottom up:
``scenario`` (the private copies and the changes it simulates), ``prefilter`` (the pod-level hint
of a PreFilter rejection), ``engine`` (per node: the failing filters, their remedies, the ranking).
"""

from __future__ import annotations

from kschedctl.analyses.remedies.engine import MAX_STEPS, REJECTED, HintEngine, attach_hints, rank
from kschedctl.analyses.remedies.prefilter import prefilter_hint
from kschedctl.analyses.remedies.scenario import SIMULATED_KINDS, Scenario

__all__ = ["MAX_STEPS", "REJECTED", "SIMULATED_KINDS", "HintEngine", "Scenario", "attach_hints", "prefilter_hint",
           "rank"]
