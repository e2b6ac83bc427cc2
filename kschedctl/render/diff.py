"""Tables of ``kschedctl diff``: pods under A and B, what moved them, and batch summaries."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from kschedctl.printable import printable
from kschedctl.scheduler.outcome import Outcome

#: How many rows a table lists before "... N more" without --wide.
_ROWS = 30


def _placed(p: Any) -> Text:
    if p is None:
        return Text("-", style="dim")
    if p.outcome == Outcome.SCHEDULED:
        return Text(p.node or "", style="green")
    text = Text(p.outcome, style="red")
    if p.nominated_node:
        text.append(f" (nominated {p.nominated_node})", style="yellow")
    return text


def _side_title(side: Any) -> str:
    bits = [side.config or "built-in default"]
    if side.profile:
        bits.append(f"profile {side.profile}")
    return f"{side.label}: " + ", ".join(bits)


def _pods_table(result: Any, wide: bool, moved_only: bool) -> Table:
    la, lb = result.a.label, result.b.label
    table = Table(title="pods", title_justify="left", expand=False)
    table.add_column("pod", style="bold", overflow="fold")
    table.add_column(f"node under {la}")
    table.add_column(f"node under {lb}")
    table.add_column("why it moved", overflow="fold")
    rows = [p for p in result.pods if p.moved or not moved_only]
    shown = rows if wide else rows[:_ROWS]
    for p in shown:
        why = Text(printable(p.reason), style="yellow") if p.moved else Text("same", style="dim")
        table.add_row(p.pod, _placed(p.a), _placed(p.b), why)
    if len(shown) < len(rows):
        table.add_row(Text(f"... {len(rows) - len(shown)} more (--wide)", style="dim"), "", "", "")
    return table


def _num(value: Any) -> str:
    return "-" if value is None else str(value)


def _signed(value: Any) -> Text:
    if value is None:
        return Text("-", style="dim")
    style = "green" if value > 0 else "red" if value < 0 else "dim"
    return Text(f"{value:+d}", style=style)


def _score_table(pod: Any, labels: tuple[str, str]) -> Table:
    sd = pod.score_diff
    la, lb = labels
    table = Table(title=f"{pod.pod}: {sd.from_node} under {la} -> {sd.to_node} under {lb} "
                        f"(weighted scores; margin = {sd.to_node} - {sd.from_node})",
                  title_justify="left", expand=False)
    table.add_column("plugin", style="bold", overflow="fold", min_width=16)
    table.add_column(f"{la} {sd.from_node}", justify="right")
    table.add_column(f"{la} {sd.to_node}", justify="right")
    table.add_column(f"margin {la}", justify="right")
    table.add_column(f"{lb} {sd.from_node}", justify="right")
    table.add_column(f"{lb} {sd.to_node}", justify="right")
    table.add_column(f"margin {lb}", justify="right")
    table.add_column("change", justify="right")
    for p in sd.plugins:
        weight = "" if p.weight_a == p.weight_b else f" (weight {_num(p.weight_a)} -> {_num(p.weight_b)})"
        table.add_row(p.plugin + weight, _num(p.a_from), _num(p.a_to), _signed(p.margin_a), _num(p.b_from),
                      _num(p.b_to), _signed(p.margin_b), _signed(p.change))
    ta_f, ta_t = sd.total_a.get(sd.from_node), sd.total_a.get(sd.to_node)
    tb_f, tb_t = sd.total_b.get(sd.from_node), sd.total_b.get(sd.to_node)
    ma = None if ta_f is None or ta_t is None else ta_t - ta_f
    mb = None if tb_f is None or tb_t is None else tb_t - tb_f
    change = None if ma is None and mb is None else (mb or 0) - (ma or 0)
    table.add_row(Text("total", style="bold"), _num(ta_f), _num(ta_t), _signed(ma), _num(tb_f), _num(tb_t),
                  _signed(mb), _signed(change), end_section=True)
    return table


def _usage_table(title: str, rows: list[Any], labels: tuple[str, str], wide: bool, with_zone: bool) -> Table:
    la, lb = labels
    table = Table(title=title, title_justify="left", expand=False)
    table.add_column("name", style="bold")
    if with_zone:
        table.add_column("zone", style="dim")
    for label in (la, lb):
        table.add_column(f"pods {label}", justify="right")
        table.add_column(f"cpu {label}", justify="right")
        table.add_column(f"memory {label}", justify="right")
    shown = rows if wide else [r for r in rows if r.changed][:_ROWS]
    for r in shown:
        cells: list[Any] = [r.name or "(no zone)"]
        if with_zone:
            cells.append(r.zone or "")
        for u in (r.a, r.b):
            if u is None:
                cells += ["-", "-", "-"]
            else:
                cells += [str(u.placed), _fraction(u.cpu), _fraction(u.memory)]
        table.add_row(*cells)
    return table


def _fraction(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.0f}%"


def _spread_table(result: Any) -> Table:
    la, lb = result.a.label, result.b.label
    a, b = result.spread_a, result.spread_b
    table = Table(title="spread / packing", title_justify="left", expand=False)
    table.add_column("")
    table.add_column(la, justify="right")
    table.add_column(lb, justify="right")
    rows = [
        ("scheduled", a.scheduled, b.scheduled),
        ("not scheduled", a.unschedulable, b.unschedulable),
        ("nodes used by the batch", a.nodes_used, b.nodes_used),
        ("empty nodes after", a.empty_nodes, b.empty_nodes),
        ("most pods of the batch on one node", a.max_pods_on_a_node, b.max_pods_on_a_node),
        ("pods of the batch per zone", _zones(a.pods_per_zone), _zones(b.pods_per_zone)),
        ("zone skew (max - min)", a.zone_skew, b.zone_skew),
        ("cpu requested/allocatable min-max", _range(a.cpu), _range(b.cpu)),
        ("memory requested/allocatable min-max", _range(a.memory), _range(b.memory)),
    ]
    for name, x, y in rows:
        style = "" if x == y else "yellow"
        table.add_row(name, Text(str(x), style=style), Text(str(y), style=style))
    return table


def _zones(per_zone: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in per_zone.items())


def _range(stats: dict[str, Any]) -> str:
    if stats.get("min") is None:
        return "-"
    return f"{_fraction(stats['min'])}-{_fraction(stats['max'])}"


def render_diff(result: Any, console: Console, wide: bool = False) -> None:
    """The whole diff: sides, verdict, pods, then the score differences or the batch summaries."""
    labels = (result.a.label, result.b.label)
    console.print(Text(_side_title(result.a), style="bold"), soft_wrap=True)
    console.print(Text(_side_title(result.b), style="bold"), soft_wrap=True)
    moved = len(result.moved)
    if result.identical:
        console.print(Text(f"identical: all {len(result.pods)} pod(s) are placed the same way", style="bold green"))
    else:
        console.print(Text(f"{moved} of {len(result.pods)} pod(s) placed differently", style="bold yellow"))
    simulate = result.mode == "simulate"
    if not simulate or result.moved or wide:
        console.print(_pods_table(result, wide, moved_only=simulate and not wide))
    if not simulate:
        for p in result.pods:
            if p.score_diff is not None:
                console.print(_score_table(p, labels))
                for note in p.score_diff.notes:
                    console.print(Text(f"  note: {note}", style="dim"), soft_wrap=True)
    else:
        if result.first_divergence is not None:
            d = result.first_divergence
            console.print(Text.assemble(("first divergence: ", "bold"), f"{d.pod} (pod #{result.first_divergence_index + 1} "
                                        f"in {labels[0]}'s order): ", _placed(d.a), " vs ", _placed(d.b)),
                          soft_wrap=True)
        for label, pods in ((labels[0], result.unschedulable_a), (labels[1], result.unschedulable_b)):
            if pods:
                shown = pods if wide else pods[:_ROWS]
                more = f" ... {len(pods) - len(shown)} more" if len(shown) < len(pods) else ""
                console.print(Text.assemble((f"not scheduled under {label}: ", "bold"), ", ".join(shown) + more),
                              soft_wrap=True)
        console.print(_spread_table(result))
        console.print(_usage_table("zones", result.zones, labels, True, with_zone=False))
        if wide or any(n.changed for n in result.nodes):
            console.print(_usage_table("nodes" + ("" if wide else " (changed only; --wide for all)"), result.nodes,
                                       labels, wide, with_zone=True))
    for w in result.warnings:
        console.print(Text(f"warning: {w}", style="yellow"), soft_wrap=True)
