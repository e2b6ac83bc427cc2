"""Behaviour fingerprint of the scheduling hot paths: run it before and after a speed change.

    python3 -m benchmarks.equivalence            # one digest per workload, then a combined one
    python3 -m benchmarks.equivalence --verbose  # also the outcome counts
    python3 -m benchmarks.equivalence --check    # compare with the committed expectation (CI does)
    python3 -m benchmarks.equivalence > benchmarks/equivalence.expected   # regenerate it

The expectation, ``benchmarks/equivalence.expected``, is this command's output at the last
change of behaviour; tests/test_equivalence_digests.py checks it. A speed change leaves it as it
is; a change of behaviour regenerates it in the same commit, saying why the digests moved.

Each workload of ``benchmarks.simulate`` (plus a few variants that reach the scoring and
preemption paths the default ones do not) is simulated at a small size with a fixed seed; the
``SimulationResult`` JSON (timings removed) is hashed. Then a few probe pods are explained
against the cluster as the simulation left it, with every filter run, and their ``ExplainResult``
JSON (per-node statuses, details, raw and normalized scores, the chosen node, preemption
candidates) is hashed too. An optimization that changes no behaviour leaves every digest as it
was; any change in a verdict, reason, score, message, detail or random draw shows up.
"""

from __future__ import annotations

import argparse
import copy
import difflib
import hashlib
import json
import sys
from pathlib import Path
from typing import Any, Callable

from benchmarks.simulate import (
    WORKLOADS,
    _cluster,
    anti_affinity,
    deployment_anti_affinity,
    deployment_preemption,
    deployment_rollout_affinity_cluster,
    deployment_rollout,
    deployment_zone_spread,
    preemption,
    resource_claim_template,
    scheduling_basic,
    topology_spreading,
)
from benchmarks.synthetic import node, perf_pod, topology_spread_spec

SEED = 7

#: The digests at the last change of behaviour (see the module's docstring).
EXPECTED = Path(__file__).with_name("equivalence.expected")


def _soft_spread(n: int, init: int, measure: int):
    """ScheduleAnyway zone + hostname spreading (PreScore/Score/NormalizeScore of PodTopologySpread)."""
    nodes, init_pods, _, classes = topology_spreading(n, init, 0)
    for i, p in enumerate(init_pods):
        if i % 3 == 0:
            p["metadata"]["labels"] = {"color": "blue"}
    spec = {"topologySpreadConstraints": [
        {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway",
         "labelSelector": {"matchLabels": {"color": "blue"}}},
        {"maxSkew": 2, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
         "labelSelector": {"matchLabels": {"color": "blue"}}}]}
    pods = [perf_pod(f"soft-{i:06d}", labels={"color": "blue"}, extra_spec=copy.deepcopy(spec)) for i in range(measure)]
    return nodes, init_pods, pods, classes


def _preferred_affinity(n: int, init: int, measure: int):
    """Preferred affinity / anti-affinity both ways plus required zone affinity (InterPodAffinity scoring)."""
    nodes = [node(i) for i in range(n)]
    names = [x["metadata"]["name"] for x in nodes]
    pref = {"affinity": {
        "podAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "topology.kubernetes.io/zone"}],
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 10, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "db"}},
                                                   "topologyKey": "kubernetes.io/hostname"}}]},
        "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 5, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "web"}},
                                              "topologyKey": "kubernetes.io/hostname"}}]}}}
    init_pods = []
    for i in range(init):
        labels = {"app": "db"} if i % 7 == 0 else {"app": "web"} if i % 5 == 0 else {"app": "bench"}
        extra = copy.deepcopy(pref) if i % 11 == 0 else None
        init_pods.append(perf_pod(f"init-{i:06d}", node_name=names[(i * 13) % n], labels=labels, extra_spec=extra))
    pods = [perf_pod(f"web-{i:06d}", labels={"app": "web"}, extra_spec=copy.deepcopy(pref)) for i in range(measure)]
    return nodes, init_pods, pods, {}


