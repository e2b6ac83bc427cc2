"""``kschedctl simulate PODS...``: schedule a batch of pods one after another and show the outcome."""

from __future__ import annotations

import sys
from typing import Annotated, Any, Optional

import typer

from kschedctl.cli.app import app
from kschedctl.cli.options import (
    ClusterOption,
    ConfigOption,
    ContextOption,
    KubeconfigOption,
    OutputFormat,
    OutputOption,
    PluginOption,
    ProfileOption,
    QuietOption,
    SeedOption,
)


_EPILOG = """Example: will the 3 web replicas fit, and where, under the bin-packing profile?

  $ kschedctl simulate fixtures/pods/web-deployment.yaml -f fixtures/cluster -c profiles/bin-packing.yaml
  $ kschedctl simulate fixtures/pods/web-deployment.yaml -f fixtures/cluster -o json   # SimulationResult
"""


@app.command(epilog=_EPILOG)
def simulate(
    pods: Annotated[Optional[list[str]], typer.Argument(
        help="Pod or workload files (YAML/JSON; '-' for stdin). Workloads are expanded to their replicas.",
        metavar="PODS...")] = None,
    config: ConfigOption = None,
    cluster: ClusterOption = None,
    kubeconfig: KubeconfigOption = None,
    context: ContextOption = None,
    profile: ProfileOption = None,
    output: OutputOption = OutputFormat.table,
    seed: SeedOption = None,
    plugin: PluginOption = None,
    wide: Annotated[bool, typer.Option("--wide", help="List every pod and every node, however many.")] = False,
    cluster_pending: Annotated[bool, typer.Option(
        "--cluster-pending/--no-cluster-pending",
        help="Also schedule the pending pods of the cluster state (default: yes).")] = True,
    max_attempts: Annotated[int, typer.Option(
        "--max-attempts", min=1, help="How often one pod is tried at most (retries follow cluster events).")] = 10,
    quiet: QuietOption = False,
) -> None:
    """Schedule every pending pod one after another in queue-sort order, each placement assumed
    for the next, preempting as DefaultPreemption decides; show placements, unschedulable pods,
    preemptions and node usage after the run. Exit 0 when every pod is scheduled, 1 otherwise."""
    from kschedctl.errors import EXIT_NO, EXIT_OK, UsageError

    if not cluster:
        raise UsageError(
            "reading a live cluster is not available yet: give the cluster state with "
            "--cluster FILE|DIR (YAML/JSON, e.g. the output of `kubectl get nodes,pods -A -o yaml`)"
        )
    from kschedctl.cli.explain import _load_cluster, _load_config, _registry_with_plugins

    registry, extra = _registry_with_plugins(plugin or [])
    cfg = _load_config(config, extra)
    cluster_state = _load_cluster(cluster)
    batch, cluster_state, warnings = _expand(pods or [], cluster_state)
    if not batch and not cluster_pending:
        raise UsageError("no pod to simulate: give pod or workload files")

    from kschedctl.scheduler.simulate import Simulator

    sim = Simulator(cluster_state, cfg, registry=registry, seed=seed, max_attempts=max_attempts)
    total = len(batch) + (len(sim.pending_cluster_pods()) if cluster_pending else 0)
    if total == 0:
        raise UsageError("no pod to simulate: the files hold none and the cluster state has no pending pod")
    from kschedctl.render.simulate import progress_bar

    show_progress = not quiet and total >= 200 and sys.stderr.isatty()
    with progress_bar("scheduling", total, show_progress) as progress:
        result = sim.run(batch, profile, include_cluster_pending=cluster_pending, progress=progress)
    result.warnings[:0] = warnings

    if not quiet:
        for warning in getattr(cluster_state, "warnings", None) or ():
            typer.echo(f"warning: {warning}", err=True)
    if output == OutputFormat.table:
        from rich.console import Console

        from kschedctl.render.simulate import render_simulation

        render_simulation(result, Console(), wide=wide)
    else:
        from kschedctl.render.output import dump

        sys.stdout.write(dump(result.to_dict(), output.value))
    raise typer.Exit(EXIT_OK if result.all_scheduled else EXIT_NO)


def _expand(paths: list[str], cluster_state: Any) -> tuple[list[dict], Any, list[str]]:
    """The pods of the files, workloads expanded to their replicas; their owners and objects
    join the cluster state."""
    if not paths:
        return [], cluster_state, []
    from kschedctl.inputs.loader import load_documents
    from kschedctl.inputs.workloads import pods_from_documents
    from kschedctl.scheduler.simulate import expand_replicas

    docs = load_documents(paths, stdin=sys.stdin if "-" in paths else None)
    items = list(pods_from_documents(docs, cluster_state)) if docs else []
    warnings = list(getattr(items, "warnings", []) or [])
    batch: list[dict] = []
    extra: list[dict] = []
    nodes = list(getattr(cluster_state, "nodes", ()))
    for item in items:
        pods, objects = expand_replicas(item, nodes)
        batch.extend(pods)
        extra.extend(list(getattr(item, "owners", None) or ()) + objects)
    if extra and hasattr(cluster_state, "with_objects"):
        cluster_state = cluster_state.with_objects(extra)
    return batch, cluster_state, warnings
