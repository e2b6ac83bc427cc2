"""Where each plugin setting of a profile comes from, and the classic traps of plugin lists.

For every profile: the merged ``multiPoint`` list (what ``kschedctl defaults`` prints) and, per
extension point, the plugins the framework runs there (after upstream's multiPoint expansion),
each with its origin. Nothing here re-implements upstream's rules: the user's entries are tagged
with their field path, the document goes through :func:`kschedctl.config.defaults.default_config`
(``mergePlugins`` / ``mergePluginSet``, which carry the tags along) and the result through
:func:`kschedctl.config.expand.expand_plugins` (``NewFramework``'s expansion); the tags then say
which entry came from the user and which from the default set.

Origins (``OriginEntry.origin``):

- ``DefaultSet``: an entry of the default plugin set, untouched;
- ``ReweightedInPlace``: a default plugin the user listed again in the same PluginSet: upstream
  replaces the default entry in place (same position, the user's weight, even when unset);
- ``Appended``: a user entry appended after the default set (a custom plugin, or a default plugin
  the user disabled and enabled again to move it);
- ``UserEnabled``: an entry of the user's own list at that extension point (or of a multiPoint
  list that disables ``*``);
- ``UserEnabledOverride``: an explicit entry at an extension point for a plugin that multiPoint
  enables too: it runs first there, with its own weight;
- ``UserDisabled``: a plugin the default set or multiPoint would run there, switched off.

``via`` says how an entry reached an extension point: ``multiPoint`` (expanded from it) or the
point itself. Upstream: pkg/scheduler/apis/config/v1/default_plugins.go,
pkg/scheduler/framework/runtime/framework.go (release-1.34).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from kschedctl.config.defaults import default_config, default_plugins, merge_plugin_set
from kschedctl.config.expand import expand_plugins, points_lookup
from kschedctl.config.types import EXTENSION_POINTS, MULTI_POINT, Profile

DEFAULT_SET = "DefaultSet"
REWEIGHTED_IN_PLACE = "ReweightedInPlace"
APPENDED = "Appended"
USER_ENABLED = "UserEnabled"
USER_ENABLED_OVERRIDE = "UserEnabledOverride"
USER_DISABLED = "UserDisabled"

#: Warning codes (``OriginWarning.code``).
WEIGHT_IGNORED = "WeightIgnored"
WEIGHT_ZERO = "WeightZero"
WEIGHT_RESET = "WeightReset"
WEIGHT_SHADOWED = "WeightShadowed"
ENABLED_TWICE = "EnabledTwice"
DISABLED_REENABLED = "DisabledReenabled"
DISABLE_NO_EFFECT = "DisableNoEffect"
PLUGIN_CONFIG_UNUSED = "PluginConfigUnused"

#: Key under which a user's entry carries its field path through defaulting (never printed).
_TAG = "\x00origin"


@dataclass
class OriginEntry:
    """One plugin at one extension point (or in the merged multiPoint list) and where it came from.

    ``weight``: at ``score`` the effective weight (unset and 0 mean 1); in the multiPoint list
    the configured one (None when unset); None elsewhere. ``field``: the user's entry in the file
    (None for the default set).
    """

    plugin: str
    origin: str
    via: str
    weight: int | None = None
    enabled: bool = True
    field: str | None = None
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"plugin": self.plugin, "weight": self.weight, "origin": self.origin,
                               "via": self.via, "enabled": self.enabled}
        if self.field is not None:
            out["field"] = self.field
        out["detail"] = self.detail
        return out


@dataclass
class PointOrigins:
    """The plugins of one extension point, in the order the framework runs them, then the disabled ones."""

    point: str
    entries: list[OriginEntry] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"extensionPoint": self.point, "plugins": [e.to_dict() for e in self.entries]}


@dataclass
class OriginWarning:
    """A classic trap found in the user's plugin lists."""

    code: str
    field: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "field": self.field, "message": self.message}

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


