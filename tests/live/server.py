"""A small fake Kubernetes API server for the tests: list endpoints served from fixture files.

It listens on 127.0.0.1 only (port 0: the system picks a free one), in a thread, and answers
what the real API server answers to list calls, closely enough for the real ``kubernetes``
client: ``/api/v1/...`` and ``/apis/GROUP/VERSION/...`` lists, all namespaces or one, pages
(``limit``/``continue``, with ``remainingItemCount``), the pod field selector on
``status.phase``, single-object GETs, bearer-token auth (401 without the token), a 403 on the
resources in ``forbidden``, 404 for CRDs that are not installed, and failures injected on demand
(``fail_next``: an HTTP status, with a Retry-After, or a connection dropped without an answer;
``expire_continue``: 410 Gone for a continue token).

Watches (``?watch=1``) stream what changed since the ``resourceVersion`` asked for, as the real
server does: one JSON event per line (ADDED, MODIFIED, DELETED), bookmarks on demand
(``bookmark()``, sent only to watches that asked with ``allowWatchBookmarks``), an ``ERROR`` event
with a 410 Status for a version older than the last compaction (``compact()``), and connections
dropped mid-stream on demand (``drop_watches()``). The cluster changes through ``create``,
``update``, ``delete``, ``bind`` and ``nominate``; every change gets the next resourceVersion,
which lists report too.

Every request is recorded (method, path, query, whether it carried the token) so tests can
check that nothing but GET was ever sent. Served objects carry the noise a real server adds
(managedFields, resourceVersion, selfLink, kubectl's last-applied annotation, a uid) and list
items lack ``apiVersion``/``kind``, as in real list responses.
"""

from __future__ import annotations

import base64
import copy
import json
import socket
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterable
from urllib.parse import parse_qs, unquote, urlsplit

import yaml

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "cluster"
TOKEN = "kschedctl-test-token-Zq8v3LmN0pX4"

#: kind -> (group, version, plural, namespaced), as the API server serves them.
RESOURCES: dict[str, tuple[str, str, str, bool]] = {
    "Node": ("", "v1", "nodes", False),
    "Pod": ("", "v1", "pods", True),
    "Namespace": ("", "v1", "namespaces", False),
    "PersistentVolume": ("", "v1", "persistentvolumes", False),
    "PersistentVolumeClaim": ("", "v1", "persistentvolumeclaims", True),
    "Service": ("", "v1", "services", True),
    "ReplicationController": ("", "v1", "replicationcontrollers", True),
    "Secret": ("", "v1", "secrets", True),
    "ConfigMap": ("", "v1", "configmaps", True),
    "StorageClass": ("storage.k8s.io", "v1", "storageclasses", False),
    "CSINode": ("storage.k8s.io", "v1", "csinodes", False),
    "CSIDriver": ("storage.k8s.io", "v1", "csidrivers", False),
    "VolumeAttachment": ("storage.k8s.io", "v1", "volumeattachments", False),
    "PriorityClass": ("scheduling.k8s.io", "v1", "priorityclasses", False),
    "PodDisruptionBudget": ("policy", "v1", "poddisruptionbudgets", True),
    "ReplicaSet": ("apps", "v1", "replicasets", True),
    "StatefulSet": ("apps", "v1", "statefulsets", True),
    "Deployment": ("apps", "v1", "deployments", True),
    "PodGroup": ("scheduling.x-k8s.io", "v1alpha1", "podgroups", True),
    "ElasticQuota": ("scheduling.x-k8s.io", "v1alpha1", "elasticquotas", True),
    "ResourceClaim": ("resource.k8s.io", "v1", "resourceclaims", True),
    "ResourceClaimTemplate": ("resource.k8s.io", "v1", "resourceclaimtemplates", True),
    "DeviceClass": ("resource.k8s.io", "v1", "deviceclasses", False),
    "ResourceSlice": ("resource.k8s.io", "v1", "resourceslices", False),
}
CRD_KINDS = frozenset({"PodGroup", "ElasticQuota"})


def fixture_objects() -> list[dict]:
    """Every object of fixtures/cluster/, as written (sorted by file)."""
    out: list[dict] = []
    for path in sorted(FIXTURES.glob("*.yaml")):
        out.extend(d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d)
    return out


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    authorized: bool


