"""Every shell example in README.md and docs/ runs as written, from a clone of the repository.

Commands are the lines of ```bash blocks and the ``$ `` lines of ```console blocks. A command
marked ``# needs a live cluster``, ``# needs kubectl``, ``# needs Go`` (tests/oracle runs
those), ``# in zsh`` / ``# in fish`` or ``# changes your shell's start-up files`` is only
checked to be marked; ``# exit N`` states its
exit code, otherwise an example must answer (exit 0 or 1), never fail on its input (exit 2).
A ```python block that starts with ``from kschedctl import`` is a script: it runs whole and exits 0.
The examples run in a copy of the repository's fixtures, profiles and examples, with HOME in a
temporary directory, so that what they write lands there.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SKIP_MARKERS = ("needs a live cluster", "needs kubectl", "needs Go", "# in zsh", "# in fish", "changes your shell's start-up")
#: Set-up lines of the README's first screen: CI itself runs them.
SET_UP = ("pip install",)


def _commands() -> list[tuple[str, str]]:
    found = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for block in re.finditer(r"```(bash|console|sh|shell)\n(.*?)```", text, re.S):
            line = text[: block.start()].count("\n") + 2
            lang, body = block.group(1), block.group(2)
            pending = ""
            for offset, raw in enumerate(body.splitlines()):
                if lang == "console":
                    if pending:
                        command = pending + " " + raw.strip()
                    elif raw.startswith("$ "):
                        command = raw[2:]
                    else:
                        continue
                else:
                    if not raw.strip() or (raw.lstrip().startswith("#") and not pending):
                        continue
                    command = (pending + " " + raw.strip()) if pending else raw
                if command.rstrip().endswith("\\"):
                    pending = command.rstrip()[:-1].rstrip()
                    continue
                pending = ""
                found.append((f"{doc.relative_to(ROOT)}:{line + offset}", command.strip()))
    return found


COMMANDS = _commands()


def _scripts() -> list[tuple[str, str]]:
    found = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for block in re.finditer(r"```python\n(from kschedctl import.*?)```", text, re.S):
            found.append((f"{doc.relative_to(ROOT)}:{text[: block.start()].count(chr(10)) + 2}", block.group(1)))
    return found


SCRIPTS = _scripts()


def test_examples_were_found() -> None:
    assert len(COMMANDS) >= 20
    assert any("--pending" in c for _, c in COMMANDS)


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    work = tmp_path_factory.mktemp("clone")
    for part in ("fixtures", "profiles", "examples"):
        shutil.copytree(ROOT / part, work / part)
    home = tmp_path_factory.mktemp("home")
    bin_dir = tmp_path_factory.mktemp("bin")
    for name, module in (("kschedctl", "kschedctl"), ("kubectl-ksched", "kschedctl.cli.kubectl_plugin")):
        shim = bin_dir / name
        shim.write_text(f"#!/bin/sh\nexec {sys.executable} -c 'import sys; sys.argv[0] = \"{name}\"; "
                        f"import runpy; runpy.run_module(\"{module}\", run_name=\"__main__\")' \"$@\"\n",
                        encoding="utf-8")
        shim.chmod(0o755)
    # `python3` in an example is the one kschedctl is installed in, as in the user's environment
    python_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "HOME": str(home), "PATH": os.pathsep.join([str(bin_dir), python_dir, os.environ.get("PATH", "")]),
           "PYTHONPATH": str(ROOT), "COLUMNS": "120", "KUBECONFIG": str(home / "no-kubeconfig")}
    return work, env


@pytest.mark.parametrize("where,command", COMMANDS, ids=[w for w, _ in COMMANDS])
def test_example_runs(sandbox: tuple[Path, dict[str, str]], where: str, command: str) -> None:
    if command.startswith(SET_UP) or command.startswith("pip install") or command.endswith("&& pytest"):
        pytest.skip("set-up command: CI runs it")
    if any(marker in command for marker in SKIP_MARKERS):
        pytest.skip("marked as needing what a test machine does not have")
    work, env = sandbox
    expected = re.search(r"#\s*exit (\d)", command)
    proc = subprocess.run(["bash", "-c", command], cwd=work, env=env, capture_output=True, text=True, timeout=300)
    if expected:
        assert proc.returncode == int(expected.group(1)), (where, proc.stderr[-800:])
    else:
        assert proc.returncode in (0, 1), (where, proc.returncode, proc.stderr[-800:])
    assert "Traceback" not in proc.stderr


def test_python_examples_were_found() -> None:
    assert any("from kschedctl import api" in script for _, script in SCRIPTS)


@pytest.mark.parametrize("where,script", SCRIPTS, ids=[w for w, _ in SCRIPTS])
def test_python_example_runs(sandbox: tuple[Path, dict[str, str]], where: str, script: str) -> None:
    work, env = sandbox
    proc = subprocess.run([sys.executable, "-c", script], cwd=work, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, (where, proc.stderr[-800:])
