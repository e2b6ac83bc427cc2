"""``kschedctl explain POD...``: where would these pods land, and why."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from kschedctl.cli.app import app
from kschedctl.cli.inputs import CommandInputs, command_inputs
from kschedctl.cli.options import AllFiltersOption, OutputFormat


_EPILOG = """Example: why is the web Deployment's pod placed where it is, and would a big pod fit at all?

  $ kschedctl explain fixtures/pods/web-deployment.yaml --cluster fixtures/cluster
  $ kschedctl explain fixtures/pods/too-big.yaml --cluster fixtures/cluster -o json
  $ kschedctl explain --pod shop/web-7c9d5f6b8-x2lqp   # a pending pod, live
"""


@app.command(epilog=_EPILOG)
@command_inputs()
def explain(
    pods: Annotated[Optional[list[str]], typer.Argument(
        help="Pod or workload files (YAML/JSON; '-' for stdin); optional with --pod.", metavar="POD")] = None,
    inputs: CommandInputs = None,  # type: ignore[assignment]
    all_filters: AllFiltersOption = False,
    wide: Annotated[bool, typer.Option("--wide", help="Show every node, however many.")] = False,
    node: Annotated[Optional[str], typer.Option("--node", metavar="NAME", help="Show everything about one node.")] = None,
    pod_ref: Annotated[Optional[list[str]], typer.Option(
        "--pod", metavar="NAMESPACE/NAME", help="Explain this pending pod of the cluster as it is "
        "(its spec.schedulerName picks the profile; repeatable).")] = None,
    pending: Annotated[bool, typer.Option(
        "--pending", help="Explain every pending pod of the cluster state (live or --cluster) in the namespace(s) "
                          "of -n / -A, matching -l / --field-selector: one summary line each; --wide or -o json "
                          "add every pod's detail.")] = False,
    namespace: Annotated[Optional[list[str]], typer.Option(
        "--namespace", "-n", metavar="NAME", help="With --pending: this namespace (repeatable; default: default).")]
    = None,
    all_namespaces: Annotated[bool, typer.Option(
        "--all-namespaces", "-A", help="With --pending: every namespace.")] = False,
    selector: Annotated[Optional[str], typer.Option(
        "--selector", "-l", metavar="SELECTOR", help="With --pending: only pods whose labels match (app=web,tier!=db).")]
    = None,
    field_selector: Annotated[Optional[str], typer.Option(
        "--field-selector", metavar="SELECTOR", help="With --pending: only pods whose fields match "
                                                     "(spec.schedulerName=my-scheduler).")] = None,
) -> None:
    """Run each pod through the profile's extension points and show, per node and plugin, the
    filter verdicts, the scores and the chosen node (or why none). Exit 0 when every pod would
    be scheduled, 1 when any would not."""
    # The core is imported here, not at module level, so that `kschedctl --help` stays fast.
    from kschedctl.errors import EXIT_NO, EXIT_OK, UsageError

    from kschedctl.cli.options import resolve_output

    output, wide = resolve_output(inputs.output, wide, "explain")
    pods = inputs.files(pods)
    narrowing = [flag for flag, used in (("-n", namespace), ("-A", all_namespaces), ("-l", selector),
                                         ("--field-selector", field_selector)) if used]
    if narrowing and not pending:
        raise UsageError(f"{', '.join(narrowing)} choose pending pods of the cluster: add --pending")
    if not pods and not pod_ref and not pending:
        raise UsageError("nothing to explain: give POD files (or -f FILE), --pod NAMESPACE/NAME for a pod of the "
                         "cluster, or --pending for every pending pod of a namespace")
    from kschedctl.cli.common import print_warnings

    inputs.what_if()  # a malformed what-if flag fails before anything is read
    registry = inputs.registry()[0]
    cfg = inputs.load_config()
    cluster_state = inputs.apply_what_if(inputs.load_cluster(pod_paths=pods), cfg)
    if node and node not in cluster_state.node_by_name:
        raise UsageError(f"--node {node}: no node of that name in the cluster state "
                         f"({len(cluster_state.node_by_name)} nodes)")
    to_explain = _pods_to_explain(cluster_state, pods, pod_ref, inputs.quiet, pending and (
        namespace, all_namespaces, selector, field_selector))

    from kschedctl import api
    from kschedctl.scheduler.outcome import Outcome
    from kschedctl.scheduler.result import ExplainResultList

    # --node asks about one node: its hints are computed even when the pod fits elsewhere,
    # so that the JSON carries what the table shows.
    results = api.explain(to_explain, cluster=cluster_state, config=cfg, seed=inputs.seed, profile=inputs.profile,
                          all_filters=all_filters, hint_nodes=[node] if node else (), registry=registry,
                          extenders=not inputs.no_extenders)
    cluster_state = to_explain.joined(cluster_state)

    from kschedctl.cli.common import one_replica_notes

    print_warnings([*cluster_state.warnings, *to_explain.warnings, *one_replica_notes(to_explain, "explain")],
                   inputs.quiet)
    if output == OutputFormat.name:
        inputs.write_report(results)
        typer.echo("".join(f"pod/{r.pod.split('/', 1)[-1]}\n" for r in results), nl=False)
    else:
        def table(console: Any) -> None:
            from kschedctl.render.explain import render_explain, render_pending_summary

            if pending:
                render_pending_summary(results, console)
            if not pending or wide:
                render_explain(results, console, wide=wide, node=node)

        inputs.emit(output, lambda: results[0].to_dict() if len(results) == 1 else
                    ExplainResultList(results).to_dict(), table, report=results)
    # typer drops a command's return value: the exit code travels in typer.Exit.
    raise typer.Exit(EXIT_OK if all(r.outcome == Outcome.SCHEDULED for r in results) else EXIT_NO)


def _pods_to_explain(cluster_state: Any, pods: list[str], pod_ref: Optional[list[str]], quiet: bool,
                     pending: Any) -> Any:
    """The pods of the files, of ``--pod`` and, with ``pending`` (the namespaces, -A and the
    selectors of ``--pending``), the cluster's pending pods (the cluster state with the objects
    the files bring along: ``joined``). No pending pod at all is an answer (exit 0), no pod else
    a usage error."""
    from kschedctl.cli.common import load_pods
    from kschedctl.cli.live import pending_pods, pods_of_cluster
    from kschedctl.errors import EXIT_OK, UsageError

    to_explain = load_pods(pods, cluster_state, quiet) if pods else pods_of_cluster(cluster_state, [])
    joined = to_explain.joined(cluster_state)
    to_explain.extend(pods_of_cluster(joined, pod_ref or []))
    if pending:
        namespace, all_namespaces, selector, field_selector = pending
        to_explain.extend(pending_pods(joined, namespace or (), all_namespaces, selector, field_selector))
        if not to_explain:
            where = "any namespace" if all_namespaces else "namespace " + ", ".join(namespace or ["default"])
            typer.echo(f"no pending pod in {where}" + (" matching the selectors" if selector or field_selector
                                                          else ""), err=True)
            raise typer.Exit(EXIT_OK)
    if not to_explain:
        raise UsageError("no pod to explain in " + ", ".join(pods or ()))
    return to_explain
