"""PreferLabel: a custom kschedctl plugin to copy and start from.

It scores nodes by a label: nodes whose label ``key`` has one of the ``preferred`` values score
100, others 0; with ``required: true`` it also filters out nodes without such a value.

Try it:

    kschedctl validate --plugin examples/custom-plugin/prefer_label.py:PreferLabel \
        examples/custom-plugin/profile.yaml
    kschedctl explain --plugin examples/custom-plugin/prefer_label.py:PreferLabel \
        -c examples/custom-plugin/profile.yaml --cluster fixtures/cluster fixtures/pods/pod.yaml

What kschedctl expects of a plugin (checked when it is loaded, with exit code 2 naming
``file.py:Class`` if something is wrong):
- a class attribute ``name``: the name profiles enable it by;
- construction as ``Class(args, handle)``: ``args`` is the plugin's ``pluginConfig`` args
  (a dict, or None when the profile gives none), ``handle.snapshot()`` the NodeInfos of this
  cycle, ``handle.cluster()`` every object of the cluster, ``handle.nominated_pods_for_node()``;
- any of the extension-point methods of ``kschedctl.framework.interfaces`` with their
  arguments (``filter(state, pod_info, node_info)``, ``score(state, pod_info, node_info)``,
  ``normalize_score(state, pod_info, scores)``, ...), returning a ``Status`` (or None for
  Success) with upstream's codes;
- optionally ``args_schema`` (JSON Schema of the args, checked by ``kschedctl validate``) and
  ``default_args``.
An exception a method raises does not stop kschedctl: the call becomes an Error status naming
the plugin and the exception, and the report still shows everything else.
"""

from __future__ import annotations

from typing import Any, ClassVar

from kschedctl.framework.interfaces import MAX_NODE_SCORE, Plugin
from kschedctl.framework.status import Code, Status


class PreferLabel(Plugin):
    """Scores nodes whose label `key` has a preferred value 100 (others 0); `required` also filters."""

    name = "PreferLabel"
    default_args: ClassVar[dict[str, Any]] = {"key": "topology.kubernetes.io/zone", "preferred": [],
                                              "required": False}
    args_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "key": {"type": "string", "minLength": 1},
            "preferred": {"type": "array", "items": {"type": "string"}},
            "required": {"type": "boolean"},
        },
        "additionalProperties": False,
    }

    def __init__(self, args: dict | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        merged = {**self.default_args, **(args or {})}
        self.key: str = merged["key"]
        self.preferred: frozenset[str] = frozenset(merged["preferred"])
        self.required: bool = bool(merged["required"])

    def _prefers(self, node_info: Any) -> bool:
        return node_info.labels.get(self.key) in self.preferred

    def filter(self, state: Any, pod_info: Any, node_info: Any) -> Status | None:
        if self.required and not self._prefers(node_info):
            # Unschedulable: preemption could not change a label, so say it cannot be resolved.
            return Status(Code.UnschedulableAndUnresolvable, f"node(s) didn't have a preferred {self.key}")
        return None

    def score(self, state: Any, pod_info: Any, node_info: Any) -> tuple[int, Status | None]:
        return (MAX_NODE_SCORE if self._prefers(node_info) else 0), None
