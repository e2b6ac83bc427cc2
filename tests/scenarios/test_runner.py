"""Running scenarios on the bundled fixtures: every expectation kind, passing and failing.

Facts used (fixtures/cluster, default profile): node-b2 is the emptiest m5 node and wins a
small pod; node-a1 and node-b1 are the fullest and tie under bin-packing; node-c2 is cordoned;
the GPU nodes are tainted; a pod asking for 64 CPUs fits nowhere.
"""

from __future__ import annotations

import builtins
from pathlib import Path

import pytest

from kschedctl.scenarios import ScenarioRunner, load_scenarios
from tests.scenarios.helpers import PODS, PROFILES, checks, pod, run, scenario, write

HELLO = str(PODS / "pod.yaml")
TOO_BIG = str(PODS / "too-big.yaml")
BIN_PACKING = str(PROFILES / "bin-packing.yaml")


def one(tmp_path: Path, expect: dict, **kw: object) -> object:
    kw.setdefault("pods", [HELLO])
    (check,) = checks(run(tmp_path, scenario(expect=[expect], **kw)))
    return check


# -- outcome, node, nodeIn, notNode, messageContains ----------------------------------------------


@pytest.mark.parametrize("expect", [
    {"outcome": "Scheduled", "node": "node-b2"},
    {"pod": "default/hello", "nodeIn": ["node-b2", "node-c1"]},
    {"pod": "hello", "notNode": "node-a1"},
    {"notNode": ["node-a1", "node-b1"]},
    {"messageContains": ""},
], ids=lambda e: "_".join(e))
def test_passing_pod_checks(tmp_path: Path, expect: dict) -> None:
    check = one(tmp_path, expect)
    assert check.status == "passed", check.reason
    assert check.pod == "default/hello" and check.actual["node"] == "node-b2"


def test_wrong_node_names_the_decisive_plugins(tmp_path: Path) -> None:
    check = one(tmp_path, {"pod": "default/hello", "node": "node-a1"})
    assert check.status == "failed"
    assert check.reason == "expected node node-a1, got node-b2"
    # weighted scores of node-a1 vs node-b2, where node-a1 fell behind most first
    assert check.details == ["node-a1 scored 479, node-b2 494 (-15): NodeResourcesFit 84 vs 96 (-12), "
                             "NodeResourcesBalancedAllocation 94 vs 98 (-4), ImageLocality 1 vs 0 (+1)"]


def test_wrong_node_that_was_filtered_out(tmp_path: Path) -> None:
    check = one(tmp_path, {"node": "node-c2"})
    assert check.reason == "expected node node-c2, got node-b2"
    assert check.details == ["node-c2 was filtered out by NodeUnschedulable: node(s) were unschedulable"]


def test_node_that_does_not_exist(tmp_path: Path) -> None:
    check = one(tmp_path, {"nodeIn": ["nope"]})
    assert check.reason == "expected one of nope, got node-b2"
    assert check.details == ["nope: no such node in the cluster"]


def test_not_node_failure_shows_the_runner_up(tmp_path: Path) -> None:
    check = one(tmp_path, {"notNode": "node-b2"})
    assert check.reason == "expected not on node-b2, got node-b2"
    assert check.details[0].startswith("node-c1 scored 485, node-b2 494 (-9): ")


def test_wrong_outcome_shows_the_message(tmp_path: Path) -> None:
    check = one(tmp_path, {"outcome": "Scheduled"}, pods=[TOO_BIG])
    assert check.reason == "outcome: expected Scheduled, got Unschedulable"
    assert check.details == [
        "message: 0/8 nodes are available: 1 node(s) were unschedulable, 2 node(s) had untolerated taint(s), "
        "5 Insufficient cpu, 5 Insufficient memory. no new claims to deallocate, preemption: 0/8 nodes are available: 8 Preemption is not "
        "helpful for scheduling."]


def test_expected_unschedulable_but_scheduled(tmp_path: Path) -> None:
    check = one(tmp_path, {"outcome": "Unschedulable"})
    assert check.reason == "outcome: expected Unschedulable, got Scheduled on node-b2"
    assert check.details == ["node-b2 passed every filter (total score 494); 5 of 8 evaluated nodes were feasible"]


