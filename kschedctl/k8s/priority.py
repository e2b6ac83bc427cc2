"""Pod priority: what the API server's Priority admission plugin writes, and what the scheduler reads.

Follows upstream v1.34: ``plugin/pkg/admission/priority/admission.go`` (``admitPod`` on
create, ``getDefaultPriorityClass``), ``pkg/apis/scheduling`` (system classes, defaults) and
``k8s.io/component-helpers/scheduling/corev1/helpers.go`` (``PodPriority``).

The two system classes exist in every cluster (the API server creates them at start-up), so
they resolve even when the input holds no PriorityClass objects; an input object of the same
name wins. A PriorityClass without ``preemptionPolicy`` has it defaulted to
``PreemptLowerPriority`` (as API defaulting does).
"""

from __future__ import annotations

from typing import Any, Mapping

from kschedctl.errors import InputError

__all__ = [
    "SYSTEM_CLUSTER_CRITICAL",
    "SYSTEM_NODE_CRITICAL",
    "SYSTEM_CRITICAL_PRIORITY",
    "HIGHEST_USER_DEFINABLE_PRIORITY",
    "DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS",
    "PREEMPT_LOWER_PRIORITY",
    "PREEMPT_NEVER",
    "SYSTEM_PRIORITY_CLASSES",
    "PriorityAdmissionError",
    "default_priority_class",
    "resolve_priority_class",
    "resolve_priority",
    "admit_priority",
    "pod_priority",
    "pod_preemption_policy",
]

SYSTEM_CLUSTER_CRITICAL = "system-cluster-critical"
SYSTEM_NODE_CRITICAL = "system-node-critical"
#: Upstream scheduling.SystemCriticalPriority (2 * HighestUserDefinablePriority).
SYSTEM_CRITICAL_PRIORITY = 2_000_000_000
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS = 0

PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority"
PREEMPT_NEVER = "Never"


def _system_class(name: str, value: int, description: str) -> dict:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
        "globalDefault": False,
        "description": description,
        "preemptionPolicy": PREEMPT_LOWER_PRIORITY,
    }


#: The classes every cluster has (upstream scheduling.SystemPriorityClasses()).
SYSTEM_PRIORITY_CLASSES: dict[str, dict] = {
    SYSTEM_NODE_CRITICAL: _system_class(
        SYSTEM_NODE_CRITICAL,
        SYSTEM_CRITICAL_PRIORITY + 1000,
        "Used for system critical pods that must not be moved from their current node.",
    ),
    SYSTEM_CLUSTER_CRITICAL: _system_class(
        SYSTEM_CLUSTER_CRITICAL,
        SYSTEM_CRITICAL_PRIORITY,
        "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
    ),
}


class PriorityAdmissionError(InputError):
    """The Priority admission plugin would refuse to create the pod (message as upstream)."""


def _class_value(pc: Mapping[str, Any]) -> int:
    value = pc.get("value", 0)
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        name = (pc.get("metadata") or {}).get("name", "")
        raise PriorityAdmissionError(f"PriorityClass {name!r}: value must be an integer, not {value!r}") from None


def _class_policy(pc: Mapping[str, Any]) -> str:
    return pc.get("preemptionPolicy") or PREEMPT_LOWER_PRIORITY


def _class_name(name: str, pc: Mapping[str, Any]) -> str:
    return (pc.get("metadata") or {}).get("name") or name


def _default_class(priority_classes: Mapping[str, Mapping[str, Any]]) -> tuple[str, Mapping[str, Any]] | None:
    best: tuple[int, str] | None = None
    found: tuple[str, Mapping[str, Any]] | None = None
    for key, pc in priority_classes.items():
        if pc.get("globalDefault"):
            name = _class_name(key, pc)
            rank = (_class_value(pc), name)
            if best is None or rank < best:
                best, found = rank, (name, pc)
    return found


def default_priority_class(priority_classes: Mapping[str, Mapping[str, Any]]) -> dict | None:
    """Upstream ``getDefaultPriorityClass``: among globalDefault classes, the lowest value.

    Upstream keeps the first one listed on a tie; here ties go to the smaller name so the
    answer does not depend on input order.
    """
    found = _default_class(priority_classes)
    return dict(found[1]) if found is not None else None


