"""InterPodAffinity's PreFilter counts and PreScore topology scores kept across the cycles of a run.

kschedctl's own: upstream walks the existing pods again in every PreFilter and PreScore, which
Go can afford. Each of those walks is a sum over nodes of a part that depends on one node and on
a few facts of the incoming pod (its signature):

- existing pods' required anti-affinity against the pod: its namespace, the labels some term
  reads (``_pod_key``) and namespace labels;
- the pod's own required affinity / anti-affinity counts: its terms (namespace selectors resolved);
- PreScore's topology scores: all of the above for the preferred terms, plus whether the pod has
  preferred terms (every pod of a node is visited, or only those with affinity).

Pods with one signature (the replicas of a workload) share the sums. Each node's part (its share)
is remembered with the NodeInfo generation it was taken at, and the next pod of the signature
brings the sums up to date from the process-wide NodeInfo change log (``NODE_CHANGES``): only the
nodes that changed since (a pod assumed or forgotten, a victim removed, a node relabelled) are
looked at again. A pod added to or removed from a node whose share is at the generation before
(the log's pod deltas) goes in or out of the share alone, its own items matched, instead of every
pod of the node (the incoming pod's required affinity counts, which count pods matching all
terms, take the node again). A reader that fell behind the log rebuilds its sums.

The sums are the numbers a fresh walk gives: pairs present exactly when a fresh walk has them
(the PreFilter counts drop pairs at 0; the score map keeps a pair while at least one term
matched there, whatever its sum, as upstream's map does), the same witnesses for the details.
Only the order of dict entries may differ, which nothing reads (the Filter checks look pairs up
by the node's labels, Score sums integers, the details sort the pod keys).

What a cycle gets is shared with the cache, not copied: the cache copies a dict (copy on write)
before it next changes one it handed out, and a ``TopologyCounts`` handed out copies itself
before its first update (AddPod/RemovePod run on clones anyway).

The sums are about one snapshot: its node list, which a snapshot never changes in place; another
list drops them all. A signature is summed from its second pod on (a single explain walks the
pods once, as upstream, without keeping anything).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Callable, Hashable, Mapping

from kschedctl.framework.types import NODE_CHANGES, TERM_LABEL_KEYS, AffinityTerm, WeightedAffinityTerm
from kschedctl.k8s.selectors import Selector
from kschedctl.plugins.inter_pod_affinity.filtering import Pair, TopologyCounts
from kschedctl.plugins.inter_pod_affinity.scoring import (
    ScoreMap,
    existing_pod_score_items,
    incoming_terms,
    node_score_items,
)

if TYPE_CHECKING:  # pragma: no cover - typing only
    from kschedctl.framework.types import NodeInfo, PodInfo

#: One node's part of PreFilter counts: ((topologyKey, value), pod key or "", count) items.
CountShare = tuple[tuple[Pair, str, int], ...]
#: One node's part of PreScore's map: (topologyKey, value, weight) items, one per matching term.
ScoreShare = tuple[tuple[str, str, int], ...]


class _Entry:
    """The sums of one signature: each node's share (by name, with its generation) and totals."""

    __slots__ = ("shares", "seen")

    def __init__(self) -> None:
        #: Node name -> (generation, share), for the nodes whose share is not empty.
        self.shares: dict[str, tuple[int, Any]] = {}
        self.seen = NODE_CHANGES.count

    def build(self, nodes: list["NodeInfo"], share_of: Callable[[Any], Any]) -> None:
        self.seen = NODE_CHANGES.count
        shares = self.shares
        for node_info in nodes:
            share = share_of(node_info)
            if share:
                shares[node_info.name] = (node_info.generation, share)
                self._apply(share, 1)

    def catch_up(self, by_name: dict[str, "NodeInfo"], share_of: Callable[[Any], Any],
                 pod_share_of: Callable[[Any, Any], Any] | None = None) -> bool:
        """Bring the shares of the snapshot's nodes that changed up to date; False when the log
        fell behind. A pod added to or removed from a node whose share is at the generation
        before goes in or out of it alone (``pod_share_of(node, pod)``: that pod's items);
        anything else (the node object changed, a pod whose items the share does not hold)
        takes the node's share again."""
        changed = NODE_CHANGES.deltas_since(self.seen)
        if changed is None:
            return False
        self.seen = NODE_CHANGES.count
        shares = self.shares
        #: generation of the nodes met here whose share is empty (they are not in ``shares``)
        empty_at: dict[str, int] = {}
        for node_info, pod, sign, before, after in changed:
            name = node_info.name
            if by_name.get(name) is not node_info:
                continue  # a scratch copy (nominated pods added, a preemption dry run), or another snapshot's
            old = shares.get(name)
            if old is not None:
                at, share = old
            else:
                # empty since the entry last looked: at the generation this first change started from
                at, share = empty_at.get(name, before), ()
            if at >= after:
                continue  # taken at or after this change
            new = None
            if pod is not None and pod_share_of is not None and at == before:
                items = pod_share_of(node_info, pod)
                new = share + items if sign > 0 else _without(share, items)
                if new is not None:
                    if items:
                        self._apply(items, sign)
                    at = after
            if new is None:
                at = node_info.generation
                new = share_of(node_info)
                if share:
                    self._apply(share, -1)
                if new:
                    self._apply(new, 1)
            if new:
                shares[name] = (at, new)
            else:
                if old is not None:
                    del shares[name]
                empty_at[name] = at
        return True

    def _apply(self, share: Any, sign: int) -> None:  # pragma: no cover - overridden
        raise NotImplementedError


