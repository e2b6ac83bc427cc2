"""Running scenarios: load what they name (once per distinct path), explain or simulate, check.

``ScenarioRunner`` keeps caches across the scenarios of one run: configurations by path,
cluster states by their list of paths, pod documents by path, and an ``Explainer`` (snapshot
and frameworks) per (configuration, cluster, seed, objects the pods bring along). Explain
results are computed only for the pods an expectation names, once per scenario; a simulate
run once per scenario. A file that cannot be loaded is remembered as such, so that a broken
fixture shared by 200 scenarios is read once and reported 200 times.

Ties: without a ``seed``, upstream's random tie-break would make a check flaky, so a pod whose
best total score is shared by several nodes counts as landing on any of them: ``node: a``
fails when ``a`` is merely tied for the top, ``nodeIn`` passes only when every tied node is
listed, ``notNode`` only when none is. With a seed, the seeded choice is what is checked.
Simulate runs with the scenario's seed, or seed 0, so that its placements are reproducible.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

from kschedctl import limits
from kschedctl.errors import InputError, KschedctlError, internal_error_text
from kschedctl.inputs.workloads import PodsToExplain
from kschedctl.scenarios.model import Expectation, InlinePod, Scenario, as_list, pod_key
from kschedctl.scenarios.report import ERROR, FAILED, PASSED, CheckResult, ScenarioResult, TestReport
from kschedctl.scenarios.trust import TRUST_EVERYTHING, TrustPolicy
from kschedctl.scheduler.outcome import Outcome

#: Seed of simulate runs in scenarios without one (reproducible placements).
DEFAULT_SIMULATE_SEED = 0
#: How many plugins a score comparison names.
_MAX_PLUGINS = 4


class _Failed:
    """A load that failed, cached so that the error is raised again without reloading."""

    __slots__ = ("error",)

    def __init__(self, error: KschedctlError) -> None:
        self.error = error


class SimulateNotAvailable(Exception):
    """``kschedctl.scheduler.simulate`` is missing from this build."""


@dataclass
class _Context:
    """One scenario's loaded inputs and lazily computed answers."""

    scenario: Scenario
    config: Any
    cluster: Any
    items: list[Any]
    explainer_key: tuple
    explainer: Any = None
    results: dict[int, Any] = field(default_factory=dict)
    simulations: dict[bool, Any] = field(default_factory=dict)


