"""What a simulate run keeps for its report (issue 42, item 8): the last cycle of each of the
first N pods as explain's ``ExplainResult``, and the scheduling queue after every cycle."""

from __future__ import annotations

from pathlib import Path

import yaml

from kschedctl.inputs.cluster import load_cluster
from kschedctl.analyses.explain import Explainer
from kschedctl.scheduler.setup import load_default_config
from kschedctl.scheduler.simulate import Simulator

ROOT = Path(__file__).resolve().parents[2]


def _pod(path: Path) -> dict:
    return next(d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d and d.get("kind") == "Pod")


def _verdicts(result: object) -> list[tuple]:
    return [(n.name, n.feasible, [(f.plugin, f.code, tuple(f.reasons)) for f in n.filters],
             [(s.plugin, s.raw, s.normalized, s.weighted) for s in n.scores], n.total_score, n.rank)
            for n in result.nodes]  # type: ignore[attr-defined]


def test_a_kept_cycle_is_what_explain_shows_for_the_first_pod() -> None:
    cluster = load_cluster([str(ROOT / "fixtures" / "cluster")])
    pod = _pod(ROOT / "fixtures" / "pods" / "pod.yaml")
    config = load_default_config()
    result = Simulator(cluster, config, seed=1, decisions=5).run([pod], include_cluster_pending=False)
    [(key, kept)] = result.decisions.items()
    explained = Explainer(cluster, config, seed=1).explain(pod)
    assert key == explained.pod == "default/hello"
    assert kept.selected_node == explained.selected_node == result.placements[0].node
    assert _verdicts(kept) == _verdicts(explained)


def test_without_decisions_a_run_keeps_none_and_places_the_same() -> None:
    cluster = load_cluster([str(ROOT / "fixtures" / "cluster")])
    pods = [_pod(ROOT / "fixtures" / "pods" / "pod.yaml"), _pod(ROOT / "fixtures" / "pods" / "too-big.yaml")]
    plain = Simulator(cluster, load_default_config(), seed=1).run(pods, include_cluster_pending=False)
    kept = Simulator(cluster, load_default_config(), seed=1, decisions=1).run(pods, include_cluster_pending=False)
    assert plain.decisions == {} and list(kept.decisions) == [kept.queue[0].pod]
    assert [p.to_dict() for p in plain.placements] == [p.to_dict() for p in kept.placements]


def test_the_queue_after_each_cycle_and_the_pods_tried_again() -> None:
    cluster = load_cluster([str(ROOT / "fixtures" / "cluster")])
    pods = [_pod(ROOT / "profiles" / "scenarios" / "pods" / "critical-on-a1.yaml"),
            _pod(ROOT / "fixtures" / "pods" / "too-big.yaml")]
    result = Simulator(cluster, load_default_config(), seed=1).run(pods, include_cluster_pending=False)
    assert [s.cycle for s in result.queue] == list(range(1, result.cycles + 1))
    first = result.queue[0]
    # critical goes first (priority), is nominated on node-a1 after preempting, waits in backoff
    assert (first.pod, first.attempt, first.outcome) == ("default/critical", 1, "Unschedulable")
    assert first.backoff == 1 and first.active == 1
    by_pod = {a["pod"]: a for a in result.attempts()}
    assert by_pod["default/critical"]["outcomes"] == ["Unschedulable", "Scheduled"]
    assert by_pod["default/critical"]["outcome"] == "Scheduled"
    assert by_pod["default/too-big"]["outcome"] == "Unschedulable"
    assert "queue" not in result.to_dict() and "decisions" not in result.to_dict()
