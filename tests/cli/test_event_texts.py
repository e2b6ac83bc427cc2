"""The default profile's unschedulable message, word for word, through ``kschedctl explain``.

These are the texts users compare with ``kubectl describe pod`` on a v1.34 cluster: DynamicResources'
PostFilter ("no new claims to deallocate") runs before DefaultPreemption and their reasons are
joined, unless preemption nominates a node.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cli.helpers import run_cli

CASES_DIR = Path(__file__).parent / "cases" / "event_texts"
CASES: dict[str, Any] = yaml.safe_load((CASES_DIR / "cases.yaml").read_text(encoding="utf-8"))


def _pod(spec: dict[str, Any]) -> str:
    extra = {k: v for k, v in spec.items() if k not in ("name", "cpu")}
    return yaml.safe_dump({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": spec["name"], "namespace": "default"},
        "spec": {**extra, "containers": [{"name": "c", "image": "busybox",
                                          "resources": {"requests": {"cpu": spec["cpu"]}}}]},
    })


@pytest.mark.parametrize("case", sorted(CASES))
def test_default_profile_event_text(tmp_path: Path, case: str) -> None:
    expected = CASES[case]
    pod_file = tmp_path / "pod.yaml"
    pod_file.write_text(_pod(expected["pod"]), encoding="utf-8")
    result = run_cli("explain", "--cluster", str(CASES_DIR / "cluster.yaml"), str(pod_file), "-o", "json")
    assert result.exit_code == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["outcome"] == "Unschedulable"
    assert data["message"] == expected["message"]
    nominated = (data.get("preemption") or {}).get("nominatedNode")
    assert nominated == expected.get("nominated")
