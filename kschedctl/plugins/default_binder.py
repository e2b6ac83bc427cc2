"""DefaultBinder: binds the pod to the chosen node (here: says which Binding it would create).

Upstream: pkg/scheduler/framework/plugins/defaultbinder/default_binder.go (release-1.34).
Differences from upstream: kschedctl never writes to a cluster. Where upstream POSTs a
``Binding`` to the API server, this plugin returns Success with the Binding it would have
sent in the status ``details`` (upstream's only other outcome, an API error, cannot happen).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kschedctl.framework.interfaces import Plugin
from kschedctl.framework.status import Code, Status
from kschedctl.plugins import names
from kschedctl.plugins.facts import PluginFacts

if TYPE_CHECKING:  # pragma: no cover - typing only
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.types import PodInfo

NAME = names.DEFAULT_BINDER


class DefaultBinder(Plugin):
    """Bind: Success, with the ``v1.Binding`` upstream would create in ``details["binding"]``."""

    name = NAME

    def bind(self, state: "CycleState", pod_info: "PodInfo", node_name: str) -> Status | None:
        return Status(Code.Success, details={"binding": binding_for(pod_info, node_name)})


def binding_for(pod_info: "PodInfo", node_name: str) -> dict:
    """The Binding object upstream sends: the pod's namespace, name and uid, target the node."""
    return {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"namespace": pod_info.namespace, "name": pod_info.name, "uid": pod_info.uid},
        "target": {"kind": "Node", "name": node_name},
    }


# -- facts --------------------------------------------------------------------------------------


FACTS = PluginFacts(
    name=DefaultBinder.name,
    points=("bind",),
    # Only node events (or updates of the pod itself) can help; a batch has none.
    events={},
)