def _mixed_preemption(n: int, init: int, measure: int):
    """Preemption with anti-affinity and spreading victims (PreFilter extensions in the dry run)."""
    nodes, init_pods, pods, classes = preemption(n, init, measure)
    for i, p in enumerate(init_pods):
        if i % 4 == 0:
            p["metadata"]["labels"] = {"color": "green"}
            p["spec"].update(copy.deepcopy({"affinity": {"podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"color": "red"}}, "topologyKey": "kubernetes.io/hostname"}]}}}))
    for i, p in enumerate(pods):
        p["metadata"]["labels"] = {"color": "red" if i % 3 == 0 else "blue"}
        p["spec"].update(topology_spread_spec(max_skew=3, labels={"color": "blue"}))
    return nodes, init_pods, pods, classes


def _preemption_pdb(n: int, init: int, measure: int):
    """Preemption with three priorities, PodDisruptionBudgets and host ports (violating victims,
    reprieves, nominated pods of several priorities competing)."""
    nodes, init_pods, pods, classes = preemption(n, init, measure)
    classes = dict(classes, mid={**classes["low"], "metadata": {"name": "mid"}, "value": 5})
    for i, p in enumerate(init_pods):
        p["metadata"]["labels"] = {"app": "db" if i % 3 == 0 else "web"}
        if i % 5 == 0:
            p["spec"]["priorityClassName"] = "mid"
            p["spec"].pop("priority", None)
    for i, p in enumerate(pods):
        p["spec"]["containers"][0]["resources"]["requests"]["cpu"] = ["3000m", "1800m", "900m"][i % 3]
        p["spec"]["containers"][0]["resources"]["limits"]["cpu"] = ["3000m", "1800m", "900m"][i % 3]
        if i % 4 == 1:
            p["spec"]["priorityClassName"] = "mid"
        if i % 7 == 0:
            p["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 8080}]
    pdbs = [{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
             "metadata": {"name": "db", "namespace": "default"},
             "spec": {"selector": {"matchLabels": {"app": "db"}}}, "status": {"disruptionsAllowed": 0}},
            {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
             "metadata": {"name": "web", "namespace": "default"},
             "spec": {"selector": {"matchLabels": {"app": "web"}}}, "status": {"disruptionsAllowed": 1}}]
    classes["__pdbs__"] = pdbs
    return nodes, init_pods, pods, classes


#: name -> (builder, nodes, initial pods, measured pods)
CASES: dict[str, tuple[Callable, int, int, int]] = {
    "SchedulingBasic": (scheduling_basic, 500, 100, 150),
    "TopologySpreading": (topology_spreading, 500, 500, 150),
    "SchedulingPodAntiAffinity": (anti_affinity, 300, 100, 150),
    "PreemptionBasic": (preemption, 150, 600, 60),
    "SoftSpreading": (_soft_spread, 300, 300, 100),
    "PreferredAffinity": (_preferred_affinity, 300, 400, 100),
    "MixedPreemption": (_mixed_preemption, 150, 600, 40),
    "PreemptionPDB": (_preemption_pdb, 120, 480, 80),
    # Rollouts of a Deployment (owner references: the system default spreading applies).
    "DeploymentRollout": (deployment_rollout, 300, 1500, 150),
    "DeploymentZoneSpread": (deployment_zone_spread, 300, 1500, 150),
    "DeploymentAntiAffinity": (deployment_anti_affinity, 300, 1500, 150),
    "DeploymentPreemption": (deployment_preemption, 150, 600, 40),
    # Dynamic Resource Allocation: claims from a template, devices taken pod after pod.
    "SchedulingWithResourceClaimTemplate": (resource_claim_template, 100, 300, 150),
    # A rollout among running pods that carry anti-affinity and spread constraints.
    "DeploymentRolloutAffinityCluster": (deployment_rollout_affinity_cluster, 300, 1500, 150),
}
assert set(WORKLOADS) <= set(CASES)
#: The Dynamic Resource Allocation cases (their own combined line).
DRA_CASES = ("SchedulingWithResourceClaimTemplate",)
#: Cases added after the rollouts' line was pinned (their own line).
LATER_CASES = ("DeploymentRolloutAffinityCluster",)
#: The cases whose combined digest has been pinned the longest; later cases get their own line.
ORIGINAL_CASES = ("SchedulingBasic", "TopologySpreading", "SchedulingPodAntiAffinity", "PreemptionBasic",
                  "SoftSpreading", "PreferredAffinity", "MixedPreemption", "PreemptionPDB")


def _strip(obj: Any) -> Any:
    """Drop wall-clock fields, which differ run to run, and report-only counts added later (tieBreaks)."""
    if isinstance(obj, dict):
        return {k: _strip(v) for k, v in obj.items() if k not in ("seconds", "tieBreaks")}
    if isinstance(obj, list):
        return [_strip(v) for v in obj]
    return obj


def _digest(obj: Any) -> str:
    text = json.dumps(_strip(obj), sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def run_case(name: str, config: Any, verbose: bool = False) -> tuple[str, str]:
    from kschedctl.inputs.cluster import admit
    from kschedctl.analyses.explain import Explainer
    from kschedctl.scheduler.simulate import Simulator

    build, n, init, measure = CASES[name]
    nodes, init_pods, pods, classes = build(n, init, measure)
    probes = copy.deepcopy(pods[:3])
    for i, p in enumerate(probes):
        p["metadata"]["name"] = f"probe-{i}"
        p["metadata"]["uid"] = f"uid-probe-{i}"
    pdbs = classes.pop("__pdbs__", None)

    def make_cluster(bound: list[dict]) -> Any:
        cluster = _cluster(nodes, bound, classes)
        if pdbs:
            cluster.pdbs = {f"default/{x['metadata']['name']}": x for x in pdbs}
        return cluster

    # The same batch without any of the simulator's memos (``memoize=False``) must agree.
    unmemoized = copy.deepcopy(pods)
    cluster = make_cluster(copy.deepcopy(init_pods))
    plain = Simulator(cluster, copy.deepcopy(config), seed=SEED, memoize=False).run(
        [admit(p, cluster) for p in unmemoized], admit_pods=False, include_cluster_pending=False)
    cluster = make_cluster(init_pods)
    sim = Simulator(cluster, copy.deepcopy(config), seed=SEED)
    batch = [admit(p, cluster) for p in pods]
    result = sim.run(batch, admit_pods=False, include_cluster_pending=False)
    sim_digest = _digest(result.to_dict())
    if _digest(plain.to_dict()) != sim_digest:
        print(f"  {name}: MISMATCH between memoize=True and memoize=False")
        sim_digest += "!memo-mismatch"
    if verbose:
        print(f"  {name}: {result.counts()} preemptions={len(result.preemptions)} cycles={result.cycles}")

    # Probes against the cluster as the batch left it (placed pods bound, victims gone).
    placed = [p for p in batch if (p.get("spec") or {}).get("nodeName")]
    victims = {v for rec in result.preemptions for v in rec.victims}
    kept = [p for p in init_pods if f"{p['metadata']['namespace']}/{p['metadata']['name']}" not in victims]
    after = make_cluster(kept + [p for p in placed if f"default/{p['metadata']['name']}" not in victims])
    explainer = Explainer(after, copy.deepcopy(config), seed=SEED, all_filters=True)
    probe_results = [explainer.explain(p).to_dict() for p in probes]
    return sim_digest, _digest(probe_results)


def fuzz_caches(rounds: int, seed: int = 1) -> int:
    """Differential check of the PreFilter count caches (and InterPodAffinity's PreScore sums)
    against a fresh walk, on random clusters changed at random between cycles (pods added and
    removed, nodes relabelled, lists changed).
    Returns the number of mismatches (printed)."""
    import random

    from kschedctl.framework.types import NodeInfo, PodInfo
    from kschedctl.plugins import inter_pod_affinity as ipa_plugin
    from kschedctl.plugins.inter_pod_affinity import filtering as ipa
    from kschedctl.plugins.inter_pod_affinity import incremental as ipa_incremental
    from kschedctl.plugins.inter_pod_affinity import scoring as ipa_scoring
    from kschedctl.plugins.pod_topology_spread import filtering as pts
    from kschedctl.plugins.pod_topology_spread.common import filter_constraints

    rng = random.Random(seed)
    colors, namespaces = ["red", "blue", "green"], ["default", "other"]
    failures = 0

    def make_node(i: int) -> dict:
        labels = {"kubernetes.io/hostname": f"n{i}"}
        if rng.random() < 0.85:
            labels["zone"] = rng.choice(["a", "b", "c"])
        if rng.random() < 0.3:
            labels["disk"] = "ssd"
        spec = {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]} if rng.random() < 0.1 else {}
        return {"metadata": {"name": f"n{i}", "labels": labels}, "spec": spec,
                "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}

    serial = iter(range(10**9))

    def make_pod(node_name: str | None = None) -> PodInfo:
        k = next(serial)
        color = rng.choice(colors)
        spec: dict = {"containers": [{"name": "c"}]}
        if node_name:
            spec["nodeName"] = node_name

        def term() -> dict:
            t: dict = {"labelSelector": {"matchLabels": {"color": rng.choice(colors)}},
                       "topologyKey": rng.choice(["kubernetes.io/hostname", "zone"])}
            if rng.random() < 0.2:
                t["namespaceSelector"] = {} if rng.random() < 0.5 else {"matchLabels": {"team": "x"}}
            return t

        affinity: dict = {}
        if rng.random() < 0.3:
            affinity["podAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": [term()]}
        if rng.random() < 0.15:
            affinity["podAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": [term()]}
        if rng.random() < 0.2:
            affinity.setdefault("podAffinity", {})["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": rng.randint(1, 100), "podAffinityTerm": term()}]
        if rng.random() < 0.2:
            affinity.setdefault("podAntiAffinity", {})["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": rng.randint(1, 100), "podAffinityTerm": term()}]
        if affinity:
            spec["affinity"] = affinity
        if rng.random() < 0.2:
            spec["nodeSelector"] = {"disk": "ssd"}
        meta = {"name": f"p{k}", "namespace": rng.choice(namespaces), "uid": f"u{k}", "labels": {"color": color}}
        if rng.random() < 0.05:
            meta["deletionTimestamp"] = "2024-01-01T00:00:00Z"
        return PodInfo({"metadata": meta, "spec": spec})

    def spread(when: str, key: str, honor_taints: bool) -> list[dict]:
        c = {"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": when,
             "labelSelector": {"matchLabels": {"color": rng.choice(colors)}}}
        if honor_taints:
            c["nodeTaintsPolicy"] = "Honor"
        return [c]

    compared = 0
    ns_objects = {"other": {"metadata": {"name": "other", "labels": {"team": "x"}}}}
    for round_ in range(rounds):
        # A snapshot's node list never changes in place: a node joining or leaving makes a new list.
        nodes = [NodeInfo(make_node(i)) for i in range(rng.randint(1, 25))]
        for _ in range(rng.randint(0, 60)):
            ni = rng.choice(nodes)
            ni.add_pod(make_pod(ni.name))
        pts_cache, ipa_sums = pts.PreFilterCache(max_entries=3), ipa_incremental.IncrementalSums(max_entries=3)
        kinds = [make_pod() for _ in range(4)]
        shapes = [spread("DoNotSchedule", rng.choice(["zone", "kubernetes.io/hostname"]), rng.random() < 0.5)
                  + (spread("DoNotSchedule", "zone", False) if rng.random() < 0.3 else []) for _ in kinds]
        handed_out: list = []
        for cycle in range(40):
            # change the cluster
            for _ in range(rng.randint(0, 3)):
                op = rng.random()
                ni = rng.choice(nodes)
                if op < 0.5:
                    ni.add_pod(make_pod(ni.name))
                elif op < 0.8 and ni.pods:
                    ni.remove_pod(rng.choice(ni.pods))
                elif op < 0.9:
                    ni.set_node(make_node(int(ni.name[1:])))
                elif op < 0.95:
                    new = NodeInfo(make_node(next(serial) + 1000 if rng.random() < 0.8 else rng.randrange(30)))
                    nodes = nodes + [new]
                elif len(nodes) > 1:
                    nodes = [n for n in nodes if n is not ni]
            # what a cycle's AddPod/RemovePod do to the counts it was handed must not reach the sums
            for counts in handed_out:
                counts.update({"zone": "a"}, "zone", rng.choice([1, -1]), "intruder")
            handed_out = []
            k = rng.randrange(len(kinds))
            pod_info = kinds[k]
            listing = nodes if rng.random() < 0.8 else [n for n in nodes if rng.random() < 0.7]
            # PodTopologySpread
            constraints = filter_constraints(shapes[k], pod_info.labels, "DoNotSchedule")
            want = pts.calculate_pre_filter_state(constraints, pod_info, listing)
            got = pts.calculate_pre_filter_state(constraints, pod_info, listing, pts_cache)
            if [list(m.items()) for m in want.tp_value_to_match_num] != \
                    [list(m.items()) for m in got.tp_value_to_match_num] or want.to_dict() != got.to_dict():
                failures += 1
                print(f"PodTopologySpread mismatch (round {round_}, cycle {cycle}): {want.to_dict()} != {got.to_dict()}")
            # InterPodAffinity (the sums are kept over one snapshot's whole node list)
            def with_anti() -> list:
                return [n for n in nodes if n.pods_with_required_anti_affinity]

            ns_labels = ipa.namespace_labels_of(ns_objects, pod_info.namespace)
            w = ipa.existing_anti_affinity_counts(pod_info, ns_labels, with_anti())
            g = ipa_sums.existing_anti_affinity_counts(pod_info, ns_labels, nodes, with_anti)
            if g is not None:
                compared += 1
                handed_out.append(g)
                if w.counts != g.counts or w.witnesses != g.witnesses \
                        or sorted(g.keys or ()) != sorted(w.topology_keys()):
                    failures += 1
                    print(f"existing anti-affinity mismatch (round {round_}): {w.counts} != {g.counts}")
            aff_terms = [ipa.merge_term_namespaces(t, ns_objects) for t in pod_info.required_affinity_terms]
            anti_terms = [ipa.merge_term_namespaces(t, ns_objects) for t in pod_info.required_anti_affinity_terms]
            if aff_terms or anti_terms:
                wa, wn = ipa.incoming_affinity_counts(aff_terms, anti_terms, nodes)
                got_incoming = ipa_sums.incoming_affinity_counts(aff_terms, anti_terms, nodes)
                if got_incoming is not None:
                    compared += 1
                    ga, gn = got_incoming
                    handed_out += [ga, gn]
                    if wa.counts != ga.counts or wn.counts != gn.counts or wn.witnesses != gn.witnesses \
                            or wa.witnesses != ga.witnesses or sorted(gn.keys or ()) != sorted(wn.topology_keys()):
                        failures += 1
                        print(f"incoming affinity mismatch (round {round_}): {wa.counts}/{wn.counts} != "
                              f"{ga.counts}/{gn.counts}")
            # PreScore's topology scores
            preferred = [ipa_plugin._merge_weighted(wt, ns_objects) for wt in pod_info.preferred_affinity_terms]
            preferred_anti = [ipa_plugin._merge_weighted(wt, ns_objects)
                              for wt in pod_info.preferred_anti_affinity_terms]
            all_pods = bool(preferred or preferred_anti)
            weight = k % 3

            def walked() -> list:
                return nodes if all_pods else [n for n in nodes if n.pods_with_affinity]

            ws = ipa_scoring.topology_scores(pod_info, preferred, preferred_anti, ns_labels, walked(), all_pods, weight)
            gs = ipa_sums.topology_scores(pod_info, preferred, preferred_anti, ns_labels, nodes, walked, all_pods,
                                          weight)
            if gs is not None:
                compared += 1
                if ws != gs:
                    failures += 1
                    print(f"topology scores mismatch (round {round_}, cycle {cycle}): {ws} != {gs}")
    # select_host's spelled-out randrange against the stdlib's, tie sizes 1..600.
    from kschedctl.framework.runtime import NodePluginScores
    from kschedctl.scheduler.schedule_one import Scheduler

    for n in list(range(1, 70)) + [127, 128, 129, 255, 256, 257, 450, 600]:
        scores = [NodePluginScores(f"n{i}", [], 5 if i % 3 else 7) for i in range(n)]
        sched = Scheduler(None, seed=n)
        reference = random.Random(n)
        for _ in range(3):
            got, tied = sched.select_host(scores)
            want = tied[0]
            for count in range(2, len(tied) + 1):
                if reference.randrange(count) == 0:
                    want = tied[count - 1]
            if got != want or sched.rng.getstate() != reference.getstate():
                failures += 1
                print(f"select_host mismatch for {n} nodes")
    print(f"fuzz: {rounds} rounds, {compared} InterPodAffinity sums compared, {failures} mismatch(es)")
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", choices=sorted(CASES), help="repeatable; default all")
    parser.add_argument("--config", help="KubeSchedulerConfiguration (default: the built-in default profile)")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--check", action="store_true",
                        help=f"compare the digests with {EXPECTED.name}: exit 1 and show the lines that differ")
    parser.add_argument("--fuzz", type=int, metavar="ROUNDS",
                        help="instead: compare the PreFilter count caches with fresh walks on random clusters")
    args = parser.parse_args(argv)
    if args.fuzz:
        return 1 if fuzz_caches(args.fuzz) else 0
    if args.check:
        return check(args.config)
    for line in digest_lines(args.config, args.case, args.verbose):
        print(line)
        sys.stdout.flush()
    return 0


def check(config_path: str | None = None) -> int:
    """0 when the digests are the expectation's, else 1 with the lines that differ."""
    got = digest_lines(config_path)
    want = EXPECTED.read_text(encoding="utf-8").splitlines()
    if got == want:
        print(f"equivalence digests as in {EXPECTED.name}")
        return 0
    for line in difflib.unified_diff(want, got, str(EXPECTED.name), "now", lineterm=""):
        print(line)
    return 1


def digest_lines(config_path: str | None = None, cases: list[str] | None = None, verbose: bool = False) -> list[str]:
    """The output lines: one per workload (simulate and explain digests), then the combined ones."""
    from kschedctl.config import load_config

    config = load_config(config_path)
    lines = []
    combined, rollouts, dra, later = hashlib.sha256(), hashlib.sha256(), hashlib.sha256(), hashlib.sha256()
    for name in cases or list(CASES):
        sim_digest, probe_digest = run_case(name, config, verbose)
        lines.append(f"{name:<28} simulate {sim_digest}  explain {probe_digest}")
        digest = (combined if name in ORIGINAL_CASES else dra if name in DRA_CASES
                  else later if name in LATER_CASES else rollouts)
        digest.update(f"{name}:{sim_digest}:{probe_digest}".encode())
    lines.append(f"{'combined':<28} {combined.hexdigest()[:16]}")
    lines.append(f"{'combined (rollouts)':<28} {rollouts.hexdigest()[:16]}")
    lines.append(f"{'combined (DRA)':<28} {dra.hexdigest()[:16]}")
    lines.append(f"{'combined (later)':<28} {later.hexdigest()[:16]}")
    return lines


if __name__ == "__main__":
    raise SystemExit(main())
