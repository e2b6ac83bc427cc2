"""scheduler-plugins against their own code: their scheduler on a real control plane.

    python -m benchmarks.realcluster_sigs --seed S --cases N [--table]

``make -C oracle controlplane`` builds ``oracle/bin/kube-scheduler-sigs`` beside the v1.34.4
binaries: ``sigs.k8s.io/scheduler-plugins`` v0.34.7's own ``cmd/scheduler``, linked against the
same v1.34.4 framework core as kube-scheduler (oracle/sigs-scheduler/go.mod). ``SigsControlPlane``
is ``benchmarks.realcluster.ControlPlane`` with scheduler-plugins' CRDs installed (PodGroup,
ElasticQuota, NodeResourceTopology, AppGroup, NetworkTopology, read from the module cache where
``go list -m`` finds the module), objects of those kinds created through the API, a ClusterRole
that lets system:kube-scheduler read them, and that binary started whenever the
KubeSchedulerConfiguration names one of its plugins.

Each case runs on both engines from the same objects: the real scheduler decides, and kschedctl
``explain`` (the real node in its top-scoring set, messages word for word, preemption's node and
victims) or ``simulate`` (each pod's outcome and message, the nodes where the case makes them
certain, else how many pods each node got) answers from the case's files. The Trimaran scorers
read a load watcher: a static one (``LoadWatcher``, Python's http.server on loopback) serves the
case's metrics to the real scheduler, and kschedctl gets the same JSON with ``--metrics``.
``--table`` runs the hand-made cases (``scenario_cases``), ``--seed/--cases`` the generated ones; the run
ends with ``N cases, M mismatches``.

What the real scheduler is given that a cluster would have had (no controller runs): AppGroup's
``status.topologyOrder`` (the AppGroup controller computes it) is written in the object, and a
bound pod's ``PodScheduled`` condition and ``startTime`` are set through the status subresource.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import yaml

from benchmarks import realcluster
from benchmarks.realcluster import ControlPlane, ControlPlaneError, PROTECTED_NAMESPACES

SIGS_BINARY = "kube-scheduler-sigs"
SIGS_MODULE = "sigs.k8s.io/scheduler-plugins"
SIGS_VERSION = "v0.34.7"
MODULE_DIR = realcluster.ROOT / "oracle" / "sigs-scheduler"
# manifests/<dir>/crd.yaml of the module, one CRD each.
CRD_MANIFESTS = ("coscheduling", "capacityscheduling", "noderesourcetopology", "appgroup", "networktopology")

# The plugins cmd/scheduler of v0.34.7 registers beside the in-tree ones.
SIGS_PLUGINS = frozenset({
    "CapacityScheduling", "Coscheduling", "LoadVariationRiskBalancing", "NetworkOverhead", "TopologicalSort",
    "NodeResourcesAllocatable", "NodeResourceTopologyMatch", "PreemptionToleration", "TargetLoadPacking",
    "LowRiskOverCommitment", "SySched", "Peaks", "PodState", "QOSSort"})
TRIMARAN = ("TargetLoadPacking", "LoadVariationRiskBalancing", "LowRiskOverCommitment")

# kind -> (API path prefix, plural, namespaced), as realcluster.KINDS.
SIGS_KINDS: dict[str, tuple[str, str, bool]] = {
    "PodGroup": ("apis/scheduling.x-k8s.io/v1alpha1", "podgroups", True),
    "ElasticQuota": ("apis/scheduling.x-k8s.io/v1alpha1", "elasticquotas", True),
    "NodeResourceTopology": ("apis/topology.node.k8s.io/v1alpha2", "noderesourcetopologies", False),
    "AppGroup": ("apis/appgroup.diktyo.x-k8s.io/v1alpha1", "appgroups", True),
    "NetworkTopology": ("apis/networktopology.diktyo.x-k8s.io/v1alpha1", "networktopologies", True),
}

# What the chart of scheduler-plugins (manifests/install/charts) grants its scheduler beyond
# system:kube-scheduler, for the plugins compared here.
SIGS_CLUSTER_ROLE = {
    "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
    "metadata": {"name": "kschedctl:scheduler-plugins"},
    "rules": [
        {"apiGroups": ["scheduling.x-k8s.io"],
         "resources": ["podgroups", "elasticquotas", "podgroups/status", "elasticquotas/status"],
         "verbs": ["get", "list", "watch", "update", "patch"]},
        {"apiGroups": ["topology.node.k8s.io"], "resources": ["noderesourcetopologies"],
         "verbs": ["get", "list", "watch"]},
        {"apiGroups": ["appgroup.diktyo.x-k8s.io"], "resources": ["appgroups"], "verbs": ["get", "list", "watch"]},
        {"apiGroups": ["networktopology.diktyo.x-k8s.io"], "resources": ["networktopologies"],
         "verbs": ["get", "list", "watch"]},
        {"apiGroups": ["scheduling.k8s.io"], "resources": ["priorityclasses"], "verbs": ["get", "list", "watch"]},
        {"apiGroups": [""], "resources": ["namespaces"], "verbs": ["get", "list", "watch"]},
    ],
}
SIGS_CLUSTER_ROLE_BINDING = {
    "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
    "metadata": {"name": "kschedctl:scheduler-plugins"},
    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "kschedctl:scheduler-plugins"},
    "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "system:kube-scheduler"}],
}


def binary_present(bin_dir: Path = realcluster.BIN_DIR) -> bool:
    path = Path(bin_dir) / SIGS_BINARY
    return path.is_file() and os.access(path, os.X_OK)


def names_sigs_plugins(config: dict[str, Any] | None) -> bool:
    """Whether a KubeSchedulerConfiguration enables or configures a scheduler-plugins plugin."""
    for profile in (config or {}).get("profiles") or []:
        for point in ((profile or {}).get("plugins") or {}).values():
            if any((p or {}).get("name") in SIGS_PLUGINS for p in (point or {}).get("enabled") or []):
                return True
        if any((c or {}).get("name") in SIGS_PLUGINS for c in profile.get("pluginConfig") or []):
            return True
    return False


def module_dir() -> Path:
    """Where the module cache holds scheduler-plugins v0.34.7, as ``go list -m`` reports it (the
    default module cache when Go is not installed)."""
    if shutil.which("go"):
        out = subprocess.run(["go", "list", "-m", "-json", SIGS_MODULE], cwd=MODULE_DIR, capture_output=True,
                             text=True, env={**os.environ, "GOFLAGS": "-mod=mod"})
        if out.returncode == 0:
            return Path(json.loads(out.stdout)["Dir"])
    cache = os.environ.get("GOMODCACHE") or str(Path.home() / "go" / "pkg" / "mod")
    return Path(cache) / f"{SIGS_MODULE}@{SIGS_VERSION}"


def crd_documents(directory: Path | None = None) -> list[dict[str, Any]]:
    base = directory or module_dir()
    docs = []
    for name in CRD_MANIFESTS:
        path = base / "manifests" / name / "crd.yaml"
        if not path.is_file():
            raise ControlPlaneError(f"{path}: no such CRD manifest (is {SIGS_MODULE}@{SIGS_VERSION} in the module cache?)")
        docs += [d for d in yaml.safe_load_all(path.read_text()) if isinstance(d, dict)]
    return docs


class SigsControlPlane(ControlPlane):
    """A ControlPlane with scheduler-plugins' CRDs and the RBAC their scheduler needs; a
    configuration naming their plugins runs ``kube-scheduler-sigs``."""

    @classmethod
    def adopt(cls, cp: ControlPlane) -> "SigsControlPlane":
        """The running control plane ``cp`` as a SigsControlPlane (the same processes and
        state, shared), its CRDs installed: the tests' session control plane serves both."""
        sigs = cls.__new__(cls)
        sigs.__dict__ = cp.__dict__
        sigs.install_crds()
        return sigs

    @classmethod
    def attach(cls, workdir: Path) -> "SigsControlPlane | None":
        """As ControlPlane.attach (the control plane ``up`` left running), the CRDs installed."""
        cp = super().attach(workdir)
        if cp is not None:
            cp.install_crds()  # type: ignore[attr-defined]
        return cp  # type: ignore[return-value]

    def start(self, timeout: float = 180) -> "SigsControlPlane":
        super().start(timeout)
        self.install_crds()
        return self

    def install_crds(self, timeout: float = 60) -> None:
        api = self.admin
        assert api is not None
        for crd in crd_documents():
            name = crd["metadata"]["name"]
            path = f"apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}"
            if api.get(path, ok_missing=True) is None:
                api.request("POST", "apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
        for obj, plural in ((SIGS_CLUSTER_ROLE, "clusterroles"), (SIGS_CLUSTER_ROLE_BINDING, "clusterrolebindings")):
            base = f"apis/rbac.authorization.k8s.io/v1/{plural}"
            if api.get(f"{base}/{obj['metadata']['name']}", ok_missing=True) is None:
                api.request("POST", base, obj)
        deadline = time.monotonic() + timeout
        for prefix, plural, _ in SIGS_KINDS.values():
            while not self._served(f"{prefix}/{plural}"):
                if time.monotonic() > deadline:
                    raise ControlPlaneError(f"{prefix}/{plural}: not served {timeout:.0f} s after its CRD was created")
                time.sleep(0.2)

    def _served(self, path: str) -> bool:
        """A new CRD's resource answers 404 until it is established, then 429 ("storage is
        (re)initializing") for a moment."""
        try:
            return self.admin.get(path, ok_missing=True) is not None  # type: ignore[union-attr]
        except ControlPlaneError as exc:
            if "HTTP 429" in str(exc):
                return False
            raise

    def scheduler_binary(self, config: dict[str, Any]) -> str:
        return SIGS_BINARY if names_sigs_plugins(config) else super().scheduler_binary(config)

    def load(self, objects: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """As ControlPlane.load, the scheduler-plugins objects created after everything but the
        pods (their namespaces exist by then)."""
        objects = list(objects)
        sigs = [o for o in objects if o.get("kind") in SIGS_KINDS]
        rest = [o for o in objects if o.get("kind") not in SIGS_KINDS and o.get("kind") != "Pod"]
        pods = [o for o in objects if o.get("kind") == "Pod"]
        named = {o["metadata"]["name"] for o in rest if o.get("kind") == "Namespace"}
        wanted = {o["metadata"].get("namespace") or "default" for o in sigs if SIGS_KINDS[o["kind"]][2]}
        rest += [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}
                 for ns in sorted(wanted - named - PROTECTED_NAMESPACES)]
        super().load(rest)
        for obj in sigs:
            self.create_sigs(obj)
        created = super().load(pods)
        self._terminate(pods)
        return created

    def _terminate(self, pods: list[dict[str, Any]]) -> None:
        """Bound pods the files show terminating (``metadata.deletionTimestamp``, which the API
        server drops on create) are deleted with their grace period: without a kubelet they stay
        Terminating, as PodState counts them."""
        api = self.admin
        assert api is not None
        for p in pods:
            meta = p.get("metadata") or {}
            if meta.get("deletionTimestamp") and (p.get("spec") or {}).get("nodeName"):
                api.request("DELETE", f"api/v1/namespaces/{meta.get('namespace') or 'default'}/pods/{meta['name']}")

    def create_sigs(self, obj: dict[str, Any]) -> dict[str, Any]:
        api = self.admin
        assert api is not None
        obj = realcluster._clean(obj)
        prefix, plural, namespaced = SIGS_KINDS[obj["kind"]]
        base = f"{prefix}/namespaces/{obj['metadata'].get('namespace') or 'default'}/{plural}" if namespaced \
            else f"{prefix}/{plural}"
        status = obj.get("status")
        created = api.request("POST", base, obj)
        if status and obj["kind"] in ("PodGroup", "ElasticQuota"):  # the CRDs with a status subresource
            created["status"] = status
            created = api.request("PUT", f"{base}/{created['metadata']['name']}/status", created)
        return created

    def clear(self) -> None:
        api = self.admin
        assert api is not None
        for prefix, plural, namespaced in SIGS_KINDS.values():
            for item in (api.get(f"{prefix}/{plural}", ok_missing=True) or {}).get("items") or []:
                meta = item["metadata"]
                path = (f"{prefix}/namespaces/{meta['namespace']}/{plural}/{meta['name']}" if namespaced
                        else f"{prefix}/{plural}/{meta['name']}")
                api.request("DELETE", path, ok_missing=True)
        super().clear()


class LoadWatcher(realcluster.LoopbackServer):
    """A static load watcher: ``GET /watcher`` answers ``metrics`` (paypal/load-watcher's
    WatcherMetrics JSON, what the Trimaran plugins read), on a loopback port."""

    def __init__(self, metrics: dict[str, Any]) -> None:
        self.body = json.dumps(metrics).encode()
        super().__init__()

    def respond(self, method: str, path: str, body: bytes) -> tuple[int, bytes]:
        if method != "GET" or path.split("?")[0] != "/watcher":
            return 404, b"not found"
        return 200, self.body


def with_watcher(config: dict[str, Any], url: str) -> dict[str, Any]:
    """``config`` with every Trimaran plugin's ``watcherAddress`` set to ``url``."""
    config = copy.deepcopy(config)
    for profile in config.get("profiles") or []:
        for entry in profile.get("pluginConfig") or []:
            if entry.get("name") in TRIMARAN:
                entry.setdefault("args", {})["watcherAddress"] = url
    return config


# -- cases ----------------------------------------------------------------------------------

@dataclass
class Case:
    name: str
    command: str  # explain (one pod) or simulate (a batch)
    config: dict[str, Any]
    cluster: list[dict[str, Any]]
    pods: list[dict[str, Any]]
    metrics: dict[str, Any] | None = None
    # simulate: compare each pod's node (the case leaves no tie), else only how many pods each
    # node got, sorted (identical nodes: which one a tie picked is random upstream).
    exact_nodes: bool = True
    # simulate: compare the messages of pods left unscheduled (not where attempts rewrite them
    # in an order that timing decides, see _coscheduling).
    messages: bool = True
    timeout: float = 60
    plugin: str = ""
    # Why the engines may differ here, as docs/fidelity.md explains; a difference is then
    # reported as explained, not as a mismatch.
    explained: str = ""

    def write(self, directory: Path) -> list[str]:
        """The case's files; returns kschedctl's command line for them."""
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "cluster.yaml").write_text(yaml.safe_dump_all(self.cluster, sort_keys=False))
        (directory / "pods.yaml").write_text(yaml.safe_dump_all(self.pods, sort_keys=False))
        (directory / "config.yaml").write_text(yaml.safe_dump(self.config, sort_keys=False))
        args = [self.command, str(directory / "pods.yaml"), "--cluster", str(directory / "cluster.yaml"),
                "--config", str(directory / "config.yaml"), "-o", "json"]
        if self.metrics is not None:
            (directory / "metrics.json").write_text(json.dumps(self.metrics, indent=1))
            args += ["--metrics", str(directory / "metrics.json")]
        return args


