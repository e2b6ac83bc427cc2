"""The switchboard of kschedctl's fast paths: one ``FastPaths`` settings object turns them off.

Every fast path changes how fast kschedctl answers, never what it answers. ``KSCHEDCTL_NO_FAST_PATHS=1``
turns all of them off for the process; a run can be given its own settings
(``Simulator(fast_paths=...)``; ``memoize=False`` turns off those of the run). Turning them off is
how the tests check that the output stays byte for byte the same (tests/test_fast_paths.py), and
a way out should one ever misbehave.

Decided once per process, when the module reading them is imported (``template_memos``,
``process_shortcuts``' one-shot exit), or per run, when a simulator or plugin is built (the others).
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from typing import Iterator

#: The environment variable that turns every fast path off ("1", "true" or "yes").
DISABLE_ENV = "KSCHEDCTL_NO_FAST_PATHS"


@dataclass(frozen=True)
class FastPaths:
    """Which fast paths are on (all by default)."""

    #: Pod requests computed once per pod template (``kschedctl.k8s.resources.pod_resources``) and
    #: pod (anti-)affinity terms compiled once per template (``kschedctl.framework.types.PodInfo``).
    template_memos: bool = True
    #: Pods read from a cluster hold one copy of the spec parts, labels and owner references
    #: they share with other pods (``kschedctl.inputs.sharing``).
    shared_parts: bool = True
    #: The objects of a large JSON file checked at C speed against types made from the field
    #: schema and the shapes (``kschedctl.inputs.json_gate``); those it accepts skip the Python
    #: walks of the same checks. Read when a file is loaded.
    typed_gate: bool = True
    #: A large JSON file holding one value decoded by msgspec rather than ``json``
    #: (``kschedctl.inputs.loader._whole_value``): the same values, a third less time.
    msgspec_decode: bool = True
    #: The garbage collector off and no interpreter teardown for one-shot commands
    #: (``kschedctl.cli.oneshot``); the collector off during a simulate or capacity run.
    process_shortcuts: bool = True
    #: simulate's and capacity's answers of node-local plugins memoized per pod signature and node
    #: generation, the nodes every pod of a signature was rejected by, DefaultPreemption's victims
    #: per node (``kschedctl.scheduler.simulate._LeanFramework``).
    memos: bool = True
    #: simulate's node columns: the plugins' column twins answer for every node at once
    #: (``kschedctl.scheduler.columns``, ``kschedctl.framework.twins``); they need ``memos``.
    columns: bool = True
    #: InterPodAffinity's counts kept across the cycles of a run (``inter_pod_affinity.incremental``).
    incremental_affinity: bool = True
    #: PodTopologySpread's PreFilter counts kept per kind of pod, only changed nodes recounted.
    spread_cache: bool = True

    @classmethod
    def off(cls) -> "FastPaths":
        """Every fast path off."""
        return cls(**{f.name: False for f in fields(cls)})

    def without_run_paths(self) -> "FastPaths":
        """These settings with the fast paths a run decides (all but the process ones) off."""
        return replace(self, memos=False, columns=False, incremental_affinity=False, spread_cache=False)


def _from_environment() -> FastPaths:
    off = os.environ.get(DISABLE_ENV, "").strip().lower() in ("1", "true", "yes")
    return FastPaths.off() if off else FastPaths()


#: The process's settings, from the environment (read when this module is first imported).
PROCESS = _from_environment()
_current = PROCESS


def settings() -> FastPaths:
    """The settings in force: the process's, or those of the run being built (``using``)."""
    return _current


@contextmanager
def using(paths: FastPaths) -> Iterator[FastPaths]:
    """Build (or run) something with ``paths`` in force; the previous settings come back after."""
    global _current
    previous = _current
    _current = paths
    try:
        yield paths
    finally:
        _current = previous


def fast_paths() -> bool:
    """True unless ``KSCHEDCTL_NO_FAST_PATHS`` turned the fast paths off for this process."""
    return PROCESS.template_memos
