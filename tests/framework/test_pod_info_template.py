"""A replica's PodInfo takes what its template decides from the first pod of that template
(requests, host ports, claims, affinity terms): equal, field by field, to the PodInfo each pod
gets alone, and never taken across namespaces or across parts that differ."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from kschedctl import api
from kschedctl.fastpaths import FastPaths, using
from kschedctl.framework.types import AffinityTerm, PodInfo, WeightedAffinityTerm
from kschedctl.k8s.resources import Resource

ANTI = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]},
    "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 5, "podAffinityTerm": {
        "labelSelector": {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["db"]}]},
        "topologyKey": "zone"}}]}}
BAD_SELECTOR = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"labelSelector": {"matchExpressions": [{"key": "app", "operator": "Bogus"}]}, "topologyKey": "zone"}]}}
CONTAINERS = [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80, "hostPort": 8080}],
               "resources": {"requests": {"cpu": "250m", "example.com/gpu": "1"}}}]
INIT = [{"name": "side", "image": "envoy", "restartPolicy": "Always", "ports": [{"containerPort": 9, "hostPort": 9}],
         "resources": {"requests": {"memory": "64Mi"}}}]
VOLUMES = [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}, {"name": "tmp", "emptyDir": {}}]


def _pod(name: str, namespace: str = "default", **spec: Any) -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "labels": {"app": "web"}},
            "spec": {"nodeName": "n1", "containers": copy.deepcopy(CONTAINERS), **copy.deepcopy(spec)},
            "status": {"phase": "Running"}}


TEMPLATES = {
    "replicas with everything": [_pod(f"w{i}", initContainers=INIT, volumes=VOLUMES, affinity=ANTI) for i in range(3)],
    "replicas in two namespaces": [_pod("a", "one", volumes=VOLUMES, affinity=ANTI),
                                   _pod("b", "two", volumes=VOLUMES, affinity=ANTI),
                                   _pod("c", "one", volumes=VOLUMES, affinity=ANTI),
                                   _pod("d", "two", volumes=VOLUMES, affinity=ANTI)],
    "same containers, other affinity": [_pod("a", affinity=ANTI), _pod("b"), _pod("c", affinity=ANTI), _pod("d")],
    "same affinity, other requests": [
        _pod("a", affinity=ANTI), _pod("b", affinity=ANTI, overhead={"cpu": "1"}), _pod("c", affinity=ANTI),
        _pod("d", affinity=ANTI, overhead={"cpu": "1"})],
    "same containers, other volumes": [
        _pod("a", volumes=VOLUMES), _pod("b", volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": "logs"}}]),
        _pod("c", volumes=VOLUMES), _pod("d")],
    "same containers, other init containers": [_pod("a", initContainers=INIT), _pod("b"), _pod("c", initContainers=INIT),
                                               _pod("d")],
    "an invalid selector in every replica": [_pod(f"w{i}", affinity=BAD_SELECTOR) for i in range(3)],
    "a resize in flight": [
        {**_pod(f"w{i}"), "status": {"phase": "Running", "resize": "InProgress", "containerStatuses": [
            {"name": "c", "resources": {"requests": {"cpu": "100m"}}, "allocatedResources": {"cpu": "100m"}}]}}
        for i in range(3)],
    "a resize in flight in one replica": [
        _pod("w0"), _pod("w1"),
        {**_pod("w2"), "status": {"phase": "Running", "resize": "InProgress", "containerStatuses": [
            {"name": "c", "resources": {"requests": {"cpu": "900m"}}, "allocatedResources": {"cpu": "900m"}}]}},
        _pod("w3")],
}


def _plain(value: Any) -> Any:
    if isinstance(value, WeightedAffinityTerm):
        return ("weighted", value.weight, _plain(value.term))
    if isinstance(value, AffinityTerm):
        return ("term", sorted(value.namespaces), repr(value.selector), value.topology_key,
                repr(value.namespace_selector))
    if isinstance(value, Resource):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _infos(tmp_path: Path, pods: list[dict], paths: FastPaths) -> list[dict[str, Any]]:
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": pods}))
    with using(paths):
        state = api.load_cluster([str(path)])
        infos = [PodInfo(p) for p in state.pods]
    return [{slot: _plain(getattr(info, slot)) for slot in PodInfo.__slots__ if slot != "pod"} for info in infos]


@pytest.mark.parametrize("pods", TEMPLATES.values(), ids=TEMPLATES.keys())
def test_a_replica_gets_the_pod_info_it_would_get_alone(tmp_path: Path, pods: list[dict]) -> None:
    assert _infos(tmp_path, pods, FastPaths()) == _infos(tmp_path, pods, FastPaths.off())


def test_replicas_hold_lists_of_their_own(tmp_path: Path) -> None:
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": TEMPLATES["replicas with everything"]}))
    state = api.load_cluster([str(path)])
    first, second = PodInfo(state.pods[0]), PodInfo(state.pods[1])
    assert second.host_ports == first.host_ports == [("", "", 9), ("", "", 8080)]
    assert second.pvc_keys == ["default/data"]
    for slot in ("host_ports", "pvc_names", "pvc_keys", "required_anti_affinity_terms", "preferred_affinity_terms"):
        assert getattr(first, slot) is not getattr(second, slot)
    assert first.requests is not second.requests and first.requests == second.requests


def test_a_pod_of_its_own_is_computed_again_after_a_change() -> None:
    # Parts no other pod shares may change in place (a what-if edit): never taken from a memo.
    pod = _pod("own", volumes=VOLUMES, affinity=ANTI)
    assert PodInfo(pod).requests.milli_cpu == 250
    pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "750m"
    pod["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] = "other"
    again = PodInfo(pod)
    assert again.requests.milli_cpu == 750
    assert again.pvc_keys == ["default/other"]
