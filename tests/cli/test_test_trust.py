"""``kschedctl test``'s trust boundary: scenario files cannot read outside the scenario root
and cannot make kschedctl call extenders, unless the run says so."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.cli.helpers import run_cli
from tests.framework.extender_server import ExtenderServer, fake_filter
from tests.scenarios.helpers import FIXTURES, scenario, write


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository (a .git directory) with the bundled fixtures copied into it."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    shutil.copytree(FIXTURES, root / "fixtures")
    return root


def _passing(cluster: str = "../fixtures/cluster", **extra: object) -> dict:
    return scenario("hello lands", pods=["../fixtures/pods/pod.yaml"], cluster=cluster,
                    expect=[{"pod": "default/hello", "outcome": "Scheduled"}], **extra)


def test_paths_inside_the_repository_are_read(repo: Path) -> None:
    write(repo / "scenarios" / "ok.yaml", _passing())
    result = run_cli("test", str(repo / "scenarios"))
    assert result.exit_code == 0, result.stdout


@pytest.mark.parametrize("where", ["absolute", "dotdot"])
def test_paths_outside_the_root_are_refused(repo: Path, tmp_path: Path, where: str) -> None:
    outside = tmp_path / "outside-cluster"
    shutil.copytree(FIXTURES / "cluster", outside)
    cluster = str(outside) if where == "absolute" else "../../outside-cluster"
    write(repo / "scenarios" / "leak.yaml", _passing(cluster=cluster))
    result = run_cli("test", "-o", "json", str(repo / "scenarios"))
    assert result.exit_code == 2
    [check] = json.loads(result.stdout)["scenarios"][0]["checks"]
    assert check["status"] == "error"
    assert "is outside the scenario root" in check["reason"] and "--allow-outside-paths" in check["reason"]
    allowed = run_cli("test", "--allow-outside-paths", str(repo / "scenarios"))
    assert allowed.exit_code == 0, allowed.stdout


def test_a_symlink_out_of_the_root_is_refused(repo: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.yaml"
    secret.write_text("apiVersion: v1\nkind: Node\nmetadata: {name: stolen}\n", encoding="utf-8")
    os.symlink(secret, repo / "fixtures" / "cluster" / "zz-link.yaml")
    write(repo / "scenarios" / "link.yaml", _passing())
    result = run_cli("test", "-o", "json", str(repo / "scenarios"))
    assert result.exit_code == 2
    reason = json.loads(result.stdout)["scenarios"][0]["checks"][0]["reason"]
    assert "links outside the scenario root" in reason
    assert "stolen" not in result.stdout + result.stderr  # nothing of the file outside is shown


def test_without_a_repository_the_directory_given_is_the_root(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "suite").mkdir()
    write(tmp_path / "suite" / "s.yaml", scenario("hello lands", pods=["../pod.yaml"], cluster="../cluster",
                                                  expect=[{"pod": "default/hello", "outcome": "Scheduled"}]))
    shutil.copytree(FIXTURES / "cluster", tmp_path / "cluster")
    shutil.copy(FIXTURES / "pods" / "pod.yaml", tmp_path / "pod.yaml")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert run_cli("test", str(tmp_path / "suite")).exit_code == 2
    # Run from the project directory (an unpacked copy, no git): that directory is the root.
    monkeypatch.chdir(tmp_path)
    assert run_cli("test", "suite").exit_code == 0


def test_extenders_are_not_called_unless_allowed(repo: Path) -> None:
    server = ExtenderServer()
    try:
        server.routes["/leak/filter"] = fake_filter(["True"])
        config = repo / "config.yaml"
        config.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                          f"extenders:\n- urlPrefix: {server.url}/leak\n  filterVerb: filter\n", encoding="utf-8")
        write(repo / "scenarios" / "ext.yaml", _passing(config="../config.yaml"))
        refused = run_cli("test", "-o", "json", str(repo / "scenarios"))
        assert refused.exit_code == 2
        reason = json.loads(refused.stdout)["scenarios"][0]["checks"][0]["reason"]
        assert f"declares extenders ({server.url}/leak)" in reason and "--allow-extenders" in reason
        assert server.requests == []  # not one request reached the listener
        other = run_cli("test", "--allow-extender-url", "https://trusted.example/", str(repo / "scenarios"))
        assert other.exit_code == 2 and server.requests == []
        allowed = run_cli("test", "--allow-extender-url", server.url, str(repo / "scenarios"))
        assert allowed.exit_code == 0, allowed.stdout
        assert [r["path"] for r in server.requests] == ["/leak/filter"]
        assert run_cli("test", "--allow-extenders", str(repo / "scenarios")).exit_code == 0
    finally:
        server.close()


def test_errors_quote_no_more_than_the_offending_value(tmp_path: Path) -> None:
    secret = "s3cr3t-" + "x" * 5000
    (tmp_path / ".git").mkdir()
    (tmp_path / "s.yaml").write_text("apiVersion: kschedctl/v1\nkind: Scenario\nname: n\ncluster: c\n"
                                     f"pods: [p]\nexpect:\n- pod: a\n  outcome: {secret}\n"
                                     f"# {secret}\n", encoding="utf-8")
    result = run_cli("test", str(tmp_path))
    assert result.exit_code == 2
    assert "s.yaml:8" in result.stderr
    assert "x" * 100 not in result.stdout + result.stderr
