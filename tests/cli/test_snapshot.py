"""`kschedctl snapshot`: YAML or JSON, to stdout or --file, --namespace filters, clean output."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from kschedctl.inputs.cluster import load_cluster
from tests.cli.helpers import run_cli
from tests.live.conftest import kubeconfig, local_only_environment, server  # noqa: F401 (fixtures)
from tests.live.server import TOKEN, FakeApiServer


def test_yaml_documents_with_a_header(server: FakeApiServer, kubeconfig: str) -> None:  # noqa: F811
    result = run_cli("snapshot", "--kubeconfig", kubeconfig)
    assert result.exit_code == 0, result.stderr
    first = result.stdout.splitlines()[0]
    assert first.startswith(f'# kschedctl snapshot of kubeconfig {kubeconfig}, context "fake", taken ')
    docs = [d for d in yaml.safe_load_all(result.stdout) if d]
    kinds = [d["kind"] for d in docs]
    assert kinds[0] == "Node" and kinds[-1] == "Pod"
    assert kinds.count("Node") == 8 and kinds.count("Pod") == 10
    assert result.stderr == ""  # nothing to warn about; no progress bar when stderr is not a terminal
    assert TOKEN not in result.stdout


def test_json_list(server: FakeApiServer, kubeconfig: str) -> None:  # noqa: F811
    result = run_cli("snapshot", "--kubeconfig", kubeconfig, "-o", "json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["kind"] == "List" and data["apiVersion"] == "v1"
    assert len(data["items"]) == 35


def test_file_output_reads_back_as_the_same_cluster(server: FakeApiServer, kubeconfig: str,  # noqa: F811
                                                    tmp_path: Path) -> None:
    target = tmp_path / "snap.yaml"
    result = run_cli("snapshot", "--kubeconfig", kubeconfig, "--file", str(target))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    assert result.stderr.startswith(f"wrote {target}: 8 Node, 3 Namespace, 2 PriorityClass")
    state = load_cluster([str(target)])
    assert state.counts()["Pod"] == 10 and state.warnings == []


def test_file_that_cannot_be_written(server: FakeApiServer, kubeconfig: str, tmp_path: Path) -> None:  # noqa: F811
    result = run_cli("snapshot", "--kubeconfig", kubeconfig, "--file", str(tmp_path / "no" / "dir" / "x.yaml"))
    assert result.exit_code == 2
    assert "cannot write" in result.stderr


def test_namespace_filter(server: FakeApiServer, kubeconfig: str) -> None:  # noqa: F811
    result = run_cli("snapshot", "--kubeconfig", kubeconfig, "-o", "json", "--namespace", "ml", "-n", "default")
    assert result.exit_code == 0, result.stderr
    items = json.loads(result.stdout)["items"]
    namespaces = {i["metadata"].get("namespace") for i in items if i["kind"] in ("Pod", "Service", "ReplicaSet")}
    assert namespaces <= {"ml", "default"}
    assert sorted(i["metadata"]["name"] for i in items if i["kind"] == "Namespace") == ["default", "ml"]
    assert sum(i["kind"] == "Node" for i in items) == 8
    assert "warning: the snapshot holds only the pods of namespace(s) default, ml" in result.stderr
    assert "/api/v1/pods" not in server.paths()


def test_forbidden_kind_is_noted_in_the_snapshot(server: FakeApiServer, kubeconfig: str) -> None:  # noqa: F811
    server.forbidden.add("priorityclasses.scheduling.k8s.io")
    result = run_cli("snapshot", "--kubeconfig", kubeconfig)
    assert result.exit_code == 0
    assert "# warning: not allowed to list priorityclasses.scheduling.k8s.io" in result.stdout
    assert "warning: not allowed to list priorityclasses.scheduling.k8s.io" in result.stderr
    quiet = run_cli("snapshot", "--kubeconfig", kubeconfig, "--quiet")
    assert quiet.stderr == ""


def test_only_get_requests_and_no_secrets(server: FakeApiServer, kubeconfig: str) -> None:  # noqa: F811
    server.add({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db"}, "data": {"pw": "aHVudGVyMg=="}})
    result = run_cli("snapshot", "--kubeconfig", kubeconfig)
    assert result.exit_code == 0
    assert server.methods() == {"GET"}
    assert not any("secrets" in p for p in server.paths())
    assert "aHVudGVyMg" not in result.stdout


def test_bad_namespace_name() -> None:
    result = run_cli("snapshot", "--namespace", "a/b")
    assert result.exit_code == 2
    assert "--namespace a/b: not a namespace name" in result.stderr


def test_workflow_commands_in_object_strings_are_defused(tmp_path: Path) -> None:
    # issue 43: a cluster's strings printed to a CI log by `snapshot` (stdout) are data, not commands
    from tests.live.server import fixture_objects

    hostile = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "hostile", "namespace": "default",
                            "annotations": {"::warning::key": "x ##[set-output name=verdict;]all-green",
                                            "note": "##[stop-commands]zz"}},
               "spec": {"nodeName": "node-a1", "containers": [{"name": "c", "image": "busybox"}]},
               "status": {"phase": "Running"}}
    with FakeApiServer([*fixture_objects(), hostile]) as srv:
        result = run_cli("snapshot", "--kubeconfig", str(srv.write_kubeconfig(tmp_path / "kubeconfig")))
    assert result.exit_code == 0, result.stderr
    assert "##[" not in result.stdout
    assert not any(line.lstrip().startswith("::") for line in result.stdout.splitlines())
    [back] = [d for d in yaml.safe_load_all(result.stdout) if d and d["metadata"]["name"] == "hostile"]
    assert back["metadata"]["annotations"] == hostile["metadata"]["annotations"]
