"""Where a command's cluster state comes from: ``--cluster`` files, or the live cluster.

Every command that reads a cluster (explain, simulate, capacity) calls
``cluster_state_from_options``, so the choice, the progress display and the warnings about kinds
that could not be read are the same everywhere.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable, Optional


__all__ = ["cluster_state_from_options", "read_live_objects", "find_pod", "pods_of_cluster", "print_warnings"]


def cluster_state_from_options(cluster_paths: Optional[Iterable[str]], kubeconfig: Optional[str | Path],
                               context: Optional[str], quiet: bool, request_timeout: Optional[float] = None) -> Any:
    """The ``ClusterState`` of ``--cluster PATH...`` when given, else of the live cluster.

    Reading a live cluster shows a progress display on stderr (only on a terminal, never with
    ``--quiet``) and prints, unless ``quiet``, one warning per kind that could not be read.
    ``--kubeconfig``/``--context`` next to ``--cluster`` are a usage error: one of them would be
    silently ignored.
    """
    paths = [str(p) for p in cluster_paths or ()]
    if paths:
        if kubeconfig is not None or context is not None:
            from kschedctl.errors import UsageError

            flag = "--kubeconfig" if kubeconfig is not None else "--context"
            raise UsageError(f"{flag} reads a live cluster; it cannot be combined with --cluster")
        from kschedctl.api import load_cluster

        return load_cluster(paths)

    from kschedctl.inputs.kube import cluster_state_of

    live = read_live_objects(kubeconfig, context, quiet, request_timeout=request_timeout)
    state = cluster_state_of(live)
    if not quiet:
        print_warnings(live.warnings)
    return state


def read_live_objects(kubeconfig: Optional[str | Path], context: Optional[str], quiet: bool,
                      namespaces: Optional[Iterable[str]] = None, request_timeout: Optional[float] = None) -> Any:
    """``kschedctl.inputs.kube.read_objects`` with the progress display of the CLI."""
    from kschedctl.inputs.kube import read_objects
    from kschedctl.render.progress import ListingProgress, progress_wanted

    with ListingProgress(progress_wanted(quiet)) as on_progress:
        timeout = {} if request_timeout is None else {"timeout": request_timeout}
        return read_objects(None if kubeconfig is None else os.fspath(kubeconfig), context,
                            namespaces=namespaces, on_progress=on_progress, **timeout)


def find_pod(cluster_state: Any, ref: str) -> dict:
    """The pod ``NAMESPACE/NAME`` (or ``NAME`` in ``default``) of the cluster state, pending.

    Raises ``UsageError`` when there is no such pod or when it is already bound to a node.
    """
    from kschedctl.errors import UsageError

    namespace, sep, name = ref.partition("/")
    if not sep:
        namespace, name = "default", ref
    if not namespace or not name or "/" in name:
        raise UsageError(f"--pod {ref}: expected NAMESPACE/NAME")
    for pod in getattr(cluster_state, "pods", ()):
        meta = pod.get("metadata") or {}
        if meta.get("name") == name and meta.get("namespace") == namespace:
            node = (pod.get("spec") or {}).get("nodeName")
            if node:
                raise UsageError(f"--pod {namespace}/{name}: the pod is already bound to node {node} "
                                 "(explain shows where a pending pod would go)")
            return pod
    hint = ""
    if getattr(cluster_state, "live_source", None):
        hint = " (pods that succeeded or failed are not read: kube-scheduler does not see them either)"
    raise UsageError(f"--pod {namespace}/{name}: no such pod in the cluster state{hint}")


def pods_of_cluster(cluster_state: Any, refs: Iterable[str]) -> Any:
    """``PodsToExplain`` for ``--pod NAMESPACE/NAME...``: each pod as the cluster holds it.

    Its owners are already in the cluster state, so nothing joins it; the pod is copied, so
    explaining it leaves the cluster state as it was.
    """
    import copy

    from kschedctl.inputs.loader import Document
    from kschedctl.inputs.workloads import PodsToExplain, PodToExplain

    out = PodsToExplain()
    for ref in refs:
        pod = find_pod(cluster_state, ref)
        source = getattr(cluster_state, "live_source", None) or "the cluster state"
        out.append(PodToExplain(pod=copy.deepcopy(pod), owners=[], source=Document(pod, source, None)))
    return out


def pending_pods(cluster_state: Any, namespaces: Iterable[str] = (), all_namespaces: bool = False,
                 selector: str | None = None, field_selector: str | None = None) -> Any:
    """``explain --pending``: ``kschedctl.api.pending_pods``, its selector errors naming the flag."""
    from kschedctl.api import pending_pods as pending
    from kschedctl.errors import UsageError

    try:
        return pending(cluster_state, namespaces, all_namespaces=all_namespaces, selector=selector,
                       field_selector=field_selector)
    except UsageError as exc:
        raise UsageError(f"--{exc}") from None


def print_warnings(warnings: Iterable[str]) -> None:
    """One ``warning:`` line per warning on stderr."""
    from kschedctl.cli.app import warning as print_warning

    for warning in warnings:
        print_warning(warning)
