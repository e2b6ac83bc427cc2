"""``kschedctl sweep`` under the trust policy of ``kschedctl test``: the files a sweep names must
be inside the working directory's repository, and extenders are called only when allowed."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.cli.helpers import run_cli
from tests.framework.extender_server import ExtenderServer, fake_filter

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CONFIG_HEAD = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
STOLEN_NODE = "apiVersion: v1\nkind: Node\nmetadata: {name: stolen}\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A checkout (a .git directory) holding a cluster, a workload and a config; the working directory."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    shutil.copytree(FIXTURES / "cluster", root / "cluster")
    shutil.copy(FIXTURES / "pods" / "pod.yaml", root / "pod.yaml")
    (root / "config.yaml").write_text(CONFIG_HEAD, encoding="utf-8")
    (root / "metrics.yaml").write_text("timestamp: 1700000000\nsource: Prometheus\ndata: {NodeMetricsMap: {}}\n",
                                       encoding="utf-8")
    monkeypatch.chdir(root)
    return root


def _sweep(repo: Path, config: str = "config.yaml", cluster: str = "cluster", workload: str = "pod.yaml",
           metrics: str | None = None) -> str:
    cluster_spec = {"name": "c", "files": cluster, **({"metrics": metrics} if metrics else {})}
    doc = {"apiVersion": "kschedctl/v1", "kind": "Sweep", "configs": [{"name": "cfg", "file": config}],
           "clusters": [cluster_spec], "workloads": [{"name": "w", "files": workload}]}
    (repo / "sweep.yaml").write_text(json.dumps(doc), encoding="utf-8")
    return "sweep.yaml"


def _cell_errors(stdout: str) -> list[str | None]:
    return [cell["error"] for cell in json.loads(stdout)["cells"]]


@pytest.mark.parametrize("field", ["config", "cluster", "workload", "metrics"])
def test_files_outside_the_repository_fail_their_cells(repo: Path, tmp_path: Path, field: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    source = {"config": repo / "config.yaml", "cluster": repo / "cluster", "workload": repo / "pod.yaml",
              "metrics": repo / "metrics.yaml"}[field]
    target = outside / source.name
    (shutil.copytree if source.is_dir() else shutil.copy)(source, target)
    paths = {"config": "config.yaml", "cluster": "cluster", "workload": "pod.yaml", "metrics": "metrics.yaml"}
    paths[field] = str(target)
    for jobs in ("1", "2"):  # in this process, and in worker processes
        result = run_cli("sweep", _sweep(repo, **paths), "-o", "json", "-j", jobs)
        assert result.exit_code == 1, result.stderr
        [error] = _cell_errors(result.stdout)
        assert f"{target}: is outside the scenario root {repo}" in error and "--allow-outside-paths" in error
    assert run_cli("sweep", "sweep.yaml", "-o", "json", "--allow-outside-paths").exit_code == 0


def test_a_symlink_two_levels_deep_in_a_cluster_directory_is_refused(repo: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.yaml").write_text(STOLEN_NODE, encoding="utf-8")
    (repo / "elsewhere").mkdir()
    os.symlink(tmp_path / "secret.yaml", repo / "elsewhere" / "leak.yaml")
    os.symlink("../elsewhere", repo / "cluster" / "inner")
    result = run_cli("sweep", _sweep(repo), "-o", "json")
    assert result.exit_code == 1
    [error] = _cell_errors(result.stdout)
    assert "cluster/inner/leak.yaml: is outside the scenario root" in error
    assert "stolen" not in result.stdout + result.stderr


def test_a_sweep_file_linked_from_outside_is_refused(repo: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere.yaml").write_text("apiVersion: kschedctl/v1\nkind: Sweep\n", encoding="utf-8")
    os.symlink(tmp_path / "elsewhere.yaml", repo / "linked.yaml")
    result = run_cli("sweep", "linked.yaml")
    assert result.exit_code == 2
    assert result.stderr == f"error: linked.yaml: is outside the scenario root {repo}; pass --allow-outside-paths " \
                            "to read it\n"


def test_extenders_are_not_called_unless_allowed(repo: Path) -> None:
    server = ExtenderServer()
    try:
        server.routes["/ext/filter"] = fake_filter(["True"])
        (repo / "config.yaml").write_text(CONFIG_HEAD + f"extenders:\n- urlPrefix: {server.url}/ext\n"
                                                        "  filterVerb: filter\n", encoding="utf-8")
        refused = run_cli("sweep", _sweep(repo), "-o", "json")
        assert refused.exit_code == 1
        [error] = _cell_errors(refused.stdout)
        assert f"declares extenders ({server.url}/ext): kschedctl sweep does not call them" in error
        sneaky = run_cli("sweep", "sweep.yaml", "-o", "json", "--allow-extender-url", "http://trusted.example")
        assert sneaky.exit_code == 1
        assert server.requests == []  # not one request reached the listener
        for flags in (["--allow-extender-url", server.url], ["--allow-extenders"]):
            allowed = run_cli("sweep", "sweep.yaml", "-o", "json", *flags)
            assert allowed.exit_code == 0, allowed.stdout
        assert {r["path"] for r in server.requests} == {"/ext/filter"}
        count = len(server.requests)
        skipped = run_cli("sweep", "sweep.yaml", "-o", "json", "--no-extenders")  # still accepted: skips them
        assert skipped.exit_code == 0 and len(server.requests) == count
    finally:
        server.close()


def test_tls_files_of_allowed_extenders_are_held_to_the_root(repo: Path, tmp_path: Path) -> None:
    (tmp_path / "ca.pem").write_text("not read\n", encoding="utf-8")
    (repo / "config.yaml").write_text(CONFIG_HEAD + "extenders:\n- urlPrefix: https://127.0.0.1:1/ext\n"
                                      f"  filterVerb: filter\n  tlsConfig: {{caFile: {tmp_path / 'ca.pem'}}}\n",
                                      encoding="utf-8")
    result = run_cli("sweep", _sweep(repo), "-o", "json", "--allow-extenders")
    assert result.exit_code == 1
    [error] = _cell_errors(result.stdout)
    assert f"tlsConfig.caFile: {tmp_path / 'ca.pem'}: is outside the scenario root" in error
