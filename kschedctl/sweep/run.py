"""Running a sweep's cells: one after another, in a local process pool, or as Ray tasks.

A cell is a pure function of its inputs (files, settings, seed), so the results do not depend
on how many workers run them or where: they are collected by cell index. Each worker process
keeps what it loaded (configurations, cluster states) for the cells it runs next. A cell that
fails (bad input, a plugin error) gets its error in its row; the others run on. Each cell runs
under the trust policy of its ``RunOptions`` (kschedctl sweep's: files inside the working
directory's repository, no extender unless allowed), in whichever process runs it.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from kschedctl import limits
from kschedctl.errors import InputError, KschedctlError
from kschedctl.inputs import access
from kschedctl.scenarios.trust import TRUST_EVERYTHING, TrustPolicy
from kschedctl.sweep.metrics import cell_metrics
from kschedctl.sweep.model import Cell, ClusterSource, ConfigSource, Sweep, apply_settings


@dataclass
class CellResult:
    """The metrics of one cell, or why it failed."""

    index: int
    config: str
    cluster: str
    workload: str
    repetition: int
    seed: int
    metrics: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    #: What reading the cell's files warned about (``--validate=warn``); not part of the answer.
    warnings: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, cell: Cell, error: str | None = None) -> "CellResult":
        """The (empty, or failed with ``error``) result row of ``cell``."""
        return cls(cell.index, cell.config.name, cell.cluster.name, cell.workload.name, cell.repetition, cell.seed,
                   error=error)

    def to_dict(self, timings: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {"index": self.index, "config": self.config, "cluster": self.cluster,
                               "workload": self.workload, "repetition": self.repetition, "seed": self.seed}
        metrics = dict(self.metrics)
        if not timings:
            metrics.pop("seconds", None)
        out["metrics"] = metrics
        out["error"] = self.error
        return out


@dataclass(frozen=True)
class RunOptions:
    """What every cell is run with (picklable, for workers).

    ``trust``: which files the cells may open and which extenders they may call (a configuration
    declaring another one fails its cells); ``extenders`` False skips every extender instead.
    """

    extenders: bool = True
    plugins: tuple[str, ...] = ()
    trust: TrustPolicy = TRUST_EVERYTHING
    #: How the objects of the cells' files are checked (``--validate``: strict, warn, ignore).
    validate: str = "strict"


# -- one cell -------------------------------------------------------------------------------------

_configs: dict[str, Any] = {}
_clusters: dict[Any, Any] = {}
_registries: dict[tuple[str, ...], Any] = {}


def _registry(plugins: tuple[str, ...]) -> tuple[Any, dict[str, tuple[str, ...]] | None]:
    if plugins not in _registries:
        from kschedctl.plugins.registry import registry_with

        registry, extra = registry_with(list(plugins))
        _registries[plugins] = (registry, extra or None)
    return _registries[plugins]


def load_cell_config(source: ConfigSource, extra_plugins: dict[str, tuple[str, ...]] | None = None) -> Any:
    """The configuration of ``source``: its file (or the built-in default) with its settings."""
    # What was read under one trust rule is not handed to a run under another.
    key = json.dumps([access.allowed_roots(), source.file, source.settings], default=str)
    if key not in _configs:
        from kschedctl.config import load_config

        if not source.settings:
            _configs[key] = load_config(source.file, extra_plugins=extra_plugins)
        else:
            from kschedctl.config.api import ConfigInvalidError, raw_config, validate_text

            try:
                doc = apply_settings(raw_config(source.file), source.settings)
            except ValueError as exc:
                raise InputError(str(exc), source.file) from None
            name = f"{source.file or '(built-in default)'} {source.name}"
            result = validate_text(json.dumps(doc), name, extra_plugins=extra_plugins)
            if result.errors or result.config is None:
                raise ConfigInvalidError(name, result.errors)
            _configs[key] = result.config
    return _configs[key]


def load_cell_cluster(source: ClusterSource) -> Any:
    """The cluster state of ``source`` (with its load metrics), loaded once per process."""
    key = (access.allowed_roots(), source.files, source.metrics)
    if key not in _clusters:
        from kschedctl.inputs.cluster import ClusterState, load_cluster
        from kschedctl.inputs.trace import is_trace_path, read_trace

        if len(source.files) == 1 and is_trace_path(source.files[0]):  # the cluster a trace starts from
            state = ClusterState.from_documents(read_trace(source.files[0]).documents())
        else:
            state = load_cluster(list(source.files))
        if source.metrics:
            from kschedctl.inputs.metrics import load_metrics

            state = state.copy()
            state.metrics = load_metrics(source.metrics)
        _clusters[key] = state
    return _clusters[key]


def run_cell(cell: Cell, options: RunOptions = RunOptions(), cluster_state: Any = None) -> CellResult:
    """Simulate one cell; its metrics, or the error that stopped it."""
    out = CellResult.of(cell)
    from kschedctl.inputs.fields import field_validation

    with field_validation(options.validate) as validation:
        _guarded_cell(cell, options, cluster_state, out)
    out.warnings = validation.warnings
    return out


def _guarded_cell(cell: Cell, options: RunOptions, cluster_state: Any, out: CellResult) -> None:
    try:
        registry, extra = _registry(options.plugins)
        with options.trust.files():  # every file the cell opens, in whichever process runs it
            _run_cell(cell, options, cluster_state, registry, extra, out)
    except KschedctlError as exc:
        out.error = str(exc)
    except Exception as exc:  # a plugin's own failure: this cell's row says so, the others run on
        out.error = f"{type(exc).__name__}: {exc}"


def _run_cell(cell: Cell, options: RunOptions, cluster_state: Any, registry: Any,
              extra: dict[str, tuple[str, ...]] | None, out: CellResult) -> None:
    from kschedctl import api

    cfg = load_cell_config(cell.config, extra)
    if options.extenders:
        refused = options.trust.refused_extenders(cfg.extenders)
        if refused:
            raise InputError(options.trust.refusal(refused, "sweep"), cell.config.file or cell.config.name)
    state = cluster_state if cluster_state is not None else load_cell_cluster(cell.cluster)
    if cell.cluster.what_if:
        from kschedctl.analyses.what_if import WhatIf

        what_if = WhatIf.from_spec(json.loads(cell.cluster.what_if), cell.cluster.name)
        state, _ = what_if.apply(state, cfg, registry=registry, seed=cell.seed, extenders=options.extenders)
    from kschedctl.inputs.trace import is_trace_path, read_trace

    if len(cell.workload.files) == 1 and is_trace_path(cell.workload.files[0]):
        # a recorded trace: its arrivals, deletions and node changes in time order, on the cell's cluster
        from kschedctl.analyses.replay import Replayer

        trace = read_trace(cell.workload.files[0])
        started = time.perf_counter()
        replayed = Replayer(trace, cfg, cell.config.profile, registry=registry, seed=cell.seed,
                            extenders=options.extenders, cluster=state).run()
        out.metrics = {**cell_metrics(replayed.simulation), "seconds": round(time.perf_counter() - started, 3)}
        return
    batch, state = api.pods_for_simulation(api.load_pods(list(cell.workload.files), state), state)
    # "seconds" is the scheduling alone: reading the files (once per worker for its configuration
    # and cluster) and the worker's start-up would make the first cell of each worker look slow
    started = time.perf_counter()
    result = api.simulate(batch, cluster=state, config=cfg, seed=cell.seed, profile=cell.config.profile,
                          include_cluster_pending=cell.include_cluster_pending, registry=registry,
                          extenders=options.extenders)
    out.metrics = {**cell_metrics(result), "seconds": round(time.perf_counter() - started, 3)}
    if cell.removable is not None:
        from kschedctl.analyses.removable import RemovableRules, placed_state, removable_nodes

        after = placed_state(state, batch, result)
        found = removable_nodes(after, cfg, profile=cell.config.profile, registry=registry, seed=cell.seed,
                                rules=RemovableRules(utilization_below=cell.removable), extenders=options.extenders)
        out.metrics["removable"] = len(found.removable)


# -- many cells -----------------------------------------------------------------------------------


def run_cells(cells: list[Cell], workers: int = 1, options: RunOptions = RunOptions(),
              progress: Callable[[int], None] | None = None) -> list[CellResult]:
    """Every cell, in ``workers`` local processes (1: in this process); results in cell order."""
    results: list[CellResult | None] = [None] * len(cells)
    budget = limits.current_budget()
    if workers <= 1 or len(cells) <= 1:
        for cell in cells:
            results[cell.index] = run_cell(cell, options)
            if budget is not None:
                budget.check()  # a cell past the run's budget ends the run, not just its row
            if progress:
                progress(1)
        return [r for r in results if r is not None]
    from concurrent.futures import ProcessPoolExecutor, as_completed

    shared = (budget.file, budget.counters) if budget is not None else None
    pool = ProcessPoolExecutor(max_workers=min(workers, len(cells)), initializer=_start_worker, initargs=(shared,))
    try:
        futures = {pool.submit(run_cell, cell, options): cell for cell in cells}
        for future in as_completed(futures):
            cell = futures[future]
            try:
                results[cell.index] = future.result()
            except Exception as exc:  # the worker died (out of memory, killed)
                results[cell.index] = CellResult.of(cell, f"worker failed: {exc}")
            if budget is not None:
                budget.check()
            if progress:
                progress(1)
    except BaseException:
        # Ctrl-C (or anything else): drop what has not started and stop the running cells now
        # (the workers ignore SIGINT, so that only this process reports the interruption)
        processes = list(getattr(pool, "_processes", {}).values())
        for process in processes:
            process.terminate()
        for process in processes:
            process.join(timeout=5)
        # Wait for the pool's manager thread to see its workers gone and close its pipes: left
        # running, it races the interpreter's exit hook, which then writes to a closed pipe and
        # prints a traceback after "interrupted".
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown()
    return [r for r in results if r is not None]


def _ignore_sigint() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _start_worker(shared: tuple[str, Any] | None) -> None:
    """A worker process: SIGINT left to the parent, its work counted into the run's budget."""
    _ignore_sigint()
    if shared is not None:
        limits.adopt(limits.WorkBudget(*shared))


