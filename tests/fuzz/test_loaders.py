"""Fuzzing every loader: whatever a file holds, kschedctl answers (exit 0 or 1) or says, in one
line naming the file, why it cannot (exit 2); never a traceback.

Cluster files, pod and workload files (and near-valid workloads of every kind, one or two fields
changed) and scenario files go through the real CLI; extender
responses through the decoder of each verb. Documents are Kubernetes-shaped (the field names the
scheduler reads, with values of any type) so that the fuzzer reaches past the first type check.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kschedctl.framework import extender as ext
from tests.cli.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
NODES = ROOT / "fixtures" / "cluster" / "nodes.yaml"
POD = ROOT / "fixtures" / "pods" / "pod.yaml"
# derandomize: CI runs the same examples every time (a new failure is found by raising the counts
# locally, not by chance in a pull request).
SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

_KEYS = ["apiVersion", "kind", "metadata", "name", "namespace", "labels", "annotations", "ownerReferences", "uid",
         "spec", "status", "nodeName", "containers", "initContainers", "resources", "requests", "limits", "cpu",
         "memory", "pods", "nvidia.com/gpu", "allocatable", "capacity", "taints", "tolerations", "key", "value",
         "effect", "operator", "affinity", "nodeAffinity", "podAffinity", "podAntiAffinity", "nodeSelector",
         "topologySpreadConstraints", "maxSkew", "topologyKey", "whenUnsatisfiable", "labelSelector",
         "matchLabels", "matchExpressions", "values", "priority", "priorityClassName", "schedulingGates",
         "ports", "hostPort", "containerPort", "volumes", "persistentVolumeClaim", "claimName", "replicas",
         "template", "selector", "unschedulable", "images", "sizeBytes", "deletionTimestamp",
         "nominatedNodeName", "overhead", "preemptionPolicy", "schedulerName", "items", "conditions"]
_KINDS = ["Node", "Pod", "Deployment", "ReplicaSet", "StatefulSet", "Job", "CronJob", "DaemonSet", "List", "PodList",
          "PriorityClass", "PersistentVolumeClaim", "StorageClass", "Service", "PodDisruptionBudget", "Gadget", 7,
          None]
_scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**66), max_value=2**66),
                     st.floats(allow_nan=False), st.sampled_from(["100m", "1Gi", "2", "-1", "1e3", "0.5", "", "a/b",
                                                                  "NoSchedule", "In", "Exists", "node-a1", "x" * 70]),
                     st.text(max_size=10))
_values: Any = st.recursive(_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(_KEYS), inner, max_size=4)), max_leaves=25)
_objects = st.builds(
    lambda kind, api, name, body: {"apiVersion": api, "kind": kind, "metadata": {"name": name}, **body},
    st.sampled_from(_KINDS), st.sampled_from(["v1", "apps/v1", "batch/v1", "scheduling.k8s.io/v1", "example/v1"]),
    st.one_of(st.sampled_from(["a", "node-x", "web", ""]), st.integers()),
    st.dictionaries(st.sampled_from(_KEYS), _values, max_size=4))



def _mutated(base: dict, path: tuple[str, ...], value: Any) -> dict:
    """``base`` with ``value`` set at ``path`` (dicts created on the way)."""
    out = json.loads(json.dumps(base))
    node = out
    for key in path[:-1]:
        if not isinstance(node.get(key), dict):
            node[key] = {}
        node = node[key]
    node[path[-1]] = value
    return out


_VALID_POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "fuzz", "namespace": "default"},
              "spec": {"containers": [{"name": "c", "image": "busybox",
                                       "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]}}
_VALID_NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "fuzz-node", "labels": {"zone": "z"}},
               "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
_POD_PATHS = [("spec", k) for k in ("nodeSelector", "affinity", "tolerations", "topologySpreadConstraints", "priority",
                                    "schedulingGates", "overhead", "volumes", "nodeName", "preemptionPolicy",
                                    "initContainers", "containers", "priorityClassName", "schedulerName")] + [
    ("metadata", "labels"), ("metadata", "ownerReferences"), ("metadata", "namespace"), ("metadata", "name"),
    ("spec", "affinity", "nodeAffinity"), ("spec", "affinity", "podAntiAffinity"), ("status", "nominatedNodeName")]
_NODE_PATHS = [("spec", "taints"), ("spec", "unschedulable"), ("status", "allocatable"), ("status", "allocatable", "cpu"),
               ("status", "images"), ("metadata", "labels"), ("status", "capacity"), ("metadata", "name")]
#: Valid objects with one field replaced by anything: these reach the plugins.
_near_valid_pods = st.builds(_mutated, st.just(_VALID_POD), st.sampled_from(_POD_PATHS), _values)
_near_valid_nodes = st.builds(_mutated, st.just(_VALID_NODE), st.sampled_from(_NODE_PATHS), _values)

_TEMPLATE = {"metadata": {"labels": {"app": "w"}},
             "spec": {"containers": [{"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "100m"}},
                                      "env": [{"name": "A", "value": "1"}]}]}}
_SELECTOR = {"matchLabels": {"app": "w"}}
#: One valid object of each workload kind, using the fields kschedctl reads to make its pods.
_VALID_WORKLOADS = [
    {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "w"},
     "spec": {"replicas": 2, "selector": _SELECTOR, "template": _TEMPLATE,
              "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%"}}}},
    {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "w"},
     "spec": {"replicas": 2, "selector": _SELECTOR, "template": _TEMPLATE}},
    {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "w"},
     "spec": {"replicas": 2, "selector": {"app": "w"}, "template": _TEMPLATE}},
    {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "w"},
     "spec": {"replicas": 2, "serviceName": "w", "selector": _SELECTOR, "template": _TEMPLATE, "ordinals": {"start": 1},
              "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {
                  "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]}},
    {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "w", "generation": 2},
     "spec": {"selector": _SELECTOR, "template": _TEMPLATE}},
    {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "w"},
     "spec": {"parallelism": 2, "completions": 3, "completionMode": "Indexed", "template": _TEMPLATE}},
    {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "w"},
     "spec": {"schedule": "* * * * *", "jobTemplate": {"metadata": {"labels": {"a": "b"}},
                                                       "spec": {"parallelism": 2, "template": _TEMPLATE}}}},
]
_TEMPLATE_PATHS = ["", ".metadata", ".metadata.labels", ".metadata.labels.app", ".metadata.annotations",
                   ".metadata.finalizers", ".spec", ".spec.containers", ".spec.containers.0",
                   ".spec.containers.0.resources", ".spec.containers.0.resources.requests",
                   ".spec.containers.0.resources.limits", ".spec.containers.0.env", ".spec.containers.0.env.0",
                   ".spec.initContainers", ".spec.hostNetwork", ".spec.tolerations", ".spec.volumes",
                   ".spec.affinity", ".spec.resources", ".spec.hostname"]
_WORKLOAD_PATHS = [
    "metadata", "metadata.name", "metadata.namespace", "metadata.labels", "metadata.annotations", "metadata.uid",
    "metadata.generation", "spec", "status", "status.collisionCount", "spec.replicas", "spec.selector",
    "spec.selector.matchLabels", "spec.selector.matchExpressions", "spec.minReadySeconds", "spec.strategy",
    "spec.strategy.rollingUpdate", "spec.strategy.rollingUpdate.maxSurge", "spec.serviceName", "spec.ordinals",
    "spec.ordinals.start", "spec.volumeClaimTemplates", "spec.volumeClaimTemplates.0",
    "spec.volumeClaimTemplates.0.metadata", "spec.volumeClaimTemplates.0.metadata.name", "spec.parallelism",
    "spec.completions", "spec.completionMode", "spec.manualSelector", "spec.jobTemplate", "spec.jobTemplate.metadata",
    "spec.jobTemplate.metadata.annotations", "spec.jobTemplate.spec", "spec.jobTemplate.spec.parallelism",
    "spec.jobTemplate.spec.completionMode", "spec.jobTemplate.spec.selector",
] + [f"spec.template{p}" for p in _TEMPLATE_PATHS] + [f"spec.jobTemplate.spec.template{p}" for p in _TEMPLATE_PATHS]


def _set_at(base: Any, path: str, value: Any) -> Any:
    """A copy of ``base`` with ``value`` at the dotted ``path`` (digits index lists; mappings made on the way;
    a path through a list that is too short or a scalar changes nothing)."""
    out = json.loads(json.dumps(base))
    node, parts = out, path.split(".")
    for key in parts[:-1]:
        if isinstance(node, list):
            if not key.isdigit() or int(key) >= len(node):
                return out
            node = node[int(key)]
        else:
            if not isinstance(node.get(key), (dict, list)):
                node[key] = {}
            node = node[key]
    last = parts[-1]
    if isinstance(node, dict):
        node[last] = value
    elif isinstance(node, list) and last.isdigit() and int(last) < len(node):
        node[int(last)] = value
    return out


#: Valid workloads with one or two fields replaced by anything (null included): what the workload
#: fuzzer found crashes with, before the load checks (inputs/shapes.py WORKLOAD_SHAPES).
_near_valid_workloads = st.builds(
    lambda base, edits: _set_at(_set_at(base, *edits[0]), *edits[1]) if len(edits) > 1 else _set_at(base, *edits[0]),
    st.sampled_from(_VALID_WORKLOADS),
    st.lists(st.tuples(st.sampled_from(_WORKLOAD_PATHS), _values), min_size=1, max_size=2))

_raw_texts = st.sampled_from([
    b"\xff\xfe\x00bad", b"key: [unclosed", b"a: 1\na: 2\n", b"- just\n- a list\n", b"\x00\x01binary",
    b"a: &a [x, x]\nb: &b [*a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b]\n", b"{" * 300 + b"}" * 300,
    b"kind: Pod\n", b"apiVersion: v1\nkind: Node\nmetadata: {}\n", b"---\n---\n", b"n: 1" + b"0" * 2000 + b"\n",
])


def _assert_user_facing(result: Any, file: Path) -> None:
    assert "Traceback" not in result.stderr, result.stderr
    assert result.exit_code in (0, 1, 2), (result.exit_code, result.stderr)
    if result.exit_code == 2:
        first = result.stderr.strip().splitlines()[-1]
        assert first.startswith("error: "), result.stderr
        assert str(file) in result.stderr, result.stderr


def _dump(objects: list[Any]) -> str:
    return yaml.safe_dump_all(objects, sort_keys=False)


@SETTINGS
@given(st.lists(st.one_of(_objects, _near_valid_nodes, _near_valid_pods), min_size=1, max_size=4))
def test_cluster_files(tmp_path_factory: Any, objects: list[dict]) -> None:
    directory = tmp_path_factory.mktemp("cluster")
    (directory / "nodes.yaml").write_text(NODES.read_text(encoding="utf-8"), encoding="utf-8")
    fuzzed = directory / "fuzzed.yaml"
    fuzzed.write_text(_dump(objects), encoding="utf-8")
    _assert_user_facing(run_cli("explain", "--cluster", str(directory), str(POD), "-o", "json"), fuzzed)


@settings(max_examples=120, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(_objects, _near_valid_pods), min_size=1, max_size=3))
def test_pod_and_workload_files(tmp_path_factory: Any, objects: list[dict]) -> None:
    pods = tmp_path_factory.mktemp("pods") / "pods.yaml"
    pods.write_text(_dump(objects), encoding="utf-8")
    for command in ("explain", "simulate"):
        _assert_user_facing(run_cli(command, "--cluster", str(NODES), str(pods), "-o", "json"), pods)


@settings(max_examples=200, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(_near_valid_workloads, st.sampled_from(["explain", "simulate"]))
def test_workload_files(tmp_path_factory: Any, workload: dict, command: str) -> None:
    path = tmp_path_factory.mktemp("workloads") / "workload.yaml"
    path.write_text(_dump([workload]), encoding="utf-8")
    _assert_user_facing(run_cli(command, "--cluster", str(NODES), str(path), "-o", "json"), path)


@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_raw_texts, st.sampled_from(["cluster", "pod"]))
def test_hostile_bytes(tmp_path_factory: Any, raw: bytes, role: str) -> None:
    path = tmp_path_factory.mktemp("raw") / "input.yaml"
    path.write_bytes(raw)
    args = ["--cluster", str(path), str(POD)] if role == "cluster" else ["--cluster", str(NODES), str(path)]
    _assert_user_facing(run_cli("explain", *args), path)


_scenario_keys = ["apiVersion", "kind", "name", "config", "cluster", "pods", "expect", "pod", "outcome", "node",
                  "nodeIn", "simulate", "seed", "profile", "rank", "filter", "victims", "countPerNode"]


@SETTINGS
@given(st.dictionaries(st.sampled_from(_scenario_keys), _values, max_size=6))
def test_scenario_files(tmp_path_factory: Any, body: dict[str, Any]) -> None:
    directory = tmp_path_factory.mktemp("scenarios")
    (directory / ".git").mkdir()
    doc = {"apiVersion": "kschedctl/v1", "kind": "Scenario", **body}
    path = directory / "s.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    result = run_cli("test", str(directory), "-o", "json")
    assert "Traceback" not in result.stderr, result.stderr
    assert result.exit_code in (0, 1, 2)
    if result.exit_code == 2 and result.stderr:
        assert all(line.startswith("error: ") for line in result.stderr.strip().splitlines()), result.stderr


_json_values: Any = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70), st.floats(allow_nan=False),
              st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.sampled_from(["Nodes", "NodeNames", "FailedNodes", "Error", "Host",
                                                             "Score", "FailedAndUnresolvableNodes", "items",
                                                             "metadata", "name"]), inner, max_size=4)),
    max_leaves=20)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.one_of(_json_values.map(lambda v: json.dumps(v).encode()), st.binary(max_size=40)))
def test_extender_responses(body: bytes) -> None:
    # Every answer is parsed or refused as upstream's Go client would refuse it: an ExtenderError.
    for parse in (ext._parse_filter_result, ext._parse_host_priorities):
        try:
            parse(ext._decode(body))
        except ext.ExtenderError as exc:
            assert str(exc) and "\n" not in str(exc)


_step_keys = ["create", "deletePods", "deleteNodes", "addNodes", "cordon", "drain", "label", "taint", "notReady",
              "unreachable", "ready", "complete", "advance", "expect", "name", "nodes", "like", "count", "job",
              "selector", "taints", "remove", "labels", "force"]
_step_values: Any = st.recursive(
    st.one_of(_values, st.sampled_from(["node-a1", "node-a2", "5m", "1h30m", "-1s", "app=web", "x:NoExecute"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.sampled_from(_step_keys), inner, max_size=3)),
    max_leaves=8)


@SETTINGS
@given(st.lists(st.dictionaries(st.sampled_from(_step_keys), _step_values, min_size=1, max_size=3), max_size=4))
def test_steps_files(tmp_path_factory: Any, steps: list[dict[str, Any]]) -> None:
    # Any steps file is run or refused in one line naming it (exit 2), never a traceback.
    path = tmp_path_factory.mktemp("steps") / "steps.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "kschedctl/v1", "kind": "Steps", "steps": steps}), encoding="utf-8")
    _assert_user_facing(run_cli("simulate", "--cluster", str(NODES), "--steps", str(path), "-o", "json"), path)
