"""Args of out-of-tree and custom plugins, validated as the plugins' own factories would at start-up.

Config sits above the plugins: it asks the plugin loader (``kschedctl.plugins.loader``) for the
plugins' args schemas and checks, and reports the findings with upstream's field paths.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from kschedctl.config.expand import expand_plugins, points_lookup
from kschedctl.config.types import FieldError, KubeSchedulerConfiguration
from kschedctl.plugins.loader import args_errors, loaded_plugin_names
from kschedctl.plugins.out_of_tree import OUT_OF_TREE_PLUGINS
from kschedctl.plugins.registry import known_plugin_points, plugin_info


def plugin_args_errors(cfg: KubeSchedulerConfiguration,
                       extra: Mapping[str, Sequence[str]] | None = None) -> list[FieldError]:
    """Args errors of every enabled out-of-tree or custom plugin, under ``profiles[i].pluginConfig[j].args``.

    Only plugins some extension point runs are built (and so validated), as upstream.
    """
    table = known_plugin_points(extra)
    checked = {n for n in table if n in OUT_OF_TREE_PLUGINS or n in loaded_plugin_names()}
    if not checked:
        return []
    points_of, known = points_lookup(table)
    errors: list[FieldError] = []
    for i, prof in enumerate(cfg.profiles):
        expanded = expand_plugins(prof, lambda n: points_of(n) if known(n) else ())
        enabled = {ref.name for refs in expanded.values() for ref in refs}
        seen: set[str] = set()
        for j, pc in enumerate(prof.plugin_config):
            if pc.name not in checked or pc.name not in enabled or pc.name in seen:
                continue
            seen.add(pc.name)
            info = plugin_info(pc.name)
            if info is None:
                continue
            for fld, kind, message in args_errors(info.factory, pc.args, f"profiles[{i}].pluginConfig[{j}].args"):
                errors.append(FieldError(fld, kind, message))
    return errors
