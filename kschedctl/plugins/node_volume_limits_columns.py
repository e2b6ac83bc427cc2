"""NodeVolumeLimits' column twin: its Filter verdict for every node at once, when no node has limits.

The object form is ``NodeVolumeLimits.filter`` (upstream nodevolumelimits/csi.go, v1.34.4). A
node whose CSINode sets no attach limit (or that has no CSINode) passes every pod whose volumes
resolve; resolving them fails (a missing claim, an ephemeral claim of another pod) alike on
every node. So when no CSINode of the cluster sets a limit, the pod passes everywhere or is left
to the plugin node by node (which says why); with some limit set, the nodes' attached volumes
count and the plugin answers node by node (see kschedctl.framework.twins).
"""

from __future__ import annotations

from kschedctl.framework.twins import ColumnCycle, ColumnFilter, passes_all


def column_filter(cycle: ColumnCycle) -> ColumnFilter | None:
    """Every node passes when no CSINode sets a limit and the new pod's volumes resolve."""
    plugin = cycle.plugin
    pod = cycle.pod_info.pod
    if not (pod.get("spec") or {}).get("volumes"):
        return ColumnFilter(passes_all)
    cluster = plugin.handle.cluster() if plugin.handle is not None else None
    if plugin.limits_anywhere(cluster):
        return None
    found = plugin.new_volumes(cycle.state, cluster, pod, None)
    if isinstance(found, Exception):
        return None
    return ColumnFilter(passes_all)
