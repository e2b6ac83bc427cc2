"""Every file kschedctl writes is written whole or not at all.

The text goes to a temporary file in the target's directory (so the final rename stays on one
file system and is atomic), is flushed to disk, then renamed over the target. On any failure,
Ctrl-C included, the temporary file is removed and the previous file is left as it was.
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator

from kschedctl.errors import InputError


def write_text_atomic(path: str | os.PathLike[str], text: str, *, private: bool = False) -> None:
    """Replace ``path`` with ``text`` (UTF-8) atomically; InputError (exit 2) if it cannot be written.

    The file gets the mode of the file it replaces, else 0666 less the umask; with ``private``,
    0600 whatever it replaces: the temporary file is created 0600, so the text is never readable
    by others, not even for a moment."""
    with writing_atomic(path, private=private) as fh:
        fh.write(text)


@contextmanager
def writing_atomic(path: str | os.PathLike[str], *, private: bool = False) -> Iterator[IO[str]]:
    """A text file to write into bit by bit (a long recording), that replaces ``path`` only when
    the block ends normally; on any failure the temporary file is removed and ``path`` left as it
    was. Modes as ``write_text_atomic``."""
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise InputError(f"cannot write the file: {exc.strerror or exc}", str(path)) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        if not private:  # mkstemp created the file 0600: private files keep that
            umask = os.umask(0)
            os.umask(umask)
            mode = target.stat().st_mode & 0o7777 if target.exists() else 0o666 & ~umask
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise InputError(f"cannot write the file: {exc.strerror or exc}", str(path)) from None
        raise
