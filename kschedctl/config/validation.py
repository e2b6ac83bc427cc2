"""Semantic validation of a defaulted configuration: upstream's rules, then start-up checks.

Upstream: pkg/scheduler/apis/config/validation/validation.go
(``ValidateKubeSchedulerConfiguration``), validation_pluginargs.go (via
:mod:`kschedctl.config.args`), k8s.io/component-base/config/validation (leader election,
client connection). Then what kube-scheduler refuses when it builds the profiles
(pkg/scheduler/framework/runtime/framework.go ``NewFramework``, plugin factories that
validate their args, pkg/scheduler/profile/profile.go), and what only kschedctl checks:
plugin names no registry knows.
"""

from __future__ import annotations

import difflib
from typing import Any, Mapping, Sequence

from kschedctl.config import args as pluginargs
from kschedctl.config.expand import expand_plugins, framework_errors, points_lookup, registry_table
from kschedctl.k8s.field import PathValue, duplicate, invalid, required
from kschedctl.k8s.validation import is_qualified_name
from kschedctl.config.lines import child, index
from kschedctl.config.types import EXTENSION_POINTS, FieldError, KubeSchedulerConfiguration
from kschedctl.k8s.resources import is_extended_resource_name
from kschedctl.plugins.names import REMOVED_PLUGINS

V1 = "kubescheduler.config.k8s.io/v1"

#: Upstream's invalidPluginsByVersion for v1.34: only v1 is left, with the removed volume limits.
_INVALID_PLUGINS_BY_VERSION: tuple[tuple[str, tuple[str, ...]], ...] = (
    (V1, ("AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits")),
)

#: Plugins renamed or removed upstream over the config versions, and what replaces them.
MIGRATIONS: dict[str, str] = {
    "NodeResourcesLeastAllocated": "use NodeResourcesFit with scoringStrategy.type LeastAllocated",
    "NodeResourcesMostAllocated": "use NodeResourcesFit with scoringStrategy.type MostAllocated",
    "RequestedToCapacityRatio": "use NodeResourcesFit with scoringStrategy.type RequestedToCapacityRatio "
                                "(shape under scoringStrategy.requestedToCapacityRatio)",
    "NodeLabel": "removed: use NodeAffinity (or addedAffinity in NodeAffinityArgs)",
    "ServiceAffinity": "removed: use InterPodAffinity",
    "NodePreferAvoidPods": "removed: use taints and TaintToleration, or NodeAffinity",
    "SelectorSpread": "removed: use PodTopologySpread (its System default constraints spread the same way)",
    "DefaultPodTopologySpread": "renamed: PodTopologySpread",
    "EBSLimits": "removed: NodeVolumeLimits covers CSI-migrated volumes",
    "GCEPDLimits": "removed: NodeVolumeLimits covers CSI-migrated volumes",
    "AzureDiskLimits": "removed: NodeVolumeLimits covers CSI-migrated volumes",
    "CinderLimits": "removed: NodeVolumeLimits covers CSI-migrated volumes",
    "NodeResourceLimits": "removed",
}


def _is_plugin_invalid(api_version: str, name: str) -> str | None:
    for version, plugins in _INVALID_PLUGINS_BY_VERSION:
        if name in plugins:
            return version
        if api_version == version:
            break
    return None


def _ival(doc: Mapping[str, Any], key: str, default: int = 0) -> int:
    v = doc.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return default
    return int(v)


def _duration(value: Any) -> float:
    try:
        return pluginargs.parse_duration(str(value)) if value not in (None, "") else 0.0
    except ValueError:
        return 0.0


