"""sample-plugin: the seed articles' sample plugin, with its args, that lets every pod through.

From "Kubernetes 调度器实现原理(六)" and "调度框架 Scheduling Framework" (after
cnych/sample-scheduler-framework): PreFilter and Filter only log and succeed; PreBind looks the
chosen node up in the snapshot and fails with ``prebind get node: <node> info error: <err>``
when it is not there. Its args are ``SampleArgs``: ``favorite_color`` (string),
``favorite_number`` (integer) and ``thanks_to`` (string), all optional (Go ``omitempty``).

Differences: the Go plugin logs through klog; this one keeps what it saw on the instance
(``seen``) for tests and examples. One of the articles' configurations spells the args
``favorColor``/``favorNumber``/``thanksTo``, which the Go JSON tags would silently drop; here
the schema forbids unknown keys, so ``kschedctl validate`` reports such a typo.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from kschedctl.framework.interfaces import Plugin
from kschedctl.framework.status import Code, PreFilterResult, Status

if TYPE_CHECKING:  # pragma: no cover
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.types import NodeInfo, PodInfo

NAME = "sample-plugin"


class SamplePlugin(Plugin):
    """Passes every pod (PreFilter, Filter, PreBind); built from SampleArgs (favorite_color, favorite_number, thanks_to)."""

    name = NAME
    args_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "favorite_color": {"type": "string"},
            "favorite_number": {"type": "integer"},
            "thanks_to": {"type": "string"},
        },
        "additionalProperties": False,
    }
    default_args: ClassVar[dict[str, Any]] = {}

    def __init__(self, args: dict | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        args = args or {}
        self.favorite_color: str = args.get("favorite_color", "")
        self.favorite_number: int = args.get("favorite_number", 0)
        self.thanks_to: str = args.get("thanks_to", "")
        self.seen: list[str] = []

    def pre_filter(self, state: "CycleState", pod_info: "PodInfo",
                   nodes: list["NodeInfo"]) -> tuple[PreFilterResult | None, Status | None]:
        self.seen.append(f"prefilter pod: {pod_info.name}")
        return None, None

    def filter(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> Status | None:
        self.seen.append(f"filter pod: {pod_info.name}, node: {node_info.name}")
        return Status(Code.Success, "")

    def pre_bind(self, state: "CycleState", pod_info: "PodInfo", node_name: str) -> Status | None:
        snapshot = self.handle.snapshot() if self.handle is not None else None
        try:
            if snapshot is None:
                raise KeyError(f'nodeinfo not found for node name "{node_name}"')
            node_info = snapshot.get(node_name)
        except KeyError as exc:
            return Status(Code.Error, f"prebind get node: {node_name} info error: {_text(exc)}")
        self.seen.append(f"prebind node info: {node_info.name}")
        return Status(Code.Success, "")


def _text(exc: KeyError) -> str:
    text = str(exc)
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] == "'" else text
