"""`simulate` and `capacity` call the configuration's extenders as `explain` does, and
`--no-extenders` skips them with a warning (on stderr with -o json, silenced by --quiet), end to
end through the CLI; `diff --simulate --no-extenders` too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.cli.helpers import run_cli
from tests.cli.test_explain_extenders import CONFIG, POD, node, routes, write
from tests.framework.extender_server import extender_server  # noqa: F401 - a fixture

SKIPPED = "1 configured extender(s) skipped (--no-extenders): kube-scheduler would call them"


def _run(tmp_path: Path, command: str, url: str, *args: str):
    cfg = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    cfg["profiles"] = cfg["profiles"][:1]
    cfg["extenders"] = [{"urlPrefix": url, "filterVerb": "filter", "prioritizeVerb": "prioritize", "weight": 5,
                         "nodeCacheCapable": True}]
    config = write(tmp_path / "config.yaml", cfg)
    cluster = write(tmp_path / "cluster.yaml", node("node-a"), node("node-b"), node("node-c"))
    pod = write(tmp_path / "pod.yaml", POD)
    return run_cli(command, pod, "--cluster", cluster, "--config", config, "--seed", "1", *args)


@pytest.mark.parametrize("command", ["simulate", "capacity"])
def test_extenders_are_called(tmp_path: Path, extender_server, command: str) -> None:
    srv = extender_server()
    routes(srv)  # node-a fails the filter; node-b is the prioritizer's favourite
    result = _run(tmp_path, command, srv.url, "-o", "json", "--max", "5") if command == "capacity" else \
        _run(tmp_path, command, srv.url, "-o", "json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    if command == "simulate":
        assert [(p["pod"], p["node"]) for p in data["placements"]] == [("default/web", "node-b")]
    else:
        assert data["count"] > 0 and "node-a" not in data["perNode"]
    assert "/filter" in srv.paths() and "/prioritize" in srv.paths()


@pytest.mark.parametrize("command", ["simulate", "capacity"])
def test_no_extenders_skips_them_with_a_warning(tmp_path: Path, extender_server, command: str) -> None:
    srv = extender_server()
    routes(srv)
    extra = ("--max", "5") if command == "capacity" else ()
    result = _run(tmp_path, command, srv.url, "--no-extenders", *extra)
    assert result.exit_code == 0, result.stderr
    assert srv.requests == []
    assert SKIPPED in " ".join((result.stdout + result.stderr).split())


@pytest.mark.parametrize("command", ["simulate", "capacity"])
def test_no_extenders_warning_goes_to_stderr_with_json(tmp_path: Path, extender_server, command: str) -> None:
    srv = extender_server()
    routes(srv)
    extra = ("--max", "5") if command == "capacity" else ()
    result = _run(tmp_path, command, srv.url, "--no-extenders", "-o", "json", *extra)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["kind"] in ("SimulationResult", "CapacityResult")
    assert f"warning: {SKIPPED}" in result.stderr.splitlines()


@pytest.mark.parametrize("command", ["simulate", "capacity"])
def test_quiet_silences_the_no_extenders_warning(tmp_path: Path, extender_server, command: str) -> None:
    srv = extender_server()
    extra = ("--max", "5") if command == "capacity" else ()
    result = _run(tmp_path, command, srv.url, "--no-extenders", "-o", "json", "--quiet", *extra)
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""


def test_diff_simulate_no_extenders(tmp_path: Path, extender_server) -> None:
    srv = extender_server()
    routes(srv)
    cfg = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    cfg["profiles"] = cfg["profiles"][:1]
    plain = write(tmp_path / "plain.yaml", cfg)
    cfg["extenders"] = [{"urlPrefix": srv.url, "filterVerb": "filter", "nodeCacheCapable": True}]
    with_ext = write(tmp_path / "with-extender.yaml", cfg)
    cluster = write(tmp_path / "cluster.yaml", node("node-a"), node("node-b"), node("node-c"))
    pod = write(tmp_path / "pod.yaml", POD)
    result = run_cli("diff", pod, "--simulate", "--cluster", cluster, "-c", with_ext, "-c", plain, "--seed", "1",
                     "--no-extenders", "-o", "json")
    assert result.exit_code == 0, result.stderr  # both sides run without the extender: the same placement
    assert srv.requests == []
    assert SKIPPED in json.loads(result.stdout).get("warnings", [])
