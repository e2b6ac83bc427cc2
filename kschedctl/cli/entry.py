"""The ``kschedctl`` console script and ``python -m kschedctl``: the command line loaded inside a
guard, so that a Ctrl-C arriving while the modules still load (a second or more on a busy
machine) prints the one line and exit code of an interrupted command, not an import traceback."""

from __future__ import annotations

import sys


def run() -> None:
    try:
        from kschedctl.cli.oneshot import run as run_command_line
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted\n")
        raise SystemExit(130) from None
    run_command_line()