class ScenarioRunner:
    """Runs scenarios with shared caches; ``registry`` / ``extra_plugins`` add custom plugins."""

    def __init__(self, registry: Any = None, extra_plugins: dict[str, tuple[str, ...]] | None = None,
                 trust: TrustPolicy = TRUST_EVERYTHING) -> None:
        self.registry = registry
        #: Which files the scenarios may name and which extenders may be called (kschedctl test's rules).
        self.trust = trust
        self.extra_plugins = extra_plugins or None
        self._configs: dict[str | None, Any] = {}
        #: What loading warned about (a removed apiVersion converted to v1, ...), once per file.
        self.warnings: list[str] = []
        self._clusters: dict[tuple[str, ...], Any] = {}
        self._docs: dict[str, Any] = {}
        self._explainers: dict[tuple, Any] = {}

    # -- the run ---------------------------------------------------------------------------------
    def run(self, scenarios: Iterable[Scenario], progress: Any = None) -> TestReport:
        """Every scenario, in order; ``progress(done, total)`` after each one, if given."""
        started = time.perf_counter()
        report = TestReport()
        scenarios = list(scenarios)
        budget = limits.current_budget()
        for scenario in scenarios:
            limits.working_on(scenario.file)
            report.scenarios.append(self.run_scenario(scenario))
            if budget is not None:
                budget.check()  # past it, the run stops: the next scenario would be refused too
            if progress is not None:
                progress(len(report.scenarios), len(scenarios))
        report.seconds = time.perf_counter() - started
        return report

    def run_scenario(self, scenario: Scenario) -> ScenarioResult:
        """Every expectation of one scenario, every file it makes kschedctl open held to the policy."""
        with self.trust.files():
            return self._run_scenario(scenario)

    def _run_scenario(self, scenario: Scenario) -> ScenarioResult:
        started = time.perf_counter()
        result = ScenarioResult(scenario)
        try:
            ctx = self._context(scenario)
        except Exception as exc:  # bad input, or a bug: this scenario's error, the others still run
            internal = not isinstance(exc, KschedctlError)
            reason = internal_error_text(exc) if internal else _one_line(exc)
            for exp in scenario.expectations:
                result.checks.append(CheckResult(exp.title, ERROR, exp.line, exp.pod, reason=reason, internal=internal))
            for step in scenario.steps:
                for j, spec in enumerate(step.expect):
                    result.checks.append(CheckResult(_step_title(step, spec), ERROR, step.expect_lines[j],
                                                     reason=reason, internal=internal))
            result.seconds = time.perf_counter() - started
            return result
        for exp in scenario.expectations:
            t0 = time.perf_counter()
            try:
                check = self._check(ctx, exp)
            except KschedctlError as exc:
                check = CheckResult(exp.title, ERROR, exp.line, exp.pod, reason=_one_line(exc))
            except Exception as exc:  # a bug must not hide the other scenarios' verdicts
                check = CheckResult(exp.title, ERROR, exp.line, exp.pod, reason=internal_error_text(exc), internal=True)
            check.seconds = time.perf_counter() - t0
            result.checks.append(check)
        if scenario.steps:
            result.checks.extend(self._run_steps(ctx))
        result.seconds = time.perf_counter() - started
        return result

    # -- steps -----------------------------------------------------------------------------------
    def _run_steps(self, ctx: _Context) -> list[CheckResult]:
        """The scenario's pods created and scheduled, then each step and its checks, in order;
        a step that cannot run is an error check and ends the scenario's steps."""
        from kschedctl.scenarios.steps import step_failures
        from kschedctl.analyses.steps import SteppedCluster

        scenario = ctx.scenario
        seed = scenario.seed if scenario.seed is not None else DEFAULT_SIMULATE_SEED
        checks: list[CheckResult] = []
        step = None
        try:
            stepped = SteppedCluster(ctx.cluster, ctx.config, registry=self._registry(), seed=seed,
                                     profile=scenario.profile)
            stepped.settle(items=ctx.items)
            for step in scenario.steps:
                t0 = time.perf_counter()
                items = self._step_items(ctx, step, stepped.state) if step.action == "create" else []
                record = stepped.run(step, items)
                for j, spec in enumerate(step.expect):
                    failures, details, actual = step_failures(spec, record)
                    check = CheckResult(_step_title(step, spec), FAILED if failures else PASSED, step.expect_lines[j],
                                        reason="; ".join(failures), details=details if failures else [],
                                        actual=actual)
                    check.seconds = time.perf_counter() - t0
                    checks.append(check)
        except Exception as exc:  # the step's error; a bug is reported as such
            internal = not isinstance(exc, KschedctlError)
            reason = internal_error_text(exc) if internal else _one_line(exc)
            line = getattr(exc, "line", None) or (step.line if step is not None else None)
            title = f"{step.where} {step.title}" if step is not None else "steps: the scenario's pods"
            checks.append(CheckResult(title, ERROR, line, reason=reason, internal=internal))
        return checks

    def _step_items(self, ctx: _Context, step: Any, state: Any) -> PodsToExplain:
        """What a ``create`` step creates: its files (read once, within the trust boundary) and
        inline objects, as the scenario's pods are read."""
        from kschedctl.inputs.fields import check_documents
        from kschedctl.inputs.loader import Document
        from kschedctl.inputs.workloads import pods_from_documents

        scenario = ctx.scenario
        items = PodsToExplain()
        for source in step.pods:
            try:
                if isinstance(source, InlinePod):
                    docs = check_documents([Document(source.obj, scenario.file, source.line)],
                                           lambda: Path(scenario.file).read_text(encoding="utf-8-sig"))
                else:
                    docs = self.documents(source)
                items.extend(pods_from_documents(docs, state))
            except KschedctlError as exc:
                line = source.line if isinstance(source, InlinePod) else step.line
                if isinstance(exc, InputError) and exc.file == scenario.file:  # an inline object: said once
                    line, exc = exc.line or line, InputError(exc.message)
                raise InputError(f"{step.where}.create: {_one_line(exc)}", scenario.file, line) from None
        return items

    # -- loading (cached) ------------------------------------------------------------------------
    def _cached(self, cache: dict, key: Any, load: Any) -> Any:
        value = cache.get(key)
        if value is None:
            try:
                value = load()
            except KschedctlError as exc:
                value = _Failed(exc)
            cache[key] = value
        if isinstance(value, _Failed):
            raise value.error
        return value

    def config(self, path: str | None) -> Any:
        """The configuration of ``path`` (None: the built-in default), loaded once."""
        from kschedctl.config import load_config

        key = None if path is None else os.path.realpath(path)

        def load() -> Any:
            cfg = load_config(path, extra_plugins=self.extra_plugins)
            self.warnings.extend(f"{path}: {w}" for w in cfg.warnings)
            return cfg

        return self._cached(self._configs, key, load)

    def cluster(self, paths: list[str], metrics: str | None = None) -> Any:
        """The cluster state of ``paths`` (with the load metrics of ``metrics``), loaded once per
        distinct list of paths and metrics file."""
        from kschedctl.inputs.cluster import load_cluster
        from kschedctl.inputs.metrics import load_metrics

        def load() -> Any:
            state = load_cluster(paths)
            if metrics is not None:
                state = state.copy()
                state.metrics = load_metrics(metrics)
            return state

        key = (tuple(os.path.realpath(p) for p in paths), None if metrics is None else os.path.realpath(metrics))
        return self._cached(self._clusters, key, load)

    def documents(self, path: str) -> list[Any]:
        """The documents of one pod file or directory, read once."""
        from kschedctl.inputs.loader import load_documents

        def load() -> list[Any]:
            docs = load_documents([path])
            if not docs:
                raise InputError("no objects found (expected a Pod or a workload)", path)
            return docs

        return self._cached(self._docs, os.path.realpath(path), load)

    def _context(self, scenario: Scenario) -> _Context:
        from kschedctl.inputs.fields import check_documents
        from kschedctl.inputs.loader import Document
        from kschedctl.inputs.workloads import pods_from_documents

        def located(field: str, load: Any) -> Any:
            # "scenario.yaml:4: cluster: fixtures/x: no such file or directory": the scenario's
            # line first, then what the loader said about the file it names.
            try:
                return load()
            except KschedctlError as exc:
                raise InputError(f"{field}: {_one_line(exc)}", scenario.file, scenario.lines.get(field)) from None

        # Files outside the trust boundary are refused as they are opened (run_scenario holds
        # every open to the policy); extenders before anything could call them.
        cfg = located("config", lambda: self.config(scenario.config))
        refused = self.trust.refused_extenders(cfg.extenders)
        if refused:
            raise InputError(f"config: {self.trust.refusal(refused, 'test')}",
                             scenario.file, scenario.lines.get("config"))
        cluster = located("metrics" if scenario.metrics else "cluster",
                          lambda: self.cluster(scenario.cluster, scenario.metrics))
        items: list[Any] = []
        bundled: list[dict] = []
        for i, source in enumerate(scenario.pods):
            if isinstance(source, InlinePod):
                # Checked as a pod file is; the error names the scenario file and the field's line.
                docs = check_documents([Document(source.obj, scenario.file, source.line)],
                                       lambda: Path(scenario.file).read_text(encoding="utf-8-sig"))
            else:
                docs = located(f"pods[{i}]", lambda: self.documents(source))
            loaded = located(f"pods[{i}]", lambda: pods_from_documents(docs, cluster))
            # Objects of the cluster state in a pods file (a claim beside its pod) join it.
            cluster = located(f"pods[{i}]", lambda: loaded.joined(cluster))
            bundled.extend(doc.obj for doc in loaded.bundled)
            items.extend(loaded)
        objects = [obj for item in items for obj in item.cluster_objects()]
        # Explainers are shared by scenarios with the same inputs: everything joined is in the key.
        objects_key = json.dumps([bundled, objects], sort_keys=True, default=str) if objects or bundled else ""
        key = (None if scenario.config is None else os.path.realpath(scenario.config),
               tuple(os.path.realpath(p) for p in scenario.cluster),
               None if scenario.metrics is None else os.path.realpath(scenario.metrics),
               scenario.seed, scenario.all_filters, objects_key)
        if objects:
            cluster = cluster.with_objects(objects)
        # What the files bring along is in ``cluster`` already: nothing is left for the batch to join.
        return _Context(scenario, cfg, cluster, PodsToExplain(items), key)

    def _explainer(self, ctx: _Context) -> Any:
        if ctx.explainer is None:
            explainer = self._explainers.get(ctx.explainer_key)
            if explainer is None:
                from kschedctl.analyses.explain import Explainer

                explainer = Explainer(ctx.cluster, ctx.config, registry=self._registry(), seed=ctx.scenario.seed,
                                      all_filters=ctx.scenario.all_filters)
                self._explainers[ctx.explainer_key] = explainer
            ctx.explainer = explainer
        return ctx.explainer

    def _registry(self) -> Any:
        if self.registry is None:
            from kschedctl.plugins.registry import default_registry

            self.registry = default_registry()
        return self.registry

    def _explain(self, ctx: _Context, index: int) -> Any:
        result = ctx.results.get(index)
        if result is None:
            from kschedctl.framework.types import PodInfo
            from kschedctl.inputs.cluster import admit
            from kschedctl.scheduler.result import ExplainResult

            explainer = self._explainer(ctx)
            pod = ctx.items[index].pod
            pod_info = PodInfo(admit(pod, ctx.cluster))
            reason = explainer.not_handled_reason(pod_info, ctx.scenario.profile)
            if reason:  # as in simulate: kube-scheduler never queues it, the scenario's other pods go on
                result = ExplainResult(pod=pod_info.key, profile="", outcome=Outcome.NOT_HANDLED, selected_node=None,
                                       message=reason, evaluated_nodes=0, feasible_nodes=0)
            else:
                result = explainer.explain(pod, ctx.scenario.profile)
            ctx.results[index] = result
        return result

    def _simulate(self, ctx: _Context, include_pending: bool) -> Any:
        result = ctx.simulations.get(include_pending)
        if result is None:
            try:
                import kschedctl.scheduler.simulate  # noqa: F401  (a build without it says so per check)
            except ImportError:
                raise SimulateNotAvailable() from None
            from kschedctl import api

            # One batch for the whole scenario: the pod limit and the duplicate check count every
            # pods entry together, as simulate does for the files of one run.
            batch, cluster = api.pods_for_simulation(ctx.items, ctx.cluster)
            seed = ctx.scenario.seed if ctx.scenario.seed is not None else DEFAULT_SIMULATE_SEED
            result = ctx.simulations[include_pending] = api.simulate(
                batch, cluster=cluster, config=ctx.config, seed=seed, profile=ctx.scenario.profile,
                include_cluster_pending=include_pending, registry=self._registry())
        return result

    # -- checking --------------------------------------------------------------------------------
    def _check(self, ctx: _Context, exp: Expectation) -> CheckResult:
        if exp.is_simulate:
            return self._check_simulate(ctx, exp)
        index = self._find_pod(ctx, exp)
        result = self._explain(ctx, index)
        check = CheckResult(exp.title, PASSED, exp.line, result.pod)
        check.actual = {"outcome": result.outcome, "node": result.selected_node, "message": result.message}
        if result.tied_nodes:
            check.actual["tiedNodes"] = list(result.tied_nodes)
        if result.preemption is not None:
            check.actual["preemption"] = result.preemption.to_dict()
        failures: list[str] = []
        details: list[str] = []
        for check_fn in (_check_outcome, _check_node, _check_message, _check_rank, _check_filter, _check_victims,
                         _check_devices):
            check_fn(exp.spec, result, ctx.scenario.seed, failures, details)
        if failures:
            check.status = FAILED
            check.reason = "; ".join(failures)
            check.details = _dedupe(details)
        return check

    def _find_pod(self, ctx: _Context, exp: Expectation) -> int:
        items = ctx.items
        name = exp.pod
        where = (ctx.scenario.file, exp.line)
        if name is None:
            if len(items) == 1:
                return 0
            raise InputError(f"expect[{exp.index}]: say which pod (pod: namespace/name): the scenario has "
                             f"{len(items)} pods ({_names(items)})", *where)
        key = pod_key(name)
        for i, item in enumerate(items):
            if item.key == key:
                return i
        owned = [i for i, item in enumerate(items) if _workload_key(item) == key]
        if owned:
            return owned[0]
        raise InputError(f"expect[{exp.index}]: no pod {key} among the scenario's pods ({_names(items)}); "
                         f"name a pod or its workload", *where)

    def _check_simulate(self, ctx: _Context, exp: Expectation) -> CheckResult:
        spec = exp.spec["simulate"]
        check = CheckResult(exp.title, PASSED, exp.line)
        try:
            result = self._simulate(ctx, bool(spec.get("includeClusterPending", True)))
        except SimulateNotAvailable:
            check.status = FAILED
            check.reason = "simulate is not available in this build of kschedctl (kschedctl.scheduler.simulate)"
            return check
        failures, details = simulate_failures(spec, result)
        per_node = _count_per_node(result)
        check.actual = {"countPerNode": per_node, "countPerZone": _count_per_zone(result, per_node),
                        "scheduled": _count_outcome(result, Outcome.SCHEDULED),
                        "unschedulable": _count_outcome(result, Outcome.UNSCHEDULABLE)}
        if failures:
            check.status = FAILED
            check.reason = "; ".join(failures)
            check.details = details
        return check


