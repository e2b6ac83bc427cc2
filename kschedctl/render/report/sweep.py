"""The sweep report: the ranked table of cells and, per metric, a chart of the values each
configuration reached over the clusters, workloads and repetitions (every cell a dot, the mean
a red tick), drawn as inline SVG so that it needs no matplotlib."""

from __future__ import annotations

from typing import Any, Callable

from kschedctl.k8s.quantity import humanize_bytes
from kschedctl.render.report.page import (
    MAX_ROWS,
    attrs,
    cell,
    cores,
    document,
    esc,
    facts,
    raw_cell,
    row,
    table,
)
from kschedctl.render.report.svg import strip_chart
from kschedctl.sweep.metrics import METRICS

#: Metrics the ranked table shows, in order (as the terminal table does).
TABLE_METRICS = ("scheduled", "unschedulable", "preemptions", "victims", "nodesUsed", "cpuUtilisation",
                 "memoryUtilisation", "cpuSpreadNodes", "largestFreeCpu", "largestFreeMemory", "seconds")
#: Metrics charted, in order (as ``--plot`` does).
CHARTED = ("scheduled", "unschedulable", "preemptions", "nodesUsed", "cpuUtilisation", "memoryUtilisation",
           "cpuSpreadNodes", "cpuSpreadZones", "largestFreeCpu", "seconds")


def _formatter(metric: str) -> Callable[[float], str]:
    if metric == "largestFreeCpu":
        return lambda v: cores(v)
    if metric == "largestFreeMemory":
        return lambda v: humanize_bytes(int(v))
    if metric == "seconds":
        return lambda v: f"{v:.2f}"
    if metric in ("cpuUtilisation", "memoryUtilisation"):
        return lambda v: f"{v:.1f}%"
    return lambda v: f"{v:.3g}" if isinstance(v, float) and not float(v).is_integer() else f"{v:g}"


def _value_text(metric: str, value: Any) -> str:
    if value is None:
        return "-"
    return _formatter(metric)(float(value))


def sweep_report(result: Any, timings: bool = True) -> str:
    """The whole page for a ``SweepResult``; without ``timings``, nothing that depends on the
    machine (wall times) is shown, as ``--no-timings`` does for the other outputs."""
    ranked = result.ranked()
    failed = [c for c in result.cells if c.error]
    sweep = result.sweep
    summary = [("Cells", esc(f"{len(result.cells)} ({len(failed)} failed)" if failed else len(result.cells))),
               ("Ranked by", esc(f"{result.rank_by} ({METRICS[result.rank_by][0]}, "
                                 f"{'higher' if METRICS[result.rank_by][1] else 'lower'} is better)")),
               ("Configurations", esc(", ".join(c.name for c in sweep.configs))),
               ("Clusters", esc(", ".join(c.name for c in sweep.clusters))),
               ("Workloads", esc(", ".join(w.name for w in sweep.workloads))),
               ("Repetitions", esc(sweep.repetitions))]
    if timings:
        summary.append(("Wall time", esc(f"{result.seconds:.2f}s on {result.workers} worker(s)")))
    body = ["<h2>Summary</h2>", facts(summary)]
    # Per cluster and workload, the cells ranked first (several when tied): never one "best" overall.
    leaders: dict[tuple[str, str], list[Any]] = {}
    for place in result.ranking():
        if place.rank == 1:
            leaders.setdefault((place.cell.cluster, place.cell.workload), []).append(place.cell)
    for (cluster_name, workload_name), cells in leaders.items():
        configs = list(dict.fromkeys(c.config for c in cells))
        value = esc(_value_text(result.rank_by, cells[0].metrics.get(result.rank_by)))
        tie = f"a tie between {len(configs)} configurations: " if len(configs) > 1 else ""
        body.append(f'<p class="verdict ok" data-verdict="first">On {esc(cluster_name)} with {esc(workload_name)}, '
                    f"first by {esc(METRICS[result.rank_by][0])} ({value}): {esc(tie)}"
                    f"{', '.join(f'<b>{esc(c)}</b>' for c in configs)}</p>")
    body.append(_ranked_table(result, result.ranking(), timings))
    body.append(_reasons(result))
    body.append(_failures(result))
    body.append(_charts(result, timings))
    return document("sweep", f"kschedctl sweep: {sweep.name}", "\n".join(b for b in body if b),
                    subtitle=f"{len(result.cells)} cells, ranked by {result.rank_by}")


