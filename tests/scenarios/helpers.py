"""Builders for scenario tests: scenario files in a temporary directory, on the bundled fixtures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
CLUSTER = str(FIXTURES / "cluster")
PODS = FIXTURES / "pods"
PROFILES = ROOT / "profiles"


def pod(name: str, cpu: str = "100m", memory: str = "128Mi", namespace: str = "default", **spec: Any) -> dict:
    """A small Pod (like upstream's MakePod) with one container's requests and extra spec fields."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"containers": [{"name": "c", "image": "docker.io/library/busybox:1.37",
                                 "resources": {"requests": {"cpu": cpu, "memory": memory}}}], **spec},
    }


def scenario(name: str = "s", expect: list[dict] | None = None, pods: Any = None, cluster: Any = CLUSTER,
             config: str | None = None, **extra: Any) -> dict:
    """A scenario document (defaults: the bundled cluster, the built-in default configuration)."""
    doc: dict[str, Any] = {"apiVersion": "kschedctl/v1", "kind": "Scenario", "name": name}
    if config is not None:
        doc["config"] = config
    doc["cluster"] = cluster
    if pods is not None:
        doc["pods"] = pods
    doc["expect"] = expect if expect is not None else [{"outcome": "Scheduled"}]
    doc.update(extra)
    return doc


def write(path: Path, *docs: dict | str) -> Path:
    """Write ``docs`` (dicts dumped as YAML, strings as they are) to ``path`` as a multi-document file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    parts = [d if isinstance(d, str) else yaml.safe_dump(d, sort_keys=False) for d in docs]
    path.write_text("---\n".join(parts), encoding="utf-8")
    return path


def run(tmp_path: Path, *docs: dict, registry: Any = None) -> Any:
    """Write ``docs`` to one scenario file and run it; the TestReport."""
    from kschedctl.scenarios import ScenarioRunner, load_scenarios

    path = write(tmp_path / "scenario.yaml", *docs)
    return ScenarioRunner(registry).run(load_scenarios([str(path)]))


def checks(report: Any) -> list[Any]:
    """Every CheckResult of a report, in order."""
    return [c for _, c in report.checks()]
