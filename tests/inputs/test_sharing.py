"""Pods of one template share their parts after loading, and only equal parts (with types) are shared."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from kschedctl import api
from kschedctl.errors import InputError
from kschedctl.fastpaths import FastPaths, using
from kschedctl.inputs.sharing import PartTable, changed_shared_parts, forget_shared_parts

REPLICA = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "web-0", "namespace": "default", "labels": {"app": "web", "pod-template-hash": "abc"},
                 "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-abc",
                                      "uid": "u1", "controller": True}]},
    "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}],
                                               "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}],
             "tolerations": [{"key": "k", "operator": "Exists"}]},
    "status": {"phase": "Running"},
}


def _replica(name: str, **spec: object) -> dict:
    pod = copy.deepcopy(REPLICA)
    pod["metadata"]["name"] = name
    pod["spec"].update(spec)
    return pod


def _load(tmp_path: Path, pods: list[dict]) -> dict[str, dict]:
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": pods}))
    state = api.load_cluster([str(path)])
    return {p["metadata"]["name"]: p for p in state.pods}


def test_replicas_share_their_parts_but_not_what_is_their_own(tmp_path: Path) -> None:
    pods = _load(tmp_path, [_replica("web-0"), _replica("web-1", nodeName="n2")])
    a, b = pods["web-0"], pods["web-1"]
    for part in ("containers", "tolerations"):
        assert a["spec"][part] is b["spec"][part]
    assert a["metadata"]["labels"] is b["metadata"]["labels"]
    assert a["metadata"]["ownerReferences"] is b["metadata"]["ownerReferences"]
    # What a binding, a nomination or a rename writes stays each pod's own.
    assert a["spec"] is not b["spec"] and a["metadata"] is not b["metadata"]
    assert a["status"] is not b["status"]
    assert (a["spec"]["nodeName"], b["spec"]["nodeName"]) == ("n1", "n2")
    # Defaulting ran before sharing: requests from limits.
    assert a["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "1", "memory": "1Gi"}


def test_defaulting_that_depends_on_the_pod_is_not_shared(tmp_path: Path) -> None:
    """hostNetwork makes defaulting copy containerPort to hostPort: equal containers in the file,
    unequal once defaulted, so never shared."""
    pods = _load(tmp_path, [_replica("host", hostNetwork=True), _replica("plain")])
    assert pods["host"]["spec"]["containers"][0]["ports"] == [{"containerPort": 80, "hostPort": 80}]
    assert pods["plain"]["spec"]["containers"][0]["ports"] == [{"containerPort": 80}]


@pytest.mark.parametrize("left, right", [
    pytest.param([1], [1.0], id="int-float"),
    pytest.param([1], [True], id="int-bool"),
    pytest.param({"a": "1", "b": "2"}, {"b": "2", "a": "1"}, id="key-order"),
    pytest.param(["1"], [1], id="string-int"),
])
def test_only_values_equal_with_their_types_and_order_are_shared(left: object, right: object) -> None:
    assert left == right or isinstance(left, list)  # == alone would have shared most of these
    table = PartTable()
    first, second = {"spec": {"x": left}}, {"spec": {"x": right}}
    table.share_pod(first)
    table.share_pod(second)
    assert second["spec"]["x"] is right


def test_equal_parts_are_shared() -> None:
    table = PartTable()
    first, second = {"spec": {"x": [{"a": 1}]}}, {"spec": {"x": [{"a": 1}]}}
    table.share_pod(first)
    table.share_pod(second)
    assert second["spec"]["x"] is first["spec"]["x"]


def test_without_fast_paths_nothing_is_shared(tmp_path: Path) -> None:
    with using(FastPaths.off()):
        pods = _load(tmp_path, [_replica("web-0"), _replica("web-1")])
    assert pods["web-0"]["spec"]["containers"] is not pods["web-1"]["spec"]["containers"]
    assert pods["web-0"]["spec"]["containers"] == pods["web-1"]["spec"]["containers"]


def test_a_shared_part_changed_in_place_is_caught(tmp_path: Path) -> None:
    """What the check after every test (tests/conftest.py) rests on."""
    pods = _load(tmp_path, [_replica("web-0"), _replica("web-1")])
    assert not changed_shared_parts()
    pods["web-0"]["spec"]["tolerations"].append({"key": "other", "operator": "Exists"})
    try:
        assert changed_shared_parts() == [pods["web-1"]["spec"]["tolerations"]]
    finally:
        forget_shared_parts()


def test_a_simulation_on_shared_pods_answers_as_on_copies(tmp_path: Path) -> None:
    """Bindings, nominations and evictions in a run write into each pod's own spec and status."""
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"}},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
    pending = [_replica(f"web-{i}", nodeName=None) for i in range(6)]
    for pod in pending:
        del pod["spec"]["nodeName"]
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [node, *pending]}))
    answers = []
    for paths in (FastPaths(), FastPaths.off()):
        with using(paths):
            state = api.load_cluster([str(path)])
            answer = api.simulate(cluster=state, seed=1).to_dict()
        del answer["summary"]["seconds"]
        answers.append(answer)
    assert answers[0] == answers[1]
    assert (answers[0]["summary"]["scheduled"], answers[0]["summary"]["unschedulable"]) == (4, 2)