@dataclass
class ProfileOrigins:
    """Origins of one profile's plugins and pluginConfig, and the traps found in it."""

    index: int
    scheduler_name: str
    multi_point: PointOrigins
    points: list[PointOrigins] = field(default_factory=list)
    plugin_config: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[OriginWarning] = field(default_factory=list)

    def point(self, name: str) -> PointOrigins:
        """The origins of extension point ``name`` (config spelling, ``multiPoint`` included)."""
        if name == MULTI_POINT:
            return self.multi_point
        for p in self.points:
            if p.point == name:
                return p
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schedulerName": self.scheduler_name,
            "multiPoint": [e.to_dict() for e in self.multi_point.entries],
            "extensionPoints": [p.to_dict() for p in self.points],
            "pluginConfig": list(self.plugin_config),
            "warnings": [w.to_dict() for w in self.warnings],
        }


@dataclass
class ConfigOrigins:
    """Origins of every profile of one configuration (``-o json``: ``kind: PluginOrigins``)."""

    file: str | None
    profiles: list[ProfileOrigins] = field(default_factory=list)

    @property
    def warnings(self) -> list[OriginWarning]:
        return [w for p in self.profiles for w in p.warnings]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "PluginOrigins", "file": self.file, "profiles": [p.to_dict() for p in self.profiles]}


# ---------------------------------------------------------------------------------------------


def config_origins(raw: Mapping[str, Any] | None, file: str | None = None,
                   extra_plugins: Mapping[str, Sequence[str]] | None = None) -> ConfigOrigins:
    """Origins of every plugin of every profile of ``raw``, the decoded but undefaulted v1 dict
    (:func:`kschedctl.config.api.raw_config`); None is the built-in default configuration.

    ``extra_plugins`` (name -> extension points) adds custom plugins to the out-of-tree plugins
    kschedctl ships and the in-tree ones.
    """
    from kschedctl.config.api import build_config
    from kschedctl.plugins.registry import known_plugin_points

    points_of, known = points_lookup(known_plugin_points(extra_plugins))
    user = copy.deepcopy(dict(raw or {}))
    doc = copy.deepcopy(user)
    for i, prof in enumerate(doc.get("profiles") or []):
        _tag_profile(prof, f"profiles[{i}]")
    default_config(doc)
    cfg = build_config(doc)
    user_profiles = user.get("profiles") or []
    out = ConfigOrigins(file)
    for i, prof in enumerate(cfg.profiles):
        user_prof = user_profiles[i] if i < len(user_profiles) else {}
        out.profiles.append(_profile_origins(i, prof, doc["profiles"][i], user_prof, points_of, known))
    return out


def _tag_profile(prof: Any, path: str) -> None:
    if not isinstance(prof, dict):
        return
    plugins = prof.get("plugins")
    if isinstance(plugins, dict):
        for point, ps in plugins.items():
            if isinstance(ps, dict):
                for k, p in enumerate(ps.get("enabled") or []):
                    if isinstance(p, dict):
                        p[_TAG] = f"{path}.plugins.{point}.enabled[{k}]"
    for j, pc in enumerate(prof.get("pluginConfig") or []):
        if isinstance(pc, dict):
            pc[_TAG] = f"{path}.pluginConfig[{j}]"


def _names(entries: Sequence[Mapping[str, Any]] | None) -> list[str]:
    return [str(p.get("name", "")) for p in entries or []]


def _disabled_field(user_set: Mapping[str, Any], path: str, name: str) -> str | None:
    """The user's disabled entry that switches ``name`` off (by name, else ``*``)."""
    disabled = _names(user_set.get("disabled"))
    for wanted in (name, "*"):
        if wanted in disabled:
            return f"{path}.disabled[{disabled.index(wanted)}]"
    return None


def _weight_text(weight: Any) -> str:
    return "unset" if weight is None else str(weight)


