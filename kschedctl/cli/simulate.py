"""``kschedctl simulate PODS...``: schedule a batch of pods one after another and show the outcome."""

from __future__ import annotations

import sys
from typing import Annotated, Any, Optional

import typer

from kschedctl.cli.app import app
from kschedctl.cli.inputs import CommandInputs, command_inputs
from kschedctl.cli.options import OutputFormat, TableOutputOption, TieBreak, TieBreakOption


_EPILOG = """Example: will the 3 web replicas fit, and where, under the bin-packing profile?

  $ kschedctl simulate fixtures/pods/web-deployment.yaml --cluster fixtures/cluster -c profiles/bin-packing.yaml
  $ kschedctl simulate fixtures/pods/web-deployment.yaml --cluster fixtures/cluster -o json   # SimulationResult
  $ kschedctl simulate --cluster fixtures/cluster --steps fixtures/steps/drain-node-a1.yaml   # step by step
  $ kschedctl simulate --cluster fixtures/cluster --drain node-a1   # can I drain node-a1? (exit 0: yes)
"""


@app.command(epilog=_EPILOG)
@command_inputs(output=(TableOutputOption, OutputFormat.table))
def simulate(
    pods: Annotated[Optional[list[str]], typer.Argument(
        help="Pod or workload files (YAML/JSON; '-' for stdin). Workloads are expanded to their replicas.",
        metavar="PODS...")] = None,
    inputs: CommandInputs = None,  # type: ignore[assignment]
    tie_break: TieBreakOption = TieBreak.random,
    wide: Annotated[bool, typer.Option("--wide", help="List every pod and every node, however many.")] = False,
    cluster_pending: Annotated[bool, typer.Option(
        "--cluster-pending/--no-cluster-pending",
        help="Also schedule the pending pods of the cluster state (default: yes).")] = True,
    steps_file: Annotated[Optional[str], typer.Option(
        "--steps", metavar="FILE",
        help="A steps file (kind: Steps): after scheduling the pods, apply each step on a virtual clock "
             "(drain, notReady, advance 5m, ...) and schedule what is pending after it.")] = None,
    max_attempts: Annotated[int, typer.Option(
        "--max-attempts", min=1, metavar="N", help="How often one pod is tried at most (retries follow cluster events).")] = 10,
    allow_outside_paths: Annotated[bool, typer.Option(
        "--allow-outside-paths", help="Let a --steps file's create steps name files outside the git repository "
                                      "holding it (they are refused by default, as kschedctl test refuses them).")] = False,
) -> None:
    """Schedule every pending pod one after another in queue-sort order, each placement assumed
    for the next, preempting as DefaultPreemption decides; show placements, unschedulable pods,
    preemptions and node usage after the run. Exit 0 when every pod is scheduled (and every
    --drain complete: each evictable pod evicted, each replacement placed), 1 otherwise."""
    from kschedctl.errors import EXIT_NO, EXIT_OK, UsageError

    from kschedctl.cli.common import expand_for_simulation, print_warnings
    from kschedctl.cli.options import resolve_output

    output, wide = resolve_output(inputs.output, wide, "simulate", names=False)
    quiet = inputs.quiet
    files = inputs.files(pods)
    inputs.what_if()  # a malformed what-if flag fails before anything is read
    steps = None
    if steps_file is not None:
        from kschedctl.scenarios.steps import read_steps_file

        steps = read_steps_file(steps_file)  # a bad step fails before anything else is read
    registry = inputs.registry()[0]
    cfg = inputs.load_config()
    cluster_state = inputs.apply_what_if(inputs.load_cluster(pod_paths=files), cfg)
    batch, cluster_state, warnings = expand_for_simulation(files, cluster_state, quiet)
    if steps is not None:
        if inputs.report or not cluster_pending:
            raise UsageError(f"--steps does not take {'--report' if inputs.report else '--no-cluster-pending'}: "
                             "every step schedules all pending pods")
        from kschedctl.scenarios.steps import confined_file_items

        _run_steps(inputs, steps, batch, cluster_state, cfg, registry, output, warnings,
                   tie_break == TieBreak.first, max_attempts, confined_file_items(steps_file, allow_outside_paths))
    # A what-if is a question on its own: "can I drain node-a1?" needs no pod file.
    asks_what_if = bool(inputs.what_if_report)
    if not batch and not cluster_pending and not asks_what_if:
        raise UsageError("no pod to simulate: give pod or workload files")

    from kschedctl import api
    from kschedctl.inputs.cluster import waits_for_scheduler

    from kschedctl.render.report.simulate import drill_pods

    total = len(batch) + (sum(map(waits_for_scheduler, cluster_state.pods)) if cluster_pending else 0)
    if total == 0 and not asks_what_if:
        raise UsageError("no pod to simulate: the files hold none and the cluster state has no pending pod")
    from kschedctl.render.simulate import progress_bar

    show_progress = not quiet and total >= 200 and sys.stderr.isatty() and output == OutputFormat.table
    with progress_bar("scheduling", total, show_progress) as progress:
        # The report opens each placement's cycle: those cycles keep every node's verdicts and scores.
        result = api.simulate(batch, cluster=cluster_state, config=cfg, seed=inputs.seed, profile=inputs.profile,
                              include_cluster_pending=cluster_pending, max_attempts=max_attempts,
                              tie_break_first=tie_break == TieBreak.first, progress=progress,
                              decisions=drill_pods(len(cluster_state.nodes)) if inputs.report else 0,
                              registry=registry, extenders=not inputs.no_extenders)
    result.warnings[:0] = warnings

    # The table shows the run's warnings (skipped or failing extenders, ...) itself; JSON/YAML
    # keep stdout to the SimulationResult, so they go to stderr, as capacity's do.
    shown_in_output = output == OutputFormat.table
    print_warnings([*cluster_state.warnings, *(() if shown_in_output else result.warnings)], quiet)

    def table(console: Any) -> None:
        from kschedctl.render.simulate import render_simulation

        render_simulation(result, console, wide=wide)

    inputs.emit(output, result.to_dict, table, report=result)
    # kubectl drain fails on a refused eviction or an unmanaged pod; a replacement left pending
    # is a "no" too: the drain would leave the workload short.
    complete = not inputs.what_if_report or inputs.what_if_report.complete
    raise typer.Exit(EXIT_OK if result.all_scheduled and complete else EXIT_NO)


