"""The catalog ``kschedctl plugins`` shows: every registered plugin with what the default profile
and upstream's defaulting say about it. It is built above both config and the plugins.
"""

from __future__ import annotations

import inspect
from typing import Any

from kschedctl.config.api import default_configuration
from kschedctl.config.args import new_default_args
from kschedctl.config.expand import score_weights
from kschedctl.framework.interfaces import extension_points_of as _points
from kschedctl.plugins.loader import ORIGIN_BUILTIN, describe_points
from kschedctl.plugins.out_of_tree import OUT_OF_TREE_EXTENSION_POINTS
from kschedctl.plugins.registry import Registry, facts_of


def plugin_catalog(registry: "Registry | None" = None) -> list[dict[str, Any]]:
    """Every registered plugin as plain data (camelCase keys): name, origin, extension points
    (upstream spelling), default weight and whether the default profile enables it, args
    defaults (v1 dicts) and the first line of its docstring."""
    if registry is None:
        registry = Registry()
    profile = default_configuration().profiles[0]
    weights = score_weights(profile)
    enabled_by_default = {ref.name for ref in profile.plugins.multi_point.enabled}
    out: list[dict[str, Any]] = []
    for name in registry.names():
        origin = registry.origin(name) if hasattr(registry, "origin") else ORIGIN_BUILTIN
        cls = registry.load(name)
        if origin == ORIGIN_BUILTIN:
            facts = facts_of(name)
            points = tuple(facts.points if facts is not None else _points(cls or object))
            args = new_default_args(name)
            if args is not None:
                args = {k: v for k, v in args.items() if k not in ("apiVersion", "kind")}
        else:
            points = tuple(OUT_OF_TREE_EXTENSION_POINTS.get(name) or _points(cls or object))
            raw = getattr(cls, "default_args", None)
            args = dict(raw) if isinstance(raw, dict) and raw else None
        doc = (inspect.getdoc(cls) or "").strip().splitlines() if cls is not None else []
        out.append({
            "name": name,
            "origin": origin,
            "extensionPoints": describe_points(points),
            "defaultWeight": weights.get(name) if name in enabled_by_default and "score" in points else None,
            "enabledByDefault": name in enabled_by_default,
            "args": args,
            "argsSchema": getattr(cls, "args_schema", None) if origin != ORIGIN_BUILTIN else None,
            "description": doc[0] if doc else "",
        })
    return out