# Parts are shared as read, before defaulting: a replica's containers come defaulted by the first pod
# of its template. Each case loads its pods with sharing and without: the same pods, or the same error.
def _container(cpu: str, **extra: object) -> dict:
    return {"name": "c", "image": "nginx", "resources": {"limits": {"cpu": cpu}}, **extra}


_PORTS = {"ports": [{"containerPort": 80}]}
SHARE_BEFORE_DEFAULTING = {
    "host network, then not": [_replica("a", hostNetwork=True), _replica("b"), _replica("c", hostNetwork=True)],
    "not, then host network": [_replica("a"), _replica("b", hostNetwork=True), _replica("c")],
    "pod-level limits over other containers": [
        _replica("a", containers=[_container("1")], resources={"limits": {"cpu": "4"}}),
        _replica("b", containers=[_container("2")], resources={"limits": {"cpu": "4"}}),
        _replica("c", containers=[_container("1")], resources={"limits": {"cpu": "4"}}),
    ],
    "init containers equal to the containers": [
        _replica("a", initContainers=[_container("1", **_PORTS)], containers=[_container("1", **_PORTS)]),
        _replica("b", hostNetwork=True, initContainers=[_container("1", **_PORTS)],
                 containers=[_container("1", **_PORTS)]),
    ],
    "requests given, then from limits": [
        _replica("a", containers=[{**_container("1"), "resources": {"limits": {"cpu": "1"}, "requests": {"cpu": "1"}}}]),
        _replica("b", containers=[_container("1")]),
    ],
    "a bad quantity in the second replica": [_replica("a"), _replica("b", containers=[_container("1x")])],
    "a bad quantity in every replica": [_replica("a", containers=[_container("1x")]),
                                        _replica("b", containers=[_container("1x")])],
    "a bad quantity in init containers equal to the containers": [
        _replica("a", initContainers=[_container("1x")], containers=[_container("1x")])],
    "a bad toleration in a replica": [_replica("a"), _replica("b", tolerations=[{"key": "k", "operator": "In"}])],
}


def _load_or_error(tmp_path: Path, pods: list[dict], paths: FastPaths) -> object:
    with using(paths):
        try:
            return list(_load(tmp_path, copy.deepcopy(pods)).values())
        except InputError as exc:
            return str(exc)


@pytest.mark.parametrize("pods", SHARE_BEFORE_DEFAULTING.values(), ids=SHARE_BEFORE_DEFAULTING.keys())
def test_sharing_before_defaulting_defaults_as_each_pod_alone(tmp_path: Path, pods: list[dict]) -> None:
    shared = _load_or_error(tmp_path, pods, FastPaths())
    assert shared == _load_or_error(tmp_path, pods, FastPaths.off())
    if isinstance(shared, str):
        assert "cluster.json" in shared and "Pod default/" in shared  # the pod, its file (and line)


def test_a_replica_skips_defaulting_only_with_the_first_pods_host_network(tmp_path: Path) -> None:
    pods = _load(tmp_path, [_replica("a"), _replica("b"), _replica("h", hostNetwork=True),
                            _replica("i", hostNetwork=True)])
    assert pods["a"]["spec"]["containers"] is pods["b"]["spec"]["containers"]
    assert pods["h"]["spec"]["containers"] is pods["i"]["spec"]["containers"]
    assert pods["a"]["spec"]["containers"] is not pods["h"]["spec"]["containers"]
    assert pods["i"]["spec"]["containers"][0]["ports"] == [{"containerPort": 80, "hostPort": 80}]
    assert pods["b"]["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "1", "memory": "1Gi"}


def test_pod_level_resources_are_shared_once_defaulted(tmp_path: Path) -> None:
    spec = {"resources": {"limits": {"cpu": "4"}}}
    pods = _load(tmp_path, [_replica("a", containers=[_container("1")], **spec),
                            _replica("b", containers=[_container("2")], **spec),
                            _replica("c", containers=[_container("1")], **spec)])
    assert pods["a"]["spec"]["resources"]["requests"] == {"cpu": "1"}
    assert pods["b"]["spec"]["resources"]["requests"] == {"cpu": "2"}
    assert pods["a"]["spec"]["resources"] is pods["c"]["spec"]["resources"]
    assert pods["a"]["spec"]["resources"] is not pods["b"]["spec"]["resources"]
