"""Remedies, one per default filter plugin: the change that would flip its verdict on one node
(kschedctl.scheduler.remedies explains the whole)."""

from __future__ import annotations

from typing import Any

from kschedctl.framework.status import Status
from kschedctl.framework.types import HostPortInfo, PodInfo
from kschedctl.k8s.resources import PODS
from kschedctl.k8s.node_selectors import node_selector_requirements_as_selector
from kschedctl.k8s.selectors import OP_DOES_NOT_EXIST, OP_EXISTS, OP_GT, OP_IN, OP_LT, OP_NOT_IN
from kschedctl.k8s.tolerations import find_matching_untolerated_taint, taint_to_string
from kschedctl.plugins.remedy import (
    TEXT_PODS,
    UNSCHEDULABLE_TAINT_KEY,
    Remedy,
    RemedyEngine as HintEngine,
    RemedyScenario as Scenario,
    Step,
    counts_text as _counts_text,
    dedupe as _dedupe,
    format_amount,
    impossible as _impossible,
    pods_text as _pods_text,
)


# ---------------------------------------------------------------------------------------------
# Remedies, one per default filter plugin
# ---------------------------------------------------------------------------------------------


def _node_resources_fit(engine: HintEngine, scen: Scenario, status: Status) -> Step | None:
    insufficient = (status.details or {}).get("insufficient") or []
    if not insufficient:
        return None
    texts, changes, short = [], [], []
    missing: dict[str, int] = {}
    unresolvable = False
    for d in insufficient:
        resource = d["resource"]
        need = d["requested"] - (d["capacity"] - d["used"])
        if need <= 0:
            continue
        missing[resource] = need
        unresolvable = unresolvable or bool(d.get("unresolvable"))
        if resource == PODS:
            texts.append(f"room for {need} more pod{'s' if need != 1 else ''} ({d['used']} of {d['capacity']} in use)")
        else:
            texts.append(f"{format_amount(resource, need, for_people=True)} more {resource}")
        changes.append({"kind": "raiseAllocatable", "node": scen.name, "resource": resource,
                        "by": format_amount(resource, need), "to": format_amount(resource, d["capacity"] + need)})
        short.append(need / max(d["capacity"], d["requested"], 1))
    if not changes:
        return None
    eviction = _eviction(engine, scen, missing, unresolvable)
    text = "needs " + " and ".join(texts)
    if eviction.get("possible"):
        text += f" (evicting lower-priority {_pods_text(eviction['pods'])} would free it)"
    elif unresolvable:
        text += " (over the node's whole allocatable: eviction cannot help)"
    alternatives = []
    if eviction.get("possible"):
        alternatives.append({"text": f"evict lower-priority {_pods_text(eviction['pods'], limit=100)}",
                             "changes": [{"kind": "removePods", "pods": list(eviction["pods"])}]})
    details = {"missing": {r: format_amount(r, n) for r, n in missing.items()}, "eviction": eviction}
    return Step(text, changes, details, max(short), alternatives, list(status.reasons))


def _eviction(engine: HintEngine, scen: Scenario, missing: dict[str, int], unresolvable: bool) -> dict:
    """Would evicting the node's lower-priority pods free ``missing``? The victims are chosen as
    preemption chooses them on one node: all lower-priority pods first, then the highest-priority
    ones reprieved while the rest still frees enough. PDBs are not looked at."""
    pod = engine.pod_info
    lower = [p for p in scen.node_info.pods if p.priority < pod.priority]
    policy = (pod.pod.get("spec") or {}).get("preemptionPolicy") or "PreemptLowerPriority"
    out: dict[str, Any] = {"possible": False, "lowerPriorityPods": len(lower), "preemptionPolicy": policy}
    if unresolvable or not lower:
        return out

    def freed(pods: list[PodInfo]) -> dict[str, int]:
        return {r: (len(pods) if r == PODS else sum(p.requests.get(r) for p in pods)) for r in missing}

    def enough(amounts: dict[str, int]) -> bool:
        return all(amounts[r] >= n for r, n in missing.items())

    if not enough(freed(lower)):
        return out
    victims = list(lower)
    for p in sorted(lower, key=lambda p: -p.priority):  # reprieve the most important first
        rest = [v for v in victims if v is not p]
        if enough(freed(rest)):
            victims = rest
    out["possible"] = True
    out["pods"] = sorted(v.key for v in victims)
    out["freed"] = {r: format_amount(r, n) for r, n in freed(victims).items()}
    if policy == "Never":
        out["note"] = "the pod's preemptionPolicy is Never: the scheduler will not evict them itself"
    return out


