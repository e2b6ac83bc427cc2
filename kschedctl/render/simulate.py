"""Tables for ``kschedctl simulate``: placements, unschedulable pods, preemptions, node and zone usage.

Readable on 5 pods and on 10,000: beyond ``SMALL`` rows (or without ``--wide``) placements are
summarized per node and unschedulable pods grouped by message. Also the progress bar that long
runs show on stderr. Renders result objects only.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Callable, Iterator

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from kschedctl.printable import printable
from kschedctl.render.console import SafeConsole
from kschedctl.render.units import CpuUnit, cpu_unit, format_bytes_for_people
from kschedctl.scheduler.outcome import BATCH_OUTCOMES, Outcome
from kschedctl.scheduler.simulation_result import (
    NodeUsage,
    ResourceUsage,
    SimulationResult,
    format_resources,
)

#: Up to this many rows a table is shown in full without --wide.
SMALL = 50
#: Width of a usage bar, in characters.
BAR_WIDTH = 20

_OUTCOME_STYLE = {
    Outcome.SCHEDULED: "green",
    Outcome.UNSCHEDULABLE: "red",
    Outcome.REJECTED: "red",
    Outcome.GATED: "yellow",
    Outcome.PREEMPTED: "magenta",
    Outcome.ERROR: "bold magenta",
    Outcome.NOT_HANDLED: "dim",
}


def render_simulation(result: SimulationResult, console: Console, wide: bool = False) -> None:
    """Print every section of a simulation."""
    for part in simulation_renderables(result, wide=wide):
        console.print(part)


def simulation_renderables(result: SimulationResult, wide: bool = False) -> list:
    # No pod to schedule (a what-if asked alone): the node usage after the what-if is the answer.
    parts: list = [_summary(result)] if result.placements else []
    for warning in result.warnings:
        parts.append(Text(f"warning: {warning}", style="yellow"))
    if result.placements:
        parts.append(_placements(result, wide))
    failed = result.not_placed()
    if failed:
        parts.append(_failures(result, failed, wide))
    if result.preemptions:
        parts.append(_preemptions(result, wide))
    if result.nodes:
        parts.append(_nodes(result.nodes, wide))
    if len(result.zones) > 1 or (result.zones and result.zones[0].name):
        parts.append(_zones(result))
    return parts


def _summary(r: SimulationResult) -> Table:
    counts = r.counts()
    t = Table(box=box.SIMPLE_HEAD, show_header=False, title="Simulation", title_justify="left", title_style="bold")
    t.add_column(style="bold")
    t.add_column()
    t.add_row("Pods", str(len(r.placements)))
    for outcome in BATCH_OUTCOMES:
        if counts.get(outcome):
            t.add_row(outcome, Text(str(counts[outcome]), style=_OUTCOME_STYLE.get(outcome, "")))
    t.add_row("Preemptions", str(len(r.preemptions)))
    rate = f" ({len(r.placements) / r.seconds:,.0f} pods/s)" if r.seconds > 0 and r.placements else ""
    t.add_row("Scheduling cycles", f"{r.cycles} in {r.seconds:.2f}s{rate}")
    if r.seed is not None:
        t.add_row("Seed", str(r.seed))
    if r.tie_breaks:
        note = "" if r.seed is not None else "; pass --seed for a reproducible run"
        what = "1 placement was a tie-break" if r.tie_breaks == 1 else f"{r.tie_breaks} placements were tie-breaks"
        t.add_row("Tie-breaks", Text(f"{what} among equal top scores{note}",
                                     style="yellow" if r.seed is None else ""))
    return t


def _placements(r: SimulationResult, wide: bool) -> Table:
    placed = [p for p in r.placements if p.outcome in (Outcome.SCHEDULED, Outcome.PREEMPTED)]
    if wide or len(r.placements) <= SMALL:
        t = Table(title="Placements (in the order the pods were placed)", title_justify="left", box=box.SIMPLE_HEAD)
        for col in ("#", "Pod", "Priority", "Outcome", "Node", "Attempts"):
            t.add_column(col, justify="right" if col in ("#", "Priority", "Attempts") else "left")
        for i, p in enumerate(r.placements, start=1):
            node = p.node or (f"(nominated: {p.nominated_node})" if p.nominated_node else "-")
            t.add_row(str(i), p.pod, str(p.priority), Text(p.outcome, style=_OUTCOME_STYLE.get(p.outcome, "")),
                      node, str(p.attempts))
        return t
    per_node: dict[str, int] = {}
    for p in placed:
        if p.outcome == Outcome.SCHEDULED and p.node:
            per_node[p.node] = per_node.get(p.node, 0) + 1
    t = Table(title=f"Placements: {len(placed)} pods on {len(per_node)} nodes (--wide lists every pod)",
              title_justify="left", box=box.SIMPLE_HEAD)
    t.add_column("Node")
    t.add_column("Pods placed", justify="right")
    ranked = sorted(per_node.items(), key=lambda kv: (-kv[1], kv[0]))
    for name, n in ranked[:SMALL // 2]:
        t.add_row(name, str(n))
    if len(ranked) > SMALL // 2:
        t.add_row(f"... {len(ranked) - SMALL // 2} more nodes", "")
    return t


def _failures(result: SimulationResult, failed: list, wide: bool) -> Table:
    if wide or len(failed) <= SMALL:
        t = Table(title="Not placed", title_justify="left", box=box.SIMPLE_HEAD)
        t.add_column("Pod")
        t.add_column("Outcome")
        t.add_column("Message")
        for p in failed:
            msg = p.message
            if p.nominated_node:
                msg = f"{msg} (nominated node: {p.nominated_node})"
            t.add_row(p.pod, Text(p.outcome, style=_OUTCOME_STYLE.get(p.outcome, "")), msg)
        return t
    t = Table(title=f"Not placed: {len(failed)} pods, grouped by message", title_justify="left", box=box.SIMPLE_HEAD)
    t.add_column("Pods", justify="right")
    t.add_column("Outcome")
    t.add_column("Message")
    t.add_column("For example")
    for outcome, message, pods in result.not_placed_groups():
        t.add_row(str(len(pods)), Text(outcome, style=_OUTCOME_STYLE.get(outcome, "")), printable(message), pods[0])
    return t


def _preemptions(r: SimulationResult, wide: bool) -> Table:
    t = Table(title="Preemptions", title_justify="left", box=box.SIMPLE_HEAD)
    t.add_column("Preemptor")
    t.add_column("Node")
    t.add_column("Victims")
    rows = r.preemptions if wide or len(r.preemptions) <= SMALL else r.preemptions[:SMALL]
    for p in rows:
        t.add_row(p.pod, p.node, ", ".join(p.victims) or "-")
    if len(rows) < len(r.preemptions):
        t.add_row(f"... {len(r.preemptions) - len(rows)} more (--wide)", "", "")
    return t


def bar(fraction: float | None, width: int = BAR_WIDTH) -> Text:
    """A usage bar: green below 70%, yellow below 90%, red above."""
    if fraction is None:
        return Text("-" * width, style="dim")
    filled = max(0, min(width, round(fraction * width)))
    style = "green" if fraction < 0.7 else "yellow" if fraction < 0.9 else "red"
    return Text("█" * filled, style=style) + Text("░" * (width - filled), style="dim")


def _human(resource: str, amount: int, cpu: CpuUnit) -> str:
    # Tables are read by people: bytes in a readable unit, cpu in the table's unit; JSON keeps
    # exact quantities.
    if resource == "cpu":
        return cpu.format(amount)
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        return format_bytes_for_people(amount)
    return format_resources({resource: amount})[resource]


def _usage_cells(u: ResourceUsage, resource: str, cpu: CpuUnit) -> Text:
    f = u.fraction(resource)
    req = _human(resource, u.requested.get(resource, 0), cpu)
    alloc = _human(resource, u.allocatable.get(resource, 0), cpu)
    pct = f"{f * 100:5.1f}%" if f is not None else "    -"
    return bar(f) + Text(f" {pct} {req}/{alloc}")


def _cpu_unit(rows: list) -> CpuUnit:
    """One cpu unit for a whole table (kschedctl.render.units)."""
    return cpu_unit(amount for u in rows for amount in (u.requested.get("cpu", 0), u.allocatable.get("cpu", 0)))


def _nodes(nodes: list[NodeUsage], wide: bool) -> Table:
    shown = nodes if wide or len(nodes) <= SMALL else sorted(
        nodes, key=lambda n: -(n.fraction("cpu") or 0.0))[: SMALL // 2]
    title = "Node usage after the run (requested / allocatable)"
    if len(shown) < len(nodes):
        title += f": the {len(shown)} most cpu-loaded of {len(nodes)} nodes (--wide shows all)"
    cpu = _cpu_unit(shown)
    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    t.add_column("Node")
    t.add_column("Zone")
    t.add_column("Placed", justify="right")
    t.add_column(f"CPU ({cpu.label})")
    t.add_column("Memory")
    t.add_column("Pods")
    for n in shown:
        t.add_row(n.name, n.zone or "-", str(n.placed), _usage_cells(n, "cpu", cpu), _usage_cells(n, "memory", cpu),
                  _usage_cells(n, "pods", cpu))
    return t


def _zones(r: SimulationResult) -> Table:
    cpu = _cpu_unit(r.zones)
    t = Table(title="Zones", title_justify="left", box=box.SIMPLE_HEAD)
    t.add_column("Zone")
    t.add_column("Nodes", justify="right")
    t.add_column("Placed", justify="right")
    t.add_column(f"CPU ({cpu.label})")
    t.add_column("Memory")
    t.add_column("Pods")
    for z in r.zones:
        t.add_row(z.name or "(no zone label)", str(z.nodes), str(z.placed), _usage_cells(z, "cpu", cpu),
                  _usage_cells(z, "memory", cpu), _usage_cells(z, "pods", cpu))
    return t


@contextmanager
def progress_bar(description: str, total: int, enabled: bool) -> Iterator[Callable[[int, int], None] | None]:
    """A rich progress bar on stderr while the block runs; yields the callback to feed it
    (``None`` when disabled: not a terminal, or --quiet)."""
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn

    class Rate(ProgressColumn):
        def render(self, task: Any) -> Text:
            return Text(f"{task.speed:,.0f}/s" if task.speed else "", style="dim")

    progress = Progress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(), Rate(),
                        TimeElapsedColumn(), console=SafeConsole(stderr=True), transient=True)
    with progress:
        task = progress.add_task(description, total=total)

        def update(done: int, total_now: int) -> None:
            progress.update(task, completed=done, total=total_now)

        yield update
