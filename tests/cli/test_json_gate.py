"""explain on JSON snapshots read through msgspec and the typed gate, and without them.

Large JSON files are decoded by msgspec and their objects checked by inputs/json_gate.py; here
the thresholds are lowered so that small files take that way, and every answer and error must
be the one the Python way gives. Also what kschedctl does with what JSON allows Python's
``json`` and no Go decoder: NaN, Infinity, numbers past a float's range (read as floats, then
refused where kschedctl reads the field, kept where it does not: docs/fidelity.md), and lone
surrogates (read as U+FFFD, as Go reads them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kschedctl.fastpaths import FastPaths, using
from kschedctl.inputs import json_gate, loader
from tests.cli.helpers import run_cli


def _node(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def _pod(name: str, **spec: Any) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", "labels": {"app": "a"}},
            "spec": {"nodeName": "n1", "containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}}}],
                     **spec}}


def _with(obj: dict, path: str, value: Any) -> dict:
    obj = json.loads(json.dumps(obj))
    parent = obj
    *parents, last = path.split(".")
    for part in parents:
        parent = parent[int(part)] if isinstance(parent, list) else parent[part]
    parent[last] = value
    return obj


def _claim(api_version: str, request: dict) -> dict:
    return {"apiVersion": api_version, "kind": "ResourceClaim", "metadata": {"name": "c", "namespace": "default"},
            "spec": {"devices": {"requests": [request]}}}


NAN, INF = float("nan"), float("inf")

# (name, the third object of the cluster, what explain says: exit code, a text of its output)
CASES = [
    ("plain", _pod("p2"), 0, "Scheduled"),
    ("nan_priority", _pod("p2", priority=NAN), 2, "cluster.json:4: Pod default/p2: spec.priority must be an integer, not nan"),
    ("infinity_label", _with(_pod("p2"), "metadata.labels.x", INF), 2,
     'metadata.labels.x must be a string, not inf (quote it: "inf")'),
    ("huge_float_cpu", _with(_pod("p2"), "spec.containers.0.resources.requests.cpu", "1e400"), 2,
     "spec.containers[0].resources.requests.cpu: invalid quantity 'inf'"),
    ("nan_where_not_read", _pod("p2", terminationGracePeriodSeconds=NAN), 0, "Scheduled"),
    ("float_priority", _pod("p2", priority=1.0), 2, "spec.priority must be an integer, not 1.0"),
    ("bool_host_network", _pod("p2", hostNetwork=1), 2, "spec.hostNetwork must be true or false, not 1"),
    ("int32_priority", _pod("p2", priority=2**31), 2, "spec.priority must be a 32-bit integer"),
    ("unknown_field", _pod("p2", nodeSelectr={"a": "b"}), 2,
     'strict decoding error: unknown field "spec.nodeSelectr" (did you mean "nodeSelector"?)'),
    ("unknown_deep", _with(_pod("p2"), "spec.containers.0.resources.requets", {}), 2,
     'unknown field "spec.containers[0].resources.requets"'),
    ("null_toleration", _pod("p2", tolerations=[None]), 2, "spec.tolerations[0] must be a mapping, not null"),
    ("lone_surrogate_node_name", _pod("p2", nodeName="n\ud800"), 0, "1 pod(s) run on node 'n\ufffd'"),
    ("lone_surrogate_label", _with(_pod("p2"), "metadata.labels.x", "\udc00"), 0, "Scheduled"),
    # resource.k8s.io objects: the gate holds v1 ones to their shapes; other versions, converted
    # first, are checked by the Python way whatever the gate says of their fields.
    ("dra_v1", _claim("resource.k8s.io/v1", {"name": "r", "exactly": {"deviceClassName": "x", "count": 2}}), 0,
     "Scheduled"),
    ("dra_v1_bad_count", _claim("resource.k8s.io/v1", {"name": "r", "exactly": {"deviceClassName": "x", "count": "two"}}),
     2, 'cluster.json:4: ResourceClaim c: spec.devices.requests[0].exactly.count must be an integer, not "two"'),
    ("dra_v1beta2_bad_count", _claim("resource.k8s.io/v1beta2", {
        "name": "r", "exactly": {"deviceClassName": "x", "count": "two"}}), 2,
     'cluster.json:4: ResourceClaim c: spec.devices.requests[0].exactly.count must be an integer, not "two"'),
    ("dra_v1beta1_bad_count", _claim("resource.k8s.io/v1beta1", {"name": "r", "deviceClassName": "x", "count": "two"}),
     2, 'cluster.json:4: ResourceClaim c: spec.devices.requests[0].exactly.count must be an integer, not "two"'),
]


#: Files msgspec does not read at all (json does): none of their objects is gated.
UNREAD_BY_MSGSPEC = {"nan_priority", "infinity_label", "huge_float_cpu", "nan_where_not_read", "lone_surrogate_node_name",
                     "lone_surrogate_label"}


def _write(tmp_path: Path, third: dict) -> Path:
    path = tmp_path / "cluster.json"
    # One object a line, so that errors have lines to name; json writes NaN, Infinity and \\ud800.
    items = [_node("n1"), _pod("p1"), third]
    text = '{"apiVersion": "v1", "kind": "List", "items": [\n' + ",\n".join(json.dumps(o) for o in items) + "\n]}\n"
    path.write_text(text.replace('"1e400"', "1e400"), encoding="utf-8")
    return path


def _explain(tmp_path: Path, cluster: Path, paths: FastPaths) -> tuple[int, str, str]:
    pod = tmp_path / "pod.json"
    pod.write_text(json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "new"},
                               "spec": {"containers": [{"name": "c"}]}}), encoding="utf-8")
    with using(paths):
        result = run_cli("explain", str(pod), "--cluster", str(cluster), "--seed", "1")
    return result.exit_code, result.stdout, result.stderr.replace(str(tmp_path) + "/", "")


@pytest.mark.parametrize("name,third,code,text", CASES, ids=[c[0] for c in CASES])
def test_the_gate_and_msgspec_change_no_answer(name: str, third: dict, code: int, text: str, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    cluster = _write(tmp_path, third)
    monkeypatch.setattr(loader, "GATE_MIN_OBJECTS", 1)
    monkeypatch.setattr(loader, "MSGSPEC_MIN_BYTES", 0)
    marked: list[int] = []
    real = json_gate.mark
    monkeypatch.setattr(json_gate, "mark", lambda *a: marked.append(real(*a)) or marked[-1])
    fast = _explain(tmp_path, cluster, FastPaths())
    slow = _explain(tmp_path, cluster, FastPaths(typed_gate=False, msgspec_decode=False))
    assert fast == slow
    assert fast[0] == code
    assert text in fast[1] + fast[2]
    # marked[0]: the cluster file (the pod's file comes after it)
    if name in UNREAD_BY_MSGSPEC:  # the whole file goes the Python way
        assert not marked or len(marked) == 1  # only the pod's file, if it was read
    else:  # the node and the first pod, at least, were gated
        assert marked[0] >= 2


def test_a_lone_surrogate_in_a_pod_name_is_read_as_go_reads_it(tmp_path: Path) -> None:
    pod = tmp_path / "pod.json"
    pod.write_text('{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "new\\ud800"}, '
                   '"spec": {"containers": [{"name": "c"}]}}', encoding="utf-8")
    cluster = _write(tmp_path, _pod("p2"))
    result = run_cli("explain", str(pod), "--cluster", str(cluster), "--seed", "1", "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["pod"] == "default/new\ufffd"
