"""PreemptionToleration: upstream's policy and ExemptedFromPreemption tables, and its integration
test's cases run through kschedctl's scheduling cycle (``cases/preemption_toleration.yaml``)."""

from __future__ import annotations

import time
from datetime import datetime, timezone
from pathlib import Path

import pytest
import yaml

from kschedctl.config import load_config
from kschedctl.errors import InputError
from kschedctl.inputs.cluster import load_cluster
from kschedctl.k8s.strconv import NumError
from kschedctl.plugins.sigs.preemption_toleration import (
    ANNOTATION_KEY_PREFIX,
    Policy,
    PreemptionToleration,
    PriorityClassNotFound,
    exempted_from_preemption,
    parse_policy,
)
from kschedctl.analyses.explain import explain
from tests.plugins.harness import pod_info
from tests.plugins.sigs._cases import load

NOW_NS = 1_750_000_000 * 1_000_000_000
CLASS = "dummy"


def _annotations(short: dict | None) -> dict:
    return {ANNOTATION_KEY_PREFIX + k: v for k, v in (short or {}).items()}


def _time(ago: int | str, now_s: float) -> str:
    if ago == "zero":
        return "0001-01-01T00:00:00Z"
    return datetime.fromtimestamp(now_s - int(ago), tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _pod(name: str, spec: dict, now_s: float) -> dict:
    pod: dict = {"metadata": {"name": name}, "spec": {"priority": spec["priority"], "containers": [{"name": "c"}]}}
    if "preemptionPolicy" in spec:
        pod["spec"]["preemptionPolicy"] = spec["preemptionPolicy"]
    if not spec.get("noClass"):
        pod["spec"]["priorityClassName"] = spec.get("className", CLASS)
    if "scheduledAgo" in spec:
        pod["status"] = {"conditions": [{"type": "PodScheduled", "status": "True",
                                         "lastTransitionTime": _time(spec["scheduledAgo"], now_s)}]}
    return pod


@pytest.mark.parametrize("case", load(__file__, "preemption_toleration", "PreemptionToleration", "policies"))
def test_parse_policy(case: dict) -> None:
    pc = {"metadata": {"name": CLASS, "annotations": _annotations(case.get("annotations"))}, "value": case["value"]}
    if "error" in case:
        with pytest.raises(NumError) as err:
            parse_policy(pc)
        assert str(err.value) == case["error"]
    else:
        assert parse_policy(pc) == Policy(case["want"]["minimum"], case["want"]["seconds"])


@pytest.mark.parametrize("case", load(__file__, "preemption_toleration", "PreemptionToleration", "exempted"))
def test_exempted_from_preemption(case: dict) -> None:
    now_s = NOW_NS / 1e9
    classes = {}
    if "class" in case:
        classes[CLASS] = {"metadata": {"name": CLASS, "annotations": _annotations(case["class"].get("annotations"))},
                          "value": case["class"]["value"]}
    victim = pod_info(_pod("victim", case["victim"], now_s))
    preemptor = pod_info(_pod("preemptor", {**case["preemptor"], "noClass": True}, now_s))
    if "error" in case:
        with pytest.raises(PriorityClassNotFound) as err:
            exempted_from_preemption(victim, preemptor, classes, NOW_NS)
        assert case["error"] in str(err.value)
    else:
        assert exempted_from_preemption(victim, preemptor, classes, NOW_NS) is case["want"]


_PROFILE = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
    plugins:
      postFilter:
        enabled: [{name: PreemptionToleration}]
        disabled: [{name: "*"}]
    pluginConfig:
      - name: PreemptionToleration
        args: {minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100}
"""

_REQUESTS = {"cpu": "2", "memory": "1Gi"}


def _cluster_docs(case: dict, now_s: float) -> list[dict]:
    victim = _pod("victim-candidate", {"priority": 1000, "className": "priority-class-for-victim-candidates",
                                       "scheduledAgo": case.get("scheduledAgo", 0)}, now_s)
    victim.update(apiVersion="v1", kind="Pod")
    victim["metadata"]["namespace"] = "default"
    victim["spec"]["nodeName"] = "node-a"
    victim["spec"]["containers"][0]["resources"] = {"requests": dict(_REQUESTS)}
    # The preemptor's priority comes from a class of its own, as the Priority admission wants.
    preemptor_class = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                       "metadata": {"name": "preemptor"}, "value": case["preemptor"]["priority"],
                       "preemptionPolicy": case["preemptor"].get("preemptionPolicy", "PreemptLowerPriority")}
    return [
        preemptor_class,
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-a"},
         "status": {"capacity": {"cpu": "3", "memory": "3Gi", "pods": "110"},
                    "allocatable": {"cpu": "3", "memory": "3Gi", "pods": "110"}}},
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "priority-class-for-victim-candidates",
                      "annotations": _annotations(case.get("annotations"))}, "value": 1000},
        victim,
    ]


@pytest.mark.parametrize("case", load(__file__, "preemption_toleration", "PreemptionToleration", "cluster"))
def test_integration_cases(case: dict, tmp_path: Path) -> None:
    now_s = time.time()
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all(_cluster_docs(case, now_s)))
    (tmp_path / "config.yaml").write_text(_PROFILE)
    preemptor = _pod("p", {**case["preemptor"], "className": "preemptor"}, now_s)
    preemptor.update(apiVersion="v1", kind="Pod")
    del preemptor["spec"]["priority"]
    preemptor["spec"].pop("preemptionPolicy", None)
    preemptor["spec"]["containers"][0]["resources"] = {"requests": dict(_REQUESTS)}
    result = explain(preemptor, load_cluster([str(tmp_path / "cluster.yaml")]),
                     load_config(str(tmp_path / "config.yaml")))
    assert result.outcome == "Unschedulable"
    if case["canTolerate"]:
        assert result.preemption is None or not result.preemption.nominated_node
    else:
        assert result.preemption is not None
        assert (result.preemption.nominated_node, result.preemption.victims) == (
            "node-a", ["default/victim-candidate"])


def test_no_victims_message_and_no_prefix(tmp_path: Path) -> None:
    case = {"annotations": {"toleration-seconds": "-1", "minimum-preemptable-priority": "5000"},
            "scheduledAgo": 0, "preemptor": {"priority": 2000}}
    now_s = time.time()
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all(_cluster_docs(case, now_s)))
    (tmp_path / "config.yaml").write_text(_PROFILE)
    preemptor = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                 "spec": {"priorityClassName": "preemptor", "containers": [{"name": "c", "resources": {"requests": _REQUESTS}}]}}
    result = explain(preemptor, load_cluster([str(tmp_path / "cluster.yaml")]),
                     load_config(str(tmp_path / "config.yaml")))
    assert result.message == (
        "0/1 nodes are available: 1 Insufficient cpu. "
        "0/1 nodes are available: 1 No victims found on node node-a for preemptor pod p.")


@pytest.mark.parametrize(("args", "message"), [
    ({"minCandidateNodesPercentage": 101},
     "PreemptionToleration args: minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]"),
    ({"minCandidateNodesAbsolute": "x"},
     "PreemptionToleration args: minCandidateNodesAbsolute: must be an integer, got 'x'"),
])
def test_invalid_args(args: dict, message: str) -> None:
    with pytest.raises(InputError) as err:
        PreemptionToleration(args, None)
    assert str(err.value) == message


def test_validate_args_findings() -> None:
    assert PreemptionToleration.validate_args({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0}) == [
        ("minCandidateNodesPercentage", "Invalid",
         "Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute"),
        ("minCandidateNodesAbsolute", "Invalid",
         "Invalid value: 0: cannot be zero at the same time as minCandidateNodesPercentage"),
    ]
