"""Building the cluster state: admission defaults, priorities, ignored kinds, bad input."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from kschedctl.errors import InputError
from kschedctl.inputs.cluster import ClusterState, admit_pod, load_cluster, make_uid
from kschedctl.inputs.loader import Document, parse_text
from tests.work import calls_made

HERE = Path(__file__).parent
CASES = yaml.safe_load((HERE / "cases" / "cluster.yaml").read_text(encoding="utf-8"))["cases"]
MISSING = object()


def get_path(obj: Any, path: str) -> Any:
    """``obj`` at a dotted path; list indexes are numbers ("spec.containers.0.name")."""
    cur = obj
    parts = path.split(".")
    i = 0
    while i < len(parts):
        if isinstance(cur, list):
            cur = cur[int(parts[i])]
            i += 1
            continue
        # keys may contain dots (labels such as kubernetes.io/metadata.name): try the longest
        for j in range(len(parts), i, -1):
            key = ".".join(parts[i:j])
            if isinstance(cur, dict) and key in cur:
                cur = cur[key]
                i = j
                break
        else:
            return MISSING
    return cur


def _object(state: ClusterState, ref: str) -> dict:
    kind, key = ref.split("/", 1)
    if kind == "Pod":
        return next(p for p in state.pods if f"{p['metadata']['namespace']}/{p['metadata']['name']}" == key)
    if kind == "Node":
        return state.node_by_name[key]
    from kschedctl.inputs.kinds import KIND_BY_NAME

    return getattr(state, KIND_BY_NAME[kind].collection)[key]


@pytest.mark.parametrize("case", [pytest.param(c, id=f"Cluster_{c['name']}") for c in CASES])
def test_cluster_cases(case: dict) -> None:
    state, calls = calls_made(lambda: ClusterState.from_documents(parse_text(case["text"], "<text>")))
    assert calls < 100_000, f"{calls:,} calls"  # a hostile case past a limit would make millions
    if "error" in case:
        assert isinstance(state, InputError), f"expected an error, got {state!r}"
        assert state.file == "<text>"
        assert state.line == case["error"]["line"]
        assert case["error"]["contains"] in str(state)
        return
    assert not isinstance(state, InputError), str(state)
    expect = case.get("expect") or {}
    if "counts" in expect:
        assert state.counts() == expect["counts"]
    for group, prefix in (("pods", "Pod/"), ("nodes", "Node/"), ("objects", "")):
        for ref, fields in (expect.get(group) or {}).items():
            obj = _object(state, prefix + ref)
            for path, want in fields.items():
                assert get_path(obj, path) == want, f"{ref} {path}"
    if "ignored" in expect:
        assert state.ignored_kinds == expect["ignored"]
    if "warnings" in expect:
        assert state.warnings == expect["warnings"]
    if "implied_namespaces" in expect:
        assert state.implied_namespaces == expect["implied_namespaces"]
    if "uid_is_deterministic" in expect:
        ns, name = expect["uid_is_deterministic"].split("/")
        pod = _object(state, f"Pod/{ns}/{name}")
        assert pod["metadata"]["uid"] == make_uid("Pod", ns, name)
        again = ClusterState.from_documents(parse_text(case["text"], "<text>"))
        assert again.pods[0]["metadata"]["uid"] == pod["metadata"]["uid"]


def test_admit_pod_for_a_new_pod_checks_a_given_priority() -> None:
    state = ClusterState.from_documents(parse_text(
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 10\n", "pc.yaml"))
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"priorityClassName": "high", "priority": 11, "containers": [{"name": "c", "image": "i"}]}}
    with pytest.raises(InputError) as err:
        admit_pod(copy.deepcopy(pod), state)
    assert "the integer value of priority (11) must not be provided in pod spec" in str(err.value)
    pod["spec"]["priority"] = 10
    admitted = admit_pod(copy.deepcopy(pod), state)
    assert admitted["spec"]["priority"] == 10 and admitted["metadata"]["namespace"] == "default"
    # admitting twice changes nothing
    assert admit_pod(copy.deepcopy(admitted), state) == admitted


def test_with_objects_leaves_the_original_alone() -> None:
    state = ClusterState.from_documents(parse_text(
        "{apiVersion: v1, kind: Node, metadata: {name: n1}}", "n.yaml"))
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web-1", "namespace": "default"}}
    deploy = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"}}
    joined = state.with_objects([rs, deploy])
    assert "default/web-1" in joined.replica_sets and not state.replica_sets
    assert joined.owners == {"Deployment/default/web": deploy}
    assert joined.warnings == [] and joined.nodes == state.nodes


def test_add_object_and_source() -> None:
    state = ClusterState.from_documents(parse_text(
        "{apiVersion: v1, kind: Node, metadata: {name: n1}}\n---\n{apiVersion: v1, kind: Node, metadata: {name: n2}}",
        "n.yaml"))
    assert state.source("Node", "n2").where == "n.yaml:3"
    state.add_object({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "x"},
                      "spec": {"containers": [{"name": "c", "image": "i"}]}})
    assert state.pods[0]["spec"]["priority"] == 0
    assert "x" in state.namespaces
    assert [n["metadata"]["name"] for n in state.of_kind("Node")] == ["n1", "n2"]


def test_objects_without_kind_from_code_are_ignored_not_fatal() -> None:
    state = ClusterState.from_documents([Document({"metadata": {"name": "x"}}, "<test>", None)])
    assert state.ignored_kinds == {"(no kind)": 1}


def test_load_cluster_needs_objects(tmp_path: Path) -> None:
    (tmp_path / "empty.yaml").write_text("# nothing\n")
    with pytest.raises(InputError) as err:
        load_cluster([str(tmp_path)])
    assert "no objects found" in str(err.value)


def test_joining_owners_replaces_an_object_of_the_same_name() -> None:
    state = ClusterState.from_documents(parse_text(
        "{apiVersion: apps/v1, kind: ReplicaSet, metadata: {name: rs, labels: {v: old}}}", "rs.yaml"))
    new_rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs", "labels": {"v": "new"}}}
    joined = state.with_objects([new_rs])
    assert joined.replica_sets["default/rs"]["metadata"]["labels"] == {"v": "new"}
    assert state.replica_sets["default/rs"]["metadata"]["labels"] == {"v": "old"}
    state.add_object(new_rs)
    assert state.replica_sets["default/rs"] is new_rs
    state.add_object({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}})
    assert state.warnings == [] and "Deployment/default/d" in state.owners


def test_dra_objects_are_kept_as_v1_whatever_the_version_written(tmp_path: Path) -> None:
    path = tmp_path / "dra.yaml"
    path.write_text("""\
