"""The plugin registry: every built-in plugin in one literal, imported only when a profile uses it.

Upstream keeps the in-tree registry in pkg/scheduler/framework/plugins/registry.go. Here each
name maps to ``"module:Class"``, imported when a profile first needs it. The out-of-tree plugins
kschedctl ships (``out_of_tree``) join it the same way; custom plugins, loaded and checked by
``loader``, are added with ``register``. What config validation knows of plugins besides the
in-tree ones (``known_plugin_points``, ``plugin_info``) is answered here, from all three.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable, Iterable, Mapping, Sequence

from kschedctl.framework.interfaces import extension_points_of
from kschedctl.plugins import names
from kschedctl.plugins.facts import PluginFacts
from kschedctl.plugins.loader import (
    ORIGIN_OUT_OF_TREE,
    LoadedPlugin,
    check_plugin,
    custom_plugins,
    import_target,
    loaded_plugin,
)
from kschedctl.plugins.out_of_tree import OUT_OF_TREE_EXTENSION_POINTS, OUT_OF_TREE_PLUGINS

#: Every built-in plugin: name -> "module:Class" (the class is named exactly like the plugin), in
#: the order of upstream's default profile (``getDefaultPlugins``), which config defaulting follows.
BUILTIN_PLUGINS: dict[str, str] = {
    names.SCHEDULING_GATES: "kschedctl.plugins.scheduling_gates:SchedulingGates",
    names.PRIORITY_SORT: "kschedctl.plugins.priority_sort:PrioritySort",
    names.NODE_UNSCHEDULABLE: "kschedctl.plugins.node_unschedulable:NodeUnschedulable",
    names.NODE_NAME: "kschedctl.plugins.node_name:NodeName",
    names.TAINT_TOLERATION: "kschedctl.plugins.taint_toleration:TaintToleration",
    names.NODE_AFFINITY: "kschedctl.plugins.node_affinity:NodeAffinity",
    names.NODE_PORTS: "kschedctl.plugins.node_ports:NodePorts",
    names.NODE_RESOURCES_FIT: "kschedctl.plugins.node_resources_fit:NodeResourcesFit",
    names.VOLUME_RESTRICTIONS: "kschedctl.plugins.volume_restrictions:VolumeRestrictions",
    names.NODE_VOLUME_LIMITS: "kschedctl.plugins.node_volume_limits:NodeVolumeLimits",
    names.VOLUME_BINDING: "kschedctl.plugins.volume_binding:VolumeBinding",
    names.VOLUME_ZONE: "kschedctl.plugins.volume_zone:VolumeZone",
    names.POD_TOPOLOGY_SPREAD: "kschedctl.plugins.pod_topology_spread:PodTopologySpread",
    names.INTER_POD_AFFINITY: "kschedctl.plugins.inter_pod_affinity:InterPodAffinity",
    names.DYNAMIC_RESOURCES: "kschedctl.plugins.dynamic_resources:DynamicResources",
    names.DEFAULT_PREEMPTION: "kschedctl.plugins.default_preemption:DefaultPreemption",
    names.NODE_RESOURCES_BALANCED_ALLOCATION:
        "kschedctl.plugins.node_resources_balanced_allocation:NodeResourcesBalancedAllocation",
    names.IMAGE_LOCALITY: "kschedctl.plugins.image_locality:ImageLocality",
    names.DEFAULT_BINDER: "kschedctl.plugins.default_binder:DefaultBinder",
}


# -- facts: every table about plugins is derived from what the plugins declare ------------------

_FACTS: dict[str, PluginFacts | None] = {}


def facts_of(name: str) -> PluginFacts | None:
    """The ``FACTS`` the module of built-in or out-of-tree plugin ``name`` declares (importing it);
    None for a plugin that declares none, a custom plugin, or a name nobody knows."""
    if name in _FACTS:
        return _FACTS[name]
    target = BUILTIN_PLUGINS.get(name) or OUT_OF_TREE_PLUGINS.get(name)
    found = None
    if target is not None:
        try:
            module = importlib.import_module(target.partition(":")[0])
        except Exception:  # a broken module is reported when the plugin is built (Registry.load)
            module = None
        found = getattr(module, "FACTS", None)
        if found is not None and found.name != name:
            raise ValueError(f"{target} declares the facts of {found.name}, not of {name}")
    _FACTS[name] = found
    return found


def builtin_facts() -> dict[str, PluginFacts]:
    """The facts of every built-in plugin, in registry order (imports them all).

    A built-in without facts would silently drop out of every derived table (the default
    profile, the args kinds): that is a bug in kschedctl, raised as one.
    """
    out = {}
    for name, target in BUILTIN_PLUGINS.items():
        facts = facts_of(name)
        if facts is None:
            raise RuntimeError(f"built-in plugin {name} ({target}) declares no FACTS")
        out[name] = facts
    return out


def in_tree_extension_points() -> dict[str, tuple[str, ...]]:
    """Built-in plugin -> the extension points (config spelling, pipeline order) it declares."""
    return {name: facts.points for name, facts in builtin_facts().items()}


def node_local_plugins(point: str) -> frozenset[str]:
    """Built-in plugins whose ``point`` (filter, score) answers from the pod and one NodeInfo alone."""
    return frozenset(name for name, facts in builtin_facts().items() if point in facts.node_local)


_OWN_FACTS: dict[type, PluginFacts | None] = {}


def own_facts(plugin: Any) -> PluginFacts | None:
    """The facts of ``plugin`` when it is an instance of the very class the registry names for
    its name (built-in or out-of-tree), else None: a custom plugin, or a subclass, may answer
    otherwise than the facts (its twin, its answers per node object) say."""
    cls = type(plugin)
    try:
        return _OWN_FACTS[cls]
    except KeyError:
        pass
    name = getattr(plugin, "name", None)
    target = (BUILTIN_PLUGINS.get(name) or OUT_OF_TREE_PLUGINS.get(name)) if isinstance(name, str) else None
    found = None
    if target is not None and target == f"{cls.__module__}:{cls.__qualname__}":
        found = facts_of(name)
    _OWN_FACTS[cls] = found
    return found


class Registry:
    """Plugin name -> how to build it. Built-ins load lazily; custom plugins are added later.

    ``points_of(name)`` is what config defaulting needs to expand ``multiPoint``: upstream's
    extension points for a built-in, the implemented methods for a custom plugin, () for a
    name nobody knows.
    """

    def __init__(self, builtins: dict[str, str] | None = None, out_of_tree: dict[str, str] | None = None) -> None:
        self._builtins = dict(BUILTIN_PLUGINS if builtins is None else builtins)
        # Out-of-tree plugins kschedctl ships (scheduler-plugins ports, seed-article plugins) load
        # lazily like built-ins; the default registry has them, a registry of given built-ins not.
        if out_of_tree is None and builtins is None:
            out_of_tree = OUT_OF_TREE_PLUGINS
        self._out_of_tree: dict[str, str] = dict(out_of_tree or {})
        for name, target in self._out_of_tree.items():
            self._builtins.setdefault(name, target)
        self._custom: dict[str, Any] = {}
        if builtins is None:
            # Plugins installed packages register under the ``kschedctl.plugins`` entry points.
            for loaded in custom_plugins():
                self._custom[loaded.name] = loaded.factory
        self._loaded: dict[str, Any] = {}

    # -- what is known ------------------------------------------------------------------------
    def names(self) -> list[str]:
        return list(self._builtins) + [n for n in self._custom if n not in self._builtins]

    def __contains__(self, name: object) -> bool:
        return name in self._custom or name in self._builtins

    def is_builtin(self, name: str) -> bool:
        return name in self._builtins and name not in self._custom and name not in self._out_of_tree

    def origin(self, name: str) -> str:
        """Where ``name`` comes from: "built-in", "out-of-tree", "custom", or "" when unknown."""
        if name in self._custom:
            return "custom"
        if name in self._out_of_tree:
            return "out-of-tree"
        return "built-in" if name in self._builtins else ""

    def register(self, name: str, factory: Any) -> None:
        """Add (or replace) a plugin: a class or a callable ``factory(args, handle) -> plugin``."""
        self._custom[name] = factory
        self._loaded.pop(name, None)

    def points_of(self, name: str) -> tuple[str, ...]:
        """Extension points (config spelling) of ``name``; () for a plugin nobody knows."""
        if name in self._custom:
            return tuple(extension_points_of(self._custom[name]))
        if name in self._builtins:
            known = OUT_OF_TREE_EXTENSION_POINTS.get(name) if name in self._out_of_tree else None
            if known is None:
                facts = facts_of(name)
                known = facts.points if facts is not None else None
            return known or tuple(extension_points_of(self.load(name)))
        return ()

    # -- loading ------------------------------------------------------------------------------
    def load(self, name: str) -> Any:
        """The class (or factory) of ``name``, imported on first use.

        KeyError for a name the registry does not know; a built-in whose module fails to import
        is a bug and raises, never turns into a plugin that silently does nothing."""
        if name in self._custom:
            return self._custom[name]
        cls = self._loaded.get(name)
        if cls is None:
            module_name, _, attr = self._builtins[name].partition(":")
            cls = self._loaded[name] = getattr(importlib.import_module(module_name), attr)
        return cls

    def build(self, name: str, args: dict | None, handle: Any) -> Any:
        """An instance of ``name`` built from ``args``.

        Raises KeyError for a name the registry does not know at all (a configuration error the
        config layer reports before this point).
        """
        if name not in self:
            raise KeyError(name)
        factory: Callable[..., Any] = self.load(name)
        plugin = factory(args, handle)
        if not getattr(plugin, "name", None):
            try:
                plugin.name = name
            except AttributeError:  # pragma: no cover - a plugin with a read-only name property
                pass
        return plugin


def install(registry: Registry, specs: Iterable[str] = ()) -> dict[str, tuple[str, ...]]:
    """Register entry-point and ``--plugin`` plugins on ``registry``; returns name -> points."""
    extra: dict[str, tuple[str, ...]] = {}
    for loaded in custom_plugins(list(specs)):
        registry.register(loaded.name, loaded.factory)
        extra[loaded.name] = loaded.points
    return extra


def registry_with(specs: Iterable[str] = ()) -> tuple[Registry, dict[str, tuple[str, ...]]]:
    """A fresh registry (built-in + out-of-tree) with the custom plugins installed, and their points."""
    registry = Registry()
    return registry, install(registry, specs)


_DEFAULT: Registry | None = None


def default_registry() -> Registry:
    """The process-wide registry of built-in plugins (custom plugins are registered on it)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Registry()
    return _DEFAULT


