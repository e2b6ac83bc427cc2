"""Defaults and validation of every in-tree plugin's args (v1.34), on v1 dicts.

Upstream: pkg/scheduler/apis/config/v1/defaults.go (``SetDefaults_<Kind>``) and
pkg/scheduler/apis/config/validation/validation_pluginargs.go (``Validate<Kind>``), with
feature gates at their v1.34 defaults: DRASchedulerFilterTimeout on (beta),
StorageCapacityScoring off (alpha), DRADeviceBindingConditions not in v1.34's args type.

Args are plain dicts with camelCase keys, already checked against the JSON schema, so types
are right; a missing key means Go's zero value. Validators take a ``path`` (``""`` for
upstream's nil path) and return :class:`FieldError` lists with upstream's field paths.
"""

from __future__ import annotations

from typing import Any, Callable

from kschedctl.k8s.field import duplicate, forbidden, invalid, not_supported, required
from kschedctl.k8s.validation import validate_label_name, validate_node_selector_term
from kschedctl.config.lines import child, index
from kschedctl.config.types import FieldError
from kschedctl.k8s.duration import parse_go_duration

V1 = "kubescheduler.config.k8s.io/v1"
#: config.MaxCustomPriorityScore
MAX_CUSTOM_PRIORITY_SCORE = 10

#: Feature gates (v1.34 defaults) that change args defaulting or validation.
FEATURE_GATES = {
    "DRASchedulerFilterTimeout": True,
    "StorageCapacityScoring": False,
}

