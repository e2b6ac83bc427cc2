"""What a scenario file may make kschedctl do: the trust boundary of ``kschedctl test``.

Scenario files often come from a pull request, so by default they may only name files inside
the scenario root (the git repository the given paths live in; outside one, the working
directory when the paths are under it, or else the directory given),
with symlinks resolved before the check, and their configurations' extenders are not called:
an extender is an HTTP request to any address the CI runner can reach, carrying the pod and
the node list. ``--allow-outside-paths`` and ``--allow-extenders`` (all, or URL prefixes) lift
these rules for people who trust their scenarios.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from kschedctl.errors import InputError


def scenario_root(path: str, cwd: str | None = None) -> str:
    """The git repository holding ``path``; outside one, the working directory when ``path`` is in
    it (``kschedctl test profiles/`` run from an unpacked project), else ``path``'s directory."""
    start = os.path.realpath(path)
    directory = start if os.path.isdir(start) else os.path.dirname(start)
    probe = directory
    while True:
        if os.path.exists(os.path.join(probe, ".git")):
            return probe
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    here = os.path.realpath(cwd or os.getcwd())
    return here if _inside(directory, here) else directory


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


@dataclass(frozen=True)
class TrustPolicy:
    """Which files and extenders a run of scenarios may use.

    ``roots`` None: any file; ``extender_prefixes`` None: every extender, () none.
    """

    roots: tuple[str, ...] | None = None
    extender_prefixes: tuple[str, ...] | None = None
    reasons: dict[str, str] = field(default_factory=dict, compare=False)

    @classmethod
    def for_paths(cls, paths: Iterable[str], allow_outside_paths: bool = False, allow_extenders: bool = False,
                  extender_prefixes: Sequence[str] = ()) -> "TrustPolicy":
        """The policy of ``kschedctl test PATHS``: roots found from the paths given."""
        roots = None if allow_outside_paths else tuple(sorted({scenario_root(p) for p in paths}))
        prefixes = None if allow_extenders else tuple(extender_prefixes)
        return cls(roots, prefixes)

    def check_file(self, path: str) -> None:
        """InputError if ``path`` (or, for a directory, a file in it) resolves outside the roots."""
        if self.roots is None:
            return
        real = os.path.realpath(path)
        if not any(_inside(real, root) for root in self.roots):
            raise InputError(f"{path} is outside the scenario root {self._roots_text()}; "
                             "pass --allow-outside-paths to read it")
        if os.path.isdir(real):
            for directory, dirs, names in os.walk(real):
                for name in sorted(dirs + names):
                    entry = os.path.join(directory, name)
                    target = os.path.realpath(entry)
                    if not any(_inside(target, root) for root in self.roots):
                        raise InputError(f"{entry} links outside the scenario root "
                                         f"{self._roots_text()}; pass --allow-outside-paths to read it")

    def refused_extenders(self, extenders: Iterable[Any]) -> list[str]:
        """The URL prefixes of ``extenders`` (configuration dicts) this policy does not let kschedctl call."""
        if self.extender_prefixes is None:
            return []
        refused = []
        for ext in extenders:
            url = str((ext or {}).get("urlPrefix", ""))
            if not any(url.startswith(prefix) for prefix in self.extender_prefixes):
                refused.append(url)
        return refused

    def _roots_text(self) -> str:
        return ", ".join(self.roots or ())


#: No rule: what library callers get unless they ask for one.
TRUST_EVERYTHING = TrustPolicy()
