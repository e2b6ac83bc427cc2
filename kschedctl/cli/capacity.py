"""``kschedctl capacity POD...``: how many more copies of a pod (or sets of several pods) fit, and
what stops the next one; with ``--nodes-needed``, how many nodes like ``--like NODE`` to add so that
every pod of the workloads is scheduled."""

from __future__ import annotations

import sys
from typing import Annotated, Any, Optional

import typer

from kschedctl.cli.app import app, warning as print_warning
from kschedctl.cli.inputs import CommandInputs, command_inputs
from kschedctl.cli.options import OutputFormat, TableOutputOption, TieBreak, TieBreakOption, resolve_output
from kschedctl.cli.removable import NodesOption, RemovableOption, UtilizationBelowOption, skip_option


_EPILOG = """Example: how many more copies of a pod fit, and what stops the next one?

  $ kschedctl capacity fixtures/pods/pod.yaml --cluster fixtures/cluster --max 500

  How many sets of 3 web pods and 1 cache pod fit?

  $ kschedctl capacity fixtures/pods/web-deployment.yaml fixtures/pods/pod.yaml --cluster fixtures/cluster --ratio 3:1

  How many nodes like node-a1 must be added to run every replica?

  $ kschedctl capacity fixtures/pods/workers-deployment.yaml --cluster fixtures/cluster --like node-a1 --nodes-needed

  Which nodes can go (a scale-down, checked by the scheduler)?

  $ kschedctl capacity --cluster fixtures/cluster --removable
"""

#: capacity's own ``--like``: repeatable, to compare node shapes with ``--nodes-needed``.
CapacityLikeOption = Annotated[Optional[list[str]], typer.Option(
    "--like", metavar="NODE", help="With --add-nodes: the node the new ones copy. With --nodes-needed: the node "
                                   "whose copies are counted (repeatable: shapes side by side).")]


