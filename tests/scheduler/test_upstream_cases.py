"""Cases where kschedctl once answered differently from upstream's scheduler (found by
benchmarks.differential against the oracle), kept with upstream's answer: the inputs under
cases/upstream/<case>/, upstream's JSON in upstream.json. kschedctl must keep agreeing, field by
field, as the differential comparison checks it; these run without Go."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from benchmarks.differential import compare_explain, compare_simulate, run_kschedctl

CASES = sorted((Path(__file__).parent / "cases" / "upstream").iterdir())


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_kschedctl_answers_as_upstream_did(case: Path) -> None:
    meta = yaml.safe_load((case / "case.yaml").read_text(encoding="utf-8"))
    theirs = json.loads((case / "upstream.json").read_text(encoding="utf-8"))
    args = [meta["command"], str(case / "pods.yaml"), "--cluster", str(case / "cluster.yaml"), "-o", "json"]
    if (case / "config.yaml").exists():
        args += ["--config", str(case / "config.yaml")]
    if meta.get("allFilters"):
        args.append("--all-filters")
    if meta["command"] == "simulate":
        args += ["--tie-break", "first"]
    ours = run_kschedctl(args)
    assert "error" not in ours, ours
    diffs = compare_explain(ours, theirs) if meta["command"] == "explain" else compare_simulate(ours, theirs)
    assert diffs == [], f"{meta['found']}: " + "; ".join(d for _, d in diffs)[:2000]