class _CountsEntry(_Entry):
    """PreFilter counts: pair -> count (pairs at 0 dropped), and pair -> pod key -> count."""

    __slots__ = ("counts", "witnesses", "lent", "owned", "key_pairs")

    def __init__(self) -> None:
        super().__init__()
        self.counts: dict[Pair, int] = {}
        #: topologyKey -> how many of the counted pairs have it.
        self.key_pairs: dict[str, int] = {}
        self.witnesses: dict[Pair, dict[str, int]] = {}
        self.lent = False
        #: Pairs whose pod dict this entry copied since it last lent its dicts.
        self.owned: set[Pair] = set()

    def _apply(self, share: CountShare, sign: int) -> None:
        if self.lent:
            self.counts = dict(self.counts)
            self.witnesses = dict(self.witnesses)
            self.owned = set()
            self.lent = False
        counts, witnesses, owned, key_pairs = self.counts, self.witnesses, self.owned, self.key_pairs
        for pair, key, n in share:
            before = counts.get(pair, 0)
            total = before + sign * n
            if total:
                counts[pair] = total
                if not before:
                    key_pairs[pair[0]] = key_pairs.get(pair[0], 0) + 1
            else:
                del counts[pair]
                pairs_left = key_pairs[pair[0]] - 1
                if pairs_left:
                    key_pairs[pair[0]] = pairs_left
                else:
                    del key_pairs[pair[0]]
            if not key:
                continue
            pods = witnesses.get(pair)
            if pods is None:
                pods = witnesses[pair] = {}
                owned.add(pair)
            elif pair not in owned:
                pods = witnesses[pair] = dict(pods)
                owned.add(pair)
            left = pods.get(key, 0) + sign * n
            if left > 0:
                pods[key] = left
            else:
                del pods[key]
                if not pods:
                    del witnesses[pair]

    def lend(self, with_witnesses: bool) -> TopologyCounts:
        self.lent = True
        # Shares only add positive counts: every pair counted is above 0.
        return TopologyCounts(self.counts, self.witnesses if with_witnesses else None, shared=True,
                              keys=tuple(self.key_pairs))


class _ScoresEntry(_Entry):
    """PreScore's map: topologyKey -> value -> summed weight, with how many terms matched per pair
    (a pair stays in the map while any did, as upstream's, even when its weights sum to 0)."""

    __slots__ = ("scores", "hits", "lent", "owned")

    def __init__(self) -> None:
        super().__init__()
        self.scores: ScoreMap = {}
        self.hits: dict[Pair, int] = {}
        self.lent = False
        #: Topology keys whose value dict this entry copied since it last lent the map.
        self.owned: set[str] = set()

    def _apply(self, share: ScoreShare, sign: int) -> None:
        if self.lent:
            self.scores = dict(self.scores)
            self.owned = set()
            self.lent = False
        scores, hits, owned = self.scores, self.hits, self.owned
        for key, value, weight in share:
            values = scores.get(key)
            if values is None:
                values = scores[key] = {}
                owned.add(key)
            elif key not in owned:
                values = scores[key] = dict(values)
                owned.add(key)
            pair = (key, value)
            n = hits.get(pair, 0) + sign
            if n:
                hits[pair] = n
                values[value] = values.get(value, 0) + sign * weight
            else:
                del hits[pair]
                del values[value]
                if not values:
                    del scores[key]

    def lend(self) -> ScoreMap:
        self.lent = True
        return self.scores