@app.command(epilog=_EPILOG)
@command_inputs(output=(TableOutputOption, OutputFormat.table), like=(CapacityLikeOption, None))
def capacity(
    pods: Annotated[Optional[list[str]], typer.Argument(
        help="A Pod or workload file (YAML/JSON; '-' for stdin); or -f FILE. Several files: whole sets of their pods "
             "(see --ratio).", metavar="POD...", show_default=False)] = None,
    inputs: CommandInputs = None,  # type: ignore[assignment]
    max_copies: Annotated[Optional[int], typer.Option("--max", min=0, metavar="N", show_default=False,
                                                      help="Stop after this many copies (default: the true count); with --removable, "
                                                           "after this many nodes removed.")
                          ] = None,
    ratio: Annotated[Optional[str], typer.Option(
        "--ratio", metavar="A:B...", show_default=False,
        help="With several files: how many pods of each file make one set (default: each workload's replicas, "
             "1 for a Pod). --max then counts sets.")] = None,
    tie_break: TieBreakOption = TieBreak.random,
    wide: Annotated[bool, typer.Option("--wide", help="List every node that takes a copy.")] = False,
    nodes_needed: Annotated[bool, typer.Option(
        "--nodes-needed", help="How many nodes like --like NODE to add so that every pod of the files (each "
                               "workload's replicas) is scheduled: full simulate runs, the fewest found and "
                               "why one fewer leaves a pod pending.")] = False,

    removable: RemovableOption = False,
    utilization_below: UtilizationBelowOption = 0.5,
    nodes: NodesOption = None,
    skip_system: skip_option("--skip-nodes-with-system-pods") = None,  # type: ignore[valid-type]
    skip_local_storage: skip_option("--skip-nodes-with-local-storage") = None,  # type: ignore[valid-type]
    skip_custom: skip_option("--skip-nodes-with-custom-controller-pods") = None,  # type: ignore[valid-type]
    skip_unreplicated: skip_option("--skip-nodes-with-unreplicated-pods") = None,  # type: ignore[valid-type]
    skip_not_safe: skip_option("--skip-nodes-with-not-safe-to-evict-pods") = None,  # type: ignore[valid-type]
    skip_pdb: skip_option("--skip-nodes-with-pdb-blocked-pods") = None,  # type: ignore[valid-type]
) -> None:
    """Schedule copies of the pod one after another, each assumed for the next, until one does
    not fit; show how many fit, how many per node, and the message of the one that did not.
    With several files, whole sets of their pods (--ratio 3:1: three of the first, one of the
    second, in an interleaved order) are placed until a pod of the next set does not fit.
    Exit 0 when at least one more copy (or set) fits, 1 when none does (the stop reason says
    why), 2 for bad input. With a node what-if (--add-nodes, --drain, ...) the count is shown
    against the cluster as it is. With --nodes-needed: exit 0 when a number of nodes was found
    for every --like, 1 when none up to the limit schedules every pod."""
    from kschedctl.errors import EXIT_NO, EXIT_OK, UsageError

    from kschedctl.cli.common import load_pods

    given = inputs.files(list(pods or ()))
    skips = {"--skip-nodes-with-system-pods": skip_system, "--skip-nodes-with-local-storage": skip_local_storage,
             "--skip-nodes-with-custom-controller-pods": skip_custom,
             "--skip-nodes-with-unreplicated-pods": skip_unreplicated,
             "--skip-nodes-with-not-safe-to-evict-pods": skip_not_safe, "--skip-nodes-with-pdb-blocked-pods": skip_pdb}
    if removable:
        if given:
            raise UsageError("capacity --removable takes no pod file: it asks which nodes the running pods can leave")
        from kschedctl.cli.removable import run_removable

        output, wide = resolve_output(inputs.output, wide, "capacity", names=False)
        show = not inputs.quiet and sys.stderr.isatty() and output == OutputFormat.table
        raise typer.Exit(run_removable(inputs, output, wide, utilization_below, nodes, skips, show, max_copies))
    given_flags = [flag for flag, value in skips.items() if value is not None]
    if nodes is not None or utilization_below != 0.5 or given_flags:
        raise UsageError(f"{(given_flags or ['--nodes' if nodes is not None else '--utilization-below'])[0]} "
                         "goes with --removable")
    if not given:
        raise UsageError("capacity takes a pod file: give it as POD or with -f FILE")
    likes = list(inputs.like or ())
    if nodes_needed:
        _nodes_needed(inputs, given, likes, ratio, max_copies, wide)
        return
    if len(likes) > 1:
        raise UsageError("--add-nodes takes one --like NODE (several compare node shapes with --nodes-needed)")
    inputs.options["like"] = likes[0] if likes else None
    if ratio is not None and len(given) < 2:
        raise UsageError("--ratio needs two or more pod files (one number per file)")
    quiet = inputs.quiet
    output, wide = resolve_output(inputs.output, wide, "capacity", names=False)
    inputs.what_if()  # a malformed what-if flag fails before anything is read
    registry = inputs.registry()[0]
    cfg = inputs.load_config()
    as_it_is = inputs.load_cluster(pod_paths=given)
    cluster_state = inputs.apply_what_if(as_it_is, cfg)
    items = load_pods(given, cluster_state, quiet)
    if len(items) != len(given):
        raise UsageError(f"capacity takes one pod or workload per file: {', '.join(given)} hold {len(items)}")

    from kschedctl import api
    from kschedctl.render.simulate import progress_bar

    def count(state: Any, progress: Any) -> Any:
        return api.capacity(items, cluster=state, config=cfg, seed=inputs.seed, profile=inputs.profile,
                            max_copies=max_copies, ratio=ratio, tie_break_first=tie_break == TieBreak.first,
                            progress=progress, registry=registry, extenders=not inputs.no_extenders)

    show_progress = (not quiet and (max_copies is None or max_copies >= 200) and sys.stderr.isatty()
                     and output == OutputFormat.table)
    with progress_bar("placing copies" if len(items) == 1 else "placing sets", max_copies, show_progress) as progress:
        result = count(cluster_state, progress)
    if inputs.what_if_report:
        # The what-if's answer means most beside the cluster's own: "+117 over today's 169".
        result.baseline = count(as_it_is, None).count

    if not quiet:
        # the cluster state the copies were counted in: with what the files bring along
        for warning in [*(getattr(items.joined(cluster_state), "warnings", None) or ()), *result.warnings]:
            print_warning(warning)

    def table(console: Any) -> None:
        from kschedctl.render.capacity import render_capacity

        render_capacity(result, console, wide=wide)

    inputs.emit(output, result.to_dict, table, report=result)
    # "Does one more fit?" is the question: zero copies is the answer "no".
    raise typer.Exit(EXIT_NO if result.count == 0 and max_copies != 0 else EXIT_OK)