# ---------------------------------------------------------------------------------------------
# Pod checks: each appends a one-line failure and lines of explanation
# ---------------------------------------------------------------------------------------------


def landing_nodes(result: Any, seed: int | None) -> list[str]:
    """Where the pod may land: the selected node, or every node tied at the top without a seed."""
    if not result.selected_node:
        return []
    if seed is None and len(result.tied_nodes) > 1:
        return list(result.tied_nodes)
    return [result.selected_node]


def _check_outcome(spec: dict, r: Any, seed: int | None, failures: list[str], details: list[str]) -> None:
    want = spec.get("outcome")
    if want is None or r.outcome == want:
        return
    got = f"{r.outcome} on {r.selected_node}" if r.selected_node else r.outcome
    failures.append(f"outcome: expected {want}, got {got}")
    if r.message:
        details.append(f"message: {r.message}")
    if r.outcome == Outcome.SCHEDULED and r.selected_node:
        n = r.node(r.selected_node)
        if n is not None and n.total_score is not None:
            details.append(f"{r.selected_node} passed every filter (total score {n.total_score}); "
                           f"{r.feasible_nodes} of {r.evaluated_nodes} evaluated nodes were feasible")


def _check_node(spec: dict, r: Any, seed: int | None, failures: list[str], details: list[str]) -> None:
    node, node_in, not_node = spec.get("node"), spec.get("nodeIn"), as_list(spec.get("notNode"))
    if node is None and node_in is None and not not_node:
        return
    landing = landing_nodes(r, seed)
    tie_note = _tie_note(r, seed)
    wanted = [node] if node is not None else list(node_in or [])
    if wanted:
        if not landing:
            failures.append(f"{_want_text(node, node_in)}, but the pod was not scheduled ({r.outcome})")
            if r.message:
                details.append(f"message: {r.message}")
            details.extend(_why_not(r, wanted, None))
        elif not set(landing) <= set(wanted):
            got = _landing_text(r, landing)
            failures.append(f"{_want_text(node, node_in)}, got {got}")
            if node is not None and node in landing:
                details.append(tie_note)
            else:
                details.extend(_why_not(r, wanted, r.selected_node))
                if tie_note and len(landing) > 1:
                    details.append(tie_note)
    if not_node:
        hit = [n for n in landing if n in not_node]
        if hit:
            failures.append(f"expected not on {', '.join(not_node)}, got {_landing_text(r, landing)}")
            runner_up = _best_node(r, exclude=set(not_node))
            chosen = r.node(hit[0])
            if runner_up is None:
                details.append("no other node was feasible: " + _filter_summary(r, exclude=set(not_node)))
            elif chosen is not None and runner_up.total_score != chosen.total_score:
                details.append(_score_gap(chosen, runner_up))
            if tie_note and len(landing) > 1:
                details.append(tie_note)


