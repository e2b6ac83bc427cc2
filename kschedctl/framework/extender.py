"""Scheduler extenders: the ``extenders`` of a KubeSchedulerConfiguration, called over HTTP(S).

Follows pkg/scheduler/extender.go and the JSON shapes of k8s.io/kube-scheduler/extender/v1
(types.go) of kube-scheduler v1.34:

- ``filter`` POSTs ``ExtenderArgs`` (``Pod``, and ``Nodes`` as a NodeList or, for a
  ``nodeCacheCapable`` extender, ``NodeNames``) to ``<urlPrefix>/<filterVerb>`` and reads an
  ``ExtenderFilterResult`` (``Nodes`` / ``NodeNames``, ``FailedNodes``,
  ``FailedAndUnresolvableNodes``, ``Error``);
- ``prioritize`` POSTs the same args to ``<urlPrefix>/<prioritizeVerb>`` and reads a
  ``HostPriorityList`` (``[{"Host": ..., "Score": ...}]``); the scheduler scales the scores
  (0..MaxExtenderPriority) to the framework's range and multiplies them by ``weight``;
- ``is_interested``: an extender with ``managedResources`` only sees pods whose containers or
  init containers request or limit one of them; ``ignorable`` extenders may fail;
- ``httpTimeout`` (default 5s) bounds each request; ``tlsConfig`` (insecure, serverName,
  certFile/certData, keyFile/keyData, caFile/caData) and ``enableHTTPS`` (no CA given: do not
  verify the server) as client-go's ``TLSConfigFor`` applies them.

kschedctl never binds and does not run extender preemption: ``bindVerb`` and ``preemptVerb``
are never called (``is_binder`` / ``supports_preemption`` are reported so that reports can say so).

Why ``http.client`` and not urllib3 (which the kubernetes client brings along): Go's
``http.Client.Timeout`` bounds the whole call, reading the body included, and so must
``httpTimeout`` here. urllib3's ``Timeout(total=...)`` does not bound the body: measured against a
server that sends its headers and then one byte every 0.3 s, a 1 s ``total`` returned after 3.6 s,
while this client stops at the deadline (tests/framework/test_extender.py,
``test_a_trickling_body_is_cut_at_the_deadline``). The connection is one request long, as the
scheduler's keep-alive pool makes no difference to what an extender answers.

Known differences from upstream:
- the request goes straight to the extender: ``HTTP(S)_PROXY`` variables are not honoured
  (upstream's transport uses them for non-loopback addresses); redirects are not followed;
- network and JSON error texts follow Go's wording for the common cases (connection refused,
  timeouts, non-200, empty or malformed body, wrong JSON types) but are not byte-identical for
  every failure a Go client can report;
- the pod and nodes are sent as the dicts kschedctl holds (the input objects after admission),
  not re-marshalled from Go structs (field order and defaulted empty fields may differ).
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Iterable, Mapping
from urllib.parse import urlsplit

from kschedctl.errors import InputError
from kschedctl.framework.interfaces import MAX_NODE_SCORE
from kschedctl.inputs import access
from kschedctl.limits import EXTENDER_RESPONSE_MAX_BYTES, TLS_FILE_MAX_BYTES
from kschedctl.k8s.duration import parse_metav1_duration
from kschedctl.framework.types import NodeInfo

if TYPE_CHECKING:
    import http.client
    import ssl

# http.client, ssl and socket are imported by the calls that use them: a run without extenders
# (nearly every one) never needs them, and they cost a tenth of a small run's start-up.

#: Upstream DefaultExtenderTimeout, in seconds.
DEFAULT_EXTENDER_TIMEOUT = 5.0
#: extender/v1 MinExtenderPriority / MaxExtenderPriority.
MIN_EXTENDER_PRIORITY = 0
MAX_EXTENDER_PRIORITY = 10
#: What an extender score is multiplied by to reach the framework's range (100 / 10).
EXTENDER_SCORE_SCALE = MAX_NODE_SCORE // MAX_EXTENDER_PRIORITY
#: framework.ExtenderName: what the diagnosis lists among the unschedulable plugins.
EXTENDER_NAME = "Extender"
#: How reports name an extender next to plugins.
PLUGIN_PREFIX = "extender:"



class ExtenderConfigError(InputError):
    """An extender kube-scheduler could not build (it would refuse to start)."""


class ExtenderError(Exception):
    """A failed extender call. ``str()`` is the error text upstream's Go client would produce."""

    def __init__(self, message: str, extender: str = "", verb: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.extender = extender
        self.verb = verb

    def __str__(self) -> str:
        return self.message


@dataclass
class ExtenderFilterResult:
    """What ``HTTPExtender.filter`` returns: the nodes that passed and the failure maps.

    ``nodes`` are the snapshot's NodeInfos for a node-cache-capable extender; for one that
    returns ``Nodes``, upstream v1.34 wraps each returned Node in a new NodeInfo without pods,
    and so does kschedctl (later Score plugins see those nodes as empty: kubernetes#141781).
    """

    nodes: list[NodeInfo]
    failed: dict[str, str] = field(default_factory=dict)
    failed_and_unresolvable: dict[str, str] = field(default_factory=dict)
    #: Node names the extender returned that were not in the input list (non-cache-capable only).
    unknown_nodes: list[str] = field(default_factory=list)
    #: True when the feasible nodes are fresh NodeInfos built from the returned Node objects.
    rebuilt: bool = False


def _go_quote(text: str) -> str:
    """Go's ``%q`` for the strings that appear in extender errors (URLs, node names)."""
    return json.dumps(text, ensure_ascii=False)


# ---------------------------------------------------------------------------------------------
# TLS: client-go rest.TLSConfigFor as makeTransport uses it
# ---------------------------------------------------------------------------------------------


def _tls_bytes(tls: Mapping[str, Any], data_key: str, file_key: str, where: str) -> bytes | None:
    """PEM bytes from ``<x>File`` (wins, as client-go's dataFromSliceOrFile) or base64 ``<x>Data``."""
    path = tls.get(file_key) or ""
    if path:
        path = str(path)
        try:
            # The trust rule of the run, a regular file only and a size cap: a configuration from
            # a pull request may name a file outside the repository, a FIFO or /dev/zero.
            return access.read_capped(path, TLS_FILE_MAX_BYTES, "the file")
        except InputError as exc:
            raise ExtenderConfigError(f"{where}: tlsConfig.{file_key}: {path}: {exc.message}") from None
        except OSError as exc:
            raise ExtenderConfigError(f"{where}: tlsConfig.{file_key}: open {path}: {exc.strerror or exc}") from None
    data = tls.get(data_key)
    if not data:
        return None
    if isinstance(data, (bytes, bytearray)):
        return bytes(data)
    try:
        # []byte fields travel base64-encoded in JSON and YAML.
        return base64.b64decode(str(data), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ExtenderConfigError(f"{where}: tlsConfig.{data_key}: illegal base64 data ({exc})") from None


def build_ssl_context(config: Mapping[str, Any], where: str = "extender") -> tuple[ssl.SSLContext, str]:
    """The TLS client context and SNI/verification name for an extender's ``https`` URL.

    As upstream: ``insecure`` skips verification (an error together with a CA); with
    ``enableHTTPS`` and no CA the server is not verified either; a CA replaces the system
    roots; a client certificate is used only when both certificate and key are given.
    """
    tls = config.get("tlsConfig") or {}
    insecure = bool(tls.get("insecure"))
    server_name = str(tls.get("serverName") or "")
    ca = _tls_bytes(tls, "caData", "caFile", where)
    cert = _tls_bytes(tls, "certData", "certFile", where)
    key = _tls_bytes(tls, "keyData", "keyFile", where)
    if config.get("enableHTTPS") and not ca:
        insecure = True
    if ca and insecure:
        raise ExtenderConfigError(f"{where}: specifying a root certificates file with the insecure flag is not allowed")
    import ssl

    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2  # Go's client default
    if insecure:
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    elif ca:
        try:
            ctx.load_verify_locations(cadata=ca.decode("ascii", errors="replace"))
        except (ssl.SSLError, ValueError) as exc:
            raise ExtenderConfigError(f"{where}: unable to load root certificates: {exc}") from None
    else:
        ctx.load_default_certs(ssl.Purpose.SERVER_AUTH)
    if cert and key:
        _load_client_cert(ctx, cert, key, where)
    return ctx, server_name


def _load_client_cert(ctx: ssl.SSLContext, cert: bytes, key: bytes, where: str) -> None:
    import ssl
    import tempfile

    # ssl only loads key pairs from files: write them to a private directory, load, remove.
    with tempfile.TemporaryDirectory(prefix="kschedctl-tls-") as tmp:
        cert_path, key_path = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
        for path, data in ((cert_path, cert), (key_path, key)):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
        try:
            ctx.load_cert_chain(cert_path, key_path)
        except (ssl.SSLError, OSError) as exc:
            raise ExtenderConfigError(f"{where}: tls: failed to load the client certificate and key: {exc}") from None


@lru_cache(maxsize=None)
def _https_connection() -> type:
    """An HTTPS connection class that verifies (and sends as SNI) ``tlsConfig.serverName`` when set."""
    import http.client

    class HTTPSConnection(http.client.HTTPSConnection):
        def __init__(self, host: str, port: int | None, timeout: float, context: ssl.SSLContext,
                     server_name: str) -> None:
            super().__init__(host, port, timeout=timeout, context=context)
            self._server_name = server_name

        def connect(self) -> None:
            http.client.HTTPConnection.connect(self)
            self.sock = self._context.wrap_socket(self.sock, server_hostname=self._server_name or self.host)

    return HTTPSConnection


# ---------------------------------------------------------------------------------------------
# JSON: Go's encoding/json as the extender client decodes responses
# ---------------------------------------------------------------------------------------------


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


def _type_error(value: Any, where: str, go_type: str) -> ExtenderError:
    kind = _json_kind(value)
    if kind == "number":
        kind = f"number {json.dumps(value)}"
    return ExtenderError(f"json: cannot unmarshal {kind} into {where} of type {go_type}")


def _field(obj: dict, name: str) -> tuple[bool, Any]:
    """Go's field matching: exact or case-insensitive key, the last matching key wins."""
    found, value, folded = False, None, name.casefold()
    for key, v in obj.items():
        if key == name or key.casefold() == folded:
            found, value = True, v
    return found, value


def _decode(body: bytes) -> Any:
    """The first JSON value of ``body`` (json.Decoder.Decode ignores what follows it)."""
    text = body.decode("utf-8", errors="replace")
    start = len(text) - len(text.lstrip(" \t\r\n"))
    if start == len(text):
        raise ExtenderError("EOF")
    try:
        value, _ = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError as exc:
        if exc.pos >= len(text):
            raise ExtenderError("unexpected EOF") from None
        char = text[exc.pos]
        if exc.msg == "Expecting value":
            raise ExtenderError(f"invalid character {_go_char(char)} looking for beginning of value") from None
        raise ExtenderError(f"invalid character {_go_char(char)} ({exc.msg.lower()})") from None
    return value


def _go_char(char: str) -> str:
    if char == "'":
        return "'\\''"
    if char.isprintable():
        return f"'{char}'"
    return json.dumps(char)


def _string_map(value: Any, field_name: str) -> dict[str, str] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _type_error(value, f"Go struct field ExtenderFilterResult.{field_name}", "v1.FailedNodesMap")
    out: dict[str, str] = {}
    for k, v in value.items():
        if v is None:
            out[k] = ""
            continue
        if not isinstance(v, str):
            raise _type_error(v, f"Go struct field ExtenderFilterResult.{field_name}", "string")
        out[k] = v
    return out


def _parse_filter_result(value: Any) -> dict[str, Any]:
    """An ``ExtenderFilterResult`` with Go's nil/empty distinctions kept (None = absent/null)."""
    out: dict[str, Any] = {"Nodes": None, "NodeNames": None, "FailedNodes": None,
                           "FailedAndUnresolvableNodes": None, "Error": ""}
    if value is None:
        return out
    if not isinstance(value, dict):
        raise _type_error(value, "Go value", "v1.ExtenderFilterResult")
    found, nodes = _field(value, "Nodes")
    if found and nodes is not None:
        if not isinstance(nodes, dict):
            raise _type_error(nodes, "Go struct field ExtenderFilterResult.Nodes", "v1.NodeList")
        _, items = _field(nodes, "items")
        if items is not None and not isinstance(items, list):
            raise _type_error(items, "Go struct field NodeList.Nodes.items", "[]v1.Node")
        for item in items or ():
            if item is not None and not isinstance(item, dict):
                raise _type_error(item, "Go struct field NodeList.Nodes.items", "v1.Node")
        out["Nodes"] = [item or {} for item in items or ()]
    found, names = _field(value, "NodeNames")
    if found and names is not None:
        if not isinstance(names, list):
            raise _type_error(names, "Go struct field ExtenderFilterResult.NodeNames", "[]string")
        for n in names:
            if n is not None and not isinstance(n, str):
                raise _type_error(n, "Go struct field ExtenderFilterResult.NodeNames", "string")
        out["NodeNames"] = [n or "" for n in names]
    for name in ("FailedNodes", "FailedAndUnresolvableNodes"):
        _, m = _field(value, name)
        out[name] = _string_map(m, name)
    _, err = _field(value, "Error")
    if err is not None and not isinstance(err, str):
        raise _type_error(err, "Go struct field ExtenderFilterResult.Error", "string")
    out["Error"] = err or ""
    return out


_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _parse_host_priorities(value: Any) -> list[tuple[str, int]]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _type_error(value, "Go value", "v1.HostPriorityList")
    out: list[tuple[str, int]] = []
    for item in value:
        if item is None:
            out.append(("", 0))
            continue
        if not isinstance(item, dict):
            raise _type_error(item, "Go value", "v1.HostPriority")
        _, host = _field(item, "Host")
        if host is not None and not isinstance(host, str):
            raise _type_error(host, "Go struct field HostPriority.Host", "string")
        _, score = _field(item, "Score")
        if score is None:
            score = 0
        if isinstance(score, bool) or not isinstance(score, int) or not _INT64_MIN <= score <= _INT64_MAX:
            raise _type_error(score, "Go struct field HostPriority.Score", "int64")
        out.append((host or "", score))
    return out


# ---------------------------------------------------------------------------------------------
# The extender
# ---------------------------------------------------------------------------------------------


class HTTPExtender:
    """One configured extender (upstream ``HTTPExtender``), built from its v1 config dict."""

    def __init__(self, config: Mapping[str, Any], index: int = 0, source: str | None = None) -> None:
        where = f"extenders[{index}]"
        self.config = dict(config)
        self.url_prefix: str = str(config.get("urlPrefix") or "")
        self.filter_verb: str = str(config.get("filterVerb") or "")
        self.prioritize_verb: str = str(config.get("prioritizeVerb") or "")
        self.preempt_verb: str = str(config.get("preemptVerb") or "")
        self.bind_verb: str = str(config.get("bindVerb") or "")
        try:
            self.weight: int = int(config.get("weight") or 0)
        except (TypeError, ValueError):
            raise ExtenderConfigError(f"{where}.weight: not an integer: {config.get('weight')!r}", source) from None
        self.node_cache_capable: bool = bool(config.get("nodeCacheCapable"))
        self.ignorable: bool = bool(config.get("ignorable"))
        self.enable_https: bool = bool(config.get("enableHTTPS"))
        self.managed_resources: frozenset[str] = frozenset(
            str(r.get("name") or "") for r in config.get("managedResources") or () if isinstance(r, Mapping))
        self.ignored_resources: list[str] = [
            str(r.get("name") or "") for r in config.get("managedResources") or ()
            if isinstance(r, Mapping) and r.get("ignoredByScheduler")]
        try:
            timeout = parse_metav1_duration(config.get("httpTimeout"))
        except ValueError as exc:
            raise ExtenderConfigError(f"{where}.httpTimeout: {exc}", source) from None
        self.http_timeout: float = DEFAULT_EXTENDER_TIMEOUT if timeout == 0 else timeout
        self._scheme, self._host, self._port, self._path = _split(self.url_prefix)
        self._ssl: tuple[ssl.SSLContext, str] | None = None
        # client-go reads the TLS files when the extender is built, whatever the URL's scheme.
        if self._scheme == "https" or config.get("tlsConfig") or self.enable_https:
            try:
                self._ssl = build_ssl_context(self.config, where)
            except ExtenderConfigError as exc:
                raise exc.at(source) from None
        #: The last HTTP call, for reports: (verb, seconds, error text or "").
        self.last_call: tuple[str, float, str] | None = None

    # -- identity and capabilities ------------------------------------------------------------
    @property
    def name(self) -> str:
        """Upstream ``Name()``: the urlPrefix."""
        return self.url_prefix

    @property
    def plugin_name(self) -> str:
        """How reports list this extender next to plugins: ``extender:<urlPrefix>``."""
        return PLUGIN_PREFIX + self.url_prefix

    def is_ignorable(self) -> bool:
        return self.ignorable

    def supports_preemption(self) -> bool:
        """Upstream SupportsPreemption: a preemptVerb is set (kschedctl never calls it)."""
        return bool(self.preempt_verb)

    def is_binder(self) -> bool:
        """Upstream IsBinder: a bindVerb is set (kschedctl never calls it)."""
        return bool(self.bind_verb)

    def is_prioritizer(self) -> bool:
        return bool(self.prioritize_verb)

    def is_filter(self) -> bool:
        return bool(self.filter_verb)

    def is_interested(self, pod: Mapping[str, Any]) -> bool:
        """True without managedResources, else when a container or init container requests or
        limits one of them (upstream hasManagedResources; other fields are not looked at)."""
        if not self.managed_resources:
            return True
        spec = pod.get("spec") or {}
        managed = self.managed_resources
        for key in ("containers", "initContainers"):
            for container in spec.get(key) or ():
                resources = (container or {}).get("resources") or {}
                for part in ("requests", "limits"):
                    if any(name in managed for name in resources.get(part) or ()):
                        return True
        return False

    def describe(self) -> dict[str, Any]:
        """What reports show about this extender, with what kschedctl does not do with it."""
        out: dict[str, Any] = {
            "name": self.url_prefix,
            "filterVerb": self.filter_verb,
            "prioritizeVerb": self.prioritize_verb,
            "weight": self.weight,
            "nodeCacheCapable": self.node_cache_capable,
            "ignorable": self.ignorable,
            "httpTimeoutSeconds": self.http_timeout,
            "supportsPreemption": self.supports_preemption(),
            "binder": self.is_binder(),
        }
        if self.managed_resources:
            out["managedResources"] = sorted(self.managed_resources)
        notes = []
        if self.bind_verb:
            notes.append(f"bindVerb {_go_quote(self.bind_verb)} is never called: kschedctl never binds "
                         f"(kube-scheduler binds the pods this extender is interested in through it, "
                         f"not through the Bind plugins)")
        if self.preempt_verb:
            notes.append(f"preemptVerb {_go_quote(self.preempt_verb)} is never called: preemption runs without "
                         f"this extender (kube-scheduler lets it narrow the candidate nodes and victims)")
        if self.filter_verb and not self.node_cache_capable:
            notes.append("not nodeCacheCapable: the nodes it returns are scored as nodes without pods, as "
                         "kube-scheduler v1.34 does (kubernetes/kubernetes#141781)")
        if notes:
            out["notes"] = notes
        return out

    # -- verbs --------------------------------------------------------------------------------
    def filter(self, pod: Mapping[str, Any], nodes: list[NodeInfo]) -> ExtenderFilterResult:
        """Upstream Filter. Raises ExtenderError on any failure (transport, status, JSON, ``Error``)."""
        if not self.filter_verb:
            return ExtenderFilterResult(list(nodes))
        by_name = {n.name: n for n in nodes}
        raw = self._send(self.filter_verb, self._args(pod, nodes))
        result = self._wrap(self.filter_verb, _parse_filter_result, raw)
        if result["Error"]:
            raise ExtenderError(result["Error"], self.url_prefix, self.filter_verb)
        failed = result["FailedNodes"] or {}
        unresolvable = result["FailedAndUnresolvableNodes"] or {}
        if self.node_cache_capable and result["NodeNames"] is not None:
            passed = []
            for name in result["NodeNames"]:
                node_info = by_name.get(name)
                if node_info is None:
                    raise ExtenderError(
                        f"extender {_go_quote(self.url_prefix)} claims a filtered node {_go_quote(name)} "
                        f"which is not found in the input node list", self.url_prefix, self.filter_verb)
                passed.append(node_info)
            return ExtenderFilterResult(passed, failed, unresolvable)
        if result["Nodes"] is None:
            return ExtenderFilterResult([], failed, unresolvable)
        return self._rebuild(result["Nodes"], by_name, failed, unresolvable)

    def prioritize(self, pod: Mapping[str, Any], nodes: list[NodeInfo]) -> tuple[list[tuple[str, int]], int]:
        """Upstream Prioritize: ``([(host, score)], weight)``; without a prioritizeVerb every node
        scores 0 with weight 0. Raises ExtenderError on failure."""
        if not self.prioritize_verb:
            return [(n.name, 0) for n in nodes], 0
        raw = self._send(self.prioritize_verb, self._args(pod, nodes))
        return self._wrap(self.prioritize_verb, _parse_host_priorities, raw), self.weight

    # -- plumbing -----------------------------------------------------------------------------
    def _args(self, pod: Mapping[str, Any], nodes: list[NodeInfo]) -> dict[str, Any]:
        if self.node_cache_capable:
            return {"Pod": pod, "Nodes": None, "NodeNames": [n.name for n in nodes]}
        items = [n.node for n in nodes if n.node is not None]
        return {"Pod": pod, "Nodes": {"metadata": {}, "items": items or None}, "NodeNames": None}

    def _rebuild(self, items: list[dict], by_name: dict[str, NodeInfo], failed: dict[str, str],
                 unresolvable: dict[str, str]) -> ExtenderFilterResult:
        passed: list[NodeInfo] = []
        unknown: list[str] = []
        for item in items:
            name = str((item.get("metadata") or {}).get("name") or "")
            try:
                passed.append(NodeInfo(item))
            except Exception as exc:  # a Node the Go client could not decode
                raise ExtenderError(f"json: cannot unmarshal the Node {_go_quote(name)} returned by the extender: "
                                    f"{exc}", self.url_prefix, self.filter_verb) from None
            if name not in by_name:
                unknown.append(name)
        return ExtenderFilterResult(passed, failed, unresolvable, unknown, rebuilt=True)

    def _wrap(self, verb: str, parse: Any, raw: bytes) -> Any:
        try:
            return parse(_decode(raw))
        except ExtenderError as exc:
            exc.extender, exc.verb = self.url_prefix, verb
            self._note_error(exc.message)
            raise

    def _note_error(self, message: str) -> None:
        if self.last_call is not None:
            verb, seconds, _ = self.last_call
            self.last_call = (verb, seconds, message)

    def url(self, verb: str) -> str:
        """Upstream: ``strings.TrimRight(urlPrefix, "/") + "/" + verb``."""
        return self.url_prefix.rstrip("/") + "/" + verb

    def _send(self, verb: str, args: dict[str, Any]) -> bytes:
        """POST ``args`` as JSON and return the 200 response body; Go-like errors otherwise."""
        url = self.url(verb)
        body = json.dumps(args, separators=(",", ":"), ensure_ascii=False, default=_json_default).encode("utf-8")
        started = time.monotonic()
        try:
            return self._post(url, verb, body, started)
        except ExtenderError as exc:
            exc.extender, exc.verb = self.url_prefix, verb
            self.last_call = (verb, time.monotonic() - started, exc.message)
            raise

    def _post(self, url: str, verb: str, body: bytes, started: float) -> bytes:
        post = f"Post {_go_quote(url)}"
        if self._scheme not in ("http", "https"):
            raise ExtenderError(f"{post}: unsupported protocol scheme {_go_quote(self._scheme)}")
        if not self._host:
            raise ExtenderError(f"{post}: http: no Host in request URL")
        deadline = started + self.http_timeout
        if self.http_timeout < 0:
            raise ExtenderError(f"{post}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)")
        dial = f"dial tcp {_host_port(self._host, self._port)}"
        import http.client
        import socket
        import ssl

        if self._scheme == "https":
            assert self._ssl is not None
            conn: http.client.HTTPConnection = _https_connection()(self._host, self._port, self.http_timeout,
                                                                *self._ssl)
        else:
            conn = http.client.HTTPConnection(self._host, self._port, timeout=self.http_timeout)
        try:
            try:
                conn.connect()
            except ssl.SSLCertVerificationError as exc:
                raise ExtenderError(f"{post}: tls: failed to verify certificate: x509: {exc.verify_message}") from None
            except ssl.SSLError as exc:
                raise ExtenderError(f"{post}: remote error: tls: {exc.reason or exc}") from None
            except (socket.timeout, TimeoutError):
                raise ExtenderError(f"{post}: {dial}: i/o timeout (Client.Timeout exceeded while awaiting headers)") \
                    from None
            except ConnectionRefusedError:
                raise ExtenderError(f"{post}: {dial}: connect: connection refused") from None
            except socket.gaierror:
                raise ExtenderError(f"{post}: dial tcp: lookup {self._host}: no such host") from None
            except OSError as exc:
                raise ExtenderError(f"{post}: {dial}: {exc.strerror or exc}") from None
            try:
                _set_timeout(conn, deadline)
                conn.putrequest("POST", self._path + "/" + verb, skip_accept_encoding=True)
                conn.putheader("Content-Type", "application/json")
                conn.putheader("Content-Length", str(len(body)))
                conn.putheader("User-Agent", "kschedctl")
                conn.endheaders(body)
                _set_timeout(conn, deadline)
                response = conn.getresponse()
            except (socket.timeout, TimeoutError):
                raise ExtenderError(f"{post}: context deadline exceeded (Client.Timeout exceeded while awaiting "
                                    f"headers)") from None
            except (http.client.HTTPException, OSError) as exc:
                raise ExtenderError(f"{post}: {_transport_error(exc)}") from None
            if response.status != 200:
                raise ExtenderError(f"failed {verb} with extender at URL {url}, code {response.status}")
            chunks = []
            received = 0
            try:
                while True:
                    # One receive at a time, each bounded by what is left of the deadline: a server
                    # that trickles its body cannot stretch the call past httpTimeout (as Go's
                    # Client.Timeout, which covers reading the body too).
                    _set_timeout(conn, deadline)
                    chunk = response.read1(65536)
                    if not chunk:
                        break
                    received += len(chunk)
                    if received > EXTENDER_RESPONSE_MAX_BYTES:
                        raise ExtenderError(f"{post}: response body larger than "
                                            f"{access.size_text(EXTENDER_RESPONSE_MAX_BYTES)}, the limit")
                    chunks.append(chunk)
            except (socket.timeout, TimeoutError):
                raise ExtenderError("context deadline exceeded (Client.Timeout or context cancellation while "
                                    "reading body)") from None
            except http.client.IncompleteRead as exc:
                chunks.append(exc.partial)
            except (http.client.HTTPException, OSError) as exc:
                raise ExtenderError(_transport_error(exc)) from None
        finally:
            conn.close()
        self.last_call = (verb, time.monotonic() - started, "")
        return b"".join(chunks)

    def __repr__(self) -> str:
        return f"<HTTPExtender {self.url_prefix!r}>"


def _json_default(value: Any) -> Any:
    """YAML timestamps (datetime) as Go's RFC 3339 text; anything else as its string."""
    iso = getattr(value, "isoformat", None)
    if callable(iso):
        text = iso()
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    return str(value)


def _split(url: str) -> tuple[str, str, int | None, str]:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "", "", None, ""
    return parts.scheme.lower(), parts.hostname or "", port, parts.path.rstrip("/")


def _host_port(host: str, port: int | None) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"{shown}:{port}" if port is not None else shown


def _set_timeout(conn: http.client.HTTPConnection, deadline: float) -> None:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimeoutError("deadline")  # socket.timeout is TimeoutError
    if conn.sock is not None:
        conn.sock.settimeout(remaining)


def _transport_error(exc: BaseException) -> str:
    import http.client

    if isinstance(exc, http.client.RemoteDisconnected) or isinstance(exc, ConnectionResetError):
        return "EOF"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return str(exc) or type(exc).__name__


# ---------------------------------------------------------------------------------------------
# Building the configured extenders (upstream buildExtenders in scheduler.go)
# ---------------------------------------------------------------------------------------------


def build_extenders(configs: Iterable[Mapping[str, Any]], source: str | None = None) -> list[HTTPExtender]:
    """The extenders in the order the scheduler calls them: ignorable ones moved to the end."""
    built = [HTTPExtender(c, i, source) for i, c in enumerate(configs or ())]
    return [e for e in built if not e.ignorable] + [e for e in built if e.ignorable]


def ignored_extended_resources(configs: Iterable[Mapping[str, Any]]) -> list[str]:
    """Names of managedResources with ``ignoredByScheduler``, in configuration order."""
    out: list[str] = []
    for c in configs or ():
        for r in c.get("managedResources") or ():
            if isinstance(r, Mapping) and r.get("ignoredByScheduler"):
                out.append(str(r.get("name") or ""))
    return out


def with_ignored_resources(plugin_config: list[Any], ignored: list[str], profile_name: str = "") -> list[Any]:
    """A copy of a profile's pluginConfig whose NodeResourcesFit args ignore ``ignored``.

    Upstream buildExtenders *replaces* ``NodeResourcesFitArgs.ignoredResources`` of every
    profile with the extenders' ignored resources, and refuses to start when a profile has no
    NodeResourcesFit args. ``plugin_config`` entries are objects with ``name`` and ``args``.
    """
    if not ignored:
        return list(plugin_config)
    out = list(plugin_config)
    for i, pc in enumerate(out):
        if getattr(pc, "name", None) == "NodeResourcesFit":
            args = dict(getattr(pc, "args", None) or {})
            args["ignoredResources"] = list(ignored)
            clone = type(pc)(pc.name, args)
            out[i] = clone
            return out
    where = f' (profile "{profile_name}")' if profile_name else ""
    raise ExtenderConfigError(f"can't find NodeResourcesFitArgs in plugin config{where}")