def validate_leader_election(le: Mapping[str, Any], path: str) -> list[FieldError]:
    """component-base ValidateLeaderElectionConfiguration (only when leaderElect is on)."""
    errs: list[FieldError] = []
    if not le.get("leaderElect"):
        return errs
    lease, renew, retry = (_duration(le.get(k)) for k in ("leaseDuration", "renewDeadline", "retryPeriod"))
    if lease <= 0:
        errs.append(invalid(child(path, "leaseDuration"), le.get("leaseDuration"), "must be greater than zero"))
    if renew <= 0:
        errs.append(invalid(child(path, "renewDeadline"), le.get("renewDeadline"), "must be greater than zero"))
    if retry <= 0:
        errs.append(invalid(child(path, "retryPeriod"), le.get("retryPeriod"), "must be greater than zero"))
    if lease < renew:
        errs.append(invalid(child(path, "leaseDuration"), le.get("renewDeadline"),
                            "LeaseDuration must be greater than RenewDeadline"))
    for key in ("resourceLock", "resourceNamespace", "resourceName"):
        if not le.get(key):
            errs.append(invalid(child(path, key), le.get(key) or "", f"{key} is required"))
    return errs


def _plugin_list(ps: Mapping[str, Any] | None, key: str) -> list[dict[str, Any]]:
    return list((ps or {}).get(key) or [])


def _validate_profile(path: str, api_version: str, prof: Mapping[str, Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    if not prof.get("schedulerName"):
        errs.append(required(child(path, "schedulerName")))
    pct = prof.get("percentageOfNodesToScore")
    if pct is not None and not 0 <= _ival(prof, "percentageOfNodesToScore") <= 100:
        errs.append(invalid(child(path, "percentageOfNodesToScore"), pct, "not in valid range [0-100]"))
    plugins = prof.get("plugins") or {}
    for point in EXTENSION_POINTS:  # upstream walks a map (random order); we use pipeline order
        for k, p in enumerate(_plugin_list(plugins.get(point), "enabled")):
            bad = _is_plugin_invalid(api_version, p.get("name", ""))
            if bad:
                errs.append(invalid(f"{path}.plugins.{point}.enabled[{k}]", p.get("name", ""),
                                    f'was invalid in version "{bad}" (KubeSchedulerConfiguration is version '
                                    f'"{api_version}")'))
    seen: set[str] = set()
    for j, pc in enumerate(prof.get("pluginConfig") or []):
        pcpath = index(child(path, "pluginConfig"), j)
        name = pc.get("name", "")
        if name in seen:
            errs.append(duplicate(pcpath, name))
        else:
            seen.add(name)
        bad = _is_plugin_invalid(api_version, name)
        if bad:
            errs.append(invalid(pcpath, name, f'was invalid in version "{bad}" (KubeSchedulerConfiguration is '
                                              f'version "{api_version}")'))
        elif name in pluginargs.CONFIG_VALIDATED:
            errs.extend(pluginargs.validate_args(name, child(pcpath, "args"), pc.get("args")))
    return errs


def _norm_set(ps: Mapping[str, Any] | None) -> tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int], ...]]:
    # Semantic.DeepEqual of internal PluginSets: nil == empty, weight nil == 0.
    return (tuple((p.get("name", ""), p.get("weight") or 0) for p in _plugin_list(ps, "enabled")),
            tuple((p.get("name", ""), p.get("weight") or 0) for p in _plugin_list(ps, "disabled")))


def _queue_sort_words(ps: Any) -> str:
    enabled = [p.get("name", "") for p in _plugin_list(ps, "enabled")]
    disabled = [p.get("name", "") for p in _plugin_list(ps, "disabled")]
    words = ", ".join(enabled) if enabled else "the default (PrioritySort)"
    return words + (f" (disabled: {', '.join(disabled)})" if disabled else "")


