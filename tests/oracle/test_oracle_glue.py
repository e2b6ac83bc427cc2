"""The oracle's glue decides nothing upstream would decide otherwise (issue 41): each case in
glue/cases.yaml pins what upstream's answer must say where the glue once differed (terminal
pods, an explained pod's own spec.nodeName, the API server's matchLabelKeys merge, async
preemption's victims, DynamicResources' allocations, the JSON's form), and kschedctl must agree
with the oracle on the whole answer (benchmarks.differential's comparison).

Needs the oracle (conftest.py builds it; skips without Go).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from benchmarks import differential

GLUE = Path(__file__).parent / "glue"
CASES = yaml.safe_load((GLUE / "cases.yaml").read_text(encoding="utf-8"))


def _at(answer: Any, path: str) -> Any:
    for part in path.split("."):
        answer = answer[int(part)] if isinstance(answer, list) else answer[part]
    return answer


@pytest.fixture(scope="module")
def running(oracle: str):
    proc = differential.Oracle(oracle)
    yield proc
    proc.close()


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_upstream_answers_as_a_real_scheduler_and_kschedctl_agrees(case: dict, running, tmp_path: Path) -> None:
    cluster = tmp_path / "cluster"
    cluster.mkdir()
    (cluster / "00-nodes.yaml").write_text((GLUE / "nodes.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    if case.get("cluster"):
        (cluster / "10-objects.yaml").write_text(case["cluster"], encoding="utf-8")
    pods = tmp_path / "pods.yaml"
    pods.write_text(case["pods"], encoding="utf-8")
    command = case.get("command", "explain")
    args = [command, str(pods), "--cluster", str(cluster), "-o", "json", *case.get("flags", ())]
    theirs = running.run(args)
    assert "error" not in theirs, theirs
    for path, want in case["expect"].items():
        assert _at(theirs, path) == want, (path, theirs)
    if command == "simulate":
        ours = differential.run_kschedctl([*args, "--tie-break", "first"])
        assert differential.compare_simulate(ours, theirs) == []
    else:
        ours = differential.run_kschedctl(args)
        assert differential.compare_explain(ours, theirs) == []
