"""CycleState: per-cycle scratch space shared by the plugins of one scheduling cycle.

Like upstream, plugins store what PreFilter/PreScore computed under their own key and read it
back in Filter/Score; ``clone`` gives preemption's dry runs their own copy.
"""

from __future__ import annotations

from typing import Any


class StateNotFound(KeyError):
    """Raised by ``read`` for a missing key (upstream's ``ErrNotFound``)."""


class CycleState:
    __slots__ = ("_data", "skip_filter_plugins", "skip_score_plugins", "record_plugin_metrics", "display_only")

    def __init__(self) -> None:
        self._data: dict[str, Any] = {}
        #: Plugins whose PreFilter returned Skip: their Filter does not run for this pod.
        self.skip_filter_plugins: set[str] = set()
        #: Plugins whose PreScore returned Skip: their Score does not run for this pod.
        self.skip_score_plugins: set[str] = set()
        self.record_plugin_metrics = False
        #: True while a filter runs only for the report (``--all-filters``, after the node's first
        #: rejection, where upstream stops): the plugin must record nothing a later extension
        #: point reads, so that showing every verdict cannot change the cycle's answer.
        self.display_only = False

    def read(self, key: str) -> Any:
        try:
            return self._data[key]
        except KeyError:
            raise StateNotFound(key) from None

    def write(self, key: str, value: Any) -> None:
        self._data[key] = value

    def delete(self, key: str) -> None:
        self._data.pop(key, None)

    def clone(self) -> "CycleState":
        """A copy whose values are cloned where they know how (``clone()``), shared otherwise."""
        copy = CycleState()
        for key, value in self._data.items():
            clone = getattr(value, "clone", None)
            copy._data[key] = clone() if callable(clone) else value
        copy.skip_filter_plugins = set(self.skip_filter_plugins)
        copy.skip_score_plugins = set(self.skip_score_plugins)
        return copy


#: CycleState key of the pods a plugin asks the scheduler to move to activeQ (upstream
#: framework.PodsToActivateKey).
PODS_TO_ACTIVATE_KEY = "kubernetes.io/pods-to-activate"


class PodsToActivate:
    """Pods (by ``namespace/name``) to move to activeQ at the end of a successful scheduling or
    binding cycle; the scheduler writes an empty one into every CycleState.

    ``clone`` returns the same object, as upstream's does: what a plugin adds during a
    preemption dry run or any cloned state still reaches the scheduler.
    """

    __slots__ = ("map",)

    def __init__(self) -> None:
        self.map: dict[str, dict] = {}

    def clone(self) -> "PodsToActivate":
        return self
