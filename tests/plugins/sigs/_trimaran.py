"""Build the Trimaran cases (``cases/trimaran.yaml``): nodes, pods and the load watcher's answer."""

from __future__ import annotations

import time
from typing import Any

from kschedctl.inputs.metrics import parse_metrics
from tests.plugins.harness import Env, build, pod_info

NODE = "node-1"


def _container(name: str, values: list, limits: bool = True) -> dict:
    resources: dict = {}
    if values:
        res = {"cpu": f"{values[0]}m"}
        if len(values) > 1:
            res["memory"] = str(values[1])
        resources = {"requests": dict(res), **({"limits": dict(res)} if limits else {})}
    return {"name": name, "resources": resources}


def make_pod(spec: dict) -> dict:
    s: dict = {"containers": []}
    for i, c in enumerate(spec.get("containers") or ()):
        s["containers"].append(_container(f"c{i}", c))
    for i, c in enumerate(spec.get("requestsOnly") or ()):
        s["containers"].append(_container(f"r{i}", c, limits=False))
    if "init" in spec:
        s["initContainers"] = [_container("init", spec["init"], limits=False)]
    if "overhead" in spec:
        s["overhead"] = {"cpu": f"{spec['overhead']}m"}
    return {"metadata": {"name": "p"}, "spec": s}


def _running(i: int, spec: dict) -> dict:
    resources = {k: {"cpu": spec[k]} for k in ("requests", "limits") if k in spec}
    pod: dict = {"metadata": {"name": f"running-{i}"},
                 "spec": {"nodeName": NODE, "containers": [{"name": "c", "resources": resources}]}}
    if "boundAt" in spec:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(spec["boundAt"]))
        pod["status"] = {"conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": stamp}]}
    return pod


def watcher_answer(case: dict) -> Any:
    metrics = case.get("metrics")
    window = {"end": case.get("windowEnd", 0)}
    if metrics == "none":
        return parse_metrics({"window": window}, origin="<test>")
    nodes = {name: {"metrics": [{"type": t, "operator": op, "value": v} for t, op, v in triples]}
             for name, triples in (metrics or {}).items()}
    return parse_metrics({"window": window, "data": {"NodeMetricsMap": nodes}}, origin="<test>")


def environment(case: dict) -> tuple[Env, Any]:
    """The case's node (with its running pods) and metrics, and the pod to score."""
    resources = {"cpu": "1000m", "memory": "1Gi", "pods": "110", **(case.get("node") or {})}
    node = {"metadata": {"name": NODE}, "status": {"capacity": dict(resources), "allocatable": dict(resources)}}
    env = build([node], [_running(i, r) for i, r in enumerate(case.get("running") or ())])
    env.handle.cluster().metrics = watcher_answer(case)
    return env, pod_info(make_pod(case["pod"]))