class Reaper:
    """What a kubelet would do for a simulated batch: a pod being deleted (a preemption victim,
    deleted with its grace period) is gone at once, so the preemptor is scheduled, as
    ``kschedctl simulate`` runs preemption to its end. ``explain`` runs without it: there the
    victims stay Terminating and the preemptor nominated, as explain answers."""

    def __init__(self, cp: ControlPlane, delay: float = 1.0) -> None:
        self.cp = cp
        self.delay = delay
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        api = self.cp.admin
        assert api is not None
        seen: dict[str, float] = {}
        while not self.done.wait(0.2):
            try:
                # A kubelet takes a moment to stop a pod, and pods told to stop with the same
                # grace period end in the order they were told (their resourceVersion, bumped
                # by the deletion): the victims of the first preemption go first. Removed in
                # another order, a preemptor's nominated node may still hold its victim when a
                # retry comes, and the retry goes elsewhere (upstream decides by what ended first).
                items = sorted(api.get("api/v1/pods")["items"], key=lambda p: int(p["metadata"]["resourceVersion"]))
                for p in items:
                    meta = p["metadata"]
                    if meta.get("deletionTimestamp") and \
                            time.monotonic() - seen.setdefault(meta["uid"], time.monotonic()) >= self.delay:
                        api.request("DELETE", f"api/v1/namespaces/{meta['namespace']}/pods/{meta['name']}",
                                    {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0},
                                    ok_missing=True)
            except (ControlPlaneError, OSError):
                continue

    def __enter__(self) -> "Reaper":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.done.set()
        self.thread.join(timeout=10)


