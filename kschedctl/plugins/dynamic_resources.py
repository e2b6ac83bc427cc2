"""DynamicResources: kschedctl runs it for pods without resource claims, and refuses the others.

Upstream: pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go (release-1.34),
enabled in the default profile because DynamicResourceAllocation is GA in v1.34.

For a pod without ``spec.resourceClaims`` upstream's plugin has nothing to do, and kschedctl
reproduces exactly that: PreEnqueue admits the pod, PreFilter answers Skip (so its Filter does
not run), PostFilter takes release-1.34's fast path for a pod whose cycle state holds no claims
and answers Unschedulable with the reason ``no new claims to deallocate`` (which is why every
default-profile event of a v1.34 cluster carries that text before ``preemption: ...``), and
Reserve and PreBind do nothing. Read: release-1.34 ``dynamicresources.go`` (v1.34.x, imports
``fwk "k8s.io/kube-scheduler/framework"``); earlier copies of the file returned no reason. Allocating devices from ResourceSlices is not implemented: a pod
that has resource claims gets an ``Error`` at PreEnqueue naming this plugin, so its outcome is
``Error``, never a guess.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kschedctl.framework.interfaces import Plugin
from kschedctl.framework.status import Code, Status
from kschedctl.plugins import names

if TYPE_CHECKING:  # pragma: no cover - typing only
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.status import PostFilterResult, PreFilterResult
    from kschedctl.framework.types import NodeInfo, PodInfo

NAME = names.DYNAMIC_RESOURCES

#: PostFilter's reason for a pod without claims, word for word as release-1.34.
NO_NEW_CLAIMS_TO_DEALLOCATE = "no new claims to deallocate"

#: kschedctl's own message for what it cannot evaluate (not an upstream reason).
NOT_SUPPORTED = (
    "pod has resource claims (spec.resourceClaims): dynamic resource allocation is not supported "
    "by kschedctl yet"
)


def _claims(pod_info: "PodInfo") -> list[Any]:
    return (pod_info.pod.get("spec") or {}).get("resourceClaims") or []


class DynamicResources(Plugin):
    """No-op for pods without resource claims, exactly as upstream; Error for pods with claims."""

    name = NAME

    def pre_enqueue(self, pod_info: "PodInfo") -> Status | None:
        claims = _claims(pod_info)
        if not claims:
            return None
        return Status(
            Code.Error,
            NOT_SUPPORTED,
            details={"resourceClaims": [(c or {}).get("name", "") for c in claims]},
        )

    def pre_filter(
        self, state: "CycleState", pod_info: "PodInfo", nodes: list["NodeInfo"]
    ) -> "tuple[PreFilterResult | None, Status | None]":
        if not _claims(pod_info):
            return None, Status(Code.Skip)
        return None, Status(Code.Error, NOT_SUPPORTED)

    def filter(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> Status | None:
        # Only reached for a pod with claims whose PreFilter did not run (upstream errors too:
        # its state is missing); a pod without claims never gets here because of Skip.
        return None if not _claims(pod_info) else Status(Code.Error, NOT_SUPPORTED)

    def post_filter(
        self, state: "CycleState", pod_info: "PodInfo", filtered_node_status: Any
    ) -> "tuple[PostFilterResult | None, Status | None]":
        if not _claims(pod_info):
            return None, Status(Code.Unschedulable, NO_NEW_CLAIMS_TO_DEALLOCATE)
        return None, Status(Code.Error, NOT_SUPPORTED)

    def reserve(self, state: "CycleState", pod_info: "PodInfo", node_name: str) -> Status | None:
        return None

    def unreserve(self, state: "CycleState", pod_info: "PodInfo", node_name: str) -> None:
        return None

    def pre_bind(self, state: "CycleState", pod_info: "PodInfo", node_name: str) -> Status | None:
        return None
