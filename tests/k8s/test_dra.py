"""resource.k8s.io objects kept in the v1 shape, as upstream's conversions make them."""

from __future__ import annotations

import copy

import pytest
import yaml

from kschedctl.errors import InputError
from kschedctl.k8s.dra import to_v1

CASES = yaml.safe_load("""
- name: a v1beta1 request's device fields move into exactly
  in:
    apiVersion: resource.k8s.io/v1beta1
    kind: ResourceClaim
    metadata: {name: gpu}
    spec:
      devices:
        requests:
          - name: gpu
            deviceClassName: gpu.example.com
            selectors: [{cel: {expression: "device.attributes['gpu.example.com'].model == 'a100'"}}]
            allocationMode: ExactCount
            count: 2
            adminAccess: false
        constraints: [{requests: [gpu], matchAttribute: gpu.example.com/numa}]
  out:
    apiVersion: resource.k8s.io/v1
    kind: ResourceClaim
    metadata: {name: gpu}
    spec:
      devices:
        requests:
          - name: gpu
            exactly:
              deviceClassName: gpu.example.com
              selectors: [{cel: {expression: "device.attributes['gpu.example.com'].model == 'a100'"}}]
              allocationMode: ExactCount
              count: 2
              adminAccess: false
        constraints: [{requests: [gpu], matchAttribute: gpu.example.com/numa}]
- name: firstAvailable stays, a request with nothing else gets no exactly
  in:
    apiVersion: resource.k8s.io/v1beta1
    kind: ResourceClaimTemplate
    metadata: {name: t}
    spec:
      spec:
        devices:
          requests:
            - name: any
              firstAvailable: [{name: big, deviceClassName: big.example.com}, {name: small, deviceClassName: small.example.com, count: 2}]
  out:
    apiVersion: resource.k8s.io/v1
    kind: ResourceClaimTemplate
    metadata: {name: t}
    spec:
      spec:
        devices:
          requests:
            - name: any
              firstAvailable: [{name: big, deviceClassName: big.example.com}, {name: small, deviceClassName: small.example.com, count: 2}]
- name: v1beta1 basic devices are lifted, and named in the annotation upstream sets
  in:
    apiVersion: resource.k8s.io/v1beta1
    kind: ResourceSlice
    metadata: {name: node-1-gpus}
    spec:
      driver: gpu.example.com
      nodeName: node-1
      pool: {name: node-1, generation: 1, resourceSliceCount: 1}
      devices:
        - name: gpu-0
          basic:
            attributes: {model: {string: a100}}
            capacity: {memory: {value: 40Gi}}
  out:
    apiVersion: resource.k8s.io/v1
    kind: ResourceSlice
    metadata: {name: node-1-gpus, annotations: {resource.k8s.io/basic-device-names: gpu-0}}
    spec:
      driver: gpu.example.com
      nodeName: node-1
      pool: {name: node-1, generation: 1, resourceSliceCount: 1}
      devices:
        - name: gpu-0
          attributes: {model: {string: a100}}
          capacity: {memory: {value: 40Gi}}
- name: v1beta2 has v1's shape
  in:
    apiVersion: resource.k8s.io/v1beta2
    kind: ResourceClaim
    metadata: {name: c}
    spec: {devices: {requests: [{name: r, exactly: {deviceClassName: x}}]}}
  out:
    apiVersion: resource.k8s.io/v1
    kind: ResourceClaim
    metadata: {name: c}
    spec: {devices: {requests: [{name: r, exactly: {deviceClassName: x}}]}}
- name: DeviceClass is the same in every version
  in: {apiVersion: resource.k8s.io/v1beta1, kind: DeviceClass, metadata: {name: gpu},
       spec: {selectors: [{cel: {expression: "device.driver == 'gpu.example.com'"}}]}}
  out: {apiVersion: resource.k8s.io/v1, kind: DeviceClass, metadata: {name: gpu},
        spec: {selectors: [{cel: {expression: "device.driver == 'gpu.example.com'"}}]}}
""")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_to_v1(case: dict) -> None:
    obj = copy.deepcopy(case["in"])
    assert to_v1(obj) is obj
    assert obj == case["out"]
    assert to_v1(copy.deepcopy(case["out"])) == case["out"]  # v1 stays as it is