def _validate_common_queue_sort(profiles: Sequence[Mapping[str, Any]]) -> list[FieldError]:
    errs: list[FieldError] = []
    first = (profiles[0].get("plugins") or {}).get("queueSort")
    canon = _norm_set(first)
    enabled = _plugin_list(first, "enabled")
    name = enabled[0].get("name", "") if enabled else ""
    if len(enabled) > 1:
        errs.append(invalid("profiles[0].plugins.queueSort.Enabled", len(enabled),
                            "only one queue sort plugin can be enabled"))
    canon_args = None
    for pc in profiles[0].get("pluginConfig") or []:
        if name and pc.get("name") == name:
            canon_args = pc.get("args")
    for i in range(1, len(profiles)):
        cur = (profiles[i].get("plugins") or {}).get("queueSort")
        if _norm_set(cur) != canon:
            found = invalid(f"profiles[{i}].plugins.queueSort", cur or {}, "must be the same for all profiles")
            found.hint = (f"profiles[0] sorts the queue with {_queue_sort_words(first)}, profiles[{i}] with "
                          f"{_queue_sort_words(cur)}: one scheduler has one queue")
            errs.append(found)
        for pc in profiles[i].get("pluginConfig") or []:
            if pc.get("name") == name and pc.get("args") != canon_args:
                errs.append(invalid(f"profiles[{i}].pluginConfig.args", pc.get("args"),
                                    "queueSort must be the same for all profiles"))
    return errs


def _validate_extenders(extenders: Sequence[Mapping[str, Any]]) -> list[FieldError]:
    errs: list[FieldError] = []
    binders = 0
    seen: set[str] = set()
    for i, ext in enumerate(extenders):
        path = index("extenders", i)
        if ext.get("prioritizeVerb") and _ival(ext, "weight") <= 0:
            errs.append(invalid(child(path, "weight"), _ival(ext, "weight"), "must have a positive weight applied to it"))
        if ext.get("bindVerb"):
            binders += 1
        for j, res in enumerate(ext.get("managedResources") or []):
            rpath = child(index(child(path, "managedResources"), j), "name")
            name = res.get("name") or ""
            msgs = is_qualified_name(name)
            if msgs:
                errs.extend(invalid(rpath, name, m) for m in msgs)
            elif not is_extended_resource_name(name):
                errs.append(invalid(rpath, name, "is an invalid extended resource name"))
            if name in seen:
                errs.append(invalid(rpath, name, "duplicate extender managed resource name"))
            seen.add(name)
    if binders > 1:
        errs.append(invalid("extenders", f"found {binders} extenders implementing bind",
                            "only one extender can implement bind"))
    return errs


def validate_upstream(doc: Mapping[str, Any], api_version: str = V1) -> list[FieldError]:
    """``ValidateKubeSchedulerConfiguration`` on a defaulted v1 dict, errors in upstream's order."""
    errs: list[FieldError] = []
    cc = doc.get("clientConnection") or {}
    if _ival(cc, "burst") < 0:
        errs.append(invalid("clientConnection.burst", _ival(cc, "burst"), "must be non-negative"))
    le = doc.get("leaderElection") or {}
    errs.extend(validate_leader_election(le, "leaderElection"))
    if le.get("leaderElect") and le.get("resourceLock") != "leases":
        errs.append(invalid("leaderElection.resourceLock", le.get("resourceLock") or "",
                            'resourceLock value must be "leases"'))
    if _ival(doc, "parallelism") <= 0:
        errs.append(invalid("parallelism", _ival(doc, "parallelism"), "should be an integer value greater than zero"))
    profiles = doc.get("profiles") or []
    if not profiles:
        errs.append(required("profiles"))
    else:
        names: dict[str, int] = {}
        for i, prof in enumerate(profiles):
            path = index("profiles", i)
            errs.extend(_validate_profile(path, api_version, prof))
            name = prof.get("schedulerName") or ""
            if name in names:
                # Upstream's value is the *field.Path of the first profile, which prints as {}:
                # the hint says what the message does not.
                found = duplicate(child(path, "schedulerName"), PathValue(f"profiles[{names[name]}].schedulerName"))
                found.hint = f'"{name}" is already the name of profiles[{names[name]}]; each profile needs its own'
                errs.append(found)
            names[name] = i
        errs.extend(_validate_common_queue_sort(profiles))
    pct = doc.get("percentageOfNodesToScore")
    if pct is not None and not 0 <= _ival(doc, "percentageOfNodesToScore") <= 100:
        errs.append(invalid("percentageOfNodesToScore", pct, "not in valid range [0-100]"))
    initial = _ival(doc, "podInitialBackoffSeconds")
    if initial <= 0:
        errs.append(invalid("podInitialBackoffSeconds", initial, "must be greater than 0"))
    if _ival(doc, "podMaxBackoffSeconds") < initial:
        errs.append(invalid("podMaxBackoffSeconds", _ival(doc, "podMaxBackoffSeconds"),
                            "must be greater than or equal to PodInitialBackoffSeconds"))
    errs.extend(_validate_extenders(doc.get("extenders") or []))
    return errs


