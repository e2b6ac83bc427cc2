"""Every registered plugin declares what the tables derived from plugin facts need.

The registry, config defaulting and validation, the queue, the simulator and the remedy engine
read nothing about a plugin but its ``FACTS`` (kschedctl.plugins.facts). ``problems`` lists what
a plugin module fails to declare; the table below shows it catches each missing declaration.
"""

from __future__ import annotations

import importlib
import re
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from kschedctl.framework import events
from kschedctl.framework.interfaces import extension_points_of
from kschedctl.plugins import names
from kschedctl.plugins.facts import ArgsFacts, PluginFacts
from kschedctl.plugins.out_of_tree import OUT_OF_TREE_EXTENSION_POINTS, OUT_OF_TREE_PLUGINS
from kschedctl.plugins.registry import BUILTIN_PLUGINS, facts_of

#: The args kinds kubescheduler.config.k8s.io/v1 registers in v1.34 (apis/config/v1/register.go).
UPSTREAM_ARGS_KINDS = {
    "DefaultPreemption": "DefaultPreemptionArgs",
    "DynamicResources": "DynamicResourcesArgs",
    "InterPodAffinity": "InterPodAffinityArgs",
    "NodeAffinity": "NodeAffinityArgs",
    "NodeResourcesBalancedAllocation": "NodeResourcesBalancedAllocationArgs",
    "NodeResourcesFit": "NodeResourcesFitArgs",
    "PodTopologySpread": "PodTopologySpreadArgs",
    "VolumeBinding": "VolumeBindingArgs",
}
KNOWN_EVENTS = {events.ASSIGNED_POD_ADD, events.ASSIGNED_POD_DELETE, events.RESOURCE_CLAIM_DEALLOCATED}


def problems(name: str, module: Any, cls_name: str, builtin: bool, line_points: tuple[str, ...] = ()) -> list[str]:
    """What the plugin ``name`` in ``module`` (class ``cls_name``) fails to declare."""
    facts = getattr(module, "FACTS", None)
    cls = getattr(module, cls_name, None)
    if cls is None:
        return [f"{name}: no class {cls_name}"]
    if facts is None:
        return [] if not builtin else [f"{name}: no FACTS"]
    if not isinstance(facts, PluginFacts):
        return [f"{name}: FACTS is not a PluginFacts"]
    out = []
    if facts.name != name or getattr(cls, "name", None) != name:
        out.append(f"{name}: FACTS.name / class name is {facts.name!r} / {getattr(cls, 'name', None)!r}")
    implemented = tuple(extension_points_of(cls))
    if not facts.points or facts.points != implemented:
        out.append(f"{name}: FACTS.points {facts.points} but the class implements {implemented}")
    if line_points and facts.points != line_points:
        out.append(f"{name}: FACTS.points {facts.points} but its registry line says {line_points}")
    if builtin and facts.events is None:
        out.append(f"{name}: no events (upstream's EventsToRegister; {{}} when only node events help)")
    for event, hint in (facts.events or {}).items():
        if event not in KNOWN_EVENTS or not callable(hint):
            out.append(f"{name}: event {event!r} is unknown or has no hint function")
    if builtin and "filter" in facts.points and facts.remedy is None:
        out.append(f"{name}: a filter plugin without a remedy")
    wanted_kind = UPSTREAM_ARGS_KINDS.get(name)
    got_kind = facts.args.kind if facts.args is not None else None
    if builtin and got_kind != wanted_kind:  # out-of-tree args are checked on the class (loader)
        out.append(f"{name}: args kind {got_kind!r}, upstream's is {wanted_kind!r}")
    if facts.args is not None:
        defaulted: dict[str, Any] = {}
        facts.args.defaults(defaulted)
        if facts.args.validate("", defaulted):
            out.append(f"{name}: its own defaulted args do not validate")
    return out


def _module_of(target: str) -> tuple[ModuleType, str]:
    module_name, _, cls_name = target.partition(":")
    return importlib.import_module(module_name), cls_name


