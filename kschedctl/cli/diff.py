"""``kschedctl diff PODS...``: the same pods on the same cluster under two profiles (A/B)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from kschedctl.cli.app import app
from kschedctl.cli.inputs import CommandInputs, command_inputs
from kschedctl.cli.options import AllFiltersOption, OutputFormat, TableOutputOption, resolve_output

_EPILOG = """\
Examples

\b
  kschedctl diff -c current.yaml -c proposed.yaml --cluster cluster/ pods/      # pod by pod
  kschedctl diff -c two-profiles.yaml --profile default-scheduler --profile bin-packing --cluster cluster/ pod.yaml
  kschedctl diff -c a.yaml -c b.yaml --cluster cluster/ --simulate deploy.yaml  # a whole batch
  kschedctl diff -c a.yaml -c b.yaml trace.jsonl                                # a recorded trace, replayed
"""


_CONFIGS = (Annotated[Optional[list[Path]], typer.Option(
    "--config", "-c", dir_okay=False, metavar="FILE",
    help="KubeSchedulerConfiguration of A, then of B (twice); once (or not at all: the built-in default) "
         "with two --profile.")], None)
_PROFILES = (Annotated[Optional[list[str]], typer.Option(
    "--profile", metavar="NAME", help="Scheduler name of the profile of A, then of B (twice, to compare two profiles); once: "
                      "that profile on both sides (default: the pod's spec.schedulerName).")], None)
_SEED = (Annotated[int, typer.Option("--seed", metavar="N", help="Seed of the random tie-break, the same on both sides.")],
         0)
_NO_EXTENDERS = (Annotated[bool, typer.Option("--no-extenders", help="Do not call the configurations' extenders.")],
                 False)


@app.command(epilog=_EPILOG)
@command_inputs(config=_CONFIGS, profile=_PROFILES, output=(TableOutputOption, OutputFormat.table), seed=_SEED,
                no_extenders=_NO_EXTENDERS)
def diff(
    pods: Annotated[Optional[list[str]], typer.Argument(
        help="Pod or workload files (YAML/JSON; '-' for stdin).", metavar="PODS...")] = None,
    inputs: CommandInputs = None,  # type: ignore[assignment]
    all_filters: AllFiltersOption = False,
    simulate: Annotated[bool, typer.Option(
        "--simulate", help="Schedule the pods as one batch (as kschedctl simulate does) under each side and "
                           "compare the runs: placements, first divergence, unschedulable pods, spread.")] = False,
    cluster_pending: Annotated[bool, typer.Option(
        "--cluster-pending/--no-cluster-pending",
        help="With --simulate: also schedule the pending pods of the cluster state (default: yes).")] = True,
    max_attempts: Annotated[int, typer.Option(
        "--max-attempts", min=1, metavar="N", help="With --simulate: how often one pod is tried at most.")] = 10,
    wide: Annotated[bool, typer.Option("--wide", help="List every pod and node, however many.")] = False,
) -> None:
    """Compare where pods land under two configurations or two profiles (A/B).

    Runs the same pods on the same cluster under both and shows, per pod, its node under A and
    under B and, for pods that move, the per-plugin score differences that decided it. Exit 0 when
    every placement is the same, 1 when any differs, 2 on bad input. Node what-ifs change the
    cluster both sides see; a drain's evicted pods are placed under A's configuration."""
    from kschedctl.errors import EXIT_NO, EXIT_OK, UsageError

    side_a, side_b = _sides(inputs)
    pods = inputs.files(pods)
    if not pods and not (simulate and cluster_pending):
        raise UsageError("nothing to compare: give POD files")

    from kschedctl.cli.common import expand_for_simulation, load_pods, print_warnings

    quiet, seed, extenders = inputs.quiet, inputs.seed, not inputs.no_extenders
    output, wide = resolve_output(inputs.output, wide, "diff", names=False)
    inputs.what_if()  # a malformed what-if flag fails before anything is read
    registry = inputs.registry()[0]
    cfg_a = inputs.load_config(side_a.config)
    cfg_b = cfg_a if side_b.config == side_a.config else inputs.load_config(side_b.config)
    from kschedctl.inputs.trace import is_trace_path

    if any(is_trace_path(p) for p in pods):  # a recorded trace: replayed under A and under B
        if inputs.what_if():
            raise UsageError("node what-ifs do not apply to a trace: its node changes are replayed as recorded")
        from kschedctl.cli.replay import diff_trace

        diff_trace(pods, inputs.cluster, cfg_a, cfg_b, side_a, side_b, registry, seed, extenders, output, wide,
                   inputs.width, quiet, inputs.report)
    cluster_state = inputs.apply_what_if(inputs.load_cluster(pod_paths=pods), cfg_a)
    warnings: list[str] = list(getattr(cluster_state, "warnings", None) or ())

    if simulate:
        from kschedctl.analyses.diff import diff_simulate

        batch, cluster_state, more = expand_for_simulation(pods or [], cluster_state, quiet)
        warnings += more
        from kschedctl.render.progress import progress_wanted, working

        show = len(batch) >= 200 and output == OutputFormat.table and progress_wanted(quiet)
        with working(f"simulating {len(batch)} pods under A and under B", show):
            result = diff_simulate(batch, cluster_state, cfg_a, cfg_b, side_a, side_b, registry=registry, seed=seed,
                                   include_cluster_pending=cluster_pending, max_attempts=max_attempts,
                                   extenders=extenders)
        if not result.pods:
            raise UsageError("no pod to compare: the files hold none and the cluster state has no pending pod")
    else:
        from kschedctl.analyses.diff import diff_pods

        items = load_pods(pods or [], cluster_state, quiet)
        cluster_state = items.joined(cluster_state)
        warnings += list(getattr(items, "warnings", []) or [])
        from kschedctl.cli.common import one_replica_notes

        warnings += one_replica_notes(items, "diff")
        if not items:
            raise UsageError("no pod to compare in " + ", ".join(pods or ()))
        result = diff_pods(items, cluster_state, cfg_a, cfg_b, side_a, side_b, registry=registry, seed=seed,
                           all_filters=all_filters, extenders=extenders)

    print_warnings(warnings, quiet)

    def table(console: Any) -> None:
        from kschedctl.render.diff import render_diff

        render_diff(result, console, wide=wide)

    inputs.emit(output, result.to_dict, table, report=result)
    raise typer.Exit(EXIT_OK if result.identical else EXIT_NO)


def _sides(inputs: CommandInputs) -> tuple[Any, Any]:
    """A and B: two configurations, or two profiles of one (the built-in default without -c)."""
    from kschedctl.errors import UsageError
    from kschedctl.analyses.diff import Side

    configs = [str(c) for c in inputs.config or []]
    profiles = list(inputs.profile or [])
    if len(configs) > 2 or len(profiles) > 2:
        raise UsageError("diff compares two sides: give --config at most twice and --profile at most twice")
    if len(configs) < 2 and len(profiles) < 2:
        raise UsageError("diff needs two sides: --config A.yaml --config B.yaml, or one configuration with "
                         "--profile X --profile Y")
    path_a = configs[0] if configs else None
    path_b = configs[1] if len(configs) == 2 else path_a
    prof_a = profiles[0] if profiles else None
    prof_b = profiles[1] if len(profiles) == 2 else prof_a
    return Side("A", path_a, prof_a), Side("B", path_b, prof_b)