def _check_message(spec: dict, r: Any, seed: int | None, failures: list[str], details: list[str]) -> None:
    want = spec.get("messageContains")
    if want is None or want in (r.message or ""):
        return
    failures.append(f"message does not contain {json.dumps(want)}")
    details.append(f"message: {r.message}" if r.message else "message: (empty)")


def _check_rank(spec: dict, r: Any, seed: int | None, failures: list[str], details: list[str]) -> None:
    rank = spec.get("rank")
    if rank is None:
        return
    name = rank["node"]
    want = f"rank {rank['is']}" if "is" in rank else f"rank at most {rank['atMost']}"
    n = r.node(name)
    if n is None:
        failures.append(f"rank: no node {name} in the cluster")
        return
    if n.rank is None:
        failures.append(f"rank: expected {name} at {want}, but it was not scored")
        details.extend(_why_not(r, [name], None))
        return
    ok = n.rank == rank["is"] if "is" in rank else n.rank <= rank["atMost"]
    if ok:
        return
    failures.append(f"rank: expected {name} at {want}, got rank {n.rank} (total score {n.total_score})")
    ranked = sorted((x for x in r.nodes if x.rank is not None), key=lambda x: (x.rank, x.name))
    details.append("ranking: " + ", ".join(f"{x.rank}. {x.name} {x.total_score}" for x in ranked[:6])
                   + (", ..." if len(ranked) > 6 else ""))
    best = ranked[0] if ranked else None
    if best is not None and best.name != name:
        details.append(_score_gap(best, n))


