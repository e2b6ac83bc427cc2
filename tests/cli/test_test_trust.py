"""``kschedctl test``'s trust boundary: scenario files cannot read outside the scenario root (the
working directory's repository) and cannot make kschedctl call extenders, unless the run says so.

Each repository is a temporary directory with a ``.git`` directory, and the test runs from it,
as CI runs ``kschedctl test`` from its checkout."""

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
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository (a .git directory) with the bundled fixtures copied into it, the working directory."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    shutil.copytree(FIXTURES, root / "fixtures")
    monkeypatch.chdir(root)
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
    assert "zz-link.yaml: is outside the scenario root" in reason
    assert "stolen" not in result.stdout + result.stderr  # nothing of the file outside is shown


def test_without_a_repository_the_working_directory_is_the_root(tmp_path: Path,
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


def test_errors_quote_no_more_than_the_offending_value(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "s3cr3t-" + "x" * 5000
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.yaml").write_text("apiVersion: kschedctl/v1\nkind: Scenario\nname: n\ncluster: c\n"
                                     f"pods: [p]\nexpect:\n- pod: a\n  outcome: {secret}\n"
                                     f"# {secret}\n", encoding="utf-8")
    result = run_cli("test", str(tmp_path))
    assert result.exit_code == 2
    assert "s.yaml:8" in result.stderr
    assert "x" * 100 not in result.stdout + result.stderr


# -- the root is the working directory's repository, whatever the paths given -------------------

STOLEN_NODE = "apiVersion: v1\nkind: Node\nmetadata: {name: stolen}\n"
STOLEN_POD = ("apiVersion: v1\nkind: Pod\nmetadata: {name: stolen, namespace: default}\n"
              "spec: {containers: [{name: c, image: c}]}\n")


def test_a_committed_symlink_out_of_the_repository_does_not_move_the_root(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # The README's CI line, on a pull request that commits scheduler -> ../.. : the root stays
    # the checkout, so the scenario two levels above it (and what it names) is not read.
    top = tmp_path / "top"
    repo = top / "work" / "repo"
    (repo / ".git").mkdir(parents=True)
    shutil.copytree(FIXTURES / "cluster", top / "cluster")
    (top / "cluster" / "secret.yaml").write_text(STOLEN_NODE, encoding="utf-8")
    shutil.copy(FIXTURES / "pods" / "pod.yaml", top / "pod.yaml")
    write(top / "leak.yaml", scenario("leak", pods=["pod.yaml"], cluster="cluster",
                                      expect=[{"pod": "default/hello", "outcome": "Scheduled"}]))
    os.symlink("../..", repo / "scheduler")
    monkeypatch.chdir(repo)
    result = run_cli("test", "-o", "github", "scheduler/")
    assert result.exit_code == 2, result.stdout
    assert "scheduler/: is outside the scenario root" in result.stderr
    assert "stolen" not in result.stdout + result.stderr and "leak" not in result.stdout


@pytest.mark.parametrize("field", ["cluster", "pods"])
def test_symlinks_two_levels_deep_are_refused(repo: Path, tmp_path: Path, field: str) -> None:
    # cluster/inner -> ../elsewhere stays in the repository; elsewhere/leak.yaml leaves it. Each
    # link alone looks fine; the file the loader opens through both is outside.
    secret = tmp_path / "secret.yaml"
    secret.write_text(STOLEN_NODE if field == "cluster" else STOLEN_POD, encoding="utf-8")
    directory = repo / "fixtures" / ("cluster" if field == "cluster" else "pods")
    (repo / "fixtures" / "elsewhere").mkdir()
    os.symlink(secret, repo / "fixtures" / "elsewhere" / "leak.yaml")
    os.symlink("../elsewhere", directory / "inner")
    pods = ["../fixtures/pods"] if field == "pods" else ["../fixtures/pods/pod.yaml"]
    write(repo / "scenarios" / "deep.yaml", scenario("deep", pods=pods, cluster="../fixtures/cluster",
                                                     expect=[{"pod": "default/hello", "outcome": "Scheduled"}]))
    result = run_cli("test", "-o", "json", "scenarios")
    assert result.exit_code == 2, result.stdout
    reason = json.loads(result.stdout)["scenarios"][0]["checks"][0]["reason"]
    label = "cluster" if field == "cluster" else "pods[0]"
    assert f": {label}: " in reason and "inner/leak.yaml: is outside the scenario root" in reason
    assert "stolen" not in result.stdout + result.stderr
    assert run_cli("test", "--allow-outside-paths", "scenarios").exit_code == 0


def test_a_directory_link_out_of_a_cluster_directory_is_not_listed(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "private-name.yaml").write_text(STOLEN_NODE, encoding="utf-8")
    (repo / "fixtures" / "cluster" / "sub").mkdir()
    os.symlink(outside, repo / "fixtures" / "cluster" / "sub" / "out")
    write(repo / "scenarios" / "dir.yaml", _passing())
    result = run_cli("test", "-o", "json", "scenarios")
    assert result.exit_code == 2
    reason = json.loads(result.stdout)["scenarios"][0]["checks"][0]["reason"]
    assert "sub/out: is outside the scenario root" in reason
    assert "private-name" not in result.stdout + result.stderr  # not even its file names


def test_a_scenario_file_linked_from_outside_is_refused(repo: Path, tmp_path: Path) -> None:
    outside = write(tmp_path / "outside.yaml", _passing(cluster=str(FIXTURES / "cluster")))
    (repo / "scenarios").mkdir()
    os.symlink(outside, repo / "scenarios" / "linked.yaml")
    result = run_cli("test", "scenarios")
    assert result.exit_code == 2
    assert "linked.yaml: is outside the scenario root" in result.stderr


def test_paths_given_outside_the_repository_are_refused(repo: Path, tmp_path: Path) -> None:
    # The root no longer follows the paths given: a suite elsewhere needs --allow-outside-paths.
    write(tmp_path / "elsewhere" / "s.yaml", scenario("hello lands", cluster=str(FIXTURES / "cluster"),
                                                      pods=[str(FIXTURES / "pods" / "pod.yaml")],
                                                      expect=[{"pod": "default/hello", "outcome": "Scheduled"}]))
    assert run_cli("test", str(tmp_path / "elsewhere")).exit_code == 2
    assert run_cli("test", "--allow-outside-paths", str(tmp_path / "elsewhere")).exit_code == 0


# -- the extender allow-list compares scheme, host and port ---------------------------------------


def test_an_allowed_url_does_not_allow_userinfo_tricks(repo: Path) -> None:
    server = ExtenderServer()
    try:
        server.routes["/pwn/filter"] = fake_filter(["True"])
        sneaky = f"http://trusted.example@127.0.0.1:{server.port}/pwn"
        (repo / "config.yaml").write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                                          f"extenders:\n- urlPrefix: {sneaky}\n  filterVerb: filter\n",
                                          encoding="utf-8")
        write(repo / "scenarios" / "ext.yaml", _passing(config="../config.yaml"))
        result = run_cli("test", "-o", "json", "--allow-extender-url", "http://trusted.example", "scenarios")
        assert result.exit_code == 2
        assert "declares extenders" in json.loads(result.stdout)["scenarios"][0]["checks"][0]["reason"]
        assert server.requests == []
    finally:
        server.close()


@pytest.mark.parametrize("url", ["trusted.example", "ftp://trusted.example", "http://user@trusted.example",
                                 "http://trusted.example:99999"])
def test_an_allowed_url_must_be_an_http_url(repo: Path, url: str) -> None:
    write(repo / "scenarios" / "ok.yaml", _passing())
    result = run_cli("test", "--allow-extender-url", url, "scenarios")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: --allow-extender-url {url}: not an http:// or https:// URL")