def run_real(cp: SigsControlPlane, case: Case) -> dict[str, Any]:
    config = case.config
    watcher = LoadWatcher(case.metrics) if case.metrics is not None else None
    try:
        if watcher:
            watcher.__enter__()
            config = with_watcher(config, watcher.url)
        if case.command == "explain":
            return realcluster.explain(cp, case.cluster, case.pods, config)
        cp.stop_scheduler()
        cp.clear()
        created = cp.load(case.cluster + [dict(p, kind="Pod") for p in case.pods])
        cp.start_scheduler(config)
        with Reaper(cp):
            # settle: longer than the Reaper's delay plus a retry, so a preemption is seen through
            decisions = realcluster.wait_decisions(cp, [p for p in created if not p["spec"].get("nodeName")],
                                                   timeout=case.timeout, settle=4.0)
        return {"kind": "SimulationResult",
                "placements": [{"pod": k, "outcome": d["outcome"], "node": d.get("selectedNode") or "",
                                "message": d.get("message", "")} for k, d in decisions.items()]}
    finally:
        if watcher:
            watcher.__exit__()


def compare_simulate(ours: dict[str, Any], real: dict[str, Any], exact_nodes: bool,
                     messages: bool = True) -> list[str]:
    """kschedctl's simulate beside the real scheduler's decisions. kschedctl's ``Rejected`` (a
    Permit or Reserve refusal) is ``Unschedulable`` on the pod: the PodScheduled condition's
    reason is the same for both."""
    diffs = []
    mine = {p["pod"]: p for p in ours.get("placements") or []}
    counts: dict[str, list[int]] = {"ours": [], "real": []}
    per_node: dict[str, dict[str, int]] = {"ours": {}, "real": {}}
    for r in real.get("placements") or []:
        o = mine.get(r["pod"])
        if o is None:
            diffs.append(f"{r['pod']}: not in kschedctl's placements")
            continue
        outcome = "Unschedulable" if o["outcome"] == "Rejected" else o["outcome"]
        if outcome != r["outcome"]:
            diffs.append(f"{r['pod']}: outcome kschedctl {o['outcome']!r} ({o.get('message')}) != real "
                         f"{r['outcome']!r} ({r.get('message')})")
        elif r["outcome"] == "Scheduled":
            if exact_nodes and o.get("node") != r.get("node"):
                diffs.append(f"{r['pod']}: node kschedctl {o.get('node')!r} != real {r.get('node')!r}")
            per_node["ours"][o["node"]] = per_node["ours"].get(o["node"], 0) + 1
            per_node["real"][r["node"]] = per_node["real"].get(r["node"], 0) + 1
        elif messages and o.get("message") != r.get("message"):
            diffs.append(f"{r['pod']}: message kschedctl {o.get('message')!r} != real {r.get('message')!r}")
    for side in counts:
        counts[side] = sorted(per_node[side].values())
    if not exact_nodes and counts["ours"] != counts["real"]:
        diffs.append(f"pods per node: kschedctl {counts['ours']} != real {counts['real']}")
    return diffs


