"""Tables for ``kschedctl capacity --removable``: which nodes can go, where their pods go, why the
others stay, and the count per zone."""

from __future__ import annotations

from collections import Counter

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from kschedctl.printable import printable
from kschedctl.analyses.removable import NOT_UNDERUTILIZED, RemovableResult

#: Nodes listed without --wide (removed ones first, then the kept ones examined, then the rest).
TOP_NODES = 40


def render_removable(result: RemovableResult, console: Console, wide: bool = False) -> None:
    """The answer, one line per node, then the zones."""
    removed = result.removable
    t = Table(box=box.SIMPLE_HEAD, show_header=False, title="Which nodes can go", title_justify="left",
              title_style="bold")
    t.add_column(style="bold")
    t.add_column(overflow="fold")
    t.add_row("Profile", result.profile)
    t.add_row("Candidates", f"{len(result.nodes)} node(s)" + (f" matching {result.selector}" if result.selector else "")
              + f", utilization below {result.rules.utilization_below:g}")
    t.add_row("Removable", Text(f"{len(removed)}: {', '.join(removed)}" if removed else "0",
                                style="bold green" if removed else "bold red"))
    kept = Counter(v.reason for v in result.nodes if not v.removed)
    if kept:
        t.add_row("Kept", ", ".join(f"{n} {reason}" for reason, n in kept.most_common()))
    checked = ("passed: the set drained from scratch (simulate --drain), every replacement scheduled"
               + (f" (given back: {', '.join(result.given_back)})" if result.given_back else ""))
    t.add_row("Self-check", checked if result.verified else "not run")
    console.print(t)

    rows = sorted(result.nodes, key=lambda v: (not v.removed, v.reason == NOT_UNDERUTILIZED))
    shown = rows if wide or len(rows) <= TOP_NODES else rows[:TOP_NODES]
    nt = Table(title="Nodes (least utilized first within each group)", title_justify="left", box=box.SIMPLE_HEAD)
    nt.add_column("Node")
    nt.add_column("Zone")
    nt.add_column("Util.", justify="right")
    nt.add_column("Verdict")
    nt.add_column("Why / where its pods go", overflow="fold")
    for v in shown:
        verdict = Text("removed", style="green") if v.removed else Text(v.reason, style="yellow")
        nt.add_row(v.name, v.zone or "-", f"{v.utilization:.0%}", verdict, printable(v.line()))
    if len(shown) < len(rows):
        nt.add_row(f"... {len(rows) - len(shown)} more nodes (--wide)", "", "", "", "")
    console.print(nt)

    if result.zones:
        zt = Table(title="Per zone (removals can break a zone spread)", title_justify="left", box=box.SIMPLE_HEAD)
        for column in ("Zone", "Nodes", "Candidates", "Removable", "Left"):
            zt.add_column(column, justify="left" if column == "Zone" else "right")
        for zone, counts in result.zones.items():
            zt.add_row(zone or "(no zone label)", str(counts["nodes"]), str(counts["candidates"]),
                       str(counts["removable"]), str(counts["left"]))
        console.print(zt)