def _check_filter(spec: dict, r: Any, seed: int | None, failures: list[str], details: list[str]) -> None:
    want = spec.get("filter")
    if want is None:
        return
    name = want["node"]
    n = r.node(name)
    if n is None:
        failures.append(f"filter: no node {name} in the cluster")
        return
    plugin, code = want.get("plugin"), want.get("code")
    reason, contains = want.get("reason"), want.get("reasonContains")
    entries = [f for f in n.filters if plugin is None or f.plugin == plugin]
    ran = ", ".join(f"{f.plugin} {f.code}" for f in n.filters) or "none"
    expected = _filter_want_text(want)
    if not entries:
        if plugin is not None:
            failures.append(f"filter: expected {expected} on {name}, but {plugin} did not run there")
            details.append(f"filters on {name}: {ran}")
            if n.verdict() is not None:
                details.append("upstream stops at the first failing filter: set allFilters: true in the scenario "
                               "to run every filter on every node")
        else:
            failures.append(f"filter: expected {expected} on {name}, but no filter ran there")
        return
    for f in entries:
        if code is not None and f.code != code:
            continue
        if code is None and f.code == "Success":
            continue
        if reason is not None and reason not in f.reasons:
            continue
        if contains is not None and not any(contains in x for x in f.reasons):
            continue
        return
    failures.append(f"filter: expected {expected} on {name}")
    for f in entries:
        reasons = "; ".join(f.reasons)
        details.append(f"{f.plugin} on {name}: {f.code}" + (f": {reasons}" if reasons else ""))