def run_cells_on_ray(cells: list[Cell], address: str, options: RunOptions = RunOptions(),
                     progress: Callable[[int], None] | None = None) -> list[CellResult]:
    """Every cell as a Ray task on the cluster at ``address`` ("local": a local Ray); each cluster
    state is loaded here once and shipped once, through Ray's object store."""
    try:
        import ray
    except ImportError:
        raise InputError("--ray-address needs Ray: pip install 'kschedctl[ray]'") from None
    import logging

    ray.init(address=address, ignore_reinit_error=True, log_to_driver=False, include_dashboard=False,
             logging_level=logging.ERROR)
    remote = ray.remote(run_cell)
    refs: dict[ClusterSource, Any] = {}
    failed: dict[ClusterSource, str] = {}
    for source in dict.fromkeys(c.cluster for c in cells):
        try:
            with options.trust.files():
                state = load_cell_cluster(source)
            refs[source] = ray.put(state)
        except KschedctlError as exc:
            failed[source] = str(exc)
    results: list[CellResult | None] = [None] * len(cells)
    pending: dict[Any, Cell] = {}
    for cell in cells:
        if cell.cluster in failed:
            results[cell.index] = CellResult.of(cell, failed[cell.cluster])
            if progress:
                progress(1)
            continue
        pending[remote.remote(cell, options, refs[cell.cluster])] = cell
    waiting = list(pending)
    while waiting:
        done, waiting = ray.wait(waiting, num_returns=1)
        for ref in done:
            cell = pending[ref]
            try:
                results[cell.index] = ray.get(ref)
            except Exception as exc:
                results[cell.index] = CellResult.of(cell, f"Ray task failed: {exc}")
            if progress:
                progress(1)
    return [r for r in results if r is not None]


