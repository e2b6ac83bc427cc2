"""The out-of-tree plugins kschedctl ships, in one table beside the built-ins' (``registry``):
ports of kubernetes-sigs/scheduler-plugins (:mod:`kschedctl.plugins.sigs`) and the plugins of
the seed articles (:mod:`kschedctl.plugins.seeds`). Always known, imported only when a profile
uses them. Each module declares its ``FACTS`` as a built-in does; the tables keep each plugin's
extension points too, so that a configuration naming one validates without importing it
(tests/plugins/test_facts.py checks the two agree).
"""

from __future__ import annotations

from kschedctl.plugins.seeds import SEED_PLUGINS
from kschedctl.plugins.sigs import SIGS_PLUGINS

__all__ = ["OUT_OF_TREE_PLUGINS", "OUT_OF_TREE_EXTENSION_POINTS"]

#: Out-of-tree plugins kschedctl ships: name -> "module:Class" (imported lazily by the registry).
OUT_OF_TREE_PLUGINS: dict[str, str] = {
    name: target for table in (SIGS_PLUGINS, SEED_PLUGINS) for name, (target, _) in table.items()}
#: Their extension points (config spelling), known without importing them.
OUT_OF_TREE_EXTENSION_POINTS: dict[str, tuple[str, ...]] = {
    name: tuple(points) for table in (SIGS_PLUGINS, SEED_PLUGINS) for name, (_, points) in table.items()}
