"""capacity(): counts checked by hand on small clusters, per node, with upstream's stop message."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from kschedctl.config import load_config
from kschedctl.analyses.capacity import capacity
from tests.framework.fakes import make_node, make_pod

CONFIG = str(Path(__file__).parent / "cases" / "config-implemented.yaml")


@pytest.fixture(scope="module")
def config():
    return load_config(CONFIG)


def cluster(nodes, pods=()):
    return SimpleNamespace(nodes=list(nodes), pods=list(pods), priority_classes={}, namespaces={}, warnings=[])


def web(cpu: str = "1", memory: str | None = None, **spec) -> dict:
    requests = {"cpu": cpu}
    if memory:
        requests["memory"] = memory
    p = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
         "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": requests}}]}}
    p["spec"].update(spec)
    return p


def busy(name: str, node: str, cpu: str) -> dict:
    return make_pod(name, node=node, containers=[{"name": "c", "resources": {"requests": {"cpu": cpu}}}])


def test_cpu_bound_count_per_node(config) -> None:
    # free cpu: a 4-2=2, b 4-1=3, c 4 -> 9 copies of 1 CPU
    c = cluster([make_node("a"), make_node("b"), make_node("c")], [busy("x", "a", "2"), busy("y", "b", "1")])
    r = capacity(web(), c, config, seed=1)
    assert r.count == 9
    assert r.per_node == {"a": 2, "b": 3, "c": 4}
    assert r.stop_reason == "0/3 nodes are available: 3 Insufficient cpu."
    assert r.outcome == "Unschedulable" and not r.limit_reached
    d = r.to_dict()
    assert d["kind"] == "CapacityResult" and d["pod"] == "default/web" and d["perNode"] == {"a": 2, "b": 3, "c": 4}


def test_fractional_requests(config) -> None:
    # 4 CPU / 300m = 13 per node (3900m), memory 32Gi / 2Gi = 16: cpu binds
    c = cluster([make_node("a"), make_node("b")])
    r = capacity(web("300m", "2Gi"), c, config, seed=1)
    assert r.count == 26 and r.per_node == {"a": 13, "b": 13}


def test_memory_and_cpu_both_short(config) -> None:
    # 1 CPU / 8Gi: 4 per node by cpu, 4 per node by memory: both run out together
    c = cluster([make_node("a")])
    r = capacity(web("1", "8Gi"), c, config, seed=1)
    assert r.count == 4
    assert r.stop_reason == "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory."


def test_pod_count_limit(config) -> None:
    c = cluster([make_node("a", pods="3"), make_node("b", pods="2")], [busy("x", "a", "100m")])
    r = capacity(web("10m"), c, config, seed=1)
    assert r.count == 4 and r.per_node == {"a": 2, "b": 2}
    assert r.stop_reason == "0/2 nodes are available: 2 Too many pods."


def test_host_port_one_per_node(config) -> None:
    spec = {"containers": [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80, "hostPort": 80}]}]}
    c = cluster([make_node("a"), make_node("b"), make_node("c")])
    r = capacity(web(**spec), c, config, seed=1)
    assert r.count == 3
    assert r.stop_reason == "0/3 nodes are available: 3 node(s) didn't have free ports for the requested pod ports."


def test_tainted_nodes_are_not_used(config) -> None:
    nodes = [make_node("a"), make_node("b")]
    nodes[1]["spec"] = {"taints": [{"key": "gpu", "value": "true", "effect": "NoSchedule"}]}
    r = capacity(web("2"), cluster(nodes), config, seed=1)
    assert r.count == 2 and r.per_node == {"a": 2}
    assert r.stop_reason == "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s)."


def test_max_bounds_the_run(config) -> None:
    r = capacity(web("100m"), cluster([make_node("a")]), config, seed=1, max_copies=5)
    assert r.count == 5 and r.limit_reached and r.outcome == ""
    assert "--max 5" in r.stop_reason


def test_nothing_fits(config) -> None:
    r = capacity(web("16"), cluster([make_node("a")]), config, seed=1)
    assert r.count == 0 and r.per_node == {}
    assert r.stop_reason == "0/1 nodes are available: 1 Insufficient cpu."


def test_default_profile_counts_the_same() -> None:
    c = cluster([make_node("a"), make_node("b"), make_node("c")], [busy("x", "a", "2"), busy("y", "b", "1")])
    r = capacity(web(), c, None, seed=1)
    assert r.count == 9 and r.per_node == {"a": 2, "b": 3, "c": 4}
    assert r.stop_reason.startswith("0/3 nodes are available: 3 Insufficient cpu.")


def test_no_default_bound(config) -> None:
    # 2 nodes of 64 CPU and 20,000 pod slots: 2 x 20,000 copies of 1m fit, past the 10,000 the
    # command once stopped at by default; each node's share is counted at once
    c = cluster([make_node("a", cpu="64", pods="20000"), make_node("b", cpu="64", pods="20000")])
    r = capacity(web("1m"), c, config, seed=1)
    assert r.count == 40_000 and r.per_node == {"a": 20_000, "b": 20_000}
    assert not r.limit_reached and r.max_copies is None and r.method == "perNode"
    assert r.stop_reason == "0/2 nodes are available: 2 Too many pods."
    assert r.to_dict()["max"] is None
