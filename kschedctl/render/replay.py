"""Tables of ``kschedctl replay``: what the profile would have done differently from what happened."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from kschedctl.printable import printable
from kschedctl.scheduler.outcome import Outcome

#: Rows listed before "... N more" without --wide.
_ROWS = 30

_CHANGE_TEXT = {
    "same": ("same node", "dim"),
    "tie": ("a tie, as drawn", "dim"),
    "differentNode": ("different node", "yellow"),
    "wouldStayPending": ("would stay pending", "red"),
    "wouldSchedule": ("would schedule", "green"),
    "wouldBePreempted": ("would be preempted", "red"),
    "bothPending": ("pending in both", "dim"),
}


def _when(seconds: Any) -> str:
    if seconds is None:
        return "-"
    seconds = float(seconds)
    sign = "-" if seconds < 0 else ""
    seconds = abs(seconds)
    if seconds >= 3600:
        return f"{sign}{int(seconds // 3600)}h{int(seconds % 3600 // 60):02d}m"
    if seconds >= 60:
        return f"{sign}{int(seconds // 60)}m{int(seconds % 60):02d}s"
    return f"{sign}{seconds:.1f}s"


def _side(node: str | None, outcome: str, pending: float, still: bool) -> Text:
    if node and outcome == Outcome.SCHEDULED:
        text = Text(node, style="green")
        if pending >= 0.05:
            text.append(f" after {_when(pending)}", style="dim")
        return text
    label = "Preempted" if outcome == Outcome.PREEMPTED else "pending"
    text = Text(label, style="red")
    if still:
        text.append(f" ({_when(pending)})", style="dim")
    return text


def render_replay(result: Any, console: Console, wide: bool = False) -> None:
    """The summary line, the pods that differ (every pod with ``wide``), the preemptions."""
    title = result.config or "built-in default"
    if result.profile:
        title += f", profile {result.profile}"
    summary = result.summary()
    events = result.events
    console.print(Text.assemble(
        ("replay of ", ""), (printable(result.trace), "bold"), (f" ({_when(result.duration)} from {result.started}, ", ""),
        (f"{events.get('PodCreated', 0)} arrivals, {sum(events.values())} events) under ", ""),
        (printable(title), "bold")))
    parts = [f"{len(result.pods)} pods waited for the scheduler"]
    for change, (label, _) in _CHANGE_TEXT.items():
        if summary.get(change):
            parts.append(f"{summary[change]} {label}")
    console.print("; ".join(parts))
    rows = [p for p in result.pods if wide or p.change not in ("same", "tie", "bothPending")]
    if rows:
        table = Table(title="pods" if wide else "pods placed differently", title_justify="left", expand=False)
        table.add_column("pod", style="bold", overflow="fold")
        table.add_column("arrived", justify="right")
        table.add_column("what happened")
        table.add_column("replay")
        table.add_column("change")
        end = result.duration
        shown = rows if wide else rows[:_ROWS]
        reasons = any(p.replay.message or p.replay.preempted_by for p in shown)
        if reasons:
            table.add_column("why (replay)", overflow="fold")
        for p in shown:
            actual = p.actual.to_dict(p.arrived, end)
            replayed = p.replay.to_dict(p.arrived, end)
            label, style = _CHANGE_TEXT[p.change]
            why = p.replay.message
            if p.replay.preempted_by:
                why = f"preempted by {p.replay.preempted_by}"
            table.add_row(p.pod, _when(p.arrived),
                          _side(p.actual.node, actual["outcome"], actual["pendingSeconds"], "stillPending" in actual),
                          _side(p.replay.node, p.replay.outcome, replayed["pendingSeconds"],
                                "stillPending" in replayed),
                          Text(label, style=style), *([Text(printable(why), style="dim")] if reasons else []))
        if len(shown) < len(rows):
            table.add_row(Text(f"... {len(rows) - len(shown)} more (--wide)", style="dim"),
                          *[""] * (5 if reasons else 4))
        console.print(table)
    else:
        console.print(Text("every pod lands where it did", style="green"))
    if result.actual_preemptions or result.replay_preemptions:
        table = Table(title="preemptions", title_justify="left", expand=False)
        table.add_column("at", justify="right")
        table.add_column("where")
        table.add_column("preemptor", style="bold", overflow="fold")
        table.add_column("node")
        table.add_column("victims", overflow="fold")
        for label, items in (("happened", result.actual_preemptions), ("replay", result.replay_preemptions)):
            for p in items:
                victims = ", ".join(p.victims) if p.victims else ("-" if label == "replay" else "(not recorded)")
                node = p.node + (f" (drawn among {', '.join(p.tied)})" if p.tied else "")
                table.add_row(_when(p.at), label, p.pod, node, victims)
        console.print(table)


__all__ = ["render_replay"]
