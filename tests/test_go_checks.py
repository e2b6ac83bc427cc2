"""A plain ``pytest`` runs the Python suite: the checks that build Go (tests/oracle) skip with one
line saying how to run them, and run under ``CI=true`` or ``pytest --go``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _pytest(*args: str, ci: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs", *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def test_plain_pytest_skips_the_go_checks_with_one_line() -> None:
    result = _pytest("tests/oracle")
    assert result.returncode == 0, result.stdout[-2000:]
    lines = result.stdout.splitlines()
    summary = [ln for ln in lines if "that build Go skipped" in ln]
    assert summary == [f"{summary[0].split()[0]} check(s) that build Go skipped: pytest --go or CI=true runs them"]
    assert int(summary[0].split()[0]) >= 1
    assert "passed" not in lines[-1] and "skipped" in lines[-1]
    assert "builds Go (make -C oracle): pytest --go or CI=true runs it" in result.stdout


def test_ci_and_the_go_option_select_them() -> None:
    """Under CI=true (or --go) none of them is skipped at collection: listed as selected by -m go."""
    for args, ci in (((), "true"), (("--go",), None)):
        result = _pytest("tests/oracle", "--collect-only", "-q", "-m", "go", *args, ci=ci)
        assert result.returncode == 0, result.stdout[-2000:]
        assert "test_differential.py" in result.stdout
        assert "that build Go skipped" not in result.stdout
    quiet = _pytest("tests/oracle", "--collect-only", "-q", "-m", "not go")
    assert "test_differential.py" not in quiet.stdout  # every oracle check carries the marker
