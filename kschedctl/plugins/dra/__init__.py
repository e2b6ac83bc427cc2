"""Dynamic Resource Allocation: what the DynamicResources plugin builds on.

- ``features``: the DRA feature gates at their v1.34 defaults;
- ``cel``: device selectors (CEL) with Kubernetes' DRA environment;
- ``pools``: ResourceSlices gathered into pools per node;
- ``allocator``: the structured allocator (``k8s.io/dynamic-resource-allocation/structured``);
- ``claims``: a pod's claims, claims generated from templates, and the devices in use.
"""