@dataclass
class FakeApiServer:
    """``with FakeApiServer(objects) as server: ... server.url ...``."""

    objects: list[dict] = field(default_factory=fixture_objects)
    token: str = TOKEN
    #: Largest page served whatever the client asks (the real server may return fewer items).
    max_page: int = 3
    #: Resources ("pods", "poddisruptionbudgets.policy") answered with 403.
    forbidden: set[str] = field(default_factory=set)
    #: Serve the scheduler-plugins CRDs (PodGroup, ElasticQuota); else 404 for them.
    crds: bool = False
    #: Plurals this server does not serve at all (404), as an old or trimmed API server.
    missing: set[str] = field(default_factory=set)
    requests: list[Recorded] = field(default_factory=list)
    #: Resources ("pods", "persistentvolumes") whose watches get 403 (RBAC with list but no watch).
    forbidden_watch: set[str] = field(default_factory=set)
    #: Serve HTTPS with this (cert.pem, key.pem) pair instead of plain HTTP.
    tls: tuple[Path, Path] | None = None

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._failures: dict[str, list[Any]] = {}
        self._expire: set[str] = set()
        self._store: dict[str, list[dict]] = {}
        self._cache: dict[tuple, list[dict]] = {}
        #: The last resourceVersion handed out; lists report it, watches start after it.
        self._rv = 5000
        #: Every change: (resourceVersion, kind, event type, the object as served then).
        self._events: list[tuple[int, str, str, dict]] = []
        #: Watches from a version older than this get 410 Gone (etcd compacted it away).
        self._compacted = 0
        self._changed = threading.Condition()
        self._drops = 0  # drop_watches() calls so far: open watches compare it with their own
        self._stopping = False
        for i, obj in enumerate(self.objects):
            self.add(obj, i)
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- data ---------------------------------------------------------------------------------
    def add(self, obj: dict, serial: int = 0) -> None:
        """Serve ``obj`` (with the noise a real API server adds)."""
        kind = obj["kind"]
        obj = copy.deepcopy(obj)
        meta = obj.setdefault("metadata", {})
        _group, _version, plural, namespaced = RESOURCES[kind]
        if namespaced:
            meta.setdefault("namespace", "default")
        meta.setdefault("uid", str(uuid.uuid5(uuid.NAMESPACE_URL, f"{kind}/{meta.get('namespace')}/{meta['name']}")))
        meta["resourceVersion"] = str(1000 + serial)
        meta["generation"] = 1
        meta["selfLink"] = f"/{plural}/{meta['name']}"
        meta["managedFields"] = [{"manager": "kubectl-client-side-apply", "operation": "Update",
                                  "apiVersion": obj.get("apiVersion"), "fieldsType": "FieldsV1",
                                  "fieldsV1": {"f:metadata": {"f:labels": {}}}}]
        annotations = meta.setdefault("annotations", {})
        annotations["kubectl.kubernetes.io/last-applied-configuration"] = json.dumps(
            {"kind": kind, "metadata": {"name": meta["name"]}, "note": "last-applied-secret-value"})
        obj.pop("apiVersion", None)  # list items come without them
        obj.pop("kind", None)
        self._store.setdefault(kind, []).append(obj)

    # -- changes (what the watch streams) ------------------------------------------------------
    def _find(self, kind: str, namespace: str | None, name: str) -> int:
        for i, obj in enumerate(self._store.get(kind, ())):
            meta = obj["metadata"]
            if meta["name"] == name and (namespace is None or meta.get("namespace") == namespace):
                return i
        raise KeyError(f"{kind} {namespace}/{name}")

    def _log_change(self, kind: str, event: str, obj: dict) -> None:
        with self._changed:
            self._rv += 1
            obj["metadata"]["resourceVersion"] = str(self._rv)
            self._events.append((self._rv, kind, event, copy.deepcopy(obj)))
            self._cache.clear()
            self._changed.notify_all()

    def create(self, obj: dict) -> None:
        """A new object (a pod without nodeName is a pod waiting for the scheduler), created now."""
        obj = copy.deepcopy(obj)
        obj.setdefault("metadata", {}).setdefault(
            "creationTimestamp", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        self.add(obj)
        self._log_change(obj["kind"], "ADDED", self._store[obj["kind"]][-1])

    def update(self, kind: str, name: str, change: Any, namespace: str | None = None) -> None:
        """``change(obj)`` edits the served object in place; watchers get MODIFIED."""
        with self._changed:
            obj = self._store[kind][self._find(kind, namespace, name)]
            change(obj)
        self._log_change(kind, "MODIFIED", obj)

    def delete(self, kind: str, name: str, namespace: str | None = None) -> None:
        with self._changed:
            obj = self._store[kind].pop(self._find(kind, namespace, name))
        self._log_change(kind, "DELETED", obj)

    def bind(self, name: str, node: str, namespace: str = "default") -> None:
        """What the scheduler's binding does: spec.nodeName and the PodScheduled condition."""
        def bound(pod: dict) -> None:
            pod.setdefault("spec", {})["nodeName"] = node
            status = pod.setdefault("status", {})
            status.pop("nominatedNodeName", None)
            status["conditions"] = [{"type": "PodScheduled", "status": "True"}]
        self.update("Pod", name, bound, namespace)

    def nominate(self, name: str, node: str, namespace: str = "default") -> None:
        """What preemption does to the preemptor: status.nominatedNodeName."""
        self.update("Pod", name, lambda pod: pod.setdefault("status", {}).__setitem__("nominatedNodeName", node),
                    namespace)

    def bookmark(self) -> None:
        """A BOOKMARK (the current resourceVersion) to every open watch that allows bookmarks."""
        with self._changed:
            self._events.append((self._rv, "*", "BOOKMARK", {}))
            self._changed.notify_all()

    def compact(self) -> None:
        """Every version handed out so far is gone: a watch from any of them gets 410 Gone (the
        store moves on by one version, as a write nobody watches would, so a new list's version
        can be watched)."""
        with self._changed:
            self._rv += 1
            self._compacted = self._rv
            self._changed.notify_all()

    def drop_watches(self) -> None:
        """Every open watch connection is cut mid-stream, without a last chunk."""
        with self._changed:
            self._drops += 1
            self._changed.notify_all()

    def resource_version(self) -> int:
        return self._rv

    def watches(self) -> list[Recorded]:
        return [r for r in self.requests if (r.query.get("watch") or [""])[0] in ("1", "true")]

    # -- control ------------------------------------------------------------------------------
    def fail_next(self, plural: str, *failures: Any) -> None:
        """The next list requests of ``plural`` fail, one per entry: an int status, a
        ``(status, retry_after)`` pair, or ``"reset"`` (the connection closes unanswered)."""
        with self._lock:
            self._failures.setdefault(plural, []).extend(failures)

    def expire_continue(self, plural: str) -> None:
        """The next request of ``plural`` that carries a continue token gets 410 Gone."""
        with self._lock:
            self._expire.add(plural)

    def methods(self) -> set[str]:
        return {r.method for r in self.requests}

    def paths(self) -> list[str]:
        return [r.path for r in self.requests]

    # -- lifecycle ----------------------------------------------------------------------------
    def start(self) -> "FakeApiServer":
        handler = _make_handler(self)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        if self.tls is not None:
            import ssl

            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(str(self.tls[0]), str(self.tls[1]))
            self._httpd.socket = context.wrap_socket(self._httpd.socket, server_side=True)
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="fake-apiserver", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        with self._changed:
            self._stopping = True
            self._changed.notify_all()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> "FakeApiServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._httpd is not None
        host, port = self._httpd.server_address[:2]
        return f"{'https' if self.tls else 'http'}://{host}:{port}"

    def write_kubeconfig(self, path: Path, token: str | None = None, context: str = "fake",
                         extra_contexts: Iterable[str] = (), cluster: dict | None = None) -> Path:
        """A kubeconfig for this server (``token`` defaults to the right one); ``cluster`` adds
        fields to its cluster entry (``certificate-authority``, ``insecure-skip-tls-verify``)."""
        contexts = [{"name": context, "context": {"cluster": "fake", "user": "reader"}}]
        contexts += [{"name": c, "context": {"cluster": "fake", "user": "reader"}} for c in extra_contexts]
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "fake", "cluster": {"server": self.url, **(cluster or {})}}],
            "users": [{"name": "reader", "user": {"token": self.token if token is None else token}}],
            "contexts": contexts,
            "current-context": context,
        }
        path.write_text(yaml.safe_dump(config), encoding="utf-8")
        return path

    # -- answering ----------------------------------------------------------------------------
    def _take_failure(self, plural: str) -> Any:
        with self._lock:
            queue = self._failures.get(plural)
            if queue:
                return queue.pop(0)
        return None

    def _take_expiry(self, plural: str) -> bool:
        with self._lock:
            if plural in self._expire:
                self._expire.discard(plural)
                return True
        return False

    def route(self, path: str) -> tuple[str, str | None, str | None] | None:
        """(kind, namespace, name) of an API path, or None."""
        parts = [unquote(p) for p in path.strip("/").split("/")]
        if len(parts) >= 2 and parts[0] == "api" and parts[1] == "v1":
            group, version, rest = "", "v1", parts[2:]
        elif len(parts) >= 3 and parts[0] == "apis":
            group, version, rest = parts[1], parts[2], parts[3:]
        else:
            return None
        namespace = name = None
        if len(rest) >= 3 and rest[0] == "namespaces":
            namespace, rest = rest[1], rest[2:]
        if not rest or len(rest) > 2:
            return None
        plural = rest[0]
        if len(rest) == 2:
            name = rest[1]
        for kind, (g, v, p, namespaced) in RESOURCES.items():
            if (g, v, p) == (group, version, plural):
                if namespace is not None and not namespaced:
                    return None
                return kind, namespace, name
        return None

    def items(self, kind: str, namespace: str | None, field_selector: str | None) -> list[dict]:
        key = (kind, namespace, field_selector, len(self._store.get(kind, ())))
        cached = self._cache.get(key)
        if cached is None:
            cached = self._cache[key] = self._items(kind, namespace, field_selector)
        return cached

    def _items(self, kind: str, namespace: str | None, field_selector: str | None) -> list[dict]:
        out = []
        for obj in self._store.get(kind, ()):
            if namespace is not None and obj["metadata"].get("namespace") != namespace:
                continue
            if field_selector and not _field_match(obj, field_selector):
                continue
            out.append(obj)
        return out


