"""The DRA feature gates of Kubernetes v1.34 and the allocator's ``Features``.

Read: ``pkg/features/kube_features.go`` (the versioned specs up to 1.34) and
``staging/src/k8s.io/dynamic-resource-allocation/structured/internal/types.go`` (release-1.34).
kschedctl runs with every gate at its v1.34 default; ``Features`` can be built with other values
only so that upstream's allocator tests that switch a gate off can be ported.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Features", "DEFAULT_FEATURES", "GATES"]

#: gate -> (stage in v1.34, default in v1.34, what it changes for the scheduler).
GATES: dict[str, tuple[str, bool, str]] = {
    "DynamicResourceAllocation": ("GA", True, "the DynamicResources plugin"),
    "DRAAdminAccess": ("beta", True, "requests with adminAccess: true"),
    "DRAPrioritizedList": ("beta", True, "requests with firstAvailable (subrequests)"),
    "DRAResourceClaimDeviceStatus": ("beta", True, "nothing the scheduler decides (device status)"),
    "DRASchedulerFilterTimeout": ("beta", True, "DynamicResourcesArgs.filterTimeout"),
    "DRAPartitionableDevices": ("alpha", False, "sharedCounters, consumesCounters, perDeviceNodeSelection"),
    "DRADeviceTaints": ("alpha", False, "device taints and request tolerations"),
    "DRAConsumableCapacity": ("alpha", False, "allowMultipleAllocations, capacity requests, distinctAttribute"),
    "DRADeviceBindingConditions": ("alpha", False, "bindingConditions, bindingFailureConditions, bindsToNode"),
    "DRAExtendedResource": ("alpha", False, "DeviceClass extendedResourceName (extended resources backed by DRA)"),
}


@dataclass(frozen=True, slots=True)
class Features:
    """Upstream ``structured.Features``: which optional parts of the allocator are on."""

    admin_access: bool = True
    prioritized_list: bool = True
    partitionable_devices: bool = False
    device_taints: bool = False
    device_binding: bool = False
    device_status: bool = True
    consumable_capacity: bool = False


#: v1.34's defaults (the only features kschedctl runs with).
DEFAULT_FEATURES = Features()

#: Features with every gate off (upstream tests' ``Features{}``).
NO_FEATURES = Features(admin_access=False, prioritized_list=False, device_status=False)
