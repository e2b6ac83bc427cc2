"""The contract's exit codes, command by command: 0 yes, 1 no, 2 bad input or usage.

One row per command and outcome, run through the real entry point on the bundled fixtures.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = str(ROOT / "fixtures" / "cluster")
POD = str(ROOT / "fixtures" / "pods" / "pod.yaml")
TOO_BIG = str(ROOT / "fixtures" / "pods" / "too-big.yaml")
PROFILE = str(ROOT / "profiles" / "bin-packing.yaml")
SPREADING = str(ROOT / "profiles" / "spreading.yaml")
SCENARIOS = str(ROOT / "profiles" / "scenarios")

FAILING_SCENARIO = f"""apiVersion: kschedctl/v1
kind: Scenario
name: a pod that cannot land anywhere is expected to land
cluster: [{CLUSTER}]
pods: [{TOO_BIG}]
expect:
- pod: default/too-big
  outcome: Scheduled
"""

CASES: dict[str, tuple[list[str], int]] = {
    "explain_scheduled": (["explain", "--cluster", CLUSTER, POD], 0),
    "explain_unschedulable": (["explain", "--cluster", CLUSTER, TOO_BIG], 1),
    "explain_missing_pod_file": (["explain", "--cluster", CLUSTER, "no-such-pod.yaml"], 2),
    "explain_unknown_node": (["explain", "--cluster", CLUSTER, POD, "--node", "no-such-node"], 2),
    "explain_unknown_profile": (["explain", "--cluster", CLUSTER, POD, "--profile", "no-such-profile"], 2),
    "explain_bad_output": (["explain", "--cluster", CLUSTER, POD, "-o", "xml"], 2),
    "validate_valid": (["validate", PROFILE], 0),
    "validate_missing": (["validate", "no-such-config.yaml"], 2),
    "defaults_builtin": (["defaults"], 0),
    "defaults_missing": (["defaults", "no-such-config.yaml"], 2),
    "simulate_all_placed": (["simulate", "--cluster", CLUSTER, POD], 0),
    "simulate_one_unschedulable": (["simulate", "--cluster", CLUSTER, POD, TOO_BIG], 1),
    "simulate_missing": (["simulate", "--cluster", CLUSTER, "no-such-pod.yaml"], 2),
    "capacity_fits": (["capacity", "--cluster", CLUSTER, POD, "--max", "3"], 0),
    "capacity_zero_fits": (["capacity", "--cluster", CLUSTER, TOO_BIG], 1),
    "capacity_missing": (["capacity", "--cluster", CLUSTER, "no-such-pod.yaml"], 2),
    "diff_same": (["diff", "--cluster", CLUSTER, "-c", PROFILE, "-c", PROFILE, POD], 0),
    "diff_one_side": (["diff", "--cluster", CLUSTER, "-c", PROFILE, POD], 2),
    "plugins": (["plugins"], 0),
    "plugins_bad_output": (["plugins", "-o", "xml"], 2),
    "test_passing": (["test", SCENARIOS], 0),
    "test_missing": (["test", "no-such-dir"], 2),
    "unknown_command": (["no-such-command"], 2),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_exit_code(case: str) -> None:
    args, code = CASES[case]
    result = run_cli(*args)
    assert result.exit_code == code, (result.stdout[-500:], result.stderr[-500:])
    assert "Traceback" not in result.stderr
    if code == 2:
        assert result.stderr.strip(), "bad input is explained on stderr"


def test_failing_scenario_exits_1(tmp_path: Path) -> None:
    (tmp_path / "fail.yaml").write_text(FAILING_SCENARIO, encoding="utf-8")
    assert run_cli("test", "--allow-outside-paths", str(tmp_path)).exit_code == 1


def test_diff_that_moves_a_pod_exits_1() -> None:
    # bin-packing and spreading disagree about where the web replicas go.
    web = str(ROOT / "fixtures" / "pods" / "web-deployment.yaml")
    result = run_cli("diff", "--cluster", CLUSTER, "-c", PROFILE, "-c", SPREADING, "--seed", "1", "-o", "json", web)
    assert '"moved": 1' in result.stdout
    assert result.exit_code == 1


def test_unknown_node_is_reported_before_any_report() -> None:
    result = run_cli("explain", "--cluster", CLUSTER, POD, "--node", "no-such-node", "-o", "json")
    assert result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        "error: --node no-such-node: no node of that name in the cluster state (8 nodes)"]


def test_capacity_zero_says_why() -> None:
    result = run_cli("capacity", "--cluster", CLUSTER, TOO_BIG, "-o", "json")
    assert result.exit_code == 1
    assert '"count": 0' in result.stdout and "Insufficient cpu" in result.stdout
