"""A small scheduler extender for tests: an HTTP(S) server on 127.0.0.1 (port 0) in a thread.

Routes map a request path (``/<prefix>/<verb>``) to a function of the decoded ``ExtenderArgs``
returning ``(status, body)`` (body: bytes/str sent as is, anything else as JSON); every request
is recorded (path, method, headers, args). ``fake_extender_routes`` builds the routes of
upstream's ``FakeExtender`` (pkg/scheduler/testing/framework/fake_extender.go): predicates,
prioritizers with weights. TLS: ``self_signed_cert`` makes a certificate for 127.0.0.1 and
``extender.test`` with ``cryptography`` when installed, else with the ``openssl`` command.
"""

from __future__ import annotations

import datetime
import ipaddress
import json
import shutil
import ssl
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

Route = Callable[[dict], tuple[int, Any]]


class ExtenderServer:
    """The test extender; ``url`` is its base URL, ``requests`` what it received."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.routes: dict[str, Route] = {}
        self.requests: list[dict[str, Any]] = []
        #: Exceptions raised by routes (a test bug, not an extender answer).
        self.errors: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    args = json.loads(raw)
                except ValueError:
                    args = None
                server.requests.append({"path": self.path, "method": "POST", "headers": dict(self.headers),
                                        "args": args})
                route = server.routes.get(self.path)
                try:
                    status, body = (404, b"no such route") if route is None else route(args)
                except Exception as exc:  # a broken test route: make it visible
                    server.errors.append(f"{self.path}: {type(exc).__name__}: {exc}")
                    status, body = 599, b"test route failed"
                if not isinstance(body, (bytes, str)):
                    body = json.dumps(body)
                data = body.encode() if isinstance(body, str) else body
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass  # the client gave up (timeout tests)

            def log_message(self, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # TLS handshakes the client refuses, clients that timed out

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.scheme = "http"
        if tls is not None:
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
            self.scheme = "https"
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}"

    def paths(self) -> list[str]:
        return [r["path"] for r in self.requests]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# -- upstream FakeExtender behaviours ---------------------------------------------------------


def _node_names(args: dict) -> list[str]:
    if args.get("NodeNames") is not None:
        return list(args["NodeNames"])
    return [n["metadata"]["name"] for n in (args.get("Nodes") or {}).get("items") or ()]


def predicate(kind: str) -> Callable[[str], tuple[str, str]]:
    """fake_extender.go's FitPredicates: (code, reason) for a node name."""
    def run(node: str) -> tuple[str, str]:
        if kind == "True":
            return "Success", ""
        if kind == "False":
            return "Unschedulable", f'pod is unschedulable on the node "{node}"'
        if kind == "Error":
            return "Error", "some error"
        if kind == "Unresolvable":
            return "UnschedulableAndUnresolvable", f'node "{node}" is unresolvable'
        wanted = {"Node1": "node1", "Node2": "node2"}[kind]
        return ("Success", "") if node == wanted else ("Unschedulable", f'node "{node}" is not allowed')
    return run


def prioritizer(kind: str) -> Callable[[list[str]], dict[str, int]] | None:
    """fake_extender.go's PriorityFuncs: node -> score; None for the error one."""
    if kind == "Error":
        return None
    wanted = {"Node1": "node1", "Node2": "node2"}[kind]
    return lambda nodes: {n: (10 if n == wanted else 1) for n in nodes}


def fake_filter(predicates: list[str]) -> Route:
    """FakeExtender.Filter over HTTP: a node passes when every predicate says Success."""
    preds = [predicate(p) for p in predicates]

    def route(args: dict) -> tuple[int, Any]:
        names = _node_names(args)
        passed, failed, unresolvable = [], {}, {}
        for name in names:
            code, reason = "Success", ""
            for pred in preds:
                code, reason = pred(name)
                if code != "Success":
                    break
            if code == "Success":
                passed.append(name)
            elif code == "Unschedulable":
                failed[name] = f'FakeExtender: node "{name}" failed'
            elif code == "UnschedulableAndUnresolvable":
                unresolvable[name] = f'FakeExtender: node "{name}" failed and unresolvable'
            else:
                return 200, {"Error": reason}
        result: dict[str, Any] = {"FailedNodes": failed, "FailedAndUnresolvableNodes": unresolvable}
        if args.get("NodeNames") is not None:
            result["NodeNames"] = passed
        else:
            items = {n["metadata"]["name"]: n for n in args["Nodes"]["items"]}
            result["Nodes"] = {"items": [items[n] for n in passed]}
        return 200, result
    return route


def fake_prioritize(prioritizers: list[dict]) -> Route:
    """FakeExtender.Prioritize over HTTP: sum of score x weight per node; an error -> HTTP 500."""
    def route(args: dict) -> tuple[int, Any]:
        names = _node_names(args)
        combined: dict[str, int] = {}
        for p in prioritizers:
            if not p.get("weight"):
                continue
            fn = prioritizer(p["function"])
            if fn is None:
                return 500, "some error"
            for node, score in fn(names).items():
                combined[node] = combined.get(node, 0) + score * p["weight"]
        return 200, [{"Host": h, "Score": s} for h, s in combined.items()]
    return route


def slow(seconds: float, status: int = 200, body: Any = None) -> Route:
    def route(args: dict) -> tuple[int, Any]:
        time.sleep(seconds)
        return status, body if body is not None else {"NodeNames": []}
    return route


# -- TLS ----------------------------------------------------------------------------------------


def tls_available() -> str | None:
    """None when a certificate can be made, else why not (the TLS tests skip with it)."""
    try:
        import cryptography  # noqa: F401
        return None
    except ImportError:
        pass
    if shutil.which("openssl"):
        return None
    return "neither the cryptography package nor the openssl command is available to make a certificate"


def self_signed_cert(directory: Path, name: str = "server") -> tuple[Path, Path]:
    """(cert.pem, key.pem) of a self-signed certificate for IP 127.0.0.1 and DNS extender.test."""
    cert_path, key_path = directory / f"{name}-cert.pem", directory / f"{name}-key.pem"
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID
    except ImportError:
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", str(key_path), "-out", str(cert_path), "-days", "2", "-subj", f"/CN={name}",
             "-addext", "subjectAltName=IP:127.0.0.1,DNS:extender.test",
             "-addext", "basicConstraints=critical,CA:TRUE"],
            check=True, capture_output=True)
        return cert_path, key_path
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                                                    x509.DNSName("extender.test")]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def server_tls_context(cert: Path, key: Path, client_ca: Path | None = None) -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(str(cert), str(key))
    if client_ca is not None:
        ctx.verify_mode = ssl.CERT_REQUIRED
        ctx.load_verify_locations(str(client_ca))
    return ctx


# -- pytest fixture -------------------------------------------------------------------------------

import pytest  # noqa: E402 - the fixture is the only pytest-specific part


@pytest.fixture
def extender_server() -> Any:
    """A factory of loopback extenders (``make(tls=None)``), all closed after the test."""
    made: list[ExtenderServer] = []

    def make(tls: ssl.SSLContext | None = None) -> ExtenderServer:
        server = ExtenderServer(tls)
        made.append(server)
        return server

    yield make
    for server in made:
        server.close()
    errors = [e for server in made for e in server.errors]
    assert not errors, errors
