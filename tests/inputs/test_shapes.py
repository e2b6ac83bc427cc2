"""Field types the API server's decoder would refuse, refused at load with the field's path."""

from __future__ import annotations

import pytest

from kschedctl.errors import InputError
from kschedctl.inputs.shapes import check_node, check_pod

POD_CASES = {
    "affinity_not_a_mapping": ({"spec": {"affinity": True}}, "spec.affinity must be a mapping, not true"),
    "deep_selector_value": ({"spec": {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": 1}}}]}}}},
        "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector"
        ".matchLabels.app must be a string, not 1"),
    "null_volume": ({"spec": {"volumes": [None]}}, "spec.volumes[0] must be a mapping, not null"),
    "node_selector_bool": ({"spec": {"nodeSelector": {"ssd": True}}}, "spec.nodeSelector.ssd must be a string, not true"),
    "host_port_text": ({"spec": {"containers": [{"name": "c", "ports": [{"hostPort": "80"}]}]}},
                       'spec.containers[0].ports[0].hostPort must be an integer, not "80"'),
    "spread_skew_float": ({"spec": {"topologySpreadConstraints": [{"maxSkew": 1.5}]}},
                          "spec.topologySpreadConstraints[0].maxSkew must be an integer, not 1.5"),
    "owner_controller_text": ({"metadata": {"ownerReferences": [{"controller": "yes"}]}},
                              'metadata.ownerReferences[0].controller must be true or false, not "yes"'),
}


@pytest.mark.parametrize("case", sorted(POD_CASES))
def test_pod_shapes(case: str) -> None:
    pod, message = POD_CASES[case]
    with pytest.raises(InputError) as exc:
        check_pod(pod)
    assert exc.value.message == message


def test_valid_and_null_fields_pass() -> None:
    check_pod({"metadata": {"name": "a", "labels": None}, "spec": {"affinity": None, "tolerations": [],
                                                                    "containers": [{"name": "c"}], "x-unknown": 5}})
    check_node({"spec": {"taints": [{"key": "k", "effect": "NoSchedule"}]}, "status": {"images": []}})


def test_node_shapes() -> None:
    with pytest.raises(InputError) as exc:
        check_node({"status": {"images": [{"names": "nginx", "sizeBytes": 1}]}})
    assert exc.value.message == 'status.images[0].names must be a list, not "nginx"'
