"""What kubectl taught users: -f names the pod files, --cluster the cluster state, -n/-A/-l and
--field-selector choose pending pods, -o wide and -o name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = str(ROOT / "fixtures" / "cluster")
PENDING = str(ROOT / "fixtures" / "pending")
POD = str(ROOT / "fixtures" / "pods" / "pod.yaml")
BOTH = ["--cluster", CLUSTER, "--cluster", PENDING]


@pytest.mark.parametrize("command", ["explain", "simulate", "capacity", "diff"])
def test_dash_f_names_the_pod_file(command: str) -> None:
    extra = ["-c", str(ROOT / "profiles" / "bin-packing.yaml")] * 2 if command == "diff" else []
    by_flag = run_cli(command, *extra, "--cluster", CLUSTER, "-f", POD, "-o", "json", "--seed", "1")
    by_argument = run_cli(command, *extra, "--cluster", CLUSTER, POD, "-o", "json", "--seed", "1")
    assert by_flag.exit_code == by_argument.exit_code == 0, by_flag.stderr

    def answer(text: str) -> dict:
        data = json.loads(text)
        data.get("summary", {}).pop("seconds", None)  # simulate's wall time
        return data

    assert answer(by_flag.stdout) == answer(by_argument.stdout)


def test_dash_f_reads_stdin() -> None:
    result = run_cli("explain", "--cluster", CLUSTER, "-f", "-", "-o", "json",
                     stdin=Path(POD).read_text(encoding="utf-8"))
    assert result.exit_code == 0 and json.loads(result.stdout)["pod"] == "default/hello"


def test_cluster_given_to_dash_f_gets_a_hint(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "none"))
    monkeypatch.setenv("HOME", str(tmp_path))
    result = run_cli("explain", "-f", CLUSTER, POD)
    assert result.exit_code == 2
    assert f"{CLUSTER} holds Nodes: a cluster state is given with --cluster PATH" in result.stderr


def test_pod_given_to_cluster_gets_a_hint() -> None:
    result = run_cli("explain", "--cluster", POD, POD, "-o", "json")
    assert f"--cluster {POD}: no Node in the cluster state; to explain the pods in it, give the file with " \
           "-f/--filename" in result.stderr


def test_pending_pods_of_a_namespace() -> None:
    result = run_cli("explain", "--pending", "-n", "shop", *BOTH)
    assert result.exit_code == 1  # two of the three do not fit
    lines = result.stdout.splitlines()
    assert lines[0] == "Pending pods: 3"
    rows = {line.split()[0]: line for line in lines if line.strip().startswith("shop/")}
    assert rows["shop/cart-7d4b9c6f5-k2x8p"].split()[1] == "Scheduled"
    assert "NodeAffinity" in rows["shop/checkout-5f8d7c9b4-q9w2z"] and "needs label disktype=nvme" in result.stdout
    assert "Insufficient cpu" in rows["shop/search-indexer-0"]
    assert "Pod-level extension points" not in result.stdout  # the detail only with --wide
    assert "Pod-level extension points" in run_cli("explain", "--pending", "-n", "shop", "--wide", *BOTH).stdout


@pytest.mark.parametrize("args,expected", [
    (["-n", "shop"], ["shop/cart-7d4b9c6f5-k2x8p", "shop/checkout-5f8d7c9b4-q9w2z", "shop/search-indexer-0"]),
    (["-A", "-l", "app in (cart,checkout)"], ["shop/cart-7d4b9c6f5-k2x8p", "shop/checkout-5f8d7c9b4-q9w2z"]),
    (["-n", "shop", "--field-selector", "metadata.name=search-indexer-0"], ["shop/search-indexer-0"]),
    (["-n", "shop", "--field-selector", "metadata.name!=search-indexer-0,spec.schedulerName=default-scheduler"],
     ["shop/cart-7d4b9c6f5-k2x8p", "shop/checkout-5f8d7c9b4-q9w2z"]),
])
def test_pending_selection(args: list[str], expected: list[str]) -> None:
    result = run_cli("explain", "--pending", *args, *BOTH, "-o", "json")
    data = json.loads(result.stdout)
    items = data["items"] if data["kind"] == "ExplainResultList" else [data]
    assert [i["pod"] for i in items] == expected


def test_no_pending_pod_is_a_yes() -> None:
    result = run_cli("explain", "--pending", "-n", "nowhere", *BOTH)
    assert result.exit_code == 0 and result.stderr.strip() == "no pending pod in namespace nowhere"


@pytest.mark.parametrize("args,message", [
    (["-n", "shop"], "-n choose pending pods of the cluster: add --pending"),
    (["--pending", "--field-selector", "spec.color=blue"], '"spec.color" is not a known field selector'),
    (["--pending", "-l", "app in (("], "--selector app in ((:"),
])
def test_selection_errors(args: list[str], message: str) -> None:
    result = run_cli("explain", *args, *BOTH)
    assert result.exit_code == 2 and message in result.stderr


def test_output_wide_and_name() -> None:
    assert run_cli("explain", "--cluster", CLUSTER, POD, "-o", "wide").stdout == \
        run_cli("explain", "--cluster", CLUSTER, POD, "--wide").stdout
    named = run_cli("explain", "--pending", "-n", "shop", *BOTH, "-o", "name")
    assert named.stdout.splitlines() == ["pod/cart-7d4b9c6f5-k2x8p", "pod/checkout-5f8d7c9b4-q9w2z",
                                         "pod/search-indexer-0"]
    assert run_cli("plugins", "-o", "name").stdout.splitlines()[0] == "plugin/SchedulingGates"
    refused = run_cli("capacity", "--cluster", CLUSTER, POD, "-o", "name")
    # capacity lists no -o name (its help neither): the usage error names the formats it takes
    assert refused.exit_code == 2 and "'name' is not one of 'table', 'json', 'yaml', 'wide'." in refused.stderr
    unknown = run_cli("explain", "--cluster", CLUSTER, POD, "-o", "jsonpath={.pod}")
    assert unknown.exit_code == 2 and "'table', 'json', 'yaml', 'wide', 'name'" in unknown.stderr
