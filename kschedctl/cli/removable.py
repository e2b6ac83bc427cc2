"""``capacity --removable``: the options of the scale-down question, and the run behind them.

The flags are cluster-autoscaler's where it has one (``--skip-nodes-with-local-storage=false``
takes a value, as CA's Go flags do); ``capacity`` only declares them and hands over here.
"""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

__all__ = ["RemovableOption", "UtilizationBelowOption", "NodesOption", "SKIP_FLAGS", "skip_option", "run_removable"]

RemovableOption = Annotated[bool, typer.Option(
    "--removable", help="Which nodes can go: the largest set found (least utilized first, as cluster-autoscaler's "
    "scale-down) whose drain leaves every evicted pod scheduled on the other nodes; why each other node stays. "
    "No pod file.")]
UtilizationBelowOption = Annotated[float, typer.Option(
    "--utilization-below", metavar="RATIO", min=0.0, max=1.0,
    help="With --removable: a candidate's requests over allocatable (the larger of cpu and memory) must be below "
         "this (cluster-autoscaler's --scale-down-utilization-threshold).")]
NodesOption = Annotated[Optional[str], typer.Option(
    "--nodes", metavar="NAME|SELECTOR", help="With --removable: only these nodes may go (a node pool: "
                                             "-l style selector, e.g. pool=batch).")]
#: option name -> (RemovableRules field, help). CA's flags first; the last three are kschedctl's
#: (CA applies those rules always).
SKIP_FLAGS: dict[str, tuple[str, str]] = {
    "--skip-nodes-with-system-pods": (
        "skip_nodes_with_system_pods",
        "kube-system pods without a PodDisruptionBudget keep their node; cluster-autoscaler's flag"),
    "--skip-nodes-with-local-storage": (
        "skip_nodes_with_local_storage",
        "pods with hostPath or emptyDir (not in memory) keep their node; cluster-autoscaler's flag"),
    "--skip-nodes-with-custom-controller-pods": (
        "skip_nodes_with_custom_controller_pods", "pods whose controller is not a ReplicaSet, StatefulSet, Job, "
        "ReplicationController or DaemonSet keep their node; cluster-autoscaler's flag"),
    "--skip-nodes-with-unreplicated-pods": (
        "skip_nodes_with_unreplicated_pods", "pods without a controller keep their node"),
    "--skip-nodes-with-not-safe-to-evict-pods": (
        "skip_nodes_with_not_safe_to_evict_pods", "pods annotated cluster-autoscaler.kubernetes.io/safe-to-evict: "
        "\"false\" keep their node"),
    "--skip-nodes-with-pdb-blocked-pods": (
        "skip_nodes_with_pdb_blocked_pods", "pods a PodDisruptionBudget refuses to evict keep their node"),
}

_TRUE = ("1", "t", "T", "TRUE", "true", "True")
_FALSE = ("0", "f", "F", "FALSE", "false", "False")


def skip_option(flag: str) -> Any:
    """The typer option of one ``--skip-nodes-with-...`` flag (a BOOL value, true by default)."""
    _, text = SKIP_FLAGS[flag]
    return Annotated[Optional[str], typer.Option(flag, metavar="BOOL", show_default=False,
                                                 help=f"With --removable: {text} (true, the default, or false).")]


def _as_bool(flag: str, value: Optional[str]) -> bool:
    """Go's strconv.ParseBool, as CA's flags read their values."""
    from kschedctl.errors import UsageError

    if value is None or value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise UsageError(f"{flag}={value}: not a boolean (true or false)")


def run_removable(inputs: Any, output: Any, wide: bool, utilization_below: float, nodes: Optional[str],
                  skips: dict[str, Optional[str]], progress: bool, max_removed: Optional[int] = None) -> int:
    """Answer ``capacity --removable`` and return the exit code: 0 when a node can go, 1 when none can."""
    from kschedctl.cli.app import warning as print_warning
    from kschedctl.errors import EXIT_NO, EXIT_OK, InputError, UsageError
    from kschedctl.render.simulate import progress_bar
    from kschedctl.analyses.removable import RemovableRules, removable_nodes

    rules = RemovableRules(utilization_below=utilization_below,
                           **{SKIP_FLAGS[flag][0]: _as_bool(flag, value) for flag, value in skips.items()})
    inputs.what_if()  # a malformed what-if flag fails before anything is read
    registry = inputs.registry()[0]
    cfg = inputs.load_config()
    cluster_state = inputs.apply_what_if(inputs.load_cluster(), cfg)
    with progress_bar("trying nodes", None, progress) as bar:
        try:
            result = removable_nodes(cluster_state, cfg, profile=inputs.profile, rules=rules, candidates=nodes,
                                     registry=registry, seed=inputs.seed, extenders=not inputs.no_extenders,
                                     progress=bar, max_removed=max_removed)
        except InputError as exc:
            raise UsageError(f"--nodes: {exc.message}") from None
    if not inputs.quiet:
        for warning in [*(getattr(cluster_state, "warnings", None) or ()), *result.warnings]:
            print_warning(warning)

    def table(console: Any) -> None:
        from kschedctl.render.removable import render_removable

        render_removable(result, console, wide=wide)

    # the HTML page too, once capacity takes --report (inputs.report stays None until then)
    inputs.emit(output, result.to_dict, table, report=result)
    return EXIT_OK if result.removable else EXIT_NO