def test_node_expected_but_pod_unschedulable(tmp_path: Path) -> None:
    check = one(tmp_path, {"node": "node-a1"}, pods=[TOO_BIG])
    assert check.reason == "expected node node-a1, but the pod was not scheduled (Unschedulable)"
    assert check.details[-1] == "node-a1 was filtered out by NodeResourcesFit: Insufficient cpu; Insufficient memory"


def test_message_contains(tmp_path: Path) -> None:
    assert one(tmp_path, {"messageContains": "5 Insufficient cpu"}, pods=[TOO_BIG]).status == "passed"
    check = one(tmp_path, {"messageContains": "Insufficient gpu"}, pods=[TOO_BIG])
    assert check.reason == 'message does not contain "Insufficient gpu"'


def test_several_failing_checks_in_one_expectation(tmp_path: Path) -> None:
    check = one(tmp_path, {"outcome": "Unschedulable", "node": "node-a1"})
    assert check.reason == ("outcome: expected Unschedulable, got Scheduled on node-b2; "
                            "expected node node-a1, got node-b2")


# -- ties ------------------------------------------------------------------------------------------


def test_a_tie_without_seed_counts_as_any_of_the_tied_nodes(tmp_path: Path) -> None:
    kw = {"config": BIN_PACKING}
    assert one(tmp_path, {"nodeIn": ["node-a1", "node-b1"]}, **kw).status == "passed"
    check = one(tmp_path, {"node": "node-a1"}, **kw)
    assert check.reason == "expected node node-a1, got a tie between node-a1, node-b1"
    assert check.details == ["node-a1, node-b1 are tied at total score 409: kube-scheduler picks one of them "
                             "at random; expect nodeIn: [node-a1, node-b1], or set seed: in the scenario"]
    assert one(tmp_path, {"notNode": "node-b1"}, **kw).status == "failed"
    assert one(tmp_path, {"notNode": "node-b2"}, **kw).status == "passed"


def test_with_a_seed_the_seeded_choice_is_checked(tmp_path: Path) -> None:
    results = {one(tmp_path, {"node": "node-a1"}, config=BIN_PACKING, seed=s).status for s in range(8)}
    assert results == {"passed", "failed"}  # the seed decides, reproducibly
    a = one(tmp_path, {"node": "node-a1"}, config=BIN_PACKING, seed=3)
    b = one(tmp_path, {"node": "node-a1"}, config=BIN_PACKING, seed=3)
    assert a.status == b.status


# -- rank ------------------------------------------------------------------------------------------


def test_rank(tmp_path: Path) -> None:
    assert one(tmp_path, {"rank": {"node": "node-b2", "is": 1}}).status == "passed"
    assert one(tmp_path, {"rank": {"node": "node-c1", "atMost": 2}}).status == "passed"
    check = one(tmp_path, {"rank": {"node": "node-a1", "is": 1}})
    assert check.reason == "rank: expected node-a1 at rank 1, got rank 4 (total score 479)"
    assert check.details[0] == "ranking: 1. node-b2 494, 2. node-c1 485, 3. node-a2 482, 4. node-a1 479, 4. node-b1 479"
    assert check.details[1].startswith("node-a1 scored 479, node-b2 494 (-15): ")


def test_rank_of_a_node_that_was_not_scored(tmp_path: Path) -> None:
    check = one(tmp_path, {"rank": {"node": "gpu-a1", "atMost": 3}})
    assert check.reason == "rank: expected gpu-a1 at rank at most 3, but it was not scored"
    assert check.details == ["gpu-a1 was filtered out by TaintToleration: node(s) had untolerated taint(s)"]


# -- filter ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("want", [
    {"node": "node-c2", "plugin": "NodeUnschedulable", "reason": "node(s) were unschedulable"},
    {"node": "node-c2", "reason": "node(s) were unschedulable"},
    {"node": "node-c2", "code": "UnschedulableAndUnresolvable"},
    {"node": "gpu-a1", "plugin": "TaintToleration", "reasonContains": "untolerated"},
    {"node": "node-b2", "plugin": "NodeResourcesFit", "code": "Success"},
    {"node": "gpu-a1"},
], ids=lambda w: "_".join(f"{k}" for k in w))
def test_filter_passes(tmp_path: Path, want: dict) -> None:
    check = one(tmp_path, {"filter": want})
    assert check.status == "passed", (check.reason, check.details)