def _taint_toleration(engine: HintEngine, scen: Scenario, status: Status) -> Step | None:
    from kschedctl.plugins.helper import do_not_schedule_taints_filter

    taint = find_matching_untolerated_taint(scen.node_info.taints, scen.pod_info.tolerations,
                                            do_not_schedule_taints_filter)
    if taint is None:
        return None
    toleration = toleration_for(taint)
    text = taint_to_string(taint)
    return Step(f"needs a toleration for {text}",
                [{"kind": "addToleration", "toleration": toleration}],
                {"taints": [text]},
                alternatives=[{"text": f"remove the taint {text} from the node",
                               "changes": [{"kind": "removeNodeTaint", "node": scen.name, "taint": dict(taint)}]}],
                reasons=list(status.reasons))


def toleration_for(taint: dict) -> dict:
    """The narrowest toleration of ``taint``: key, value and effect (Exists when it has no value)."""
    tol: dict[str, Any] = {"key": taint.get("key") or ""}
    if taint.get("value"):
        tol["operator"] = "Equal"
        tol["value"] = taint["value"]
    else:
        tol["operator"] = "Exists"
    if taint.get("effect"):
        tol["effect"] = taint["effect"]
    return tol


def _node_unschedulable(engine: HintEngine, scen: Scenario, status: Status) -> Step | None:
    node = scen.node_info.node or {}
    if not (node.get("spec") or {}).get("unschedulable"):
        return None
    tol = {"key": UNSCHEDULABLE_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"}
    return Step("needs to be uncordoned (spec.unschedulable is true)",
                [{"kind": "uncordon", "node": scen.name}],
                {"unschedulable": True},
                alternatives=[{"text": f"add a toleration for {UNSCHEDULABLE_TAINT_KEY}:NoSchedule to the pod",
                               "changes": [{"kind": "addToleration", "toleration": tol}]}],
                reasons=list(status.reasons))


def _node_name(engine: HintEngine, scen: Scenario, status: Status) -> Step | None:
    wanted = scen.pod_info.node_name
    if not wanted or wanted == scen.name:
        return None
    return Step(f"is not the node the pod names (spec.nodeName: {wanted})",
                [{"kind": "setNodeName", "nodeName": scen.name}],
                {"nodeName": wanted},
                alternatives=[{"text": "remove spec.nodeName from the pod", "changes": [{"kind": "unsetNodeName"}]}],
                reasons=list(status.reasons))


def _node_affinity(engine: HintEngine, scen: Scenario, status: Status) -> Step | None:
    labels = dict(scen.node_info.labels)
    name = scen.name
    changes: list[dict] = []
    details: dict[str, Any] = {}
    texts: list[str] = []
    plugin = next((pl for n, _, pl in engine.filters if n == "NodeAffinity"), None)
    added = ((getattr(plugin, "args", None) or {}).get("addedAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution")
    if added is not None:
        found = _best_term(added.get("nodeSelectorTerms") or [], labels, name)
        if found is None:
            return _impossible("no term of the scheduler's addedAffinity can match this node by its labels",
                               status)
        term, label_changes = found
        if label_changes:
            details["addedAffinityTerm"] = term
        changes.extend(label_changes)
        _apply_labels(labels, label_changes)
    spec = scen.pod_info.pod.get("spec") or {}
    for key, value in (spec.get("nodeSelector") or {}).items():
        if labels.get(key) != value:
            changes.append({"kind": "setNodeLabel", "node": name, "key": key, "value": str(value)})
            labels[key] = str(value)
            details.setdefault("nodeSelector", {})[key] = value
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution")
    if isinstance(required, dict):
        found = _best_term(required.get("nodeSelectorTerms") or [], labels, name)
        if found is None:
            names = _named_nodes(required.get("nodeSelectorTerms") or [])
            if names:
                return Step(f"is not among the nodes the pod's node affinity names ({', '.join(names)})",
                            [{"kind": "addNodeAffinityName", "nodeName": name}],
                            {"matchFieldsNames": names}, shortfall=0.0, reasons=list(status.reasons))
            return _impossible("no required node affinity term of the pod can match this node", status)
        term, label_changes = found
        if label_changes:
            details["term"] = term
        changes.extend(label_changes)
    if not changes:
        return None
    for c in changes:
        if c["kind"] == "setNodeLabel":
            texts.append(f"label {c['key']}={c['value']}" if c["value"] else f"label {c['key']} (any value)")
        else:
            texts.append(f"label {c['key']} removed")
    return Step("needs " + " and ".join(_dedupe(texts)), changes, details, reasons=list(status.reasons))


def _best_term(terms: list, labels: dict, name: str) -> tuple[int, list[dict]] | None:
    """The term needing the fewest label changes to match (index, changes), None if none can."""
    best: tuple[int, list[dict]] | None = None
    for i, term in enumerate(terms):
        if not isinstance(term, dict) or (not term.get("matchExpressions") and not term.get("matchFields")):
            continue  # an empty term matches nothing, whatever the labels
        if not _fields_match(term.get("matchFields") or [], name):
            continue
        reqs = _requirements_in_order(term.get("matchExpressions") or [])
        if reqs is None:
            continue  # a term that does not parse never matches
        changes: list[dict] = []
        trial = dict(labels)
        ok = True
        for req in reqs:
            if req.matches(trial):
                continue
            change = _label_change_for(req, name)
            if change is None:
                ok = False
                break
            changes.append(change)
            _apply_labels(trial, [change])
        if not ok or not all(r.matches(trial) for r in reqs):
            continue
        if best is None or len(changes) < len(best[1]):
            best = (i, changes)
    return best


def _requirements_in_order(exprs: list) -> list | None:
    """The term's requirements in the order the user wrote them (the parsed selector sorts them)."""
    out = []
    for expr in exprs:
        selector, errors = node_selector_requirements_as_selector([expr])
        if errors or selector is None:
            return None
        out.extend(getattr(selector, "requirements", ()))
    return out


def _label_change_for(req: Any, node: str) -> dict | None:
    op, key, values = req.operator, req.key, list(req.values)
    if op in (OP_IN, "=", "=="):
        return {"kind": "setNodeLabel", "node": node, "key": key, "value": sorted(values)[0]} if values else None
    if op in (OP_NOT_IN, "!=", OP_DOES_NOT_EXIST):
        return {"kind": "removeNodeLabel", "node": node, "key": key}
    if op == OP_EXISTS:
        return {"kind": "setNodeLabel", "node": node, "key": key, "value": ""}
    if op in (OP_GT, OP_LT) and len(values) == 1:
        try:
            bound = int(values[0])
        except ValueError:
            return None
        return {"kind": "setNodeLabel", "node": node, "key": key, "value": str(bound + 1 if op == OP_GT else bound - 1)}
    return None


def _apply_labels(labels: dict, changes: list[dict]) -> None:
    for c in changes:
        if c["kind"] == "setNodeLabel":
            labels[c["key"]] = c["value"]
        elif c["kind"] == "removeNodeLabel":
            labels.pop(c["key"], None)


def _fields_match(fields: list, name: str) -> bool:
    for f in fields:
        if not isinstance(f, dict) or f.get("key") != "metadata.name":
            return False
        values = f.get("values") or []
        inside = name in values
        if (f.get("operator") == "In") != inside:
            return False
    return True


def _named_nodes(terms: list) -> list[str]:
    out: list[str] = []
    for term in terms:
        for f in (term or {}).get("matchFields") or ():
            if f.get("key") == "metadata.name" and f.get("operator") == "In":
                out.extend(v for v in f.get("values") or () if v not in out)
    return out


def _node_ports(engine: HintEngine, scen: Scenario, status: Status) -> Step | None:
    used = scen.node_info.used_ports
    holders: dict[str, list[str]] = {}
    for ip, protocol, port in scen.pod_info.host_ports:
        if not used.check_conflict(ip, protocol, port):
            continue
        label = f"{port}/{protocol or 'TCP'}" + (f" on {ip}" if ip and ip != "0.0.0.0" else "")
        for other in scen.node_info.pods:
            mine = HostPortInfo()
            for oip, oproto, oport in other.host_ports:
                mine.add(oip, oproto, oport)
            if len(mine) and mine.check_conflict(ip, protocol, port):
                holders.setdefault(label, []).append(other.key)
    if not holders:
        return None
    pods = sorted({k for keys in holders.values() for k in keys})
    parts = [f"host port {label} freed (held by {_pods_text(keys)})" for label, keys in holders.items()]
    return Step("needs " + " and ".join(parts), [{"kind": "removePods", "pods": pods}],
                {"ports": holders}, shortfall=len(pods) / max(len(scen.node_info.pods), 1),
                alternatives=[{"text": "use other hostPort values in the pod", "changes": []}],
                reasons=list(status.reasons))


def _pod_topology_spread(engine: HintEngine, scen: Scenario, status: Status) -> Step | None:
    from kschedctl.plugins.pod_topology_spread import PRE_FILTER_STATE_KEY
    from kschedctl.plugins.pod_topology_spread_common import count_pods_match_selector

    d = status.details or {}
    key = d.get("topologyKey")
    try:
        s = scen.state.read(PRE_FILTER_STATE_KEY)
    except KeyError:
        return None
    index = next((i for i, c in enumerate(s.constraints) if c.topology_key == key), None)
    if index is None:
        return None
    c = s.constraints[index]
    counts = dict(s.tp_value_to_match_num[index])
    if "skew" not in d:
        # The node lacks the topology key: give it the least filled domain's value.
        if not counts:
            return _impossible(f"no node has the topology key {key}", status)
        value = min(sorted(counts), key=lambda v: counts[v])
        return Step(f"needs label {key} (e.g. {key}={value}, the least filled domain)",
                    [{"kind": "setNodeLabel", "node": scen.name, "key": key, "value": value}],
                    {"constraint": c.to_dict(), "domainCounts": counts}, reasons=list(status.reasons))
    value = d["topologyValue"]
    excess = d["skew"] - d["maxSkew"]
    cache_key = ("pts", index, value)
    candidates = engine.memo.get(cache_key)
    if candidates is None:
        # Matching pods of the domain, as PreFilter counted them (namespace, not terminating,
        # node inclusion), lowest priority first; once per domain, not once per node.
        candidates = []
        for ni in engine.domain_nodes(key, value):
            if s.inclusion is not None and not s.inclusion.matches(c, ni):
                continue
            for p in ni.pods:
                if count_pods_match_selector((p,), c, engine.pod_info.namespace):
                    candidates.append(p)
        candidates.sort(key=lambda p: (p.priority, p.key))
        engine.memo[cache_key] = candidates
    chosen: list[PodInfo] = []
    for p in candidates:
        if len(chosen) >= excess:
            break
        if p.key not in scen.removed:
            chosen.append(p)
    details = {"constraint": c.to_dict(), "topologyValue": value, "skew": d["skew"], "maxSkew": d["maxSkew"],
               "minMatchNum": d.get("minMatchNum"), "domainCounts": counts,
               "domains": d.get("domains"), "minDomains": d.get("minDomains")}
    text = (f"needs {excess} fewer matching pod{'s' if excess != 1 else ''} in {key}={value} "
            f"(skew {d['skew']} > maxSkew {d['maxSkew']}; {_counts_text(counts)})")
    alternatives = [{"text": f"raise maxSkew of the {key} constraint to {d['skew']}",
                     "changes": [{"kind": "setMaxSkew", "topologyKey": key, "maxSkew": d["skew"]}]}]
    if len(chosen) < excess:
        return Step(text, [], details, shortfall=excess / max(d.get("matchNum") or 1, 1),
                    alternatives=alternatives, reasons=list(status.reasons))
    return Step(text, [{"kind": "removePods", "pods": [p.key for p in chosen]}], details,
                shortfall=excess / max(d.get("matchNum") or 1, 1), alternatives=alternatives,
                reasons=list(status.reasons))


def _inter_pod_affinity(engine: HintEngine, scen: Scenario, status: Status) -> Step | None:
    from kschedctl.plugins.inter_pod_affinity_filtering import (
        ERR_REASON_AFFINITY_RULES_NOT_MATCH,
        ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
        PRE_FILTER_STATE_KEY,
    )

    try:
        s = scen.state.read(PRE_FILTER_STATE_KEY)
    except KeyError:
        return None
    d = status.details or {}
    reason = status.reasons[0] if status.reasons else ""
    if reason == ERR_REASON_AFFINITY_RULES_NOT_MATCH:
        i = d.get("term", 0)
        if i >= len(s.affinity_terms):
            return None
        term = s.affinity_terms[i]
        key = term.topology_key
        domains = sorted({v for (k, v), n in s.affinity.counts.items() if k == key and n > 0})
        if d.get("missingTopologyKey"):
            if not domains:
                return _impossible(f"no node with label {key} runs a pod matching the affinity terms", status)
            return Step(f"needs label {key} (e.g. {key}={domains[0]}, where matching pods run)",
                        [{"kind": "setNodeLabel", "node": scen.name, "key": key, "value": domains[0]}],
                        {"term": i, "topologyKey": key, "domainsWithMatchingPods": domains},
                        reasons=list(status.reasons))
        labels = _labels_matching(s.affinity_terms)
        ns = sorted(term.namespaces)[0] if term.namespaces else engine.pod_info.namespace
        value = d.get("topologyValue")
        text = f"needs a pod matching {_selectors_text(s.affinity_terms)} in {key}={value}"
        if domains:
            more = " ..." if len(domains) > TEXT_PODS else ""
            text += f" (such pods run in {key}={', '.join(domains[:TEXT_PODS])}{more})"
        changes = [] if labels is None else [{"kind": "addPod", "node": scen.name, "namespace": ns,
                                              "name": "hint-affinity-peer", "labels": labels}]
        return Step(text, changes, {"term": i, "topologyKey": key, "topologyValue": value,
                                    "domainsWithMatchingPods": domains}, reasons=list(status.reasons))
    pair = (d.get("topologyKey"), d.get("topologyValue"))
    counts = s.anti if reason == ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH else s.existing_anti
    pods = [p for p in counts.pods_of(pair) if p not in scen.removed] or list(d.get("pods") or ())
    if not pods:
        return None
    if reason == ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH:
        text = f"needs {_pods_text(pods)} gone from {pair[0]}={pair[1]} (the pod's anti-affinity)"
    else:
        text = f"needs {_pods_text(pods)} gone from {pair[0]}={pair[1]} (their anti-affinity rejects the pod)"
    domain_pods = sum(len(ni.pods) for ni in engine.domain_nodes(pair[0], pair[1]))
    return Step(text, [{"kind": "removePods", "pods": pods}],
                {"topologyKey": pair[0], "topologyValue": pair[1], "pods": pods},
                shortfall=len(pods) / max(domain_pods, 1), reasons=list(status.reasons))


def _labels_matching(terms: list) -> dict | None:
    """Labels a new pod would need to match every term's selector (None when unclear)."""
    labels: dict[str, str] = {}
    for term in terms:
        sel = term.selector
        if getattr(sel, "nothing", False):
            return None
        for req in getattr(sel, "requirements", ()):
            if req.operator in (OP_IN, "=", "==") and req.values:
                labels.setdefault(req.key, sorted(req.values)[0])
            elif req.operator == OP_EXISTS:
                labels.setdefault(req.key, "x")
    for term in terms:
        if not term.selector.matches(labels):
            return None
    return labels


def _selectors_text(terms: list) -> str:
    return " and ".join(f"[{term.selector}]" for term in terms) or "[]"


def _volume_zone(engine: HintEngine, scen: Scenario, status: Status) -> Step | None:
    d = status.details or {}
    label, values = d.get("label"), d.get("volumeValues") or []
    if not label or not values:
        return None
    return Step(f"needs label {label} in ({', '.join(values)}) where PersistentVolume {d.get('volume')} is "
                f"(node has {d.get('nodeValue') if d.get('nodeValue') is not None else 'none'})",
                [{"kind": "setNodeLabel", "node": scen.name, "key": label, "value": values[0]}],
                dict(d), reasons=list(status.reasons))


def _volume_restrictions(engine: HintEngine, scen: Scenario, status: Status) -> Step | None:
    d = status.details or {}
    if d.get("pod"):
        pods = [d["pod"]]
        text = f"needs {d['pod']} gone (it uses the same disk as volume {d.get('volume')})"
    elif d.get("claims"):
        # The claims are names in the pod's namespace; a scheduled pod using one holds it.
        ns = engine.pod_info.namespace
        claims = {f"{ns}/{c}" for c in d["claims"]}
        memo_key = ("rwop", tuple(sorted(claims)))
        users = engine.memo.get(memo_key)
        if users is None:
            users = engine.memo[memo_key] = sorted(
                pi.key for ni in engine.snapshot.node_infos() for pi in ni.pods if claims & set(pi.pvc_keys))
        pods = [k for k in users if k not in scen.removed]
        if not pods:
            return None
        text = f"needs {_pods_text(pods)} gone (ReadWriteOncePod claim {', '.join(sorted(claims))} in use)"
    else:
        return None
    return Step(text, [{"kind": "removePods", "pods": pods}], dict(d), shortfall=len(pods) / max(
        len(scen.node_info.pods), 1), reasons=list(status.reasons))


def _node_volume_limits(engine: HintEngine, scen: Scenario, status: Status) -> Step | None:
    d = status.details or {}
    if "limit" not in d:
        return None
    over = d["attached"] + d["new"] - d["limit"]
    return Step(f"needs room for {over} more {d['driver']} volume{'s' if over != 1 else ''} "
                f"({d['attached']} attached + {d['new']} new > limit {d['limit']})",
                [{"kind": "raiseVolumeLimit", "node": scen.name, "driver": d["driver"],
                  "to": d["attached"] + d["new"]}],
                dict(d), shortfall=over / max(d["limit"], 1), reasons=list(status.reasons))


def _volume_binding(engine: HintEngine, scen: Scenario, status: Status) -> Step | None:
    d = status.details or {}
    facts = []
    if d.get("claim") and d.get("volume"):
        facts.append(f"claim {d['claim']} is bound to PersistentVolume {d['volume']}, whose node affinity "
                     f"excludes this node")
    elif d.get("claim") and d.get("selectedNode"):
        facts.append(f"claim {d['claim']} is already being provisioned for node {d['selectedNode']}")
    if d.get("unmatchedClaims"):
        facts.append(f"no available PersistentVolume for {', '.join(d['unmatchedClaims'])} fits this node")
    if not facts:
        return None
    # Advice only: volumes cannot be moved by a label change kschedctl could check.
    return Step("cannot get its volumes here: " + "; ".join(facts), [], dict(d), shortfall=1.0,
                reasons=list(status.reasons))


def _dynamic_resources(engine: HintEngine, scen: Scenario, status: Status) -> Step | None:
    d = status.details or {}
    if d.get("claims"):
        # Advice only: an allocated claim's devices are where they are.
        return Step(f"cannot use claim {', '.join(d['claims'])} here: it is allocated to devices whose node "
                    f"selector excludes this node", [], {"claims": list(d["claims"])}, shortfall=1.0,
                    reasons=list(status.reasons))
    gap = d.get("devices")
    if not hasattr(gap, "requests"):
        return None
    requests = gap.requests()
    short = []
    missing = needed_total = 0
    for r in requests:
        needed = r["needed"]
        if needed == "All":
            continue
        needed_total += needed
        if r["free"] < needed:
            missing += needed - r["free"]
            short.append(f"{r['request']} needs {needed} free device{'s' if needed != 1 else ''} of class "
                         f"{r['deviceClass']}" + (" matching its selectors" if r["matching"] != r["ofClass"] else "")
                         + f", has {r['free']} ({r['matching']} match, {r['matching'] - r['free']} in use)")
    if short:
        text = "needs more devices: " + "; ".join(short)
    else:
        text = ("no combination of the node's free matching devices satisfies the claims (constraints such as "
                "matchAttribute, an All request, or requests competing for the same devices)")
    return Step(text, [], {"requests": [{k: v for k, v in r.items() if k != "text"} for r in requests]},
                shortfall=missing / max(needed_total, 1) if short else 1.0, reasons=list(status.reasons))


#: plugin name -> remedy(engine, scenario, status) -> Step | None
REMEDIES: dict[str, Remedy] = {
    "NodeResourcesFit": _node_resources_fit,
    "TaintToleration": _taint_toleration,
    "NodeUnschedulable": _node_unschedulable,
    "NodeName": _node_name,
    "NodeAffinity": _node_affinity,
    "NodePorts": _node_ports,
    "PodTopologySpread": _pod_topology_spread,
    "InterPodAffinity": _inter_pod_affinity,
    "VolumeZone": _volume_zone,
    "VolumeRestrictions": _volume_restrictions,
    "NodeVolumeLimits": _node_volume_limits,
    "VolumeBinding": _volume_binding,
    "DynamicResources": _dynamic_resources,
}