def resolve_priority_class(
    pod: Mapping[str, Any], priority_classes: Mapping[str, Mapping[str, Any]] | None
) -> tuple[str, int, str]:
    """(priorityClassName, priority, preemptionPolicy) the admission plugin computes on create.

    Raises ``PriorityAdmissionError`` when the named class does not exist.
    """
    classes = priority_classes or {}
    spec = pod.get("spec") or {}
    name = spec.get("priorityClassName") or ""
    if not name:
        found = _default_class(classes)
        if found is None:
            return "", DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS, PREEMPT_LOWER_PRIORITY
        return found[0], _class_value(found[1]), _class_policy(found[1])
    pc = classes.get(name) or SYSTEM_PRIORITY_CLASSES.get(name)
    if pc is None:
        raise PriorityAdmissionError(_forbidden(pod, f"no PriorityClass with name {name} was found"))
    return name, _class_value(pc), _class_policy(pc)


def _forbidden(pod: Mapping[str, Any], message: str) -> str:
    # admission.NewForbidden: `pods "<name>" is forbidden: <message>`.
    meta = pod.get("metadata") or {}
    # A generateName pod has no name yet when admission runs.
    pod_name = meta.get("name") or ""
    return f'pods "{pod_name}" is forbidden: {message}'


def resolve_priority(
    pod: Mapping[str, Any], priority_classes: Mapping[str, Mapping[str, Any]] | None
) -> tuple[int, str | None]:
    """What the Priority admission plugin writes on create: (spec.priority, spec.preemptionPolicy).

    From the named class (system classes built in), else the globalDefault class with the
    lowest value, else 0 / ``PreemptLowerPriority``. Raises ``PriorityAdmissionError`` with
    upstream's message when the class is missing, or when the pod already carries a
    priority / preemptionPolicy that differs from the computed one.
    """
    _, priority, policy = resolve_priority_class(pod, priority_classes)
    _check_given(pod, priority, policy)
    return priority, policy


def _check_given(pod: Mapping[str, Any], priority: int, policy: str) -> None:
    """PriorityAdmissionError when the pod carries a priority or policy other than the computed one."""
    spec = pod.get("spec") or {}
    given = spec.get("priority")
    if given is not None and given != priority:
        raise PriorityAdmissionError(
            _forbidden(
                pod,
                f"the integer value of priority ({given}) must not be provided in pod spec; "
                f"priority admission controller computed {priority} from the given PriorityClass name",
            )
        )
    given_policy = spec.get("preemptionPolicy")
    if given_policy is not None and given_policy != policy:
        raise PriorityAdmissionError(
            _forbidden(
                pod,
                f"the string value of PreemptionPolicy ({given_policy}) must not be provided in pod spec; "
                f"priority admission controller computed {policy} from the given PriorityClass name",
            )
        )


def admit_priority(pod: dict, priority_classes: Mapping[str, Mapping[str, Any]] | None,
                   resolved: dict[str, tuple[str, int, str]] | None = None) -> dict:
    """Apply the Priority admission plugin to ``pod`` in place (and return it): sets
    spec.priorityClassName (the default class when none), spec.priority, spec.preemptionPolicy.

    ``resolved`` (empty, then the same for many pods admitted with the same classes) keeps what
    each class name resolved to.
    """
    given = (pod.get("spec") or {}).get("priorityClassName") or ""
    found = resolved.get(given) if resolved is not None and given.__class__ is str else None
    if found is None:
        found = resolve_priority_class(pod, priority_classes)
        if resolved is not None and given.__class__ is str:
            resolved[given] = found
    name, priority, policy = found
    _check_given(pod, priority, policy)
    spec = pod.get("spec")
    if spec is None:
        spec = pod["spec"] = {}
    if name:
        spec["priorityClassName"] = name
    spec["priority"] = priority
    spec["preemptionPolicy"] = policy
    return pod


def pod_priority(pod: Mapping[str, Any]) -> int:
    """Upstream ``corev1helpers.PodPriority``: spec.priority, or 0 when unset."""
    spec = pod.get("spec") or {}
    p = spec.get("priority")
    return 0 if p is None else int(p)


def pod_preemption_policy(pod: Mapping[str, Any]) -> str:
    """The pod's spec.preemptionPolicy; unset behaves as ``PreemptLowerPriority`` upstream."""
    spec = pod.get("spec") or {}
    return spec.get("preemptionPolicy") or PREEMPT_LOWER_PRIORITY
