"""Ports of kubernetes-sigs/scheduler-plugins (release v0.34.7, built against Kubernetes v1.34.7).

One module per plugin, each following its upstream folder under ``pkg/``; the plugins are
"out-of-tree": always known to kschedctl, imported only when a profile enables them, listed
by ``kschedctl plugins`` with that origin. ``SIGS_PLUGINS`` is the table the registry and the
config layer read, so that the names validate without importing the plugins.
"""

from __future__ import annotations

#: name -> ("module:Class", extension points in config spelling, pipeline order).
SIGS_PLUGINS: dict[str, tuple[str, tuple[str, ...]]] = {
    "QOSSort": ("kschedctl.plugins.sigs.qos_sort:QOSSort", ("queueSort",)),
    "PodState": ("kschedctl.plugins.sigs.pod_state:PodState", ("score",)),
    "NodeResourcesAllocatable": (
        "kschedctl.plugins.sigs.node_resources_allocatable:NodeResourcesAllocatable", ("score",)),
    "Coscheduling": ("kschedctl.plugins.sigs.coscheduling:Coscheduling",
                     ("queueSort", "preFilter", "postFilter", "reserve", "permit")),
    "CapacityScheduling": ("kschedctl.plugins.sigs.capacity_scheduling:CapacityScheduling",
                           ("preFilter", "postFilter", "reserve")),
    "CrossNodePreemption": ("kschedctl.plugins.sigs.cross_node_preemption:CrossNodePreemption",
                            ("postFilter",)),
    "PreemptionToleration": ("kschedctl.plugins.sigs.preemption_toleration:PreemptionToleration",
                             ("postFilter",)),
    "TargetLoadPacking": ("kschedctl.plugins.sigs.target_load_packing:TargetLoadPacking", ("score",)),
    "LoadVariationRiskBalancing": (
        "kschedctl.plugins.sigs.load_variation_risk_balancing:LoadVariationRiskBalancing", ("score",)),
    "LowRiskOverCommitment": (
        "kschedctl.plugins.sigs.low_risk_over_commitment:LowRiskOverCommitment", ("preScore", "score")),
    "NodeResourceTopologyMatch": (
        "kschedctl.plugins.sigs.node_resource_topology_match:NodeResourceTopologyMatch",
        ("filter", "score", "reserve", "postBind")),
    "TopologicalSort": ("kschedctl.plugins.sigs.topological_sort:TopologicalSort", ("queueSort",)),
    "NetworkOverhead": ("kschedctl.plugins.sigs.network_overhead:NetworkOverhead",
                        ("preFilter", "filter", "score")),
}
