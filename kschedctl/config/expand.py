"""The effective plugins of a profile per extension point, as upstream's framework builds them.

Upstream: pkg/scheduler/framework/runtime/framework.go — ``NewFramework`` fills each
extension point from its own ``enabled`` list (``updatePluginList``), then
``expandMultiPointPlugins`` adds the multiPoint plugins, then ``getScoreWeights`` fixes the
score weights; pkg/scheduler/profile/profile.go adds the cross-profile queue-sort check.

:func:`expand_plugins` is the pure function the runtime builds frameworks with;
:func:`framework_errors` reports what ``NewFramework`` / ``profile.NewMap`` would refuse at
kube-scheduler start-up, with upstream's error text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from kschedctl.config.types import EXTENSION_POINTS, MULTI_POINT, PluginRef, Profile
from kschedctl.framework.interfaces import MAX_NODE_SCORE

#: Extension points in the order upstream's ``getExtensionPoints`` walks them (which decides
#: which start-up error is met first).
FRAMEWORK_ORDER: tuple[str, ...] = (
    "preFilter", "filter", "postFilter", "reserve", "preScore", "score",
    "preBind", "bind", "postBind", "permit", "preEnqueue", "queueSort",
)

#: Go interface name of each extension point, as upstream's error messages print it.
GO_TYPE: dict[str, str] = {
    "preEnqueue": "PreEnqueuePlugin",
    "queueSort": "QueueSortPlugin",
    "preFilter": "PreFilterPlugin",
    "filter": "FilterPlugin",
    "postFilter": "PostFilterPlugin",
    "preScore": "PreScorePlugin",
    "score": "ScorePlugin",
    "reserve": "ReservePlugin",
    "permit": "PermitPlugin",
    "preBind": "PreBindPlugin",
    "bind": "BindPlugin",
    "postBind": "PostBindPlugin",
}

#: framework.MaxTotalScore (math.MaxInt64).
MAX_TOTAL_SCORE = 2**63 - 1

PointsOf = Callable[[str], Sequence[str]]


def expand_plugins(profile: Profile, points_of: PointsOf) -> dict[str, list[PluginRef]]:
    """Per extension point (config spelling, pipeline order), the plugins that run, in order.

    ``points_of(name)`` gives the extension points (config spelling) plugin ``name``
    implements; a name it does not know should give ``()``.

    Per extension point, as upstream:
      1. the point's own ``enabled`` list is taken as is;
      2. unless the point disables ``"*"``, every multiPoint plugin implementing the point
         and not disabled there is added; a multiPoint plugin that the point also lists
         explicitly is an *override*: the explicit entry wins, and overrides are moved first.
         The order is: overrides (in the point's own order), then multiPoint plugins (in
         multiPoint order), then the point's other plugins (in its order).
    Score weights (other points carry ``weight=None``): the first entry for the plugin in
    ``score.enabled`` then ``multiPoint.enabled`` decides; 0 or unset means 1.

    Configurations kube-scheduler refuses (see :func:`framework_errors`) are expanded on a
    best-effort basis: duplicates are kept once, unknown or non-implementing plugins dropped.
    """
    plugins = profile.plugins
    multi = plugins.multi_point.enabled
    out: dict[str, list[PluginRef]] = {}
    for point in EXTENSION_POINTS:
        ps = plugins.get(point)
        explicit: list[str] = []
        for p in ps.enabled:
            if point in points_of(p.name) and p.name not in explicit:
                explicit.append(p.name)
        disabled = ps.disabled_names()
        if "*" in disabled:
            names = explicit
        else:
            overrides: list[str] = []
            from_multi: list[str] = []
            for p in multi:
                if point not in points_of(p.name) or p.name in disabled:
                    continue
                if p.name in explicit:
                    if p.name not in overrides:
                        overrides.append(p.name)
                    continue
                if p.name not in from_multi:
                    from_multi.append(p.name)
            first = [n for n in explicit if n in overrides]
            rest = [n for n in explicit if n not in overrides]
            names = first + from_multi + rest
        if point == "score":
            weights = score_weights(profile)
            out[point] = [PluginRef(n, weights.get(n, 1)) for n in names]
        else:
            out[point] = [PluginRef(n, None) for n in names]
    return out


def score_weights(profile: Profile) -> dict[str, int]:
    """``getScoreWeights`` without the plugin-type filter: name -> effective weight (0/unset -> 1)."""
    weights: dict[str, int] = {}
    for p in list(profile.plugins.score.enabled) + list(profile.plugins.multi_point.enabled):
        if p.name in weights:
            continue
        weights[p.name] = p.weight or 1
    return weights


@dataclass
class FrameworkError:
    """One start-up failure: where in the profile, and upstream's message."""

    field: str
    message: str
    type: str = "Invalid"