@pytest.mark.parametrize("name", sorted(BUILTIN_PLUGINS))
def test_every_builtin_declares_its_facts(name: str) -> None:
    module, cls_name = _module_of(BUILTIN_PLUGINS[name])
    assert problems(name, module, cls_name, builtin=True) == []
    assert facts_of(name) is module.FACTS


@pytest.mark.parametrize("name", sorted(OUT_OF_TREE_PLUGINS))
def test_out_of_tree_facts_agree_with_their_registry_line(name: str) -> None:
    module, cls_name = _module_of(OUT_OF_TREE_PLUGINS[name])
    assert problems(name, module, cls_name, builtin=False, line_points=OUT_OF_TREE_EXTENSION_POINTS[name]) == []


def test_registry_and_upstream_names_agree() -> None:
    assert set(BUILTIN_PLUGINS) == names.IN_TREE_PLUGINS


def _good(**changes: Any) -> SimpleNamespace:
    """A module declaring a filter plugin completely, with ``changes`` made to its FACTS."""

    class Demo:
        name = "NodeName"

        def filter(self, state: Any, pod_info: Any, node_info: Any) -> None:
            return None

    fields = dict(name="NodeName", points=("filter",), events={}, remedy=lambda engine, scen, status: None)
    fields.update(changes)
    return SimpleNamespace(Demo=Demo, FACTS=PluginFacts(**fields))


def _no_facts() -> SimpleNamespace:
    module = _good()
    del module.FACTS
    return module


def _broken_args(path: str, args: dict) -> list:
    return ["always wrong"]


@pytest.mark.parametrize("module, builtin, expected", [
    (_good(), True, []),
    (_no_facts(), True, ["NodeName: no FACTS"]),
    (_no_facts(), False, []),  # an out-of-tree plugin may declare nothing
    (_good(name="Other"), True, ["NodeName: FACTS.name / class name is 'Other' / 'NodeName'"]),
    (_good(points=("preFilter", "filter")), True,
     ["NodeName: FACTS.points ('preFilter', 'filter') but the class implements ('filter',)"]),
    (_good(events=None), True, ["NodeName: no events (upstream's EventsToRegister; {} when only node events help)"]),
    (_good(events={"NodeAdd": events.always_queue}), True, ["NodeName: event 'NodeAdd' is unknown or has no hint function"]),
    (_good(remedy=None), True, ["NodeName: a filter plugin without a remedy"]),
    (_good(args=ArgsFacts("NodeNameArgs", lambda a: None, lambda p, a: [])), True,
     ["NodeName: args kind 'NodeNameArgs', upstream's is None"]),
    (_good(args=ArgsFacts("NodeNameArgs", lambda a: None, _broken_args)), False,
     ["NodeName: its own defaulted args do not validate"]),
], ids=["complete", "no-facts", "out-of-tree-without-facts", "name", "points", "events", "unknown-event", "remedy",
        "args-kind", "args-invalid"])
def test_problems_finds_each_missing_declaration(module: SimpleNamespace, builtin: bool, expected: list[str]) -> None:
    assert problems("NodeName", module, "Demo", builtin=builtin) == expected


def test_a_missing_args_declaration_is_found() -> None:
    module, cls_name = _module_of(BUILTIN_PLUGINS["PodTopologySpread"])
    without_args = SimpleNamespace(**{cls_name: getattr(module, cls_name)},
                                   FACTS=PluginFacts(**{**vars(module.FACTS), "args": None}))
    assert problems("PodTopologySpread", without_args, cls_name, builtin=True) == [
        "PodTopologySpread: args kind None, upstream's is 'PodTopologySpreadArgs'"]


@pytest.mark.parametrize("fields, message", [
    (dict(points=("filter", "Filter")), "unknown extension points ['Filter']"),
    (dict(points=("filter",), node_local=frozenset({"score"})), "node_local must be among its points"),
    (dict(points=("preFilter",), node_local=frozenset({"preFilter"})), "node_local must be among its points"),
])
def test_facts_refuse_impossible_points(fields: dict, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        PluginFacts(name="X", **fields)
