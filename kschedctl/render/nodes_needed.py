"""Tables for ``kschedctl capacity --nodes-needed``: how many nodes of each shape to add, why one
fewer is not enough, and where the pods go."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from kschedctl.printable import printable
from kschedctl.analyses.nodes_needed import NodesNeededResult, ShapeAnswer

#: Nodes listed per shape without --wide.
TOP_NODES = 20


def _needed(answer: ShapeAnswer, today: int) -> Text:
    if answer.nodes_needed is None:
        return Text("none helps" if answer.hopeless else f"more than {answer.tries[-1].nodes:,}", style="bold red")
    if answer.nodes_needed == 0:
        return Text("0", style="bold green")
    return Text(f"+{answer.nodes_needed:,}", style="bold green")


def _short_of(answer: ShapeAnswer) -> str:
    run = answer.one_fewer
    if run is None:
        return "every pod fits on the cluster as it is"
    if answer.hopeless:
        empty = ", ".join(run.empty_new_nodes[:3]) + (" ..." if len(run.empty_new_nodes) > 3 else "")
        return printable(f"no number of nodes like {answer.like} helps: with {run.nodes:,} added, {empty} stayed "
                         f"empty while {run.pod} stayed pending: {run.message}")
    if answer.limit_reached:
        return printable(f"even {run.nodes:,} added (the limit) leave {run.pending:,} pending, first {run.pod}: "
                         f"{run.message}")
    return printable(f"with {run.nodes:,} added, {run.pending:,} pod(s) stay pending, first {run.pod}: {run.message}")


def render_nodes_needed(result: NodesNeededResult, console: Console, wide: bool = False) -> None:
    """The shapes side by side, why one node fewer is not enough, then each shape's placement."""
    console.print(Text(f"Nodes needed for {result.pods:,} pods beside today's {result.nodes_today:,} nodes "
                       f"(seed {result.seed})", style="bold"))
    t = Table(box=box.SIMPLE_HEAD)
    t.add_column("Like")
    t.add_column("Nodes to add", justify="right")
    t.add_column("Nodes then", justify="right")
    t.add_column("Pods on new nodes", justify="right")
    t.add_column("Simulate runs (nodes added: ✓ all scheduled)")
    for a in result.shapes:
        run = a.enough
        t.add_row(a.like, _needed(a, result.nodes_today),
                  f"{result.nodes_today + a.nodes_needed:,}" if a.nodes_needed is not None else "-",
                  str(sum(n for node, n in run.per_node.items() if node in set(run.new_nodes))) if run else "-",
                  ", ".join(f"{r.nodes:,}{'✓' if r.fits else '✗'}" for r in a.tries))
    console.print(t)
    for a in result.shapes:
        console.print(Text.assemble((f"like {a.like}, one fewer: " if a.nodes_needed else f"like {a.like}: ",
                                     "bold"), _short_of(a)))
    for answer in result.shapes:
        run = answer.enough
        if run is None or not run.per_node:
            continue
        new = set(run.new_nodes)
        rows = sorted(run.per_node.items(), key=lambda kv: (kv[0] not in new, -kv[1], kv[0]))
        shown = rows if wide or len(rows) <= TOP_NODES else rows[:TOP_NODES]
        console.print()
        console.print(Text(f"Pods per node with {answer.nodes_needed:,} added like {answer.like}", style="bold"))
        nt = Table(box=box.SIMPLE_HEAD)
        nt.add_column("Node")
        nt.add_column("Pods", justify="right")
        for name, n in shown:
            nt.add_row(f"{name} (new)" if name in new else name, str(n))
        if len(shown) < len(rows):
            nt.add_row(f"... {len(rows) - len(shown)} more nodes (--wide)", "")
        console.print(nt)