def _field_match(obj: dict, selector: str) -> bool:
    for term in selector.split(","):
        if "!=" in term:
            key, value, negate = *term.split("!=", 1), True
        else:
            key, value = term.replace("==", "=").split("=", 1)
            negate = False
        current: Any = obj
        for part in key.split("."):
            current = current.get(part) if isinstance(current, dict) else None
        matches = (current or "") == value
        if matches == negate:
            return False
    return True


def _status(code: int, reason: str, message: str) -> dict:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": reason, "code": code}


def _make_handler(server: FakeApiServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms stalls

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def _record(self) -> tuple[str, dict[str, list[str]], bool]:
            parts = urlsplit(self.path)
            query = parse_qs(parts.query, keep_blank_values=True)
            authorized = self.headers.get("Authorization") == f"Bearer {server.token}"
            server.requests.append(Recorded(self.command, parts.path, query, authorized))
            return parts.path, query, authorized

        def _send(self, code: int, body: dict, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def _refuse(self) -> None:
            self._record()
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            self._send(405, _status(405, "MethodNotAllowed", "the fake server only answers GET"))

        do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _refuse

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            path, query, authorized = self._record()
            if not authorized:
                self._send(401, _status(401, "Unauthorized", "Unauthorized"))
                return
            route = server.route(path)
            if route is None:
                self._send(404, _status(404, "NotFound", "the server could not find the requested resource"))
                return
            kind, namespace, name = route
            group, version, plural, _ = RESOURCES[kind]
            if (kind in CRD_KINDS and not server.crds) or plural in server.missing:
                self._send(404, _status(404, "NotFound", "the server could not find the requested resource"))
                return
            resource = f"{plural}.{group}" if group else plural
            if resource in server.forbidden or plural in server.forbidden:
                verb = "get" if name else "list"
                scope = f'in the namespace "{namespace}"' if namespace else "at the cluster scope"
                self._send(403, _status(403, "Forbidden",
                                        f'{resource} is forbidden: User "system:serviceaccount:default:reader" '
                                        f'cannot {verb} resource "{plural}" in API group "{group}" {scope}'))
                return
            failure = server._take_failure(plural)
            if failure == "reset":
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                return
            if failure is not None:
                code, retry_after = failure if isinstance(failure, tuple) else (failure, None)
                headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
                self._send(code, _status(code, "InternalError" if code >= 500 else "TooManyRequests",
                                         f"injected failure {code}"), headers)
                return
            api_version = f"{group}/{version}" if group else version
            if name is not None:
                for obj in server.items(kind, namespace, None):
                    if obj["metadata"]["name"] == name:
                        self._send(200, {"apiVersion": api_version, "kind": kind, **obj})
                        return
                self._send(404, _status(404, "NotFound", f'{resource} "{name}" not found'))
                return
            if (query.get("watch") or [""])[0] in ("1", "true"):
                if plural in server.forbidden_watch:
                    self._send(403, _status(403, "Forbidden", f'{resource} is forbidden: User "reader" cannot watch '
                                                              f'resource "{plural}" in API group "{group}"'))
                    return
                self._watch(kind, namespace, api_version, query)
                return
            token = (query.get("continue") or [""])[0]
            if token and server._take_expiry(plural):
                self._send(410, _status(410, "Expired", "The provided continue parameter is too old"))
                return
            selector = (query.get("fieldSelector") or [""])[0]
            items = server.items(kind, namespace, selector or None)
            offset = int(json.loads(base64.b64decode(token))["o"]) if token else 0
            limit = int((query.get("limit") or ["0"])[0] or 0)
            size = min(limit, server.max_page) if limit > 0 else len(items)
            page = items[offset:offset + size]
            end = offset + len(page)
            meta: dict[str, Any] = {"resourceVersion": str(server.resource_version())}
            if limit > 0 and end < len(items):
                meta["continue"] = base64.b64encode(json.dumps({"o": end, "rv": 5000}).encode()).decode()
                meta["remainingItemCount"] = len(items) - end
            self._send(200, {"apiVersion": api_version, "kind": f"{kind}List", "metadata": meta, "items": page})

        def _chunk(self, event: dict) -> None:
            data = json.dumps(event).encode() + b"\n"
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

        def _watch(self, kind: str, namespace: str | None, api_version: str, query: dict[str, list[str]]) -> None:
            since = int((query.get("resourceVersion") or ["0"])[0] or 0)
            bookmarks = (query.get("allowWatchBookmarks") or [""])[0] in ("1", "true")
            selector = (query.get("fieldSelector") or [""])[0] or None
            timeout = float((query.get("timeoutSeconds") or ["30"])[0] or 30)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            with server._changed:
                drops = server._drops
                expired = since < server._compacted
                compacted = server._compacted
            if expired:
                self._chunk({"type": "ERROR", "object": _status(
                    410, "Expired", f"too old resource version: {since} ({compacted})")})
                self._end()
                return
            seen = next((i for i, e in enumerate(server._events) if e[0] > since), len(server._events))
            deadline = time.monotonic() + timeout
            while True:
                with server._changed:
                    while (seen >= len(server._events) and server._drops == drops and not server._stopping
                           and time.monotonic() < deadline):
                        server._changed.wait(0.05)
                    if server._drops != drops or server._stopping:
                        self._cut()
                        return
                    fresh = server._events[seen:]
                    seen = len(server._events)
                if not fresh and time.monotonic() >= deadline:
                    self._end()
                    return
                for rv, event_kind, event, obj in fresh:
                    if event == "BOOKMARK":
                        if bookmarks:
                            self._chunk({"type": "BOOKMARK", "object": {
                                "kind": kind, "apiVersion": api_version, "metadata": {"resourceVersion": str(rv)}}})
                        continue
                    if event_kind != kind or rv <= since:
                        continue
                    if namespace is not None and obj["metadata"].get("namespace") != namespace:
                        continue
                    if selector and not _field_match(obj, selector):
                        if event != "MODIFIED":
                            continue
                        event = "DELETED"  # it left the selection, as the real server says
                    self._chunk({"type": event, "object": {"apiVersion": api_version, "kind": kind, **obj}})

        def _end(self) -> None:
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
            self.close_connection = True

        def _cut(self) -> None:
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    return Handler
