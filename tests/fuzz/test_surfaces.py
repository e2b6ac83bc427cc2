"""Fuzzing the surfaces added since the loaders' fuzz (issue 43): traces (replay), sweeps, steps
inside scenarios and near-valid step objects. Whatever the file holds, kschedctl answers (exit 0
or 1) or says in one line naming the file why it cannot (exit 2); never a traceback, never an
internal error. Each test has a fixed budget: a fixed number of examples, derandomized, no
deadline (CI runs the same examples every time; raise the counts locally to search further).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kschedctl.inputs.trace import API_VERSION, EVENT_FIELDS
from tests.cli.helpers import run_cli
from tests.fuzz.test_loaders import _VALID_NODE, _VALID_POD, _mutated, _values

ROOT = Path(__file__).resolve().parents[2]
STEPS_CLUSTER = ROOT / "tests" / "scenarios" / "steps" / "cluster.yaml"
SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def _assert_user_facing(result: Any, file: Path) -> None:
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr + result.stdout, \
        result.stderr + result.stdout[-2000:]
    assert result.exit_code in (0, 1, 2), (result.exit_code, result.stderr)
    if result.exit_code == 2 and result.stderr:
        lines = result.stderr.strip().splitlines()
        assert all(line.startswith(("error: ", "warning: ")) for line in lines), result.stderr
        assert str(file) in result.stderr, result.stderr


# -- traces -----------------------------------------------------------------------------------------

_TIME = "2027-01-15T08:00:01.000Z"
_POD_PATHS = [("spec",), ("status",), ("metadata",), ("spec", "nodeName"), ("spec", "tolerations"),
              ("spec", "containers"), ("metadata", "name"), ("status", "phase"), ("spec", "affinity")]
_NODE_PATHS = [("spec",), ("status",), ("spec", "taints"), ("status", "allocatable"), ("metadata", "labels"),
               ("metadata", "name"), ("spec", "unschedulable")]
_FIELD_VALUES = st.one_of(_values, st.sampled_from(["default/fuzz", "fuzz-node", _TIME, "Pending", "", "a/b/c"]))


@st.composite
def _event(draw: Any) -> dict:
    kind = draw(st.sampled_from([*EVENT_FIELDS, "End", "Object", "Bogus"]))
    record: dict[str, Any] = {"type": kind, "time": _TIME}
    pod = _mutated(_VALID_POD, draw(st.sampled_from(_POD_PATHS)), draw(_values)) if draw(st.booleans()) \
        else json.loads(json.dumps(_VALID_POD))
    node = _mutated(_VALID_NODE, draw(st.sampled_from(_NODE_PATHS)), draw(_values)) if draw(st.booleans()) \
        else json.loads(json.dumps(_VALID_NODE))
    for name in EVENT_FIELDS.get(kind, ()):
        if name == "object":
            record[name] = node if kind.startswith("Node") else pod
        elif name == "pod":
            record[name] = "default/fuzz"
        elif name == "node":
            record[name] = "fuzz-node"
        else:
            record[name] = draw(_FIELD_VALUES)
    for key in draw(st.lists(st.sampled_from(["type", "time", "pod", "node", "object", "resync", "phase", "kind",
                                               "extra"]), max_size=2)):
        record[key] = draw(_FIELD_VALUES)
    return record


@SETTINGS
@given(st.lists(_event(), min_size=1, max_size=5), st.booleans())
@example([{"type": ["NodeAdded"], "time": _TIME, "object": _VALID_NODE}], True)
@example([{"type": "PodCreated", "time": _TIME, "pod": "default/fuzz", "object": {**_VALID_POD, "status": "x"}}], True)
@example([{"type": "PodUpdated", "time": _TIME, "pod": "default/fuzz", "object": {**_VALID_POD, "spec": 1}}], False)
def test_trace_files(tmp_path_factory: Any, events: list[dict], with_end: bool) -> None:
    path = tmp_path_factory.mktemp("trace") / "trace.jsonl"
    header = {"apiVersion": API_VERSION, "kind": "Trace", "started": "2027-01-15T08:00:00.000Z", "objects": 1}
    lines = [header, {"type": "Object", "object": _VALID_NODE}, *events]
    if with_end:
        lines.append({"type": "End", "time": "2027-01-15T08:01:00.000Z", "reason": "duration", "events": len(events)})
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    _assert_user_facing(run_cli("replay", str(path), "-o", "json"), path)


# -- sweeps -----------------------------------------------------------------------------------------

_SWEEP_KEYS = ["apiVersion", "kind", "name", "configs", "clusters", "workloads", "repetitions", "seed",
               "includeClusterPending", "whatIfs", "file", "files", "vary", "profile", "metrics", "addNodes",
               "like", "count", "cordon", "drain", "withoutNode"]
_sweep_values: Any = st.recursive(
    st.one_of(_values, st.sampled_from(["cluster.yaml", "pod.yaml", "trace.jsonl", "default", "node-1", "/etc/passwd",
                                        "../x.yaml", 3, 1000])),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(_SWEEP_KEYS), inner,
                                                                         max_size=3)),
    max_leaves=10)


@SETTINGS
@given(st.dictionaries(st.sampled_from(_SWEEP_KEYS), _sweep_values, max_size=6))
def test_sweep_files(tmp_path_factory: Any, body: dict[str, Any]) -> None:
    directory = tmp_path_factory.mktemp("sweep")
    (directory / ".git").mkdir()
    (directory / "cluster.yaml").write_text(STEPS_CLUSTER.read_text(encoding="utf-8"), encoding="utf-8")
    (directory / "pod.yaml").write_text(yaml.safe_dump(_VALID_POD), encoding="utf-8")
    doc = {"apiVersion": "kschedctl/v1", "kind": "Sweep", "name": "fuzz", "configs": [{"name": "default"}],
           "clusters": ["cluster.yaml"], "workloads": ["pod.yaml"], **body}
    path = directory / "sweep.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    result = run_cli("sweep", str(path), "-j", "1", "-o", "json", "--allow-outside-paths")
    assert "Traceback" not in result.stderr, result.stderr
    assert result.exit_code in (0, 1, 2), (result.exit_code, result.stderr)
    if result.exit_code == 0 and result.stdout:  # cells that failed say why in one line each
        for cell in json.loads(result.stdout)["cells"]:
            assert "internal error" not in (cell.get("error") or ""), cell


# -- steps: inside scenarios, and near-valid step objects ----------------------------------------------

_near_valid_steps = st.one_of(
    st.builds(lambda path, value: {"create": [_mutated(_VALID_POD, path, value)]},
              st.sampled_from(_POD_PATHS), _values),
    st.builds(lambda key, value: {"taint": {"nodes": "node-1", key: value}},
              st.sampled_from(["taints", "remove", "nodes"]), _values),
    st.builds(lambda key, value: {"addNodes": {"like": "node-1", "count": 1, key: value}},
              st.sampled_from(["labels", "taints", "count", "like"]), _values),
    st.builds(lambda key, value: {"label": {"nodes": "node-1", "labels": {"a": "b"}, key: value}},
              st.sampled_from(["labels", "nodes"]), _values),
    st.builds(lambda action, value: {action: value},
              st.sampled_from(["drain", "cordon", "deletePods", "complete", "advance", "notReady", "deleteNodes"]),
              _values),
)


#: The shapes issue 43 found ending in internal errors: always among the examples.
_KNOWN = [[{"taint": {"nodes": "node-1", "taints": 1}}],
          [{"create": [{**_VALID_POD, "metadata": "x"}]}],
          [{"addNodes": {"like": "node-1", "labels": ["a"]}}]]


@SETTINGS
@given(st.lists(_near_valid_steps, min_size=1, max_size=3))
@example(_KNOWN[0])
@example(_KNOWN[1])
@example(_KNOWN[2])
def test_near_valid_steps_files(tmp_path_factory: Any, steps: list[dict]) -> None:
    path = tmp_path_factory.mktemp("steps") / "steps.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "kschedctl/v1", "kind": "Steps", "steps": steps}), encoding="utf-8")
    _assert_user_facing(run_cli("simulate", "--cluster", str(STEPS_CLUSTER), "--steps", str(path), "-o", "json"),
                        path)


@SETTINGS
@given(st.lists(_near_valid_steps, min_size=1, max_size=3))
@example(_KNOWN[0])
@example(_KNOWN[1])
@example(_KNOWN[2])
def test_steps_of_scenarios(tmp_path_factory: Any, steps: list[dict]) -> None:
    # a bad step is its scenario's error (or its file's), never the run's: the good scenario still passes
    directory = tmp_path_factory.mktemp("scenarios")
    (directory / ".git").mkdir()
    (directory / "cluster.yaml").write_text(STEPS_CLUSTER.read_text(encoding="utf-8"), encoding="utf-8")
    good = {"apiVersion": "kschedctl/v1", "kind": "Scenario", "name": "good", "cluster": "cluster.yaml",
            "steps": [{"cordon": "node-1", "expect": [{"pending": []}]}]}
    fuzzed = {**good, "name": "fuzzed", "steps": [{**s, "expect": [{"pending": []}]} for s in steps]}
    (directory / "good.yaml").write_text(yaml.safe_dump(good), encoding="utf-8")
    (directory / "fuzzed.yaml").write_text(yaml.safe_dump(fuzzed), encoding="utf-8")
    result = run_cli("test", str(directory), "-o", "json", "--allow-outside-paths")
    assert "Traceback" not in result.stderr, result.stderr
    assert result.exit_code in (0, 1, 2), (result.exit_code, result.stderr)
    data = json.loads(result.stdout) if result.stdout else {}
    if data.get("scenarios"):  # the scenarios ran: the good one passed, the fuzzed one's error is no bug
        verdicts = {s["name"]: [c["status"] for c in s["checks"]] for s in data["scenarios"]}
        assert verdicts["good"] == ["passed"], verdicts
        assert all("internal error" not in (c.get("reason") or "") for s in data["scenarios"] for c in s["checks"])
    else:  # the fuzzed file was refused before anything ran: one line naming it
        assert result.exit_code == 2 and "fuzzed.yaml" in result.stderr, result.stderr
