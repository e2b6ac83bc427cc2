"""NodeResourcesAllocatable: favour nodes with the least (or most) allocatable resources.

Port of kubernetes-sigs/scheduler-plugins ``pkg/noderesources/allocatable.go`` and
``resource_allocation.go`` (v0.34.7). Score is the weighted mean of the node's allocatable
amounts of the configured resources (cpu in millicores, others in units), negated in mode
``Least``: ``sum(±allocatable[r] * weight[r]) / sum(weight)`` (Go integer division, truncated
toward zero). The pod's requests are computed as upstream does but do not change the score.
NormalizeScore maps the lowest raw score to 0 and the highest to 100 (all 0 when equal).

Args (``NodeResourcesAllocatableArgs``): ``mode`` ``Least`` (default) or ``Most``;
``resources`` (default ``[{name: cpu, weight: 1048576}, {name: memory, weight: 1}]``, i.e. a
millicore weighs as much as a MiB). Validated as upstream's
``ValidateNodeResourcesAllocatableArgs``: every weight positive, mode Least or Most.

Differences: none known. A node whose allocatable lacks a resource scores 0 for it, as upstream.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from kschedctl.framework.interfaces import NodeScore, Plugin
from kschedctl.framework.status import Code, Status
from kschedctl.k8s.resources import CPU, EPHEMERAL_STORAGE, MEMORY, is_scalar_resource_name
from kschedctl.plugins.helper import go_div
from kschedctl.plugins.loader import validated, with_defaults
from kschedctl.plugins.seeds.pod_capacity_of_node import min_max_normalize
from kschedctl.plugins.facts import PluginFacts

if TYPE_CHECKING:  # pragma: no cover
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.types import NodeInfo, PodInfo

NAME = "NodeResourcesAllocatable"

LEAST = "Least"
MOST = "Most"


class NodeResourcesAllocatable(Plugin):
    """Scores nodes by their weighted allocatable resources: mode Least prefers small nodes, Most large ones."""

    name = NAME
    default_args: ClassVar[dict[str, Any]] = {
        "mode": LEAST,
        "resources": [{"name": "cpu", "weight": 1 << 20}, {"name": "memory", "weight": 1}],
    }
    # Upstream decodes args strictly: unknown fields are errors.
    args_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "mode": {"type": "string"},
            "resources": {"type": "array", "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "weight": {"type": "integer"}},
                "required": ["name"],
            }},
        },
    }

    def __init__(self, args: dict | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        given = dict(args or {})
        if not given.get("mode"):
            given["mode"] = LEAST
        if not given.get("resources"):
            given.pop("resources", None)
        merged = with_defaults(self.default_args, given)
        validated(self, merged)
        self.mode: str = merged["mode"]
        self.weights: dict[str, int] = {}
        for r in merged["resources"]:
            self.weights[r["name"]] = int(r.get("weight") or 0)
        self._weight_sum = sum(self.weights.values())

    @staticmethod
    def validate_args(args: dict) -> list[tuple[str, str, str]]:
        """Upstream ValidateNodeResourcesAllocatableArgs (field paths relative to the args)."""
        out = []
        for i, r in enumerate(args.get("resources") or ()):
            weight = r.get("weight", 0) if isinstance(r, dict) else 0
            if not isinstance(weight, int) or weight <= 0:
                name = r.get("name", "") if isinstance(r, dict) else ""
                out.append((f"resources[{i}].weight", "Invalid",
                            f"Invalid value: {weight}: resource weight of {name} should be a positive value, "
                            f"got :{weight}"))
        mode = args.get("mode", LEAST) or LEAST
        if mode not in (LEAST, MOST):
            out.append(("mode", "Invalid", f'Invalid value: "{mode}": invalid support ModeType'))
        return out

    def score(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status | None]:
        if node_info.node is None:
            return 0, Status(Code.Error, "node not found")
        allocatable = node_info.allocatable
        sign = -1 if self.mode == LEAST else 1 if self.mode == MOST else 0
        total = 0
        for resource, weight in self.weights.items():
            total += sign * _allocatable(allocatable, resource) * weight
        return go_div(total, self._weight_sum) if self._weight_sum else 0, None

    def normalize_score(self, state: "CycleState", pod_info: "PodInfo", scores: list[NodeScore]) -> Status | None:
        min_max_normalize(scores)
        return None


def _allocatable(allocatable: Any, resource: str) -> int:
    if resource in (CPU, MEMORY, EPHEMERAL_STORAGE):
        return allocatable.get(resource)
    if is_scalar_resource_name(resource):
        return allocatable.scalar_resources.get(resource, 0)
    return 0  # upstream ignores other resources (pods, unknown names)


# -- facts --------------------------------------------------------------------------------------

FACTS = PluginFacts(
    name=NodeResourcesAllocatable.name,
    points=("score",),
    # No events: scheduler-plugins' EventsToRegister is not modelled, so the queue asks it about every
    # event (a pod it rejected is retried after any change, never fewer times than upstream would).
)
