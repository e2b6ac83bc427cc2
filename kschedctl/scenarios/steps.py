"""Steps of scenarios and of ``simulate --steps FILE``: reading a steps file, the checks of a
step's ``expect``, and the pods a ``create`` step names.

A steps file is ``apiVersion: kschedctl/v1``, ``kind: Steps`` and ``steps:``, the list a
scenario's ``steps:`` holds (paths in it relative to the file). The checks look at the cluster
after the step (``StepRecord``): all of its pods, or those ``selector`` matches.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

from kschedctl.config.lines import MAX_BYTES, LineWalker, read_nodes
from kschedctl.errors import InputError
from kschedctl.inputs import access
from kschedctl.k8s.selectors import parse_selector
from kschedctl.scenarios.model import API_VERSION, InlinePod, pod_key, resolve_sources
from kschedctl.analyses.steps import Step, SteppedCluster, StepRecord, parse_steps

STEPS_KIND = "Steps"


@lru_cache(maxsize=1)
def _validator() -> Any:
    import jsonschema

    from kschedctl.scenarios.files import schema

    base = schema()
    doc = {
        "$schema": base["$schema"], "$defs": base["$defs"], "type": "object", "additionalProperties": False,
        "required": ["apiVersion", "kind", "steps"],
        "properties": {"apiVersion": {"const": API_VERSION}, "kind": {"const": STEPS_KIND},
                       "name": {"type": "string"}, "description": {"type": "string"},
                       "steps": base["properties"]["steps"]},
    }
    return jsonschema.Draft202012Validator(doc)


def read_steps_file(path: str) -> list[Step]:
    """The steps of a steps file (``create`` paths resolved against its directory); an
    ``InputError`` naming the file and line of the first problem."""
    from kschedctl.scenarios.files import schema_findings

    try:
        with access.open_input(path, regular_only=True) as fh:
            raw = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", path) from None
    if len(raw) > MAX_BYTES:
        raise InputError(f"file is larger than {MAX_BYTES // (1024 * 1024)} MiB", path)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError("the file is not UTF-8 text", path) from None
    nodes = [n for n in read_nodes(text, path) if n is not None]
    if len(nodes) != 1:
        raise InputError(f"expected one document (apiVersion: {API_VERSION}, kind: {STEPS_KIND}), found {len(nodes)}",
                         path)
    walker = LineWalker(path)
    data = walker.build(nodes[0], "", 0)
    if walker.duplicates:
        field, line = walker.duplicates[0]
        raise InputError(f"{field}: duplicate key", path, line)
    if not isinstance(data, dict):
        raise InputError(f"expected a mapping with apiVersion: {API_VERSION}, kind: {STEPS_KIND}, steps:", path,
                         nodes[0].start_mark.line + 1)
    problems = schema_findings(data, walker.lines, path, nodes[0].start_mark.line + 1, _validator(),
                               what="the steps file")
    if problems:
        raise InputError(problems[0].message, path, problems[0].line)
    steps = parse_steps(data["steps"], walker.lines, path)
    resolve_sources(steps, path, walker.lines)
    return steps


# ------------------------------------------------------------------------------------ checks


def expectation_title(spec: dict) -> str:
    """``name``, else the checks in short (``pending [a], countPerNode {node-a1: 2}``)."""
    if spec.get("name"):
        return str(spec["name"])
    from kschedctl.scenarios.model import short_value

    return ", ".join(f"{k} {short_value(v)}" for k, v in spec.items())


def step_failures(spec: dict, record: StepRecord) -> tuple[list[str], list[str], dict[str, Any]]:
    """What the cluster after the step does differently from ``spec``: failures, details, and
    what was observed (for JSON)."""
    failures: list[str] = []
    details: list[str] = []
    pods = record.pods
    selector = spec.get("selector")
    if selector:
        try:
            sel = parse_selector(selector)
        except Exception as exc:  # noqa: BLE001 - any parse problem is the expectation's
            raise InputError(f"selector {selector!r}: {exc}") from None
        pods = [p for p in pods if sel.matches(record.labels.get(p.pod, {}))]
    live = [p for p in pods if p.phase not in ("Succeeded", "Failed")]
    by_key = {p.pod: p for p in live}
    pending = sorted(p.pod for p in live if p.pending)
    per_node: dict[str, int] = {}
    for p in live:
        if p.node:
            per_node[p.node] = per_node.get(p.node, 0) + 1
    actual: dict[str, Any] = {"countPerNode": dict(sorted(per_node.items())), "pending": pending,
                              "scheduled": sum(per_node.values())}
    for pod, node in (spec.get("placements") or {}).items():
        key = pod_key(pod)
        got = by_key.get(key)
        if got is None:
            failures.append(f"placements: no pod {key} in the cluster")
        elif got.node != node:
            failures.append(f"placements: {key} expected on {node or 'no node (pending)'}, got "
                            f"{got.node or 'pending'}")
            if got.message:
                details.append(f"{key}: {got.message}")
    if "pending" in spec:
        want = sorted(pod_key(p) for p in spec["pending"])
        if want != pending:
            failures.append(f"pending: expected [{', '.join(want)}], got [{', '.join(pending)}]")
    for pod, text in (spec.get("messages") or {}).items():
        key = pod_key(pod)
        got = by_key.get(key)
        if got is None or not got.pending:
            failures.append(f"messages: {key} is not pending" if got else f"messages: no pod {key} in the cluster")
        elif text not in got.message:
            failures.append(f"messages: {key}'s message does not contain {text!r}")
            details.append(f"{key}: {got.message or '(no message)'}")
    want_nodes = spec.get("countPerNode")
    if want_nodes is not None:
        wrong = [f"{n} expected {c}, got {per_node.get(n, 0)}" for n, c in want_nodes.items()
                 if per_node.get(n, 0) != c]
        if wrong:
            failures.append("countPerNode: " + ", ".join(wrong))
            details.append("pods per node: " + (", ".join(f"{k} {v}" for k, v in sorted(per_node.items())) or "none"))
    want_zones = spec.get("countPerZone")
    if want_zones is not None:
        per_zone: dict[str, int] = {}
        for node, count in per_node.items():
            zone = record.zones.get(node, "")
            per_zone[zone] = per_zone.get(zone, 0) + count
        wrong = [f"{z} expected {c}, got {per_zone.get(z, 0)}" for z, c in want_zones.items()
                 if per_zone.get(z, 0) != c]
        if wrong:
            failures.append("countPerZone: " + ", ".join(wrong))
    for key, got_count in (("scheduled", sum(per_node.values())), ("unschedulable", len(pending))):
        if key in spec and spec[key] != got_count:
            failures.append(f"{key}: expected {spec[key]} pods, got {got_count}")
    for key, got_set in (("preempted", record.preempted), ("evicted", record.evicted)):
        if key in spec:
            want = sorted(pod_key(p) for p in spec[key])
            got = sorted(got_set)
            if want != got:
                failures.append(f"{key}: expected [{', '.join(want)}], got [{', '.join(got)}]")
    if failures:
        stuck = [p for p in live if p.pending]
        details.extend(f"{p.pod} pending: {p.message}" for p in stuck[:3] if p.message)
    return failures, list(dict.fromkeys(details)), actual


# ------------------------------------------------------------------------------------ a run


@dataclass
class StepCheck:
    """The verdict on one ``expect`` item of a step."""

    step: int
    title: str
    line: int | None
    failures: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"step": self.step, "name": self.title, "line": self.line,
                               "status": "passed" if self.passed else "failed"}
        if self.failures:
            out["reason"] = "; ".join(self.failures)
        if self.details:
            out["details"] = list(self.details)
        return out


@dataclass
class SteppedRun:
    """``simulate --steps``: the scheduling of the pending pods, then each step with its checks."""

    initial: StepRecord
    records: list[StepRecord] = field(default_factory=list)
    checks: list[StepCheck] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """Every check passed; without checks, nothing is left pending (as simulate's exit code)."""
        if self.checks:
            return all(c.passed for c in self.checks)
        last = self.records[-1] if self.records else self.initial
        return not last.pending

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "SteppedSimulation", "passed": self.passed, "initial": self.initial.to_dict(),
                "steps": [r.to_dict() for r in self.records], "checks": [c.to_dict() for c in self.checks]}


