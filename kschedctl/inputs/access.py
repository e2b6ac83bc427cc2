"""The one gate every input file goes through: which files kschedctl may open, checked as it opens them.

By default any file may be read: ``explain``, ``simulate`` and the library read the files their
caller names. ``kschedctl test`` and ``kschedctl sweep`` read files that other files name, and
those files may come from a pull request, so for the length of such a run they call
:func:`confined` with the run's roots. From then on every file the readers open (scenario,
sweep, configuration, cluster, pod, workload and metrics files, TLS files of extenders) and
every directory they list goes through :func:`open_input` / :func:`check_path`, which resolve
every symlink of the path actually opened, whatever walked to it, and refuse what lands outside
the roots. A check made here and nowhere else cannot disagree with what the readers open.

Confined runs also refuse anything but regular files (a FIFO would block the open, a device
such as ``/dev/zero`` would never end). The roots are a process-wide setting rather than a
context variable so that threads see them too; sweep workers set them again in their process.
"""

from __future__ import annotations

import errno
import os
import stat
from contextlib import contextmanager
from typing import BinaryIO, Iterable, Iterator

from kschedctl.errors import InputError

__all__ = ["confined", "allowed_roots", "check_path", "open_input", "read_capped", "size_text", "OUTSIDE_HINT"]

#: How a refusal tells the user to lift the rule.
OUTSIDE_HINT = "pass --allow-outside-paths to read it"

_roots: tuple[str, ...] | None = None
_PROC_FD = "/proc/self/fd"


@contextmanager
def confined(roots: Iterable[str] | None) -> Iterator[None]:
    """Within the block, only files whose real path is inside one of ``roots`` may be opened
    (``None``: any file; nested blocks restore the outer rule when they end)."""
    global _roots
    previous = _roots
    _roots = None if roots is None else tuple(sorted({os.path.realpath(r) for r in roots}))
    try:
        yield
    finally:
        _roots = previous


def allowed_roots() -> tuple[str, ...] | None:
    """The roots files must be inside of now, or None when any file may be read."""
    return _roots


def check_path(path: str) -> None:
    """InputError naming ``path`` when its real path (every symlink resolved) is outside the roots."""
    if _roots is not None:
        _check_real(path, os.path.realpath(path), _roots)


def open_input(path: str, regular_only: bool = False) -> BinaryIO:
    """``path`` opened for reading in binary mode, when the current rule allows it.

    OSError as ``open`` raises it (IsADirectoryError for a directory); InputError naming
    ``path`` for a file outside the roots, or for anything but a regular file when the run is
    confined or ``regular_only`` is asked (then the open does not block on a FIFO either).
    """
    roots = _roots
    if roots is None and not regular_only:
        return open(path, "rb")
    target = path
    if roots is not None:
        target = os.path.realpath(path)
        _check_real(path, target, roots)
    fd = os.open(target, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        if not stat.S_ISREG(mode):
            raise InputError("not a regular file", path)
        if roots is not None:
            # A directory on the way swapped for a symlink after the check: the kernel knows
            # which file the descriptor is, whatever the path said a moment ago.
            try:
                opened = os.readlink(f"{_PROC_FD}/{fd}")
            except OSError:
                opened = None
            if opened is not None:
                _check_real(path, opened, roots)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_capped(path: str, cap: int, what: str) -> bytes:
    """The bytes of the regular file ``path``, at most ``cap`` of them (``what`` names the file's
    role in the refusal); never reads more than ``cap + 1`` bytes."""
    with open_input(path, regular_only=True) as fh:
        data = fh.read(cap + 1)
    if len(data) > cap:
        raise InputError(f"{what} is larger than {size_text(cap)}, the limit", path)
    return data


def _check_real(path: str, real: str, roots: tuple[str, ...]) -> None:
    if not any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots):
        where = ", ".join(roots)
        raise InputError(f"is outside the scenario root {where}; {OUTSIDE_HINT}", path)


def size_text(n: int) -> str:
    """``n`` bytes as a limit is spoken of: ``1 MiB``, ``64 KiB``, ``100 bytes``."""
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20} MiB"
    if n >= 1 << 10 and n % (1 << 10) == 0:
        return f"{n >> 10} KiB"
    return f"{n} bytes"
