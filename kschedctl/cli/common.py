"""What several commands load the same way: plugins, configuration, cluster state and pods.

Everything here imports the core lazily, so that ``kschedctl --help`` stays fast.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Any, Callable, Iterable

import typer


def registry_with_plugins(specs: Iterable[str]) -> tuple[Any, dict[str, tuple[str, ...]]]:
    """The registry (built-in, out-of-tree, entry points) plus the ``--plugin`` classes, checked
    when loaded, and the extension points of the custom ones (for config validation)."""
    from kschedctl.plugins.registry import registry_with

    return registry_with(list(specs))


def checks_fields(command: Callable[..., Any]) -> Callable[..., Any]:
    """Decorates a command with a ``validate`` (``--validate``) parameter: how the objects of its
    files are checked (kschedctl.inputs.fields), warnings going to stderr as they are found
    (unless ``quiet``), for as long as the command runs."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        from kschedctl.errors import UsageError
        from kschedctl.inputs.fields import field_validation, parse_validation

        quiet = bool(kwargs.get("quiet"))
        try:
            mode = parse_validation(kwargs.get("validate") or "strict")
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        with field_validation(mode, report=lambda warning: print_warnings([warning], quiet)):
            return command(*args, **kwargs)

    return run


def load_config(path: Path | str | None, extra_plugins: dict[str, tuple[str, ...]], quiet: bool = False) -> Any:
    """The defaulted configuration of ``path`` (None: the built-in default); exit 2 if invalid.

    What decoding warned about (a removed apiVersion converted to v1, ...) goes to stderr at once,
    one line each, naming the file.
    """
    from kschedctl.api import load_config as load

    cfg = load(path, extra_plugins=extra_plugins or None)
    print_warnings((f"{path}: {w}" for w in cfg.warnings), quiet)
    return cfg


def load_cluster(cluster: list[str] | None, kubeconfig: Path | None, context: str | None, quiet: bool,
                 pod_paths: Iterable[str] = (), request_timeout: str | None = None,
                 metrics: Path | str | None = None) -> Any:
    """The cluster state of the ``--cluster`` files, or else of the live cluster, with the load
    watcher's answer of ``--metrics`` (read first: a bad file fails before a live read).

    kubectl taught users that ``-f`` names files; here it names the pods, and the cluster state
    is ``--cluster``. A file given to the wrong one gets a hint naming the right flag.
    """
    from kschedctl.cli.live import cluster_state_from_options
    from kschedctl.errors import ClusterAccessError

    from kschedctl.cli.options import request_timeout_seconds
    from kschedctl.render.progress import progress_wanted, working

    watcher_metrics = None
    if metrics is not None:
        from kschedctl.inputs.metrics import load_metrics

        watcher_metrics = load_metrics(str(metrics))
    # The files are measured only for a person watching (walking a big directory costs).
    size = _total_bytes(cluster) if cluster and progress_wanted(quiet) else 0
    try:
        with working(f"reading {', '.join(cluster or ())} ({size / 1e6:,.0f} MB)", size >= _SPINNER_BYTES):
            state = cluster_state_from_options(cluster, kubeconfig, context, quiet,
                                               request_timeout=request_timeout_seconds(request_timeout))
    except ClusterAccessError as exc:
        holding_nodes = [p for p in pod_paths if _kinds_in(p) & {"Node"}]
        if holding_nodes and not cluster:
            raise ClusterAccessError(f"{exc}. {', '.join(holding_nodes)} holds Nodes: a cluster state is given with "
                                     "--cluster PATH (-f/--filename names the pods to explain)") from None
        raise
    state.metrics = watcher_metrics
    if cluster and not state.nodes and not quiet:
        holding_pods = [p for p in cluster if _kinds_in(p) - {"Node", "Namespace"}]
        if holding_pods:
            print_warnings([f"--cluster {', '.join(holding_pods)}: no Node in the cluster state; to explain the pods "
                            "in it, give the file with -f/--filename (or as an argument)"], quiet)
    return state


#: Files at least this large get a spinner while they are read (on a terminal).
_SPINNER_BYTES = 5_000_000


def _total_bytes(paths: Iterable[str]) -> int:
    import os

    total = 0
    for path in paths:
        if os.path.isdir(path):
            for directory, _, names in os.walk(path):
                total += sum(os.path.getsize(os.path.join(directory, n)) for n in names)
        elif os.path.isfile(path):
            total += os.path.getsize(path)
    return total


def _kinds_in(path: str) -> set[str]:
    """The kinds a pod or cluster path holds (empty when it cannot be read: the loaders say why)."""
    if path == "-":
        return set()
    from kschedctl.errors import KschedctlError
    from kschedctl.inputs.fields import field_validation
    from kschedctl.inputs.loader import load_documents

    try:
        # Only the kinds, for a hint: what the fields hold was (or will be) said by the loaders.
        with field_validation("ignore"):
            docs = load_documents([path])
        return {str(doc.obj.get("kind")) for doc in docs if isinstance(doc.obj, dict)}
    except KschedctlError:
        return set()


def load_pods(paths: list[str], cluster_state: Any, quiet: bool = False) -> Any:
    """The pods of pod and workload files (``-`` is stdin), with warnings about skipped objects.

    The objects of the cluster state the files bring along (``items.joined``) are named on
    stderr at once, one ``note:`` line per file.
    """
    from kschedctl.api import load_pods as load
    from kschedctl.printable import message_line

    items = load(paths, cluster_state, stdin=sys.stdin if "-" in paths else None)
    if not quiet:
        for note in items.bundled_notes():
            typer.echo(f"note: {message_line(note)}", err=True)
    return items


def expand_for_simulation(paths: list[str], cluster_state: Any,
                          quiet: bool = False) -> tuple[list[dict], Any, list[str]]:
    """The pods of the files with workloads expanded to their replicas, the cluster state with
    their owners and other objects joined, and warnings about skipped objects."""
    if not paths:
        return [], cluster_state, []
    from kschedctl.api import pods_for_simulation

    items = load_pods(paths, cluster_state, quiet)
    batch, cluster_state = pods_for_simulation(items, cluster_state)
    return batch, cluster_state, list(items.warnings)


def print_warnings(warnings: Iterable[str], quiet: bool) -> None:
    """One ``warning:`` line per warning on stderr, made printable (see ``app.warning``)."""
    from kschedctl.cli.app import warning as print_warning

    if not quiet:
        for warning in warnings:
            print_warning(warning)


def one_replica_notes(items: Iterable[Any], command: str) -> list[str]:
    """``explain``/``diff`` answer for one pod: say so for a workload of several replicas."""
    from kschedctl.cluster.replicas import replica_count

    notes = []
    for item in items:
        source = getattr(item, "source", None)
        obj = getattr(source, "obj", None) or {}
        count = replica_count(obj)
        if count > 1:
            kind, name = obj.get("kind"), (obj.get("metadata") or {}).get("name")
            whole = ("add --simulate to compare every replica, each seeing the ones before it, under both sides"
                     if command == "diff" else
                     f"kschedctl simulate {getattr(source, 'file', 'FILE')} places every replica, each seeing the ones "
                     "before it")
            notes.append(f"{kind} {name} has {count} replicas: {command} shows its first pod, which stands for all "
                         f"of them; {whole}")
    return notes
