"""A progress display on stderr while a live cluster is listed (the core only calls ``on_progress``)."""

from __future__ import annotations

import sys
import threading
from types import TracebackType
from typing import IO, Any

__all__ = ["ListingProgress", "progress_wanted", "working"]


def progress_wanted(quiet: bool, stream: IO[Any] | None = None) -> bool:
    """A progress display only for a person watching: stderr is a terminal and not ``--quiet``."""
    if quiet:
        return False
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (OSError, ValueError):
        return False


class ListingProgress:
    """``with ListingProgress(enabled) as on_progress: read(..., on_progress=on_progress)``.

    One line per kind, with the count of objects read so far; lines vanish when the read is
    done. Disabled, it does nothing (and imports nothing).
    """

    def __init__(self, enabled: bool, label: str = "Reading the cluster") -> None:
        self.enabled = enabled
        self.label = label
        self._progress: Any = None
        self._tasks: dict[str, Any] = {}
        self._last: str | None = None
        self._lock = threading.Lock()

    def __enter__(self) -> "ListingProgress":
        if self.enabled:
            from kschedctl.render.console import SafeConsole
            from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn

            self._progress = Progress(
                SpinnerColumn(),
                TextColumn("{task.description}", markup=False),
                BarColumn(),
                TextColumn("{task.fields[count]:>8,}"),
                console=SafeConsole(stderr=True),
                transient=True,
            )
            self._progress.start()
        return self

    def __call__(self, kind: str, count: int) -> None:
        if self._progress is None:
            return
        with self._lock:
            task = self._tasks.get(kind)
            if task is None:
                task = self._tasks[kind] = self._progress.add_task(f"{self.label}: {kind}", total=None, count=0)
            self._progress.update(task, count=count)

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


class working:  # noqa: N801 - used as a context manager, like rich's own ``status``
    """``with working("reading cluster.yaml (120 MB)", enabled): ...``: a spinner with the elapsed
    time on stderr while something long runs that cannot say how far it is."""

    def __init__(self, description: str, enabled: bool) -> None:
        self.description = description
        self.enabled = enabled
        self._progress: Any = None

    def __enter__(self) -> "working":
        if self.enabled:
            from kschedctl.render.console import SafeConsole
            from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            # A description names files: text, not markup (a name with "[/]" must not stop the run).
            self._progress = Progress(SpinnerColumn(), TextColumn("{task.description}", markup=False),
                                      TimeElapsedColumn(), console=SafeConsole(stderr=True), transient=True)
            self._progress.start()
            self._progress.add_task(self.description, total=None)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
