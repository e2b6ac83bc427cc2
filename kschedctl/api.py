"""kschedctl's public Python API: the load -> join -> expand pipeline and the three questions.

Every front end goes through here (the CLI, ``sweep``, ``kschedctl test``), so a pod read by a
script is admitted, joined and expanded exactly as ``kschedctl explain`` / ``simulate`` /
``capacity`` do, and each answer is the result object whose ``to_dict()`` is the command's JSON::

    from kschedctl import api

    cluster = api.load_cluster("fixtures/cluster")
    pods = api.load_pods("fixtures/pods/pod.yaml", cluster)
    result = api.explain(pods, cluster=cluster, seed=1)[0]
    print(result.outcome, result.selected_node)

Arguments that name files take a path or a list of paths (what ``--cluster`` and POD arguments
take) or what an earlier call returned. Bad input raises ``kschedctl.errors.KschedctlError``:
``InputError`` (a file that cannot be read or holds something invalid; its ``str()`` names the
file and line), ``ConfigInvalidError`` (an ``InputError``: a configuration kube-scheduler would
refuse) or ``UsageError`` (arguments that ask for something that cannot be done). Nothing here
prints, reads the terminal or exits.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence, Union

if TYPE_CHECKING:
    from kschedctl.config.types import KubeSchedulerConfiguration
    from kschedctl.inputs.cluster import ClusterState
    from kschedctl.inputs.workloads import PodsToExplain
    from kschedctl.analyses.capacity import CapacityResult, MixCapacityResult
    from kschedctl.scheduler.result import ExplainResult
    from kschedctl.scheduler.simulation_result import SimulationResult

__all__ = [
    "load_config",
    "load_cluster",
    "load_pods",
    "pending_pods",
    "pods_for_simulation",
    "explain",
    "simulate",
    "capacity",
]

#: One path or several (``-`` is stdin where a command takes it).
Paths = Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]]


def _paths(paths: Paths) -> list[str]:
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(p) for p in paths]


def _registry(registry: Any, plugins: Sequence[str]) -> Any:
    if registry is not None:
        return registry
    from kschedctl.plugins.registry import registry_with

    return registry_with(list(plugins))[0]


def load_config(path: str | os.PathLike[str] | None = None, *, plugins: Sequence[str] = (),
                extra_plugins: dict[str, tuple[str, ...]] | None = None) -> KubeSchedulerConfiguration:
    """The decoded, defaulted and validated KubeSchedulerConfiguration of ``path`` (None: the
    built-in default), as kube-scheduler v1.34 would run it; its ``warnings`` say what decoding
    converted. ``plugins`` (``module:Attr``) are custom plugins the profiles may enable
    (``extra_plugins``: their extension points, when the registry is already built).

    Raises ``ConfigInvalidError`` when kube-scheduler would refuse it, ``InputError`` when it
    cannot be read."""
    from kschedctl.config import load_config as load

    if extra_plugins is None and plugins:
        from kschedctl.plugins.registry import registry_with

        extra_plugins = registry_with(list(plugins))[1]
    return load(None if path is None else os.fspath(path), extra_plugins=extra_plugins or None)


def load_cluster(paths: Paths, *, metrics: str | os.PathLike[str] | None = None,
                 stdin: Any = None) -> ClusterState:
    """The cluster state of files or directories (Nodes, Pods, PVs, ...; what ``--cluster`` reads),
    with the load watcher's answer of ``metrics`` (``--metrics``) when given.

    Raises ``InputError`` naming the file and line of what cannot be read, or when the paths
    hold no object at all."""
    from kschedctl.inputs.cluster import load_cluster as load

    watcher_metrics = None
    if metrics is not None:
        from kschedctl.inputs.metrics import load_metrics

        watcher_metrics = load_metrics(os.fspath(metrics))  # a bad file fails before the cluster is read
    state = load(_paths(paths), stdin=stdin)
    state.metrics = watcher_metrics
    return state


def load_pods(paths: Paths, cluster: ClusterState | Paths | None = None, *, stdin: Any = None) -> PodsToExplain:
    """The pods of pod and workload files (a workload stands as its controller's first pod), in
    order, admitted against ``cluster``'s PriorityClasses; ``.warnings`` name skipped objects,
    ``.bundled`` the objects of the cluster state the files bring along (a claim next to its pod),
    which the runs below join to the cluster state.

    Raises ``InputError`` naming the file and line of a bad object, or when there is no pod."""
    from kschedctl.inputs.workloads import load_pods as load

    state = None if cluster is None else _cluster(cluster)
    return load(_paths(paths), state, stdin=stdin)


def pending_pods(cluster: ClusterState | Paths, namespaces: Iterable[str] = (), *, all_namespaces: bool = False,
                 selector: str | None = None, field_selector: str | None = None) -> PodsToExplain:
    """The cluster state's pods waiting for the scheduler (not bound, not terminating, not
    finished) in ``namespaces`` (``default`` unless given; every one with ``all_namespaces``),
    matching the label ``selector`` (``app=web,tier!=db``) and the ``field_selector``
    (``spec.schedulerName=my-scheduler``), in namespace/name order; each a copy.

    Raises ``UsageError`` for a selector that does not parse."""
    import copy

    from kschedctl.errors import UsageError
    from kschedctl.inputs.cluster import waits_for_scheduler
    from kschedctl.inputs.loader import Document
    from kschedctl.inputs.workloads import PodsToExplain, PodToExplain
    from kschedctl.k8s.selectors import parse_selector, pod_field_selector

    state = _cluster(cluster)
    wanted = set(namespaces) or {"default"}
    try:
        labels = parse_selector(selector) if selector else None
    except ValueError as exc:
        raise UsageError(f"selector {selector}: {exc}") from None
    try:
        fields = pod_field_selector(field_selector) if field_selector else None
    except ValueError as exc:
        raise UsageError(f"field-selector {field_selector}: {exc}") from None
    source = getattr(state, "live_source", None) or "the cluster state"
    chosen = []
    for pod in state.pods:
        meta = pod.get("metadata") or {}
        if not waits_for_scheduler(pod):
            continue
        if not all_namespaces and (meta.get("namespace") or "default") not in wanted:
            continue
        if labels is not None and not labels.matches(meta.get("labels") or {}):
            continue
        if fields is not None and not fields(pod):
            continue
        chosen.append(pod)
    chosen.sort(key=lambda p: ((p.get("metadata") or {}).get("namespace") or "", (p.get("metadata") or {}).get("name")))
    return PodsToExplain(PodToExplain(pod=copy.deepcopy(pod), owners=[], source=Document(pod, source, None))
                         for pod in chosen)


def pods_for_simulation(pods: PodsToExplain, cluster: ClusterState) -> tuple[list[dict], ClusterState]:
    """The pods of ``pods`` with workloads expanded to their replicas (a Deployment's 3 replicas,
    a DaemonSet's pod per node), and ``cluster`` with the objects they bring along joined: what
    ``simulate`` schedules. Raises ``InputError`` for a pod given twice or too many pods."""
    from kschedctl.cluster.replicas import joined_batch

    return joined_batch(pods, cluster)


def explain(pods: PodsToExplain | Paths, *, cluster: ClusterState | Paths, config: Any = None,
            seed: int | None = None, profile: str | None = None, all_filters: bool = False,
            hint_nodes: Iterable[str] = (), plugins: Sequence[str] = (), registry: Any = None,
            extenders: bool = True) -> list[ExplainResult]:
    """One scheduling cycle per pod against the same, unchanged cluster (what ``kschedctl explain``
    answers): the filter verdicts, scores and chosen node, or why none. One result per pod;
    ``results[0].to_dict()`` is ``explain -o json`` of one pod, ``ExplainResultList(results)``
    of several. ``seed`` makes the tie-break among equal top scores reproducible."""
    state = _cluster(cluster)
    cfg = _config(config, plugins)
    items = pods if _is_loaded(pods) else load_pods(pods, state)  # type: ignore[arg-type]
    state = items.joined(state)  # type: ignore[union-attr]
    from kschedctl.analyses.explain import Explainer

    explainer = Explainer(state, cfg, registry=_registry(registry, plugins), seed=seed, all_filters=all_filters,
                          extenders=extenders)
    hints = list(hint_nodes)
    # Each pod sees the cluster plus its own owners (its ReplicaSet, a StatefulSet's claims).
    return [explainer.explain(item.pod, profile, cluster=item.apply(state), hint_nodes=hints)
            for item in items]  # type: ignore[union-attr]


def simulate(pods: PodsToExplain | Paths | Sequence[dict] = (), *, cluster: ClusterState | Paths, config: Any = None,
             seed: int | None = None, profile: str | None = None, include_cluster_pending: bool = True,
             max_attempts: int = 10, tie_break_first: bool = False, decisions: int = 0,
             progress: Callable[[int, int], None] | None = None, plugins: Sequence[str] = (),
             registry: Any = None, extenders: bool = True) -> SimulationResult:
    """Schedule the pods (workloads expanded to their replicas) one after another in queue-sort
    order, each placement assumed for the next, plus the cluster's own pending pods unless
    ``include_cluster_pending`` is False (what ``kschedctl simulate`` answers). A list of pod
    dicts is taken as the batch itself, already expanded (``pods_for_simulation``), its owners
    already in ``cluster``. Its ``to_dict()`` is ``simulate -o json``; ``warnings`` say what was
    skipped. ``decisions`` keeps every node's verdicts and scores for that many placements."""
    state = _cluster(cluster)
    cfg = _config(config, plugins)
    warnings: list[str] = []
    if _is_loaded(pods) or isinstance(pods, (str, os.PathLike)) or any(not isinstance(p, dict) for p in pods):
        items = pods if _is_loaded(pods) else load_pods(pods, state)  # type: ignore[arg-type]
        batch, state = pods_for_simulation(items, state)  # type: ignore[arg-type]
        warnings = list(items.warnings)  # type: ignore[union-attr]
    else:
        batch = list(pods)  # type: ignore[arg-type]
    from kschedctl.scheduler.simulate import Simulator

    sim = Simulator(state, cfg, registry=_registry(registry, plugins), seed=seed, max_attempts=max_attempts,
                    extenders=extenders, decisions=decisions)
    sim.scheduler.tie_break_first = tie_break_first
    result = sim.run(batch, profile, include_cluster_pending=include_cluster_pending, progress=progress)
    result.warnings[:0] = warnings
    return result


def capacity(pods: PodsToExplain | Paths, *, cluster: ClusterState | Paths, config: Any = None,
             seed: int | None = None, profile: str | None = None, max_copies: int | None = None,
             ratio: Sequence[int] | str | None = None, tie_break_first: bool = False,
             progress: Callable[[int, int | None], None] | None = None, plugins: Sequence[str] = (),
             registry: Any = None, extenders: bool = True) -> CapacityResult | MixCapacityResult:
    """How many more copies of a pod fit, each placement assumed for the next, and what stops the
    next one (``kschedctl capacity``); with several pods (one per file), how many whole sets, a set
    being ``ratio`` (``[3, 1]`` or ``"3:1"``; default: each workload's replicas, 1 for a Pod)
    copies of each. ``max_copies`` bounds the count (sets, with several). Its ``to_dict()`` is
    ``capacity -o json``.

    Raises ``UsageError`` for a ratio that does not fit the pods, a workload of 0 replicas
    without a ratio, or a file holding more than one pod."""
    from kschedctl.errors import UsageError
    from kschedctl.analyses.capacity import capacity as count_copies
    from kschedctl.analyses.capacity import capacity_of_mix, parse_ratio

    state = _cluster(cluster)
    cfg = _config(config, plugins)
    if _is_loaded(pods):
        items = pods
    else:
        files = _paths(pods)  # type: ignore[arg-type]
        items = load_pods(files, state)
        if len(items) != len(files):
            raise UsageError(f"capacity takes one pod or workload per file: {', '.join(files)} hold {len(items)}")
    state = items.joined(state)  # type: ignore[union-attr]
    for item in items:  # type: ignore[union-attr]
        state = item.apply(state)
    common = dict(profile=profile, seed=seed, registry=_registry(registry, plugins), progress=progress,
                  extenders=extenders, tie_break_first=tie_break_first)
    if len(items) == 1:  # type: ignore[arg-type]
        return count_copies(items[0].pod, state, cfg, max_copies=max_copies, **common)  # type: ignore[index,arg-type]
    if ratio is None:
        from kschedctl.inputs.workloads import controller_pod_count

        counts = [controller_pod_count(item.source.obj) for item in items]  # type: ignore[union-attr]
        if 0 in counts:
            empty = items[counts.index(0)].source.file  # type: ignore[index]
            raise UsageError(f"{empty}: a workload of 0 replicas cannot set the ratio of a set; give --ratio")
        ratio = counts
    text = ratio if isinstance(ratio, str) else ":".join(map(str, ratio))
    parts = parse_ratio(text, len(items))  # type: ignore[arg-type]
    return capacity_of_mix([item.pod for item in items], parts, state, cfg,  # type: ignore[union-attr]
                           max_sets=max_copies, **common)  # type: ignore[arg-type]


def _is_loaded(pods: Any) -> bool:
    from kschedctl.inputs.workloads import PodsToExplain

    return isinstance(pods, PodsToExplain)


def _cluster(cluster: Any) -> ClusterState:
    from kschedctl.inputs.cluster import ClusterState

    return cluster if isinstance(cluster, ClusterState) else load_cluster(cluster)


def _config(config: Any, plugins: Sequence[str]) -> Any:
    if config is None or isinstance(config, (str, os.PathLike)):
        return load_config(config, plugins=plugins)
    return config
