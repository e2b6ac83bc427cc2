"""kube-scheduler as it runs: a real control plane (etcd, kube-apiserver, kube-scheduler v1.34.4).

    python -m benchmarks.realcluster explain|simulate PODS... --cluster PATH [--config C] -o json
    python -m benchmarks.realcluster --seed S --cases N [--simulate-cases M] [--extender-cases E]
    python -m benchmarks.realcluster up|down --workdir DIR

The binaries come from ``make -C oracle controlplane`` (oracle/bin/{etcd,kube-apiserver,
kube-scheduler}, built from the Go module proxy at v1.34.4). The objects of a case are created
through the API (nodes get their status through the status subresource, bound pods theirs), the
real scheduler decides, and the answer is printed in kschedctl's JSON form for the fields a
running scheduler shows: ``outcome``, ``selectedNode``, ``message`` (the PodScheduled condition's
message, which is the FailedScheduling event's) and ``preemption`` (the nominated node and the
pods it deleted).

Without arguments but ``--seed``/``--cases`` it runs the in-process differential's cases
(``benchmarks.diffgen``) through the real scheduler and through kschedctl and compares them:
the real node is in kschedctl's top-scoring set, the messages agree word for word, preemption
names the same node and victims. Simulate cases run as batches (``batch``: every pod pending
before the scheduler starts) beside ``kschedctl simulate`` on a snapshot of the API server,
attempt by attempt as the scheduler's log tells them (``read_attempts``, ``compare_batch``);
``TestExtender`` is an HTTP extender both engines call. It ends with ``N cases, M mismatches``.

What a real API server does to the objects on the way in, and this module undoes or works around
(no kubelet nor controller-manager runs):
- admission taints every new Node ``node.kubernetes.io/not-ready:NoSchedule``: the node's own
  taints are written back by an update once it exists;
- ServiceAccount admission rejects pods whose namespace has no ``default`` service account (the
  controller-manager would create it): it is created with the namespace;
- PVC/PV protection finalizers would keep deleted volumes forever: removed before deleting;
- bound pods deleted with a grace period stay Terminating: cleanup deletes with grace 0.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Iterable, Iterator

import yaml

from kschedctl.errors import KschedctlError

ROOT = Path(__file__).resolve().parent.parent
BIN_DIR = ROOT / "oracle" / "bin"
BINARIES = ("etcd", "kube-apiserver", "kube-scheduler")
ADMIN_TOKEN = "kschedctl-admin-token"
SCHEDULER_TOKEN = "kschedctl-scheduler-token"
READER_TOKEN = "kschedctl-reader-token"

# kind -> (API path prefix, plural, namespaced); creation follows this order, so what an object
# refers to exists before it (claims before volumes, whose claimRef.uid is rewritten).
KINDS: dict[str, tuple[str, str, bool]] = {
    "Namespace": ("api/v1", "namespaces", False),
    "PriorityClass": ("apis/scheduling.k8s.io/v1", "priorityclasses", False),
    "RuntimeClass": ("apis/node.k8s.io/v1", "runtimeclasses", False),
    "StorageClass": ("apis/storage.k8s.io/v1", "storageclasses", False),
    "CSIDriver": ("apis/storage.k8s.io/v1", "csidrivers", False),
    "Node": ("api/v1", "nodes", False),
    "CSINode": ("apis/storage.k8s.io/v1", "csinodes", False),
    "DeviceClass": ("apis/resource.k8s.io/v1", "deviceclasses", False),
    "ResourceSlice": ("apis/resource.k8s.io/v1", "resourceslices", False),
    "ResourceClaim": ("apis/resource.k8s.io/v1", "resourceclaims", True),
    "PersistentVolumeClaim": ("api/v1", "persistentvolumeclaims", True),
    "PersistentVolume": ("api/v1", "persistentvolumes", False),
    "Service": ("api/v1", "services", True),
    "ReplicaSet": ("apis/apps/v1", "replicasets", True),
    "StatefulSet": ("apis/apps/v1", "statefulsets", True),
    "ReplicationController": ("api/v1", "replicationcontrollers", True),
    "PodDisruptionBudget": ("apis/policy/v1", "poddisruptionbudgets", True),
    "Pod": ("api/v1", "pods", True),
}
WITH_STATUS = {"Node", "Pod", "PersistentVolume", "PersistentVolumeClaim", "ResourceClaim", "PodDisruptionBudget"}
#: Holds a pod the cluster file shows terminating (deletionTimestamp set) while it is deleted.
TERMINATING_FINALIZER = "kschedctl.test/terminating"
PROTECTED_NAMESPACES = {"default", "kube-system", "kube-public", "kube-node-lease"}

AUDIT_POLICY = """apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Metadata
"""


class ControlPlaneError(RuntimeError):
    pass


STATE_FILE = "controlplane.json"


def _runs(pid: int, binary: Path) -> bool:
    """``pid`` is alive and still runs ``binary`` (not a recycled PID)."""
    if not Path("/proc/self").exists():  # no procfs: alive is all that can be told
        try:
            os.kill(pid, 0)
            return True
        except OSError:
            return False
    try:
        argv0 = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0", 1)[0].decode(errors="replace")
    except OSError:
        return False
    return Path(argv0).name == binary.name


def _terminate(pid: int, timeout: float = 20) -> None:
    """SIGTERM, then SIGKILL after ``timeout``, for a process this one did not start."""
    try:
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            os.kill(pid, 0)
            time.sleep(0.1)
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def binaries_present(bin_dir: Path = BIN_DIR) -> bool:
    return all((bin_dir / name).is_file() and os.access(bin_dir / name, os.X_OK) for name in BINARIES)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Api:
    """A minimal JSON client for one API server and one bearer token."""

    def __init__(self, url: str, token: str) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.ssl = ssl.create_default_context()
        self.ssl.check_hostname = False
        self.ssl.verify_mode = ssl.CERT_NONE  # the API server's self-signed serving certificate

    def request(self, method: str, path: str, body: Any = None, *, content_type: str = "application/json",
                ok_missing: bool = False, timeout: float = 30) -> Any:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"{self.url}/{path.lstrip('/')}", data=data, method=method)
        req.add_header("Authorization", f"Bearer {self.token}")
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(req, context=self.ssl, timeout=timeout) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as exc:
            if ok_missing and exc.code == 404:
                return None
            detail = exc.read().decode(errors="replace")[:400]
            raise ControlPlaneError(f"{method} {path}: HTTP {exc.code}: {detail}") from None
        return json.loads(raw) if raw else None

    def get(self, path: str, **kw: Any) -> Any:
        return self.request("GET", path, **kw)


class ControlPlane:
    """etcd + kube-apiserver (RBAC, static tokens, default admission, an audit log) and, on
    demand, kube-scheduler with a given KubeSchedulerConfiguration, all on loopback ports, in
    ``workdir``; ``stop`` ends each process by its PID."""

    def __init__(self, workdir: Path, bin_dir: Path = BIN_DIR) -> None:
        self.workdir = Path(workdir)
        self.bin_dir = Path(bin_dir)
        self.procs: dict[str, subprocess.Popen] = {}
        self.url = ""
        self.admin: Api | None = None
        self.audit_log = self.workdir / "audit.log"
        self.scheduler_config: dict[str, Any] | None = None
        # etcd and kube-apiserver another invocation started (``up``): left running by stop().
        self.attached: dict[str, int] = {}

    # -- a control plane kept running between invocations ------------------------------------
    def save_state(self) -> None:
        """Writes what another invocation needs to attach (``up``)."""
        state = {"url": self.url, "etcdUrl": self.etcd_url, "binDir": str(self.bin_dir),
                 "pids": {name: proc.pid for name, proc in self.procs.items() if name != "kube-scheduler"}}
        (self.workdir / STATE_FILE).write_text(json.dumps(state, indent=2) + "\n")

    @classmethod
    def attach(cls, workdir: Path) -> "ControlPlane | None":
        """The control plane ``up`` left running in ``workdir``, when its processes still run and
        the API server answers; None otherwise (a stale state file is removed)."""
        path = Path(workdir) / STATE_FILE
        try:
            state = json.loads(path.read_text())
        except (OSError, ValueError):
            return None
        cp = cls(Path(workdir), Path(state.get("binDir") or BIN_DIR))
        pids = {str(k): int(v) for k, v in (state.get("pids") or {}).items()}
        if set(pids) != {"etcd", "kube-apiserver"} or not all(_runs(pid, cp.bin_dir / name) for name, pid in pids.items()):
            path.unlink(missing_ok=True)
            return None
        cp.url, cp.etcd_url, cp.attached = state["url"], state["etcdUrl"], pids
        cp.admin = Api(cp.url, ADMIN_TOKEN)
        if not cp._ready():
            return None
        return cp

    def shutdown(self) -> None:
        """Stops everything, the processes another invocation started included (``down``)."""
        self.stop()
        for name in ("kube-apiserver", "etcd"):
            pid = self.attached.pop(name, None)
            if pid is not None and _runs(pid, self.bin_dir / name):
                _terminate(pid)
        (self.workdir / STATE_FILE).unlink(missing_ok=True)

    # -- lifecycle --------------------------------------------------------------------------
    def start(self, timeout: float = 180) -> "ControlPlane":
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._write_credentials()
        for attempt in range(3):  # a port picked free may be taken before the server binds it
            try:
                self._start_etcd(timeout)
                self._start_apiserver(timeout)
                return self
            except ControlPlaneError:
                self.stop()
                if attempt == 2:
                    raise
        return self

    def _write_credentials(self) -> None:
        (self.workdir / "tokens.csv").write_text(
            f'{ADMIN_TOKEN},kschedctl-admin,uid-admin,"system:masters"\n'
            f'{SCHEDULER_TOKEN},system:kube-scheduler,uid-scheduler\n'
            f'{READER_TOKEN},kschedctl-reader,uid-reader\n')
        key = self.workdir / "sa.key"
        if not key.exists():
            subprocess.run(["openssl", "genrsa", "-out", str(key), "2048"], check=True, capture_output=True)
            subprocess.run(["openssl", "rsa", "-in", str(key), "-pubout", "-out", str(self.workdir / "sa.pub")],
                           check=True, capture_output=True)
        (self.workdir / "audit-policy.yaml").write_text(AUDIT_POLICY)

    def _spawn(self, name: str, args: list[str], binary: str | None = None) -> subprocess.Popen:
        log = open(self.workdir / f"{name}.log", "ab")
        proc = subprocess.Popen([str(self.bin_dir / (binary or name)), *args], stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        log.close()
        self.procs[name] = proc
        return proc

    def _start_etcd(self, timeout: float) -> None:
        client, peer = free_port(), free_port()
        self.etcd_url = f"http://127.0.0.1:{client}"
        data = self.workdir / "etcd-data"
        shutil.rmtree(data, ignore_errors=True)
        proc = self._spawn("etcd", [
            "--name", "default", "--data-dir", str(data),
            "--listen-client-urls", self.etcd_url, "--advertise-client-urls", self.etcd_url,
            "--listen-peer-urls", f"http://127.0.0.1:{peer}",
            "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer}",
            "--initial-cluster", f"default=http://127.0.0.1:{peer}",
            "--unsafe-no-fsync", "--log-level", "warn"])
        self._wait(lambda: _http_ok(f"{self.etcd_url}/health"), proc, "etcd", timeout)

    def _start_apiserver(self, timeout: float) -> None:
        port = free_port()
        self.url = f"https://127.0.0.1:{port}"
        w = self.workdir
        proc = self._spawn("kube-apiserver", [
            f"--etcd-servers={self.etcd_url}", f"--secure-port={port}", "--bind-address=127.0.0.1",
            "--advertise-address=127.0.0.1", f"--cert-dir={w / 'certs'}",
            f"--token-auth-file={w / 'tokens.csv'}", "--authorization-mode=Node,RBAC",
            "--service-account-issuer=https://kubernetes.default.svc",
            f"--service-account-key-file={w / 'sa.pub'}", f"--service-account-signing-key-file={w / 'sa.key'}",
            "--service-cluster-ip-range=10.0.0.0/24", "--endpoint-reconciler-type=none",
            f"--audit-log-path={self.audit_log}", f"--audit-policy-file={w / 'audit-policy.yaml'}",
            "--audit-log-mode=blocking"])
        self.admin = Api(self.url, ADMIN_TOKEN)
        self._wait(self._ready, proc, "kube-apiserver", timeout)
        self._wait(self._rbac_ready, proc, "kube-apiserver (RBAC bootstrap)", timeout)

    def _ready(self) -> bool:
        try:
            self.admin.get("readyz", timeout=5)  # type: ignore[union-attr]
            return True
        except (ControlPlaneError, OSError, json.JSONDecodeError):
            # /readyz answers "ok" (not JSON) once ready.
            return _http_ok(f"{self.url}/readyz", token=ADMIN_TOKEN)

    def _rbac_ready(self) -> bool:
        try:
            return self.admin.get("apis/rbac.authorization.k8s.io/v1/clusterroles/system:kube-scheduler",  # type: ignore[union-attr]
                                  ok_missing=True) is not None
        except (ControlPlaneError, OSError):
            return False

    def _wait(self, check: Any, proc: subprocess.Popen, what: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise ControlPlaneError(f"{what} exited with {proc.returncode}; see {self.workdir}")
            if check():
                return
            time.sleep(0.2)
        raise ControlPlaneError(f"{what} not ready after {timeout:.0f} s; see {self.workdir}")

    def kubeconfig(self, token: str = ADMIN_TOKEN, name: str = "admin") -> Path:
        path = self.workdir / f"{name}.kubeconfig"
        path.write_text(yaml.safe_dump({
            "apiVersion": "v1", "kind": "Config", "current-context": "real",
            "clusters": [{"name": "real", "cluster": {"server": self.url, "insecure-skip-tls-verify": True}}],
            "users": [{"name": name, "user": {"token": token}}],
            "contexts": [{"name": "real", "context": {"cluster": "real", "user": name}}]}))
        return path

    def start_scheduler(self, config: dict[str, Any] | None = None, verbosity: int = 2) -> None:
        """(Re)starts kube-scheduler with ``config`` (None: the defaults), as system:kube-scheduler;
        ``verbosity`` 3 logs each attempt ("Attempting to schedule pod"), which a batch reads."""
        self.stop_scheduler()
        cfg = dict(config or {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"})
        cfg["clientConnection"] = {"kubeconfig": str(self.kubeconfig(SCHEDULER_TOKEN, "scheduler")),
                                   "qps": 1000, "burst": 1000}
        cfg["leaderElection"] = {"leaderElect": False}
        path = self.workdir / "scheduler-config.yaml"
        path.write_text(yaml.safe_dump(cfg, sort_keys=False))
        self.scheduler_config = cfg
        log = self.workdir / "kube-scheduler.log"
        #: Where this scheduler's lines start in its log (the file is appended to).
        self.log_offset = log.stat().st_size if log.exists() else 0
        self._spawn("kube-scheduler", [f"--config={path}", "--secure-port=0", f"-v={verbosity}"],
                    binary=self.scheduler_binary(cfg))

    def scheduler_binary(self, config: dict[str, Any]) -> str:
        """The binary in ``bin_dir`` that runs ``config`` (benchmarks.realcluster_sigs picks
        scheduler-plugins' own scheduler for their plugins)."""
        return "kube-scheduler"

    def check_scheduler(self) -> None:
        """Raises with the log's last line when kube-scheduler has exited (a configuration it
        rejects, such as scheduler-plugins' plugins, which this binary does not have)."""
        proc = self.procs.get("kube-scheduler")
        if proc is not None and proc.poll() is not None:
            lines = (self.workdir / "kube-scheduler.log").read_text(errors="replace").strip().splitlines()
            raise ControlPlaneError(f"kube-scheduler exited with {proc.returncode}: {lines[-1] if lines else ''}"[:500])

    def stop_scheduler(self) -> None:
        self._stop("kube-scheduler")

    def _stop(self, name: str) -> None:
        proc = self.procs.pop(name, None)
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)  # kube-scheduler exits 1 on a normal stop ("finished without leader elect")
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)

    def stop(self) -> None:
        for name in ("kube-scheduler", "kube-apiserver", "etcd"):
            self._stop(name)

    def __enter__(self) -> "ControlPlane":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # -- objects ----------------------------------------------------------------------------
    def load(self, objects: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """Creates ``objects`` (kinds in dependency order); returns the pods created, pending
        ones last in list order (namespace, name) as a freshly started scheduler queues them."""
        api = self.admin
        assert api is not None
        objs = [_clean(o) for o in objects if o.get("kind") in KINDS]
        unknown = sorted({o.get("kind") for o in objects} - set(KINDS) - {None})
        if unknown:
            print(f"realcluster: not created (kind not handled): {', '.join(unknown)}", file=sys.stderr)
        order = list(KINDS)
        objs.sort(key=lambda o: order.index(o["kind"]))
        namespaces = {o["metadata"].get("namespace") or "default" for o in objs if KINDS[o["kind"]][2]}
        namespaces |= {o["metadata"]["name"] for o in objs if o["kind"] == "Namespace"}
        for ns in sorted(namespaces):
            if ns not in PROTECTED_NAMESPACES and api.get(f"api/v1/namespaces/{ns}", ok_missing=True) is None:
                labels = next((o["metadata"].get("labels") for o in objs
                               if o["kind"] == "Namespace" and o["metadata"]["name"] == ns), None)
                api.request("POST", "api/v1/namespaces",
                            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns, "labels": labels or {}}})
            if api.get(f"api/v1/namespaces/{ns}/serviceaccounts/default", ok_missing=True) is None:
                api.request("POST", f"api/v1/namespaces/{ns}/serviceaccounts",
                            {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default"}})
        claim_uids: dict[tuple[str, str], str] = {}
        pods: list[dict[str, Any]] = []
        owned: list[dict[str, Any]] = []
        for obj in objs:
            kind = obj["kind"]
            if kind == "Namespace":
                continue
            if kind == "Pod" and not obj["spec"].get("nodeName"):
                pods.append(obj)
                continue
            if kind == "PersistentVolume":
                ref = obj["spec"].get("claimRef")
                if ref and (ref.get("namespace"), ref.get("name")) in claim_uids:
                    ref["uid"] = claim_uids[(ref["namespace"], ref["name"])]
            created = self.create(obj)
            if any(r.get("kind") == "Pod" for r in created["metadata"].get("ownerReferences") or []):
                owned.append(created)
            if kind == "PersistentVolumeClaim":
                claim_uids[(created["metadata"]["namespace"], created["metadata"]["name"])] = created["metadata"]["uid"]
            if kind == "Pod":
                pods.append(created)
        pending = sorted((p for p in pods if not p["spec"].get("nodeName")),
                         key=lambda p: (p["metadata"].get("namespace") or "default", p["metadata"]["name"]))
        created_pods = [p for p in pods if p["spec"].get("nodeName")] + [self.create(p) for p in pending]
        self._adopt(owned, created_pods)
        return created_pods

    def _adopt(self, owned: list[dict[str, Any]], pods: list[dict[str, Any]]) -> None:
        """Points the owner references of claims made for a pod (a generic ephemeral volume's
        PVC, a ResourceClaim from a template) at the pod's uid as the API server gave it: the
        scheduler refuses a claim its pod does not own ("pod is not owner")."""
        uids = {(p["metadata"]["namespace"], p["metadata"]["name"]): p["metadata"]["uid"] for p in pods}
        for obj in owned:
            meta = obj["metadata"]
            refs = [dict(r, uid=uids.get((meta["namespace"], r.get("name")), r.get("uid")))
                    if r.get("kind") == "Pod" else r for r in meta["ownerReferences"]]
            if refs != meta["ownerReferences"]:
                prefix, plural, _ = KINDS[obj["kind"]]
                self.admin.request("PATCH", f"{prefix}/namespaces/{meta['namespace']}/{plural}/{meta['name']}",  # type: ignore[union-attr]
                                   {"metadata": {"ownerReferences": refs}},
                                   content_type="application/merge-patch+json")

    def create(self, obj: dict[str, Any]) -> dict[str, Any]:
        api = self.admin
        assert api is not None
        kind = obj["kind"]
        prefix, plural, namespaced = KINDS[kind]
        ns = obj["metadata"].get("namespace") or "default"
        base = f"{prefix}/namespaces/{ns}/{plural}" if namespaced else f"{prefix}/{plural}"
        status = obj.get("status")
        terminating = kind == "Pod" and bool(obj["metadata"].get("deletionTimestamp"))
        if terminating:
            # A terminating pod: created, then deleted while a finalizer holds it (no kubelet
            # would finish it either); it keeps its node and gets a deletionTimestamp of now.
            obj = json.loads(json.dumps(obj))
            for key in ("deletionTimestamp", "deletionGracePeriodSeconds"):
                obj["metadata"].pop(key, None)
            obj["metadata"]["finalizers"] = [*(obj["metadata"].get("finalizers") or []), TERMINATING_FINALIZER]
        created = api.request("POST", base, obj)
        name = created["metadata"]["name"]
        if kind == "Node":
            # Admission added node.kubernetes.io/not-ready:NoSchedule; no controller would lift it.
            created["spec"]["taints"] = (obj.get("spec") or {}).get("taints") or []
            if not created["spec"]["taints"]:
                created["spec"].pop("taints")
            created = api.request("PUT", f"{base}/{name}", created)
        if status and kind in WITH_STATUS:
            created["status"] = status
            created = api.request("PUT", f"{base}/{name}/status", created)
        if terminating:
            api.request("DELETE", f"{base}/{name}", {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 30})
            created = api.get(f"{base}/{name}")
        return created

    def clear(self) -> None:
        """Deletes every object of the kinds handled (grace 0, finalizers removed first)."""
        api = self.admin
        assert api is not None
        for kind in reversed(list(KINDS)):
            prefix, plural, namespaced = KINDS[kind]
            items = api.get(f"{prefix}/{plural}")["items"]
            for item in items:
                meta = item["metadata"]
                if kind == "Namespace" and meta["name"] in PROTECTED_NAMESPACES:
                    continue
                if kind == "PriorityClass" and meta["name"].startswith("system-"):
                    continue
                if kind == "Service" and meta["name"] == "kubernetes":
                    continue
                path = (f"{prefix}/namespaces/{meta['namespace']}/{plural}/{meta['name']}" if namespaced
                        else f"{prefix}/{plural}/{meta['name']}")
                if meta.get("finalizers"):
                    api.request("PATCH", path, {"metadata": {"finalizers": None}},
                                content_type="application/merge-patch+json", ok_missing=True)
                if kind == "Namespace":
                    continue  # deleting one needs the controller-manager; reused as they are
                api.request("DELETE", path, {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0},
                            ok_missing=True)

    def pod(self, namespace: str, name: str) -> dict[str, Any] | None:
        return self.admin.get(f"api/v1/namespaces/{namespace}/pods/{name}", ok_missing=True)  # type: ignore[union-attr]


def _http_ok(url: str, token: str | None = None) -> bool:
    req = urllib.request.Request(url)
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    try:
        with urllib.request.urlopen(req, context=ctx if url.startswith("https") else None, timeout=5) as resp:
            return resp.status == 200
    except (OSError, urllib.error.URLError):
        return False


def csi_driver_name(name: str) -> str:
    """A CSI driver name the API server accepts (a DNS subdomain): files written for kschedctl
    may say ``example.com/csi``, which it reads but validation rejects. The same rename on
    CSINodes, PVs, StorageClasses and CSIDrivers keeps what refers to what; the in-tree
    ``kubernetes.io/...`` provisioners are left as they are."""
    if "/" in name and not name.startswith("kubernetes.io/"):
        return name.replace("/", "-")
    return name


def _clean(obj: dict[str, Any]) -> dict[str, Any]:
    """A copy the API server accepts on create: no server-set metadata."""
    obj = json.loads(json.dumps(obj))
    meta = obj.setdefault("metadata", {})
    for key in ("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "selfLink"):
        meta.pop(key, None)
    kind = obj.get("kind")
    if kind == "CSINode":
        for d in (obj.get("spec") or {}).get("drivers") or []:
            d["name"] = csi_driver_name(d.get("name", ""))
    elif kind == "PersistentVolume" and (obj.get("spec") or {}).get("csi"):
        obj["spec"]["csi"]["driver"] = csi_driver_name(obj["spec"]["csi"].get("driver", ""))
    elif kind == "StorageClass":
        obj["provisioner"] = csi_driver_name(obj.get("provisioner", ""))
    elif kind == "CSIDriver":
        obj["metadata"]["name"] = csi_driver_name(obj["metadata"].get("name", ""))
    if kind in ("Pod", "Node"):
        obj.setdefault("spec", {})
    if obj.get("kind") == "Pod":
        # Priority admission computes these from priorityClassName and rejects a pod that
        # brings its own (a snapshot's pods carry them).
        obj["spec"].pop("priority", None)
        obj["spec"].pop("preemptionPolicy", None)
        for c in (obj["spec"].get("containers") or []) + (obj["spec"].get("initContainers") or []):
            requests = (c.get("resources") or {}).get("requests") or {}
            for name, value in requests.items():
                # Validation wants limit == request for extended resources (not overcommitted);
                # the scheduler reads only the request, which this leaves as it is.
                if name not in ("cpu", "memory", "ephemeral-storage") and not name.startswith("hugepages-"):
                    c["resources"].setdefault("limits", {}).setdefault(name, value)
    return obj


# -- the scheduler's decisions --------------------------------------------------------------

def _condition(pod: dict[str, Any]) -> dict[str, Any] | None:
    for c in (pod.get("status") or {}).get("conditions") or []:
        if c.get("type") == "PodScheduled":
            return c
    return None


def decision(pod: dict[str, Any] | None) -> dict[str, Any] | None:
    """The scheduler's answer for ``pod`` as far as it shows on the object, or None while it has
    not decided (no binding, no PodScheduled=False condition)."""
    if pod is None:
        return None
    node = pod["spec"].get("nodeName")
    cond = _condition(pod)
    if node:
        return {"outcome": "Scheduled", "selectedNode": node, "message": ""}
    if cond and cond.get("status") == "False":
        reason = cond.get("reason") or "Unschedulable"
        return {"outcome": "Unschedulable" if reason == "Unschedulable" else reason,
                "selectedNode": None, "message": cond.get("message") or "",
                "nominatedNode": (pod.get("status") or {}).get("nominatedNodeName")}
    return None


def complete_volume_bindings(cp: ControlPlane) -> None:
    """Finishes what the PV controller (not running) would after the scheduler's PreBind wrote a
    PersistentVolume's claimRef: the claim bound to it, both Bound. Without this the binding
    cycle waits for bindTimeoutSeconds and the pod is never bound."""
    api = cp.admin
    assert api is not None
    for pv in api.get("api/v1/persistentvolumes")["items"]:
        ref = pv["spec"].get("claimRef")
        if not ref or (pv.get("status") or {}).get("phase") == "Bound":
            continue
        base = f"api/v1/namespaces/{ref['namespace']}/persistentvolumeclaims/{ref['name']}"
        pvc = api.get(base, ok_missing=True)
        if pvc is None:
            continue
        if not pvc["spec"].get("volumeName"):
            pvc["spec"]["volumeName"] = pv["metadata"]["name"]
            pvc["metadata"].setdefault("annotations", {})["pv.kubernetes.io/bind-completed"] = "yes"
            pvc = api.request("PUT", base, pvc)
        pvc["status"] = {"phase": "Bound", "accessModes": pv["spec"].get("accessModes"),
                         "capacity": pv["spec"].get("capacity")}
        api.request("PUT", f"{base}/status", pvc)
        pv["status"] = {"phase": "Bound"}
        api.request("PUT", f"api/v1/persistentvolumes/{pv['metadata']['name']}/status", pv)


def _provisioning_on(cp: ControlPlane, pod: dict[str, Any]) -> dict[str, Any] | None:
    """A pod whose claim waits for a provisioner (none runs) was placed: PreBind named the node
    in the claim's selected-node annotation and waits there until bindTimeoutSeconds."""
    for vol in pod["spec"].get("volumes") or []:
        claim = (vol.get("persistentVolumeClaim") or {}).get("claimName")
        if not claim:
            continue
        pvc = cp.admin.get(f"api/v1/namespaces/{pod['metadata']['namespace']}/persistentvolumeclaims/{claim}",  # type: ignore[union-attr]
                           ok_missing=True)
        node = ((pvc or {}).get("metadata", {}).get("annotations") or {}).get("volume.kubernetes.io/selected-node")
        if node:
            return {"outcome": "Scheduled", "selectedNode": node, "message": ""}
    return None


def wait_decisions(cp: ControlPlane, pods: list[dict[str, Any]], timeout: float = 60,
                   settle: float = 1.5, batch: bool = False) -> dict[str, dict[str, Any]]:
    """Waits until every pod has a decision and none changed for ``settle`` seconds (a pod that
    preempts is nominated after its first failure; a later binding supersedes a failure).
    A failed pod keeps its first message; in a ``batch`` its last (that of its last attempt,
    which kschedctl simulate reports too), and a pod deleted after it was bound is
    ``Preempted`` (a later pod of the batch evicted it)."""
    keys = [(p["metadata"]["namespace"], p["metadata"]["name"]) for p in pods]
    gated = {k for k, p in zip(keys, pods) if p["spec"].get("schedulingGates")}
    deadline = time.monotonic() + timeout
    last: dict[str, Any] = {}
    first_message: dict[str, str] = {}
    bound_on: dict[str, str] = {}
    stable_since = time.monotonic()
    while True:
        now: dict[str, Any] = {}
        for ns, name in keys:
            key = f"{ns}/{name}"
            pod = cp.pod(ns, name)
            if batch and (pod is None or pod["metadata"].get("deletionTimestamp")):
                now[key] = ({"outcome": "Preempted", "selectedNode": bound_on[key], "message": ""} if key in bound_on
                            else {"outcome": "Deleted", "selectedNode": None, "message": ""})
                continue
            d = decision(pod)
            if (ns, name) in gated and pod is not None and pod["spec"].get("schedulingGates"):
                d = {"outcome": "Gated", "selectedNode": None, "message": ""}
            if d is None and pod is not None:
                d = _provisioning_on(cp, pod)
            if d and d["outcome"] == "Scheduled":
                bound_on[key] = d["selectedNode"]
            if d and d["outcome"] == "Unschedulable" and not batch:
                # A retry after the victims' deletion rewrites the message ("not eligible due
                # to a terminating pod..."); the first attempt's is the one explain answers.
                d["message"] = first_message.setdefault(key, d["message"])
            now[key] = d
        if any(v is None for v in now.values()):
            cp.check_scheduler()
            complete_volume_bindings(cp)
        if now != last:
            last, stable_since = now, time.monotonic()
        elif all(v is not None for v in now.values()) and time.monotonic() - stable_since >= settle:
            return now
        if time.monotonic() > deadline:
            return {k: v or {"outcome": "Timeout", "selectedNode": None, "message": ""} for k, v in now.items()}
        time.sleep(0.1)


def victims(cp: ControlPlane, before: list[dict[str, Any]]) -> list[str]:
    """Bound pods that were deleted (or are being deleted) since they were created."""
    out = []
    for p in before:
        ns, name = p["metadata"]["namespace"], p["metadata"]["name"]
        now = cp.pod(ns, name)
        if now is None or now["metadata"].get("deletionTimestamp") or now["metadata"]["uid"] != p["metadata"]["uid"]:
            out.append(f"{ns}/{name}")
    return sorted(out)


# -- batches --------------------------------------------------------------------------------

_LOG_LINE = re.compile(r'^[IWE]\d{4} [\d:.]+\s+\d+ [^\]]+\] "(?P<msg>(?:[^"\\]|\\.)*)"(?P<rest>.*)$')
_LOG_FIELD = re.compile(r'(\w+)=(?:"((?:[^"\\]|\\.)*)"|(\S+))')


def _go_unquote(text: str) -> str:
    """A Go %q string's body (klog quotes values so): JSON's escapes plus \\xNN."""
    try:
        return json.loads(f'"{text}"')
    except json.JSONDecodeError:
        return text.encode("latin-1", "backslashreplace").decode("unicode_escape", "replace")


def scheduler_log(cp: ControlPlane, offset: int = 0) -> list[tuple[str, dict[str, str]]]:
    """kube-scheduler's log from byte ``offset``: (message, fields) per structured line, in the
    order the scheduler wrote them (its scheduling cycles run one at a time, so attempts are
    in the order it popped the pods)."""
    path = cp.workdir / "kube-scheduler.log"
    with open(path, "rb") as f:
        f.seek(offset)
        text = f.read().decode(errors="replace")
    out = []
    for line in text.splitlines():
        m = _LOG_LINE.match(line)
        if not m:
            continue
        fields = {}
        for fm in _LOG_FIELD.finditer(m["rest"]):
            fields[fm[1]] = _go_unquote(fm[2]) if fm[2] is not None else fm[3]
        out.append((_go_unquote(m["msg"]), fields))
    return out


def _graceless(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Pods that die at once when deleted: preemption deletes its victims with their own grace
    period and, with no kubelet to finish them, a victim with one would stay Terminating on its
    node for ever (the preemptor then waits for it: "not eligible due to a terminating pod");
    kubelets end such pods within their grace period, which is what kschedctl simulate assumes."""
    out = []
    for obj in objects:
        if obj.get("kind") == "Pod" and "terminationGracePeriodSeconds" not in (obj.get("spec") or {}):
            obj = dict(obj, spec=dict(obj.get("spec") or {}, terminationGracePeriodSeconds=0))
        out.append(obj)
    return out


def read_attempts(log: list[tuple[str, dict[str, str]]]) -> tuple[list[dict[str, Any]], list[tuple[str, str, int]],
                                                                 dict[tuple[str, str], list[str]]]:
    """The scheduler's attempts from its log (-v=3), in order: pod, outcome (Scheduled,
    Unschedulable), node, message, the node a preemption nominated and its victims, the nodes
    the scan evaluated, and ``inFlight``: whether the attempt started while a preemption's
    victims were deleted through the API but not yet gone from the scheduler's cache (async
    preemption deletes them after the preemptor's cycle; the next cycles run meanwhile and still
    see them). Also the bindings (pod, node, evaluated nodes) and the victims per preemption."""
    attempts: list[dict[str, Any]] = []
    latest: dict[str, dict[str, Any]] = {}
    bindings: list[tuple[str, str, int]] = []
    preempted: dict[tuple[str, str], list[str]] = {}
    started: list[dict[str, Any]] = []  # every preemption: preemptor, node, its attempt, victims
    windows: list[dict[str, Any]] = []  # those whose victims may still be in the scheduler's cache
    gone: set[str] = set()
    for msg, f in log:
        pod = f.get("pod", "")
        if msg == "Attempting to schedule pod":
            windows = [w for w in windows if len(w["victims"]) < w["count"] or not w["victims"] <= gone]
            latest[pod] = {"pod": pod, "outcome": "", "node": "", "message": "", "nominatedNode": "", "victims": [],
                           "inFlight": bool(windows), "goneBefore": sorted(gone)}
            attempts.append(latest[pod])
        elif msg == "Unable to schedule pod; no fit; waiting" and pod in latest:
            latest[pod].update(outcome="Unschedulable", message=f.get("err", ""))
        elif msg == "the target node for the preemption is determined" and pod in latest:
            latest[pod]["nominatedNode"] = f.get("node", "")
        elif msg == "Start the preemption asynchronously":
            preemptor = f.get("preemptor", "")
            started.append({"preemptor": preemptor, "node": f.get("node", ""), "attempt": latest.get(preemptor),
                            "count": int(f.get("numVictims", "0") or 0), "victims": set()})
            windows.append(started[-1])
        elif msg in ("Preemptor Pod preempted victim Pod", "Victim Pod is already deleted"):
            preemptor, node, victim = f.get("preemptor", ""), f.get("node", ""), f.get("victim", "")
            preempted.setdefault((preemptor, node), []).append(victim)
            for w in started:
                # the attempt that chose the victims: a retry may have begun since
                if (w["preemptor"], w["node"]) == (preemptor, node) and len(w["victims"]) < w["count"]:
                    w["victims"].add(victim)
                    if w["attempt"] is not None:
                        w["attempt"]["victims"] = sorted(w["victims"])
                    break
            else:
                # A preemption that deletes its victims within the attempt (no "asynchronously"
                # line: scheduler-plugins' PreemptionToleration runs its evaluator synchronously).
                attempt = latest.get(preemptor)
                if attempt is not None and attempt["nominatedNode"] == node and victim not in attempt["victims"]:
                    attempt["victims"] = sorted([*attempt["victims"], victim])
        elif msg == "Delete event for scheduled pod":
            gone.add(pod)
        elif msg == "Attempting to bind pod to node" and pod in latest:
            latest[pod].update(outcome="Scheduled", node=f.get("node", ""))
        elif msg == "Successfully bound pod to node":
            evaluated = int(f.get("evaluatedNodes", "0") or 0)
            bindings.append((pod, f.get("node", ""), evaluated))
            if pod in latest:
                latest[pod]["evaluated"] = evaluated
    return attempts, bindings, preempted


def batch(cp: ControlPlane, cluster: list[dict[str, Any]], pods: list[dict[str, Any]],
          config: dict[str, Any] | None, timeout: float = 120, snapshot: Path | None = None) -> dict[str, Any]:
    """Pods created together, pending, before a freshly started scheduler: it queues them all
    (priority, then the API server's list order) and places them one after another. Returns
    ``placements`` (pod -> outcome, node, message, nominatedNode), ``attempts`` (the pods in
    the order the scheduler tried them, retries included), ``bindings`` (pod, node, in the
    order it decided them) and ``preemptions`` (preemptor, node, victims), read from the
    objects and from the scheduler's log. With ``snapshot``, ``kschedctl snapshot`` of the API
    server, taken once the objects exist and before the scheduler starts, is written there: the
    objects as the API server stores them (admission and create-time defaults applied, such as
    podAffinity's ``matchLabelKeys`` merged into the selectors of the running pods too)."""
    cp.stop_scheduler()
    cp.clear()
    created = cp.load(_graceless(cluster + [dict(p, kind="Pod") for p in pods]))
    pending = [p for p in created if not p["spec"].get("nodeName")]
    if snapshot is not None:
        from benchmarks.differential import run_kschedctl

        taken = run_kschedctl(["snapshot", "--kubeconfig", str(cp.kubeconfig()), "-o", "json", "-q"])
        if "error" in taken:
            raise ControlPlaneError(f"kschedctl snapshot: {taken['error']}")
        snapshot.write_text(json.dumps(taken))
    cp.start_scheduler(config, verbosity=3)
    decisions = wait_decisions(cp, pending, timeout=timeout, settle=3.0, batch=True)
    attempts, bindings, preempted = read_attempts(scheduler_log(cp, cp.log_offset))
    placements = {}
    last_bound = {pod: node for pod, node, _ in bindings}
    for key, d in decisions.items():
        if d["outcome"] == "Deleted" and key in last_bound:
            d = {"outcome": "Preempted", "selectedNode": last_bound[key], "message": ""}  # bound and gone between polls
        placements[key] = {"outcome": d["outcome"], "node": d.get("selectedNode") or "",
                           "message": d.get("message", ""), "nominatedNode": d.get("nominatedNode") or ""}
    return {"placements": placements, "attempts": attempts, "bindings": bindings,
            "preemptions": [{"pod": p, "node": n, "victims": sorted(v)} for (p, n), v in preempted.items()]}


def simulate_following(args: list[str], real: dict[str, Any]) -> tuple[dict[str, Any], list[tuple], list[str]]:
    """``kschedctl simulate`` (its own command line, in this process) made to follow the real
    scheduler where upstream is random, and nowhere else:

    - score ties: among the nodes sharing the top score it takes the one the real scheduler
      bound the pod to (upstream's selectHost picks one at random);
    - the scan window: where the real cycle that bound a pod examined another number of nodes
      than kschedctl's in-order scan (upstream's Filter runs on 16 goroutines and stops once
      it has enough feasible nodes: the nodes checked before the stop reached every goroutine,
      and so the next cycle's start index, depend on timing), the next start index is the
      real one, and the real node is taken if kschedctl found it feasible.

    Everything else is kschedctl's own: queue order, retries, preemption. Returns the result,
    its cycles (pod, outcome, node, tied nodes, evaluated) in order, and notes on where the
    scan windows differed."""
    from benchmarks.differential import run_kschedctl
    from kschedctl.scheduler import simulate as simulate_module
    from kschedctl.scheduler.schedule_one import Scheduler

    real_nodes = {k: v["node"] for k, v in real["placements"].items() if v["node"]}
    real_evaluated = {pod: evaluated for pod, _node, evaluated in real["bindings"]}
    cycles: list[tuple] = []
    notes: list[str] = []
    current: dict[str, Any] = {}
    run_cycle, select_host = Scheduler.run_cycle, Scheduler.select_host

    def following_run_cycle(self: Any, fwk: Any, pod_info: Any) -> Any:
        current.update(pod=pod_info.key, forced=None)
        start = self.next_start_node_index
        out = run_cycle(self, fwk, pod_info)
        want = real_evaluated.get(pod_info.key)
        if str(out.outcome) == "Scheduled" and want is not None and out.evaluated_nodes != want:
            self.next_start_node_index = (start + want) % max(1, self.snapshot.num_nodes())
            notes.append(f"{pod_info.key}: the real scan examined {want} nodes, kschedctl's {out.evaluated_nodes}")
        if current["forced"]:
            node, tied, cut = current["forced"]
            notes.append(("" if cut else f"UNEXPLAINED {len(cycles)} ") + f"{pod_info.key}: real node {node!r} not in kschedctl's "
                         f"top {tied}" + (" (the real scan stopped early: which nodes it kept is timing)" if cut else ""))
        return out

    def following_select_host(self: Any, node_scores: Any) -> tuple[str, list[str]]:
        host, tied = select_host(self, node_scores)
        pod = current.get("pod", "")
        want = real_nodes.get(pod)
        if not want or want in tied:
            return (want or host), tied
        # Upstream's parallel scan, stopped before the last node, keeps whichever feasible nodes
        # its goroutines reached first: the real node may be one kschedctl's in-order scan ranked
        # lower or never reached.
        cut = real_evaluated.get(pod, self.snapshot.num_nodes()) < self.snapshot.num_nodes()
        if cut or any(ns.name == want for ns in node_scores):
            current["forced"] = (want, tied, cut)
            return want, tied
        return host, tied

    def observe(pod_info: Any, out: Any) -> None:
        pre = out.preemption
        cycles.append({"pod": pod_info.key, "outcome": str(out.outcome), "node": out.selected_node or "",
                       "tied": list(out.tied_nodes or ()), "evaluated": out.evaluated_nodes, "message": out.message,
                       "nominatedNode": pre.nominated_node_name if pre is not None else "",
                       "victims": sorted(pre.victims) if pre is not None else []})

    token = simulate_module.CYCLE_OBSERVER.set(observe)
    Scheduler.run_cycle, Scheduler.select_host = following_run_cycle, following_select_host  # type: ignore[method-assign]
    try:
        return run_kschedctl([*args, "--tie-break", "first"]), cycles, notes
    finally:
        Scheduler.run_cycle, Scheduler.select_host = run_cycle, select_host  # type: ignore[method-assign]
        simulate_module.CYCLE_OBSERVER.reset(token)


def _first_attempts(attempts: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for pod in attempts:
        seen.setdefault(pod, None)
    return list(seen)


def compare_batch(ours: dict[str, Any], cycles: list[dict[str, Any]], real: dict[str, Any],
                  random_offset: bool = False) -> tuple[list[str], list[str], int | None]:
    """kschedctl simulate (following the real scheduler's random choices) beside the real batch.
    Returns the differences, notes on what upstream's timing or randomness left uncompared, and
    the attempt the comparison stopped at for that reason (None: compared to the end).

    - the queue: the pods in the order of their first attempts;
    - attempt by attempt, up to the first retry: the same pod, outcome, node, message, and the
      preemption's nominated node and victims;
    - at the end: each pod's outcome and node, a failed pod's message and nominated node, every
      preemption (node, victims).

    Upstream's timing decides two things kschedctl's model fixes: an attempt that starts while
    a preemption's victims are still in the scheduler's cache (async preemption deletes them
    after the preemptor's cycle; kschedctl removes them at once) sees another cluster, and so
    may every later one: the comparison stops there. With ``random_offset`` (preemption dry-runs
    some nodes from a random offset, ``differential.candidates_limited``), a preemption that
    chose another node or other victims stops it too."""
    diffs: list[str] = []
    notes: list[str] = []
    real_attempts = real["attempts"]
    our_order = _first_attempts(c["pod"] for c in cycles)
    real_order = _first_attempts(a["pod"] for a in real_attempts)
    if our_order != real_order:
        diffs.append(f"queue order: kschedctl {our_order} != real {real_order}")
        return diffs, notes, None
    tried: set[str] = set()
    stopped: int | None = None
    for i, (o, r) in enumerate(zip(cycles, real_attempts)):
        if r["inFlight"]:
            notes.append(f"attempt {i} ({r['pod']}) started while a preemption's victims were still in the "
                         f"scheduler's cache: compared up to there")
            stopped = i
            break
        if o["pod"] in tried or r["pod"] in tried:
            break  # retries follow cluster events whose timing is upstream's own
        tried.add(r["pod"])
        where = f"attempt {i} ({r['pod']})"
        if o["pod"] != r["pod"]:
            diffs.append(f"{where}: kschedctl tried {o['pod']}")
            break
        if (o["outcome"], o["node"]) != (r["outcome"], r["node"]):
            diffs.append(f"{where}: kschedctl {o['outcome']} {o['node']!r} != real {r['outcome']} {r['node']!r}"
                         + (f" (kschedctl's top: {o['tied']})" if len(o["tied"]) > 1 else ""))
            break
        if r["outcome"] == "Unschedulable" and o["message"] != r["message"]:
            diffs.append(f"{where} message: kschedctl {o['message']!r} != real {r['message']!r}")
        if (o["nominatedNode"], o["victims"]) != (r["nominatedNode"], r["victims"]):
            if random_offset:
                notes.append(f"{where}: preemption chose {r['nominatedNode']!r} {r['victims']} (kschedctl "
                             f"{o['nominatedNode']!r} {o['victims']}) among candidates drawn from a random offset")
                stopped = i
                break
            diffs.append(f"{where} preemption: kschedctl {o['nominatedNode']!r} {o['victims']} != "
                         f"real {r['nominatedNode']!r} {r['victims']}")
    if stopped is not None or diffs:
        return diffs, notes, stopped
    op = {p["pod"]: p for p in ours.get("placements") or []}
    for pod, r in real["placements"].items():
        o = op.get(pod)
        if o is None:
            diffs.append(f"{pod}: missing from kschedctl")
            continue
        if (o.get("outcome"), o.get("node") or "") != (r["outcome"], r["node"]):
            diffs.append(f"{pod}: kschedctl {o.get('outcome')} {o.get('node')!r} != real {r['outcome']} {r['node']!r}")
            continue
        if r["outcome"] == "Unschedulable":
            if o.get("message") != r["message"]:
                diffs.append(f"{pod} message: kschedctl {o.get('message')!r} != real {r['message']!r}")
            if (o.get("nominatedNode") or "") != r["nominatedNode"]:
                diffs.append(f"{pod} nominatedNode: kschedctl {o.get('nominatedNode')!r} != real {r['nominatedNode']!r}")
    for pod in op.keys() - real["placements"].keys():
        diffs.append(f"{pod}: missing from the real run")
    ours_pre = sorted((p["pod"], p["node"], sorted(p.get("victims") or [])) for p in ours.get("preemptions") or [])
    real_pre = sorted((p["pod"], p["node"], p["victims"]) for p in real["preemptions"])
    if ours_pre != real_pre:
        diffs.append(f"preemptions: kschedctl {ours_pre} != real {real_pre}")
    return diffs, notes, None

# -- a scheduler extender -------------------------------------------------------------------

EXTENDER_REASON = "rejected by the test extender"


class LoopbackServer:
    """A JSON HTTP server on a loopback port, in a thread of this process, for the control plane's
    processes to call (an extender, a load watcher); ``respond`` answers each request. Used as a
    context manager: serving inside the ``with``."""

    #: Appended to the server's address in ``url``.
    prefix = ""

    def __init__(self) -> None:
        import http.server
        import threading

        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _reply(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                code, body = owner.respond(method, self.path, self.rfile.read(length) if length else b"")
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
                self._reply("GET")

            def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
                self._reply("POST")

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}{self.prefix}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def respond(self, method: str, path: str, body: bytes) -> tuple[int, bytes]:
        """The status code and the body for one request."""
        raise NotImplementedError

    def __enter__(self) -> "LoopbackServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


class TestExtender(LoopbackServer):
    """A scheduler extender on a loopback port, speaking extender/v1 JSON over HTTP
    (``ExtenderArgs`` in; ``ExtenderFilterResult`` and ``HostPriorityList`` out), that the real
    kube-scheduler and kschedctl both call: its answers are a function of the pod and the node
    names alone, so both engines get the same ones. ``filter`` rejects a node when a hash of
    (pod, node) is 0 mod 3, with ``EXTENDER_REASON``; ``prioritize`` scores each node with the
    same hash mod 11 (0..MaxExtenderPriority). ``calls`` counts the requests per verb."""

    prefix = "/scheduler"

    def __init__(self) -> None:
        self.calls: dict[str, int] = {}
        super().__init__()

    def respond(self, method: str, path: str, body: bytes) -> tuple[int, bytes]:
        try:
            args = json.loads(body or b"{}")
            verb = path.rstrip("/").rsplit("/", 1)[-1]
            return 200, json.dumps(self.answer(verb, args)).encode()
        except (ValueError, KeyError, TypeError) as exc:
            return 400, str(exc).encode()

    @staticmethod
    def draw(pod: str, node: str) -> int:
        import zlib

        return zlib.crc32(f"{pod}@{node}".encode())

    def answer(self, verb: str, args: dict[str, Any]) -> Any:
        self.calls[verb] = self.calls.get(verb, 0) + 1
        meta = (args.get("Pod") or {}).get("metadata") or {}
        pod = f"{meta.get('namespace') or 'default'}/{meta.get('name')}"
        if args.get("NodeNames") is not None:
            names = list(args["NodeNames"])
            items = None
        else:
            items = list(((args.get("Nodes") or {}).get("items")) or [])
            names = [i["metadata"]["name"] for i in items]
        if verb == "prioritize":
            return [{"Host": n, "Score": self.draw(pod, n) % 11} for n in names]
        if verb != "filter":
            raise KeyError(f"no verb {verb}")
        failed = {n: EXTENDER_REASON for n in names if self.draw(pod, n) % 3 == 0}
        result: dict[str, Any] = {"FailedNodes": failed, "Error": ""}
        if items is None:
            result["NodeNames"] = [n for n in names if n not in failed]
        else:
            result["Nodes"] = {"metadata": {}, "items": [i for i in items if i["metadata"]["name"] not in failed]}
        return result

    def config(self, node_cache_capable: bool = False, weight: int = 3) -> dict[str, Any]:
        """The ``extenders`` entry of a KubeSchedulerConfiguration naming this server."""
        return {"urlPrefix": self.url, "filterVerb": "filter", "prioritizeVerb": "prioritize", "weight": weight,
                "nodeCacheCapable": node_cache_capable, "enableHTTPS": False, "httpTimeout": "10s"}



def with_extender(config: dict[str, Any] | None, extender: dict[str, Any]) -> dict[str, Any]:
    """``config`` (None: the defaults) calling ``extender`` too."""
    out = json.loads(json.dumps(config)) if config else {
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}
    out["extenders"] = [*(out.get("extenders") or []), extender]
    return out


# -- the command ----------------------------------------------------------------------------

def read_documents(paths: Iterable[str]) -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = []
    for path in paths:
        files = sorted(p for p in Path(path).rglob("*") if p.suffix in (".yaml", ".yml", ".json")) \
            if Path(path).is_dir() else [Path(path)]
        for f in files:
            for doc in yaml.safe_load_all(f.read_text()):
                if not isinstance(doc, dict):
                    continue
                if doc.get("kind", "").endswith("List") and isinstance(doc.get("items"), list):
                    docs += [d for d in doc["items"] if isinstance(d, dict)]
                else:
                    docs.append(doc)
    return docs


def run_scheduler(cp: ControlPlane, cluster: list[dict[str, Any]], pods: list[dict[str, Any]],
                  config: dict[str, Any] | None, timeout: float = 60,
                  verbosity: int = 2) -> tuple[dict[str, dict[str, Any]], list[dict]]:
    """One case on a cleared control plane: the cluster's objects, then ``pods`` (pending), then
    a freshly started scheduler; returns each pending pod's decision (cluster's pending pods
    included) and the bound pods created."""
    cp.stop_scheduler()
    cp.clear()
    created = cp.load(cluster + [dict(p, kind="Pod") for p in pods])
    bound = [p for p in created if p["spec"].get("nodeName")]
    pending = [p for p in created if not p["spec"].get("nodeName")]
    cp.start_scheduler(config, verbosity=verbosity)
    return wait_decisions(cp, pending, timeout=timeout), bound


def _profile(config: dict[str, Any] | None) -> str:
    profiles = (config or {}).get("profiles") or [{}]
    return profiles[0].get("schedulerName") or "default-scheduler"


def explain(cp: ControlPlane, cluster: list[dict[str, Any]], pods: list[dict[str, Any]],
            config: dict[str, Any] | None) -> dict[str, Any]:
    """Each pod alone against the cluster, as ``kschedctl explain`` answers: the pod's first
    attempt, as the scheduler's log tells it (a retry may follow cluster events, such as a
    claim DynamicResources' PostFilter deallocated, and rewrite the pod's condition before it is
    read). The cluster's own pending pods may go first: what they did before that attempt is
    reported (``placedBefore``: where they were bound; ``removedBefore``: the victims of their
    preemptions already gone from the scheduler's cache; ``nominatedBefore``: the nodes those
    nominated), and ``inFlight`` says the attempt started while some victims were still in the
    scheduler's cache (async preemption deletes them after the preemptor's cycle)."""
    items = []
    for pod in pods:
        decisions, bound = run_scheduler(cp, cluster, [pod], config, verbosity=3)
        key = f"{pod['metadata'].get('namespace') or 'default'}/{pod['metadata']['name']}"
        attempts, _, _ = read_attempts(scheduler_log(cp, cp.log_offset))
        index = next((i for i, a in enumerate(attempts) if a["pod"] == key), None)
        first = attempts[index] if index is not None else None
        if first is not None and first["outcome"]:
            d: dict[str, Any] = {"outcome": first["outcome"], "selectedNode": first["node"] or None,
                                 "message": first["message"]}
            d["preemption"] = ({"nominatedNode": first["nominatedNode"], "victims": first["victims"]}
                               if first["nominatedNode"] else None)
            earlier = attempts[:index]
            placed = {a["pod"]: a["node"] for a in earlier if a["outcome"] == "Scheduled"}
            # Victims the scheduler's cache had dropped when the attempt began: async preemption
            # deletes them after the preemptor's cycle, and the next cycles may still see some.
            removed = sorted({v for a in earlier for v in a["victims"]} & set(first["goneBefore"]))
            nominated = {a["pod"]: a["nominatedNode"] for a in earlier if a["nominatedNode"]}
        else:
            # No attempt logged, or one whose binding waits (a volume to provision): the object
            # tells.
            d = dict(decisions.get(key) or {"outcome": "Timeout", "selectedNode": None, "message": ""})
            nominated_node = d.pop("nominatedNode", None)
            gone = victims(cp, bound)
            came_with = (pod.get("status") or {}).get("nominatedNodeName")
            # A failure without a preemption leaves the nomination the pod came with.
            preempted = nominated_node and (nominated_node != came_with or gone)
            d["preemption"] = {"nominatedNode": nominated_node, "victims": gone} if preempted else None
            placed = {k: v["selectedNode"] for k, v in decisions.items() if k != key and v and v.get("selectedNode")}
            removed, nominated = [], {}
        item = {"kind": "ExplainResult", "pod": key, "profile": _profile(config), **d}
        if placed:
            # The cluster's own pending pods went first; where a score tie sent them is random.
            item["placedBefore"] = placed
        if removed:
            item["removedBefore"] = removed
        if nominated:
            item["nominatedBefore"] = nominated
        if first is not None and first["inFlight"]:
            item["inFlight"] = True
        items.append(item)
    return items[0] if len(items) == 1 else {"kind": "ExplainResultList", "items": items}


def simulate(cp: ControlPlane, cluster: list[dict[str, Any]], pods: list[dict[str, Any]],
             config: dict[str, Any] | None) -> dict[str, Any]:
    decisions, _ = run_scheduler(cp, cluster, pods, config, timeout=120)
    placements = [{"pod": key, "outcome": d["outcome"], "node": d.get("selectedNode") or "",
                   "message": d.get("message", "")} for key, d in decisions.items()]
    return {"kind": "SimulationResult", "placements": placements}


def workload_pods(command: str, pod_paths: list[str],
                  cluster_paths: list[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The pods of workload files as the controllers would create them, and the objects to create
    beside them: with no controller-manager running, kschedctl's expansion stands in for it (the
    same pod names, labels and owner references kschedctl answers for). explain takes each
    workload's first pod, simulate every replica. The owners the scheduler reads (ReplicaSets,
    StatefulSets and ReplicationControllers, whose selectors spread pods by default) and the
    objects the files bring along (claims, PriorityClasses) are created too; nothing reconciles them."""
    from kschedctl import api

    state = api.load_cluster(cluster_paths)
    loaded = api.load_pods(pod_paths, state)
    pods = [p.pod for p in loaded] if command == "explain" else api.pods_for_simulation(loaded, state)[0]
    brought = [doc.obj for doc in loaded.bundled]
    seen: set[tuple[str, str, str]] = set()
    for item in loaded:
        for owner in item.owners:
            meta = owner.get("metadata") or {}
            key = (owner.get("kind", ""), meta.get("namespace") or "default", meta.get("name", ""))
            if key[0] in KINDS and key not in seen:
                seen.add(key)
                brought.append(owner)
    return [json.loads(json.dumps(p)) for p in pods], brought


def _load_config(path: str | None) -> dict[str, Any] | None:
    return yaml.safe_load(Path(path).read_text()) if path else None


@contextlib.contextmanager
def _control_plane(workdir: Path, bin_dir: Path, plane: type[ControlPlane] = ControlPlane) -> Iterator[ControlPlane]:
    """The control plane ``up`` left running in ``workdir`` (one invocation at a time: a second
    waits, since two schedulers on one API server would both bind), or a new one stopped at the end."""
    workdir.mkdir(parents=True, exist_ok=True)
    with open(workdir / "controlplane.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        cp = plane.attach(workdir)
        if cp is None:
            cp = plane(workdir, bin_dir).start()
        try:
            yield cp
        finally:
            cp.stop()


def up_down(argv: list[str]) -> int:
    """``up``: starts etcd and kube-apiserver in ``--workdir`` and leaves them running, so that
    explain, simulate and the differential given the same ``--workdir`` skip the start; ``down``
    stops them."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.realcluster")
    parser.add_argument("command", choices=("up", "down"))
    parser.add_argument("--workdir", required=True, help="the control plane's files (logs, audit log, state)")
    parser.add_argument("--bin-dir", default=str(BIN_DIR))
    ns = parser.parse_args(argv)
    workdir = Path(ns.workdir)
    cp = ControlPlane.attach(workdir)
    if ns.command == "down":
        if cp is None:
            print(f"realcluster: no control plane runs in {workdir}", file=sys.stderr)
            return 1
        cp.shutdown()
        print(f"stopped the control plane in {workdir}")
        return 0
    if cp is None:
        if not binaries_present(Path(ns.bin_dir)):
            print(f"realcluster: no control plane in {ns.bin_dir}; build it with `make -C oracle controlplane`",
                  file=sys.stderr)
            return 2
        try:
            cp = ControlPlane(workdir, Path(ns.bin_dir)).start()
        except ControlPlaneError as exc:
            print(f"realcluster: {exc}".splitlines()[0], file=sys.stderr)
            return 2
        cp.save_state()
    print(f"control plane at {cp.url} (workdir {workdir}); stop it with: "
          f"python -m benchmarks.realcluster down --workdir {workdir}")
    return 0


def command(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.realcluster")
    parser.add_argument("command", choices=("explain", "simulate"))
    parser.add_argument("pods", nargs="+")
    parser.add_argument("--cluster", action="append", required=True)
    parser.add_argument("--config")
    parser.add_argument("-o", "--output", choices=("json",), default="json")
    parser.add_argument("--workdir", help="keep the control plane's files (logs, audit log) here")
    parser.add_argument("--bin-dir", default=str(BIN_DIR))
    ns, _unknown = parser.parse_known_args(argv)  # kschedctl's other flags do not change the real answer
    if not binaries_present(Path(ns.bin_dir)):
        print(f"realcluster: no control plane in {ns.bin_dir}; build it with `make -C oracle controlplane`",
              file=sys.stderr)
        return 2
    try:
        cluster = read_documents(ns.cluster)
        docs = read_documents(ns.pods)
        pods = [d for d in docs if d.get("kind") == "Pod"]
        if any(d.get("kind") != "Pod" for d in docs):
            pods, brought = workload_pods(ns.command, ns.pods, ns.cluster)
            cluster += brought
        config = _load_config(ns.config)
    except (OSError, yaml.YAMLError, KschedctlError) as exc:
        print(f"realcluster: {exc}".splitlines()[0], file=sys.stderr)
        return 2
    plane: type[ControlPlane] = ControlPlane
    from benchmarks import realcluster_sigs  # imports this module: not at the top

    if realcluster_sigs.names_sigs_plugins(config):
        plane = realcluster_sigs.SigsControlPlane
        if not realcluster_sigs.binary_present(Path(ns.bin_dir)):
            print(f"realcluster: the configuration names scheduler-plugins plugins and {ns.bin_dir} has no "
                  f"{realcluster_sigs.SIGS_BINARY}; build it with `make -C oracle controlplane`", file=sys.stderr)
            return 2
    workdir = Path(ns.workdir or tempfile.mkdtemp(prefix="kschedctl-realcluster-"))
    try:
        with _control_plane(workdir, Path(ns.bin_dir), plane) as cp:
            result = (explain(cp, cluster, pods, config) if ns.command == "explain"
                      else simulate(cp, cluster, pods, config))
    except ControlPlaneError as exc:
        print(f"realcluster: {exc}".splitlines()[0], file=sys.stderr)
        return 2
    finally:
        if not ns.workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps(result, indent=2))
    return 0


# -- the differential -----------------------------------------------------------------------

def compare(ours: dict[str, Any], real: dict[str, Any], random_offset: bool = False) -> list[str]:
    """kschedctl's explain beside the real scheduler's decision: differences, described. With
    ``random_offset`` (preemption dry-runs only some nodes, from an offset upstream draws at
    random: ``differential.candidates_limited``) both must preempt or not, wherever."""
    diffs = []
    if ours.get("outcome") != real.get("outcome"):
        diffs.append(f"outcome: kschedctl {ours.get('outcome')!r} != real {real.get('outcome')!r}"
                     + (f" ({real.get('message')})" if real.get("outcome") == "Error" else ""))
    if real.get("outcome") == "Scheduled":
        top = set(ours.get("tiedNodes") or [ours.get("selectedNode")])
        if real.get("selectedNode") not in top:
            diffs.append(f"node: real {real.get('selectedNode')!r} not in kschedctl's top {sorted(top)}")
    elif real.get("outcome") == "Unschedulable" and ours.get("message") != real.get("message"):
        diffs.append(f"message: kschedctl {ours.get('message')!r} != real {real.get('message')!r}")
    rp, op = real.get("preemption"), ours.get("preemption")
    if random_offset and bool(rp) != bool(op):
        diffs.append(f"preemption: kschedctl {op and op.get('nominatedNode')!r} != real {rp and rp.get('nominatedNode')!r}")
    elif (rp or op) and not random_offset:
        if (rp or {}).get("nominatedNode") != (op or {}).get("nominatedNode"):
            diffs.append(f"nominatedNode: kschedctl {(op or {}).get('nominatedNode')!r} "
                         f"!= real {(rp or {}).get('nominatedNode')!r}")
        elif sorted((rp or {}).get("victims") or []) != sorted((op or {}).get("victims") or []):
            diffs.append(f"victims: kschedctl {(op or {}).get('victims')} != real {(rp or {}).get('victims')}")
    return diffs


def _as_before(objects: list[dict[str, Any]], placed: dict[str, str], removed: list[str],
               nominated: dict[str, str]) -> list[dict[str, Any]]:
    """``objects`` as the scheduler had them before a pod's attempt: the pods it placed bound,
    its preemptions' victims gone, their preemptors nominated."""
    out = []
    for obj in _bind(objects, placed):
        meta = obj.get("metadata") or {}
        key = f"{meta.get('namespace') or 'default'}/{meta.get('name')}"
        if obj.get("kind") == "Pod" and key in removed:
            continue
        if obj.get("kind") == "Pod" and key in nominated and key not in placed:
            obj = json.loads(json.dumps(obj))
            obj["status"] = dict(obj.get("status") or {}, nominatedNodeName=nominated[key])
        out.append(obj)
    return out


def _bind(objects: list[dict[str, Any]], placed: dict[str, str]) -> list[dict[str, Any]]:
    """``objects`` with the pending pods named in ``placed`` bound to their node."""
    out = []
    for obj in objects:
        meta = obj.get("metadata") or {}
        key = f"{meta.get('namespace') or 'default'}/{meta.get('name')}"
        if obj.get("kind") == "Pod" and key in placed:
            obj = json.loads(json.dumps(obj))
            obj["spec"]["nodeName"] = placed[key]
            obj["status"] = {}  # as the real scheduler left it: bound, no kubelet to start it
        out.append(obj)
    return out


def _kschedctl_args(command: str, paths: dict[str, Any]) -> list[str]:
    args = [command, *paths["pods"], "--cluster", paths["cluster"], "-o", "json"]
    if paths.get("config"):
        args += ["--config", paths["config"]]
    return args


def explain_case(cp: ControlPlane, case: Any, case_dir: Path, notes_out: list[str] | None = None) -> list[str]:
    """One explain case through the real scheduler and kschedctl explain: the differences (and,
    in ``notes_out``, what upstream's timing left uncompared)."""
    from benchmarks.differential import run_kschedctl

    paths = case.write(case_dir)
    try:
        real = explain(cp, case.cluster, case.pods, case.config)
    except ControlPlaneError as exc:
        real = {"outcome": "Error", "message": str(exc)[:300]}
    if real.get("inFlight") and notes_out is not None:
        # The cluster's own pending pod preempted first and some victims were still in the
        # scheduler's cache: kschedctl explains from that state, as the log tells it.
        notes_out.append("explained from a state with a preemption in flight")
    if real.get("placedBefore") or real.get("removedBefore") or real.get("nominatedBefore"):
        # Explain the pod from the state the real scheduler left just before it.
        state = _as_before(case.cluster, real.get("placedBefore") or {}, real.get("removedBefore") or [],
                           real.get("nominatedBefore") or {})
        Path(paths["cluster"]).write_text(yaml.safe_dump_all(state, sort_keys=False))
    ours = run_kschedctl(_kschedctl_args("explain", paths))
    from benchmarks.differential import candidates_limited

    return ["kschedctl: " + ours["error"]] if "error" in ours else compare(ours, real, candidates_limited(case))


def simulate_case(cp: ControlPlane, case: Any, case_dir: Path, notes_out: list[str] | None = None) -> list[str]:
    """One batch through the real scheduler and kschedctl simulate: the differences (and, in
    ``notes_out``, what upstream's randomness or timing left uncompared)."""
    paths = case.write(case_dir)
    snapshot = case_dir / "snapshot.json"
    try:
        real = batch(cp, case.cluster, case.pods, case.config, snapshot=snapshot)
    except ControlPlaneError as exc:
        return [f"real: {exc}"[:300]]
    # The batch's pods are the snapshot's pending pods: kschedctl reads what the API server stored.
    args = ["simulate", "--cluster", str(snapshot), "-o", "json"] + (["--config", paths["config"]] if paths.get("config") else [])
    ours, cycles, notes = simulate_following(args, real)
    if "error" in ours:
        return ["kschedctl: " + ours["error"]]
    from benchmarks.differential import candidates_limited

    diffs, compared, stop = compare_batch(ours, cycles, real, random_offset=candidates_limited(case))
    for note in notes:
        if note.startswith("UNEXPLAINED "):
            # a real node outside kschedctl's top set, before the comparison stopped at timing
            index, text = note.split(" ", 2)[1:]
            if stop is None or int(index) < stop:
                diffs.append(text)
    notes += compared
    if notes_out is not None:
        notes_out += notes
    if diffs:
        (case_dir / "real.json").write_text(json.dumps(real, indent=1))
        (case_dir / "kschedctl.json").write_text(json.dumps({"result": ours, "cycles": cycles, "notes": notes},
                                                            indent=1))
    return diffs


def differential(cp: ControlPlane, seed: int, cases: int, workdir: Path, show: int = 20,
                 keep: Path | None = None, first: int = 0, simulate_cases: int = 0,
                 first_simulate: int = 0, extender_cases: int = 0) -> tuple[int, list[str]]:
    """Runs explain cases ``first..first+cases-1`` and simulate cases (batches)
    ``first_simulate..`` of ``seed``, then the first ``extender_cases`` of each again with
    ``TestExtender`` in their configuration (both engines call it over HTTP); returns the
    mismatch count and their descriptions."""
    import dataclasses

    from benchmarks import diffgen

    mismatches = 0
    found: list[str] = []
    timing = in_flight = 0
    started = time.perf_counter()
    plan = ([("explain", i, False) for i in range(first, first + cases)]
            + [("simulate", i, False) for i in range(first_simulate, first_simulate + simulate_cases)]
            + [("explain", i, True) for i in range(first, first + min(cases, extender_cases))]
            + [("simulate", i, True) for i in range(first_simulate, first_simulate + min(simulate_cases, extender_cases))])
    with TestExtender() as extender:
        for command, i, extended in plan:
            case = diffgen.generate(seed, i, command)
            name = f"{command}{'+extender' if extended else ''} case {i}"
            if extended:
                case = dataclasses.replace(case, config=with_extender(case.config, extender.config()))
            case_dir = workdir / f"{command}-{i}{'-extender' if extended else ''}"
            notes: list[str] = []
            diffs = (explain_case if command == "explain" else simulate_case)(cp, case, case_dir, notes)
            if any("compared up to there" in n for n in notes):
                timing += 1
            if any("preemption in flight" in n for n in notes):
                in_flight += 1
            if diffs:
                mismatches += 1
                found.append(f"{name}: " + "; ".join(diffs))
                if keep:
                    kept = keep / f"case-{seed}-{command}-{i:05d}{'-extender' if extended else ''}"
                    shutil.copytree(case_dir, kept, dirs_exist_ok=True)
                    (kept / "mismatch.txt").write_text("\n".join(diffs + notes) + "\n")
                if mismatches <= show:
                    print(f"--- {name} (seed {seed}):")
                    for d in diffs:
                        print(f"  {d}"[:700])
            shutil.rmtree(case_dir, ignore_errors=True)
        calls = dict(extender.calls)
    print(f"wall {time.perf_counter() - started:.1f} s")
    if timing:
        print(f"{timing} case(s) compared up to an attempt that started while a preemption's victims were "
              f"still in the scheduler's cache (async preemption; kschedctl removes them at once)")
    if in_flight:
        print(f"{in_flight} explain case(s) explained from the state the log shows: a preemption of the cluster's "
              f"own pending pod still in flight")
    if calls:
        print(f"extender calls: {', '.join(f'{verb} {n}' for verb, n in sorted(calls.items()))}")
    print(f"{len(plan)} cases, {mismatches} mismatches")
    return mismatches, found


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("explain", "simulate"):
        return command(argv)
    if argv and argv[0] in ("up", "down"):
        return up_down(argv)
    parser = argparse.ArgumentParser(prog="python -m benchmarks.realcluster", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=20)
    parser.add_argument("--first", type=int, default=0, help="index of the first explain case")
    parser.add_argument("--simulate-cases", type=int, default=0,
                        help="simulate cases: batches of pods created together, against kschedctl simulate")
    parser.add_argument("--first-simulate", type=int, default=0, help="index of the first simulate case")
    parser.add_argument("--extender-cases", type=int, default=1,
                        help="run this many of the first explain and simulate cases again with a real HTTP "
                             "extender (started here) in the configuration")
    parser.add_argument("--bin-dir", default=str(BIN_DIR))
    parser.add_argument("--workdir", help="keep the control plane's files here")
    parser.add_argument("--keep", help="copy mismatching cases here")
    ns = parser.parse_args(argv)
    if not binaries_present(Path(ns.bin_dir)):
        print(f"realcluster: no control plane in {ns.bin_dir}; build it with `make -C oracle controlplane`",
              file=sys.stderr)
        return 2
    workdir = Path(ns.workdir or tempfile.mkdtemp(prefix="kschedctl-realcluster-"))
    keep = Path(ns.keep) if ns.keep else None
    if keep:
        keep.mkdir(parents=True, exist_ok=True)
    try:
        with _control_plane(workdir, Path(ns.bin_dir)) as cp:
            mismatches, _ = differential(cp, ns.seed, ns.cases, workdir, keep=keep, first=ns.first,
                                         simulate_cases=ns.simulate_cases, first_simulate=ns.first_simulate,
                                         extender_cases=ns.extender_cases)
        return 1 if mismatches else 0
    finally:
        if not ns.workdir:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