def run_case(cp: SigsControlPlane, case: Case, workdir: Path) -> list[str]:
    """The differences between the real sigs scheduler and kschedctl on ``case`` (none: agree)."""
    from benchmarks.differential import run_kschedctl

    args = case.write(workdir / case.name)
    try:
        real = run_real(cp, case)
    except ControlPlaneError as exc:
        return [f"real scheduler: {exc}"[:500]]
    ours = run_kschedctl(args)
    if "error" in ours:
        return ["kschedctl: " + ours["error"]]
    if case.command == "explain":
        return realcluster.compare(ours, real)
    return compare_simulate(ours, real, case.exact_nodes, case.messages)


# -- objects --------------------------------------------------------------------------------

PAUSE = "registry.k8s.io/pause:3.10"
NOW = int(time.time())


def stamp(seconds: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def node(name: str, cpu_m: int, mem_mi: int, pods: int = 110, labels: dict[str, str] | None = None) -> dict[str, Any]:
    alloc = {"cpu": f"{cpu_m}m", "memory": f"{mem_mi}Mi", "pods": str(pods)}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
            "spec": {}, "status": {"capacity": dict(alloc), "allocatable": dict(alloc)}}


def pod(name: str, *, ns: str = "default", cpu: int = 0, mem: int = 0, qos: str = "Burstable",
        node_name: str | None = None, labels: dict[str, str] | None = None, priority_class: str | None = None,
        bound_at: int | None = None, scheduler: str | None = None, limits_cpu: int | None = None) -> dict[str, Any]:
    """A pod; ``qos`` Guaranteed puts limits equal to the requests, BestEffort drops both.
    Bound pods run, started and bound at ``bound_at`` (a time of their own, so preemption's
    last tie-break, the latest start, is never a tie)."""
    requests = {}
    if cpu:
        requests["cpu"] = f"{cpu}m"
    if mem:
        requests["memory"] = f"{mem}Mi"
    resources: dict[str, Any] = {}
    if qos != "BestEffort" and requests:
        resources["requests"] = requests
        if qos == "Guaranteed":
            resources["limits"] = dict(requests)
        elif limits_cpu:
            resources["limits"] = {"cpu": f"{limits_cpu}m"}
    # The default grace period: a preemption victim stays Terminating (no kubelet ends it), so the
    # preemptor stays nominated, as explain answers; clear() deletes with grace 0.
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": PAUSE, "resources": resources}]}
    if priority_class:
        spec["priorityClassName"] = priority_class
    if scheduler:
        spec["schedulerName"] = scheduler
    out: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod",
                           "metadata": {"name": name, "namespace": ns, "labels": labels or {}}, "spec": spec}
    if node_name:
        spec["nodeName"] = node_name
        at = stamp(bound_at if bound_at is not None else NOW - 3600)
        out["status"] = {"phase": "Running", "startTime": at,
                         "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": at}]}
    return out


def priority_class(name: str, value: int, annotations: dict[str, str] | None = None) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": name, "annotations": annotations or {}}, "value": value}