def plugin_set_origins(default_set: Mapping[str, Any] | None, custom_set: Mapping[str, Any] | None,
                       point: str = MULTI_POINT, path: str = "") -> list[OriginEntry]:
    """The merged PluginSet of ``point`` (upstream's ``mergePluginSet(default_set, custom_set)``)
    with each entry's origin, then the default entries the user's disabled list removed.

    ``path`` is the field path of the user's PluginSet (``profiles[0].plugins.multiPoint``);
    ``custom_set`` None means the profile sets no plugins at all (the default set as is).
    """
    default_set = default_set or {}
    default_enabled = default_set.get("enabled") or []
    default_weights = {str(p.get("name", "")): p.get("weight") for p in default_enabled}
    custom = copy.deepcopy(dict(custom_set or {}))
    for k, p in enumerate(custom.get("enabled") or []):
        p[_TAG] = f"{path}.enabled[{k}]"
    merged = merge_plugin_set(copy.deepcopy(dict(default_set)), custom)
    star = "*" in _names(merged.get("disabled"))
    # How many entries of the merged list stand where a default entry stood: the defaults that
    # survive the user's disabled list, as upstream's merge itself computes them.
    in_place = len(merge_plugin_set(default_set, {"disabled": custom.get("disabled") or []}).get("enabled") or [])
    out: list[OriginEntry] = []
    for k, p in enumerate(merged.get("enabled") or []):
        name, weight, tag = str(p.get("name", "")), p.get("weight"), p.get(_TAG)
        if tag is None:
            e = OriginEntry(name, DEFAULT_SET, point, weight, detail="default set")
        elif k < in_place:
            before = default_weights.get(name)
            detail = (f"re-weighted in place ({_weight_text(before)} -> {_weight_text(weight)})" if before != weight
                      else f"listed again, replaced in place (weight {_weight_text(weight)} as before)")
            e = OriginEntry(name, REWEIGHTED_IN_PLACE, point, weight, field=tag, detail=detail)
        elif default_enabled and not star:
            what = "default plugin enabled again" if name in default_weights else "custom plugin"
            e = OriginEntry(name, APPENDED, point, weight, field=tag, detail=f"{what}, appended")
        else:
            e = OriginEntry(name, USER_ENABLED, point, weight, field=tag, detail="user enabled")
        out.append(e)
    enabled = set(_names(merged.get("enabled")))
    for name in _names(default_enabled):
        if name not in enabled:
            out.append(OriginEntry(name, USER_DISABLED, point, None, enabled=False,
                                   field=_disabled_field(custom, path, name), detail=f"disabled at {point}"))
    return out


def _profile_origins(index: int, profile: Profile, merged_prof: Mapping[str, Any], user_prof: Mapping[str, Any],
                     points_of: Callable[[str], Sequence[str]], known: Callable[[str], bool]) -> ProfileOrigins:
    path = f"profiles[{index}]"
    defaults = default_plugins()
    default_mp = defaults.get(MULTI_POINT) or {}
    default_weights = {p["name"]: p.get("weight") for p in default_mp.get("enabled") or []}
    merged = merged_prof.get("plugins") or {}
    user_plugins = user_prof.get("plugins") if isinstance(user_prof, dict) else None
    user_plugins = user_plugins if isinstance(user_plugins, dict) else None

    # -- the merged multiPoint list ---------------------------------------------------------
    mp = merged.get(MULTI_POINT) or {}
    user_mp = (user_plugins or {}).get(MULTI_POINT) or {}
    mp_entries = plugin_set_origins(default_mp, user_mp if user_plugins is not None else None, MULTI_POINT,
                                    f"{path}.plugins.{MULTI_POINT}")
    mp_origin = {k: e for k, e in enumerate(e for e in mp_entries if e.enabled)}

    # -- per extension point ----------------------------------------------------------------
    expanded = expand_plugins(profile, lambda n: points_of(n) if known(n) else ())
    first_mp: dict[str, int] = {}
    for k, name in enumerate(_names(mp.get("enabled"))):
        first_mp.setdefault(name, k)
    points: list[PointOrigins] = []
    for point in EXTENSION_POINTS:
        ps = merged.get(point) or {}
        user_set = (user_plugins or {}).get(point) or {}
        explicit = {}
        for p in ps.get("enabled") or []:
            explicit.setdefault(str(p.get("name", "")), p)
        star = "*" in _names(ps.get("disabled"))
        po = PointOrigins(point)
        running = set()
        for ref in expanded[point]:
            running.add(ref.name)
            weight = ref.weight if point == "score" else None
            if ref.name in explicit:
                p = explicit[ref.name]
                override = ref.name in first_mp and not star
                e = OriginEntry(ref.name, USER_ENABLED_OVERRIDE if override else USER_ENABLED, point, weight,
                                field=p.get(_TAG),
                                detail=f"user enabled at {point}" + (", overrides multiPoint (runs first)"
                                                                     if override else ""))
            else:
                src = mp_origin[first_mp[ref.name]]
                e = OriginEntry(ref.name, src.origin, MULTI_POINT, weight, field=src.field,
                                detail=f"multiPoint: {src.detail}")
            if point == "score":
                e.detail += "; " + _weight_source(profile, ref.name, mp_origin, first_mp, explicit)
            po.entries.append(e)
        candidates = [n for n in _names(default_mp.get("enabled")) + _names(mp.get("enabled"))
                      if point in points_of(n) and known(n)]
        for name in dict.fromkeys(candidates):
            if name in running:
                continue
            fld = _disabled_field(user_set, f"{path}.plugins.{point}", name)
            via = point
            if fld is None:
                fld = _disabled_field(user_mp, f"{path}.plugins.{MULTI_POINT}", name)
                via = MULTI_POINT
            po.entries.append(OriginEntry(name, USER_DISABLED, via, None, enabled=False, field=fld,
                                          detail=f"disabled at {via}"))
        points.append(po)

    plugin_config = []
    for pc in merged_prof.get("pluginConfig") or []:
        tag = pc.get(_TAG)
        entry = {"name": str(pc.get("name", "")), "origin": "User" if tag else "Default"}
        if tag:
            entry["field"] = tag
        plugin_config.append(entry)

    out = ProfileOrigins(index, profile.scheduler_name, PointOrigins(MULTI_POINT, mp_entries), points, plugin_config)
    out.warnings = _warnings(path, user_prof if isinstance(user_prof, dict) else {}, merged, expanded,
                             default_weights, points_of, known)
    return out


