"""The diff report: which pods moved between A and B, from where to where and why (the plugins
whose weighted scores decided it), and for batches the pods per node and the spread of each side."""

from __future__ import annotations

from typing import Any

from kschedctl.render.report.page import (
    MAX_ROWS,
    badge,
    cell,
    document,
    esc,
    facts,
    raw_cell,
    row,
    table,
)
from kschedctl.render.report.svg import grouped_bar_chart, legend
from kschedctl.analyses.diff import DiffResult, PodDiff
from kschedctl.scheduler.outcome import Outcome

#: Nodes the A/B chart draws (those whose pod count changed first).
CHART_NODES = 60


def diff_report(result: DiffResult) -> str:
    la, lb = result.a.label, result.b.label
    moved = result.moved
    body = ["<h2>Sides</h2>", facts([(la, esc(_side(result.a, label=False))), (lb, esc(_side(result.b, label=False))),
                                     ("Mode", esc("a batch, as simulate runs it" if result.mode == "simulate"
                                                  else "pod by pod, as explain runs it")),
                                     ("Seed", esc(result.seed))])]
    verdict = ("Every pod is placed the same way under both." if not moved
               else f"{len(moved)} of {len(result.pods)} pod(s) placed differently.")
    body.append(f'<p class="verdict {"ok" if not moved else "bad"}" data-verdict="{"same" if not moved else "moved"}">'
                f"{esc(verdict)}</p>")
    body.extend(f'<p class="verdict bad">warning: {esc(w)}</p>' for w in result.warnings)
    if result.first_divergence is not None:
        d = result.first_divergence
        body.append(f"<p>First divergence: <b>{esc(d.pod)}</b> (pod #{esc((result.first_divergence_index or 0) + 1)} in "
                    f"{esc(la)}'s order): {esc(_where(d.a))} under {esc(la)}, {esc(_where(d.b))} under {esc(lb)}</p>")
    body.append(_moved_table(result, moved))
    body.extend(_score_details(result, p) for p in moved[:MAX_ROWS] if p.score_diff is not None)
    if result.mode == "simulate":
        body.append(_nodes_chart(result))
        body.append(_spread(result))
    body.append(_all_pods(result))
    title = f"kschedctl diff: {la} vs {lb}"
    return document("diff", title, "\n".join(b for b in body if b),
                    subtitle=f"{_side(result.a)}  vs  {_side(result.b)}")


def _side(side: Any, label: bool = True) -> str:
    bits = [side.config or "built-in default"]
    if side.profile:
        bits.append(f"profile {side.profile}")
    return (f"{side.label}: " if label else "") + ", ".join(bits)


def _where(placed: Any) -> str:
    if placed is None:
        return "-"
    if placed.outcome == Outcome.SCHEDULED:
        return placed.node or ""
    return placed.outcome + (f" (nominated {placed.nominated_node})" if placed.nominated_node else "")


def _placed_cell(placed: Any) -> str:
    if placed is None:
        return cell("-")
    if placed.outcome == Outcome.SCHEDULED:
        return cell(placed.node or "", data_sort=placed.node or "")
    extra = f" nominated {esc(placed.nominated_node)}" if placed.nominated_node else ""
    return raw_cell(badge(placed.outcome) + extra, data_sort=placed.outcome)


def _deciding(p: PodDiff) -> str:
    sd = p.score_diff
    if sd is None:
        return ""
    return ", ".join(f"{c.plugin} {c.change:+d}" for c in sd.deciding()[:5])


def _moved_table(result: DiffResult, moved: list[PodDiff]) -> str:
    la, lb = result.a.label, result.b.label
    if not moved:
        return "<h2>Pods that moved</h2><p>None.</p>"
    rows = [row([cell(p.pod), _placed_cell(p.a), raw_cell("→", class_="notrun"), _placed_cell(p.b), cell(p.reason),
                 cell(_deciding(p))], data_pod=p.pod) for p in moved[:MAX_ROWS]]
    return "<h2>Pods that moved</h2>" + table(
        ["Pod", f"Node under {la}", "", f"Node under {lb}", "Why", "Deciding plugins (change in margin)"], rows,
        total=len(moved), shown=len(rows), class_="moved", id="moved")


def _num(value: Any) -> str:
    return "-" if value is None else str(value)


