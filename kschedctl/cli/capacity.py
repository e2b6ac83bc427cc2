"""``kschedctl capacity POD``: how many more copies of a pod fit, and what stops the next one."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from kschedctl.cli.app import app, warning as print_warning
from kschedctl.cli.common import checks_fields
from kschedctl.cli.options import (
    ClusterOption,
    ConfigOption,
    ContextOption,
    FilenameOption,
    KubeconfigOption,
    MetricsOption,
    NoExtendersOption,
    OutputFormat,
    TableOutputOption,
    PluginOption,
    ProfileOption,
    QuietOption,
    RequestTimeoutOption,
    SeedOption,
    ValidateOption,
    WidthOption,
    resolve_output,
)


_EPILOG = """Example: how many more copies of a pod fit, and what stops the next one?

  $ kschedctl capacity fixtures/pods/pod.yaml --cluster fixtures/cluster --max 500
"""


@app.command(epilog=_EPILOG)
@checks_fields
def capacity(
    pod: Annotated[Optional[str], typer.Argument(help="A Pod or workload file (YAML/JSON; '-' for stdin); or -f FILE.",
                                                 metavar="POD", show_default=False)] = None,
    config: ConfigOption = None,
    cluster: ClusterOption = None,
    kubeconfig: KubeconfigOption = None,
    context: ContextOption = None,
    profile: ProfileOption = None,
    output: TableOutputOption = OutputFormat.table,
    seed: SeedOption = None,
    plugin: PluginOption = None,
    max_copies: Annotated[Optional[int], typer.Option("--max", min=0, metavar="N", show_default=False,
                                                      help="Stop after this many copies (default: the true count).")
                          ] = None,
    wide: Annotated[bool, typer.Option("--wide", help="List every node that takes a copy.")] = False,
    no_extenders: NoExtendersOption = False,
    quiet: QuietOption = False,
    width: WidthOption = None,
    filename: FilenameOption = None,
    request_timeout: RequestTimeoutOption = None,
    metrics: MetricsOption = None,
    validate: ValidateOption = "strict",
) -> None:
    """Schedule copies of the pod one after another, each assumed for the next, until one does
    not fit; show how many fit, how many per node, and the message of the one that did not.
    Exit 0 when at least one more copy fits, 1 when none does (the stop reason says why), 2 for
    bad input."""
    from kschedctl.errors import EXIT_NO, EXIT_OK, UsageError

    from kschedctl.cli.common import load_cluster, load_config, load_pods, registry_with_plugins

    given = [*([pod] if pod else []), *(filename or ())]
    if len(given) != 1:
        raise UsageError("capacity takes one pod file: give it as POD or with -f FILE")
    pod = given[0]
    output, wide = resolve_output(output, wide, "capacity", names=False)
    registry, extra = registry_with_plugins(plugin or [])
    cfg = load_config(config, extra, quiet)
    cluster_state = load_cluster(cluster, kubeconfig, context, quiet, pod_paths=[pod],
                                 request_timeout=request_timeout, metrics=metrics)
    items = load_pods([pod], cluster_state, quiet)
    if len(items) != 1:
        raise UsageError(f"capacity takes one pod: {pod} holds {len(items)} pods or workloads")
    item = items[0]
    cluster_state = item.apply(items.joined(cluster_state))

    from kschedctl.render.simulate import progress_bar
    from kschedctl.scheduler.capacity import capacity as run_capacity

    with progress_bar("placing copies", max_copies, not quiet and (max_copies is None or max_copies >= 200)
                      and sys.stderr.isatty() and output == OutputFormat.table) as progress:
        result = run_capacity(item.pod, cluster_state, cfg, profile=profile, seed=seed, max_copies=max_copies,
                              registry=registry, progress=progress, extenders=not no_extenders)

    if not quiet:
        for warning in [*(getattr(cluster_state, "warnings", None) or ()), *result.warnings]:
            print_warning(warning)
    if output == OutputFormat.table:
        from kschedctl.render.console import output_console

        from kschedctl.render.capacity import render_capacity

        render_capacity(result, output_console(width), wide=wide)
    else:
        from kschedctl.render.output import dump

        sys.stdout.write(dump(result.to_dict(), output.value))
    # "Does one more fit?" is the question: zero copies is the answer "no".
    raise typer.Exit(EXIT_NO if result.count == 0 and max_copies != 0 else EXIT_OK)
