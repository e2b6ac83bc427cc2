"""The simulate report: the outcome counts, pods placed per node and per zone (and how the zones
filled over the run), CPU and memory requested per node before and after the run, the
preemptions, the pods left unplaced and every placement."""

from __future__ import annotations

from typing import Sequence

from kschedctl.k8s.quantity import humanize_bytes
from kschedctl.render.report.page import (
    MAX_ROWS,
    attrs,
    badge,
    cell,
    cores,
    document,
    esc,
    facts,
    percent,
    raw_cell,
    row,
    table,
)
from kschedctl.render.report.svg import bar_chart, before_after_chart, legend, step_chart
from kschedctl.scheduler.outcome import BATCH_OUTCOMES, Outcome
from kschedctl.scheduler.simulation_result import NodeUsage, SimulationResult

#: Nodes a chart draws one bar each for; beyond, the busiest ones (the tables list more).
CHART_NODES = 60
#: Pods whose last cycle the page opens as a filter × score matrix (``Simulator(decisions=)``),
#: and the matrix rows all of them may hold together (the page stays a few MB on large clusters).
DRILL_PODS = 100
DRILL_ROWS = 5_000


def drill_pods(nodes: int) -> int:
    """How many pods' cycles a report on ``nodes`` nodes opens: 100 on small clusters, 10 from
    500 nodes on (a matrix lists at most ``MAX_ROWS`` nodes)."""
    return max(1, min(DRILL_PODS, DRILL_ROWS // max(1, min(nodes, MAX_ROWS))))


def simulation_report(result: SimulationResult, title: str = "kschedctl simulate",
                      before: Sequence[NodeUsage] | None = None) -> str:
    """The whole page for one simulation; ``before``: the usage the "before" columns show
    instead of the run's start (the cluster as it is, when a what-if changed it first)."""
    counts = result.counts()
    summary = [("Pods", esc(len(result.placements)))]
    summary += [(outcome, badge(outcome) + f" {counts[outcome]}") for outcome in BATCH_OUTCOMES if counts.get(outcome)]
    summary += [("Preemptions", esc(len(result.preemptions))),
                ("Scheduling cycles", esc(f"{result.cycles} in {result.seconds:.2f}s")),
                ("Nodes", esc(len(result.nodes)))]
    if result.tie_breaks:
        summary.append(("Random tie-breaks", esc(result.tie_breaks)))
    if result.seed is not None:
        summary.append(("Seed", esc(result.seed)))
    body = ["<h2>Summary</h2>", facts(summary)]
    body.extend(f'<p class="verdict bad">warning: {esc(w)}</p>' for w in result.warnings)
    body.append(simulation_sections(result, before))
    scheduled = counts.get(Outcome.SCHEDULED, 0)
    subtitle = (f"{scheduled} of {len(result.placements)} pod(s) scheduled on {len(result.nodes)} node(s)"
                if result.placements else f"no pod to schedule; {len(result.nodes)} node(s)")
    return document("simulate", title, "\n".join(b for b in body if b), subtitle=subtitle)


def simulation_sections(result: SimulationResult, before: Sequence[NodeUsage] | None = None) -> str:
    """The sections after the summary: placements per node and zone, usage before and after,
    preemptions, pods not placed, every placement (replay's page shows them too)."""
    return "\n".join(part for part in (_placements_charts(result), _utilisation(result, before),
                                        _preemptions(result), _not_placed(result), _queue(result),
                                        _placements_table(result), _decisions(result)) if part)


def _busiest(nodes: Sequence[NodeUsage]) -> list[NodeUsage]:
    if len(nodes) <= CHART_NODES:
        return list(nodes)
    keep = sorted(nodes, key=lambda n: (-n.placed, -(n.fraction("cpu") or 0), n.name))[:CHART_NODES]
    chosen = {n.name for n in keep}
    return [n for n in nodes if n.name in chosen]


def _placements_charts(result: SimulationResult) -> str:
    shown = _busiest(result.nodes)
    note = (f'<p class="note">The {len(shown)} busiest of {len(result.nodes)} nodes.</p>'
            if len(shown) < len(result.nodes) else "")
    parts = ["<h2>Placements</h2>", '<div class="charts">',
             f"<figure>{bar_chart([(n.name, n.placed) for n in shown], label='Pods placed per node', chart='placed-per-node', item_attr='data-node')}"
             f"<figcaption>Pods of this run placed per node{esc(' (shown nodes only)' if note else '')}</figcaption>"
             "</figure>"]
    zones = [z for z in result.zones]
    if len(zones) > 1 or (zones and zones[0].name):
        parts.append(f"<figure>{bar_chart([(z.name or '(no zone)', z.placed) for z in zones], label='Pods placed per zone', chart='placed-per-zone', item_attr='data-zone')}"
                     "<figcaption>Pods of this run placed per zone</figcaption></figure>")
    if note:
        spread: dict[int, int] = {}
        for n in result.nodes:
            spread[n.placed] = spread.get(n.placed, 0) + 1
        items = [(f"{placed} pod(s)", count) for placed, count in sorted(spread.items())][:CHART_NODES]
        parts.append(f"<figure>{bar_chart(items, label='Nodes by pods placed', chart='nodes-by-placed', item_attr='data-placed')}"
                     f"<figcaption>How many of the {len(result.nodes):,} nodes got how many pods of this run"
                     "</figcaption></figure>")
    parts.append("</div>")
    parts.append(note)
    over_time = _over_the_run(result)
    if over_time:
        parts.append(over_time)
    return "".join(parts)


def _over_the_run(result: SimulationResult) -> str:
    """How many pods each zone (or, without zones, the whole cluster) held after each cycle."""
    zone_of = {n.name: (n.zone or "(no zone)") for n in result.nodes}
    placed = sorted((p for p in result.placements if p.outcome == Outcome.SCHEDULED and p.node and p.order),
                    key=lambda p: p.order or 0)
    if len(placed) < 2:
        return ""
    names = list(dict.fromkeys(z.name or "(no zone)" for z in result.zones)) or ["cluster"]
    if len(names) > 8:
        names = ["cluster"]
    counts = {name: 0 for name in names}
    series: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
    for p in placed:
        zone = zone_of.get(p.node or "", "(no zone)") if names != ["cluster"] else "cluster"
        if zone not in counts:
            continue
        counts[zone] += 1
        series[zone].append((float(p.order or 0), float(counts[zone])))
    chart = step_chart(list(series.items()), label="Pods placed per zone over the run", chart="placed-over-run",
                       x_label="scheduling cycle", y_label="pods placed")
    return (f"<h3>Over the run</h3>{legend(list(series))}<figure>{chart}<figcaption>Pods placed per "
            "zone after each scheduling cycle (a pod preempted later still counts where it was placed)"
            "</figcaption></figure>")


def _utilisation(result: SimulationResult, as_is: Sequence[NodeUsage] | None = None) -> str:
    before = {n.name: n for n in (result.nodes_before if as_is is None else as_is)}
    shown = _busiest(result.nodes)
    parts = ["<h2>Utilisation per node (requested / allocatable)</h2>"]
    if before:
        what = "before the run" if as_is is None else "the cluster as it is (before the what-if)"
        parts.append(f'<div class="legend"><span><i class="before"></i>{esc(what)}</span>'
                     '<span><i class="after"></i>after the run</span></div>')
    parts.append('<div class="charts">')
    for resource, title in (("cpu", "CPU"), ("memory", "Memory")):
        items = [(n.name, before[n.name].fraction(resource) if n.name in before else None, n.fraction(resource))
                 for n in shown]
        chart = before_after_chart(items, label=f"{title} requested per node, before and after the run",
                                   chart=f"{resource}-before-after")
        parts.append(f"<figure>{chart}<figcaption>{esc(title)} requested / allocatable</figcaption></figure>")
    parts.append("</div>")
    rows = []
    for n in result.nodes[:MAX_ROWS]:
        b = before.get(n.name)
        rows.append(row([
            cell(n.name), cell(n.zone), cell(n.placed, class_="num"),
            cell(percent(b.fraction("cpu")) if b else "-", class_="num"),
            cell(percent(n.fraction("cpu")), class_="num"),
            cell(f"{cores(n.requested.get('cpu', 0))}/{cores(n.allocatable.get('cpu', 0))}", class_="num",
                 data_sort=n.requested.get("cpu", 0)),
            cell(percent(b.fraction("memory")) if b else "-", class_="num"),
            cell(percent(n.fraction("memory")), class_="num"),
            cell(f"{humanize_bytes(n.requested.get('memory', 0))}/{humanize_bytes(n.allocatable.get('memory', 0))}",
                 class_="num", data_sort=n.requested.get("memory", 0)),
            cell(f"{n.requested.get('pods', 0)}/{n.allocatable.get('pods', 0)}", class_="num",
                 data_sort=n.requested.get("pods", 0)),
        ], data_node=n.name))
    parts.append(table(["Node", "Zone", "Placed", "CPU before", "CPU after", "CPU after (cores)", "Memory before",
                        "Memory after", "Memory after (bytes)", "Pods after"], rows, total=len(result.nodes),
                       shown=len(rows), class_="nodes"))
    return "".join(parts)


def _preemptions(result: SimulationResult) -> str:
    if not result.preemptions:
        return "<h2>Preemptions</h2><p>None.</p>"
    rows = [row([cell(p.pod), cell(p.node), cell(len(p.victims), class_="num"), cell(", ".join(p.victims))])
            for p in result.preemptions[:MAX_ROWS]]
    return "<h2>Preemptions</h2>" + table(["Preemptor", "Node", "Victims", "Evicted pods"], rows,
                                          total=len(result.preemptions), shown=len(rows), class_="preemptions")


def _not_placed(result: SimulationResult) -> str:
    groups = result.not_placed_groups()
    if not groups:
        return ""
    rows = [row([cell(len(pods), class_="num"), _badge_cell(outcome), cell(message),
                 cell(", ".join(pods[:10]) + (f" … (+{len(pods) - 10})" if len(pods) > 10 else ""))])
            for outcome, message, pods in groups[:MAX_ROWS]]
    return "<h2>Not placed</h2>" + table(["Pods", "Outcome", "Message", "Which"], rows, total=len(groups),
                                         shown=len(rows), class_="not-placed")


def _badge_cell(outcome: str) -> str:
    """A cell showing an outcome as a coloured label, sorted by its name."""
    return f"<td data-sort=\"{esc(outcome)}\">{badge(outcome)}</td>"


def _placements_table(result: SimulationResult) -> str:
    ordered = sorted(result.placements, key=lambda p: (p.order is None, p.order or 0))
    index = {pod: i for i, pod in enumerate(result.decisions)}
    rows = [row([cell(p.order or "", class_="num"), _pod_cell(p.pod, index), cell(p.priority, class_="num"),
                 _badge_cell(p.outcome), cell(p.node or p.nominated_node or "-"), cell(p.attempts, class_="num"),
                 cell(p.preempted_by or "")], data_pod=p.pod) for p in ordered[:MAX_ROWS]]
    note = ('<p class="note">A pod\'s name opens its last scheduling cycle: every node\'s filter verdicts and '
            "weighted scores, as explain shows them.</p>" if index else "")
    return "<h2>Every placement</h2>" + note + table(
        ["#", "Pod", "Priority", "Outcome", "Node", "Attempts", "Preempted by"], rows, total=len(ordered),
        shown=len(rows), class_="placements")


def _pod_cell(pod: str, index: dict[str, int]) -> str:
    i = index.get(pod)
    if i is None:
        return cell(pod)
    return raw_cell(f'<a href="#decision-{i}">{esc(pod)}</a>', data_sort=pod)


def _decisions(result: SimulationResult) -> str:
    """Each kept pod's last cycle, folded: the explain page's section for it."""
    if not result.decisions:
        return ""
    from kschedctl.render.report.explain import pod_section

    parts = ["<h2>Each placement, opened</h2>",
             f'<p class="note">The last scheduling cycle of the first {len(result.decisions)} pod(s) tried, '
             "in the cluster as it was at that cycle.</p>"]
    placements = {p.pod: p for p in result.placements}
    for i, (pod, decision) in enumerate(result.decisions.items()):
        placed = placements.get(pod)
        where = f" → {placed.node}" if placed is not None and placed.node else ""
        outcome = placed.outcome if placed is not None else decision.outcome
        parts.append(f'<details class="decision"{attrs(id=f"decision-{i}", data_pod=pod)}>'
                     f"<summary>{esc(pod)}{esc(where)} {badge(outcome)}</summary>"
                     f"{pod_section(i, decision)}</details>")
    return "".join(parts)


def _queue(result: SimulationResult) -> str:
    """The scheduling queue over the run: how many pods were in activeQ, in backoff and waiting
    for an event after each cycle, and the pods tried more than once or never placed."""
    if len(result.queue) < 1:
        return ""
    series: dict[str, list[tuple[float, float]]] = {"activeQ": [], "backoff": [], "unschedulable (waiting)": []}
    for sample in result.queue:
        for name, value in zip(series, (sample.active, sample.backoff, sample.unschedulable)):
            points = series[name]
            if not points or points[-1][1] != value:
                points.append((float(sample.cycle), float(value)))
    chart = step_chart(list(series.items()), label="Pods in the scheduling queue after each cycle",
                       chart="queue-over-run", x_label="scheduling cycle", y_label="pods")
    parts = ['<section id="queue"><h2>The scheduling queue over the run</h2>', legend(list(series)),
             f"<figure>{chart}<figcaption>Pods in activeQ, in backoff, and waiting for a cluster event "
             "(unschedulable) after each scheduling cycle</figcaption></figure>"]
    attempts = result.attempts()
    if attempts:
        rows = [row([cell(a["pod"]), cell(a["attempts"], class_="num"), cell(", ".join(map(str, a["cycles"]))),
                     cell(" → ".join(a["outcomes"])), _badge_cell(a["outcome"])], data_pod=a["pod"])
                for a in attempts[:MAX_ROWS]]
        parts.append("<h3>Pods tried more than once or not placed</h3>" + table(
            ["Pod", "Attempts", "Cycles", "Each attempt", "In the end"], rows, total=len(attempts), shown=len(rows),
            class_="attempts"))
    else:
        parts.append('<p class="note">Every pod was placed at its first attempt.</p>')
    return "".join(parts) + "</section>"

