"""Feedback on long work: a progress display on a terminal's stderr (never in pipes, -o json or
--quiet), and Ctrl-C ends any command with one line and exit code 130."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.helpers import run_cli, with_default_sigint

ROOT = Path(__file__).resolve().parents[2]
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: many}
spec:
  replicas: REPLICAS
  selector: {matchLabels: {app: many}}
  template:
    metadata: {labels: {app: many}}
    spec:
      containers:
      - {name: c, image: i, resources: {requests: {cpu: 1m, memory: 1Mi}}}
"""


def _run_with_terminal_stderr(args: list[str], timeout: float = 120) -> tuple[int, str, str]:
    """Run kschedctl with stdout piped and stderr on a pseudo-terminal, as a person runs it."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "kschedctl", *args], stdout=subprocess.PIPE, stderr=slave,
                            cwd=ROOT, env={**os.environ, "COLUMNS": "120"})
    os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    while True:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
        assert time.monotonic() < deadline
    out = proc.stdout.read().decode() if proc.stdout else ""
    proc.wait()
    os.close(master)
    return proc.returncode, out, b"".join(chunks).decode(errors="replace")


@pytest.fixture
def many(tmp_path: Path) -> str:
    path = tmp_path / "many.yaml"
    path.write_text(DEPLOYMENT.replace("REPLICAS", "250"), encoding="utf-8")
    return str(path)


def test_progress_on_a_terminal_only(many: str) -> None:
    code, out, err = _run_with_terminal_stderr(["simulate", "--cluster", str(ROOT / "fixtures" / "cluster"), many,
                                                "--seed", "1"])
    assert code == 0
    assert "scheduling" in err and "/250" in err and "/s" in err
    assert "/250" not in out
    _, _, quiet = _run_with_terminal_stderr(["simulate", "--cluster", str(ROOT / "fixtures" / "cluster"), many,
                                             "--seed", "1", "--quiet"])
    assert "/250" not in quiet
    _, _, machine = _run_with_terminal_stderr(["simulate", "--cluster", str(ROOT / "fixtures" / "cluster"), many,
                                               "--seed", "1", "-o", "json"])
    assert "/250" not in machine


def test_ctrl_c_is_one_line_and_exit_130(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text(DEPLOYMENT.replace("REPLICAS", "100000"), encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "kschedctl", "simulate", "--cluster",
                             str(ROOT / "fixtures" / "cluster"), str(big), "-o", "json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, preexec_fn=with_default_sigint)
    time.sleep(4)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.decode().strip().splitlines() == ["error: interrupted"]
    assert out == b""


def test_interrupted_test_run_writes_no_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    report = tmp_path / "junit.xml"
    report.write_text("previous report\n", encoding="utf-8")

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("kschedctl.scenarios.runner.ScenarioRunner.run", interrupted)
    result = run_cli("test", str(ROOT / "profiles" / "scenarios"), "--junit", str(report))
    assert result.exit_code == 130 and result.stderr == "error: interrupted\n"
    assert report.read_text(encoding="utf-8") == "previous report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["junit.xml"]



def test_a_big_cluster_file_gets_a_spinner_on_a_terminal(tmp_path: Path) -> None:
    import json

    from benchmarks.synthetic import cluster_objects

    nodes, pods = cluster_objects(2000, 10)
    big = tmp_path / "cluster.json"
    big.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": nodes + pods}), encoding="utf-8")
    assert big.stat().st_size >= 5_000_000
    pod = str(ROOT / "fixtures" / "pods" / "pod.yaml")
    _, out, err = _run_with_terminal_stderr(["explain", "--cluster", str(big), pod])
    assert f"reading {big}" in err and f"reading {big}" not in out
    _, _, quiet = _run_with_terminal_stderr(["explain", "--cluster", str(big), pod, "--quiet"])
    assert "reading" not in quiet


def test_ctrl_c_while_the_modules_load_is_one_line(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    from kschedctl.cli import entry

    class Interrupting:
        """A Ctrl-C arriving while the command line's modules are imported."""

        def find_spec(self, name, path=None, target=None):
            if name == "kschedctl.cli.oneshot":
                raise KeyboardInterrupt
            return None

    monkeypatch.delitem(sys.modules, "kschedctl.cli.oneshot", raising=False)
    monkeypatch.setattr(sys, "meta_path", [Interrupting(), *sys.meta_path])
    with pytest.raises(SystemExit) as exc:
        entry.run()
    assert exc.value.code == 130
    assert capsys.readouterr().err == "error: interrupted\n"


def test_ctrl_c_while_the_command_line_is_parsed_is_one_line(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """Left to click, it would be "Aborted!" and exit 1, an answer of "no"."""
    from typer.core import TyperGroup

    from kschedctl.cli.app import main

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(TyperGroup, "parse_args", interrupted)
    with pytest.raises(SystemExit) as exc:
        main(["explain", str(ROOT / "fixtures" / "pods" / "pod.yaml"), "--cluster", str(ROOT / "fixtures" / "cluster")])
    assert exc.value.code == 130
    assert capsys.readouterr().err.strip().splitlines() == ["error: interrupted"]
