"""YAML/JSON configuration documents with a line number for every field path.

A layer over :mod:`kschedctl.inputs.yaml_reader`, the one safe YAML reader: the reader parses
(libyaml), bounds nesting before composing and words its faults as configuration users know
them; this module walks the reader's nodes into plain Python data, so that it can
  * record the line of every key and list item under its upstream field path
    (``profiles[0].pluginConfig[1].args.scoringStrategy``), for ``-o github`` annotations;
  * read scalars as Go's decoder would (64-bit integers, finite floats, other tags as strings)
    and refuse what it cannot, with a one-line error instead of a traceback;
  * bound what aliases expand to (a budget of walked nodes) and the nesting of the data;
  * notice duplicate keys, which kube-scheduler's strict decoder rejects.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import yaml

from kschedctl import limits
from kschedctl.errors import InputError
from kschedctl.inputs.yaml_reader import Rules, Wording, compose
from kschedctl.k8s.field import child, index  # noqa: F401  (config paths are field paths)

#: Limits against hostile input (kschedctl.limits). Real configurations are a few kilobytes and a
#: few levels deep.
MAX_BYTES = limits.CONFIG_FILE_MAX_BYTES
MAX_NODES = limits.CONFIG_MAX_NODES
MAX_DEPTH = limits.CONFIG_MAX_DEPTH
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1

_TAG = "tag:yaml.org,2002:"
_constructor = yaml.constructor.SafeConstructor()


class _ConfigWording(Wording):
    """The reader's faults in the words configuration and scenario users know."""

    def syntax(self, exc: yaml.YAMLError, name: str, text: str) -> InputError:
        if isinstance(exc, yaml.MarkedYAMLError):
            mark = exc.problem_mark or exc.context_mark
            line = mark.line + 1 if mark is not None else None
            problem = (exc.problem or exc.context or "malformed YAML").splitlines()[0]
            return InputError(f"not valid YAML: {problem}", name, line)
        first = (str(exc).splitlines() or ["malformed YAML"])[0]
        return InputError(f"not valid YAML: {first}", name)

    def too_deep(self, name: str, line: int | None, limit: int, anchor: str | None = None) -> InputError:
        return InputError(f"document is nested more than {MAX_DEPTH} levels deep", name, line)


#: The reader bounds nesting for the composer; aliases are bounded by the walk's node budget.
RULES = Rules(check_aliases=False, wording=_ConfigWording())


@dataclass
class Loaded:
    """A parsed document: the data, the line of each field path, and duplicate keys seen."""

    data: Any
    lines: dict[str, int] = field(default_factory=dict)
    duplicates: list[tuple[str, int]] = field(default_factory=list)


def flow_depth(text: str) -> int:
    """How deep brackets nest in ``text`` (a cheap bound, counted before anything is parsed)."""
    depth = best = 0
    for ch in text:
        if ch in "[{":
            depth += 1
            if depth > best:
                best = depth
        elif ch in "]}":
            depth = max(0, depth - 1)
    return best


def read_nodes(text: str, name: str, single: bool = False) -> list[yaml.Node | None]:
    """The root nodes of ``text`` (``single``: at most one document), read by the safe reader.

    Raises InputError (file, line) when the text cannot be read.
    """
    if flow_depth(text) > MAX_DEPTH:
        raise RULES.wording.too_deep(name, None, MAX_DEPTH)
    return compose(text, name, RULES, single=single)


def load_yaml(text: str, name: str) -> Loaded:
    """Parse one YAML or JSON document safely; raise InputError (file, line) when it cannot be read."""
    if len(text) > MAX_BYTES:
        raise InputError(f"file is larger than {MAX_BYTES // (1024 * 1024)} MiB", name)
    node = read_nodes(text, name, single=True)[0]
    if node is None:
        raise InputError("the file is empty", name)
    walker = LineWalker(name)
    data = walker.build(node, "", 0)
    return Loaded(data, walker.lines, walker.duplicates)