def _hint_for_unknown(name: str, candidates: Sequence[str]) -> str:
    if name in MIGRATIONS:
        return MIGRATIONS[name]
    close = difflib.get_close_matches(name, list(candidates), n=1)
    return f"did you mean {close[0]}?" if close else "load it with --plugin, or pass --allow-unknown-plugins"


def validate_startup(cfg: KubeSchedulerConfiguration, *, allow_unknown_plugins: bool = False,
                     extra_plugins: Mapping[str, Sequence[str]] | None = None,
                     raw_profiles: Sequence[Mapping[str, Any]] | None = None,
                     ) -> tuple[list[FieldError], list[FieldError]]:
    """What kube-scheduler refuses when it builds the profiles, plus unknown plugin names.

    ``raw_profiles`` (the profiles as written, before defaulting) let the weight findings name
    the user's own entry. Returns ``(errors, warnings)``.
    """
    points_of, known = points_lookup(extra_plugins)
    candidates = sorted(registry_table(extra_plugins))
    errors: list[FieldError] = []
    warnings: list[FieldError] = []
    first_queue_sort: str | None = None
    for i, prof in enumerate(cfg.profiles):
        path = index("profiles", i)
        raw_profile = raw_profiles[i] if raw_profiles and i < len(raw_profiles) else None
        unknown = errors if not allow_unknown_plugins else warnings
        for point in ("multiPoint",) + EXTENSION_POINTS:
            ps = prof.plugins.get(point)
            for k, p in enumerate(ps.enabled):
                if known(p.name) or (p.name in REMOVED_PLUGINS and point != "multiPoint"):
                    continue
                unknown.append(FieldError(f"{path}.plugins.{point}.enabled[{k}]", "NotSupported",
                                          f'Unsupported value: "{p.name}": no plugin of that name is registered',
                                          hint=_hint_for_unknown(p.name, candidates)))
            for k, p in enumerate(ps.disabled):
                if p.name != "*" and not known(p.name) and p.name not in REMOVED_PLUGINS:
                    warnings.append(FieldError(f"{path}.plugins.{point}.disabled[{k}]", "NotSupported",
                                               f'Unsupported value: "{p.name}": no plugin of that name is registered; '
                                               "disabling it has no effect",
                                               hint=_hint_for_unknown(p.name, candidates)))
        for fe in framework_errors(prof, path, points_of, known):
            errors.append(FieldError(fe.field, fe.type, fe.message))
        expanded = expand_plugins(prof, lambda n: points_of(n) if known(n) else ())
        needed = {ref.name for refs in expanded.values() for ref in refs}
        for ref in expanded["score"]:
            if ref.weight is not None and ref.weight < 0:
                where = _weight_entry(raw_profile, path, ref.name, ref.weight) or f"{path}.plugins.score"
                warnings.append(FieldError(where, "Invalid",
                                           f'Invalid value: {ref.weight}: score plugin "{ref.name}" has a negative '
                                           "weight; kube-scheduler accepts it and subtracts its score"))
        warnings.extend(_zero_weights(raw_profile, path, {ref.name for ref in expanded["score"]}))
        for j, pc in enumerate(prof.plugin_config):
            pcpath = index(child(path, "pluginConfig"), j)
            if pc.name == "NodeResourcesFit" and pc.name in needed:
                # Upstream validates Fit's args only when it builds the plugin (NewFit).
                errors.extend(pluginargs.validate_args(pc.name, child(pcpath, "args"), pc.args))
            if not known(pc.name) and pc.name not in REMOVED_PLUGINS:
                warnings.append(FieldError(pcpath, "NotSupported",
                                           f'Unsupported value: "{pc.name}": args for a plugin no registry knows',
                                           hint=_hint_for_unknown(pc.name, candidates)))
            elif known(pc.name) and pc.name not in needed:
                warnings.append(FieldError(pcpath, "Invalid",
                                           f'Invalid value: "{pc.name}": the plugin is not enabled in this profile; '
                                           "its args are ignored"))
        if expanded["queueSort"]:
            qs = expanded["queueSort"][0].name
            if first_queue_sort is None:
                first_queue_sort = qs
            elif qs != first_queue_sort:
                errors.append(FieldError(f"{path}.plugins.queueSort", "Invalid",
                                         f'different queue sort plugins for profile "{prof.scheduler_name}": '
                                         f'"{qs}", first: "{first_queue_sort}"'))
    return errors, warnings