#: Sums kept at once (each signature has one to three: existing pods' anti-affinity, PreScore's,
#: its own required terms'), least recently used dropped first. A run that takes every app's pods
#: in turn (a scale-down search, a mixed workload) cycles through tens of signatures: with a few
#: entries each would be walked afresh every time. An entry holds only the nodes where a term
#: matched, so many are cheap.
MAX_ENTRIES = 256


class IncrementalSums:
    """The plugin's sums per signature, over the node list of the snapshot in use (see above)."""

    __slots__ = ("_nodes", "_size", "_by_name", "_entries", "_seen_once", "max_entries")

    def __init__(self, max_entries: int | None = None) -> None:
        self._nodes: list | None = None
        self._size = -1
        self._by_name: dict[str, "NodeInfo"] | None = None
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()
        self._seen_once: OrderedDict[Hashable, None] = OrderedDict()
        self.max_entries = MAX_ENTRIES if max_entries is None else max_entries

    def _entry(
        self, key: Hashable, nodes: list["NodeInfo"], initial: Callable[[], list["NodeInfo"]],
        make: Callable[[], _Entry], share_of: Callable[[Any], Any],
        pod_share_of: Callable[[Any, Any], Any] | None = None,
    ) -> Any:
        """The current entry of ``key``, or None for a signature's first pod (or nodes that cannot
        be told apart by name)."""
        if nodes is not self._nodes or len(nodes) != self._size:
            self._nodes, self._size = nodes, len(nodes)
            by_name = {n.name: n for n in nodes}
            self._by_name = by_name if len(by_name) == len(nodes) else None
            self._entries.clear()
            self._seen_once.clear()
        by_name = self._by_name
        if by_name is None:
            return None
        entries = self._entries
        entry = entries.get(key)
        if entry is not None:
            entries.move_to_end(key)
            if entry.catch_up(by_name, share_of, pod_share_of):
                return entry
        elif key not in self._seen_once:
            self._seen_once[key] = None
            if len(self._seen_once) > 4 * self.max_entries:
                self._seen_once.popitem(last=False)
            return None
        entry = entries[key] = make()
        # Nodes outside ``initial`` have empty shares now; they are looked at when they change.
        entry.build(initial(), share_of)
        if len(entries) > self.max_entries:
            entries.popitem(last=False)
        return entry

    # --- PreFilter ------------------------------------------------------------------------------

    def existing_anti_affinity_counts(
        self, pod_info: "PodInfo", namespace_labels: Mapping[str, str], nodes: list["NodeInfo"],
        with_anti: Callable[[], list["NodeInfo"]],
    ) -> TopologyCounts | None:
        """``existing_anti_affinity_counts`` over ``with_anti()`` (the snapshot's nodes with pods
        with required anti-affinity), or None: then the caller walks them itself."""
        key = _pod_key(pod_info, namespace_labels)
        if key is None:
            return None

        def share_of(node_info: "NodeInfo") -> CountShare:
            return existing_anti_share(pod_info, namespace_labels, node_info)

        def pod_share_of(node_info: "NodeInfo", existing: "PodInfo") -> CountShare:
            if not existing.has_required_anti_affinity:
                return ()
            out: list = []
            _existing_anti_items(pod_info, namespace_labels, node_info.labels, existing, out)
            return tuple(out)

        entry = self._entry(("existing", key), nodes, with_anti, _CountsEntry, share_of, pod_share_of)
        return entry.lend(True) if entry is not None else None

    def incoming_affinity_counts(
        self, affinity_terms: list[AffinityTerm], anti_terms: list[AffinityTerm], nodes: list["NodeInfo"]
    ) -> tuple[TopologyCounts, TopologyCounts] | None:
        """``incoming_affinity_counts`` over ``nodes`` (terms with at least one term), or None."""
        key = _terms_key(affinity_terms, anti_terms)
        if key is None:
            return None
        affinity_entry = anti_entry = None
        if affinity_terms:
            aff_checks = [(t.namespaces, t.namespace_selector.matches({}), t.selector.matches) for t in affinity_terms]
            aff_keys = [t.topology_key for t in affinity_terms]

            def affinity_share(node_info: "NodeInfo") -> CountShare:
                return incoming_affinity_share(aff_checks, aff_keys, node_info)

            affinity_entry = self._entry(("affinity", key), nodes, lambda: nodes, _CountsEntry, affinity_share)
        if anti_terms:
            anti_checks = [
                (t.namespaces, t.namespace_selector.matches({}), t.selector.matches, t.topology_key)
                for t in anti_terms
            ]

            def anti_share(node_info: "NodeInfo") -> CountShare:
                return incoming_anti_share(anti_checks, node_info)

            def anti_pod_share(node_info: "NodeInfo", existing: "PodInfo") -> CountShare:
                labels = node_info.labels
                out: list = []
                _incoming_anti_items([c for c in anti_checks if c[3] in labels], labels, existing, out)
                return tuple(out)

            anti_entry = self._entry(("anti", key), nodes, lambda: nodes, _CountsEntry, anti_share, anti_pod_share)
        if (affinity_terms and affinity_entry is None) or (anti_terms and anti_entry is None):
            return None
        return (affinity_entry.lend(False) if affinity_entry is not None else TopologyCounts({}),
                anti_entry.lend(True) if anti_entry is not None else TopologyCounts(witnesses={}))

    # --- PreScore -------------------------------------------------------------------------------

    def topology_scores(
        self,
        pod_info: "PodInfo",
        preferred_affinity: list[WeightedAffinityTerm],
        preferred_anti_affinity: list[WeightedAffinityTerm],
        namespace_labels: Mapping[str, str],
        nodes: list["NodeInfo"],
        initial: Callable[[], list["NodeInfo"]],
        all_pods: bool,
        hard_pod_affinity_weight: int,
    ) -> ScoreMap | None:
        """``inter_pod_affinity.scoring.topology_scores`` over ``initial()`` (the nodes PreScore
        walks), or None. The map is shared: the caller must not change it."""
        pod_key = _pod_key(pod_info, namespace_labels)
        terms_key = _weighted_terms_key(preferred_affinity, preferred_anti_affinity)
        if pod_key is None or terms_key is None:
            return None
        incoming = incoming_terms(preferred_affinity, preferred_anti_affinity)

        def share_of(node_info: "NodeInfo") -> ScoreShare:
            return node_score_items(
                pod_info, incoming, namespace_labels, node_info, all_pods, hard_pod_affinity_weight
            )

        def pod_share_of(node_info: "NodeInfo", existing: "PodInfo") -> ScoreShare:
            labels = node_info.labels
            if not labels or not (all_pods or existing.has_affinity):
                return ()  # as node_score_items: a node without labels, a pod it does not visit
            out: list = []
            existing_pod_score_items(pod_info, incoming, namespace_labels, labels, existing,
                                     hard_pod_affinity_weight, out.append)
            return tuple(out)

        key = ("scores", pod_key, terms_key, all_pods, hard_pod_affinity_weight)
        entry = self._entry(key, nodes, initial, _ScoresEntry, share_of, pod_share_of)
        return entry.lend() if entry is not None else None


