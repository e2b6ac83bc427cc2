"""Output of ``kschedctl sweep``: the ranked table, CSV, and charts (one per metric).

Renders ``SweepResult`` objects only. The charts use matplotlib (the ``plot`` extra): one box
plot per metric of the values each configuration reached over the clusters, workloads and
repetitions, as PNG or SVG (all charts in one figure) or as an HTML page (one SVG per chart).
"""

from __future__ import annotations

import csv
import io
from typing import Any

from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from kschedctl.errors import InputError
from kschedctl.printable import printable
from kschedctl.render.shorten import shorten
from kschedctl.render.units import CpuUnit, cpu_unit, format_bytes_for_people
from kschedctl.sweep.metrics import METRICS

#: Metrics the table shows, in order (the CSV and JSON carry them all).
_TABLE = ("scheduled", "unschedulable", "preemptions", "victims", "nodesUsed", "cpuUtilisation",
          "memoryUtilisation", "cpuSpreadNodes", "largestFreeCpu", "largestFreeMemory", "seconds")
#: Metrics charted by --plot.
PLOTTED = ("scheduled", "unschedulable", "preemptions", "nodesUsed", "cpuUtilisation", "memoryUtilisation",
           "cpuSpreadNodes", "cpuSpreadZones", "largestFreeCpu", "seconds")


def _cell_text(metric: str, value: Any, cpu: CpuUnit) -> str:
    if value is None:
        return "-"
    if metric == "largestFreeCpu":
        return cpu.format(int(value))
    if metric == "largestFreeMemory":
        return format_bytes_for_people(int(value))
    if isinstance(value, float):
        return f"{value:.1f}" if metric != "seconds" else f"{value:.2f}"
    return str(value)


def rank_text(place: Any) -> str:
    """A cell's rank for people: ``2``, ``=2`` when tied, ``-`` when unranked (failed)."""
    if place.rank is None:
        return "-"
    return f"={place.rank}" if place.tied else str(place.rank)


def _table(result: Any, ranking: list, shown: list[str], configs: dict[str, str]) -> Table:
    ranked = [r.cell for r in ranking]
    cpu = cpu_unit(int(c.metrics["largestFreeCpu"]) for c in ranked
                   if not c.error and c.metrics.get("largestFreeCpu") is not None)
    title = Text(f"Sweep {printable(result.sweep.name)}: {len(result.cells)} cells, ranked by {result.rank_by} "
                 "within each cluster and workload")
    table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("#", justify="right")
    for col in ("config", "cluster", "workload"):
        table.add_column(col)
    if result.sweep.repetitions > 1:
        table.add_column("seed", justify="right")
    for metric in shown:
        style = "bold" if metric == result.rank_by else None
        header = METRICS[metric][0] + (f" ({cpu.label})" if metric == "largestFreeCpu" else "")
        table.add_column(header, justify="right", style=style)
    group = None
    for place in ranking:
        cell = place.cell
        if group is not None and (cell.cluster, cell.workload) != group:
            table.add_section()
        group = (cell.cluster, cell.workload)
        # names are text, not markup: "bin-packing[percentageOfNodesToScore=50]" has brackets
        row: list[Any] = [rank_text(place), Text(configs[printable(cell.config)]), Text(printable(cell.cluster)),
                          Text(printable(cell.workload))]
        if result.sweep.repetitions > 1:
            row.append(str(cell.seed))
        if cell.error:
            row.append(Text("failed", style="red"))
            row.extend("" for _ in shown[1:])
        else:
            row.extend(_cell_text(m, cell.metrics.get(m), cpu) for m in shown)
        table.add_row(*row)
    return table