def _written_entries(raw_profile: Mapping[str, Any] | None, point: str) -> list[tuple[int, str, Any]]:
    """(index, name, weight) of a profile's ``point.enabled`` as the user wrote it (paths and lines
    must name the user's entry, not its place in the list merged with the default set)."""
    plugins = (raw_profile or {}).get("plugins") or {}
    out = []
    for k, p in enumerate(((plugins.get(point) or {}).get("enabled")) or []):
        if isinstance(p, Mapping):
            out.append((k, str(p.get("name", "")), p.get("weight")))
    return out


def _weight_entry(raw_profile: Mapping[str, Any] | None, path: str, name: str, weight: int) -> str | None:
    """The field path of the entry that gave score plugin ``name`` its ``weight``.

    An entry under ``score`` wins over one under ``multiPoint``, as upstream's expansion does.
    """
    for point in ("score", "multiPoint"):
        for k, written, w in _written_entries(raw_profile, point):
            if written == name and w == weight:
                return f"{path}.plugins.{point}.enabled[{k}].weight"
    return None


def _zero_weights(raw_profile: Mapping[str, Any] | None, path: str, scored: set[str]) -> list[FieldError]:
    """``weight: 0`` on a score plugin: framework.go raises it to 1 without a word.

    Under multiPoint only where the default set gives the plugin a weight (a default entry without
    one, as ``kschedctl defaults`` prints it, is not a user's choice).
    """
    from kschedctl.config.defaults import default_plugins

    weighted = {p["name"] for p in default_plugins()["multiPoint"]["enabled"] if p.get("weight")}
    out = []
    for point in ("score", "multiPoint"):
        for k, name, weight in _written_entries(raw_profile, point):
            if weight != 0 or name not in scored or (point == "multiPoint" and name not in weighted):
                continue
            out.append(FieldError(f"{path}.plugins.{point}.enabled[{k}].weight", "Invalid",
                                  f'Invalid value: 0: weight 0 counts as 1 for score plugin "{name}"; '
                                  "to turn the plugin off, disable it",
                                  hint=f"list {name} under plugins.score.disabled"))
    return out


def validate_config(cfg: KubeSchedulerConfiguration, *, allow_unknown_plugins: bool = False,
                    extra_plugins: Mapping[str, Sequence[str]] | None = None) -> list[FieldError]:
    """Every error of a decoded, defaulted configuration (upstream's rules, then start-up checks)."""
    errors = validate_upstream(cfg.raw, cfg.api_version)
    more, _ = validate_startup(cfg, allow_unknown_plugins=allow_unknown_plugins, extra_plugins=extra_plugins)
    return errors + more


__all__ = ["validate_upstream", "validate_startup", "validate_config", "validate_leader_election", "MIGRATIONS"]
