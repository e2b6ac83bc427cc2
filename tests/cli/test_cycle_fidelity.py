"""``kschedctl explain`` answers as upstream v1.34.4 where the scheduling cycle's bookkeeping
decides (issue 41): the nominated node's rejection joining the diagnosis, each explained pod an
independent question (no DRA allocation of an earlier pod in flight), and ``--all-filters``
showing every verdict without changing the answer.

Cases: tests/cli/cases/cycle_fidelity/cases.yaml.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cli.helpers import run_cli

CASES_DIR = Path(__file__).parent / "cases" / "cycle_fidelity"
CASES: list[dict[str, Any]] = yaml.safe_load((CASES_DIR / "cases.yaml").read_text(encoding="utf-8"))["cases"]


def _explain(cluster: str, pods: str, *flags: str, reverse: bool = False, tmp_path: Path | None = None) -> list[dict]:
    pod_file = CASES_DIR / pods
    if reverse:
        assert tmp_path is not None
        docs = [d for d in yaml.safe_load_all(pod_file.read_text(encoding="utf-8")) if d]
        pod_file = tmp_path / "reversed.yaml"
        pod_file.write_text(yaml.safe_dump_all(list(reversed(docs))), encoding="utf-8")
    result = run_cli("explain", str(pod_file), "--cluster", str(CASES_DIR / cluster), *flags, "-o", "json")
    assert result.exit_code in (0, 1), result.stderr
    doc = json.loads(result.stdout)
    return doc["items"] if doc["kind"] == "ExplainResultList" else [doc]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_explain_gives_upstreams_answer(case: dict[str, Any], tmp_path: Path) -> None:
    items = _explain(case["cluster"], case["pods"], *case.get("flags", ()), reverse=case.get("reverse", False),
                     tmp_path=tmp_path)
    got = [{"pod": item["pod"], "outcome": item["outcome"],
            **({"selectedNode": item["selectedNode"]} if "selectedNode" in want else {}),
            **({"message": item["message"]} if "message" in want else {})}
           for item, want in zip(items, case["expect"])]
    assert got == case["expect"]


def test_a_pod_explained_after_another_gets_the_answer_it_gets_alone(tmp_path: Path) -> None:
    together = _explain("dra-one-device.yaml", "dra-pods.yaml")
    docs = [d for d in yaml.safe_load_all((CASES_DIR / "dra-pods.yaml").read_text(encoding="utf-8")) if d]
    only = tmp_path / "second.yaml"
    only.write_text(yaml.safe_dump(docs[1]), encoding="utf-8")
    alone = _explain("dra-one-device.yaml", str(only))
    fields = ("pod", "outcome", "selectedNode", "message", "decision")
    assert [together[1][k] for k in fields] == [alone[0][k] for k in fields]


_DECISION_FIELDS = ("outcome", "selectedNode", "message", "evaluatedNodes", "feasibleNodes", "decision", "preemption")


@pytest.mark.parametrize("cluster, pods", [
    ("dra-one-device.yaml", "dra-left-over-pod.yaml"),
    ("dra-one-device.yaml", "dra-pods.yaml"),
    ("nominated-cluster.yaml", "nominated-pod.yaml"),
])
def test_all_filters_changes_nothing_the_cycle_decides(cluster: str, pods: str) -> None:
    plain = _explain(cluster, pods)
    every = _explain(cluster, pods, "--all-filters")
    assert [{k: item.get(k) for k in _DECISION_FIELDS} for item in every] == \
        [{k: item.get(k) for k in _DECISION_FIELDS} for item in plain]


def test_a_plugin_cache_of_reserved_pods_does_not_carry_over_to_the_next_pod(tmp_path: Path) -> None:
    """NodeResourceTopologyMatch's over-reserve cache counts the pods it reserved: the copies of
    one pod, explained together, each get the node the first gets alone."""
    root = Path(__file__).resolve().parents[2] / "profiles"
    pod = yaml.safe_load((root / "scenarios" / "pods" / "numa-db.yaml").read_text(encoding="utf-8"))
    copies = []
    for i in range(3):
        copy = yaml.safe_load(yaml.safe_dump(pod))
        copy["metadata"]["name"] = f"db-{i}"
        copy["spec"]["schedulerName"] = "numa-reserve"
        copies.append(copy)
    pods = tmp_path / "pods.yaml"
    pods.write_text(yaml.safe_dump_all(copies), encoding="utf-8")
    result = run_cli("explain", "-c", str(root / "numa-aware.yaml"), "--cluster",
                     str(root / "scenarios" / "cluster" / "numa.yaml"), str(pods), "-o", "json")
    assert result.exit_code == 0, result.stderr
    items = json.loads(result.stdout)["items"]
    assert [(i["outcome"], i["selectedNode"]) for i in items] == [("Scheduled", "numa-n3")] * 3
