"""HTTPExtender against a real loopback extender: the JSON it sends and reads (extender/v1
types.go), nodeCacheCapable both ways, managedResources (upstream TestIsInterested), failures
(Error field, non-200, bad JSON, wrong JSON types, timeouts, connection refused) and TLS with a
self-signed certificate made by the test."""

from __future__ import annotations

import base64
import socket
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from kschedctl.k8s.duration import parse_metav1_duration
import yaml

from kschedctl.config.types import PluginConfig
from kschedctl.framework.extender import (
    DEFAULT_EXTENDER_TIMEOUT,
    ExtenderConfigError,
    ExtenderError,
    HTTPExtender,
    build_extenders,
    ignored_extended_resources,
    with_ignored_resources,
)
from kschedctl.framework.types import NodeInfo
from tests.framework.extender_server import (  # noqa: F401 - extender_server is a fixture
    extender_server,
    self_signed_cert,
    server_tls_context,
    tls_available,
)
from tests.framework.fakes import make_node, make_pod, pod_info

CASES = Path(__file__).parent / "cases"


def nodes(*names: str, pods_on: str = "") -> list[NodeInfo]:
    out = [NodeInfo(make_node(n)) for n in names]
    for n in out:
        if n.name == pods_on:
            n.add_pod(pod_info(make_pod("busy", node=n.name, containers=[
                {"name": "c", "resources": {"requests": {"cpu": "2"}}}])))
    return out


POD = make_pod("web", containers=[{"name": "c", "resources": {"requests": {"cpu": "1"}}}])


# -- IsInterested -------------------------------------------------------------------------------