# -- what config validation knows besides the in-tree plugins -----------------------------------


def extension_points_of_specs(specs: Iterable[str]) -> Iterable[tuple[str, tuple[str, ...]]]:
    """``(name, points)`` of every plugin the config layer must know besides the in-tree ones:
    the out-of-tree plugins kschedctl ships, entry-point plugins and the ``--plugin`` specs."""
    yield from OUT_OF_TREE_EXTENSION_POINTS.items()
    for loaded in custom_plugins(list(specs)):
        yield loaded.name, loaded.points


def known_plugin_points(extra: Mapping[str, Sequence[str]] | None = None) -> dict[str, tuple[str, ...]]:
    """Out-of-tree and installed (entry-point) plugins plus ``extra`` (name -> extension points).

    A ``--plugin`` class counts only where it is passed in ``extra``: loading it for one command
    must not make its name valid for the next configuration checked in the same process.
    """
    table: dict[str, tuple[str, ...]] = dict(OUT_OF_TREE_EXTENSION_POINTS)
    for loaded in custom_plugins():  # installed entry points count as registered
        table[loaded.name] = loaded.points
    for name, pts in (extra or {}).items():
        table[name] = tuple(pts)
    return table


def plugin_info(name: str) -> LoadedPlugin | None:
    """What is known of an out-of-tree or custom plugin (imports an out-of-tree one), checked as
    the loader checks a custom one."""
    loaded = loaded_plugin(name)
    if loaded is not None:
        return loaded
    target = OUT_OF_TREE_PLUGINS.get(name)
    if target is None:
        return None
    return check_plugin(import_target(target), target, ORIGIN_OUT_OF_TREE, "kschedctl")
