"""A plugin that kschedctl refuses to load, to show the check (see the README's custom-plugin guide).

Its ``score`` forgets the ``node_info`` argument every Score call passes.
"""

from __future__ import annotations

from kschedctl.framework.interfaces import Plugin


class Broken(Plugin):
    name = "Broken"

    def score(self, state, pod_info):  # type: ignore[no-untyped-def]
        return 0, None