def _check_devices(spec: dict, r: Any, seed: int | None, failures: list[str], details: list[str]) -> None:
    want = spec.get("devices")
    if want is None:
        return
    node = r.node(r.selected_node) if r.selected_node else None
    got = sorted(f"{d.get('driver')}/{d.get('pool')}/{d.get('device')}"
                 for claim in (node.allocations() if node is not None else ()) for d in claim.get("devices") or ())
    if sorted(want) == got:
        return
    failures.append(f"devices: expected [{', '.join(sorted(want))}], got [{', '.join(got)}]")
    if node is None:
        details.append(f"the pod was not scheduled ({r.outcome})" + (f": {r.message}" if r.message else ""))


def _check_victims(spec: dict, r: Any, seed: int | None, failures: list[str], details: list[str]) -> None:
    victims, nominated = spec.get("victims"), spec.get("nominatedNode")
    if victims is None and nominated is None:
        return
    pre = r.preemption
    actual = sorted(pre.victims) if pre is not None else []
    if victims is not None:
        want = sorted(pod_key(v) for v in victims)
        if want != actual:
            failures.append(f"victims: expected [{', '.join(want)}], got [{', '.join(actual)}]")
            if pre is None:
                details.append(f"no preemption ({r.outcome})" + (f": {r.message}" if r.message else ""))
            else:
                details.append(f"preemption nominated {pre.nominated_node}")
    if nominated is not None:
        got = pre.nominated_node if pre is not None else None
        if got != nominated:
            failures.append(f"nominatedNode: expected {nominated}, got {got or 'none'}")
            if pre is None and r.message:
                details.append(f"message: {r.message}")


# ---------------------------------------------------------------------------------------------
# Simulate checks
# ---------------------------------------------------------------------------------------------