@pytest.mark.parametrize(("obj", "message"), [
    ({"apiVersion": "resource.k8s.io/v1alpha3", "kind": "ResourceClaim"},
     "resource.k8s.io/v1alpha3 ResourceClaim is not served by Kubernetes v1.34 (use resource.k8s.io/v1, "
     "v1beta2 or v1beta1)"),
    ({"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaim", "spec": {"devices": {"requests": "gpu"}}},
     "spec.devices.requests must be a list"),
    ({"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceSlice", "spec": {"devices": [{"name": "d", "basic": 3}]}},
     "spec.devices[0].basic must be a mapping"),
])
def test_what_cannot_be_converted(obj: dict, message: str) -> None:
    with pytest.raises(InputError) as err:
        to_v1(obj)
    assert err.value.message == message



GATED = yaml.safe_load("""
- name: partitionable devices, taints and binding conditions in a slice
  in:
    kind: ResourceSlice
    metadata: {name: s}
    spec:
      driver: d
      sharedCounters: [{name: mem, counters: {memory: {value: 80Gi}}}]
      devices:
        - name: gpu-0
          consumesCounters: [{counterSet: mem, counters: {memory: {value: 40Gi}}}]
          taints: [{key: broken, effect: NoSchedule}]
          bindingConditions: [ready]
          capacity: {memory: {value: 40Gi, requestPolicy: {default: 1Gi}}}
  found:
    - ['spec.sharedCounters', DRAPartitionableDevices, ignored]
    - ['spec.devices[0].consumesCounters', DRAPartitionableDevices, the device is never allocated]
    - ['spec.devices[0].taints', DRADeviceTaints, 'ignored: the device is allocated as if it had no taints']
    - ['spec.devices[0].bindingConditions', DRADeviceBindingConditions, the device is never allocated]
    - ['spec.devices[0].capacity[memory].requestPolicy', DRAConsumableCapacity, ignored]
- name: request tolerations and capacity, and distinctAttribute, in a template
  in:
    kind: ResourceClaimTemplate
    metadata: {name: t}
    spec:
      spec:
        devices:
          requests:
            - name: r
              exactly: {deviceClassName: c, tolerations: [{operator: Exists}], capacity: {requests: {memory: 1Gi}}}
            - name: f
              firstAvailable: [{name: s, deviceClassName: c, tolerations: [{operator: Exists}]}]
          constraints: [{distinctAttribute: d/x}]
  found:
    - ['spec.spec.devices.requests[0].exactly.tolerations', DRADeviceTaints, ignored]
    - ['spec.spec.devices.requests[0].exactly.capacity', DRAConsumableCapacity,
       'the allocator fails: has capacity requests, but the DRAConsumableCapacity feature is disabled']
    - ['spec.spec.devices.requests[1].firstAvailable[0].tolerations', DRADeviceTaints, ignored]
    - ['spec.spec.devices.constraints[0].distinctAttribute', DRAConsumableCapacity,
       'only devices with the attribute are allocated; their values are not compared (release-1.34)']
- name: a DeviceClass's extendedResourceName
  in: {kind: DeviceClass, metadata: {name: c}, spec: {extendedResourceName: example.com/gpu}}
  found: [['spec.extendedResourceName', DRAExtendedResource, ignored]]
- name: fields of gates that are on are not reported
  in:
    kind: ResourceClaim
    metadata: {name: c}
    spec: {devices: {requests: [{name: r, exactly: {deviceClassName: c, adminAccess: true}}]}}
  found: []
""")


@pytest.mark.parametrize("case", GATED, ids=[c["name"] for c in GATED])
def test_fields_of_gates_off_by_default_are_found_and_kept(case: dict) -> None:
    from kschedctl.k8s.dra import gated_fields

    obj = copy.deepcopy(case["in"])
    assert [list(f) for f in gated_fields(obj)] == case["found"]
    assert obj == case["in"]


def test_a_gated_field_is_a_warning_naming_file_line_gate_and_effect(tmp_path) -> None:
    from kschedctl.inputs.cluster import load_cluster

    path = tmp_path / "slices.yaml"
    path.write_text("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n"
                    "spec:\n  driver: d\n  nodeName: n\n  pool: {name: p, resourceSliceCount: 1}\n"
                    "  devices: [{name: g, taints: [{key: k, effect: NoSchedule}]}]\n", encoding="utf-8")
    cluster = load_cluster([str(path)])
    assert cluster.warnings == [f"{path}:1: ResourceSlice s: spec.devices[0].taints needs the feature gate "
                                f"DRADeviceTaints (alpha, off by default in v1.34): ignored: the device is allocated "
                                f"as if it had no taints"]
