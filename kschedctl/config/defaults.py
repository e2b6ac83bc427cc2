"""Defaulting of a v1 KubeSchedulerConfiguration document, exactly as upstream v1.34 does it.

Upstream: pkg/scheduler/apis/config/v1/default_plugins.go (``getDefaultPlugins``,
``applyFeatureGates``, ``mergePlugins``, ``mergePluginSet``) and defaults.go
(``SetDefaults_KubeSchedulerConfiguration``, ``setDefaults_KubeSchedulerProfile``).
Works on the plain v1 dict (camelCase keys) in place, so that ``kschedctl defaults`` can
print it back; :func:`default_config_dict` renders it as ``--write-config-to`` does.
"""

from __future__ import annotations

import copy
from typing import Any

from kschedctl.config import args as pluginargs
from kschedctl.config.types import ALL_POINTS
from kschedctl.k8s.defaults import DEFAULT_SCHEDULER_NAME
from kschedctl.plugins import names
from kschedctl.plugins.registry import builtin_facts

V1 = "kubescheduler.config.k8s.io/v1"
#: config.DefaultPercentageOfNodesToScore: 0 means adaptive.
DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE = 0

#: Feature gates at their v1.34 defaults that shape the default plugin set.
DYNAMIC_RESOURCE_ALLOCATION = True  # GA in v1.34


def default_plugins() -> dict[str, Any]:
    """``getDefaultPlugins()`` of v1.34 with ``applyFeatureGates``: everything through multiPoint.

    Every built-in, in the registry's order (upstream's), with the weight its facts give.
    DynamicResources comes right before DefaultPreemption, so that its PostFilter (freeing an
    idle claim) runs before preemption would evict a pod.
    """
    enabled: list[dict[str, Any]] = []
    for name, facts in builtin_facts().items():
        if name == names.DYNAMIC_RESOURCES and not DYNAMIC_RESOURCE_ALLOCATION:
            continue
        enabled.append({"name": name} if facts.default_weight is None else {"name": name, "weight": facts.default_weight})
    return {"multiPoint": {"enabled": enabled}}


def merge_plugin_set(default_set: dict[str, Any] | None, custom_set: dict[str, Any] | None) -> dict[str, Any]:
    """``mergePluginSet``: user entries replace defaults in place, the rest are appended in user order.

    ``disabled`` keeps the user's names then the default set's (weights dropped) so that the
    framework's multiPoint expansion can skip defaults per extension point; with ``"*"``
    disabled the user's enabled list is taken as is. Duplicates survive (the framework rejects
    them), and of two user entries with the same name the last replaces the default in place.
    """
    default_set = default_set or {}
    custom_set = custom_set or {}
    disabled = [{"name": p.get("name", "")} for p in (custom_set.get("disabled") or [])]
    disabled += [{"name": p.get("name", "")} for p in (default_set.get("disabled") or [])]
    disabled_names = {p["name"] for p in disabled}
    custom_enabled = custom_set.get("enabled") or []
    by_name: dict[str, tuple[int, dict[str, Any]]] = {}
    for i, p in enumerate(custom_enabled):
        by_name[p.get("name", "")] = (i, p)
    replaced: set[int] = set()
    enabled: list[dict[str, Any]] = []
    if "*" not in disabled_names:
        for p in default_set.get("enabled") or []:
            if p["name"] in disabled_names:
                continue
            if p["name"] in by_name:
                i, custom = by_name[p["name"]]
                p = custom
                replaced.add(i)
            enabled.append(copy.deepcopy(p))
    for i, p in enumerate(custom_enabled):
        if i not in replaced:
            enabled.append(copy.deepcopy(p))
    out: dict[str, Any] = {}
    if enabled:
        out["enabled"] = enabled
    if disabled:
        out["disabled"] = disabled
    return out


def merge_plugins(default: dict[str, Any], custom: dict[str, Any] | None) -> dict[str, Any]:
    """``mergePlugins``: a profile without ``plugins`` gets the defaults; else merge every point."""
    if custom is None:
        return default
    return {point: merge_plugin_set(default.get(point), custom.get(point)) for point in ALL_POINTS}


def plugin_names(plugins: dict[str, Any]) -> list[str]:
    """Sorted names enabled at any extension point (``pluginsNames``; disabled lists do not count)."""
    found: set[str] = set()
    for point in ALL_POINTS:
        for p in (plugins.get(point) or {}).get("enabled") or []:
            found.add(p.get("name", ""))
    return sorted(found)


