"""InterPodAffinity's sums brought up to date from the change log's pod deltas (#46).

Each case takes the sums of one incoming pod over a small snapshot, applies a list of changes to
its NodeInfos and takes them again: existing pods' anti-affinity counts (with the pods counted),
the incoming pod's anti-affinity counts and PreScore's map must equal a fresh walk, and a pod
added or removed must go in or out of its node's share alone (no node's share taken again),
while a node object set or removed, a scratch copy's change or an overrun log fall back to
taking the changed nodes' shares again.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest

from kschedctl.framework.types import NODE_CHANGES, NodeInfo, PodInfo
from kschedctl.plugins.inter_pod_affinity import filtering, scoring
from kschedctl.plugins.inter_pod_affinity import incremental
from kschedctl.plugins.inter_pod_affinity.incremental import IncrementalSums

HOST, ZONE = "kubernetes.io/hostname", "topology.kubernetes.io/zone"


def _node(i: int, zone: str | None) -> dict:
    labels = {HOST: f"n{i}"}
    if zone is not None:
        labels[ZONE] = zone
    return {"metadata": {"name": f"n{i}", "labels": labels}}


def _term(app: str, key: str) -> dict:
    return {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key}


def _pod(name: str, app: str, affinity: dict | None = None) -> PodInfo:
    spec: dict[str, Any] = {}
    if affinity:
        spec["affinity"] = affinity
    return PodInfo({"metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "labels": {"app": app}},
                    "spec": spec})


def _anti_web(name: str) -> PodInfo:
    """A running pod with required anti-affinity to app web per host (counts against the incoming)."""
    return _pod(name, "db", {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [_term("web", HOST)]}})


def _likes_web(name: str) -> PodInfo:
    """A running pod with preferred affinity to app web per zone (scores the incoming)."""
    return _pod(name, "cache", {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 7, "podAffinityTerm": _term("web", ZONE)}]}})


# The incoming pod: app web, required anti-affinity to app db per host, preferred anti-affinity
# to app queue per zone.
_INCOMING = _pod("incoming", "web", {"podAntiAffinity": {
    "requiredDuringSchedulingIgnoredDuringExecution": [_term("db", HOST)],
    "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 5, "podAffinityTerm": _term("queue", ZONE)}]}})

Change = Callable[[list[NodeInfo]], None]


def _add(i: int, pod: PodInfo) -> Change:
    return lambda infos: infos[i].add_pod(pod)


def _remove(i: int, name: str) -> Change:
    return lambda infos: infos[i].remove_pod(next(p for p in infos[i].pods if p.name == name))


def _relabel(i: int, zone: str | None) -> Change:
    return lambda infos: infos[i].set_node(_node(i, zone))


def _remove_node(i: int) -> Change:
    return lambda infos: infos[i].remove_node()


def _on_copy(i: int, pod: PodInfo) -> Change:
    return lambda infos: infos[i].clone().add_pod(pod)


def _overrun(infos: list[NodeInfo]) -> None:
    spare = NodeInfo(_node(99, "z0"))
    for _ in range(NODE_CHANGES.deltas.maxlen + 1):
        spare.remove_node()


# (case, changes, shares taken again: None when not asserted)
CASES: list[tuple[str, list[Change], int | None]] = [
    ("pod with anti-affinity against it added", [_add(1, _anti_web("a1"))], 0),
    ("pod with anti-affinity against it removed", [_remove(0, "e-anti")], 0),
    ("pod it is anti to added and removed", [_add(2, _pod("a1", "db")), _add(3, _pod("a2", "db")),
                                             _remove(2, "a1")], 0),
    ("pod scoring it added", [_add(4, _likes_web("a1"))], 0),
    ("pod scoring it removed", [_remove(1, "e-likes")], 0),
    ("pod it scores added, on a node without the zone", [_add(5, _pod("a1", "queue"))], 0),
    ("pod matching nothing added", [_add(3, _pod("a1", "other"))], 0),
    ("same pod in and out twice", [_add(2, _anti_web("a1")), _remove(2, "a1"), _add(2, _anti_web("a1"))], 0),
    ("node moved zone", [_add(1, _pod("a1", "queue")), _relabel(1, "z9"), _add(1, _likes_web("a2"))], None),
    ("node object removed", [_remove_node(0), _add(0, _pod("a1", "db"))], None),
    ("change on a scratch copy", [_on_copy(2, _anti_web("a1"))], 0),
    ("log overrun", [_add(3, _anti_web("a1")), _overrun, _add(4, _pod("a2", "queue"))], None),
]


def _snapshot() -> list[NodeInfo]:
    infos = [NodeInfo(_node(i, f"z{i % 2}" if i < 5 else None)) for i in range(6)]
    infos[0].add_pod(_anti_web("e-anti"))
    infos[0].add_pod(_pod("e-db", "db"))
    infos[1].add_pod(_likes_web("e-likes"))
    infos[2].add_pod(_pod("e-queue", "queue"))
    infos[3].add_pod(_pod("e-web", "web"))
    return infos


@pytest.mark.parametrize("case, changes, retaken", CASES, ids=[c[0] for c in CASES])
def test_sums_from_pod_deltas_equal_fresh_walks(monkeypatch: pytest.MonkeyPatch, case: str,
                                                changes: list[Change], retaken: int | None) -> None:
    infos = _snapshot()
    sums = IncrementalSums()
    anti_terms = list(_INCOMING.required_anti_affinity_terms)
    preferred_anti = list(_INCOMING.preferred_anti_affinity_terms)

    def with_anti() -> list[NodeInfo]:
        return [n for n in infos if n.pods_with_required_anti_affinity]

    def kept() -> tuple:
        existing = sums.existing_anti_affinity_counts(_INCOMING, {}, infos, with_anti)
        incoming = sums.incoming_affinity_counts([], anti_terms, infos)
        scores = sums.topology_scores(_INCOMING, [], preferred_anti, {}, infos, lambda: infos, True, 1)
        if existing is None or incoming is None or scores is None:
            return None, None, None
        return _counted(existing), _counted(incoming[1]), scores

    def fresh() -> tuple:
        existing = filtering.existing_anti_affinity_counts(_INCOMING, {}, with_anti())
        _, anti = filtering.incoming_affinity_counts([], anti_terms, infos)
        scores = scoring.topology_scores(_INCOMING, [], preferred_anti, {}, infos, True, 1)
        return _counted(existing), _counted(anti), scores

    assert kept() == (None, None, None)  # a signature's first pod: walked, nothing kept
    assert kept() == fresh()
    taken: list[str] = []
    for name in ("existing_anti_share", "incoming_anti_share", "node_score_items"):
        real = getattr(incremental, name)

        def counting(*args: Any, _real: Any = real, _name: str = name) -> Any:
            taken.append(_name)
            return _real(*args)

        monkeypatch.setattr(incremental, name, counting)
    for change in changes:
        change(infos)
        assert kept() == fresh(), case
    if retaken is not None:
        assert len(taken) == retaken, taken
    assert fresh()[0] or fresh()[1] or fresh()[2]  # something is counted


def _counted(counts: filtering.TopologyCounts) -> dict:
    """The counts and, per pair, the pods counted (what Filter and its details read)."""
    return {pair: (n, counts.pods_of(pair)) for pair, n in counts.counts.items()}


def test_a_share_lacking_the_removed_pods_items_is_taken_again() -> None:
    """A removal the node's share cannot account for (its items are not all in the share) takes
    the node's share again rather than leaving the sums off."""
    assert incremental._without((("k", "v", 1), ("k", "v", 2)), (("k", "v", 2),)) == (("k", "v", 1),)
    assert incremental._without((("k", "v", 1),), (("k", "v", 1), ("k", "v", 1))) is None
    assert incremental._without((), ()) == ()
