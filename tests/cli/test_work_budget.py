"""One work budget per run (issue 43): the slow inputs of the third pass, each made by a small
generator, end in a clean answer with a bounded amount of work or in one line naming the file
and the product past its limit (exit 2). Work, not wall time, is what is asserted: the counters
of ``kschedctl.limits``' budget, or the refusal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kschedctl import limits
from kschedctl.inputs.trace import read_trace
from kschedctl.analyses.replay import Replayer
from tests.cli.helpers import run_cli
from tests.cli.test_replay import arrival, event, node, pod, trace_text

ROOT = Path(__file__).resolve().parents[2]
STEPS_CLUSTER = str(ROOT / "tests" / "scenarios" / "steps" / "cluster.yaml")
DEFAULT = str(ROOT / "profiles" / "default.yaml")
BIN_PACKING = str(ROOT / "profiles" / "bin-packing.yaml")


def _refused(result: Any, file: str, product: str) -> None:
    assert result.exit_code == 2, (result.exit_code, result.stdout[-500:], result.stderr)
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"error: {file}") and "the run's work passed its budget" in line, line
    assert product in line and "Traceback" not in result.stderr


def _node_event_trace(path: Path, pending: int, node_events: int, cpu: str) -> str:
    """``pending`` pods asking ``cpu`` each, then ``node_events`` small nodes added one by one."""
    events = [arrival(0.001 * i, pod(f"p{i}", cpu)) for i in range(pending)]
    events += [event(10 + i, "NodeAdded", object=node(f"m{i}", cpu="2")) for i in range(node_events)]
    path.write_text(trace_text([node("n0")], events, end=11 + node_events), encoding="utf-8")
    return str(path)


def _replay_work(path: str) -> tuple[Any, list[int]]:
    with limits.work_budget(path) as budget:
        result = Replayer(read_trace(path)).run()
    return result, list(budget.counters)


def test_node_events_retry_only_the_pods_they_can_help(tmp_path: Path) -> None:
    # 200 pending pods x 2,000 node events (the 658 KB trace): no new node fits a pod, so no event
    # retries one; before, every event rescheduled all 200 over every node.
    path = _node_event_trace(tmp_path / "t.jsonl", 200, 2000, cpu="100")
    result, work = _replay_work(path)
    assert all(p.replay.outcome == "Pending" for p in result.pods)
    assert work[limits.EVENTS] == 2200
    assert work[limits.NODE_CHECKS] == 200  # the arrivals' one attempt each, on the one node
    assert result.runs == 1


def test_node_events_still_retry_the_pods_they_help(tmp_path: Path) -> None:
    path = _node_event_trace(tmp_path / "t.jsonl", 20, 30, cpu="1500m")
    result, work = _replay_work(path)
    placed = [p for p in result.pods if p.replay.outcome == "Scheduled"]
    assert len(placed) == 20  # one on n0, then one on each new node until the pods run out
    assert work[limits.NODE_CHECKS] < 20 * 31 * 31  # not every pod on every event over every node


@pytest.mark.parametrize("spec", [
    {"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
                                    "whenUnsatisfiable": "DoNotSchedule",
                                    "labelSelector": {"matchLabels": {"app": "x"}}}]},
    {"nodeSelector": {"pool": "gpu"}},
])
def test_a_pod_the_node_may_help_through_its_topology_or_labels_is_retried(tmp_path: Path, spec: dict) -> None:
    pending = pod("picky", "1", **spec)
    pending["metadata"]["labels"] = {"app": "x"}
    gpu = node("gpu-1")
    gpu["metadata"]["labels"]["pool"] = "gpu"
    path = tmp_path / "t.jsonl"
    path.write_text(trace_text([node("n0", cpu="500m")], [arrival(1, pending), event(5, "NodeAdded", object=gpu)]),
                    encoding="utf-8")
    result, _ = _replay_work(str(path))
    [replayed] = result.pods
    assert (replayed.replay.outcome, replayed.replay.node) == ("Scheduled", "gpu-1")


def test_the_trace_in_replay_diff_and_sweep_is_cheap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".git").mkdir()
    path = _node_event_trace(tmp_path / "t.jsonl", 200, 2000, cpu="100")
    # each run's 200 attempts on the one node, twice in diff: the budget of that much work is enough
    monkeypatch.setattr(limits, "WORK_MAX_NODE_CHECKS", 400)
    replayed = run_cli("replay", path, "-o", "json")
    assert replayed.exit_code == 0, replayed.stderr  # pending in the trace, pending in the replay: no difference
    assert json.loads(replayed.stdout)["summary"]
    diffed = run_cli("diff", "-c", BIN_PACKING, "-c", DEFAULT, path, "-o", "json")
    assert diffed.exit_code in (0, 1), diffed.stderr
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(yaml.safe_dump({"apiVersion": "kschedctl/v1", "kind": "Sweep", "name": "trace",
                                     "configs": [{"name": "default"}], "clusters": ["t.jsonl"],
                                     "workloads": ["t.jsonl"], "repetitions": 2}), encoding="utf-8")
    swept = run_cli("sweep", str(sweep), "-j", "1", "-o", "json", "--allow-outside-paths")
    assert swept.exit_code == 0, swept.stderr
    assert [c["error"] for c in json.loads(swept.stdout)["cells"] if c.get("error")] == []
    monkeypatch.setattr(limits, "WORK_MAX_NODE_CHECKS", 399)  # and the budget can fail it
    _refused(run_cli("diff", "-c", BIN_PACKING, "-c", DEFAULT, path), path,
             "scheduling attempts × nodes examined reached 400")


def test_a_run_past_the_events_budget_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "WORK_MAX_EVENTS", 3000)
    path = _node_event_trace(tmp_path / "t.jsonl", 10, 2000, cpu="100")
    # one replay fits (2,010 events); diff replays it twice, into one budget
    assert run_cli("replay", path, "-o", "json").exit_code in (0, 1)
    _refused(run_cli("diff", "-c", DEFAULT, "-c", BIN_PACKING, path),
             path, "trace events applied reached 3,001")


def _steps(path: Path, steps: list, kind: str = "Steps", **extra: Any) -> str:
    doc: dict[str, Any] = {"apiVersion": "kschedctl/v1", "kind": kind, **extra, "steps": steps}
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return str(path)


def test_addnodes_in_twenty_steps_is_refused_once_past_the_nodes_created(tmp_path: Path) -> None:
    # the 904-byte scenario: addNodes 10000, 20 times
    path = _steps(tmp_path / "s.yaml", [{"addNodes": {"like": "node-1", "count": 10000}}] * 20)
    result = run_cli("simulate", "--cluster", STEPS_CLUSTER, "--steps", path)
    _refused(result, f"{path}:", "nodes created reached 60,000, past the limit of 50,000")
    assert "steps[5].addNodes" in result.stderr


def test_a_thousand_advance_steps_over_300_pending_pods_retry_nothing(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # the 16 KB scenario: 300 pending pods, then 1,000 steps of "advance: 1s"
    big = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "big"},
           "spec": {"replicas": 300, "selector": {"matchLabels": {"app": "big"}},
                    "template": {"metadata": {"labels": {"app": "big"}},
                                 "spec": {"containers": [{"name": "c", "image": "x",
                                                          "resources": {"requests": {"cpu": "100"}}}]}}}}
    (tmp_path / ".git").mkdir()
    (tmp_path / "big.yaml").write_text(yaml.safe_dump(big), encoding="utf-8")
    (tmp_path / "cluster.yaml").write_text(Path(STEPS_CLUSTER).read_text(encoding="utf-8"), encoding="utf-8")
    scenario = _steps(tmp_path / "scenario.yaml",
                      [{"create": "big.yaml"}] + [{"advance": "1s"}] * 998 + [{"advance": "1s", "expect": [
                          {"selector": "app=big", "unschedulable": 300}]}],
                      kind="Scenario", name="advance", cluster="cluster.yaml")
    nodes = len([d for d in yaml.safe_load_all(Path(STEPS_CLUSTER).read_text(encoding="utf-8"))
                 if d and d["kind"] == "Node"])
    # each of the 300 pods tried at most 10 times (--max-attempts) at the create step, then once
    # more every 5 minutes of virtual time (999 s: 3 flushes); not 1,000 times: a budget of that
    # much work is enough
    monkeypatch.setattr(limits, "WORK_MAX_NODE_CHECKS", 300 * (10 + 3) * nodes)
    result = run_cli("test", scenario, "--allow-outside-paths", "-o", "json")
    assert result.exit_code == 0, result.stdout[-2000:] + result.stderr
    monkeypatch.setattr(limits, "WORK_MAX_NODE_CHECKS", 300 * nodes)  # and the budget can fail it
    _refused(run_cli("test", scenario, "--allow-outside-paths", "-o", "json"), scenario,
             "scheduling attempts × nodes examined reached")


def test_a_sweep_of_addnodes_repetitions_is_refused(tmp_path: Path) -> None:
    # the 9-line sweep: addNodes 10000 x 1,000 repetitions
    (tmp_path / ".git").mkdir()
    (tmp_path / "cluster.yaml").write_text(Path(STEPS_CLUSTER).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "pod.yaml").write_text(yaml.safe_dump(pod("one", "100m")), encoding="utf-8")
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(yaml.safe_dump({"apiVersion": "kschedctl/v1", "kind": "Sweep", "name": "big",
                                     "configs": [{"name": "default"}], "clusters": ["cluster.yaml"],
                                     "workloads": ["pod.yaml"], "repetitions": 1000,
                                     "whatIfs": [{"name": "more", "addNodes": {"like": "node-1", "count": 10000}}]}),
                     encoding="utf-8")
    for workers in ("1", "2"):
        _refused(run_cli("sweep", str(sweep), "-j", workers, "--allow-outside-paths"), str(sweep), "nodes created reached")


def test_the_budget_of_test_is_the_runs_not_each_scenarios(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "WORK_MAX_NODES_CREATED", 25)
    (tmp_path / ".git").mkdir()
    (tmp_path / "cluster.yaml").write_text(Path(STEPS_CLUSTER).read_text(encoding="utf-8"), encoding="utf-8")
    for name in ("a", "b", "c"):
        _steps(tmp_path / f"{name}.yaml", [{"addNodes": {"like": "node-1", "count": 10},
                                            "expect": [{"pending": []}]}],
               kind="Scenario", name=name, cluster="cluster.yaml")
    result = run_cli("test", str(tmp_path), "--allow-outside-paths")
    # 10 + 10 fit, the third scenario's 10 pass the 25 of the run
    _refused(result, str(tmp_path / "c.yaml"), "nodes created reached 30, past the limit of 25")


def test_nodes_added_step_by_step_retry_only_the_pods_they_can_help(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # 300 pods no node fits, then 300 steps adding one small node each: no step retries them
    big = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"big-{i}"},
            "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "100"}}}]}}
           for i in range(300)]
    fits = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "fits"},
            "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}]}}
    steps = [{"create": big}] + [{"addNodes": {"like": "node-1", "count": 1}}] * 299 + [
        {"create": [fits], "expect": [{"pending": [f"big-{i}" for i in range(300)]}]}]
    path = _steps(tmp_path / "s.yaml", steps)
    nodes = len([d for d in yaml.safe_load_all(Path(STEPS_CLUSTER).read_text(encoding="utf-8"))
                 if d and d["kind"] == "Node"])
    # the create step's attempts (10 each at most), then the last step's (a pod arrived: all retried)
    monkeypatch.setattr(limits, "WORK_MAX_NODE_CHECKS", 300 * 10 * nodes + 301 * (nodes + 299) * 10)
    result = run_cli("simulate", "--cluster", STEPS_CLUSTER, "--steps", path, "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["passed"] is True
