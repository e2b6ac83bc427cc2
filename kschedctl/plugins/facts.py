"""What a plugin declares about itself, so that no table elsewhere has to describe it.

Each plugin module ends with ``FACTS = PluginFacts(...)``; the registry line pointing at the
module is the only other place a plugin is named. From the facts, and only from them:

- the registry and config defaulting know a plugin's extension points (``points``, config
  spelling, pipeline order) without building it, so ``multiPoint`` expands as upstream's, and
  the weight of a built-in in the default profile (``default_weight``);
- the scheduling queue knows which cluster events may make a pod the plugin rejected
  schedulable again, and asks the plugin's queueing hint (``events``, upstream's
  ``EventsToRegister`` restricted to the events a batch has);
- the simulator knows which extension points answer from the pod and one node's NodeInfo
  alone (``node_local``), and memoizes those answers per node generation;
- config decoding, defaulting and validation know the plugin's args (``args``: upstream's
  args kind, ``SetDefaults_<Kind>`` and ``Validate<Kind>`` with upstream's error texts);
- the remedy engine knows the change that would flip the plugin's Filter verdict
  (``remedy``, see :mod:`kschedctl.plugins.remedy`);
- simulate's node columns know the plugin's column twin, its Filter, Score or NormalizeScore
  for every node at once (``twin``, see :mod:`kschedctl.framework.twins`), and which of its
  answers read the pod and the node object only, to be kept per node object (``object_local``).

A custom plugin may declare nothing: it is then asked about every event (as upstream treats a
plugin without EnqueueExtensions), never memoized, has no remedy, and carries its args checks on
its class (``args_schema``, ``default_args``, ``validate_args``; see kschedctl.plugins.loader).
docs/adding-a-plugin.md walks through both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from kschedctl.framework.events import QueueingHintFn
from kschedctl.framework.interfaces import EXTENSION_POINTS
from kschedctl.framework.twins import ColumnTwin
from kschedctl.k8s.field import FieldError
from kschedctl.plugins.remedy import Remedy

#: Extension points whose answers the simulator can memoize per node.
NODE_LOCAL_POINTS = frozenset({"filter", "score"})


@dataclass(frozen=True)
class ArgsFacts:
    """A plugin's args kind in kubescheduler.config.k8s.io/v1 and upstream's functions on it.

    ``defaults(args)`` defaults a v1 args dict in place (``SetDefaults_<Kind>``);
    ``validate(path, args)`` returns upstream's field errors (``Validate<Kind>``; ``path`` is
    ``""`` for upstream's nil path). ``checked_by_config`` is False for the one validator
    ``ValidateKubeSchedulerConfiguration`` never runs (upstream keys NodeResourcesFit's under
    its args kind's name, so its args are only checked when kube-scheduler builds the plugin).
    """

    kind: str
    defaults: Callable[[dict[str, Any]], None]
    validate: Callable[[str, dict[str, Any]], list[FieldError]]
    checked_by_config: bool = True


@dataclass(frozen=True)
class PluginFacts:
    """Everything the tables outside a plugin need to know about it (see the module docstring).

    ``events`` maps each registered event to its queueing hint; ``{}`` registers none a batch
    has (only node events would help), ``None`` declares nothing (asked about every event).
    """

    name: str
    points: tuple[str, ...]
    events: Mapping[str, QueueingHintFn] | None = None
    node_local: frozenset[str] = field(default_factory=frozenset)
    args: ArgsFacts | None = None
    remedy: Remedy | None = None
    #: Its score weight in upstream's default profile (``getDefaultPlugins``); None: no weight.
    default_weight: int | None = None
    #: Its column twin (module beside the plugin, imported when simulate first asks), or None.
    twin: ColumnTwin | None = None
    #: Node-local points whose answer reads the pod and the node object only, never the node's
    #: pods (labels, taints, images): the columns keep the plugin's own answer per node object.
    object_local: frozenset[str] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        unknown = [p for p in self.points if p not in EXTENSION_POINTS]
        if unknown:
            raise ValueError(f"{self.name}: unknown extension points {unknown}")
        if not self.node_local <= NODE_LOCAL_POINTS or not self.node_local <= set(self.points):
            raise ValueError(f"{self.name}: node_local must be among its points and {sorted(NODE_LOCAL_POINTS)}")
        if not self.object_local <= self.node_local:
            raise ValueError(f"{self.name}: object_local must be among its node_local points")
        if self.twin is not None:
            covered = {"normalize": "score"}
            missing = [p for p in self.twin.points if covered.get(p, p) not in self.points]
            if missing or set(self.twin.points) & self.object_local:
                raise ValueError(f"{self.name}: its twin covers {list(self.twin.points)}: points it lacks "
                                 f"or answers per node object")