def _without(share: tuple, items: tuple) -> tuple | None:
    """``share`` with one of each of ``items`` taken out, or None when it lacks one of them."""
    if not items:
        return share
    left = list(share)
    try:
        for item in items:
            left.remove(item)
    except ValueError:
        return None
    return tuple(left)


# --- signatures ---------------------------------------------------------------------------------


def _pod_key(pod_info: "PodInfo", namespace_labels: Mapping[str, str]) -> Hashable | None:
    """What existing pods' terms read of the incoming pod; None when it cannot be a dict key.

    Of its labels, those some term's selector reads (``TERM_LABEL_KEYS``): a StatefulSet's
    replicas, which differ by their per-replica labels, then share the sums. A share taken for
    one pod of a key holds for another: the terms on that node read only keys known then, on
    which the two agree (a term reading a new key comes with a new pod, which changes its node)."""
    labels = pod_info.labels
    if not TERM_LABEL_KEYS.opaque:
        read = TERM_LABEL_KEYS.keys
        labels = {k: v for k, v in labels.items() if k in read}
    try:
        key = (pod_info.namespace, tuple(sorted(labels.items())), tuple(sorted(namespace_labels.items())))
        hash(key)
    except TypeError:
        return None
    return key


def _term_key(t: AffinityTerm) -> Hashable | None:
    """A namespace-resolved term of the incoming pod as a dict key; None when not plain selectors.
    Such terms are matched without namespace labels, so their namespace selector only says
    whether every namespace passes."""
    if type(t.selector) is not Selector:
        return None
    try:
        namespaces = frozenset(t.namespaces)
    except TypeError:
        return None
    return (namespaces, t.namespace_selector.matches({}), t.selector, t.topology_key)