def config(plugins: dict[str, Any], plugin_config: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    profile: dict[str, Any] = {"schedulerName": "default-scheduler", "plugins": plugins}
    if plugin_config:
        profile["pluginConfig"] = plugin_config
    return {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "profiles": [profile]}


NO_RESOURCE_SCORES = {"disabled": [{"name": "NodeResourcesBalancedAllocation"}, {"name": "NodeResourcesFit"}]}


# -- the generator: one family per plugin, drawn in turn ------------------------------------

def _qos_sort(rng: random.Random, name: str) -> Case:
    """QOSSort orders a batch that one node cannot take whole (its pod count is the limit):
    which pods get in is the queue's order (priority, then QoS class, then arrival)."""
    n = rng.randint(4, 7)
    slots = rng.randint(1, n - 1)
    classes = [priority_class("low", 100), priority_class("high", 1000)]
    pods = []
    for i in range(n):
        qos = rng.choice(("Guaranteed", "Burstable", "BestEffort"))
        pods.append(pod(f"p{i}", cpu=rng.choice((100, 200, 300)), mem=rng.choice((64, 128)), qos=qos,
                        priority_class=rng.choice((None, None, "low", "high"))))
    cfg = config({"queueSort": {"enabled": [{"name": "QOSSort"}], "disabled": [{"name": "*"}]}})
    return Case(name, "simulate", cfg, classes + [node("n1", 8000, 16384, pods=slots)], pods, plugin="QOSSort")


def _coscheduling(rng: random.Random, name: str) -> Case:
    """A gang (PodGroup minMember m) of g pods on two nodes holding ``room`` of them: PreFilter
    refuses a gang short of members, Permit holds the placed ones until m have a node."""
    m = rng.randint(2, 4)
    g = rng.choice((m - 1, m, m, m + 1))
    per_node = rng.choice((1, 2, 2, 3))
    timeout = 3
    group = {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
             "metadata": {"name": "gang", "namespace": "default"},
             "spec": {"minMember": m, "scheduleTimeoutSeconds": timeout}}
    nodes = [node(f"n{i}", 1000 * per_node + 500, 8192) for i in (1, 2)]
    pods = [pod(f"w{i}", cpu=1000, mem=256, labels={"scheduling.x-k8s.io/pod-group": "gang"}) for i in range(g)]
    if rng.random() < 0.4:
        pods.append(pod("solo", cpu=500, mem=128))
    cfg = config({"multiPoint": {"enabled": [{"name": "Coscheduling"}]},
                  "queueSort": {"enabled": [{"name": "Coscheduling"}], "disabled": [{"name": "*"}]}},
                 [{"name": "Coscheduling", "args": {"permitWaitingTimeSeconds": timeout}}])
    # A gang that has its members but not the room is retried over and over, its pods rejecting
    # one another (Permit's timeout, PostFilter's "optimistic rejection", the group's backoff):
    # which message a pod's condition holds when looked at is timing, so only outcomes count.
    messages = not (g >= m > 2 * per_node)
    return Case(name, "simulate", cfg, nodes + [group], pods, exact_nodes=False, plugin="Coscheduling",
                timeout=60, messages=messages)


def _capacity(rng: random.Random, name: str) -> Case:
    """ElasticQuotas of two namespaces on one node: a pod over its namespace's max, one that
    fits, one that must reclaim what the other namespace borrowed (CapacityScheduling's
    preemption), each explained."""
    cap = rng.choice((4000, 6000))
    quotas = []
    for ns, lo, hi in (("team-a", rng.choice((1000, 2000, 3000)), None), ("team-b", rng.choice((1000, 2000)), None)):
        hi = lo + rng.choice((0, 1000, 2000, 4000))
        quotas.append({"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "ElasticQuota",
                       "metadata": {"name": f"quota-{ns}", "namespace": ns},
                       "spec": {"min": {"cpu": f"{lo}m", "memory": "8Gi"}, "max": {"cpu": f"{hi}m", "memory": "16Gi"}}})
    classes = [priority_class("low", 100), priority_class("high", 1000)]
    bound = []
    used = 0
    for i in range(rng.randint(1, 4)):
        ns = rng.choice(("team-a", "team-b", "team-b"))
        cpu = rng.choice((500, 1000, 1500))
        if used + cpu > cap:
            break
        used += cpu
        bound.append(pod(f"run-{i}", ns=ns, cpu=cpu, mem=128, node_name="n1", priority_class=rng.choice(("low", "high")),
                         bound_at=NOW - 7200 + 60 * i))
    pending = pod("incoming", ns=rng.choice(("team-a", "team-b")), cpu=rng.choice((500, 1000, 2000, 3000)), mem=128,
                  priority_class=rng.choice(("low", "high", "high")))
    cfg = config({"preFilter": {"enabled": [{"name": "CapacityScheduling"}]},
                  "postFilter": {"enabled": [{"name": "CapacityScheduling"}], "disabled": [{"name": "*"}]},
                  "reserve": {"enabled": [{"name": "CapacityScheduling"}]}})
    return Case(name, "explain", cfg, classes + [node("n1", cap, 16384)] + quotas + bound, [pending],
                plugin="CapacityScheduling")


def _allocatable(rng: random.Random, name: str) -> Case:
    """NodeResourcesAllocatable prefers the smallest (Least) or largest (Most) node, weighing
    cpu and memory as its args say."""
    nodes = [node(f"n{i}", rng.choice((2000, 4000, 8000, 16000)), rng.choice((4096, 8192, 16384, 32768)))
             for i in range(1, rng.randint(2, 4) + 1)]
    args = {"mode": rng.choice(("Least", "Most")),
            "resources": [{"name": "cpu", "weight": rng.choice((1, 1 << 20))},
                          {"name": "memory", "weight": rng.choice((1, 1 << 10))}]}
    cfg = config({"score": {"enabled": [{"name": "NodeResourcesAllocatable", "weight": rng.randint(1, 5)}],
                            **NO_RESOURCE_SCORES}},
                 [{"name": "NodeResourcesAllocatable", "args": args}])
    return Case(name, "explain", cfg, nodes, [pod("p", cpu=rng.choice((0, 500, 1000)), mem=rng.choice((0, 256)))],
                plugin="NodeResourcesAllocatable")


def _nrt_object(node_name: str, zones: list[tuple[int, int]], policy: str, scope: str) -> dict[str, Any]:
    out = []
    for z, (cpu, mem_gi) in enumerate(zones):
        other = [{"name": f"node-{o}", "value": 10 if o == z else 21} for o in range(len(zones))]
        out.append({"name": f"node-{z}", "type": "Node", "costs": other, "resources": [
            {"name": "cpu", "capacity": "8", "allocatable": "8", "available": str(cpu)},
            {"name": "memory", "capacity": "32Gi", "allocatable": "32Gi", "available": f"{mem_gi}Gi"}]})
    return {"apiVersion": "topology.node.k8s.io/v1alpha2", "kind": "NodeResourceTopology",
            "metadata": {"name": node_name},
            "attributes": [{"name": "topologyManagerPolicy", "value": policy},
                           {"name": "topologyManagerScope", "value": scope}],
            "zones": out}


def _nrt(rng: random.Random, name: str) -> Case:
    """NodeResourceTopologyMatch: nodes whose NUMA cells (their NodeResourceTopology) cannot
    hold the Guaranteed pod alone are filtered out; the rest are scored by the strategy."""
    cases_nodes, objects = [], []
    policy = rng.choice(("single-numa-node", "single-numa-node", "restricted"))
    scope = rng.choice(("pod", "container"))
    for i in range(1, rng.randint(2, 4) + 1):
        cases_nodes.append(node(f"n{i}", 16000, 65536))
        objects.append(_nrt_object(f"n{i}", [(rng.randint(0, 8), rng.randint(2, 32)) for _ in range(2)], policy, scope))
    strategy = rng.choice(("LeastAllocated", "MostAllocated", "BalancedAllocation", "LeastNUMANodes"))
    cfg = config({"filter": {"enabled": [{"name": "NodeResourceTopologyMatch"}]},
                  "score": {"enabled": [{"name": "NodeResourceTopologyMatch", "weight": 5}], **NO_RESOURCE_SCORES}},
                 [{"name": "NodeResourceTopologyMatch", "args": {"scoringStrategy": {"type": strategy}}}])
    p = pod("db", cpu=1000 * rng.randint(1, 6), mem=1024 * rng.choice((1, 4, 8)),
            qos=rng.choice(("Guaranteed", "Guaranteed", "Burstable")))
    return Case(name, "explain", cfg, cases_nodes + objects, [p], plugin="NodeResourceTopologyMatch")


def _toleration(rng: random.Random, name: str) -> Case:
    """PreemptionToleration: victims whose PriorityClass tolerates the preemptor's priority
    (minimum-preemptable-priority above it, for toleration-seconds) are spared."""
    annotations = {}
    if rng.random() < 0.7:
        annotations["preemption-toleration.scheduling.x-k8s.io/minimum-preemptable-priority"] = str(
            rng.choice((500, 2000, 20000)))
        annotations["preemption-toleration.scheduling.x-k8s.io/toleration-seconds"] = str(
            rng.choice((-1, 0, 86400)))
    classes = [priority_class("batch-tolerant", 100, annotations), priority_class("batch", 100),
               priority_class("service", 1000), priority_class("critical", 10000)]
    nodes = [node(f"n{i}", 2000, 8192) for i in (1, 2)]
    bound = []
    for i, n in enumerate(("n1", "n1", "n2", "n2")):
        bound.append(pod(f"run-{i}", cpu=1000, mem=256, node_name=n, bound_at=NOW - 7200 + 60 * i,
                         priority_class=rng.choice(("batch-tolerant", "batch-tolerant", "batch", "service"))))
    cfg = config({"postFilter": {"enabled": [{"name": "PreemptionToleration"}], "disabled": [{"name": "*"}]}})
    p = pod("preemptor", cpu=rng.choice((1000, 2000)), mem=256, priority_class=rng.choice(("service", "critical")))
    return Case(name, "explain", cfg, classes + nodes + bound, [p], plugin="PreemptionToleration")


SHOP = ("frontend", "cart", "redis")


def _appgroup(max_costs: tuple[int, int]) -> dict[str, Any]:
    def wl(name: str) -> dict[str, Any]:
        kind = "StatefulSet" if name == "redis" else "Deployment"
        return {"kind": kind, "apiVersion": "apps/v1", "namespace": "default", "name": name, "selector": name}

    return {"apiVersion": "appgroup.diktyo.x-k8s.io/v1alpha1", "kind": "AppGroup",
            "metadata": {"name": "shop", "namespace": "default"},
            "spec": {"numMembers": 3, "topologySortingAlgorithm": "ReverseKahn", "workloads": [
                {"workload": wl("frontend"), "dependencies": [{"workload": wl("cart"), "maxNetworkCost": max_costs[0]}]},
                {"workload": wl("cart"), "dependencies": [{"workload": wl("redis"), "maxNetworkCost": max_costs[1]}]},
                {"workload": wl("redis")}]},
            # The AppGroup controller writes this; none runs (ReverseKahn: redis, cart, frontend).
            "status": {"topologyOrder": [{"workload": wl("redis"), "index": 1}, {"workload": wl("cart"), "index": 2},
                                         {"workload": wl("frontend"), "index": 3}]}}


NETWORK_TOPOLOGY = {
    "apiVersion": "networktopology.diktyo.x-k8s.io/v1alpha1", "kind": "NetworkTopology",
    "metadata": {"name": "nt-default", "namespace": "default"},
    "spec": {"configmapName": "netperf-metrics", "weights": [{"name": "UserDefined", "topologyList": [
        {"topologyKey": "topology.kubernetes.io/region", "originList": [
            {"origin": "west", "costList": [{"destination": "east", "networkCost": 20}]},
            {"origin": "east", "costList": [{"destination": "west", "networkCost": 20}]}]},
        {"topologyKey": "topology.kubernetes.io/zone", "originList": [
            {"origin": "z1", "costList": [{"destination": "z2", "networkCost": 8}]},
            {"origin": "z2", "costList": [{"destination": "z1", "networkCost": 8}]},
            {"origin": "z3", "costList": [{"destination": "z4", "networkCost": 4}]},
            {"origin": "z4", "costList": [{"destination": "z3", "networkCost": 4}]}]}]}]}}
NETWORK_CONFIG = config({
    "queueSort": {"enabled": [{"name": "TopologicalSort"}], "disabled": [{"name": "*"}]},
    "preFilter": {"enabled": [{"name": "NetworkOverhead"}]}, "filter": {"enabled": [{"name": "NetworkOverhead"}]},
    "score": {"enabled": [{"name": "NetworkOverhead", "weight": 5}], "disabled": [{"name": "NodeResourcesFit"}]}},
    [{"name": "TopologicalSort", "args": {"namespaces": ["default"]}},
     {"name": "NetworkOverhead", "args": {"namespaces": ["default"], "weightsName": "UserDefined",
                                          "networkTopologyName": "nt-default"}}])


def _shop_pod(name: str, workload: str, **kw: Any) -> dict[str, Any]:
    return pod(name, labels={"app": workload, "appgroup.diktyo.x-k8s.io": "shop",
                             "appgroup.diktyo.x-k8s.io.workload": workload}, **kw)


def _network_nodes() -> list[dict[str, Any]]:
    return [node(n, 4000, 16384, labels={"topology.kubernetes.io/region": r, "topology.kubernetes.io/zone": z})
            for n, r, z in (("e1", "east", "z3"), ("e2", "east", "z4"), ("w1", "west", "z1"), ("w2", "west", "z2"))]


def _network_overhead(rng: random.Random, name: str) -> Case:
    """NetworkOverhead: a pod of the shop's AppGroup scored (and filtered) by the network cost
    to the pods of the workloads it depends on, as the NetworkTopology prices it."""
    max_costs = (rng.choice((0, 5, 10, 20)), rng.choice((0, 4, 5, 10)))
    nodes = _network_nodes()
    bound = []
    for i in range(rng.randint(1, 3)):
        wl = rng.choice(SHOP)
        bound.append(_shop_pod(f"{wl}-{i}", wl, cpu=500, mem=256, node_name=rng.choice(("e1", "e2", "w1", "w2")),
                               bound_at=NOW - 7200 + 60 * i))
    p = _shop_pod("incoming", rng.choice(("frontend", "cart", "cart")), cpu=500, mem=256)
    return Case(name, "explain", NETWORK_CONFIG, nodes + [_appgroup(max_costs), NETWORK_TOPOLOGY] + bound, [p],
                plugin="NetworkOverhead")


def _topological_sort(rng: random.Random, name: str) -> Case:
    """TopologicalSort: the shop's workloads queue in the AppGroup's topology order (redis,
    cart, frontend), so a node with room for some of them takes the first ones."""
    slots = rng.randint(1, 2)
    pods = [_shop_pod(f"{wl}-0", wl, cpu=500, mem=256) for wl in rng.sample(SHOP, 3)]
    nodes = [node("e1", 4000, 16384, pods=slots, labels={"topology.kubernetes.io/region": "east",
                                                          "topology.kubernetes.io/zone": "z3"})]
    cfg = config({"queueSort": {"enabled": [{"name": "TopologicalSort"}], "disabled": [{"name": "*"}]}},
                 [{"name": "TopologicalSort", "args": {"namespaces": ["default"]}}])
    return Case(name, "simulate", cfg, nodes + [_appgroup((20, 20))], pods, plugin="TopologicalSort")


def _pod_state(rng: random.Random, name: str) -> Case:
    """PodState prefers the nodes with the most terminating pods (room soon free); a pod being
    deleted stays Terminating on a real API server without a kubelet."""
    names = [f"n{i}" for i in range(1, rng.randint(2, 4) + 1)]
    nodes = [node(n, 8000, 16384) for n in names]
    bound = []
    for i in range(rng.randint(1, 6)):
        p = pod(f"run-{i}", cpu=200, mem=128, node_name=rng.choice(names), bound_at=NOW - 7200 + 60 * i)
        if rng.random() < 0.6:
            p["metadata"]["deletionTimestamp"] = stamp(NOW + 30)
            p["metadata"]["deletionGracePeriodSeconds"] = 30
        bound.append(p)
    cfg = config({"score": {"enabled": [{"name": "PodState", "weight": rng.randint(1, 5)}], **NO_RESOURCE_SCORES}})
    return Case(name, "explain", cfg, nodes + bound, [pod("p", cpu=100, mem=64)], plugin="PodState")


def _metrics(nodes: list[str], rng: random.Random, window_end: int) -> dict[str, Any]:
    data = {}
    for n in nodes:
        data[n] = {"metrics": [
            {"name": "cpu", "type": "CPU", "operator": "AVG", "rollup": "AVERAGE", "value": rng.randint(0, 95)},
            {"name": "cpu", "type": "CPU", "operator": "STD", "rollup": "STDDEV", "value": rng.randint(0, 20)},
            {"name": "mem", "type": "Memory", "operator": "AVG", "rollup": "AVERAGE", "value": rng.randint(0, 95)},
            {"name": "mem", "type": "Memory", "operator": "STD", "rollup": "STDDEV", "value": rng.randint(0, 20)}]}
    return {"timestamp": window_end, "window": {"duration": "15m", "start": window_end - 900, "end": window_end},
            "source": "Prometheus", "data": {"NodeMetricsMap": data}}


def _trimaran(rng: random.Random, name: str) -> Case:
    """A Trimaran scorer on the load a (static) watcher reports. Bound pods were bound either
    after the window (both engines add their predicted use) or long before it (neither does)."""
    plugin = rng.choice(TRIMARAN)
    names = [f"n{i}" for i in range(1, rng.randint(2, 4) + 1)]
    nodes = [node(n, rng.choice((2000, 4000, 8000)), rng.choice((4096, 8192))) for n in names]
    recent = rng.random() < 0.5
    window_end = NOW - 600 if recent else NOW + 3600
    bound = [pod(f"run-{i}", cpu=rng.choice((200, 500, 1000)), mem=256, node_name=rng.choice(names),
                 limits_cpu=rng.choice((None, 2000)), bound_at=(NOW if recent else NOW - 7200) + i)
             for i in range(rng.randint(0, 3))]
    args: dict[str, Any] = {"watcherAddress": "http://load-watcher.invalid:2020"}
    if plugin == "TargetLoadPacking":
        args.update(targetUtilization=rng.choice((40, 60, 80)), defaultRequests={"cpu": "1000m"},
                    defaultRequestsMultiplier="1.5")
    elif plugin == "LoadVariationRiskBalancing":
        args.update(safeVarianceMargin=rng.choice((1, 2)), safeVarianceSensitivity=rng.choice((1, 2)))
    else:
        args.update(smoothingWindowSize=5, riskLimitWeights={"cpu": 0.5, "memory": 0.5})
    plugins: dict[str, Any] = {"score": {"enabled": [{"name": plugin}], **NO_RESOURCE_SCORES}}
    if plugin == "LowRiskOverCommitment":
        plugins["preScore"] = {"enabled": [{"name": plugin}]}
    p = pod("web", cpu=rng.choice((0, 250, 1000)), mem=rng.choice((0, 512)), limits_cpu=rng.choice((None, 2000)),
            qos=rng.choice(("Burstable", "Burstable", "Guaranteed")))
    return Case(name, "explain", config(plugins, [{"name": plugin, "args": args}]), nodes + bound, [p],
                metrics=_metrics(names, rng, window_end), plugin=plugin)


FAMILIES = (_qos_sort, _coscheduling, _capacity, _allocatable, _nrt, _toleration, _network_overhead,
            _topological_sort, _trimaran, _pod_state)


def generate(seed: int, index: int) -> Case:
    """Case ``index`` of ``seed``: the families in turn, each drawn from its own generator."""
    family = FAMILIES[index % len(FAMILIES)]
    rng = random.Random(f"sigs:{seed}:{index}")
    return family(rng, f"{seed}-{index:03d}-{family.__name__.strip('_').replace('_', '-')}")


def run(cp: SigsControlPlane, cases: Iterable[Case], workdir: Path, keep: Path | None = None,
        show: int = 20) -> tuple[int, int, list[str]]:
    """Runs ``cases``; returns (cases run, mismatches, their descriptions)."""
    total = mismatches = explained = 0
    found: list[str] = []
    started = time.perf_counter()
    for case in cases:
        total += 1
        diffs = run_case(cp, case, workdir)
        if diffs and case.explained:
            explained += 1
            print(f"--- {case.name} ({case.command}, {case.plugin}): explained: {case.explained}")
            for d in diffs:
                print(f"  {d}"[:900])
        elif diffs:
            mismatches += 1
            found.append(f"{case.name} ({case.plugin}): " + "; ".join(diffs))
            if keep:
                shutil.copytree(workdir / case.name, keep / case.name, dirs_exist_ok=True)
                (keep / case.name / "mismatch.txt").write_text("\n".join(diffs) + "\n")
            if mismatches <= show:
                print(f"--- {case.name} ({case.command}, {case.plugin}):")
                for d in diffs:
                    print(f"  {d}"[:900])
        shutil.rmtree(workdir / case.name, ignore_errors=True)
    print(f"wall {time.perf_counter() - started:.1f} s")
    print(f"{total} cases, {mismatches} mismatches" + (f" ({explained} explained differences besides)" if explained else ""))
    return total, mismatches, found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.realcluster_sigs", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=0, help="generated cases (the families in turn)")
    parser.add_argument("--first", type=int, default=0, help="index of the first generated case")
    parser.add_argument("--table", action="store_true", help="run the hand-made cases too")
    parser.add_argument("--only", help="run only the cases whose name contains this")
    parser.add_argument("--bin-dir", default=str(realcluster.BIN_DIR))
    parser.add_argument("--workdir", help="keep the control plane's files here")
    parser.add_argument("--keep", help="copy mismatching cases here")
    ns = parser.parse_args(argv)
    bin_dir = Path(ns.bin_dir)
    if not (realcluster.binaries_present(bin_dir) and binary_present(bin_dir)):
        print(f"realcluster_sigs: no control plane or no {SIGS_BINARY} in {bin_dir}; build them with "
              "`make -C oracle controlplane`", file=sys.stderr)
        return 2
    cases = (scenario_cases() if ns.table else []) + [generate(ns.seed, i) for i in range(ns.first, ns.first + ns.cases)]
    if ns.only:
        cases = [c for c in cases if ns.only in c.name]
    if not cases:
        print("realcluster_sigs: no case to run (give --cases N or --table)", file=sys.stderr)
        return 2
    workdir = Path(ns.workdir or tempfile.mkdtemp(prefix="kschedctl-realcluster-sigs-"))
    keep = Path(ns.keep) if ns.keep else None
    if keep:
        keep.mkdir(parents=True, exist_ok=True)
    try:
        with SigsControlPlane(workdir, bin_dir) as cp:
            _, mismatches, _ = run(cp, cases, workdir, keep=keep)
        return 1 if mismatches else 0
    except ControlPlaneError as exc:
        print(f"realcluster_sigs: {exc}".splitlines()[0], file=sys.stderr)
        return 2
    finally:
        if not ns.workdir:
            shutil.rmtree(workdir, ignore_errors=True)


SCENARIOS = realcluster.ROOT / "profiles" / "scenarios"


INFORMER_LAG = ("NetworkOverhead finds the pods of an AppGroup through the pod informer, which sees a "
                "pod's node once its binding has come back from the API server; a batch is scheduled faster "
                "than that, so upstream scores a batch's later pods without its earlier placements (at "
                "random between runs), where kschedctl counts them at once")


def bound_now(obj: dict[str, Any]) -> dict[str, Any]:
    """A bound pod as the Trimaran plugins of a scheduler started now see it: their pod
    handler stamps a pod with the time its informer first lists it (now), where kschedctl reads
    the PodScheduled condition; the condition is set to now so that both read the same time."""
    if obj.get("kind") != "Pod" or not (obj.get("spec") or {}).get("nodeName"):
        return obj
    obj = copy.deepcopy(obj)
    status = obj.setdefault("status", {})
    conditions = [c for c in status.get("conditions") or [] if c.get("type") != "PodScheduled"]
    status["conditions"] = conditions + [{"type": "PodScheduled", "status": "True", "lastTransitionTime": stamp(NOW)}]
    return obj


def window_before_now(metrics: dict[str, Any], before: int = 600) -> dict[str, Any]:
    """``metrics`` with their window ending ``before`` seconds ago (its length kept): every pod
    bound now is one the metrics cannot show yet, for both engines."""
    metrics = copy.deepcopy(metrics)
    window = metrics.setdefault("window", {})
    length = int(window.get("end", 0)) - int(window.get("start", 0)) or 900
    window["end"] = NOW - before
    window["start"] = window["end"] - length
    metrics["timestamp"] = window["end"]
    return metrics


def scenario_cases(directory: Path = SCENARIOS) -> list[Case]:
    """The hand-made cases: the shipped scenarios (profiles/scenarios/*.yaml) whose
    configuration names scheduler-plugins plugins and whose pods are Pods, with the profile the
    scenario picks as the only one (named as the pods name their scheduler, so both engines run
    it for every pod); a scenario that simulates is a simulate case, else each of its pods is explained."""
    cases = []
    for path in sorted(directory.glob("*.yaml")):
        for n, doc in enumerate(d for d in yaml.safe_load_all(path.read_text()) if isinstance(d, dict)):
            if doc.get("kind") != "Scenario" or not doc.get("config"):
                continue
            cfg = yaml.safe_load((path.parent / doc["config"]).read_text())
            if not names_sigs_plugins(cfg):
                continue
            profiles = cfg.get("profiles") or [{}]
            chosen = next((p for p in profiles if p.get("schedulerName") == doc.get("profile")), profiles[0])
            clusters = doc["cluster"] if isinstance(doc["cluster"], list) else [doc["cluster"]]
            if not all(isinstance(c, str) for c in clusters):
                continue
            cluster = realcluster.read_documents(str(path.parent / c) for c in clusters)
            entries = doc.get("pods") or []
            if not all(isinstance(e, str) for e in entries):
                continue
            pods = realcluster.read_documents(str(path.parent / p) for p in entries)
            if not pods or any(p.get("kind") != "Pod" for p in pods):
                continue  # workloads: kschedctl names their pods itself
            names = {p.get("spec", {}).get("schedulerName") or "default-scheduler" for p in pods}
            if len(names) != 1:
                continue
            cfg = dict(cfg, profiles=[dict(chosen, schedulerName=names.pop())])
            metrics = json.loads((path.parent / doc["metrics"]).read_text()) if doc.get("metrics") else None
            if metrics is not None:
                cluster = [bound_now(o) for o in cluster]
                metrics = window_before_now(metrics)
            plugin = ",".join(sorted({e.get("name") for pt in (chosen.get("plugins") or {}).values()
                                      for e in (pt or {}).get("enabled") or []} & SIGS_PLUGINS))
            base = f"{path.stem}-{n}"
            if any("simulate" in (e or {}) for e in doc.get("expect") or []):
                explained = INFORMER_LAG if "NetworkOverhead" in plugin else ""
                cases.append(Case(base, "simulate", cfg, cluster, pods, metrics=metrics, plugin=plugin,
                                  explained=explained))
            else:
                cases += [Case(f"{base}-{p['metadata']['name']}", "explain", cfg, cluster, [p], metrics=metrics,
                               plugin=plugin) for p in pods]
    return cases


if __name__ == "__main__":
    sys.exit(main())