def simulate_failures(spec: dict, result: Any) -> tuple[list[str], list[str]]:
    """What a simulate run did differently from ``spec`` (failures, then details)."""
    failures: list[str] = []
    details: list[str] = []
    per_node = _count_per_node(result)
    known_nodes = {n.name for n in result.nodes}
    want_nodes = spec.get("countPerNode")
    if want_nodes is not None:
        wrong = [f"{n} expected {c}, got {per_node.get(n, 0)}" + ("" if n in known_nodes else " (no such node)")
                 for n, c in want_nodes.items() if per_node.get(n, 0) != c]
        if wrong:
            failures.append("countPerNode: " + ", ".join(wrong))
            details.append("pods per node: " + _counts_text(per_node))
    want_zones = spec.get("countPerZone")
    if want_zones is not None:
        per_zone = _count_per_zone(result, per_node)
        wrong = [f"{z} expected {c}, got {per_zone.get(z, 0)}" for z, c in want_zones.items()
                 if per_zone.get(z, 0) != c]
        if wrong:
            failures.append("countPerZone: " + ", ".join(wrong))
            details.append("pods per zone: " + _counts_text(per_zone))
    for key, outcome in (("scheduled", Outcome.SCHEDULED), ("unschedulable", Outcome.UNSCHEDULABLE)):
        if key in spec:
            got = _count_outcome(result, outcome)
            if got != spec[key]:
                failures.append(f"{key}: expected {spec[key]} pods, got {got}")
    by_pod = {p.pod: p for p in result.placements}
    for p, node in _per_pod(spec, "placements", by_pod, failures):
        got = p.node if p.outcome == Outcome.SCHEDULED else None
        if got != node:
            failures.append(f"placements: {p.pod} expected on {node or 'no node'}, got "
                            f"{got or p.outcome}")
            if p.message:
                details.append(f"{p.pod} {p.outcome}: {p.message}")
    for p, want_devices in _per_pod(spec, "devices", by_pod, failures):
        if sorted(want_devices) != sorted(p.devices):
            failures.append(f"devices: {p.pod} expected [{', '.join(sorted(want_devices))}], got "
                            f"[{', '.join(sorted(p.devices))}]")
    preempted = spec.get("preempted")
    if preempted is not None:
        got = sorted({v for rec in result.preemptions for v in rec.victims})
        want = sorted(pod_key(v) for v in preempted)
        if got != want:
            failures.append(f"preempted: expected [{', '.join(want)}], got [{', '.join(got)}]")
    if failures:
        stuck = [p for p in result.placements if p.outcome not in (Outcome.SCHEDULED, Outcome.PREEMPTED)]
        for p in stuck[:3]:
            details.append(f"{p.pod} {p.outcome}" + (f": {p.message}" if p.message else ""))
        if len(stuck) > 3:
            details.append(f"... and {len(stuck) - 3} more pods not scheduled")
    return failures, _dedupe(details)


def _per_pod(spec: dict, key: str, by_pod: dict, failures: list[str]) -> Iterator[tuple[Any, Any]]:
    """(placement, wanted value) for each pod a per-pod simulate expectation names, in order; a
    pod the run does not have is a failure."""
    for pod, want in (spec.get(key) or {}).items():
        p = by_pod.get(pod_key(pod))
        if p is None:
            failures.append(f"{key}: no pod {pod_key(pod)} in the run")
        else:
            yield p, want


