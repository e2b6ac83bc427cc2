"""``kschedctl capacity POD``: how many more copies of a pod fit, and what stops the next one."""

from __future__ import annotations

import sys
from typing import Annotated, Any, Optional

import typer

from kschedctl.cli.app import app, warning as print_warning
from kschedctl.cli.inputs import CommandInputs, command_inputs
from kschedctl.cli.options import OutputFormat, TableOutputOption, resolve_output


_EPILOG = """Example: how many more copies of a pod fit, and what stops the next one?

  $ kschedctl capacity fixtures/pods/pod.yaml --cluster fixtures/cluster --max 500
"""


@app.command(epilog=_EPILOG)
@command_inputs(output=(TableOutputOption, OutputFormat.table), omit=("report",))
def capacity(
    pod: Annotated[Optional[str], typer.Argument(help="A Pod or workload file (YAML/JSON; '-' for stdin); or -f FILE.",
                                                 metavar="POD", show_default=False)] = None,
    inputs: CommandInputs = None,  # type: ignore[assignment]
    max_copies: Annotated[int, typer.Option("--max", min=0, metavar="N", help="Stop after this many copies.")] = 10_000,
    wide: Annotated[bool, typer.Option("--wide", help="List every node that takes a copy.")] = False,
) -> None:
    """Schedule copies of the pod one after another, each assumed for the next, until one does
    not fit; show how many fit, how many per node, and the message of the one that did not.
    Exit 0 when at least one more copy fits, 1 when none does (the stop reason says why), 2 for
    bad input."""
    from kschedctl.errors import EXIT_NO, EXIT_OK, UsageError

    from kschedctl.cli.common import load_pods

    given = inputs.files([pod] if pod else [])
    if len(given) != 1:
        raise UsageError("capacity takes one pod file: give it as POD or with -f FILE")
    pod = given[0]
    quiet = inputs.quiet
    output, wide = resolve_output(inputs.output, wide, "capacity", names=False)
    inputs.what_if()  # a malformed what-if flag fails before anything is read
    registry = inputs.registry()[0]
    cfg = inputs.load_config()
    cluster_state = inputs.apply_what_if(inputs.load_cluster(pod_paths=[pod]), cfg)
    items = load_pods([pod], cluster_state, quiet)
    if len(items) != 1:
        raise UsageError(f"capacity takes one pod: {pod} holds {len(items)} pods or workloads")
    item = items[0]
    cluster_state = item.apply(items.joined(cluster_state))

    from kschedctl.render.simulate import progress_bar
    from kschedctl.scheduler.capacity import capacity as run_capacity

    with progress_bar("placing copies", max_copies, not quiet and max_copies >= 200 and sys.stderr.isatty()
                      and output == OutputFormat.table) as progress:
        result = run_capacity(item.pod, cluster_state, cfg, profile=inputs.profile, seed=inputs.seed,
                              max_copies=max_copies, registry=registry, progress=progress,
                              extenders=not inputs.no_extenders)

    if not quiet:
        for warning in [*(getattr(cluster_state, "warnings", None) or ()), *result.warnings]:
            print_warning(warning)

    def table(console: Any) -> None:
        from kschedctl.render.capacity import render_capacity

        render_capacity(result, console, wide=wide)

    inputs.emit(output, result.to_dict, table)
    # "Does one more fit?" is the question: zero copies is the answer "no".
    raise typer.Exit(EXIT_NO if result.count == 0 and max_copies > 0 else EXIT_OK)