def _terms_key(affinity_terms: list[AffinityTerm], anti_terms: list[AffinityTerm]) -> Hashable | None:
    parts = []
    for terms in (affinity_terms, anti_terms):
        out = []
        for t in terms:
            k = _term_key(t)
            if k is None:
                return None
            out.append(k)
        parts.append(tuple(out))
    return tuple(parts)


def _weighted_terms_key(
    preferred_affinity: list[WeightedAffinityTerm], preferred_anti_affinity: list[WeightedAffinityTerm]
) -> Hashable | None:
    parts = []
    for terms in (preferred_affinity, preferred_anti_affinity):
        out = []
        for wt in terms:
            k = _term_key(wt.term)
            if k is None:
                return None
            out.append((k, wt.weight))
        parts.append(tuple(out))
    return tuple(parts)


# --- one node's shares ----------------------------------------------------------------------------


def existing_anti_share(pod_info: "PodInfo", namespace_labels: Mapping[str, str], node_info: "NodeInfo") -> CountShare:
    """The node's part of ``existing_anti_affinity_counts``."""
    pods = node_info.pods_with_required_anti_affinity
    if not pods:
        return ()
    labels = node_info.labels
    out: list = []
    for existing in pods:
        _existing_anti_items(pod_info, namespace_labels, labels, existing, out)
    return tuple(out)


def _existing_anti_items(pod_info: "PodInfo", namespace_labels: Mapping[str, str], labels: Mapping[str, str],
                         existing: "PodInfo", out: list) -> None:
    """One existing pod's part of ``existing_anti_share`` on a node with ``labels``."""
    for term in existing.required_anti_affinity_terms:
        key = term.topology_key
        if key in labels and term.matches(pod_info, namespace_labels):
            out.append(((key, labels[key]), existing.key, 1))


def incoming_affinity_share(aff_checks: list, aff_keys: list[str], node_info: "NodeInfo") -> CountShare:
    """The node's part of ``incoming_affinity_counts``' affinity counts: the pods matching all
    terms, once per term whose topology key the node has."""
    labels = node_info.labels
    pairs = [(k, labels[k]) for k in aff_keys if k in labels]
    if not pairs:
        return ()
    matching = 0
    for existing in node_info.pods:
        ns = existing.namespace
        pod_labels = existing.labels
        for namespaces, all_ns, matches in aff_checks:
            if not ((all_ns or ns in namespaces) and matches(pod_labels)):
                break
        else:
            matching += 1
    if not matching:
        return ()
    return tuple((pair, "", matching) for pair in pairs)


def incoming_anti_share(anti_checks: list, node_info: "NodeInfo") -> CountShare:
    """The node's part of ``incoming_affinity_counts``' anti-affinity counts, per matching pod and term."""
    labels = node_info.labels
    here = [c for c in anti_checks if c[3] in labels]
    if not here:
        return ()
    out: list = []
    for existing in node_info.pods:
        _incoming_anti_items(here, labels, existing, out)
    return tuple(out)


def _incoming_anti_items(here: list, labels: Mapping[str, str], existing: "PodInfo", out: list) -> None:
    """One existing pod's part of ``incoming_anti_share``, for the checks whose key the node has."""
    ns = existing.namespace
    pod_labels = existing.labels
    for namespaces, all_ns, matches, key in here:
        if (all_ns or ns in namespaces) and matches(pod_labels):
            out.append(((key, labels[key]), existing.key, 1))
