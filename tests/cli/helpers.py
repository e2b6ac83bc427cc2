"""Run the real CLI entry point in-process and capture what a user would see."""

from __future__ import annotations

import io
import sys
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass

from kschedctl.cli.app import main


@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str


def run_cli(*args: str, stdin: str | None = None) -> CliResult:
    """Run ``kschedctl ARGS``; anything but a SystemExit (a traceback a user would see) propagates."""
    out, err = io.StringIO(), io.StringIO()
    old_stdin = sys.stdin
    if stdin is not None:
        sys.stdin = io.StringIO(stdin)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                main(list(args))
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
            else:  # pragma: no cover - main always exits
                code = 0
    finally:
        sys.stdin = old_stdin
    return CliResult(code, out.getvalue(), err.getvalue())


def with_default_sigint() -> None:
    """``preexec_fn`` for a process a test will Ctrl-C: a shell without job control starts
    background commands with SIGINT ignored, and a child inherits that, so a test run in the
    background (``pytest &``, ``nohup``) would send its SIGINT to a process that never sees it."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
