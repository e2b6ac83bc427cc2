"""The process entry point: ``kschedctl`` run once, without the costs a one-shot process need not pay.

A one-shot command (explain, capacity, simulate, diff, validate) builds a large, long-lived heap
(every pod and node of the cluster state as dicts, their PodInfos, the snapshot) and then exits.
Two costs of CPython buy nothing there:

- the cyclic garbage collector, whose full collections walk that whole heap again and again
  while it grows, although it holds almost no cycles; it is turned off for these commands (the
  simulation already turns it off while it runs);
- the interpreter's teardown, which frees that heap object by object after the output is
  written; once stdout and stderr are flushed, the process ends with ``os._exit`` instead, but
  only when nothing else is pending: exit code 0 or 1 (an answer, not an error), no thread but
  the main one (no worker pool), no process pool, no ``atexit`` handler beyond those present at
  start and logging's own with no handler configured. Files are written (atomically, fsync'd)
  before a command returns, so none is pending then.

``KSCHEDCTL_NO_FAST_PATHS=1`` turns both off (and the other fast paths, see ``kschedctl.fastpaths``),
which is how tests check that the output does not change. ``main`` (what tests call through
typer's CliRunner or ``main([...])``) is untouched: only this real entry point ends the process.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
import threading
from typing import Any, NoReturn

from kschedctl.cli.app import main
from kschedctl.fastpaths import PROCESS as FAST_PATHS

#: Commands that read their inputs, answer and exit: nothing of theirs outlives the output.
ONE_SHOT_COMMANDS = frozenset({"explain", "capacity", "simulate", "diff", "validate"})


def _command(argv: list[str]) -> str | None:
    """The command name: the first argument that is not an option (options before it take no value)."""
    for arg in argv:
        if not arg.startswith("-"):
            return arg
    return None


def _atexit_callbacks() -> int | None:
    count = getattr(atexit, "_ncallbacks", None)  # CPython's; elsewhere the teardown is kept
    return count() if count else None


def _logging_handlers_configured() -> bool:
    logging = sys.modules.get("logging")
    if logging is None:
        return False
    loggers = [logging.getLogger(), *logging.Logger.manager.loggerDict.values()]
    return any(getattr(logger, "handlers", None) for logger in loggers)


def _nothing_pending(callbacks_at_start: int | None, logging_at_start: bool) -> bool:
    callbacks = _atexit_callbacks()
    if callbacks is None or callbacks_at_start is None:
        return False
    # Importing logging (concurrent.futures does) registers logging.shutdown, which only flushes
    # configured handlers: harmless to skip when there are none.
    allowed = callbacks_at_start + (1 if "logging" in sys.modules and not logging_at_start else 0)
    if callbacks > allowed or _logging_handlers_configured():
        return False
    if threading.active_count() != 1:
        return False
    multiprocessing = sys.modules.get("multiprocessing")
    return multiprocessing is None or not multiprocessing.active_children()


def _flushed() -> bool:
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return False  # a closed pipe: let the normal exit report it as it always did
    return True


def run(argv: list[str] | None = None) -> NoReturn:
    """Run kschedctl as a process (console script and ``python -m kschedctl``)."""
    args = sys.argv[1:] if argv is None else argv
    one_shot = FAST_PATHS.process_shortcuts and _command(args) in ONE_SHOT_COMMANDS
    if not one_shot:
        main(argv)
        sys.exit(0)
    callbacks_at_start, logging_at_start = _atexit_callbacks(), "logging" in sys.modules
    gc.disable()
    code: Any = 0
    try:
        main(argv)
    except SystemExit as exc:
        code = exc.code
        if code not in (None, 0, 1) or not _nothing_pending(callbacks_at_start, logging_at_start):
            raise
    else:
        if not _nothing_pending(callbacks_at_start, logging_at_start):
            sys.exit(0)
    if not _flushed():
        sys.exit(code)
    os._exit(code or 0)
