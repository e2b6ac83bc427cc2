"""Whether the process-level fast paths are on: ``KSCHEDCTL_NO_FAST_PATHS=1`` turns them off.

They change how fast kschedctl answers, never what it answers: the garbage collector off and no
interpreter teardown for one-shot commands (``kschedctl.cli.oneshot``), pod requests
computed once per pod template (``kschedctl.k8s.resources.pod_resources``), and pod
(anti-)affinity terms compiled once per template (``kschedctl.framework.types.PodInfo``). Turning them off
is how the tests check that the output stays byte for byte the same, and a way out should one
ever misbehave. Read once, when this module is first imported.
"""

from __future__ import annotations

import os

#: The environment variable that turns every fast path off ("1", "true" or "yes").
DISABLE_ENV = "KSCHEDCTL_NO_FAST_PATHS"

_ENABLED = os.environ.get(DISABLE_ENV, "").strip().lower() not in ("1", "true", "yes")


def fast_paths() -> bool:
    """True unless ``KSCHEDCTL_NO_FAST_PATHS`` turned the fast paths off for this process."""
    return _ENABLED
