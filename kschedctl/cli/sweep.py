"""``kschedctl sweep SWEEP.yaml``: many simulate runs (configs x clusters x workloads x seeds),
in parallel, ranked by a metric."""

from __future__ import annotations

import sys
from enum import Enum
from typing import Annotated, Optional

import typer

from kschedctl.cli.app import app, error
from kschedctl.cli.common import checks_fields
from kschedctl.cli.options import (AllowExtendersOption, AllowExtenderURLOption, AllowOutsidePathsOption,
                                   PluginOption, QuietOption, ValidateOption, WidthOption)
from kschedctl.cli.options import ReportOption


class SweepOutput(str, Enum):
    table = "table"
    json = "json"
    yaml = "yaml"
    csv = "csv"


_EPILOG = """Example: which of three profiles places more pods, on fewer nodes, on two clusters?

  $ kschedctl sweep profiles/sweeps/packing.yaml
  $ kschedctl sweep profiles/sweeps/packing.yaml --rank-by nodesUsed -o csv > cells.csv
  $ kschedctl sweep profiles/sweeps/packing.yaml --plot sweep.html    # needs kschedctl[plot]
"""


def _metric_names() -> list[str]:
    from kschedctl.sweep.metrics import METRICS

    return list(METRICS)


@app.command(epilog=_EPILOG)
@checks_fields
def sweep(
    file: Annotated[str, typer.Argument(help="The sweep file (apiVersion: kschedctl/v1, kind: Sweep).",
                                        metavar="SWEEP.yaml")],
    rank_by: Annotated[str, typer.Option(
        "--rank-by", metavar="METRIC", autocompletion=_metric_names,
        help="Rank the cells by this metric, best first (scheduled, unschedulable, preemptions, victims, "
             "nodesUsed, cpuUtilisation, memoryUtilisation, cpuSpreadNodes, memorySpreadNodes, cpuSpreadZones, "
             "memorySpreadZones, largestFreeCpu, largestFreeMemory, seconds).")] = "scheduled",
    output: Annotated[SweepOutput, typer.Option("--output", "-o", help="Output format.",
                                                case_sensitive=False)] = SweepOutput.table,
    workers: Annotated[Optional[int], typer.Option(
        "--workers", "-j", min=1, metavar="N", help="Local worker processes (default: one per core).")] = None,
    ray_address: Annotated[Optional[str], typer.Option(
        "--ray-address", metavar="ADDR", help="Run the cells as Ray tasks on this Ray cluster ('local' starts one "
                                              "here); needs kschedctl[ray].")] = None,
    plot: Annotated[Optional[str], typer.Option(
        "--plot", metavar="FILE", help="Also write charts, one per metric (.png, .svg or .html); needs "
                                       "kschedctl[plot].")] = None,
    timings: Annotated[bool, typer.Option(
        "--timings/--no-timings", help="Show each cell's wall time (--no-timings: output that depends only on "
                                       "the inputs, for diffs and CI).")] = True,
    plugin: PluginOption = None,
    allow_outside_paths: AllowOutsidePathsOption = False,
    allow_extenders: AllowExtendersOption = False,
    allow_extender_url: AllowExtenderURLOption = None,
    # From when sweep called extenders by default: scripts passing it still run (and skip them).
    no_extenders: Annotated[bool, typer.Option(
        "--no-extenders", hidden=True, help="Skip every extender (with a warning) instead of refusing the "
                                            "configurations that declare one.")] = False,
    quiet: QuietOption = False,
    width: WidthOption = None,
    validate: ValidateOption = "strict",
    report: ReportOption = None,
) -> None:
    """Run a matrix of simulations, one per configuration (and parameter variation), cluster,
    workload and repetition, in parallel on the local cores or on a Ray cluster; rank the cells
    by a metric (pods placed, unschedulable by reason, preemptions and victims, nodes used,
    utilisation and its spread over nodes and zones, the largest free room on one node, wall
    time). A failing cell is reported in its row; the others complete. As with kschedctl test,
    the files a sweep names must be inside the scenario root (the git repository of the working
    directory, or else the working directory), symlinks resolved, and extenders are not called:
    the cells of a configuration that declares one fail, unless --allow-outside-paths /
    --allow-extenders / --allow-extender-url say otherwise. Exit 0 when every cell ran, 1 when
    some failed."""
    from kschedctl.errors import EXIT_NO, EXIT_OK, UsageError
    from kschedctl.sweep.metrics import METRICS
    from kschedctl.sweep.model import read_sweep
    from kschedctl.sweep.run import RunOptions, run_sweep

    if rank_by not in METRICS:
        raise UsageError(f"--rank-by {rank_by}: not a metric (one of {', '.join(METRICS)})")
    if ray_address and workers:
        raise UsageError("--workers and --ray-address exclude each other (Ray decides where cells run)")
    from kschedctl.errors import EXIT_BAD_INPUT
    from kschedctl.scenarios.files import ScenarioFileError
    from kschedctl.scenarios.trust import TrustPolicy

    trust = TrustPolicy.for_run(allow_outside_paths=allow_outside_paths, allow_extenders=allow_extenders,
                                extender_urls=allow_extender_url or ())
    try:
        with trust.files():
            spec = read_sweep(file)
    except ScenarioFileError as exc:  # every problem of the file, one line each
        for finding in exc.findings:
            error(finding)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    cells = spec.cells()
    from kschedctl.cli.common import print_warnings

    options = RunOptions(extenders=not no_extenders, plugins=tuple(plugin or ()), trust=trust, validate=validate)

    from kschedctl.render.simulate import progress_bar

    show_progress = not quiet and sys.stderr.isatty()
    done = 0
    with progress_bar("cells", len(cells), show_progress) as bar:
        def advance(n: int) -> None:
            nonlocal done
            done += n
            if bar is not None:
                bar(done, len(cells))

        result = run_sweep(spec, rank_by, workers=workers, ray_address=ray_address, options=options,
                           progress=advance, cells=cells)
    print_warnings(dict.fromkeys(w for c in result.cells for w in c.warnings), quiet)
    if plot:
        from kschedctl.render.sweep import write_plot

        write_plot(result, plot)
    if report:
        from kschedctl.render.report import write_report

        write_report(report, result, timings=timings)
    if output is SweepOutput.table:
        from kschedctl.render.console import output_console
        from kschedctl.render.sweep import render_sweep

        render_sweep(result, output_console(width), timings=timings)
    elif output is SweepOutput.csv:
        from kschedctl.render.sweep import sweep_csv

        sys.stdout.write(sweep_csv(result, timings=timings))
    else:
        from kschedctl.render.output import dump

        sys.stdout.write(dump(result.to_dict(timings=timings), output.value))
    raise typer.Exit(EXIT_NO if any(c.error for c in result.cells) else EXIT_OK)
