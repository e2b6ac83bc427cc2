"""The suites' engine cases, answered as JSON: what tests/test_fast_paths_engine.py compares with
every fast path on and off (``KSCHEDCTL_NO_FAST_PATHS``, which is read once per process: each
side runs as ``python -m tests.engine_cases``, printing one JSON object).

The cases: every bundled fixture pod explained with every filter run, the fixture pods simulated
as one batch (and the cluster's pending pods with them) under each bundled profile, and every
scenario file of profiles/scenarios: each pod explained and the scenario's pods simulated,
through the scenario runner (its config, cluster, metrics, seed or 1, and profile).
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: Fixture pods not meant to be scheduled as they are (a file that fails to load on purpose).
_SKIP = {"no-such-pod.yaml"}


def _untimed(value: Any) -> Any:
    """``value`` without durations (they differ between any two runs)."""
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k not in ("seconds", "elapsed")}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def fixture_cases() -> dict[str, Any]:
    from kschedctl.config import load_config
    from kschedctl.inputs.cluster import load_cluster
    from kschedctl.inputs.loader import load_documents
    from kschedctl.inputs.workloads import pods_from_documents
    from kschedctl.analyses.explain import Explainer
    from kschedctl.cluster.replicas import simulation_batch
    from kschedctl.scheduler.simulate import Simulator

    out: dict[str, Any] = {}
    pod_files = sorted(p for p in (ROOT / "fixtures" / "pods").glob("*.yaml") if p.name not in _SKIP)
    for profile in sorted((ROOT / "profiles").glob("*.yaml")):
        config = load_config(str(profile))
        cluster = load_cluster([str(ROOT / "fixtures" / "cluster")])
        items = []
        for path in pod_files:
            loaded = pods_from_documents(load_documents([str(path)]), cluster)
            cluster = loaded.joined(cluster)
            items.extend(loaded)
        explainer = Explainer(cluster, config, seed=1, all_filters=True)
        first = explainer.profile_names()[0]  # the fixture pods ask for default-scheduler, which some lack
        for item in items:
            key = f"explain {profile.name} {item.pod['metadata'].get('name')}"
            out[key] = explainer.explain(item.pod, first).to_dict()
        batch, batch_cluster = simulation_batch(items, cluster)
        out[f"simulate {profile.name}"] = Simulator(batch_cluster, config, seed=1).run(batch, first).to_dict()
    return out


def scenario_cases() -> dict[str, Any]:
    from kschedctl.scenarios.files import load_scenarios
    from kschedctl.scenarios.runner import ScenarioRunner

    out: dict[str, Any] = {}
    runner = ScenarioRunner()
    for scenario in load_scenarios([str(ROOT / "profiles" / "scenarios")]):
        if scenario.seed is None:  # the tie-break must draw the same on both sides
            scenario = replace(scenario, seed=1)
        name = f"{Path(scenario.file).name}:{scenario.name}"
        with runner.trust.files():
            ctx = runner._context(scenario)
            for i in range(len(ctx.items)):
                out[f"explain {name} #{i}"] = runner._explain(ctx, i).to_dict()
            out[f"simulate {name}"] = runner._simulate(ctx, False).to_dict()
    return out


def main() -> int:
    answers = {**fixture_cases(), **scenario_cases()}
    json.dump(_untimed(answers), sys.stdout, sort_keys=True, default=str)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
