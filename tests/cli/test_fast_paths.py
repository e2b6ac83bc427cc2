"""The process-level fast paths change how fast kschedctl answers, never what it answers.

Each command runs as a real process (``python -m kschedctl``, the entry point that turns the
garbage collector off and skips the interpreter's teardown) twice: with the fast paths, and with
``KSCHEDCTL_NO_FAST_PATHS=1``. Standard output, standard error, the exit code and any file
written must be the same byte for byte.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kschedctl.cli.oneshot import _command

ROOT = Path(__file__).resolve().parents[2]

CASES = {
    "explain_table": ["explain", "fixtures/pods/web-deployment.yaml", "--cluster", "fixtures/cluster", "--seed", "1"],
    "explain_json_unschedulable": ["explain", "fixtures/pods/too-big.yaml", "--cluster", "fixtures/cluster", "-o",
                                   "json", "--seed", "1"],
    "explain_report": ["explain", "fixtures/pods/pod.yaml", "--cluster", "fixtures/cluster", "--seed", "1",
                       "--report", "{out}/report.html"],
    "simulate": ["simulate", "fixtures/pods/web-deployment.yaml", "--cluster", "fixtures/cluster", "--seed", "1",
                 "-o", "yaml"],
    "capacity": ["capacity", "fixtures/pods/pod.yaml", "--cluster", "fixtures/cluster", "--max", "50", "--seed", "1"],
    "validate": ["validate", "profiles/bin-packing.yaml"],
    "bad_input": ["explain", "fixtures/pods/no-such-pod.yaml", "--cluster", "fixtures/cluster"],
    "not_one_shot": ["plugins"],
}


def _run(args: list[str], out: Path, fast: bool) -> tuple[int, str, str, dict[str, bytes]]:
    out.mkdir()
    env = {**os.environ, "COLUMNS": "120", "PYTHONPATH": str(ROOT)}
    env.pop("KSCHEDCTL_NO_FAST_PATHS", None)
    if not fast:
        env["KSCHEDCTL_NO_FAST_PATHS"] = "1"
    proc = subprocess.run([sys.executable, "-m", "kschedctl", *(a.format(out=out) for a in args)], cwd=ROOT,
                          env=env, capture_output=True, text=True)
    files = {p.name: p.read_bytes() for p in out.iterdir()}
    return proc.returncode, _untimed(proc.stdout), proc.stderr.replace(str(out), "OUT"), files


def _untimed(text: str) -> str:
    """The output without the run's duration (simulate reports it; it differs between any two runs)."""
    return re.sub(r"(seconds\"?:) [0-9.e-]+", r"\1 N", text)


@pytest.mark.parametrize("case", CASES)
def test_output_is_byte_identical_with_and_without_the_fast_paths(case: str, tmp_path: Path) -> None:
    fast = _run(CASES[case], tmp_path / "fast", fast=True)
    slow = _run(CASES[case], tmp_path / "slow", fast=False)
    assert fast == slow
    assert fast[1] or fast[2]  # the command said something


@pytest.mark.parametrize("argv,command", [
    (["explain", "pod.yaml"], "explain"),
    (["--debug", "capacity", "pod.yaml"], "capacity"),
    (["--version"], None),
    ([], None),
])
def test_the_command_is_the_first_argument_that_is_not_an_option(argv: list[str], command: str | None) -> None:
    assert _command(argv) == command


def test_the_teardown_is_kept_while_an_atexit_handler_or_a_thread_is_pending(monkeypatch: pytest.MonkeyPatch) -> None:
    import atexit
    import threading

    from kschedctl.cli import oneshot
    from kschedctl.cli.oneshot import _atexit_callbacks, _nothing_pending

    # pytest's own logging capture configures handlers: logging.shutdown would have work to do
    assert not _nothing_pending(_atexit_callbacks(), "logging" in sys.modules)
    monkeypatch.setattr(oneshot, "_logging_handlers_configured", lambda: False)
    start = _atexit_callbacks()
    logging_loaded = "logging" in sys.modules
    if threading.active_count() != 1:
        pytest.skip("the test process runs other threads")
    assert _nothing_pending(start, logging_loaded)

    release = threading.Event()
    worker = threading.Thread(target=release.wait)
    worker.start()
    try:
        assert not _nothing_pending(start, logging_loaded)
    finally:
        release.set()
        worker.join()
    assert _nothing_pending(start, logging_loaded)

    def handler() -> None:
        pass

    atexit.register(handler)  # (CPython's count stays up after unregister: this part comes last)
    try:
        assert not _nothing_pending(start, logging_loaded)
    finally:
        atexit.unregister(handler)
