"""Names of upstream's in-tree plugins, and the extension points each implements in v1.34.

Shared by config defaulting (the default plugin set, expanded through ``multiPoint`` exactly
as upstream) and the registry.
Source: pkg/scheduler/framework/plugins/names/names.go and each plugin's interface
assertions (``var _ fwk.FilterPlugin = &X{}``) on release-1.34.
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

#: Extension points of each in-tree plugin in v1.34 (config spelling, pipeline order).
IN_TREE_EXTENSION_POINTS: dict[str, tuple[str, ...]] = {
    SCHEDULING_GATES: ("preEnqueue",),
    PRIORITY_SORT: ("queueSort",),
    NODE_UNSCHEDULABLE: ("filter",),
    NODE_NAME: ("filter",),
    TAINT_TOLERATION: ("filter", "preScore", "score"),
    NODE_AFFINITY: ("preFilter", "filter", "preScore", "score"),
    NODE_PORTS: ("preFilter", "filter"),
    NODE_RESOURCES_FIT: ("preFilter", "filter", "preScore", "score"),
    VOLUME_RESTRICTIONS: ("preFilter", "filter"),
    NODE_VOLUME_LIMITS: ("preFilter", "filter"),
    VOLUME_BINDING: ("preFilter", "filter", "preScore", "score", "reserve", "preBind"),
    VOLUME_ZONE: ("preFilter", "filter"),
    POD_TOPOLOGY_SPREAD: ("preFilter", "filter", "preScore", "score"),
    INTER_POD_AFFINITY: ("preFilter", "filter", "preScore", "score"),
    DYNAMIC_RESOURCES: ("preEnqueue", "preFilter", "filter", "postFilter", "reserve", "preBind"),
    DEFAULT_PREEMPTION: ("preEnqueue", "postFilter"),
    NODE_RESOURCES_BALANCED_ALLOCATION: ("preScore", "score"),
    IMAGE_LOCALITY: ("score",),
    DEFAULT_BINDER: ("bind",),
}

#: Python module (under kschedctl.plugins) of each in-tree plugin; the class is named as the plugin.
def module_name(plugin_name: str) -> str:
    """``NodeResourcesFit`` -> ``node_resources_fit``."""
    out = []
    for i, ch in enumerate(plugin_name):
        if ch.isupper() and i and not plugin_name[i - 1].isupper():
            out.append("_")
        out.append(ch.lower())
    return "".join(out)
