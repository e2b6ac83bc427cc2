"""Upstream's vocabulary: Status, CycleState, PodInfo/NodeInfo, the plugin API and the runtime."""