def test_filter_with_another_reason(tmp_path: Path) -> None:
    want = {"node": "node-a1", "plugin": "NodeResourcesFit", "reason": "Insufficient memory"}
    check = one(tmp_path, {"filter": want}, pods=[str(PODS / "spread.yaml")])
    assert check.reason == 'filter: expected NodeResourcesFit rejecting "Insufficient memory" on node-a1'
    assert check.details == ["NodeResourcesFit on node-a1: Success"]


def test_filter_that_did_not_run_suggests_all_filters(tmp_path: Path) -> None:
    want = {"node": "node-c2", "plugin": "NodeResourcesFit", "reason": "Insufficient cpu"}
    check = one(tmp_path, {"filter": want}, pods=[TOO_BIG])
    assert check.reason == ('filter: expected NodeResourcesFit rejecting "Insufficient cpu" on node-c2, '
                            "but NodeResourcesFit did not run there")
    assert check.details == ["filters on node-c2: NodeUnschedulable UnschedulableAndUnresolvable",
                             "upstream stops at the first failing filter: set allFilters: true in the scenario "
                             "to run every filter on every node"]
    assert one(tmp_path, {"filter": want}, pods=[TOO_BIG], allFilters=True).status == "passed"


def test_filter_on_a_node_that_passed(tmp_path: Path) -> None:
    check = one(tmp_path, {"filter": {"node": "node-b2"}})
    assert check.reason == "filter: expected a filter rejecting on node-b2"


# -- preemption ------------------------------------------------------------------------------------

CRITICAL = pod("critical", cpu="3400m", memory="1Gi", priorityClassName="business-critical",
               nodeSelector={"kubernetes.io/hostname": "node-a1"})
VICTIM = "default/report-7c9d5f6b8-b6xzd"


def test_victims_and_nominated_node(tmp_path: Path) -> None:
    check = one(tmp_path, {"pod": "critical", "victims": [VICTIM], "nominatedNode": "node-a1",
                           "outcome": "Unschedulable"}, pods=[CRITICAL])
    assert check.status == "passed", check.reason
    assert {k: check.actual["preemption"][k] for k in ("nominatedNode", "victims")} == {
        "nominatedNode": "node-a1", "victims": [VICTIM]}
    check = one(tmp_path, {"pod": "critical", "victims": ["api-6d9f7b8c5d-4mfnc"], "nominatedNode": "node-b1"},
                pods=[CRITICAL])
    assert check.reason == (f"victims: expected [default/api-6d9f7b8c5d-4mfnc], got [{VICTIM}]; "
                            "nominatedNode: expected node-b1, got node-a1")


def test_no_victims(tmp_path: Path) -> None:
    assert one(tmp_path, {"victims": []}, pods=[TOO_BIG]).status == "passed"
    check = one(tmp_path, {"victims": ["x"]}, pods=[TOO_BIG])
    assert check.reason == "victims: expected [default/x], got []"
    assert check.details[0].startswith("no preemption (Unschedulable): 0/8 nodes are available")


# -- simulate --------------------------------------------------------------------------------------

WEB = str(PODS / "web-deployment.yaml")


def test_simulate_counts(tmp_path: Path) -> None:
    expect = {"simulate": {"scheduled": 3, "unschedulable": 0,
                           "countPerZone": {"us-east-1a": 1, "us-east-1b": 1, "us-east-1c": 1}}}
    (check,) = checks(run(tmp_path, scenario(pods=[WEB], expect=[expect])))
    assert check.status == "passed", check.reason
    assert check.actual["scheduled"] == 3


def test_simulate_failures(tmp_path: Path) -> None:
    expect = {"simulate": {"scheduled": 4, "countPerNode": {"node-a1": 3, "nowhere": 1},
                           "countPerZone": {"us-east-1a": 3}, "placements": {"too-big": "node-a1", "ghost": None},
                           "preempted": ["x"]}}
    (check,) = checks(run(tmp_path, scenario(pods=[WEB, TOO_BIG], expect=[expect], config=BIN_PACKING, seed=0)))
    assert check.status == "failed"
    parts = check.reason.split("; ")
    assert parts == [
        "countPerNode: nowhere expected 1, got 0 (no such node)",
        "scheduled: expected 4 pods, got 3",
        "placements: default/too-big expected on node-a1, got Unschedulable",
        "placements: no pod default/ghost in the run",
        "preempted: expected [default/x], got []",
    ]
    assert check.details[0] == "pods per node: node-a1 3"
    assert check.details[1].startswith("default/too-big Unschedulable: 0/8 nodes are available")