def _run_steps(inputs: CommandInputs, steps: list, batch: list, cluster_state: object, cfg: object,
               registry: object, output: OutputFormat, warnings: list, tie_break_first: bool,
               max_attempts: int, items_of: Any) -> None:
    """``simulate --steps``: the pods scheduled, then each step; exit 0 when every check of the
    steps passed (without checks: when nothing is left pending), 1 otherwise."""
    from kschedctl.cli.common import print_warnings
    from kschedctl.errors import EXIT_NO, EXIT_OK
    from kschedctl.scenarios.steps import run_steps
    from kschedctl.analyses.steps import SteppedCluster

    stepped = SteppedCluster(cluster_state, cfg, registry=registry, seed=inputs.seed, profile=inputs.profile,
                             extenders=not inputs.no_extenders)
    stepped.tie_break_first, stepped.max_attempts = tie_break_first, max_attempts
    from kschedctl import limits

    with limits.work_budget(steps[0].file if steps else None):
        run = run_steps(stepped, steps, items_of, pods=batch)
    print_warnings([*getattr(cluster_state, "warnings", []), *warnings], inputs.quiet)
    if output == OutputFormat.table:
        from kschedctl.render.console import output_console
        from kschedctl.render.steps import render_steps

        console = output_console(inputs.width)
        inputs.render_what_if(console)
        render_steps(run, console)
    else:
        from kschedctl.render.output import dump

        sys.stdout.write(dump(inputs.with_what_if(run.to_dict()), output.value))
    raise typer.Exit(EXIT_OK if run.passed else EXIT_NO)
