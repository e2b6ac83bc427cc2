"""Scenario files as data: a ``Scenario`` holds resolved paths and its ``Expectation`` list.

Built by :mod:`kschedctl.scenarios.files` from a document that already passed the JSON Schema
(``schema.json``), so the constructors here only translate spellings (camelCase keys, one
path or a list) and resolve paths against the scenario file's directory.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

API_VERSION = "kschedctl/v1"
KIND = "Scenario"
DEFAULT_NAMESPACE = "default"

#: Expectation keys that look at one pod's explain result.
POD_CHECKS = ("outcome", "node", "nodeIn", "notNode", "messageContains", "rank", "filter", "victims",
              "nominatedNode", "devices")


@dataclass
class InlinePod:
    """A pod or workload written in the scenario file itself."""

    obj: dict
    line: int | None


@dataclass
class Expectation:
    """One ``expect`` item: the checks on one pod, or on a whole simulate run."""

    index: int
    line: int | None
    spec: dict[str, Any]

    @property
    def pod(self) -> str | None:
        return self.spec.get("pod")

    @property
    def is_simulate(self) -> bool:
        return "simulate" in self.spec

    @property
    def title(self) -> str:
        """``name`` when given, else a summary of the checks (``default/web: outcome Scheduled, node a``)."""
        if self.spec.get("name"):
            return str(self.spec["name"])
        if self.is_simulate:
            sim = self.spec["simulate"]
            parts = [f"{k} {short_value(v)}" for k, v in sim.items() if k != "includeClusterPending"]
            return "simulate: " + ", ".join(parts)
        parts = [f"{k} {short_value(self.spec[k])}" for k in POD_CHECKS if k in self.spec]
        return f"{self.pod or '(the pod)'}: " + ", ".join(parts)


@dataclass
class Scenario:
    """One ``kind: Scenario`` document, paths resolved against its file."""

    name: str
    file: str
    line: int | None
    config: str | None
    cluster: list[str]
    pods: list[str | InlinePod]
    expectations: list[Expectation]
    profile: str | None = None
    seed: int | None = None
    all_filters: bool = False
    description: str = ""
    #: The load watcher's answer (``--metrics``) for the Trimaran plugins.
    metrics: str | None = None
    #: Line of every field path of the document (``expect[2].node``), for messages.
    lines: dict[str, int] = field(default_factory=dict, repr=False)
    #: The ``steps:`` (``kschedctl.analyses.steps.Step``), run after the expectations above.
    steps: list[Any] = field(default_factory=list)

    @property
    def where(self) -> str:
        return self.file if self.line is None else f"{self.file}:{self.line}"

    @classmethod
    def from_document(cls, doc: dict[str, Any], file: str, line: int | None, lines: dict[str, int],
                      steps: list[Any] | None = None) -> "Scenario":
        """The scenario of a schema-valid document read from ``file`` (``steps`` parsed from it)."""
        base = os.path.dirname(file)
        cluster = doc["cluster"]
        pods = doc.get("pods") or []
        if isinstance(pods, str):
            pods = [pods]
        pod_sources: list[str | InlinePod] = []
        for i, p in enumerate(pods):
            if isinstance(p, str):
                pod_sources.append(resolve(base, p))
            else:
                pod_sources.append(InlinePod(p, lines.get(f"pods[{i}]")))
        config = doc.get("config")
        return cls(
            name=doc["name"],
            file=file,
            line=line,
            config=resolve(base, config) if config else None,
            cluster=[resolve(base, c) for c in ([cluster] if isinstance(cluster, str) else cluster)],
            pods=pod_sources,
            expectations=[Expectation(i, lines.get(f"expect[{i}]"), e) for i, e in enumerate(doc.get("expect") or [])],
            profile=doc.get("profile"),
            seed=doc.get("seed"),
            all_filters=bool(doc.get("allFilters", False)),
            description=doc.get("description") or "",
            metrics=resolve(base, doc["metrics"]) if doc.get("metrics") else None,
            lines=lines,
            steps=list(steps or []),
        )


def resolve(base: str, path: str) -> str:
    """``path`` relative to the directory ``base`` (absolute paths stay), normalized."""
    return os.path.normpath(os.path.join(base, os.path.expanduser(path)))


def pod_key(name: str) -> str:
    """``namespace/name``, with the default namespace when ``name`` has none."""
    return name if "/" in name else f"{DEFAULT_NAMESPACE}/{name}"


def as_list(value: Any) -> list[str]:
    """One string or a list of strings, as a list."""
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def short_value(value: Any) -> str:
    """A check's value in a title: lists and maps inline, strings unquoted unless empty or spaced."""
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {short_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, str):
        return repr(value) if value == "" or " " in value else value
    return str(value)


def resolve_sources(steps: list[Any], file: str, lines: dict[str, int]) -> None:
    """A ``create`` step's pods as paths resolved against ``file``'s directory and inline objects."""
    base = os.path.dirname(file)
    for step in steps:
        if step.action != "create":
            continue
        values = step.value if isinstance(step.value, list) else [step.value]
        sources: list[Any] = []
        for j, value in enumerate(values):
            if isinstance(value, str):
                sources.append(resolve(base, value))
            else:
                line = lines.get(f"steps[{step.index}].create[{j}]" if isinstance(step.value, list)
                                 else f"steps[{step.index}].create", step.line)
                sources.append(InlinePod(value, line))
        step.pods = sources