def _count_per_node(result: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for p in result.placements:
        if p.outcome == Outcome.SCHEDULED and p.node:
            out[p.node] = out.get(p.node, 0) + 1
    return out


def _count_per_zone(result: Any, per_node: dict[str, int]) -> dict[str, int]:
    zone_of = {n.name: n.zone for n in result.nodes}
    out: dict[str, int] = {}
    for node, count in per_node.items():
        zone = zone_of.get(node, "")
        out[zone] = out.get(zone, 0) + count
    return out


def _count_outcome(result: Any, outcome: str) -> int:
    return sum(1 for p in result.placements if p.outcome == outcome)


def _counts_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{k or '(no zone)'} {v}" for k, v in sorted(counts.items())) or "none"


# ---------------------------------------------------------------------------------------------
# Explanations: why a node lost
# ---------------------------------------------------------------------------------------------


def _why_not(r: Any, wanted: list[str], chosen: str | None) -> list[str]:
    """For each wanted node (best first, at most three): its filter verdict or its score gap."""
    chosen_node = r.node(chosen) if chosen else None
    nodes = []
    out = []
    for name in wanted:
        n = r.node(name)
        if n is None:
            out.append(f"{name}: no such node in the cluster")
        else:
            nodes.append(n)
    nodes.sort(key=lambda n: (not n.feasible, -(n.total_score or 0)))
    for n in nodes[:3]:
        if not n.feasible:
            v = n.verdict()
            if v is not None:
                out.append(f"{n.name} was filtered out by {v.plugin}: {'; '.join(v.reasons) or v.code}")
            elif not n.evaluated:
                out.append(f"{n.name} was not evaluated: the scheduler stopped after finding "
                           f"{r.num_nodes_to_find} feasible nodes (percentageOfNodesToScore)")
            else:
                out.append(f"{n.name} was not feasible")
        elif chosen_node is not None and n.total_score is not None and chosen_node.total_score is not None:
            out.append(_score_gap(chosen_node, n))
    if len(nodes) > 3:
        out.append(f"... and {len(nodes) - 3} more expected nodes")
    return out


def _score_gap(winner: Any, loser: Any) -> str:
    """``node-a1 scored 479, node-b2 494 (-15): NodeResourcesBalancedAllocation 91 vs 100 (-9), ...``

    The plugins are those where the loser fell behind the most (weighted scores), the
    decisive ones first; plugins that gave both nodes the same are left out.
    """
    w = {s.plugin: s.weighted for s in winner.scores}
    lo = {s.plugin: s.weighted for s in loser.scores}
    plugins = list(dict.fromkeys([*lo, *w]))
    diffs = [(p, lo.get(p, 0), w.get(p, 0)) for p in plugins if lo.get(p, 0) != w.get(p, 0)]
    diffs.sort(key=lambda d: d[1] - d[2])
    total_gap = (loser.total_score or 0) - (winner.total_score or 0)
    head = f"{loser.name} scored {loser.total_score}, {winner.name} {winner.total_score} ({total_gap:+d})"
    if not diffs:
        return head + ": every plugin gave both the same score"
    parts = [f"{p} {a} vs {b} ({a - b:+d})" for p, a, b in diffs[:_MAX_PLUGINS]]
    if len(diffs) > _MAX_PLUGINS:
        parts.append(f"{len(diffs) - _MAX_PLUGINS} more")
    return f"{head}: " + ", ".join(parts)


def _best_node(r: Any, exclude: set[str]) -> Any:
    best = None
    for n in r.nodes:
        if n.name in exclude or not n.feasible or n.total_score is None:
            continue
        if best is None or n.total_score > best.total_score:
            best = n
    return best


def _filter_summary(r: Any, exclude: set[str]) -> str:
    counts: dict[str, int] = {}
    for n in r.nodes:
        if n.name in exclude:
            continue
        v = n.verdict()
        if v is not None:
            key = f"{v.plugin}: {'; '.join(v.reasons) or v.code}"
            counts[key] = counts.get(key, 0) + 1
    return ", ".join(f"{c} x {k}" for k, c in counts.items()) or "no other node"


def _tie_note(r: Any, seed: int | None) -> str:
    if len(r.tied_nodes) < 2:
        return ""
    n = r.node(r.tied_nodes[0])
    score = f" at total score {n.total_score}" if n is not None else ""
    if seed is None:
        return (f"{', '.join(r.tied_nodes)} are tied{score}: kube-scheduler picks one of them at random; "
                f"expect nodeIn: [{', '.join(r.tied_nodes)}], or set seed: in the scenario")
    return f"{', '.join(r.tied_nodes)} are tied{score}; seed {seed} picks {r.selected_node}"


def _landing_text(r: Any, landing: list[str]) -> str:
    if len(landing) > 1:
        return "a tie between " + ", ".join(landing)
    return landing[0]


def _want_text(node: str | None, node_in: list[str] | None) -> str:
    if node is not None:
        return f"expected node {node}"
    return f"expected one of {', '.join(node_in or [])}"


def _filter_want_text(want: dict) -> str:
    parts = [want["plugin"]] if want.get("plugin") else ["a filter"]
    code = want.get("code")
    parts.append(f"with {code}" if code else "rejecting")
    if want.get("reason"):
        parts.append(json.dumps(want["reason"]))
    if want.get("reasonContains"):
        parts.append(f"(reason containing {json.dumps(want['reasonContains'])})")
    return " ".join(parts)


# ---------------------------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------------------------


def _workload_key(item: Any) -> str | None:
    source = getattr(item, "source", None)
    if source is None or source.kind == "Pod":
        return None
    meta = source.obj.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name', '')}"


def _names(items: list[Any]) -> str:
    keys = [item.key for item in items]
    return ", ".join(keys[:8]) + (f", ... {len(keys) - 8} more" if len(keys) > 8 else "") if keys else "none"


def _step_title(step: Any, spec: dict) -> str:
    from kschedctl.scenarios.steps import expectation_title

    return f"{step.where} {step.title}: {expectation_title(spec)}"


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split("\n"))


def _dedupe(lines: list[str]) -> list[str]:
    return [x for x in dict.fromkeys(lines) if x]


def run_paths(paths: Iterable[str], registry: Any = None,
              extra_plugins: dict[str, tuple[str, ...]] | None = None) -> TestReport:
    """Load the scenarios of ``paths`` (ScenarioFileError when any is bad) and run them."""
    from kschedctl.scenarios.files import load_scenarios

    scenarios = load_scenarios(paths)
    return ScenarioRunner(registry, extra_plugins).run(scenarios)
