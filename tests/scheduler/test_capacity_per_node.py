"""capacity counted per node equals capacity scheduled one copy at a time.

Small random clusters and pods (free resources, pod slots, taints, node selectors, host ports,
extended resources, cordoned nodes, existing pods with anti-affinity against the pod, lower
priority pods for preemption, and pods whose spread constraints or affinity send the count to
the cycle loop): the count, the copies per node, the stop message and the preemption answer
must be the same both ways, under the default profile and a profile of implemented plugins.
"""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace

import pytest

from kschedctl.config import load_config
from kschedctl.analyses.capacity import CYCLES, PER_NODE, capacity
from tests.framework.fakes import make_node, make_pod

CONFIG = str(Path(__file__).parent / "cases" / "config-implemented.yaml")
ZONES = ("z1", "z2", "z3")
SEEDS = range(60)
PRIORITY_CLASSES = {name: {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                           "metadata": {"name": name}, "value": value}
                    for name, value in (("mid", 50), ("high", 200))}


def _cluster(rng: random.Random) -> SimpleNamespace:
    nodes, pods = [], []
    for i in range(rng.randint(1, 6)):
        name = f"n{i}"
        node = make_node(name, {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": rng.choice(ZONES),
                                "disk": rng.choice(("ssd", "hdd"))},
                         cpu=rng.choice(("1", "2", "4", "3500m")), memory=rng.choice(("2Gi", "8Gi", "32Gi")),
                         pods=str(rng.randint(2, 30)))
        if rng.random() < 0.3:
            node["status"]["allocatable"]["example.com/gpu"] = str(rng.randint(0, 4))
        spec = node.setdefault("spec", {})
        if rng.random() < 0.15:
            spec["taints"] = [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]
        if rng.random() < 0.1:
            spec["unschedulable"] = True
        nodes.append(node)
        for j in range(rng.randint(0, 4)):
            container: dict = {"name": "c", "image": "busybox",
                               "resources": {"requests": {"cpu": rng.choice(("100m", "500m", "1")),
                                                          "memory": rng.choice(("128Mi", "1Gi"))}}}
            if rng.random() < 0.15:
                container["ports"] = [{"containerPort": 80, "hostPort": 80}]
            labels = {"app": rng.choice(("web", "db"))}
            extra: dict = {}
            if rng.random() < 0.15:
                extra["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"app": "web"}},
                     "topologyKey": rng.choice(("kubernetes.io/hostname", "topology.kubernetes.io/zone"))}]}}
            pods.append(make_pod(f"e{i}-{j}", node=name, labels=labels, priority=rng.choice((0, 0, 100)),
                                 containers=[container], **extra))
    return SimpleNamespace(nodes=nodes, pods=pods, priority_classes=PRIORITY_CLASSES, namespaces={}, warnings=[])


def _pod(rng: random.Random) -> dict:
    requests = {"cpu": rng.choice(("100m", "250m", "300m", "1", "0")), "memory": rng.choice(("64Mi", "512Mi", "3Gi"))}
    if rng.random() < 0.2:
        requests["example.com/gpu"] = "1"
    container: dict = {"name": "c", "image": "nginx", "resources": {"requests": requests}}
    if rng.random() < 0.15:
        container["ports"] = [{"containerPort": 8080, "hostPort": 8080}]
    spec: dict = {"containers": [container]}
    priority_class = rng.choice(("", "mid", "high"))
    if priority_class:
        spec["priorityClassName"] = priority_class
    roll = rng.random()
    if roll < 0.1:
        spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                              "whenUnsatisfiable": "DoNotSchedule",
                                              "labelSelector": {"matchLabels": {"app": "web"}}}]
    elif roll < 0.2:
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "topology.kubernetes.io/zone"}]}}
    elif roll < 0.3:
        spec["nodeSelector"] = {"disk": "ssd"}
    if rng.random() < 0.2:
        spec["tolerations"] = [{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "labels": {"app": "web"}}, "spec": spec}


@pytest.fixture(scope="module")
def implemented():
    return load_config(CONFIG)


@pytest.mark.parametrize("profile", ["default", "implemented"])
def test_per_node_count_equals_the_cycle_loop(profile: str, implemented) -> None:
    config = None if profile == "default" else implemented
    methods = {PER_NODE: 0, CYCLES: 0}
    for seed in SEEDS:
        rng = random.Random(seed)
        cluster, pod = _cluster(rng), _pod(rng)
        fast = capacity(pod, cluster, config, seed=seed)
        loop = capacity(pod, cluster, config, seed=seed, count_per_node=False)
        case = (seed, pod["spec"], fast.method)
        assert loop.method == CYCLES
        assert fast.count == loop.count, case
        assert fast.per_node == loop.per_node, case
        assert (fast.stop_reason, fast.outcome) == (loop.stop_reason, loop.outcome), case
        assert fast.preemption_possible == loop.preemption_possible, case
        methods[fast.method] += 1
    # both paths were exercised
    assert methods[PER_NODE] >= len(SEEDS) // 3 and methods[CYCLES] >= 3, methods


@pytest.mark.parametrize("max_copies", [0, 1, 3, 1000])
def test_max_is_the_user_bound(max_copies: int, implemented) -> None:
    # 3 nodes of 4 CPU: 12 copies of 1 CPU fit; --max below that stops the count exactly there
    cluster = SimpleNamespace(nodes=[make_node(n) for n in "abc"], pods=[], priority_classes={}, namespaces={},
                              warnings=[])
    pod = make_pod("web", containers=[{"name": "c", "resources": {"requests": {"cpu": "1"}}}])
    r = capacity(pod, cluster, implemented, seed=1, max_copies=max_copies)
    assert r.count == min(max_copies, 12)
    assert r.limit_reached == (max_copies < 12)
    assert sum(r.per_node.values()) == r.count
