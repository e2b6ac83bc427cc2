"""Tables for ``kschedctl capacity``: how many copies fit, where, and what stops the next one."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from kschedctl.printable import printable
from kschedctl.scheduler.capacity import CapacityResult

#: Nodes listed without --wide.
TOP_NODES = 20


def render_capacity(result: CapacityResult, console: Console, wide: bool = False) -> None:
    """Print the answer, the copies per node and the stop reason."""
    t = Table(box=box.SIMPLE_HEAD, show_header=False, title=f"Capacity for {result.pod}", title_justify="left",
              title_style="bold")
    t.add_column(style="bold")
    t.add_column(overflow="fold")
    t.add_row("Profile", result.profile)
    t.add_row("Copies that fit", Text(str(result.count), style="bold green" if result.count else "bold red"))
    t.add_row("Nodes used", str(len(result.per_node)))
    label = "Stopped" if result.limit_reached else f"Next copy ({result.outcome})"
    t.add_row(label, printable(result.stop_reason or "-"))
    if result.preemption_possible:
        victims = ", ".join(result.preemption_possible.get("victims") or ()) or "-"
        t.add_row("Preemption", f"would make room on {result.preemption_possible.get('nominatedNode')} by evicting "
                                f"{victims} (not counted: capacity places copies beside the running pods)")
    console.print(t)
    if not result.per_node:
        return
    rows = sorted(result.per_node.items(), key=lambda kv: (-kv[1], kv[0]))
    shown = rows if wide or len(rows) <= TOP_NODES else rows[:TOP_NODES]
    nt = Table(title="Copies per node", title_justify="left", box=box.SIMPLE_HEAD)
    nt.add_column("Node")
    nt.add_column("Copies", justify="right")
    for name, n in shown:
        nt.add_row(name, str(n))
    if len(shown) < len(rows):
        nt.add_row(f"... {len(rows) - len(shown)} more nodes (--wide)", "")
    console.print(nt)