def framework_errors(profile: Profile, path: str, points_of: PointsOf,
                     known: Callable[[str], bool]) -> list[FrameworkError]:
    """What ``NewFramework`` would refuse for ``profile`` (at ``path``, e.g. ``profiles[0]``).

    Upstream stops at the first error; we collect every one, in upstream's order. Plugins
    ``known`` does not know are left to the caller (reported as unknown plugins).
    """
    errs: list[FrameworkError] = []
    plugins = profile.plugins
    for point in FRAMEWORK_ORDER:
        seen: set[str] = set()
        for k, p in enumerate(plugins.get(point).enabled):
            fpath = f"{path}.plugins.{point}.enabled[{k}]"
            if not known(p.name):
                continue
            if point not in points_of(p.name):
                errs.append(FrameworkError(fpath, f'plugin "{p.name}" does not extend {GO_TYPE[point]} plugin'))
                continue
            if p.name in seen:
                errs.append(FrameworkError(fpath, f'plugin "{p.name}" already registered as "{GO_TYPE[point]}"',
                                           "Duplicate"))
            seen.add(p.name)
    multi = plugins.multi_point.enabled
    if multi:
        reported: set[tuple[str, int]] = set()
        for point in FRAMEWORK_ORDER:
            ps = plugins.get(point)
            disabled = ps.disabled_names()
            if "*" in disabled:
                continue
            explicit = {p.name for p in ps.enabled}
            seen = set()
            for k, p in enumerate(multi):
                if not known(p.name) or point not in points_of(p.name) or p.name in disabled or p.name in explicit:
                    continue
                if p.name in seen and (p.name, k) not in reported:
                    # Upstream fails at the first extension point the duplicate implements.
                    reported.add((p.name, k))
                    errs.append(FrameworkError(f"{path}.plugins.multiPoint.enabled[{k}]",
                                               f'plugin "{p.name}" already registered as "{GO_TYPE[point]}"',
                                               "Duplicate"))
                seen.add(p.name)
    expanded = expand_plugins(profile, lambda n: points_of(n) if known(n) else ())
    name = profile.scheduler_name
    if len(expanded["queueSort"]) != 1:
        errs.append(FrameworkError(
            f"{path}.plugins.queueSort",
            f'only one queue sort plugin required for profile with scheduler name "{name}", '
            f'but got {len(expanded["queueSort"])}'))
    if not expanded["bind"]:
        errs.append(FrameworkError(f"{path}.plugins.bind",
                                   f'at least one bind plugin is needed for profile with scheduler name "{name}"',
                                   "Required"))
    total = 0
    for ref in expanded["score"]:
        w = ref.weight or 1
        if w * MAX_NODE_SCORE > MAX_TOTAL_SCORE - total:
            errs.append(FrameworkError(f"{path}.plugins.score", "total score of Score plugins could overflow"))
            break
        total += w * MAX_NODE_SCORE
    return errs


def registry_table(extra_plugins: Mapping[str, Sequence[str]] | None = None) -> dict[str, tuple[str, ...]]:
    """Plugin name -> extension points: the in-tree registry plus ``extra_plugins``."""
    from kschedctl.plugins.registry import in_tree_extension_points

    table: dict[str, tuple[str, ...]] = in_tree_extension_points()
    for n, pts in (extra_plugins or {}).items():
        table[n] = tuple(pts)
    return table


def points_lookup(extra_plugins: Mapping[str, Sequence[str]] | None = None) -> tuple[PointsOf, Callable[[str], bool]]:
    """``(points_of, known)`` over the in-tree registry plus ``extra_plugins`` (name -> points)."""
    table = registry_table(extra_plugins)

    def points_of(n: str) -> Sequence[str]:
        return table.get(n, ())

    def known(n: str) -> bool:
        return n in table

    return points_of, known


__all__ = ["expand_plugins", "score_weights", "framework_errors", "points_lookup", "registry_table", "FrameworkError",
           "GO_TYPE", "FRAMEWORK_ORDER", "MULTI_POINT"]
