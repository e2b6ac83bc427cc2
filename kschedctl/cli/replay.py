"""``kschedctl replay TRACE``: a recorded trace run through a profile, against what happened."""

from __future__ import annotations

import sys
from typing import Annotated, Any, Optional

import typer

from kschedctl.cli.app import app
from kschedctl.cli.common import checks_fields
from kschedctl.cli.options import (
    ConfigOption,
    NoExtendersOption,
    OutputFormat,
    PluginOption,
    ProfileOption,
    QuietOption,
    ReportOption,
    TableOutputOption,
    ValidateOption,
    WidthOption,
    resolve_output,
)

_EPILOG = """Example: the bundled trace under the profile it was recorded with, then under bin-packing.

  $ kschedctl replay fixtures/traces/small.jsonl
  $ kschedctl replay fixtures/traces/small.jsonl -c profiles/bin-packing.yaml -o json
"""


@app.command(epilog=_EPILOG)
@checks_fields
def replay(
    trace: Annotated[str, typer.Argument(help="A trace written by kschedctl record (JSON lines).",
                                         metavar="TRACE.jsonl")],
    config: ConfigOption = None,
    profile: ProfileOption = None,
    output: TableOutputOption = OutputFormat.table,
    seed: Annotated[int, typer.Option(
        "--seed", metavar="N", help="Seed of the random tie-break among equal top scores (where the trace's node "
                                    "is among them, the replay takes it: a tie).")] = 0,
    plugin: PluginOption = None,
    wide: Annotated[bool, typer.Option("--wide", help="List every pod, not only those placed differently.")] = False,
    no_extenders: NoExtendersOption = False,
    quiet: QuietOption = False,
    width: WidthOption = None,
    validate: ValidateOption = "strict",
    report: ReportOption = None,
) -> None:
    """Replay a trace: rebuild the cluster as it was when recording started, apply its node changes
    and deletions as they happened, and schedule its pod arrivals in time order under the given
    configuration (the simulate machinery: each placement seen by the next, preemption, retries
    when the cluster changes). Report what it would have done differently from what happened: pods
    on another node, pods that would stay pending, pods that were pending but would schedule,
    pending times, preemptions. Where the real scheduler drew among tied nodes and the replay ties
    there too, it takes the trace's node and reports a tie, no difference. Exit 0 when every pod lands where it did, 1 when any placement
    differs, 2 on bad input."""
    from kschedctl.cli.common import load_config, print_warnings, registry_with_plugins
    from kschedctl.errors import EXIT_NO, EXIT_OK
    from kschedctl.inputs.trace import read_trace
    from kschedctl.analyses.replay import Replayer

    output, wide = resolve_output(output, wide, "replay", names=False)
    registry, extra = registry_with_plugins(plugin or [])
    cfg = load_config(config, extra, quiet)
    recorded = read_trace(trace)
    from kschedctl.render.progress import progress_wanted, working

    show = output == OutputFormat.table and progress_wanted(quiet) and len(recorded.events) >= 500
    from kschedctl import limits

    with working(f"replaying {len(recorded.events)} events", show), limits.work_budget(trace):
        result = Replayer(recorded, cfg, profile, registry=registry, seed=seed, extenders=not no_extenders,
                          config_name=str(config) if config else None).run()
    print_warnings(result.warnings, quiet)
    if report:
        from kschedctl.render.report import write_report

        write_report(report, result)
    if output == OutputFormat.table:
        from kschedctl.render.console import output_console
        from kschedctl.render.replay import render_replay

        render_replay(result, output_console(width), wide=wide)
    else:
        from kschedctl.render.output import dump

        sys.stdout.write(dump(result.to_dict(), output.value))
    raise typer.Exit(EXIT_OK if result.identical else EXIT_NO)


def diff_trace(paths: list[str], cluster: Optional[list[str]], cfg_a: Any, cfg_b: Any, side_a: Any, side_b: Any,
               registry: Any, seed: int, extenders: bool, output: OutputFormat, wide: bool, width: Optional[int],
               quiet: bool, report: Optional[str]) -> None:
    """``kschedctl diff A B TRACE.jsonl``: the trace replayed under A and under B, compared as two
    simulate runs (``--cluster``: the trace's events on that cluster instead of the recorded one),
    each moved pod with the plugins that decided it.
    Ends the command (exit 0 when every placement is the same, 1 otherwise)."""
    from kschedctl.cli.common import print_warnings
    from kschedctl.errors import EXIT_NO, EXIT_OK, UsageError
    from kschedctl.inputs.trace import read_trace
    from kschedctl.analyses.diff import calls_extenders, diff_simulations, explain_moves
    from kschedctl.analyses.replay import Replayer

    if len(paths) != 1:
        raise UsageError("diff takes one trace, without pod files: " + " ".join(paths))
    recorded = read_trace(paths[0])
    start = None
    if cluster:
        from kschedctl.inputs.cluster import load_cluster

        start = load_cluster(cluster)
    from kschedctl import limits

    replays = [lambda cfg=cfg, side=side: Replayer(recorded, cfg, side.profile, registry=registry, seed=seed,
                                                   extenders=extenders, cluster=start).run()
               for cfg, side in ((cfg_a, side_a), (cfg_b, side_b))]
    with limits.work_budget(paths[0]):  # both sides, and the moves' reruns, count into the run's one budget
        runs = [replay() for replay in replays]
        result = diff_simulations(runs[0].simulation, runs[1].simulation, side_a, side_b, seed=seed)
        if not (extenders and calls_extenders(cfg_a, cfg_b)):
            explain_moves(result, *replays)
    print_warnings(dict.fromkeys([*runs[0].warnings, *runs[1].warnings]), quiet)
    if report:
        from kschedctl.render.report import write_report

        write_report(report, result)
    if output == OutputFormat.table:
        from kschedctl.render.console import output_console
        from kschedctl.render.diff import render_diff

        render_diff(result, output_console(width), wide=wide)
    else:
        from kschedctl.render.output import dump

        sys.stdout.write(dump(result.to_dict(), output.value))
    raise typer.Exit(EXIT_OK if result.identical else EXIT_NO)