@dataclass
class SweepResult:
    """The answer (``kind: SweepResult``): every cell's metrics, in matrix order, and the ranking."""

    sweep: Sweep
    cells: list[CellResult]
    rank_by: str
    workers: int
    seconds: float = 0.0

    def ranked(self) -> list[CellResult]:
        return [r.cell for r in self.ranking()]

    def ranking(self) -> list[Any]:
        """``metrics.ranking``: each cell's rank within its cluster and workload, ties shared."""
        from kschedctl.sweep.metrics import ranking

        return ranking(self.cells, self.rank_by)

    def unschedulable_reasons(self) -> list[tuple[str, int]]:
        """Why pods stayed unschedulable, over every cell: (reason, pods), most pods first."""
        reasons: dict[str, int] = {}
        for cell in self.cells:
            for reason, n in (cell.metrics.get("unschedulableReasons") or {}).items():
                reasons[reason] = reasons.get(reason, 0) + n
        return sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))

    def failures(self) -> list[tuple[str, list[tuple[int, CellResult]]]]:
        """The cells that failed, per error: each with its row in ``ranked()`` (1 = the first)."""
        failed: dict[str, list[tuple[int, CellResult]]] = {}
        for i, cell in enumerate(self.ranked(), 1):
            if cell.error:
                failed.setdefault(cell.error, []).append((i, cell))
        return list(failed.items())

    def to_dict(self, timings: bool = True) -> dict[str, Any]:
        places = {r.cell.index: r for r in self.ranking()}
        out: dict[str, Any] = {
            "kind": "SweepResult",
            "name": self.sweep.name,
            "rankBy": self.rank_by,
            "rankedWithin": ["cluster", "workload"],
            "cells": [{**c.to_dict(timings), "rank": places[c.index].rank, "tied": places[c.index].tied}
                      for c in self.cells],
            "summary": {"cells": len(self.cells), "failed": sum(1 for c in self.cells if c.error),
                        "configs": [c.name for c in self.sweep.configs],
                        "clusters": [c.name for c in self.sweep.clusters],
                        "workloads": [w.name for w in self.sweep.workloads],
                        "repetitions": self.sweep.repetitions},
        }
        if timings:
            out["summary"]["seconds"] = round(self.seconds, 3)
            out["summary"]["workers"] = self.workers
        return out


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def run_sweep(sweep: Sweep, rank_by: str, workers: int | None = None, ray_address: str | None = None,
              options: RunOptions = RunOptions(), progress: Callable[[int], None] | None = None,
              cells: Iterable[Cell] | None = None) -> SweepResult:
    """Run every cell of ``sweep`` locally (``workers`` processes, default: the cores) or on Ray."""
    todo = list(cells) if cells is not None else sweep.cells()
    started = time.perf_counter()
    with limits.work_budget(sweep.file):  # one budget for every cell, in whichever process
        if ray_address:
            results = run_cells_on_ray(todo, ray_address, options, progress)
            used = 0
        else:
            used = workers or default_workers()
            results = run_cells(todo, used, options, progress)
    return SweepResult(sweep, results, rank_by, used, time.perf_counter() - started)
