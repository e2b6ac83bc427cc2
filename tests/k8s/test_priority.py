"""Pod priority and the Priority admission plugin against upstream's test tables (cases/priority.yaml)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from kschedctl.errors import InputError
from kschedctl.k8s.priority import (
    PREEMPT_LOWER_PRIORITY,
    PriorityAdmissionError,
    admit_priority,
    default_priority_class,
    pod_preemption_policy,
    pod_priority,
    resolve_priority,
    resolve_priority_class,
)

with open(Path(__file__).parent / "cases" / "priority.yaml", encoding="utf-8") as _f:
    CASES: dict[str, Any] = yaml.safe_load(_f)


def _params(thing: str, cases: list[dict]) -> list:
    return [pytest.param(c, id=f"{thing}_{c['name']}") for c in cases]


def _classes(keys: list[str]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for key in keys:
        pc = copy.deepcopy(CASES["classes"][key])
        out[pc["metadata"]["name"]] = pc
    return out


@pytest.mark.parametrize("case", _params("PodPriority", CASES["pod_priority"]))
def test_pod_priority(case: dict) -> None:
    assert pod_priority(case["pod"]) == case["priority"]


@pytest.mark.parametrize("case", _params("DefaultPriority", CASES["default_priority"]))
def test_default_priority(case: dict) -> None:
    classes = _classes(case["classes"])
    name, priority, _ = resolve_priority_class({"spec": {}}, classes)
    assert (name, priority) == (case["class_name"], case["priority"])
    dpc = default_priority_class(classes)
    assert (dpc["metadata"]["name"] if dpc else "") == case["class_name"]


@pytest.mark.parametrize("case", _params("PodAdmission", CASES["pod_admission"]))
def test_pod_admission(case: dict) -> None:
    pod = copy.deepcopy(CASES["pods"][case["pod"]])
    classes = _classes(case["classes"])
    if "error" in case:
        with pytest.raises(PriorityAdmissionError) as info:
            resolve_priority(pod, classes)
        assert case["error"] in str(info.value)
        assert isinstance(info.value, InputError)
        return
    priority, policy = resolve_priority(pod, classes)
    assert priority == case["priority"]
    if "preemption_policy" in case:
        assert policy == case["preemption_policy"]
    admitted = admit_priority(pod, classes)
    assert admitted["spec"]["priority"] == case["priority"]
    assert pod_priority(admitted) == case["priority"]


@pytest.mark.parametrize("case", _params("SystemClasses", CASES["system_classes"]))
def test_system_classes(case: dict) -> None:
    pod = {"metadata": {"name": "p"}, "spec": {"priorityClassName": case["class"]}}
    assert resolve_priority(pod, {}) == (case["priority"], PREEMPT_LOWER_PRIORITY)
    pod["spec"]["priority"] = 7
    with pytest.raises(PriorityAdmissionError) as info:
        resolve_priority(pod, {})
    assert str(info.value) == (
        'pods "p" is forbidden: the integer value of priority (7) must not be provided in pod spec; '
        f"priority admission controller computed {case['priority']} from the given PriorityClass name"
    )


def test_admit_sets_default_class_name_and_policy() -> None:
    classes = {"low": {"metadata": {"name": "low"}, "value": 5, "globalDefault": True, "preemptionPolicy": "Never"}}
    pod = admit_priority({"metadata": {"name": "p"}}, classes)
    assert pod["spec"] == {"priorityClassName": "low", "priority": 5, "preemptionPolicy": "Never"}
    assert pod_preemption_policy(pod) == "Never"
    bare = admit_priority({"metadata": {"name": "q"}, "spec": {}}, {})
    assert bare["spec"] == {"priority": 0, "preemptionPolicy": PREEMPT_LOWER_PRIORITY}


def test_default_class_ties_are_deterministic() -> None:
    classes = {
        "b": {"metadata": {"name": "b"}, "value": 1, "globalDefault": True},
        "a": {"metadata": {"name": "a"}, "value": 1, "globalDefault": True},
    }
    assert resolve_priority_class({}, classes)[0] == "a"
