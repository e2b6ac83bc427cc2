"""`kschedctl explain` with extenders in the configuration, end to end through the CLI against a
loopback extender: JSON entries "extender:<urlPrefix>" in nodes[].filters and nodes[].scores,
the table, --no-extenders, an ignorable failure (warning, exit 0), a failing extender (Error,
exit 1, named), TLS (https with a self-signed certificate) and configuration errors (exit 2)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
import yaml

from tests.cli.helpers import run_cli
from tests.framework.extender_server import (  # noqa: F401 - extender_server is a fixture
    extender_server,
    self_signed_cert,
    server_tls_context,
    tls_available,
)

CONFIG = Path(__file__).resolve().parent.parent / "scheduler" / "cases" / "config-implemented.yaml"


def node(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"allocatable": {"cpu": "4", "memory": "32Gi", "pods": "110"},
                       "capacity": {"cpu": "4", "memory": "32Gi", "pods": "110"}}}


POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
       "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "1"}}}]}}


def write(path: Path, *docs: dict) -> str:
    path.write_text(yaml.safe_dump_all(list(docs)), encoding="utf-8")
    return str(path)


def run(tmp_path: Path, extenders: list[dict], *args: str):
    cfg = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    cfg["profiles"] = cfg["profiles"][:1]
    cfg["extenders"] = extenders
    config = write(tmp_path / "config.yaml", cfg)
    cluster = write(tmp_path / "cluster.yaml", node("node-a"), node("node-b"), node("node-c"))
    pod = write(tmp_path / "pod.yaml", POD)
    return run_cli("explain", pod, "--cluster", cluster, "--config", config, "--seed", "1", *args)


def routes(srv, prefix: str = "") -> None:
    srv.routes[f"{prefix}/filter"] = lambda args: (200, {"NodeNames": ["node-b", "node-c"],
                                                        "FailedNodes": {"node-a": "no free gpu"}})
    srv.routes[f"{prefix}/prioritize"] = lambda args: (200, [{"Host": "node-b", "Score": 10},
                                                             {"Host": "node-c", "Score": 1}])


def test_json_has_extender_entries(tmp_path: Path, extender_server) -> None:
    srv = extender_server()
    routes(srv, "/sched")
    url = srv.url + "/sched"
    result = run(tmp_path, [{"urlPrefix": url, "filterVerb": "filter", "prioritizeVerb": "prioritize",
                             "weight": 5, "nodeCacheCapable": True, "bindVerb": "bind"}], "-o", "json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["outcome"] == "Scheduled" and data["selectedNode"] == "node-b"
    plugin = f"extender:{url}"
    nodes = {n["name"]: n for n in data["nodes"]}
    assert nodes["node-a"]["filters"][-1] == {"plugin": plugin, "code": "Unschedulable", "reasons": ["no free gpu"]}
    assert nodes["node-b"]["filters"][-1] == {"plugin": plugin, "code": "Success", "reasons": []}
    assert nodes["node-b"]["scores"][-1] == {"plugin": plugin, "raw": 10, "normalized": 100, "weight": 5,
                                             "weighted": 500}
    assert nodes["node-c"]["scores"][-1] == {"plugin": plugin, "raw": 1, "normalized": 10, "weight": 5,
                                             "weighted": 50}
    assert data["feasibleNodes"] == 2 and data["evaluatedNodes"] == 3
    [ext] = data["extenders"]
    assert ext["notes"][0].startswith('bindVerb "bind" is never called')
    assert srv.paths() == ["/sched/filter", "/sched/prioritize"]


def test_table_shows_extender_columns_and_notes(tmp_path: Path, extender_server,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # one line per row: the words below are not wrapped
    srv = extender_server()
    routes(srv)
    result = run(tmp_path, [{"urlPrefix": srv.url, "filterVerb": "filter", "prioritizeVerb": "prioritize",
                             "weight": 1, "preemptVerb": "preempt", "nodeCacheCapable": True}], "--wide")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "Extenders" in out and "never called" in out and "no free gpu" in out
    assert "extender:" in out and "10→100×1 = 100" in out


def test_non_cache_capable_extender_answering_with_names_filters_out_every_node(
        tmp_path: Path, extender_server, monkeypatch: pytest.MonkeyPatch) -> None:
    """Upstream reads NodeNames only from nodeCacheCapable extenders: the others must answer with
    Nodes, and no Nodes means no node passed (dropped without a message)."""
    monkeypatch.setenv("COLUMNS", "400")
    srv = extender_server()
    routes(srv)
    result = run(tmp_path, [{"urlPrefix": srv.url, "filterVerb": "filter"}], "--wide")
    assert result.exit_code == 1
    assert "0/3 nodes are available: 1 no free gpu." in result.stdout
    assert result.stdout.count("dropped (no reason given)") == 2


def test_no_extenders(tmp_path: Path, extender_server) -> None:
    srv = extender_server()
    routes(srv)
    result = run(tmp_path, [{"urlPrefix": srv.url, "filterVerb": "filter"}], "--no-extenders", "-o", "json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert srv.requests == [] and "extenders" not in data
    assert data["warnings"] == ["1 configured extender(s) skipped (--no-extenders): kube-scheduler would call them"]
    assert all(not f["plugin"].startswith("extender:") for n in data["nodes"] for f in n["filters"])


def test_ignorable_failure_is_a_warning(tmp_path: Path, extender_server) -> None:
    srv = extender_server()
    srv.routes["/filter"] = lambda args: (502, "bad gateway")
    result = run(tmp_path, [{"urlPrefix": srv.url, "filterVerb": "filter", "ignorable": True}], "-o", "json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["outcome"] == "Scheduled"
    assert data["warnings"][0].startswith(f"ignorable extender {srv.url} failed at filter and was skipped")
    assert data["warnings"][0].endswith(f"failed filter with extender at URL {srv.url}/filter, code 502")


def test_failing_extender_is_an_error_naming_it(tmp_path: Path, extender_server) -> None:
    srv = extender_server()
    srv.routes["/filter"] = lambda args: (200, "<html>oops</html>")
    result = run(tmp_path, [{"urlPrefix": srv.url, "filterVerb": "filter"}], "-o", "json")
    assert result.exit_code == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["outcome"] == "Error" and data["selectedNode"] is None
    assert data["message"] == (f"extender {srv.url} failed at filter: invalid character '<' looking for "
                               f"beginning of value")


def test_timeout_is_an_error(tmp_path: Path, extender_server) -> None:
    import time

    srv = extender_server()
    srv.routes["/filter"] = lambda args: (time.sleep(1.0), (200, {"NodeNames": []}))[1]
    result = run(tmp_path, [{"urlPrefix": srv.url, "filterVerb": "filter", "httpTimeout": "100ms"}], "-o", "json")
    assert result.exit_code == 1, result.stderr
    assert json.loads(result.stdout)["message"].endswith(
        "context deadline exceeded (Client.Timeout exceeded while awaiting headers)")


@pytest.mark.skipif(tls_available() is not None, reason=tls_available() or "")
def test_https_extender_with_ca(tmp_path: Path, extender_server) -> None:
    cert, key = self_signed_cert(tmp_path)
    srv = extender_server(server_tls_context(cert, key))
    srv.routes["/filter"] = lambda args: (200, {"NodeNames": ["node-c"]})
    ca = base64.b64encode(cert.read_bytes()).decode()
    result = run(tmp_path, [{"urlPrefix": srv.url, "filterVerb": "filter", "nodeCacheCapable": True,
                             "enableHTTPS": True, "tlsConfig": {"caData": ca}}], "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["selectedNode"] == "node-c"


def test_bad_extender_configuration_exits_2(tmp_path: Path) -> None:
    result = run(tmp_path, [{"urlPrefix": "https://127.0.0.1:1", "filterVerb": "filter",
                             "tlsConfig": {"caFile": str(tmp_path / "missing-ca.pem")}}])
    assert result.exit_code == 2
    assert "extenders[0]: tlsConfig.caFile: open" in result.stderr and "Traceback" not in result.stderr