INTERESTED = yaml.safe_load((CASES / "extender_is_interested.yaml").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", [pytest.param(c, id=f"IsInterested_{c['name']}") for c in INTERESTED])
def test_is_interested(case: dict) -> None:
    ext = HTTPExtender({"urlPrefix": "http://127.0.0.1:1", "managedResources": [
        {"name": n} for n in case["managedResources"]]})
    assert ext.is_interested(case["pod"]) is case["want"]


# -- configuration ------------------------------------------------------------------------------


@pytest.mark.parametrize("text,seconds", [("30s", 30.0), ("1m30s", 90.0), ("500ms", 0.5), ("1.5s", 1.5),
                                          ("0", 0.0), (None, 0.0), ("", 0.0), (2_000_000_000, 2.0)])
def test_parse_go_duration(text, seconds) -> None:
    assert parse_metav1_duration(text) == pytest.approx(seconds)


def test_bad_duration_is_a_config_error() -> None:
    with pytest.raises(ExtenderConfigError, match=r'extenders\[0\].httpTimeout: time: unknown unit " s" in duration "5 s"'):
        HTTPExtender({"urlPrefix": "http://x", "httpTimeout": "5 s"})


def test_defaults_and_capabilities() -> None:
    ext = HTTPExtender({"urlPrefix": "http://127.0.0.1:1/ext", "filterVerb": "filter", "bindVerb": "bind",
                        "preemptVerb": "preempt"})
    assert ext.http_timeout == DEFAULT_EXTENDER_TIMEOUT == 5.0
    assert HTTPExtender({"urlPrefix": "x", "httpTimeout": "0s"}).http_timeout == 5.0
    assert ext.name == "http://127.0.0.1:1/ext" and ext.plugin_name == "extender:http://127.0.0.1:1/ext"
    assert ext.is_filter() and not ext.is_prioritizer() and ext.is_binder() and ext.supports_preemption()
    assert not ext.is_ignorable()
    notes = ext.describe()["notes"]
    assert notes[0].startswith('bindVerb "bind" is never called')
    assert notes[1].startswith('preemptVerb "preempt" is never called')
    assert ext.url("filter") == "http://127.0.0.1:1/ext/filter"
    assert HTTPExtender({"urlPrefix": "http://h/a//"}).url("v") == "http://h/a/v"


def test_build_extenders_puts_ignorable_ones_last() -> None:
    configs = [{"urlPrefix": "http://a", "ignorable": True}, {"urlPrefix": "http://b"},
               {"urlPrefix": "http://c", "ignorable": True}, {"urlPrefix": "http://d"}]
    assert [e.name for e in build_extenders(configs)] == ["http://b", "http://d", "http://a", "http://c"]


def test_ignored_resources_replace_node_resources_fit_args() -> None:
    configs = [{"urlPrefix": "http://a", "managedResources": [
        {"name": "example.com/gpu", "ignoredByScheduler": True}, {"name": "example.com/fpga"}]},
        {"urlPrefix": "http://b", "managedResources": [{"name": "example.com/nic", "ignoredByScheduler": True}]}]
    ignored = ignored_extended_resources(configs)
    assert ignored == ["example.com/gpu", "example.com/nic"]
    pcs = [PluginConfig("NodeAffinity", {}), PluginConfig("NodeResourcesFit", {"ignoredResources": ["mine"],
                                                                                "scoringStrategy": {}})]
    out = with_ignored_resources(pcs, ignored)
    assert out[1].args == {"ignoredResources": ["example.com/gpu", "example.com/nic"], "scoringStrategy": {}}
    assert pcs[1].args["ignoredResources"] == ["mine"]  # the configuration is not changed
    with pytest.raises(ExtenderConfigError, match="can't find NodeResourcesFitArgs in plugin config"):
        with_ignored_resources([PluginConfig("NodeAffinity", {})], ignored, "p")


# -- filter -------------------------------------------------------------------------------------


def test_filter_sends_full_nodes_and_rebuilds_returned_nodes_without_pods(extender_server) -> None:
    srv = extender_server()
    srv.routes["/ext/filter"] = lambda args: (200, {"Nodes": {"items": args["Nodes"]["items"][:1]},
                                                    "FailedNodes": {"node-b": "no gpu"}})
    ext = HTTPExtender({"urlPrefix": srv.url + "/ext/", "filterVerb": "filter"})
    given = nodes("node-a", "node-b", pods_on="node-a")
    result = ext.filter(POD, given)
    req = srv.requests[0]
    assert req["path"] == "/ext/filter" and req["method"] == "POST"
    assert req["headers"]["Content-Type"] == "application/json"
    args = req["args"]
    assert set(args) == {"Pod", "Nodes", "NodeNames"} and args["NodeNames"] is None
    assert args["Pod"]["metadata"]["name"] == "web"
    assert [n["metadata"]["name"] for n in args["Nodes"]["items"]] == ["node-a", "node-b"]
    assert args["Nodes"]["items"][0]["status"]["allocatable"]["cpu"] == "4"
    assert [n.name for n in result.nodes] == ["node-a"]
    # Upstream v1.34 wraps the returned Node in a new NodeInfo: the busy node looks empty.
    assert result.rebuilt and result.nodes[0] is not given[0]
    assert result.nodes[0].pods == [] and result.nodes[0].requested.milli_cpu == 0
    assert given[0].requested.milli_cpu == 2000
    assert result.failed == {"node-b": "no gpu"} and result.failed_and_unresolvable == {}


def test_filter_node_cache_capable_sends_names_and_keeps_node_infos(extender_server) -> None:
    srv = extender_server()
    srv.routes["/filter"] = lambda args: (200, {"NodeNames": ["node-b"],
                                                "FailedAndUnresolvableNodes": {"node-a": "gone"}})
    ext = HTTPExtender({"urlPrefix": srv.url, "filterVerb": "filter", "nodeCacheCapable": True})
    given = nodes("node-a", "node-b", pods_on="node-b")
    result = ext.filter(POD, given)
    args = srv.requests[0]["args"]
    assert args["Nodes"] is None and args["NodeNames"] == ["node-a", "node-b"]
    assert result.nodes == [given[1]] and result.nodes[0] is given[1] and not result.rebuilt
    assert result.failed_and_unresolvable == {"node-a": "gone"}


def test_node_cache_capable_extender_answering_with_nodes_is_read_as_nodes(extender_server) -> None:
    srv = extender_server()
    srv.routes["/filter"] = lambda args: (200, {"Nodes": {"items": [make_node("node-a")]}})
    ext = HTTPExtender({"urlPrefix": srv.url, "filterVerb": "filter", "nodeCacheCapable": True})
    result = ext.filter(POD, nodes("node-a", "node-b"))
    assert [n.name for n in result.nodes] == ["node-a"] and result.rebuilt


def test_node_cache_capable_extender_claiming_an_unknown_node(extender_server) -> None:
    srv = extender_server()
    srv.routes["/filter"] = lambda args: (200, {"NodeNames": ["node-z"]})
    ext = HTTPExtender({"urlPrefix": srv.url, "filterVerb": "filter", "nodeCacheCapable": True})
    with pytest.raises(ExtenderError) as err:
        ext.filter(POD, nodes("node-a"))
    assert str(err.value) == (f'extender "{srv.url}" claims a filtered node "node-z" which is not found in the '
                              f'input node list')


def test_filter_without_nodes_in_the_answer_keeps_none(extender_server) -> None:
    srv = extender_server()
    srv.routes["/filter"] = lambda args: (200, {"FailedNodes": {"node-a": "x"}})
    ext = HTTPExtender({"urlPrefix": srv.url, "filterVerb": "filter"})
    assert ext.filter(POD, nodes("node-a", "node-b")).nodes == []
    srv.routes["/filter"] = lambda args: (200, "null")
    assert ext.filter(POD, nodes("node-a")).nodes == []


def test_filter_error_field_is_an_error(extender_server) -> None:
    srv = extender_server()
    srv.routes["/filter"] = lambda args: (200, {"Error": "some error", "NodeNames": ["node-a"]})
    ext = HTTPExtender({"urlPrefix": srv.url, "filterVerb": "filter", "nodeCacheCapable": True})
    with pytest.raises(ExtenderError, match="^some error$"):
        ext.filter(POD, nodes("node-a"))


def test_keys_match_case_insensitively_and_trailing_data_is_ignored(extender_server) -> None:
    srv = extender_server()
    srv.routes["/filter"] = lambda args: (200, b'{"nodenames": ["node-b"], "failednodes": {"node-a": "m"}} trailing')
    ext = HTTPExtender({"urlPrefix": srv.url, "filterVerb": "filter", "nodeCacheCapable": True})
    result = ext.filter(POD, nodes("node-a", "node-b"))
    assert [n.name for n in result.nodes] == ["node-b"] and result.failed == {"node-a": "m"}


def test_no_verbs_no_requests(extender_server) -> None:
    srv = extender_server()
    ext = HTTPExtender({"urlPrefix": srv.url})
    given = nodes("node-a", "node-b")
    assert ext.filter(POD, given).nodes == given
    assert ext.prioritize(POD, given) == ([("node-a", 0), ("node-b", 0)], 0)
    assert srv.requests == []


# -- prioritize ---------------------------------------------------------------------------------


def test_prioritize_returns_host_scores_and_weight(extender_server) -> None:
    srv = extender_server()
    srv.routes["/prio"] = lambda args: (200, [{"Host": "node-a", "Score": 3}, {"host": "node-b", "score": 10}])
    ext = HTTPExtender({"urlPrefix": srv.url, "prioritizeVerb": "prio", "weight": 5, "nodeCacheCapable": True})
    assert ext.prioritize(POD, nodes("node-a", "node-b")) == ([("node-a", 3), ("node-b", 10)], 5)
    assert srv.requests[0]["args"]["NodeNames"] == ["node-a", "node-b"]


@pytest.mark.parametrize("body,message", [
    (b"", "EOF"),
    (b"   ", "EOF"),
    (b"<html>", "invalid character '<' looking for beginning of value"),
    (b'[{"Host": "node-a", "Score": 1', "unexpected EOF"),
    (b'[{"Host": "node-a", "Score": 5.5}]',
     "json: cannot unmarshal number 5.5 into Go struct field HostPriority.Score of type int64"),
    (b'[{"Host": "node-a", "Score": "5"}]',
     "json: cannot unmarshal string into Go struct field HostPriority.Score of type int64"),
    (b'{"Host": "node-a"}', "json: cannot unmarshal object into Go value of type v1.HostPriorityList"),
])
def test_prioritize_bad_json(extender_server, body: bytes, message: str) -> None:
    srv = extender_server()
    srv.routes["/prio"] = lambda args: (200, body)
    ext = HTTPExtender({"urlPrefix": srv.url, "prioritizeVerb": "prio", "weight": 1})
    with pytest.raises(ExtenderError) as err:
        ext.prioritize(POD, nodes("node-a"))
    assert str(err.value) == message
    assert err.value.extender == srv.url and err.value.verb == "prio"


def test_filter_wrong_json_types(extender_server) -> None:
    srv = extender_server()
    srv.routes["/filter"] = lambda args: (200, {"NodeNames": "node-a"})
    ext = HTTPExtender({"urlPrefix": srv.url, "filterVerb": "filter", "nodeCacheCapable": True})
    with pytest.raises(ExtenderError) as err:
        ext.filter(POD, nodes("node-a"))
    assert str(err.value) == "json: cannot unmarshal string into Go struct field ExtenderFilterResult.NodeNames " \
                             "of type []string"
    srv.routes["/filter"] = lambda args: (200, [])
    with pytest.raises(ExtenderError, match=r"^json: cannot unmarshal array into Go value of type "
                                            r"v1.ExtenderFilterResult$"):
        ext.filter(POD, nodes("node-a"))


# -- transport failures -------------------------------------------------------------------------


@pytest.mark.parametrize("status", [500, 404, 204])
def test_non_200(extender_server, status: int) -> None:
    srv = extender_server()
    srv.routes["/filter"] = lambda args: (status, {"NodeNames": []})
    ext = HTTPExtender({"urlPrefix": srv.url, "filterVerb": "filter"})
    with pytest.raises(ExtenderError) as err:
        ext.filter(POD, nodes("node-a"))
    assert str(err.value) == f"failed filter with extender at URL {srv.url}/filter, code {status}"


def test_timeout(extender_server) -> None:
    srv = extender_server()
    srv.routes["/filter"] = lambda args: (time.sleep(1.5), (200, {"NodeNames": []}))[1]
    ext = HTTPExtender({"urlPrefix": srv.url, "filterVerb": "filter", "httpTimeout": "200ms"})
    # The deadline's own message proves the call ended at it: the server's answer would be an
    # empty node list (no clock read: a busy machine runs late).
    with pytest.raises(ExtenderError) as err:
        ext.filter(POD, nodes("node-a"))
    assert str(err.value) == (f'Post "{srv.url}/filter": context deadline exceeded '
                              f"(Client.Timeout exceeded while awaiting headers)")
    assert ext.last_call is not None and ext.last_call[2] == str(err.value)


def test_a_trickling_body_is_cut_at_the_deadline() -> None:
    # Headers at once, then one byte every 0.3 s: Go's Client.Timeout covers the body too.
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 14\r\nContent-Type: application/json\r\n\r\n")
            for byte in b'{"NodeNames":[]}'[:14]:
                time.sleep(0.3)
                try:
                    conn.sendall(bytes([byte]))
                except OSError:
                    return

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    ext = HTTPExtender({"urlPrefix": f"http://127.0.0.1:{port}", "filterVerb": "filter", "httpTimeout": "1s"})
    with pytest.raises(ExtenderError) as err:
        ext.filter(POD, nodes("node-a"))
    assert str(err.value) == "context deadline exceeded (Client.Timeout or context cancellation while reading body)"
    listener.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_connection_refused() -> None:
    port = _free_port()
    ext = HTTPExtender({"urlPrefix": f"http://127.0.0.1:{port}", "filterVerb": "filter"})
    with pytest.raises(ExtenderError) as err:
        ext.filter(POD, nodes("node-a"))
    assert str(err.value) == (f'Post "http://127.0.0.1:{port}/filter": dial tcp 127.0.0.1:{port}: connect: '
                              f"connection refused")


@pytest.mark.parametrize("prefix,message", [
    ("ftp://127.0.0.1/x", 'Post "ftp://127.0.0.1/x/filter": unsupported protocol scheme "ftp"'),
    ("", 'Post "/filter": unsupported protocol scheme ""'),
])
def test_bad_url(prefix: str, message: str) -> None:
    with pytest.raises(ExtenderError) as err:
        HTTPExtender({"urlPrefix": prefix, "filterVerb": "filter"}).filter(POD, nodes("node-a"))
    assert str(err.value) == message


# -- TLS ------------------------------------------------------------------------------------------

NO_TLS = tls_available()
tls = pytest.mark.skipif(NO_TLS is not None, reason=NO_TLS or "")


@pytest.fixture
def certs(tmp_path: Path) -> SimpleNamespace:
    cert, key = self_signed_cert(tmp_path, "server")
    client_cert, client_key = self_signed_cert(tmp_path, "client")
    return SimpleNamespace(cert=cert, key=key, client_cert=client_cert, client_key=client_key)


def _b64(path: Path) -> str:
    return base64.b64encode(path.read_bytes()).decode()


def _https(extender_server, certs, client_ca: Path | None = None):
    srv = extender_server(server_tls_context(certs.cert, certs.key, client_ca))
    srv.routes["/filter"] = lambda args: (200, {"NodeNames": args["NodeNames"]})
    return srv


def _filter(url: str, **config) -> list[str]:
    ext = HTTPExtender({"urlPrefix": url, "filterVerb": "filter", "nodeCacheCapable": True, **config})
    return [n.name for n in ext.filter(POD, nodes("node-a")).nodes]


@tls
def test_tls_enable_https_without_ca_does_not_verify(extender_server, certs) -> None:
    srv = _https(extender_server, certs)
    assert srv.url.startswith("https://")
    assert _filter(srv.url, enableHTTPS=True) == ["node-a"]
    assert _filter(srv.url, tlsConfig={"insecure": True}) == ["node-a"]


@tls
def test_tls_ca_data_and_ca_file_verify_the_server(extender_server, certs) -> None:
    srv = _https(extender_server, certs)
    assert _filter(srv.url, enableHTTPS=True, tlsConfig={"caData": _b64(certs.cert)}) == ["node-a"]
    assert _filter(srv.url, tlsConfig={"caFile": str(certs.cert)}) == ["node-a"]


@tls
def test_tls_unknown_authority_fails(extender_server, certs) -> None:
    srv = _https(extender_server, certs)
    with pytest.raises(ExtenderError) as err:
        _filter(srv.url)  # system roots only: the self-signed certificate is not trusted
    assert str(err.value).startswith(f'Post "{srv.url}/filter": tls: failed to verify certificate: x509: ')
    with pytest.raises(ExtenderError, match="failed to verify certificate"):
        _filter(srv.url, tlsConfig={"caData": _b64(certs.client_cert)})  # the wrong CA


@tls
def test_tls_server_name(extender_server, certs) -> None:
    srv = _https(extender_server, certs)
    assert _filter(srv.url, tlsConfig={"caFile": str(certs.cert), "serverName": "extender.test"}) == ["node-a"]
    with pytest.raises(ExtenderError, match="tls: failed to verify certificate: x509: .*wrong.test"):
        _filter(srv.url, tlsConfig={"caFile": str(certs.cert), "serverName": "wrong.test"})


@tls
def test_tls_client_certificate(extender_server, certs) -> None:
    srv = _https(extender_server, certs, client_ca=certs.client_cert)
    ca = {"caData": _b64(certs.cert)}
    assert _filter(srv.url, tlsConfig={**ca, "certData": _b64(certs.client_cert),
                                       "keyData": _b64(certs.client_key)}) == ["node-a"]
    assert _filter(srv.url, tlsConfig={**ca, "certFile": str(certs.client_cert),
                                       "keyFile": str(certs.client_key)}) == ["node-a"]
    with pytest.raises(ExtenderError, match=f'^Post "{srv.url}/filter": '):
        _filter(srv.url, tlsConfig=ca)  # no client certificate: the server hangs up


@tls
def test_tls_configuration_errors(certs) -> None:
    with pytest.raises(ExtenderConfigError, match="specifying a root certificates file with the insecure flag "
                                                  "is not allowed"):
        HTTPExtender({"urlPrefix": "https://127.0.0.1:1", "tlsConfig": {"insecure": True, "caData": _b64(certs.cert)}})
    with pytest.raises(ExtenderConfigError, match=r"tlsConfig.caFile: open /nonexistent/ca.pem"):
        HTTPExtender({"urlPrefix": "https://127.0.0.1:1", "tlsConfig": {"caFile": "/nonexistent/ca.pem"}})
    with pytest.raises(ExtenderConfigError, match="tlsConfig.caData: illegal base64 data"):
        HTTPExtender({"urlPrefix": "https://127.0.0.1:1", "tlsConfig": {"caData": "not base64!"}})
    # client-go loads the files when the extender is built, even for an http URL.
    with pytest.raises(ExtenderConfigError, match=r"tlsConfig.caFile: open /nonexistent/ca.pem"):
        HTTPExtender({"urlPrefix": "http://127.0.0.1:1", "tlsConfig": {"caFile": "/nonexistent/ca.pem"}})
