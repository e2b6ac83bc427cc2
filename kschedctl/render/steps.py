"""``simulate --steps``: one block per step (what it did, where pods went, what stays pending),
its checks under it, and a last line saying whether every check passed."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from kschedctl.printable import printable


def render_steps(run: Any, console: Console) -> None:
    """``run`` is a ``SteppedRun`` (plain records and checks)."""
    blocks = [run.initial, *run.records]
    checks_of: dict[int, list[Any]] = {}
    for check in run.checks:
        checks_of.setdefault(check.step, []).append(check)
    for record in blocks:
        head = "before the steps" if record.index < 0 else f"step {record.index + 1}: {record.title}"
        stamp = f"  (t+{_elapsed(record.elapsed)})"
        console.print(Text(printable(head), style="bold") + Text(stamp, style="dim"), overflow="fold")
        lines = record.lines() or ["nothing changed"]
        for line in lines:
            console.print(Text("  " + printable(line)), overflow="fold")
        for check in checks_of.get(record.index, []):
            mark = Text("  PASS ", style="green") if check.passed else Text("  FAIL ", style="bold red")
            console.print(mark + Text(printable(check.title)), overflow="fold")
            for failure in check.failures:
                console.print(Text("       " + printable(failure)), overflow="fold")
            for detail in check.details:
                console.print(Text("       " + printable(detail), style="dim"), overflow="fold")
        console.print()
    if run.checks:
        failed = sum(1 for c in run.checks if not c.passed)
        total = len(run.checks)
        console.print(Text(f"{total - failed} of {total} checks passed", style="bold" if not failed else "bold red"))
    else:
        last = blocks[-1]
        console.print(Text(f"{len(last.pending)} pod(s) pending after the last step", style="bold"))


def _elapsed(seconds: float) -> str:
    seconds = int(seconds)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return "".join(f"{v}{u}" for v, u in ((h, "h"), (m, "m"), (s, "s")) if v) or "0s"
