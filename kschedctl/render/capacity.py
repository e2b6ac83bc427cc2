"""Tables for ``kschedctl capacity``: how many copies fit, where, and what stops the next one."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from kschedctl.printable import printable
from kschedctl.analyses.capacity import PER_NODE, CapacityResult, MixCapacityResult, change_against_today

#: Nodes listed without --wide.
TOP_NODES = 20


def _count(count: int, baseline: int | None) -> Text:
    text = Text(str(count), style="bold green" if count else "bold red")
    change = change_against_today(count, baseline)
    if change:
        text.append(f" ({change})")
    return text


def render_capacity(result: CapacityResult | MixCapacityResult, console: Console, wide: bool = False) -> None:
    """Print the answer, the copies per node and the stop reason."""
    if isinstance(result, MixCapacityResult):
        render_mix(result, console, wide)
        return
    t = Table(box=box.SIMPLE_HEAD, show_header=False, title=f"Capacity for {result.pod}", title_justify="left",
              title_style="bold")
    t.add_column(style="bold")
    t.add_column(overflow="fold")
    t.add_row("Profile", result.profile)
    t.add_row("Copies that fit", _count(result.count, result.baseline))
    t.add_row("Nodes used", str(len(result.per_node)))
    t.add_row("Counted", "each node's share at once (node-local plugins only)" if result.method == PER_NODE
              else "one scheduling cycle per copy")
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


def render_mix(result: MixCapacityResult, console: Console, wide: bool = False) -> None:
    """Print how many whole sets fit, the pod that stops the next set, and the pods per node
    per template."""
    t = Table(box=box.SIMPLE_HEAD, show_header=False, title=f"Capacity for sets of {result.pod}",
              title_justify="left", title_style="bold")
    t.add_column(style="bold")
    t.add_column(overflow="fold")
    t.add_row("Set", ", ".join(f"{n} x {key}" for key, n in zip(result.pods, result.ratio)))
    t.add_row("Order in a set", printable(", ".join(result.pods[i] for i in result.order)))
    t.add_row("Sets that fit", _count(result.sets, result.baseline))
    t.add_row("Nodes used", str(len(result.total_per_node())))
    if result.limit_reached:
        t.add_row("Stopped", printable(result.stop_reason or "-"))
    else:
        done = ", ".join(f"{n} x {key}" for key, n in zip(result.pods, result.incomplete_set) if n)
        t.add_row("Next set", f"{done or 'no pod'} placed, then {result.stop_pod} did not fit")
        t.add_row(f"{result.stop_pod} ({result.outcome})", printable(result.stop_reason or "-"))
    if result.preemption_possible:
        victims = ", ".join(result.preemption_possible.get("victims") or ()) or "-"
        t.add_row("Preemption", f"would make room on {result.preemption_possible.get('nominatedNode')} by evicting "
                                f"{victims} (not counted: capacity places pods beside the running pods)")
    console.print(t)
    totals = result.total_per_node()
    if not totals:
        return
    rows = sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))
    shown = rows if wide or len(rows) <= TOP_NODES else rows[:TOP_NODES]
    nt = Table(title="Pods of whole sets per node", title_justify="left", box=box.SIMPLE_HEAD)
    nt.add_column("Node")
    for key in result.pods:
        nt.add_column(key, justify="right")
    nt.add_column("Total", justify="right")
    for name, n in shown:
        nt.add_row(name, *(str(counts.get(name, 0)) for counts in result.per_node), str(n))
    if len(shown) < len(rows):
        nt.add_row(f"... {len(rows) - len(shown)} more nodes (--wide)", *([""] * (len(result.pods) + 1)))
    console.print(nt)