apiVersion: resource.k8s.io/v1beta1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec: {selectors: [{cel: {expression: "device.driver == 'gpu.example.com'"}}]}
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata: {name: node-1-gpu}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0, basic: {attributes: {model: {string: a100}}}}]
---
apiVersion: resource.k8s.io/v1beta2
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: ml}
spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared-gpu}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}
""")
    state = load_cluster([str(path)])
    assert state.warnings == []
    assert list(state.device_classes) == ["gpu.example.com"]
    assert state.resource_slices["node-1-gpu"]["spec"]["devices"] == [{"name": "gpu-0", "attributes": {"model": {"string": "a100"}}}]
    assert list(state.resource_claim_templates) == ["ml/one-gpu"]
    assert list(state.resource_claims) == ["default/shared-gpu"]
    assert {o["apiVersion"] for c in (state.device_classes, state.resource_slices, state.resource_claim_templates,
                                      state.resource_claims) for o in c.values()} == {"resource.k8s.io/v1"}


def test_a_dra_version_v1_34_does_not_serve_is_an_error_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "old.yaml"
    path.write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: ml}\n---\n"
                    "apiVersion: resource.k8s.io/v1alpha3\nkind: ResourceClaim\nmetadata: {name: c}\n")
    with pytest.raises(InputError) as err:
        load_cluster([str(path)])
    assert str(err.value) == (f"{path}:5: ResourceClaim c: resource.k8s.io/v1alpha3 ResourceClaim is not served by "
                              "Kubernetes v1.34 (use resource.k8s.io/v1, v1beta2 or v1beta1)")


def test_dra_objects_without_gated_fields_never_ask_for_their_line() -> None:
    # The line of an item of a JSON List is found by scanning the whole file again: a 50 MB
    # cluster file paid that scan once per load for nothing when it held any DRA object.
    asked: list[str] = []

    def locate(name: str) -> Any:
        return lambda: asked.append(name) or 7

    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
             "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}}
    state = ClusterState.from_documents([Document(claim, "cluster.json", locate=locate("gpu"))])
    assert "gpu" in state.device_classes and asked == []


#: (id, pod, whether it waits for the scheduler): the one pending-pod predicate.
WAITING = [
    ("new-pod", {"metadata": {"name": "a"}, "spec": {}}, True),
    ("pending-phase", {"metadata": {"name": "a"}, "spec": {}, "status": {"phase": "Pending"}}, True),
    ("bound", {"metadata": {"name": "a"}, "spec": {"nodeName": "n1"}}, False),
    ("terminating", {"metadata": {"name": "a", "deletionTimestamp": "2026-01-01T00:00:00Z"}, "spec": {}}, False),
    ("succeeded-unbound", {"metadata": {"name": "a"}, "spec": {}, "status": {"phase": "Succeeded"}}, False),
    ("failed-unbound", {"metadata": {"name": "a"}, "spec": {}, "status": {"phase": "Failed"}}, False),
    ("nominated-still-waits", {"metadata": {"name": "a"}, "spec": {}, "status": {"nominatedNodeName": "n1"}}, True),
]


@pytest.mark.parametrize("pod,waits", [c[1:] for c in WAITING], ids=[c[0] for c in WAITING])
def test_waits_for_scheduler(pod: dict, waits: bool) -> None:
    from kschedctl.inputs.cluster import waits_for_scheduler

    assert waits_for_scheduler(pod) is waits