def _weight_source(profile: Profile, name: str, mp_origin: Mapping[int, OriginEntry], first_mp: Mapping[str, int],
                   explicit: Mapping[str, Any]) -> str:
    # getScoreWeights reads score.enabled first, then multiPoint.enabled; unset and 0 mean 1.
    if name in explicit:
        w = explicit[name].get("weight")
        src = "weight from score.enabled"
    elif name in first_mp:
        e = mp_origin[first_mp[name]]
        w = e.weight
        src = "default weight" if e.origin == DEFAULT_SET else "weight from multiPoint.enabled"
    else:  # pragma: no cover - expand_plugins only yields names of those two lists
        return "weight 1"
    if not w:
        return f"{src}: {_weight_text(w)}, counts as 1"
    return f"{src}: {w}"


def _warnings(path: str, user_prof: Mapping[str, Any], merged: Mapping[str, Any],
              expanded: Mapping[str, Sequence[Any]], default_weights: Mapping[str, Any],
              points_of: Callable[[str], Sequence[str]], known: Callable[[str], bool]) -> list[OriginWarning]:
    out: list[OriginWarning] = []
    user_plugins = user_prof.get("plugins") if isinstance(user_prof.get("plugins"), dict) else {}
    runs_at: dict[str, list[str]] = {}
    for point in EXTENSION_POINTS:
        for ref in expanded[point]:
            runs_at.setdefault(ref.name, []).append(point)

    def user_list(point: str, key: str) -> list[tuple[int, dict[str, Any]]]:
        ps = user_plugins.get(point)
        if not isinstance(ps, dict):
            return []
        return [(k, p) for k, p in enumerate(ps.get(key) or []) if isinstance(p, dict)]

    all_points = (MULTI_POINT,) + EXTENSION_POINTS
    # Weights: only score and multiPoint weights count, and only for score plugins.
    score_weights = {str(p.get("name", "")): p.get("weight") for _, p in user_list("score", "enabled")}
    for point in all_points:
        for k, p in user_list(point, "enabled"):
            name, weight = str(p.get("name", "")), p.get("weight")
            fld = f"{path}.plugins.{point}.enabled[{k}]"
            if point not in ("score", MULTI_POINT):
                if weight:
                    out.append(OriginWarning(WEIGHT_IGNORED, f"{fld}.weight",
                                             f'weight {weight} of "{name}" is ignored: only weights in score and '
                                             "multiPoint count"))
                continue
            if known(name) and "score" not in points_of(name):
                if weight:
                    out.append(OriginWarning(WEIGHT_IGNORED, f"{fld}.weight",
                                             f'"{name}" is not a score plugin: its weight {weight} is ignored'))
                continue
            if weight == 0 and "weight" in p:
                out.append(OriginWarning(WEIGHT_ZERO, f"{fld}.weight",
                                         f'weight 0 of "{name}" counts as 1, it does not switch the score off; '
                                         "disable the plugin at score for that"))
            if point == MULTI_POINT and weight is None and default_weights.get(name):
                out.append(OriginWarning(WEIGHT_RESET, fld,
                                         f'"{name}" is listed again without a weight: it replaces the default entry, '
                                         f"so its weight goes from {default_weights[name]} to 1"))
            if point == MULTI_POINT and name in score_weights and weight and score_weights[name] != weight:
                out.append(OriginWarning(WEIGHT_SHADOWED, f"{fld}.weight",
                                         f'weight {weight} of "{name}" is not used: its entry in score.enabled '
                                         f"(weight {_weight_text(score_weights[name])}) decides"))
    # The same plugin twice in one merged list: kube-scheduler refuses to start.
    for point in all_points:
        seen: dict[str, str] = {}
        for p in (merged.get(point) or {}).get("enabled") or []:
            name = str(p.get("name", ""))
            where = p.get(_TAG) or "the default set"
            if name in seen:
                out.append(OriginWarning(ENABLED_TWICE, p.get(_TAG) or f"{path}.plugins.{point}",
                                         f'"{name}" is enabled twice at {point} ({seen[name]} and {where}): '
                                         f"kube-scheduler refuses to start (plugin already registered)"))
            else:
                seen[name] = where
    # Disabled in one place, enabled in another; disabling what is not there.
    enabled_at: dict[str, list[str]] = {}
    for point in all_points:
        for _, p in user_list(point, "enabled"):
            enabled_at.setdefault(str(p.get("name", "")), []).append(point)
    mp_candidates = set(default_weights) | set(_names((merged.get(MULTI_POINT) or {}).get("enabled")))
    for point in all_points:
        for k, p in user_list(point, "disabled"):
            name = str(p.get("name", ""))
            if name == "*":
                continue
            fld = f"{path}.plugins.{point}.disabled[{k}]"
            elsewhere = [e for e in enabled_at.get(name, []) if e != point and not (e == MULTI_POINT)]
            if elsewhere:
                runs = runs_at.get(name, [])
                missing = [x for x in points_of(name) if x not in runs] if known(name) else []
                msg = (f'"{name}" is disabled at {point} but enabled at {", ".join(elsewhere)}: it runs at '
                       f'{", ".join(runs) or "no extension point"}')
                if missing:
                    msg += f", not at {', '.join(missing)}"
                out.append(OriginWarning(DISABLED_REENABLED, fld, msg))
                continue
            if not known(name):
                continue  # validate reports names no registry knows
            if point == MULTI_POINT:
                if name not in default_weights:
                    out.append(OriginWarning(DISABLE_NO_EFFECT, fld,
                                             f'disabling "{name}" at multiPoint has no effect: it is not in the '
                                             "default set"))
            elif point not in points_of(name):
                out.append(OriginWarning(DISABLE_NO_EFFECT, fld,
                                         f'disabling "{name}" at {point} has no effect: it does not implement '
                                         f"{point}"))
            elif name not in mp_candidates and point not in enabled_at.get(name, []):
                out.append(OriginWarning(DISABLE_NO_EFFECT, fld,
                                         f'disabling "{name}" at {point} has no effect: nothing enables it'))
    # pluginConfig for a plugin that runs nowhere: its args are ignored.
    for j, pc in enumerate(user_prof.get("pluginConfig") or []):
        if not isinstance(pc, dict):
            continue
        name = str(pc.get("name", ""))
        if name and name not in runs_at and known(name):
            out.append(OriginWarning(PLUGIN_CONFIG_UNUSED, f"{path}.pluginConfig[{j}]",
                                     f'args for "{name}", which is not enabled in this profile: they are ignored'))
    return out


__all__ = ["config_origins", "ConfigOrigins", "ProfileOrigins", "PointOrigins", "OriginEntry", "OriginWarning",
           "DEFAULT_SET", "REWEIGHTED_IN_PLACE", "APPENDED", "USER_ENABLED", "USER_ENABLED_OVERRIDE",
           "USER_DISABLED"]