def _signed(value: Any) -> str:
    return "-" if value is None else f"{value:+d}"


def _score_details(result: DiffResult, p: PodDiff) -> str:
    sd = p.score_diff
    assert sd is not None
    la, lb = result.a.label, result.b.label
    rows = []
    for c in sd.plugins:
        weight = "" if c.weight_a == c.weight_b else f" (weight {_num(c.weight_a)} → {_num(c.weight_b)})"
        rows.append(row([cell(c.plugin + weight), cell(_num(c.a_from), class_="num"), cell(_num(c.a_to), class_="num"),
                         cell(_signed(c.margin_a), class_="num"), cell(_num(c.b_from), class_="num"),
                         cell(_num(c.b_to), class_="num"), cell(_signed(c.margin_b), class_="num"),
                         cell(_signed(c.change), class_="num", data_sort=c.change if c.change is not None else "")]))
    notes = "".join(f'<p class="note">{esc(n)}</p>' for n in sd.notes)
    headers = ["Plugin", f"{la} {sd.from_node}", f"{la} {sd.to_node}", f"margin {la}", f"{lb} {sd.from_node}",
               f"{lb} {sd.to_node}", f"margin {lb}", "change"]
    summary = f"{p.pod}: {sd.from_node} under {la} → {sd.to_node} under {lb} (weighted scores)"
    return (f"<details><summary>{esc(summary)}</summary>" + table(headers, rows, class_="score-diff") + notes
            + "</details>")


def _nodes_chart(result: DiffResult) -> str:
    la, lb = result.a.label, result.b.label
    nodes = result.nodes
    if not nodes:
        return ""
    changed = [n for n in nodes if n.changed]
    shown = (changed + [n for n in nodes if not n.changed])[:CHART_NODES]
    items = [(n.name, [float(n.a.placed if n.a else 0), float(n.b.placed if n.b else 0)]) for n in shown]
    chart = grouped_bar_chart(items, [f"under {la}", f"under {lb}"], label="Pods of the batch per node under A and B",
                              chart="placed-a-b")
    note = f" ({len(shown)} of {len(nodes)} nodes, those that changed first)" if len(shown) < len(nodes) else ""
    return (f"<h2>Pods of the batch per node{esc(note)}</h2>{legend([f'under {la}', f'under {lb}'])}"
            f"<figure>{chart}</figure>")


def _spread(result: DiffResult) -> str:
    a, b = result.spread_a, result.spread_b
    if a is None or b is None:
        return ""

    def pct(stats: dict) -> str:
        low, high = stats.get("min"), stats.get("max")
        return "-" if low is None or high is None else f"{100 * low:.0f}%-{100 * high:.0f}%"

    def zones(s: Any) -> str:
        return ", ".join(f"{k or '(no zone)'} {v}" for k, v in s.pods_per_zone.items()) or "-"

    lines = [("scheduled", a.scheduled, b.scheduled), ("not scheduled", a.unschedulable, b.unschedulable),
             ("nodes used by the batch", a.nodes_used, b.nodes_used), ("empty nodes after", a.empty_nodes, b.empty_nodes),
             ("most pods of the batch on one node", a.max_pods_on_a_node, b.max_pods_on_a_node),
             ("pods of the batch per zone", zones(a), zones(b)), ("zone skew (max - min)", a.zone_skew, b.zone_skew),
             ("cpu requested/allocatable min-max", pct(a.cpu), pct(b.cpu)),
             ("memory requested/allocatable min-max", pct(a.memory), pct(b.memory))]
    rows = [row([cell(name), cell(va, class_="num"), cell(vb, class_="num")]) for name, va, vb in lines]
    return "<h2>Spread and packing</h2>" + table(["", result.a.label, result.b.label], rows, sortable=False,
                                                 class_="spread")


def _all_pods(result: DiffResult) -> str:
    la, lb = result.a.label, result.b.label
    rows = [row([cell(p.pod), _placed_cell(p.a), _placed_cell(p.b), cell("moved" if p.moved else "same")],
                class_="moved" if p.moved else None) for p in result.pods[:MAX_ROWS]]
    return (f"<details><summary>Every pod ({len(result.pods)})</summary>"
            + table(["Pod", f"Node under {la}", f"Node under {lb}", ""], rows, total=len(result.pods), shown=len(rows),
                    class_="pods") + "</details>")