_DEFAULT_RESOURCES = ({"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1})
_SCORING_TYPES = ("LeastAllocated", "MostAllocated", "RequestedToCapacityRatio")

# --- durations (metav1.Duration is a Go time.Duration string) ------------------------------



def parse_duration(text: str) -> float:
    """Seconds in a Go duration string; ValueError with Go's message if not one (k8s.duration)."""
    return parse_go_duration(text.strip())


# --- defaults --------------------------------------------------------------------------------


def _default_resources() -> list[dict[str, Any]]:
    return [dict(r) for r in _DEFAULT_RESOURCES]


def default_default_preemption(a: dict[str, Any]) -> None:
    if a.get("minCandidateNodesPercentage") is None:
        a["minCandidateNodesPercentage"] = 10
    if a.get("minCandidateNodesAbsolute") is None:
        a["minCandidateNodesAbsolute"] = 100


def default_inter_pod_affinity(a: dict[str, Any]) -> None:
    if a.get("hardPodAffinityWeight") is None:
        a["hardPodAffinityWeight"] = 1
    # Not a default upstream but the typed field's zero value, which --write-config-to prints.
    a.setdefault("ignorePreferredTermsOfExistingPods", False)


def default_node_affinity(a: dict[str, Any]) -> None:
    """NodeAffinityArgs has no defaults (addedAffinity stays unset)."""


def default_balanced_allocation(a: dict[str, Any]) -> None:
    resources = a.get("resources")
    if not resources:
        a["resources"] = _default_resources()
        return
    for r in resources:
        if not r.get("weight"):
            r["weight"] = 1


def default_fit(a: dict[str, Any]) -> None:
    strategy = a.get("scoringStrategy")
    if strategy is None:
        a["scoringStrategy"] = strategy = {"type": "LeastAllocated", "resources": _default_resources()}
    if not strategy.get("resources"):
        strategy["resources"] = _default_resources()
    for r in strategy["resources"]:
        if not r.get("weight"):
            r["weight"] = 1


def default_pod_topology_spread(a: dict[str, Any]) -> None:
    if not a.get("defaultingType"):
        a["defaultingType"] = "System"


def default_volume_binding(a: dict[str, Any]) -> None:
    if a.get("bindTimeoutSeconds") is None:
        a["bindTimeoutSeconds"] = 600
    if not a.get("shape") and FEATURE_GATES["StorageCapacityScoring"]:  # pragma: no cover - gate off in v1.34
        a["shape"] = [{"utilization": 0, "score": MAX_CUSTOM_PRIORITY_SCORE}, {"utilization": 100, "score": 0}]


def default_dynamic_resources(a: dict[str, Any]) -> None:
    if a.get("filterTimeout") is None and FEATURE_GATES["DRASchedulerFilterTimeout"]:
        a["filterTimeout"] = "10s"


# --- validation --------------------------------------------------------------------------------


def _int(a: dict[str, Any], key: str) -> int:
    v = a.get(key)
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0


def validate_default_preemption(path: str, a: dict[str, Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    pct_path, abs_path = child(path, "minCandidateNodesPercentage"), child(path, "minCandidateNodesAbsolute")
    pct, absolute = _int(a, "minCandidateNodesPercentage"), _int(a, "minCandidateNodesAbsolute")
    if pct < 0 or pct > 100:
        errs.append(invalid(pct_path, pct, "not in valid range [0, 100]"))
    if absolute < 0:
        errs.append(invalid(abs_path, absolute, "not in valid range [0, inf)"))
    if pct == 0 and absolute == 0:
        errs.append(invalid(pct_path, pct, "cannot be zero at the same time as minCandidateNodesAbsolute"))
        errs.append(invalid(abs_path, absolute, "cannot be zero at the same time as minCandidateNodesPercentage"))
    return errs


def validate_inter_pod_affinity(path: str, a: dict[str, Any]) -> list[FieldError]:
    w = _int(a, "hardPodAffinityWeight")
    if w < 0 or w > 100:
        return [invalid(child(path, "hardPodAffinityWeight"), w, "not in valid range [0, 100]")]
    return []


def validate_pod_topology_spread(path: str, a: dict[str, Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    constraints = a.get("defaultConstraints") or []
    dtype = a.get("defaultingType") or ""
    dpath = child(path, "defaultingType")
    if dtype not in ("System", "List"):
        errs.append(not_supported(dpath, dtype, ["System", "List"]))
    elif dtype == "System" and constraints:
        errs.append(invalid(dpath, dtype, "when .defaultConstraints are not empty"))
    cpath = child(path, "defaultConstraints")
    for i, c in enumerate(constraints):
        p = index(cpath, i)
        skew = _int(c, "maxSkew")
        if skew <= 0:
            errs.append(invalid(child(p, "maxSkew"), skew, "not in valid range (0, inf)"))
        key = c.get("topologyKey") or ""
        if not key:
            errs.append(required(child(p, "topologyKey"), "can not be empty"))
        else:
            errs.extend(validate_label_name(key, child(p, "topologyKey")))
        when = c.get("whenUnsatisfiable") or ""
        if not when:
            errs.append(required(child(p, "whenUnsatisfiable"), "can not be empty"))
        elif when not in ("DoNotSchedule", "ScheduleAnyway"):
            errs.append(not_supported(child(p, "whenUnsatisfiable"), when, ["DoNotSchedule", "ScheduleAnyway"]))
        if c.get("labelSelector") is not None:
            errs.append(forbidden(child(p, "labelSelector"),
                                  "constraint must not define a selector, as they deduced for each pod"))
        for other in constraints[:i]:
            if (other.get("topologyKey") or "") == key and (other.get("whenUnsatisfiable") or "") == when:
                errs.append(duplicate(p, f"{{{key}, {when}}}"))
                break
    return errs


def _validate_shape(shape: list[dict[str, Any]] | None, path: str) -> list[FieldError]:
    if not shape:
        return [required(path, "at least one point must be specified")]
    errs: list[FieldError] = []
    for i in range(1, len(shape)):
        if _int(shape[i - 1], "utilization") >= _int(shape[i], "utilization"):
            errs.append(invalid(child(index(path, i), "utilization"), _int(shape[i], "utilization"),
                                "values must be sorted in increasing order"))
            break
    for i, point in enumerate(shape):
        u, s = _int(point, "utilization"), _int(point, "score")
        if u < 0 or u > 100:
            errs.append(invalid(child(index(path, i), "utilization"), u, "not in valid range [0, 100]"))
        if s < 0 or s > MAX_CUSTOM_PRIORITY_SCORE:
            errs.append(invalid(child(index(path, i), "score"), s, f"not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]"))
    return errs


def validate_balanced_allocation(path: str, a: dict[str, Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, r in enumerate(a.get("resources") or []):
        name = r.get("name") or ""
        p = index(child(path, "resources"), i)
        if name in seen:
            errs.append(duplicate(child(p, "name"), name))
        else:
            seen.add(name)
        w = _int(r, "weight")
        if w != 1:
            errs.append(invalid(child(p, "weight"), w, "must be 1"))
    return errs


def validate_node_affinity(path: str, a: dict[str, Any]) -> list[FieldError]:
    affinity = a.get("addedAffinity")
    if affinity is None:
        return []
    errs: list[FieldError] = []
    base = child(path, "addedAffinity")
    ns = affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if ns is not None:
        rpath = child(child(base, "requiredDuringSchedulingIgnoredDuringExecution"), "nodeSelectorTerms")
        for i, term in enumerate(ns.get("nodeSelectorTerms") or []):
            errs.extend(validate_node_selector_term(term or {}, index(rpath, i)))
    ppath = child(base, "preferredDuringSchedulingIgnoredDuringExecution")
    for i, pterm in enumerate(affinity.get("preferredDuringSchedulingIgnoredDuringExecution") or []):
        errs.extend(validate_node_selector_term((pterm or {}).get("preference") or {}, index(ppath, i)))
    return errs


def validate_volume_binding(path: str, a: dict[str, Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    t = _int(a, "bindTimeoutSeconds")
    if t < 0:
        errs.append(invalid(child(path, "bindTimeoutSeconds"), t,
                            "invalid BindTimeoutSeconds, should not be a negative value"))
    shape = a.get("shape")
    if FEATURE_GATES["StorageCapacityScoring"]:  # pragma: no cover - gate off in v1.34
        errs.extend(_validate_shape(shape, child(path, "shape")))
    elif shape is not None:
        errs.append(invalid(child(path, "shape"), shape,
                            "unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring"))
    return errs


def validate_fit(path: str, a: dict[str, Any]) -> list[FieldError]:
    """ValidateNodeResourcesFitArgs as of v1.34 (shape errors under ``scoringStrategy.shape``)."""
    errs: list[FieldError] = []
    for i, res in enumerate(a.get("ignoredResources") or []):
        errs.extend(validate_label_name(res, index(child(path, "ignoredResources"), i)))
    for i, group in enumerate(a.get("ignoredResourceGroups") or []):
        p = index(child(path, "ignoredResourceGroups"), i)
        if "/" in group:
            errs.append(invalid(p, group, "resource group name can't contain '/'"))
        errs.extend(validate_label_name(group, p))
    strategy = a.get("scoringStrategy")
    spath = child(path, "scoringStrategy")
    if strategy is not None:
        stype = strategy.get("type") or ""
        if stype not in _SCORING_TYPES:
            errs.append(not_supported(child(spath, "type"), stype, sorted(_SCORING_TYPES)))
        for i, r in enumerate(strategy.get("resources") or []):
            w = _int(r, "weight")
            if w <= 0 or w > 100:
                errs.append(invalid(child(index(child(spath, "resources"), i), "weight"), w,
                                    f"resource weight of {r.get('name') or ''} not in valid range (0, 100]"))
        rtcr = strategy.get("requestedToCapacityRatio")
        if rtcr is not None:
            errs.extend(_validate_shape(rtcr.get("shape"), child(spath, "shape")))
    return errs


def validate_dynamic_resources(path: str, a: dict[str, Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    timeout = a.get("filterTimeout")
    if FEATURE_GATES["DRASchedulerFilterTimeout"]:
        if timeout is not None:
            try:
                negative = parse_duration(str(timeout)) < 0
            except ValueError:
                negative = False  # the decoder reports unreadable durations
            if negative:
                errs.append(invalid(child(path, "filterTimeout"), timeout, "must be zero or positive"))
    elif timeout is not None:  # pragma: no cover - gate on in v1.34
        errs.append(forbidden(child(path, "filterTimeout"), "DRASchedulingFilterTimeout feature gate is disabled"))
    return errs


ArgsFn = Callable[[dict[str, Any]], None]
ValidateFn = Callable[[str, dict[str, Any]], list[FieldError]]

#: Args kinds registered in kubescheduler.config.k8s.io/v1 (v1.34), by plugin name.
ARGS_KINDS: dict[str, tuple[str, ArgsFn, ValidateFn]] = {
    "DefaultPreemption": ("DefaultPreemptionArgs", default_default_preemption, validate_default_preemption),
    "DynamicResources": ("DynamicResourcesArgs", default_dynamic_resources, validate_dynamic_resources),
    "InterPodAffinity": ("InterPodAffinityArgs", default_inter_pod_affinity, validate_inter_pod_affinity),
    "NodeAffinity": ("NodeAffinityArgs", default_node_affinity, validate_node_affinity),
    "NodeResourcesBalancedAllocation": ("NodeResourcesBalancedAllocationArgs", default_balanced_allocation,
                                        validate_balanced_allocation),
    "NodeResourcesFit": ("NodeResourcesFitArgs", default_fit, validate_fit),
    "PodTopologySpread": ("PodTopologySpreadArgs", default_pod_topology_spread, validate_pod_topology_spread),
    "VolumeBinding": ("VolumeBindingArgs", default_volume_binding, validate_volume_binding),
}

#: Plugins whose args ValidateKubeSchedulerConfiguration checks (upstream keys Fit's validator as
#: "NodeResourcesFitArgs", so Fit's args are only checked when kube-scheduler builds the plugin).
CONFIG_VALIDATED = frozenset(ARGS_KINDS) - {"NodeResourcesFit"}


def default_args(plugin: str, args: dict[str, Any] | None) -> dict[str, Any] | None:
    """Defaulted copy-in-place of ``args`` for an in-tree plugin with an args kind; others untouched."""
    spec = ARGS_KINDS.get(plugin)
    if spec is None or args is None:
        return args
    kind, fn, _ = spec
    fn(args)
    return args


def new_default_args(plugin: str) -> dict[str, Any] | None:
    """Defaulted args (with apiVersion and kind) for a plugin that has an args kind, else None."""
    spec = ARGS_KINDS.get(plugin)
    if spec is None:
        return None
    kind, fn, _ = spec
    args: dict[str, Any] = {"apiVersion": V1, "kind": kind}
    fn(args)
    return args


def validate_args(plugin: str, path: str, args: dict[str, Any] | None) -> list[FieldError]:
    """Upstream's validator for ``plugin``'s args (nil args validate as the zero value)."""
    spec = ARGS_KINDS.get(plugin)
    if spec is None:
        return []
    return spec[2](path, args or {})
