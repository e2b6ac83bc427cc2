"""Names of upstream's in-tree plugins (pkg/scheduler/framework/plugins/names/names.go, release-1.34).

Shared by config defaulting (the default plugin set), the registry and the plugin loader (a
custom plugin may not take an in-tree name).
"""

from __future__ import annotations

PRIORITY_SORT = "PrioritySort"
DEFAULT_BINDER = "DefaultBinder"
DEFAULT_PREEMPTION = "DefaultPreemption"
DYNAMIC_RESOURCES = "DynamicResources"
IMAGE_LOCALITY = "ImageLocality"
INTER_POD_AFFINITY = "InterPodAffinity"
NODE_AFFINITY = "NodeAffinity"
NODE_NAME = "NodeName"
NODE_PORTS = "NodePorts"
NODE_RESOURCES_BALANCED_ALLOCATION = "NodeResourcesBalancedAllocation"
NODE_RESOURCES_FIT = "NodeResourcesFit"
NODE_UNSCHEDULABLE = "NodeUnschedulable"
NODE_VOLUME_LIMITS = "NodeVolumeLimits"
POD_TOPOLOGY_SPREAD = "PodTopologySpread"
SCHEDULING_GATES = "SchedulingGates"
TAINT_TOLERATION = "TaintToleration"
VOLUME_BINDING = "VolumeBinding"
VOLUME_RESTRICTIONS = "VolumeRestrictions"
VOLUME_ZONE = "VolumeZone"

#: Plugins removed upstream; naming one is a configuration error in v1.
REMOVED_PLUGINS = frozenset({"AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits"})

#: Every in-tree plugin of v1.34 (names.go). What each declares (extension points, events,
#: args, ...) is in its module's FACTS; the registry maps the names to the modules.
IN_TREE_PLUGINS: frozenset[str] = frozenset({
    SCHEDULING_GATES, PRIORITY_SORT, NODE_UNSCHEDULABLE, NODE_NAME, TAINT_TOLERATION, NODE_AFFINITY, NODE_PORTS,
    NODE_RESOURCES_FIT, VOLUME_RESTRICTIONS, NODE_VOLUME_LIMITS, VOLUME_BINDING, VOLUME_ZONE, POD_TOPOLOGY_SPREAD,
    INTER_POD_AFFINITY, DYNAMIC_RESOURCES, DEFAULT_PREEMPTION, NODE_RESOURCES_BALANCED_ALLOCATION, IMAGE_LOCALITY,
    DEFAULT_BINDER,
})

#: Python module (under kschedctl.plugins) of each in-tree plugin; the class is named as the plugin.
def module_name(plugin_name: str) -> str:
    """``NodeResourcesFit`` -> ``node_resources_fit``."""
    out = []
    for i, ch in enumerate(plugin_name):
        if ch.isupper() and i and not plugin_name[i - 1].isupper():
            out.append("_")
        out.append(ch.lower())
    return "".join(out)