def default_profile(prof: dict[str, Any]) -> None:
    """``setDefaults_KubeSchedulerProfile``: merge plugins, default existing args, append missing ones."""
    prof["plugins"] = merge_plugins(default_plugins(), prof.get("plugins"))
    configs = prof.get("pluginConfig") or []
    existing = set()
    for pc in configs:
        name = pc.get("name", "")
        existing.add(name)
        if name in pluginargs.ARGS_KINDS:
            args = pc.get("args")
            if args is None:
                args = pc["args"] = {}
            pluginargs.default_args(name, args)
    for name in plugin_names(prof["plugins"]):
        if name in existing:
            continue
        new = pluginargs.new_default_args(name)
        if new is not None:
            configs.append({"name": name, "args": new})
    if configs:
        prof["pluginConfig"] = configs


def default_config(doc: dict[str, Any]) -> dict[str, Any]:
    """``SetDefaults_KubeSchedulerConfiguration`` on a v1 dict, in place; returns it."""
    if doc.get("parallelism") is None:
        doc["parallelism"] = 16
    profiles = doc.get("profiles") or []
    if not profiles:
        profiles = [{}]
    doc["profiles"] = profiles
    # Only a single profile gets the default name; validation requires names otherwise.
    if len(profiles) == 1 and profiles[0].get("schedulerName") is None:
        profiles[0]["schedulerName"] = DEFAULT_SCHEDULER_NAME
    for prof in profiles:
        default_profile(prof)
    if doc.get("percentageOfNodesToScore") is None:
        doc["percentageOfNodesToScore"] = DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE
    le = doc.get("leaderElection")
    if le is None:
        le = doc["leaderElection"] = {}
    if not le.get("resourceLock"):
        le["resourceLock"] = "leases"
    if not le.get("resourceNamespace"):
        le["resourceNamespace"] = "kube-system"
    if not le.get("resourceName"):
        le["resourceName"] = "kube-scheduler"
    cc = doc.get("clientConnection")
    if cc is None:
        cc = doc["clientConnection"] = {}
    if not cc.get("contentType"):
        cc["contentType"] = "application/vnd.kubernetes.protobuf"
    if not cc.get("qps"):
        cc["qps"] = 50
    if not cc.get("burst"):
        cc["burst"] = 100
    # component-base RecommendedDefaultLeaderElectionConfiguration.
    if le.get("leaderElect") is None:
        le["leaderElect"] = True
    for key, value in (("leaseDuration", "15s"), ("renewDeadline", "10s"), ("retryPeriod", "2s")):
        if not le.get(key):
            le[key] = value
    if doc.get("podInitialBackoffSeconds") is None:
        doc["podInitialBackoffSeconds"] = 1
    if doc.get("podMaxBackoffSeconds") is None:
        doc["podMaxBackoffSeconds"] = 10
    if doc.get("enableProfiling") is None:
        doc["enableProfiling"] = True
    if doc["enableProfiling"] and doc.get("enableContentionProfiling") is None:
        doc["enableContentionProfiling"] = True
    return doc


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


def render_v1(doc: dict[str, Any]) -> dict[str, Any]:
    """A defaulted v1 dict as ``kube-scheduler --write-config-to`` prints it.

    The internal->v1 round trip prints every PluginSet (``{}`` when empty), ``weight: 0``
    for plugins without one, args with apiVersion/kind, the non-omitempty zero values of
    clientConnection and leaderElection; sigs.k8s.io/yaml sorts keys alphabetically.
    """
    out = copy.deepcopy(doc)
    out["apiVersion"] = V1
    out["kind"] = "KubeSchedulerConfiguration"
    cc = out.setdefault("clientConnection", {})
    for key in ("acceptContentTypes", "kubeconfig"):
        cc.setdefault(key, "")
    if not out.get("delayCacheUntilActive"):
        out.pop("delayCacheUntilActive", None)
    for prof in out.get("profiles") or []:
        plugins = prof.get("plugins") or {}
        rendered = {}
        for point in ALL_POINTS:
            ps = plugins.get(point) or {}
            one: dict[str, Any] = {}
            if ps.get("enabled"):
                one["enabled"] = [{"name": p.get("name", ""), "weight": p.get("weight") or 0} for p in ps["enabled"]]
            if ps.get("disabled"):
                one["disabled"] = [{"name": p.get("name", ""), "weight": p.get("weight") or 0} for p in ps["disabled"]]
            rendered[point] = one
        prof["plugins"] = rendered
        for pc in prof.get("pluginConfig") or []:
            spec = pluginargs.ARGS_KINDS.get(pc.get("name", ""))
            if spec is not None and isinstance(pc.get("args"), dict):
                pc["args"]["apiVersion"] = V1
                pc["args"]["kind"] = spec[0]
    return _sorted(out)
