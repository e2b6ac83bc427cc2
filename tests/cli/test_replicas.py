"""Generated replicas behave as their controller's pods: unique names for any replica count,
shaped like the controller's, the same for the same input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from kschedctl.inputs.workloads import load_pods
from kschedctl.cluster.replicas import expand_replicas
from tests.cli.helpers import run_cli

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: shop, namespace: default}
spec:
  replicas: 10000
  selector: {matchLabels: {app: shop}}
  template:
    metadata: {labels: {app: shop}}
    spec:
      containers:
      - name: c
        image: busybox
        resources: {requests: {cpu: 1m, memory: 1Mi}}
"""


def _nodes(path: Path, count: int) -> str:
    nodes = [{"apiVersion": "v1", "kind": "Node",
              "metadata": {"name": f"n{i}", "labels": {"kubernetes.io/hostname": f"n{i}",
                                                       "topology.kubernetes.io/zone": f"z{i % 3}"}},
              "status": {"allocatable": {"cpu": "64", "memory": "256Gi", "pods": "1100"}}} for i in range(count)]
    path.write_text(yaml.safe_dump_all(nodes), encoding="utf-8")
    return str(path)


def test_ten_thousand_replicas_are_simulated(tmp_path: Path) -> None:
    deployment = tmp_path / "shop.yaml"
    deployment.write_text(DEPLOYMENT, encoding="utf-8")
    result = run_cli("simulate", "--cluster", _nodes(tmp_path / "nodes.yaml", 10), str(deployment), "-o", "json",
                     "--seed", "1")
    assert result.exit_code == 0, result.stderr
    placements = json.loads(result.stdout)["placements"]
    names = [p["pod"] for p in placements]
    assert len(names) == len(set(names)) == 10_000
    assert all(p["outcome"] == "Scheduled" for p in placements)
    rs = names[0].split("/")[1].rsplit("-", 1)[0]
    assert all(re.fullmatch(rf"default/{rs}-[bcdfghjklmnpqrstvwxz2456789]{{5}}", n) for n in names)


def test_replica_names_are_deterministic(tmp_path: Path) -> None:
    deployment = tmp_path / "shop.yaml"
    deployment.write_text(DEPLOYMENT.replace("10000", "5000"), encoding="utf-8")
    first = [p["metadata"]["name"] for p in expand_replicas(load_pods([str(deployment)])[0])[0]]
    again = [p["metadata"]["name"] for p in expand_replicas(load_pods([str(deployment)])[0])[0]]
    assert first == again and len(set(first)) == 5000


def test_one_replica_stands_for_all_in_explain_and_diff() -> None:
    root = Path(__file__).resolve().parents[2]
    web = str(root / "fixtures" / "pods" / "web-deployment.yaml")
    cluster = str(root / "fixtures" / "cluster")
    note = ("Deployment web has 3 replicas: {cmd} shows its first pod, which stands for all of them; kschedctl "
            f"simulate {web} places every replica")
    explained = run_cli("explain", "--cluster", cluster, web, "-o", "json")
    assert note.format(cmd="explain") in explained.stderr
    bin_packing = str(root / "profiles" / "bin-packing.yaml")
    diffed = run_cli("diff", "--cluster", cluster, "-c", bin_packing, "-c", bin_packing, web, "-o", "json")
    assert ("Deployment web has 3 replicas: diff shows its first pod, which stands for all of them; add --simulate "
            "to compare every replica, each seeing the ones before it, under both sides") in diffed.stderr


def test_simulate_counts_tie_breaks(tmp_path: Path) -> None:
    # Identical empty nodes: the first replica's node, at least, is a tie-break.
    deployment = tmp_path / "shop.yaml"
    deployment.write_text(DEPLOYMENT.replace("10000", "3"), encoding="utf-8")
    args = ["simulate", "--cluster", _nodes(tmp_path / "nodes.yaml", 4), str(deployment)]
    assert json.loads(run_cli(*args, "-o", "json").stdout)["summary"]["tieBreaks"] >= 1
    # Each run without a seed breaks its ties its own way: the count may differ, not the note.
    assert re.search(r"\b(1 placement was a tie-break|[1-9]\d* placements were tie-breaks) among equal top "
                     r"scores; pass --seed",
                     run_cli(*args).stdout)
    assert "pass --seed" not in run_cli(*args, "--seed", "3").stdout
