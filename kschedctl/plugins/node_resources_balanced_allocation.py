"""NodeResourcesBalancedAllocation: favour nodes whose resources would be used evenly.

Follows upstream kube-scheduler v1.34
``pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go`` with the shared
``resourceAllocationScorer`` (``kschedctl.plugins.resource_allocation``).

For each configured resource (default cpu and memory) the fraction
``(node's requested + pod's request) / allocatable`` is taken, capped at 1 (plain requests,
not the non-zero defaults NodeResourcesFit scores with); the score is
``int((1 - std) * 100)`` of those fractions, where two fractions give ``std = |f1 - f2| / 2``
and more give the population standard deviation. Resources the node has no allocatable of,
and scalar resources the pod does not request, are left out.

PreScore returns Skip when the pod requests none of the configured resources (best-effort
pods, kubernetes#129138), so Score does not run for it; without PreScore, Score gives such a
pod 0 everywhere. Weights in ``resources`` must be 1 (upstream validation) and are not used.

Differences from upstream: none known. DRA-backed extended resources (DRAExtendedResource,
alpha and off in v1.34) are not scored, as with the gate off.
"""

from __future__ import annotations

from typing import ClassVar, Any

from kschedctl.errors import InputError
from kschedctl.framework.cycle_state import StateNotFound
from kschedctl.framework.interfaces import Plugin
from kschedctl.framework.status import Code, Status
from kschedctl.framework.twins import ColumnTwin
from kschedctl.k8s.field import FieldError, child, duplicate, index, invalid
from kschedctl.plugins.facts import ArgsFacts, PluginFacts
from kschedctl.plugins.helper import int_field
from kschedctl.plugins.names import NODE_RESOURCES_BALANCED_ALLOCATION
from kschedctl.plugins.resource_allocation import (
    ResourceAllocationScorer,
    aggregate_errors,
    balanced_resource_scorer,
    default_resources,
    resource_specs,
)

NAME = NODE_RESOURCES_BALANCED_ALLOCATION

#: CycleState key, as upstream names it.
PRE_SCORE_STATE_KEY = "PreScore" + NAME


class NodeResourcesBalancedAllocation(Plugin):
    """PreScore + Score: ``(1 - std of the usage fractions) * 100``."""

    name: ClassVar[str] = NAME

    def __init__(self, args: dict | None = None, handle=None) -> None:
        super().__init__(args, handle)
        try:
            resources = resource_specs((args or {}).get("resources"), "resources")
        except InputError as err:
            raise InputError(f"{NAME} args: {err.message}") from None
        errors: list[str] = []
        seen: set[str] = set()
        for i, (res, weight) in enumerate(resources):
            if res in seen:
                errors.append(f'resources[{i}].name: Duplicate value: "{res}"')
            seen.add(res)
            if weight != 1:
                errors.append(f"resources[{i}].weight: Invalid value: {weight}: must be 1")
        if errors:
            raise InputError(f"{NAME} args: {aggregate_errors(errors)}")
        self.scorer = ResourceAllocationScorer(NAME, resources, balanced_resource_scorer, use_requested=True)

    def pre_score(self, state, pod_info, nodes) -> Status | None:
        plan = self.scorer.plan_for(pod_info)
        if self.scorer.is_best_effort(plan.pod_requests):
            # Upstream skips best-effort pods so they do not all pile onto one node.
            return Status(Code.Skip)
        state.write(PRE_SCORE_STATE_KEY, plan)
        return None

    def score(self, state, pod_info, node_info) -> tuple[int, Status | None]:
        try:
            plan = state.read(PRE_SCORE_STATE_KEY)
        except StateNotFound:
            plan = self.scorer.plan_for(pod_info)
            if self.scorer.is_best_effort(plan.pod_requests):
                return 0, None
        return self.scorer.score(node_info, plan)


# -- facts --------------------------------------------------------------------------------------


def default_config_args(a: dict[str, Any]) -> None:
    """``SetDefaults_NodeResourcesBalancedAllocationArgs`` on a v1 args dict, in place."""
    resources = a.get("resources")
    if not resources:
        a["resources"] = default_resources()
        return
    for r in resources:
        if not r.get("weight"):
            r["weight"] = 1


def validate_config_args(path: str, a: dict[str, Any]) -> list[FieldError]:
    """``ValidateNodeResourcesBalancedAllocationArgs``: upstream's field errors under ``path``."""
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, r in enumerate(a.get("resources") or []):
        name = r.get("name") or ""
        p = index(child(path, "resources"), i)
        if name in seen:
            errs.append(duplicate(child(p, "name"), name))
        else:
            seen.add(name)
        w = int_field(r, "weight")
        if w != 1:
            errs.append(invalid(child(p, "weight"), w, "must be 1"))
    return errs


FACTS = PluginFacts(
    name=NodeResourcesBalancedAllocation.name,
    points=("preScore", "score"),
    # Only node events (or updates of the pod itself) can help; a batch has none.
    events={},
    node_local=frozenset({"score"}),
    args=ArgsFacts("NodeResourcesBalancedAllocationArgs", default_config_args, validate_config_args),
    default_weight=1,
    twin=ColumnTwin("kschedctl.plugins.node_resources_balanced_allocation_columns", ("score",)),
)
