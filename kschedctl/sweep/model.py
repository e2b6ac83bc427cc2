"""Sweep files (``apiVersion: kschedctl/v1``, ``kind: Sweep``) and the matrix they stand for.

A sweep names configurations (files, or one file with parameter variations), clusters and
workloads; every configuration runs on every cluster with every workload, ``repetitions``
times with seeds ``seed``, ``seed + 1``, ... Each such run is a :class:`Cell`, a plain
picklable value that a worker process (or a Ray task) turns into metrics on its own.

Parameter variations (``vary``) map a field path of the configuration to the values it takes;
every combination of the values is one configuration, named ``base[path=value,...]``. A path
is dotted keys with ``[N]`` for a list index and ``[NAME]`` for the item whose ``name`` (or, for
profiles, ``schedulerName``) is NAME; missing mappings and named items are created, so
``profiles[default-scheduler].pluginConfig[NodeResourcesFit].args.scoringStrategy.type`` works
on a file that configures nothing yet.
"""

from __future__ import annotations

import copy
import itertools
import json
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from kschedctl.errors import InputError
from kschedctl.k8s.defaults import DEFAULT_SCHEDULER_NAME

API_VERSION = "kschedctl/v1"
KIND = "Sweep"
_SCHEMA_PATH = Path(__file__).with_name("schema.json")
DEFAULT_SEED = 1
#: At most this many cells in one sweep: a mistyped matrix must not exhaust memory.
MAX_CELLS = 100_000
#: One path segment: a key followed by any number of [selector]s.
_SEGMENT = re.compile(r"^([^.\[\]]*)((?:\[[^\[\]]+\])*)$")


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The JSON Schema of sweep files shipped with kschedctl."""
    return json.loads(_SCHEMA_PATH.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class ConfigSource:
    """One configuration of the matrix: a file (None: the built-in default) and the values set
    on it, applied in order."""

    name: str
    file: str | None
    profile: str | None = None
    settings: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class ClusterSource:
    """A cluster state of the matrix; ``what_if`` is the JSON of a ``whatIfs`` item applied to it
    (node what-ifs, as ``simulate --drain ...``), "" for the state as read."""

    name: str
    files: tuple[str, ...]
    metrics: str | None = None
    what_if: str = ""


@dataclass(frozen=True)
class WorkloadSource:
    name: str
    files: tuple[str, ...]


@dataclass(frozen=True)
class Cell:
    """One simulate run of the matrix."""

    index: int
    config: ConfigSource
    cluster: ClusterSource
    workload: WorkloadSource
    repetition: int
    seed: int
    include_cluster_pending: bool = False
    #: measure the nodes that could go after the run, below this utilization (None: not measured)
    removable: float | None = None


@dataclass
class Sweep:
    name: str
    file: str
    configs: list[ConfigSource]
    clusters: list[ClusterSource]
    workloads: list[WorkloadSource]
    repetitions: int = 1
    seed: int = DEFAULT_SEED
    include_cluster_pending: bool = False
    lines: dict[str, int] = field(default_factory=dict)
    removable: float | None = None

    def cells(self) -> list[Cell]:
        """Every run, configurations outermost, then clusters, workloads and repetitions."""
        out = []
        for cfg, cluster, workload, rep in itertools.product(
                self.configs, self.clusters, self.workloads, range(self.repetitions)):
            out.append(Cell(len(out), cfg, cluster, workload, rep, self.seed + rep, self.include_cluster_pending,
                            self.removable))
        return out


# -- reading ------------------------------------------------------------------------------------


def read_sweep(path: str) -> Sweep:
    """The sweep of ``path``; every problem of the file at once as a ``ScenarioFileError``
    listing ``file:line: message`` findings (exit 2)."""
    from kschedctl.scenarios.files import ScenarioFileError

    from kschedctl.inputs import access

    try:
        with access.open_input(path) as fh:
            raw = fh.read(16 * 1024 * 1024 + 1)
    except OSError as exc:
        raise InputError(f"cannot read the sweep file: {exc.strerror or exc}", path) from None
    if len(raw) > 16 * 1024 * 1024:
        raise InputError("the sweep file is larger than 16 MiB", path)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError("the sweep file is not UTF-8 text", path) from None
    sweep, findings = parse_sweep(text, path)
    if findings:
        raise ScenarioFileError(findings)
    assert sweep is not None
    return sweep


def parse_sweep(text: str, name: str) -> tuple[Sweep | None, list[Any]]:
    """The sweep in ``text`` (read as the file ``name``) and the problems found, with lines."""
    import jsonschema

    from kschedctl.config.lines import LineWalker, read_nodes
    from kschedctl.scenarios.files import Finding, schema_findings

    try:
        nodes = [n for n in read_nodes(text, name) if n is not None]
    except InputError as exc:
        return None, [Finding(name, exc.line, exc.message)]
    if len(nodes) != 1:
        return None, [Finding(name, None, f"a sweep file holds one document (apiVersion: {API_VERSION}, "
                                          f"kind: {KIND}), not {len(nodes)}")]
    walker = LineWalker(name)
    try:
        data = walker.build(nodes[0], "", 0)
    except InputError as exc:
        return None, [Finding(name, exc.line, exc.message)]
    doc_line = nodes[0].start_mark.line + 1
    lines = walker.lines
    if walker.duplicates:
        return None, [Finding(name, line, f"{path}: duplicate key") for path, line in walker.duplicates]
    if not isinstance(data, dict) or data.get("kind") != KIND:
        kind = data.get("kind") if isinstance(data, dict) else None
        what = f"kind {kind}" if isinstance(kind, str) and kind else "no kind"
        return None, [Finding(name, lines.get("kind", doc_line),
                              f"not a sweep ({what}): expected apiVersion: {API_VERSION}, kind: {KIND}")]
    data = _expand_shorthands(data)
    validator = jsonschema.Draft202012Validator(schema())
    findings = schema_findings(data, lines, name, doc_line, validator=validator, what="the sweep")
    if findings:
        return None, findings
    base = os.path.dirname(os.path.abspath(name))
    try:
        sweep = _build(data, name, base, lines)
    except _Problem as exc:
        return None, [Finding(name, exc.line, exc.message)]
    return sweep, []


class _Problem(Exception):
    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.message, self.line = message, line


def _expand_shorthands(data: dict[str, Any]) -> dict[str, Any]:
    """A bare string in configs / clusters / workloads is a path."""
    out = dict(data)
    for key, field_name in (("configs", "file"), ("clusters", "files"), ("workloads", "files")):
        items = out.get(key)
        if isinstance(items, list):
            out[key] = [{field_name: item} if isinstance(item, str) else item for item in items]
    return out


def _paths(value: Any) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


def _stem(path: str) -> str:
    base = os.path.basename(path.rstrip("/\\")) or path
    for ext in (".yaml", ".yml", ".jsonl", ".json"):
        if base.endswith(ext):
            return base[: -len(ext)]
    return base


def _resolve(base: str, path: str) -> str:
    return path if os.path.isabs(path) else os.path.normpath(os.path.join(base, path))


def _unique(names: list[str], what: str, lines: dict[str, int]) -> None:
    seen: dict[str, int] = {}
    for i, n in enumerate(names):
        if n in seen:
            raise _Problem(f"{what}[{i}]: the name {n!r} is taken by {what}[{seen[n]}]; give one a name:",
                           lines.get(f"{what}[{i}]"))
        seen[n] = i


def _build(data: dict[str, Any], file: str, base: str, lines: dict[str, int]) -> Sweep:
    n_configs = 0
    for spec in data["configs"]:
        combos = 1
        for values in (spec.get("vary") or {}).values():
            combos *= len(values)
        n_configs += combos
    n_clusters = len(data["clusters"]) * max(len(data.get("whatIfs") or ()), 1)
    total = n_configs * n_clusters * len(data["workloads"]) * int(data.get("repetitions") or 1)
    if total > MAX_CELLS:
        raise _Problem(f"the matrix has {total:,} cells ({n_configs:,} configurations x {n_clusters} "
                       f"clusters x {len(data['workloads'])} workloads x {int(data.get('repetitions') or 1)} "
                       f"repetitions); at most {MAX_CELLS:,} are run", lines.get("configs"))
    configs: list[ConfigSource] = []
    for i, spec in enumerate(data["configs"]):
        path = _resolve(base, spec["file"]) if spec.get("file") else None
        name = spec.get("name") or (_stem(spec["file"]) if spec.get("file") else "default")
        vary = spec.get("vary") or {}
        for key in vary:
            try:
                parse_path(key)
            except ValueError as exc:
                raise _Problem(f"configs[{i}].vary: {exc}", lines.get(f"configs[{i}].vary.{key}",
                                                                       lines.get(f"configs[{i}].vary"))) from None
        if not vary:
            configs.append(ConfigSource(name, path, spec.get("profile")))
            continue
        keys = list(vary)
        # names show each path's last key, or the whole paths when two end alike
        short = [k.rsplit(".", 1)[-1] for k in keys]
        shown = short if len(set(short)) == len(short) else keys
        for values in itertools.product(*(vary[k] for k in keys)):
            settings = tuple(zip(keys, values))
            label = ",".join(f"{k}={_show(v)}" for k, v in zip(shown, values))
            configs.append(ConfigSource(f"{name}[{label}]", path, spec.get("profile"), settings))
    clusters = [ClusterSource(spec.get("name") or _stem(_paths(spec["files"])[0]),
                              tuple(_resolve(base, p) for p in _paths(spec["files"])),
                              _resolve(base, spec["metrics"]) if spec.get("metrics") else None)
                for spec in data["clusters"]]
    if data.get("whatIfs"):
        clusters = _with_what_ifs(clusters, data["whatIfs"], lines)
    workloads = [WorkloadSource(spec.get("name") or _stem(_paths(spec["files"])[0]),
                                tuple(_resolve(base, p) for p in _paths(spec["files"])))
                 for spec in data["workloads"]]
    _unique([c.name for c in configs], "configs", lines)
    _unique([c.name for c in clusters], "clusters", lines)
    _unique([w.name for w in workloads], "workloads", lines)
    return Sweep(name=data.get("name") or _stem(file), file=file, configs=configs, clusters=clusters,
                 workloads=workloads, repetitions=int(data.get("repetitions") or 1),
                 seed=int(data.get("seed", DEFAULT_SEED)),
                 include_cluster_pending=bool(data.get("includeClusterPending", False)), lines=lines,
                 removable=_removable_threshold(data.get("removable")))


def _removable_threshold(value: Any) -> float | None:
    """``removable: true`` (cluster-autoscaler's default threshold, 0.5) or ``{utilizationBelow: R}``."""
    if value is None or value is False:
        return None
    if value is True:
        return 0.5
    return float(value.get("utilizationBelow", 0.5))


def _with_what_ifs(clusters: list[ClusterSource], what_ifs: list[dict[str, Any]],
                   lines: dict[str, int]) -> list[ClusterSource]:
    """Every cluster under every node what-if, named ``cluster[what-if]``."""
    from kschedctl.analyses.what_if import WhatIf

    named = []
    for i, spec in enumerate(what_ifs):
        edits = {k: v for k, v in spec.items() if k != "name"}
        try:
            what_if = WhatIf.from_spec(edits, f"whatIfs[{i}]")
        except InputError as exc:
            raise _Problem(exc.message, lines.get(f"whatIfs[{i}]", lines.get("whatIfs"))) from None
        named.append((spec.get("name") or what_if.describe(), json.dumps(edits, sort_keys=True) if edits else ""))
    _unique([name for name, _ in named], "whatIfs", lines)
    return [ClusterSource(f"{cluster.name}[{name}]", cluster.files, cluster.metrics, edits)
            for cluster in clusters for name, edits in named]


def _show(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


# -- parameter paths ------------------------------------------------------------------------------


def parse_path(path: str) -> list[Any]:
    """``a.b[2][name].c`` -> ``["a", "b", 2, ("name",), "c"]`` (a tuple selects by name)."""
    if not path:
        raise ValueError("an empty field path")
    out: list[Any] = []
    for segment in path.split("."):
        m = _SEGMENT.match(segment)
        if m is None or (not m.group(1) and not m.group(2)):
            raise ValueError(f"{path!r} is not a field path (dotted keys, [N] or [NAME] after a key)")
        if m.group(1):
            out.append(m.group(1))
        for sel in re.findall(r"\[([^\[\]]+)\]", m.group(2)):
            out.append(int(sel) if sel.isdigit() else (sel,))
    if not isinstance(out[0], str):
        raise ValueError(f"{path!r} must start with a key")
    return out


def apply_settings(doc: dict[str, Any], settings: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    """A copy of ``doc`` with each ``(path, value)`` set; ValueError says which path cannot be."""
    doc = copy.deepcopy(doc)
    for path, value in settings:
        _set(doc, parse_path(path), copy.deepcopy(value), path)
    return doc


def _set(node: Any, parts: list[Any], value: Any, path: str) -> None:
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        nxt = None if last else parts[i + 1]
        fresh: Any = {} if isinstance(nxt, str) else []
        if isinstance(part, str):
            if not isinstance(node, dict):
                raise ValueError(f"{path}: {part!r} is a key, but what is there is not a mapping")
            if last:
                node[part] = value
                return
            if node.get(part) is None:
                node[part] = fresh
            node = node[part]
        elif isinstance(part, int):
            if not isinstance(node, list) or part >= len(node):
                raise ValueError(f"{path}: there is no item [{part}] (the list has "
                                 f"{len(node) if isinstance(node, list) else 0})")
            if last:
                node[part] = value
                return
            node = node[part]
        else:
            name = part[0]
            if not isinstance(node, list):
                raise ValueError(f"{path}: [{name}] selects a list item, but what is there is not a list")
            profiles = _is_profile_list(parts, i)
            key = "schedulerName" if profiles else "name"
            # a profile without schedulerName is the default scheduler's, once defaulted
            default = DEFAULT_SCHEDULER_NAME if profiles else None
            found = next((item for item in node if isinstance(item, dict) and item.get(key, default) == name), None)
            if found is None:
                found = {key: name}
                node.append(found)
            if last:
                raise ValueError(f"{path}: a path cannot end with a [NAME] selector")
            node = found


def _is_profile_list(parts: list[Any], i: int) -> bool:
    return i > 0 and parts[i - 1] == "profiles"