def _ranked_table(result: Any, ranking: list, timings: bool) -> str:
    ranked = [r.cell for r in ranking]
    metrics = [m for m in TABLE_METRICS if timings or m != "seconds"]
    repeated = result.sweep.repetitions > 1
    heads = ['<th scope="col" class="num">#</th>', '<th scope="col">Config</th>', '<th scope="col">Cluster</th>',
             '<th scope="col">Workload</th>']
    if repeated:
        heads.append('<th scope="col" class="num">Seed</th>')
    for m in metrics:
        cls = "num rank-by" if m == result.rank_by else "num"
        better = "higher" if METRICS[m][1] else "lower"
        heads.append(f'<th scope="col"{attrs(class_=cls, title=f"{m}: {better} is better")}>{esc(METRICS[m][0])}</th>')
    rows = []
    for i, place in enumerate(ranking[:MAX_ROWS], 1):
        c = place.cell
        shown = "-" if place.rank is None else f"={place.rank}" if place.tied else place.rank
        # a variant's name breaks before its override ("bin-packing[percentageOfNodesToScore=50]")
        cells = [cell(shown, class_="num"), raw_cell(esc(c.config).replace("[", "<wbr>[").replace(",", ",<wbr>")),
                 cell(c.cluster, class_="name"), cell(c.workload, class_="name")]
        if repeated:
            cells.append(cell(c.seed, class_="num"))
        for m in metrics:
            cls = "num rank-by" if m == result.rank_by else "num"
            if c.error:
                cells.append(cell("failed" if m == metrics[0] else "", class_=cls))
                continue
            value = c.metrics.get(m)
            cells.append(cell(_value_text(m, value), class_=cls, data_sort="" if value is None else value))
        rows.append(row(cells, class_="failed" if c.error else None, data_rank=i))
    return "<h2>Cells, ranked within each cluster and workload (=N: tied)</h2>" + table(
        [], rows, header_cells=heads, total=len(ranked), shown=len(rows), class_="ranked", id="ranked")


def _reasons(result: Any) -> str:
    reasons = result.unschedulable_reasons()
    if not reasons:
        return ""
    rows = [row([cell(n, class_="num"), cell(reason)]) for reason, n in reasons[:MAX_ROWS]]
    return "<h2>Why pods stayed unschedulable (pods, over all cells)</h2>" + table(["Pods", "Reason"], rows,
                                                                                  class_="reasons")


def _failures(result: Any) -> str:
    failed = result.failures()
    if not failed:
        return ""
    rows = [row([cell(", ".join(f"#{i}" for i, _ in cells[:20]) + (" …" if len(cells) > 20 else "")), cell(error)])
            for error, cells in failed]
    return "<h2>Failed cells</h2>" + table(["Cells", "Error"], rows, class_="failures")


def _charts(result: Any, timings: bool) -> str:
    ok = [c for c in result.cells if not c.error]
    configs = [c.name for c in result.sweep.configs]
    parts = ["<h2>Per configuration</h2>",
             '<p class="note">Each row is one configuration over every cluster, workload and repetition: a dot per '
             "cell, the red tick the mean.</p>", '<div class="charts">']
    for metric in CHARTED:
        if metric == "seconds" and not timings:
            continue
        items = [(name, [float(c.metrics[metric]) for c in ok
                         if c.config == name and c.metrics.get(metric) is not None]) for name in configs]
        title, higher = METRICS[metric]
        chart = strip_chart(items, label=f"{title} per configuration", chart=f"metric-{metric}",
                            value_text=_formatter(metric), width=280)
        parts.append(f"<figure><figcaption><b>{esc(title)}</b> ({'higher' if higher else 'lower'} is better)"
                     f"</figcaption>{chart}</figure>")
    parts.append("</div>")
    return "".join(parts)