def _nodes_needed(inputs: CommandInputs, given: list[str], likes: list[str], ratio: Optional[str],
                  max_copies: Optional[int], wide: bool) -> None:
    """``--nodes-needed``: the fewest nodes like each ``--like`` that schedule every pod of the files."""
    from kschedctl.errors import EXIT_NO, EXIT_OK, InputError, UsageError

    from kschedctl.cli.common import expand_for_simulation, print_warnings
    from kschedctl.cluster.edits import NodeTarget, parse_label, parse_taint

    if inputs.add_nodes is not None:
        raise UsageError("--nodes-needed finds the number of nodes to add: give --like NODE without --add-nodes")
    if not likes:
        raise UsageError("--nodes-needed needs --like NODE: the node whose copies are added (repeatable)")
    if ratio is not None or max_copies is not None:
        flag = "--ratio" if ratio is not None else "--max"
        raise UsageError(f"{flag} counts copies; --nodes-needed places every pod of the files once")
    if len(set(likes)) != len(likes):
        raise UsageError("--like names the same node twice")
    labels: list[tuple[str, str]] = []
    for text in inputs.set_label or ():
        try:
            key, value = parse_label(text)
        except InputError as exc:
            raise UsageError(f"--set-label {text}: {exc.message.removeprefix(f'label {text!r}: ')}") from None
        if value is None:
            raise UsageError("--set-label takes KEY=VALUE (new nodes have no label to remove)")
        labels.append((key, value))
    taints = tuple(inputs.taint or ())
    for text in taints:
        try:
            parse_taint(text)
        except InputError as exc:
            raise UsageError(f"--taint {text}: {exc.message.removeprefix(f'taint {text!r}: ')}") from None
    # the other node what-ifs (--drain, --cordon, ...) shape the cluster the search starts from
    inputs.options.update(like=None, set_label=None, taint=None)
    quiet = inputs.quiet
    output, wide = resolve_output(inputs.output, wide, "capacity", names=False)
    inputs.what_if()
    registry = inputs.registry()[0]
    cfg = inputs.load_config()
    cluster_state = inputs.apply_what_if(inputs.load_cluster(pod_paths=given), cfg)
    batch, cluster_state, warnings = expand_for_simulation(given, cluster_state, quiet)
    print_warnings(warnings, quiet)
    if not batch:
        raise UsageError(f"no pod to place: {', '.join(given)} hold no pod (a workload of 0 replicas?)")
    for like in likes:
        try:
            NodeTarget.parse(like, selector=False).nodes(cluster_state)
        except InputError as exc:
            raise UsageError(f"--like {like}: {exc.message.removeprefix(f'{like}: ')}") from None

    from kschedctl.analyses.nodes_needed import nodes_needed

    try:
        result = nodes_needed(batch, cluster_state, likes, cfg, profile=inputs.profile, seed=inputs.seed,
                              registry=registry, extenders=not inputs.no_extenders, labels=tuple(labels),
                              taints=taints)
    except InputError as exc:
        raise UsageError(exc.message) from None
    print_warnings(result.warnings, quiet)

    def table(console: Any) -> None:
        from kschedctl.render.nodes_needed import render_nodes_needed

        render_nodes_needed(result, console, wide=wide)

    inputs.emit(output, result.to_dict, table)
    raise typer.Exit(EXIT_OK if result.found else EXIT_NO)