def render_sweep(result: Any, console: Console, timings: bool = True) -> None:
    ranking = result.ranking()
    ranked = [r.cell for r in ranking]
    shown = [m for m in _TABLE if timings or m != "seconds"]
    if any(c.metrics.get("removable") is not None for c in ranked):
        shown.insert(shown.index("nodesUsed") + 1, "removable")
    names = [printable(cell.config) for cell in ranked]
    table = _table(result, ranking, shown, {name: name for name in names})
    legend: list[tuple[str, str]] = []
    if Measurement.get(console, console.options.update_width(1 << 16), table).maximum > console.width:
        # Too wide: long configuration names (a varied parameter makes them long) give way first.
        configs, legend = shorten(names, limit=max(12, console.width // 6))
        if legend:
            table = _table(result, ranking, shown, configs)
    console.print(table)
    if any(r.tied for r in ranking):
        console.print(Text(f"  =N: tied on {result.rank_by} with another cell of its cluster and workload"),
                       soft_wrap=True)
    for short, full in legend:
        console.print(Text(f"  {short} = {full}"), soft_wrap=True)
    reasons = result.unschedulable_reasons()
    if reasons:
        console.print("Why pods stayed unschedulable (pods, over all cells):")
        for reason, n in reasons[:10]:
            console.print(f"  {n:>6}  {printable(reason)}", markup=False, highlight=False)
    failed = result.failures()
    if failed:
        count = sum(len(cells) for _, cells in failed)
        console.print(Text(f"{count} of {len(result.cells)} cells failed:", style="red"))
        for error, cells in failed:
            rows = [f"{printable(cell.config)} on {printable(cell.cluster)}" for _, cell in cells]
            console.print(Text(f"  {', '.join(dict.fromkeys(rows))}: {printable(error)}"), highlight=False)


def sweep_csv(result: Any, timings: bool = True) -> str:
    """One row per cell (matrix order), every metric a column; reasons as "reason=count; ...".
    Names and errors are printable (``\\n``, not a line break a CI log would read as a new line)."""
    metrics = [m for m in METRICS if timings or m != "seconds"]
    extra = ["pods", "gated", "rejected", "errors", "preempted"]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["rank", "tied", "index", "config", "cluster", "workload", "repetition", "seed", *metrics, *extra,
                     "unschedulableReasons", "error"])
    places = {r.cell.index: r for r in result.ranking()}
    for c in result.cells:
        m = c.metrics
        reasons = "; ".join(f"{k}={v}" for k, v in (m.get("unschedulableReasons") or {}).items())
        place = places[c.index]
        writer.writerow(["" if place.rank is None else place.rank, "true" if place.tied else "false", c.index, printable(c.config), printable(c.cluster), printable(c.workload),
                         c.repetition, c.seed, *("" if m.get(k) is None else m.get(k) for k in metrics),
                         *("" if m.get(k) is None else m.get(k) for k in extra), printable(reasons),
                         printable(c.error or "")])
    return buf.getvalue()


def write_plot(result: Any, path: str) -> None:
    """Charts of the metrics per configuration into ``path`` (.png, .svg or .html)."""
    lower = path.lower()
    if not lower.endswith((".png", ".svg", ".html", ".htm")):
        raise InputError(f"--plot {path}: the file must end in .png, .svg or .html")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError("--plot needs matplotlib: pip install 'kschedctl[plot]'") from None
    configs = [c.name for c in result.sweep.configs]
    labels = [_plot_label(name) for name in configs]
    ok = [c for c in result.cells if not c.error]

    def draw(ax: Any, metric: str) -> None:
        series = [[float(c.metrics[metric]) for c in ok if c.config == name and c.metrics.get(metric) is not None]
                  for name in configs]
        ax.boxplot([s if s else [float("nan")] for s in series], showmeans=True)
        for i, values in enumerate(series, 1):  # every cell as a dot over its box
            ax.plot([i] * len(values), values, "o", alpha=0.5, markersize=4)
        ax.set_xticks(range(1, len(configs) + 1), labels, rotation=20, ha="right", fontsize=8)
        better = "higher is better" if METRICS[metric][1] else "lower is better"
        ax.set_title(f"{METRICS[metric][0]} ({better})", fontsize=10)

    if lower.endswith((".html", ".htm")):
        parts = [f"<!doctype html><meta charset='utf-8'><title>kschedctl sweep {_esc(result.sweep.name)}</title>",
                 f"<h1>Sweep {_esc(result.sweep.name)}</h1><p>{len(result.cells)} cells; each box is one "
                 f"configuration over clusters, workloads and repetitions.</p>"]
        for metric in PLOTTED:
            fig, ax = plt.subplots(figsize=(max(5, 1.2 * len(configs) + 2), 3.6))
            draw(ax, metric)
            fig.tight_layout()
            svg = io.StringIO()
            fig.savefig(svg, format="svg")
            plt.close(fig)
            parts.append(f"<section><h2>{_esc(METRICS[metric][0])}</h2>{_svg_body(svg.getvalue())}</section>")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("\n".join(parts) + "\n")
        return
    cols = 2
    rows = (len(PLOTTED) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(max(10, 2.4 * len(configs) + 4), 3.2 * rows))
    for ax, metric in zip(axes.flat, PLOTTED):
        draw(ax, metric)
    for ax in list(axes.flat)[len(PLOTTED):]:
        ax.set_visible(False)
    fig.suptitle(f"Sweep {_plot_label(result.sweep.name)}")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _plot_label(name: str) -> str:
    """A name as matplotlib draws it as it is: printable, and with its dollar signs escaped, which
    would otherwise start mathtext (a name like ``$x^{$`` stops the chart with a parse error)."""
    return printable(name).replace("$", r"\$")


def _esc(text: str) -> str:
    return printable(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _svg_body(svg: str) -> str:
    """The <svg> element of a matplotlib SVG file (without its XML prologue and doctype)."""
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else svg
