"""Workloads become the pod their controller would create, with owners joining the cluster."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from kschedctl.errors import InputError
from kschedctl.inputs.cluster import ClusterState
from kschedctl.inputs.loader import parse_text
from kschedctl.inputs.workloads import fnv32a, pods_from_documents, safe_encode
from tests.inputs.test_cluster import MISSING, get_path

HERE = Path(__file__).parent
CASES = yaml.safe_load((HERE / "cases" / "workloads.yaml").read_text(encoding="utf-8"))["cases"]


def _ref(obj: dict) -> str:
    return f"{obj['kind']}/{obj['metadata']['name']}"


def _check_fields(obj: dict, fields: dict[str, Any], what: str) -> None:
    for path, want in fields.items():
        got = get_path(obj, path)
        assert got is not MISSING, f"{what}: {path} missing"
        if isinstance(want, dict) and set(want) == {"matches"}:
            assert re.search(want["matches"], got), f"{what}: {path} = {got!r}"
        else:
            assert got == want, f"{what}: {path}"


def _run(case: dict) -> Any:
    cluster = None
    if "cluster" in case:
        cluster = ClusterState.from_documents(parse_text(case["cluster"], "<cluster>"))
    return pods_from_documents(parse_text(case["text"], "<pods>"), cluster)


@pytest.mark.parametrize("case", [pytest.param(c, id=f"Workload_{c['name']}") for c in CASES])
def test_workload_cases(case: dict) -> None:
    if "error" in case:
        with pytest.raises(InputError) as err:
            _run(case)
        assert err.value.file == "<pods>"
        assert err.value.line == case["error"]["line"]
        assert case["error"]["contains"] in str(err.value)
        return
    result = _run(case)
    assert len(result) == len(case["pods"])
    assert result.warnings == case.get("warnings", [])
    assert [_ref(d.obj) for d in result.bundled] == case.get("bundled", [])
    for item, want in zip(result, case["pods"]):
        pod = item.pod
        name = pod["metadata"]["name"]
        if "name_matches" in want:
            assert re.match(want["name_matches"], name), name
        _check_fields(pod, want.get("pod") or {}, "pod")
        if "owners" in want:
            got = [_ref(o) for o in item.owners]
            assert len(got) == len(want["owners"])
            for g, w in zip(got, want["owners"]):
                assert g == w or g.split("/")[0] == w, (got, want["owners"])
        if "objects" in want:
            assert [_ref(o) for o in item.objects] == want["objects"]
        if "owner0" in want:
            _check_fields(item.owners[0], want["owner0"], "owner")
        if "object0" in want:
            _check_fields(item.objects[0], want["object0"], "object")
        if "hash_label" in want:
            value = pod["metadata"]["labels"][want["hash_label"]]
            assert re.fullmatch(f"[{'bcdfghjklmnpqrstvwxz2456789'}]{{6,10}}", value)
        if "revision_label_matches" in want:
            assert re.match(want["revision_label_matches"], pod["metadata"]["labels"]["controller-revision-hash"])
        # the pod's controller reference points at the first owner
        if item.owners:
            ref = pod["metadata"]["ownerReferences"][0]
            assert (ref["kind"], ref["name"], ref["uid"]) == (
                item.owners[0]["kind"], item.owners[0]["metadata"]["name"], item.owners[0]["metadata"]["uid"])
        assert item.source.file == "<pods>"


def test_names_and_hashes_are_reproducible() -> None:
    text = (HERE.parent.parent / "fixtures" / "pods" / "web-deployment.yaml").read_text()
    first = pods_from_documents(parse_text(text, "a.yaml"))[0]
    second = pods_from_documents(parse_text(text, "b.yaml"))[0]
    assert first.pod == second.pod
    assert first.owners == second.owners


def test_deployment_pod_matches_its_replicaset_selector() -> None:
    from kschedctl.k8s.selectors import label_selector

    text = (HERE.parent.parent / "fixtures" / "pods" / "web-deployment.yaml").read_text()
    item = pods_from_documents(parse_text(text, "w.yaml"))[0]
    rs = item.owners[0]
    hash_ = rs["metadata"]["labels"]["pod-template-hash"]
    assert rs["metadata"]["name"] == f"web-{hash_}"
    assert rs["spec"]["selector"]["matchLabels"] == {"app": "web", "pod-template-hash": hash_}
    assert label_selector(rs["spec"]["selector"]).matches(item.pod["metadata"]["labels"])
    assert item.pod["metadata"]["generateName"] == f"web-{hash_}-"


def test_the_workload_document_is_not_changed() -> None:
    docs = parse_text("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec:\n"
                      "      containers: [{name: c, image: i}]\n", "j.yaml")
    before = repr(docs[0].obj)
    pods_from_documents(docs)
    assert repr(docs[0].obj) == before


def test_owners_join_a_copy_of_the_cluster() -> None:
    cluster = ClusterState.from_documents(parse_text("{apiVersion: v1, kind: Node, metadata: {name: n1}}", "n.yaml"))
    text = (HERE.parent.parent / "fixtures" / "pods" / "web-deployment.yaml").read_text()
    item = pods_from_documents(parse_text(text, "w.yaml"), cluster)[0]
    joined = item.apply(cluster)
    rs = item.owners[0]
    assert f"default/{rs['metadata']['name']}" in joined.replica_sets
    assert not cluster.replica_sets and joined.warnings == []


@pytest.mark.parametrize("data,expected", [
    pytest.param(b"", 0x811C9DC5, id="Fnv32a_empty"),
    pytest.param(b"a", 0xE40C292C, id="Fnv32a_a"),
    pytest.param(b"foobar", 0xBF9CF968, id="Fnv32a_foobar"),
])
def test_fnv32a(data: bytes, expected: int) -> None:
    # reference values of FNV-1a 32 (Go's hash/fnv tests)
    assert fnv32a(data) == expected


@pytest.mark.parametrize("text,expected", [
    pytest.param("", "", id="SafeEncode_empty"),
    # rand.SafeEncodeString maps each byte b to alphanums[b % 27]
    pytest.param("0123456789", "".join("bcdfghjklmnpqrstvwxz2456789"[ord(c) % 27] for c in "0123456789"),
                 id="SafeEncode_digits"),
])
def test_safe_encode(text: str, expected: str) -> None:
    assert safe_encode(text) == expected