def run_steps(stepped: SteppedCluster, steps: list[Step], items_of: Callable[[Step, Any], list[Any]],
              pods: list[dict] | None = None) -> SteppedRun:
    """Schedule ``pods`` and what is pending, then run ``steps`` in order with their checks;
    ``items_of(step, state)`` reads what a ``create`` step creates."""
    run = SteppedRun(stepped.settle(pods=pods or ()))
    for step in steps:
        items = items_of(step, stepped.state) if step.action == "create" else []
        record = stepped.run(step, items)
        run.records.append(record)
        for j, spec in enumerate(step.expect):
            failures, details, _ = step_failures(spec, record)
            run.checks.append(StepCheck(step.index, expectation_title(spec), step.expect_lines[j], failures, details))
    return run


def confined_file_items(steps_file: str, allow_outside_paths: bool = False) -> Callable[[Step, Any], list[Any]]:
    """``file_items`` for ``simulate --steps FILE``, held to ``kschedctl test``'s trust rules: a steps
    file may come from a pull request as a scenario does, so its ``create`` files must resolve
    inside the repository holding it (``scenario_root`` of its directory) and be regular files.
    ``allow_outside_paths`` lifts the first rule, not the second (a FIFO would hang the run)."""
    import os

    from kschedctl.scenarios.trust import scenario_root

    # "/" holds every path: confined to it, open_input still refuses what is not a regular file.
    roots = ("/",) if allow_outside_paths else (scenario_root(os.path.dirname(os.path.realpath(steps_file))),)

    def items(step: Step, state: Any) -> list[Any]:
        with access.confined(roots):
            return file_items(step, state)

    return items


def file_items(step: Step, state: Any) -> list[Any]:
    """What a ``create`` step of a steps file creates: its files and inline objects."""
    from kschedctl.inputs.fields import check_documents
    from kschedctl.inputs.loader import Document, load_documents
    from kschedctl.inputs.workloads import PodsToExplain, pods_from_documents

    items = PodsToExplain()
    for source in step.pods:
        if isinstance(source, InlinePod):
            docs = check_documents([Document(source.obj, step.file, source.line)])
        else:
            docs = load_documents([source])
        items.extend(pods_from_documents(docs, state))
    return items
