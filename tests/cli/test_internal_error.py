"""A crash never reads as "no" (issue 32, item 4): a bug in kschedctl is one line and exit 3.

Exit 1 is the contract's "no" (unschedulable, invalid, failed): a traceback ending in exit 1 told
CI that the pod does not fit. An unexpected exception now prints
``error: internal error: <Type>: <message> (run with --debug for the traceback)`` and exits 3;
``--debug`` or ``KSCHEDCTL_DEBUG=1`` prints the traceback instead. In ``kschedctl test`` the bug
is the error of the scenario that met it; the others still run.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from kschedctl.errors import EXIT_INTERNAL
from tests.cli.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = ROOT / "fixtures" / "cluster"
POD = ROOT / "fixtures" / "pods" / "pod.yaml"


def _crash(*args: object, **kwargs: object) -> None:
    raise KeyError("surprise\n::warning::x \x1b[31m" + "z" * 5000)


@pytest.fixture()
def crashing_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    """``kschedctl plugins`` meets a bug."""
    monkeypatch.delenv("KSCHEDCTL_DEBUG", raising=False)
    monkeypatch.setattr("kschedctl.scheduler.catalog.plugin_catalog", _crash)


@pytest.mark.parametrize(("args", "env"), [
    (["plugins"], None),
    (["plugins", "-o", "json"], None),
    (["plugins"], "0"),
])
def test_a_bug_is_one_line_and_exit_3(crashing_plugins: None, monkeypatch: pytest.MonkeyPatch,
                                       args: list[str], env: str | None) -> None:
    if env is not None:
        monkeypatch.setenv("KSCHEDCTL_DEBUG", env)
    result = run_cli(*args)
    assert result.exit_code == EXIT_INTERNAL == 3
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: internal error: KeyError: ")
    assert lines[0].endswith(" (run with --debug for the traceback)")
    assert "\\n::warning::x \\x1b[31m" in lines[0] and "\x1b" not in lines[0]  # printable
    assert len(lines[0]) < 500  # the message is cut short
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(("args", "env"), [
    (["--debug", "plugins"], None),
    (["plugins"], "1"),
])
def test_debug_prints_the_traceback(crashing_plugins: None, monkeypatch: pytest.MonkeyPatch,
                                    args: list[str], env: str | None) -> None:
    if env is not None:
        monkeypatch.setenv("KSCHEDCTL_DEBUG", env)
    result = run_cli(*args)
    assert result.exit_code == 3
    assert result.stderr.startswith("Traceback (most recent call last):")
    assert "in _crash" in result.stderr and "KeyError" in result.stderr


def test_debug_is_listed_in_help() -> None:
    result = run_cli("--help")
    assert result.exit_code == 0
    assert "--debug" in result.stdout and "KSCHEDCTL_DEBUG" in result.stdout


def test_a_bug_in_one_scenario_is_its_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".git").mkdir()
    shutil.copytree(CLUSTER, tmp_path / "cluster")
    shutil.copytree(CLUSTER, tmp_path / "crash-cluster")
    shutil.copy(POD, tmp_path / "pod.yaml")
    for name, cluster in (("fine", "cluster"), ("meets a bug", "crash-cluster")):
        doc = {"apiVersion": "kschedctl/v1", "kind": "Scenario", "name": name, "cluster": [cluster],
               "pods": ["pod.yaml"], "expect": [{"pod": "default/hello", "outcome": "Scheduled"}]}
        (tmp_path / f"{cluster}.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")

    from kschedctl.scenarios.runner import ScenarioRunner

    load = ScenarioRunner.cluster

    def cluster(self: ScenarioRunner, paths: list[str], metrics: str | None = None) -> object:
        if any("crash" in p for p in paths):
            _crash()
        return load(self, paths, metrics)

    monkeypatch.setattr(ScenarioRunner, "cluster", cluster)
    monkeypatch.chdir(tmp_path)  # the scenario root is the working directory's repository
    result = run_cli("test", str(tmp_path), "-o", "json")
    assert result.exit_code == 3, result.stderr
    report = yaml.safe_load(result.stdout)
    verdicts = {s["name"]: s for s in report["scenarios"]}
    assert verdicts["fine"]["status"] == "passed"
    broken = verdicts["meets a bug"]
    assert broken["status"] == "error"
    assert broken["checks"][0]["reason"].startswith("internal error: KeyError: ")
    assert "\x1b" not in result.stdout and "\\n::warning::x" in broken["checks"][0]["reason"]