class LineWalker:
    """Nodes -> plain data, recording the line of every field path as it goes."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.budget = MAX_NODES
        self.lines: dict[str, int] = {}
        self.duplicates: list[tuple[str, int]] = []

    def fail(self, message: str, node: yaml.Node) -> InputError:
        return InputError(message, self.name, node.start_mark.line + 1)

    def build(self, node: yaml.Node, path: str, depth: int) -> Any:
        self.budget -= 1
        if self.budget < 0:
            raise self.fail(f"document expands to more than {MAX_NODES} nodes (alias bomb?)", node)
        if depth > MAX_DEPTH:
            raise self.fail(f"document is nested more than {MAX_DEPTH} levels deep", node)
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node)
        if isinstance(node, yaml.SequenceNode):
            out = []
            for i, item in enumerate(node.value):
                p = index(path, i)
                self.lines.setdefault(p, item.start_mark.line + 1)
                out.append(self.build(item, p, depth + 1))
            return out
        if isinstance(node, yaml.MappingNode):
            return self.mapping(node, path, depth)
        raise self.fail("unsupported YAML node", node)  # pragma: no cover

    def mapping(self, node: yaml.MappingNode, path: str, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        merged: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _TAG + "merge":
                # ``<<: *anchor`` (Go's YAML library honours merge keys too): explicit keys win.
                sources = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
                for src in sources:
                    value = self.build(src, path, depth + 1)
                    if not isinstance(value, dict):
                        raise self.fail("a merge key (<<) must refer to a mapping", src)
                    for k, v in value.items():
                        merged.setdefault(k, v)
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                raise self.fail("mapping keys must be plain strings", key_node)
            key = self.scalar(key_node)
            key = "null" if key is None else (str(key).lower() if isinstance(key, bool) else str(key))
            p = child(path, key)
            line = key_node.start_mark.line + 1
            if key in out:
                self.duplicates.append((p, line))
            self.lines[p] = line
            out[key] = self.build(value_node, p, depth + 1)
        for k, v in merged.items():
            out.setdefault(k, v)
        return out

    def scalar(self, node: yaml.ScalarNode) -> Any:
        tag = node.tag
        try:
            if tag == _TAG + "int":
                value = _constructor.construct_yaml_int(node)
                if not _INT64_MIN <= value <= _INT64_MAX:
                    raise self.fail(f"number {node.value[:40]} is out of range for a 64-bit integer", node)
                return value
            if tag == _TAG + "float":
                fvalue = _constructor.construct_yaml_float(node)
                if math.isinf(fvalue) or math.isnan(fvalue):
                    raise self.fail(f"number {node.value[:40]} cannot be represented", node)
                return fvalue
            if tag == _TAG + "bool":
                return _constructor.construct_yaml_bool(node)
            if tag == _TAG + "null":
                return None
        except InputError:
            raise
        except (ValueError, OverflowError):
            raise self.fail(f"number {node.value[:40]!r} cannot be read", node) from None
        # Strings, and everything Go would read as a string (timestamps, binary, custom tags).
        return str(node.value)


#: Upstream paths that do not spell the YAML path (v1.34 reports RequestedToCapacityRatio shape
#: errors under ``scoringStrategy.shape``; the multi-queue-sort error says ``Enabled``).
_PATH_ALIASES = ((".scoringStrategy.shape", ".scoringStrategy.requestedToCapacityRatio.shape"),
                 (".queueSort.Enabled", ".queueSort.enabled"))


def line_for(lines: dict[str, int], path: str) -> int | None:
    """The YAML line of ``path``, or of its nearest ancestor present in the file."""
    for upstream, yaml_path in _PATH_ALIASES:
        if upstream in path:
            path = path.replace(upstream, yaml_path)
    return nearest_line(lines, path)


def nearest_line(lines: dict[str, int], path: str) -> int | None:
    """The line of ``path`` in ``lines``, or of its nearest ancestor there (None: neither is)."""
    p = path
    while p:
        if p in lines:
            return lines[p]
        cut = max(p.rfind("."), p.rfind("["))
        if cut <= 0:
            return lines.get(p)
        p = p[:cut]
    return None
