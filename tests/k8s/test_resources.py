"""Pod requests, non-zero requests, resource names, QoS and the Resource record (cases/resources.yaml)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from kschedctl.errors import QuantityError
from kschedctl.k8s.quantity import parse_quantity
from kschedctl.k8s.resources import (
    Resource,
    is_extended_resource_name,
    is_hugepage_resource_name,
    is_native_resource,
    is_pod_level_requests_set,
    is_pod_level_resources_set,
    is_scalar_resource_name,
    node_allocatable,
    pod_non_zero_requests,
    pod_request_list,
    pod_requests,
    pod_resources,
    qos_class,
)

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "resources.yaml").read_text())


def _params(section: str, prefix: str) -> list:
    return [pytest.param(c, id=f"{prefix}_{c['name']}") for c in CASES[section]]


@pytest.mark.parametrize("case", _params("pod_requests", "PodRequests"))
def test_pod_requests(case: dict) -> None:
    opts = case.get("options") or {}
    got = pod_request_list(
        case["pod"],
        use_status_resources=opts.get("use_status_resources", False),
        skip_pod_level_resources=opts.get("skip_pod_level_resources", False),
        exclude_overhead=opts.get("exclude_overhead", False),
    )
    want = {name: parse_quantity(q) for name, q in case["expected"].items()}
    assert got == want


@pytest.mark.parametrize("case", _params("calculate_resource", "CalculateResource"))
def test_calculate_resource(case: dict) -> None:
    exp = case["expected"]
    requests, non0_cpu, non0_mem = pod_resources(case["pod"])
    assert requests == Resource(
        milli_cpu=exp["milli_cpu"],
        memory=exp["memory"],
        ephemeral_storage=exp.get("ephemeral_storage", 0),
        scalar_resources=exp.get("scalars"),
    )
    assert (non0_cpu, non0_mem) == (exp["non0_cpu"], exp["non0_mem"])
    assert pod_requests(case["pod"]) == requests
    assert pod_non_zero_requests(case["pod"]) == (non0_cpu, non0_mem)


@pytest.mark.parametrize("case", _params("pod_level_set", "IsPodLevelResourcesSet"))
def test_pod_level_set(case: dict) -> None:
    pod = {"spec": {"resources": case["resources"]}}
    assert is_pod_level_resources_set(pod) is case["resources_set"]
    assert is_pod_level_requests_set(pod) is case["requests_set"]


@pytest.mark.parametrize("case", _params("resource_names", "ResourceName"))
def test_resource_names(case: dict) -> None:
    name = case["name"]
    assert is_native_resource(name) is case["native"]
    assert is_extended_resource_name(name) is case["extended"]
    assert is_hugepage_resource_name(name) is case["hugepage"]
    assert is_scalar_resource_name(name) is case["scalar"]


@pytest.mark.parametrize("case", _params("qos", "QOS"))
def test_qos(case: dict) -> None:
    assert qos_class(case["pod"]) == case["expected"]


def test_status_resources_are_used_by_default() -> None:
    # v1.34 defaults: InPlacePodVerticalScaling on, so a resize in flight counts at its max
    pod = {
        "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]},
        "status": {"containerStatuses": [{"name": "c", "allocatedResources": {"cpu": "2"}, "resources": {}}]},
    }
    assert pod_requests(pod).milli_cpu == 2000
    # a status without "resources" is ignored, as upstream requires cs.Resources != nil
    del pod["status"]["containerStatuses"][0]["resources"]
    assert pod_requests(pod).milli_cpu == 1000


def test_non_restartable_init_container_status_is_ignored() -> None:
    pod = {
        "spec": {"initContainers": [{"name": "i", "resources": {"requests": {"cpu": "1"}}}]},
        "status": {"initContainerStatuses": [{"name": "i", "allocatedResources": {"cpu": "5"}, "resources": {}}]},
    }
    assert pod_requests(pod).milli_cpu == 1000


def test_sums_are_rounded_after_adding() -> None:
    # upstream adds Quantities exactly and rounds once when converting to int64
    pod = {"spec": {"containers": [{"resources": {"requests": {"memory": "0.5"}}}] * 2}}
    assert pod_requests(pod).memory == 1


def test_bad_quantity_raises_quantity_error() -> None:
    with pytest.raises(QuantityError):
        pod_requests({"spec": {"containers": [{"resources": {"requests": {"cpu": "lots"}}}]}})


# --- Resource ------------------------------------------------------------------------------------


def test_resource_from_list_and_get() -> None:
    r = Resource.from_list(
        {"cpu": "1500m", "memory": "1Gi", "pods": 110, "ephemeral-storage": "10Gi", "nvidia.com/gpu": 2, "foo": 3}
    )
    assert (r.milli_cpu, r.memory, r.allowed_pod_number, r.ephemeral_storage) == (1500, 1 << 30, 110, 10 << 30)
    assert r.scalar_resources == {"nvidia.com/gpu": 2}  # "foo" is neither native-known nor scalar
    assert [r.get(n) for n in ("cpu", "memory", "pods", "ephemeral-storage", "nvidia.com/gpu", "x/y")] == [
        1500, 1 << 30, 110, 10 << 30, 2, 0,
    ]


def test_resource_add_sub_clone_eq() -> None:
    a = Resource(1000, 10, 1, 2, {"x.io/y": 1})
    b = a.clone()
    b.add(Resource(500, 5, 0, 1, {"x.io/y": 2, "x.io/z": 1}))
    assert b == Resource(1500, 15, 1, 3, {"x.io/y": 3, "x.io/z": 1})
    assert a == Resource(1000, 10, 1, 2, {"x.io/y": 1})  # the clone is independent
    b.sub(Resource(500, 5, 0, 1, {"x.io/y": 2, "x.io/z": 1}))
    assert b == Resource(1000, 10, 1, 2, {"x.io/y": 1, "x.io/z": 0})
    b.add({"cpu": "1", "example.com/foo": "2"})
    assert b.milli_cpu == 2000 and b.scalar_resources["example.com/foo"] == 2


def test_set_max_resource_ignores_pods() -> None:
    r = Resource(milli_cpu=100, memory=50)
    r.set_max_resource({"cpu": "50m", "memory": "100", "pods": 5, "ephemeral-storage": "1k", "example.com/a": 2})
    assert r == Resource(milli_cpu=100, memory=100, ephemeral_storage=1000, scalar_resources={"example.com/a": 2})


def test_to_list_prints_canonical_quantities() -> None:
    r = Resource(2500, 3 << 30, 0, 110, {"hugepages-2Mi": 4 << 20, "nvidia.com/gpu": 2})
    assert r.to_list() == {
        "cpu": "2500m",
        "memory": "3Gi",
        "pods": "110",
        "ephemeral-storage": "0",
        "hugepages-2Mi": "4Mi",
        "nvidia.com/gpu": "2",
    }


def test_node_allocatable() -> None:
    node = {"status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
    assert node_allocatable(node) == Resource(milli_cpu=4000, memory=8 << 30, allowed_pod_number=110)
    assert node_allocatable({"metadata": {"name": "n"}}) == Resource()


@pytest.mark.parametrize("allocatable,expected", [
    pytest.param({"cpu": "4", "memory": "8Gi", "pods": "110"},
                 Resource(milli_cpu=4000, memory=8 << 30, allowed_pod_number=110), id="strings"),
    pytest.param({"cpu": 4, "memory": "8Gi"}, Resource(milli_cpu=4000, memory=8 << 30), id="an_integer"),
    pytest.param({"cpu": 4.5, "memory": "8Gi"}, Resource(milli_cpu=4500, memory=8 << 30), id="a_float"),
    pytest.param({"cpu": "500m", "nvidia.com/gpu": "2"}, Resource(milli_cpu=500, scalar_resources={"nvidia.com/gpu": 2}),
                 id="a_scalar"),
    pytest.param({"memory": "8Gi", "cpu": "4"}, Resource(milli_cpu=4000, memory=8 << 30), id="another_order"),
    pytest.param({}, Resource(), id="empty"),
    pytest.param(None, Resource(), id="none"),
])
def test_nodes_of_one_machine_type_each_get_their_own_allocatable(allocatable: Any, expected: Resource) -> None:
    # Read once per distinct list: the second node's figures equal the first's, in a Resource of its own.
    first = node_allocatable({"status": {"allocatable": copy.deepcopy(allocatable)}})
    second = node_allocatable({"status": {"allocatable": copy.deepcopy(allocatable)}})
    assert first == second == expected
    first.milli_cpu += 1
    first.scalar_resources["example.com/changed"] = 1
    assert node_allocatable({"status": {"allocatable": copy.deepcopy(allocatable)}}) == expected


def test_a_bad_allocatable_quantity_is_an_error_every_time() -> None:
    node = {"status": {"allocatable": {"cpu": "four"}}}
    for _ in range(2):
        with pytest.raises(QuantityError):
            node_allocatable(node)
    # True equals 1 as a key, but is no quantity
    assert node_allocatable({"status": {"allocatable": {"cpu": 1}}}).milli_cpu == 1000
    with pytest.raises(QuantityError):
        node_allocatable({"status": {"allocatable": {"cpu": True}}})


def _template_pod(name: str, **extra: Any) -> dict:
    pod = {"metadata": {"name": name},
           "spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]}}
    for key, value in extra.items():
        pod[key] = value
    return pod


@pytest.mark.parametrize("other,expected_milli_cpu", [
    pytest.param(_template_pod("same"), 100, id="same_template_same_requests"),
    pytest.param(_template_pod("resizing", status={"containerStatuses": [
        {"name": "app", "resources": {"requests": {"cpu": "500m"}}}]}), 500, id="resize_in_flight_reads_the_status"),
    pytest.param(_template_pod("overhead", spec={
        "containers": [{"name": "app", "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}],
        "overhead": {"cpu": "50m"}}), 150, id="overhead_is_part_of_the_template"),
    pytest.param(_template_pod("renamed", spec={
        "containers": [{"name": "app", "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}],
        "initContainers": [{"name": "init", "resources": {"requests": {"cpu": "1"}}}]}), 1000,
        id="init_containers_are_part_of_the_template"),
])
def test_requests_memoized_per_template_follow_what_differs(other: dict, expected_milli_cpu: int) -> None:
    # the first pod of a template fills the memo; a pod differing in anything the requests depend
    # on must not be answered from it
    first, _, _ = pod_resources(_template_pod("first"))
    assert first.milli_cpu == 100
    requests, _, _ = pod_resources(other)
    assert requests.milli_cpu == expected_milli_cpu
    assert requests is not first


def test_pods_of_one_template_get_resources_of_their_own() -> None:
    # the memo keeps its own copy: changing one pod's Resource changes neither the memo nor another pod's
    first, _, _ = pod_resources(_template_pod("own-1", spec={"containers": [
        {"name": "own", "resources": {"requests": {"cpu": "300m", "example.com/gpu": "1"}}}]}))
    first.add(Resource(milli_cpu=1000, scalar_resources={"example.com/gpu": 1}))
    second, _, _ = pod_resources(_template_pod("own-2", spec={"containers": [
        {"name": "own", "resources": {"requests": {"cpu": "300m", "example.com/gpu": "1"}}}]}))
    assert second == Resource(milli_cpu=300, scalar_resources={"example.com/gpu": 1})
    assert second is not first and second.scalar_resources is not first.scalar_resources
