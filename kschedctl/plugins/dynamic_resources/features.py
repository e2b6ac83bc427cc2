"""The DRA feature gates of Kubernetes v1.34 and the allocator's ``Features``.

Read: ``pkg/features/kube_features.go`` (the versioned specs up to 1.34) and
``staging/src/k8s.io/dynamic-resource-allocation/structured/internal/types.go`` (release-1.34).
kschedctl runs with every gate at its v1.34 default (the README's DRA section lists each gate,
its stage and what it changes); ``Features`` can be built with other values only so that
upstream's allocator tests that switch a gate off can be ported.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Features", "DEFAULT_FEATURES"]

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
