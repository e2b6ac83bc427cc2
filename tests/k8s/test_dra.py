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
