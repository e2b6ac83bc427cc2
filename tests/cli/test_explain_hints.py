"""`kschedctl explain` hints, end to end: for each default-profile filter plugin, the hint of a
node is checked, applied to the input documents as a user would edit them, and the pod explained
again must fit that node (cases in cases/explain_hints.yaml)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cli.helpers import run_cli

CASES = Path(__file__).parent / "cases" / "explain_hints.yaml"


def _load_cases() -> list:
    data = yaml.safe_load(CASES.read_text(encoding="utf-8"))
    return [pytest.param(c, id="Hints_" + c["name"].replace(" ", "_").replace(",", "")) for c in data["cases"]]


# -- building the documents ------------------------------------------------------------------


def make_node(spec: dict) -> dict:
    allocatable = {"cpu": spec.get("cpu", "4"), "memory": spec.get("memory", "8Gi"), "pods": spec.get("pods", "110")}
    allocatable.update(spec.get("extended") or {})
    labels = {"kubernetes.io/hostname": spec["name"], **(spec.get("labels") or {})}
    node: dict[str, Any] = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": spec["name"], "labels": labels},
                            "spec": {}, "status": {"allocatable": allocatable, "capacity": dict(allocatable)}}
    if spec.get("taints"):
        node["spec"]["taints"] = spec["taints"]
    if spec.get("unschedulable"):
        node["spec"]["unschedulable"] = True
    return node


def make_pod(spec: dict, name: str = "web", node: str | None = None) -> dict:
    requests = {k: spec[k] for k in ("cpu", "memory") if k in spec}
    requests.update(spec.get("extended") or {})
    container: dict[str, Any] = {"name": "c", "image": "app", "resources": {"requests": requests}}
    if "extended" in spec:
        container["resources"]["limits"] = dict(spec["extended"])
    if spec.get("hostPort"):
        container["ports"] = [{"containerPort": spec["hostPort"], "hostPort": spec["hostPort"]}]
    pod: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod",
                           "metadata": {"name": spec.get("name", name), "namespace": "default",
                                        "labels": dict(spec.get("labels") or {})},
                           "spec": {"containers": [container]}}
    for key in ("nodeSelector", "affinity", "topologySpreadConstraints", "volumes", "priorityClassName", "nodeName",
                "tolerations"):
        if key in spec:
            pod["spec"][key] = copy.deepcopy(spec[key])
    if node is not None:
        pod["spec"]["nodeName"] = node
        pod["spec"]["priority"] = spec.get("priority", 0)
        pod["status"] = {"phase": "Running"}
    return pod


def documents(case: dict) -> tuple[list[dict], dict]:
    docs = [make_node(n) for n in case.get("nodes") or ()]
    docs += [make_pod(p, node=p["node"]) for p in case.get("running") or ()]
    docs += copy.deepcopy(case.get("objects") or [])
    return docs, make_pod(case["pod"])


# -- applying a hint as a user would -------------------------------------------------------------


def _node_doc(docs: list[dict], name: str) -> dict:
    return next(d for d in docs if d["kind"] == "Node" and d["metadata"]["name"] == name)


def apply_change(change: dict, docs: list[dict], pod: dict, node_name: str) -> list[dict]:
    kind = change["kind"]
    spec = pod["spec"]
    if kind == "addToleration":
        spec.setdefault("tolerations", []).append(change["toleration"])
    elif kind == "setNodeName":
        spec["nodeName"] = change["nodeName"]
    elif kind == "raiseAllocatable":
        node = _node_doc(docs, change["node"])
        node["status"]["allocatable"][change["resource"]] = change["to"]
    elif kind == "setNodeLabel":
        _node_doc(docs, change["node"])["metadata"]["labels"][change["key"]] = change["value"]
    elif kind == "removeNodeLabel":
        _node_doc(docs, change["node"])["metadata"]["labels"].pop(change["key"])
    elif kind == "uncordon":
        node = _node_doc(docs, change["node"])
        node["spec"].pop("unschedulable", None)
        node["spec"]["taints"] = [t for t in node["spec"].get("taints") or ()
                                  if t["key"] != "node.kubernetes.io/unschedulable"]
    elif kind == "removePods":
        gone = set(change["pods"])
        docs = [d for d in docs if not (d["kind"] == "Pod" and
                                        f"{d['metadata']['namespace']}/{d['metadata']['name']}" in gone)]
    elif kind == "addPod":
        docs = docs + [{"apiVersion": "v1", "kind": "Pod",
                        "metadata": {"name": change["name"], "namespace": change["namespace"],
                                     "labels": change["labels"]},
                        "spec": {"nodeName": change["node"], "containers": [{"name": "c", "image": "pause"}]},
                        "status": {"phase": "Running"}}]
    elif kind == "raiseVolumeLimit":
        csinode = next(d for d in docs if d["kind"] == "CSINode" and d["metadata"]["name"] == change["node"])
        for driver in csinode["spec"]["drivers"]:
            if driver["name"] == change["driver"]:
                driver["allocatable"]["count"] = change["to"]
    else:  # pragma: no cover - a new kind needs a line here
        raise AssertionError(f"unknown change kind {kind}")
    return docs


def explain_json(tmp_path: Path, docs: list[dict], pod: dict, *args: str) -> tuple[int, dict]:
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(yaml.safe_dump_all(docs), encoding="utf-8")
    pod_file = tmp_path / "pod.yaml"
    pod_file.write_text(yaml.safe_dump(pod), encoding="utf-8")
    result = run_cli("explain", str(pod_file), "--cluster", str(cluster), "-o", "json", *args)
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, json.loads(result.stdout)


def node_of(data: dict, name: str) -> dict:
    return next(n for n in data["nodes"] if n["name"] == name)


# -- the cases ---------------------------------------------------------------------------------


@pytest.mark.parametrize("case", _load_cases())
def test_hint_applied_makes_the_node_fit(case: dict, tmp_path: Path) -> None:
    docs, pod = documents(case)
    code, data = explain_json(tmp_path, docs, pod)
    assert code == 1 and data["outcome"] == "Unschedulable", data["message"]
    target = case["node"]
    expect = case["expect"]
    summary = next(s for s in data["hints"] if s["node"] == target)
    assert summary["blockingPlugins"] == expect["blocking"]
    if "text" in expect:
        assert summary["text"] == expect["text"]
    assert summary["fitsAfter"] is expect.get("fitsAfter", True)
    hints = node_of(data, target)["hints"]
    changes = [c for h in hints for c in h["changes"]]
    assert [c["kind"] for c in changes] == expect["changes"]
    assert all(h["verified"] is expect.get("verified", True) for h in hints)
    if "tolerations" in expect:
        assert [c["toleration"] for c in changes] == expect["tolerations"]
    if "apply" in case:  # an alternative instead of the primary change
        alternatives = [a for h in hints for a in h.get("alternatives", ())]
        changes = alternatives[case["apply"]]["changes"]
    for change in changes:
        docs = apply_change(change, docs, pod, target)
    _, after = explain_json(tmp_path, docs, pod)
    fixed = node_of(after, target)
    assert fixed["feasible"], (fixed["filters"], after["message"])
    assert after["outcome"] == "Scheduled"


# -- ranking, table, --node --------------------------------------------------------------------


def _three_nodes() -> tuple[list[dict], dict]:
    docs = [make_node({"name": "node-a", "cpu": "2"}), make_node({"name": "node-b", "cpu": "4"}),
            make_node({"name": "node-c", "cpu": "8", "taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]})]
    docs += [make_pod({"name": "x", "cpu": "1"}, node="node-a"), make_pod({"name": "y", "cpu": "3"}, node="node-b")]
    return docs, make_pod({"cpu": "1500m"})


def test_ranking_closest_first(tmp_path: Path) -> None:
    docs, pod = _three_nodes()
    _, data = explain_json(tmp_path, docs, pod)
    # One change each; a toleration has no shortfall, node-b lacks 500m of 4 cpu, node-a 500m of 2.
    assert [(s["rank"], s["node"]) for s in data["hints"]] == [(1, "node-c"), (2, "node-b"), (3, "node-a")]
    assert [s["text"] for s in data["hints"]] == ["node-c needs a toleration for k=v:NoSchedule",
                                                  "node-b needs 0.5 more cpu", "node-a needs 0.5 more cpu"]
    assert [s["shortfall"] for s in data["hints"]] == [0.0, 0.125, 0.25]


@pytest.fixture
def wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "250")


def test_table_has_a_to_fit_section(tmp_path: Path, wide_terminal: None) -> None:
    docs, pod = _three_nodes()
    (tmp_path / "c.yaml").write_text(yaml.safe_dump_all(docs), encoding="utf-8")
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(pod), encoding="utf-8")
    result = run_cli("explain", str(tmp_path / "p.yaml"), "--cluster", str(tmp_path / "c.yaml"))
    assert result.exit_code == 1
    assert "To fit" in result.stdout and "toleration for k=v:NoSchedule" in result.stdout
    one = run_cli("explain", str(tmp_path / "p.yaml"), "--cluster", str(tmp_path / "c.yaml"), "--node", "node-a")
    assert "To fit on node-a" in one.stdout and "+500m" in one.stdout


def test_node_flag_gives_hints_for_a_scheduled_pod(tmp_path: Path, wide_terminal: None) -> None:
    docs, pod = _three_nodes()
    docs.append(make_node({"name": "node-d", "cpu": "16"}))
    (tmp_path / "c.yaml").write_text(yaml.safe_dump_all(docs), encoding="utf-8")
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(pod), encoding="utf-8")
    code, data = explain_json(tmp_path, docs, pod)
    assert code == 0 and "hints" not in data and all("hints" not in n for n in data["nodes"])
    one = run_cli("explain", str(tmp_path / "p.yaml"), "--cluster", str(tmp_path / "c.yaml"), "--node", "node-c")
    assert one.exit_code == 0
    assert "To fit on node-c" in one.stdout and "toleration for k=v:NoSchedule" in one.stdout
    feasible = run_cli("explain", str(tmp_path / "p.yaml"), "--cluster", str(tmp_path / "c.yaml"), "--node", "node-d")
    assert "To fit on" not in feasible.stdout


def test_prefilter_rejection_gives_pod_hints(tmp_path: Path) -> None:
    docs = [make_node({"name": "node-a"})]
    pod = make_pod({"cpu": "100m", "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "missing"}}]})
    _, data = explain_json(tmp_path, docs, pod)
    assert data["outcome"] == "Unschedulable"
    # VolumeRestrictions is the first PreFilter to look the claim up.
    assert [(h["plugin"], h["text"]) for h in data["podHints"]] == [
        ("VolumeRestrictions", 'needs PersistentVolumeClaim default/missing to exist and be usable '
                               '(persistentvolumeclaim "missing" not found)')]
    assert "hints" not in data


def test_many_nodes_table_shows_top_n(tmp_path: Path, wide_terminal: None) -> None:
    docs = [make_node({"name": f"node-{i:02d}", "cpu": "1"}) for i in range(30)]
    pod = make_pod({"cpu": "2"})
    (tmp_path / "c.yaml").write_text(yaml.safe_dump_all(docs), encoding="utf-8")
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(pod), encoding="utf-8")
    result = run_cli("explain", str(tmp_path / "p.yaml"), "--cluster", str(tmp_path / "c.yaml"))
    assert "top 10 of 30 nodes" in result.stdout
    _, data = explain_json(tmp_path, docs, pod)
    assert len(data["hints"]) == 30
    assert all(s["text"].startswith(f"{s['node']} needs 1 more cpu") for s in data["hints"])


def test_node_flag_puts_that_nodes_hints_in_the_json_even_when_the_pod_fits() -> None:
    root = Path(__file__).resolve().parents[2]
    result = run_cli("explain", str(root / "fixtures/pods/pod.yaml"), "--cluster", str(root / "fixtures/cluster"),
                     "--node", "gpu-a1", "-o", "json")
    data = json.loads(result.stdout)
    assert data["outcome"] == "Scheduled"
    gpu = next(n for n in data["nodes"] if n["name"] == "gpu-a1")
    assert [h["plugin"] for h in gpu["hints"]] == ["TaintToleration"]
    assert gpu["hints"][0]["changes"][0]["toleration"]["key"] == "nvidia.com/gpu"


# -- a dedicated pool is no closest fix for a pod too big elsewhere ------------------------------

GPU_TAINT = [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]


@pytest.mark.parametrize("pod_spec,first,prefix", [
    # asks for no GPU: tolerating the GPU pool's taint is not the closest fix; size is
    ({"cpu": "6"}, "node-b", "no untainted node has more than 3 cpu free: node-b needs 3 more cpu"),
    ({"cpu": "6", "memory": "12Gi"}, "node-b",
     "no untainted node has more than 3 cpu free and 8Gi memory free: node-b needs 3 more cpu and 4Gi more memory"),
    # asks for a GPU: the toleration is the fix
    ({"cpu": "6", "extended": {"nvidia.com/gpu": "1"}}, "gpu-a", "gpu-a needs a toleration for nvidia.com/gpu"),
])
def test_a_dedicated_taint_is_no_closest_fix_for_size(tmp_path: Path, pod_spec: dict, first: str,
                                                      prefix: str) -> None:
    docs = [make_node({"name": "node-a", "cpu": "4"}), make_node({"name": "node-b", "cpu": "4"}),
            make_node({"name": "gpu-a", "cpu": "16", "memory": "64Gi", "taints": GPU_TAINT,
                       "extended": {"nvidia.com/gpu": "4"}}),
            make_node({"name": "spare", "cpu": "2", "taints": [{"key": "spare", "effect": "NoSchedule"}]})]
    docs += [make_pod({"name": "x", "cpu": "2"}, node="node-a"), make_pod({"name": "y", "cpu": "1"}, node="node-b")]
    _, data = explain_json(tmp_path, docs, make_pod(pod_spec))
    assert data["hints"][0]["node"] == first
    assert data["hints"][0]["text"].startswith(prefix), data["hints"][0]["text"]
    if first != "gpu-a":
        assert data["hints"][-1]["node"] == "gpu-a"  # still listed, last