def test_simulate_sees_each_placement(tmp_path: Path) -> None:
    # one node-c1 slot for two pods: the first in queue order takes it
    a = pod("a", cpu="3", memory="1Gi", nodeSelector={"kubernetes.io/hostname": "node-c1"})
    b = pod("b", cpu="3", memory="1Gi", nodeSelector={"kubernetes.io/hostname": "node-c1"})
    expect = {"simulate": {"scheduled": 1, "unschedulable": 1, "placements": {"a": "node-c1", "b": None}}}
    (check,) = checks(run(tmp_path, scenario(pods=[a, b], expect=[expect])))
    assert check.status == "passed", check.reason


def test_simulate_not_available(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def fake_import(name: str, *args: object, **kwargs: object) -> object:
        if name == "kschedctl.scheduler.simulate":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    (check,) = checks(run(tmp_path, scenario(pods=[HELLO], expect=[{"simulate": {"scheduled": 1}}])))
    assert check.status == "failed"
    assert check.reason == "simulate is not available in this build of kschedctl (kschedctl.scheduler.simulate)"


# -- pods ------------------------------------------------------------------------------------------


def test_pods_are_named_by_pod_or_workload(tmp_path: Path) -> None:
    report = run(tmp_path, scenario(pods=[WEB, str(PODS / "gpu-job.yaml"), HELLO], expect=[
        {"pod": "web", "outcome": "Scheduled"},
        {"pod": "ml/train-resnet", "node": "gpu-b1"},
        {"pod": "default/hello", "outcome": "Scheduled"},
    ]))
    assert [c.status for c in checks(report)] == ["passed"] * 3
    assert checks(report)[0].pod.startswith("default/web-")


def test_pod_may_be_left_out_with_one_pod_only(tmp_path: Path) -> None:
    report = run(tmp_path, scenario(pods=[HELLO, TOO_BIG], expect=[{"outcome": "Scheduled"}, {"pod": "nope",
                                                                                             "outcome": "Scheduled"}]))
    first, second = checks(report)
    assert first.status == "error"
    assert first.reason.endswith("expect[0]: say which pod (pod: namespace/name): the scenario has 2 pods "
                                 "(default/hello, default/too-big)")
    assert second.status == "error"
    assert "no pod default/nope among the scenario's pods (default/hello, default/too-big)" in second.reason
    assert report.exit_code == 2


def test_inline_pods_and_profile(tmp_path: Path) -> None:
    p = pod("batch", schedulerName="bin-packing")
    report = run(tmp_path, scenario(config=str(PROFILES / "two-profiles.yaml"), pods=[p],
                                    expect=[{"nodeIn": ["node-a1", "node-b1"]}]))
    assert report.exit_code == 0
    report = run(tmp_path, scenario(config=str(PROFILES / "two-profiles.yaml"), pods=[p], profile="default-scheduler",
                                    expect=[{"node": "node-b2"}]))
    assert report.exit_code == 0


# -- errors and caching ----------------------------------------------------------------------------


def test_files_that_cannot_be_loaded_make_errors(tmp_path: Path) -> None:
    report = run(tmp_path,
                 scenario("no cluster", cluster="missing-dir", pods=[HELLO]),
                 scenario("bad config", config="missing.yaml", pods=[HELLO]),
                 scenario("bad pods", pods=["missing-pod.yaml"]),
                 scenario("fine", pods=[HELLO]))
    statuses = [(s.scenario.name, s.status) for s in report.scenarios]
    assert statuses == [("no cluster", "error"), ("bad config", "error"), ("bad pods", "error"), ("fine", "passed")]
    file = tmp_path / "scenario.yaml"
    assert report.scenarios[0].checks[0].reason == \
        f"{file}:4: cluster: {tmp_path / 'missing-dir'}: no such file or directory"
    assert report.scenarios[1].checks[0].reason.startswith(f"{file}:13: config: {tmp_path / 'missing.yaml'}: ")
    assert report.scenarios[2].checks[0].reason == \
        f"{file}:25: pods[0]: {tmp_path / 'missing-pod.yaml'}: no such file or directory"
    assert report.exit_code == 2


def test_invalid_configuration_is_an_error(tmp_path: Path) -> None:
    write(tmp_path / "cfg.yaml", "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                                 "percentageOfNodesToScore: 200\n")
    (check,) = checks(run(tmp_path, scenario(config="cfg.yaml", pods=[HELLO])))
    assert check.status == "error"
    assert check.reason.startswith(f"{tmp_path / 'scenario.yaml'}:4: config: {tmp_path / 'cfg.yaml'}:3: "
                                   "invalid scheduler configuration")


def test_each_cluster_and_config_is_loaded_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import kschedctl.config
    import kschedctl.inputs.cluster

    calls = {"cluster": 0, "config": 0}
    real_cluster, real_config = kschedctl.inputs.cluster.load_cluster, kschedctl.config.load_config

    def load_cluster(paths: list[str]) -> object:
        calls["cluster"] += 1
        return real_cluster(paths)

    def load_config(path: str | None, **kw: object) -> object:
        calls["config"] += 1
        return real_config(path, **kw)

    monkeypatch.setattr(kschedctl.inputs.cluster, "load_cluster", load_cluster)
    monkeypatch.setattr(kschedctl.config, "load_config", load_config)
    docs = [scenario(f"s{i}", pods=[HELLO], config=BIN_PACKING if i % 2 else None,
                     expect=[{"outcome": "Scheduled"}]) for i in range(10)]
    for i in range(3):
        write(tmp_path / f"dir{i}" / "s.yaml", *docs)
    report = ScenarioRunner().run(load_scenarios([str(tmp_path)]))
    assert report.exit_code == 0 and len(report.scenarios) == 30
    assert calls == {"cluster": 1, "config": 2}


def test_report_json(tmp_path: Path) -> None:
    report = run(tmp_path, scenario("r", pods=[HELLO], expect=[{"node": "node-b2"}, {"node": "node-a1"}]))
    data = report.to_dict()
    assert data["kind"] == "TestReport" and data["passed"] is False
    assert data["summary"] == {"scenarios": 1, "checks": 2, "passed": 1, "failed": 1, "errors": 0,
                               "seconds": data["summary"]["seconds"]}
    (s,) = data["scenarios"]
    assert s["status"] == "failed" and s["line"] == 1
    assert s["checks"][0] == {"name": "(the pod): node node-b2", "status": "passed", "line": 8,
                              "pod": "default/hello",
                              "actual": {"outcome": "Scheduled", "node": "node-b2", "message": ""}}
    assert s["checks"][1]["reason"] == "expected node node-a1, got node-b2"


def test_a_pod_of_a_scheduler_no_profile_serves_is_not_handled_and_the_others_run(tmp_path: Path) -> None:
    theirs = write(tmp_path / "theirs.yaml", pod("theirs", schedulerName="other-scheduler"))
    report = run(tmp_path, scenario(pods=[HELLO, str(theirs)], expect=[
        {"pod": "hello", "outcome": "Scheduled"},
        {"pod": "theirs", "outcome": "NotHandled"},
        {"simulate": {"scheduled": 1, "placements": {"default/hello": "node-b2", "default/theirs": None}}},
    ]))
    assert [c.status for c in checks(report)] == ["passed", "passed", "passed"], [c.reason for c in checks(report)]



def test_objects_of_the_cluster_state_in_a_pods_file_join_it_for_that_scenario_only(tmp_path: Path) -> None:
    # The PriorityClass comes with its pod (kubectl apply -f creates both): the pod is admitted
    # with its value. The second scenario, on the same cluster, has no such class.
    bundled = write(tmp_path / "urgent.yaml", {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                                               "metadata": {"name": "urgent"}, "value": 5000},
                    pod("urgent-pod", priorityClassName="urgent"))
    report = run(tmp_path,
                 scenario(name="with", pods=[str(bundled)], expect=[{"pod": "urgent-pod", "outcome": "Scheduled"}]),
                 scenario(name="without", pods=[HELLO], expect=[{"pod": "hello", "outcome": "Scheduled"}]))
    assert [c.status for c in checks(report)] == ["passed", "passed"], [c.reason for c in checks(report)]
