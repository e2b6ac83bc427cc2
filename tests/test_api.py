"""``kschedctl.api`` answers as the commands do: the same JSON for the same fixtures, and bad
input raises kschedctl's own errors (never SystemExit, never a traceback of another type)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kschedctl import api
from kschedctl.config import ConfigInvalidError
from kschedctl.errors import InputError, KschedctlError, UsageError
from kschedctl.scheduler.result import ExplainResultList
from tests.cli.helpers import run_cli

ROOT = Path(__file__).resolve().parent.parent
CLUSTER = str(ROOT / "fixtures/cluster")
PODS = ROOT / "fixtures/pods"
BIN_PACKING = str(ROOT / "profiles/bin-packing.yaml")


def _cli_json(*args: str) -> Any:
    result = run_cli(*args, "--cluster", CLUSTER, "-o", "json", "--seed", "7")
    assert result.exit_code in (0, 1), result.stderr
    return json.loads(result.stdout)


def _plain(data: Any) -> Any:
    """What the command prints, parsed back: tuples become lists, keys strings."""
    return json.loads(json.dumps(data))


#: (id, pod files, configuration or None)
EXPLAIN = [
    ("a-pod-that-fits", ["pod.yaml"], None),
    ("a-pod-too-big-for-any-node", ["too-big.yaml"], None),
    ("a-deployment-stands-as-its-first-pod", ["web-deployment.yaml"], None),
    ("topology-spread-under-bin-packing", ["spread.yaml"], BIN_PACKING),
    ("two-files-are-a-list", ["pod.yaml", "too-big.yaml"], None),
]


@pytest.mark.parametrize("files,config", [c[1:] for c in EXPLAIN], ids=[c[0] for c in EXPLAIN])
def test_explain_answers_as_the_command(files: list[str], config: str | None) -> None:
    paths = [str(PODS / f) for f in files]
    results = api.explain(paths, cluster=CLUSTER, config=config, seed=7)
    assert len(results) == len(files)
    got = results[0].to_dict() if len(results) == 1 else ExplainResultList(results).to_dict()
    assert _plain(got) == _cli_json("explain", *paths, *(["-c", config] if config else []))


#: (id, pod files, configuration or None, keyword arguments and their flags)
SIMULATE = [
    ("three-web-replicas", ["web-deployment.yaml"], None, {}, []),
    ("workers-under-bin-packing", ["workers-deployment.yaml"], BIN_PACKING, {}, []),
    ("several-files-one-batch", ["web-deployment.yaml", "pod.yaml", "too-big.yaml"], None, {}, []),
    ("without-the-cluster-pending-pods", ["pod.yaml"], None, {"include_cluster_pending": False},
     ["--no-cluster-pending"]),
    ("first-of-the-tied-nodes", ["workers-deployment.yaml"], None, {"tie_break_first": True},
     ["--tie-break", "first"]),
]


@pytest.mark.parametrize("files,config,kwargs,flags", [c[1:] for c in SIMULATE], ids=[c[0] for c in SIMULATE])
def test_simulate_answers_as_the_command(files: list[str], config: str | None, kwargs: dict, flags: list[str]) -> None:
    paths = [str(PODS / f) for f in files]
    result = api.simulate(paths, cluster=CLUSTER, config=config, seed=7, **kwargs)
    got = _plain(result.to_dict())
    want = _cli_json("simulate", *paths, *flags, *(["-c", config] if config else []))
    got["summary"].pop("seconds"), want["summary"].pop("seconds")  # wall clock, not an answer
    assert got == want


#: (id, pod files, keyword arguments, their flags)
CAPACITY = [
    ("copies-of-a-pod", ["pod.yaml"], {"max_copies": 40}, ["--max", "40"]),
    ("none-of-a-pod-too-big", ["too-big.yaml"], {}, []),
    ("sets-by-the-workloads-replicas", ["web-deployment.yaml", "pod.yaml"], {"max_copies": 5}, ["--max", "5"]),
    ("sets-by-a-ratio", ["web-deployment.yaml", "pod.yaml"], {"ratio": [1, 2], "max_copies": 5},
     ["--ratio", "1:2", "--max", "5"]),
]


@pytest.mark.parametrize("files,kwargs,flags", [c[1:] for c in CAPACITY], ids=[c[0] for c in CAPACITY])
def test_capacity_answers_as_the_command(files: list[str], kwargs: dict, flags: list[str]) -> None:
    paths = [str(PODS / f) for f in files]
    result = api.capacity(paths, cluster=CLUSTER, seed=7, **kwargs)
    got = _plain(result.to_dict())
    assert got == _cli_json("capacity", *paths, *flags)


def test_loaded_inputs_are_taken_as_they_are() -> None:
    cluster = api.load_cluster(CLUSTER)
    pods = api.load_pods(str(PODS / "web-deployment.yaml"), cluster)
    config = api.load_config(BIN_PACKING)
    by_path = api.explain(str(PODS / "web-deployment.yaml"), cluster=CLUSTER, config=BIN_PACKING, seed=3)
    loaded = api.explain(pods, cluster=cluster, config=config, seed=3)
    assert [r.to_dict() for r in loaded] == [r.to_dict() for r in by_path]
    batch, joined = api.pods_for_simulation(pods, cluster)
    assert len(batch) == 3 and joined is not cluster  # the ReplicaSet joined a copy
    assert len(cluster.pods) == len(api.load_cluster(CLUSTER).pods)


def test_pending_pods_choose_as_explain_pending() -> None:
    cluster = api.load_cluster(str(ROOT / "fixtures/pending"))
    every = api.pending_pods(cluster, all_namespaces=True)
    assert every, "the fixture holds pending pods"
    assert all(not (item.pod.get("spec") or {}).get("nodeName") for item in every)
    keys = [item.key for item in every]
    assert keys == sorted(keys)
    result = run_cli("explain", "--pending", "-A", "--cluster", str(ROOT / "fixtures/pending"), "-o", "json")
    data = json.loads(result.stdout)
    listed = [r["pod"] for r in data["items"]] if data.get("kind") == "ExplainResultList" else [data["pod"]]
    assert listed == keys


PAST_100_PERCENT = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 150
"""

BAD_QUANTITY = """\
apiVersion: v1
kind: Pod
metadata:
  name: bad
spec:
  containers:
  - name: app
    image: nginx
    resources:
      requests:
        cpu: lots
"""


def _written(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


#: (id, call with a temporary directory, the error type, words of its message)
BAD_INPUT = [
    ("a-cluster-path-that-does-not-exist", lambda tmp: api.load_cluster("no/such/dir"), InputError, "no/such/dir"),
    ("a-pod-file-that-does-not-exist",
     lambda tmp: api.explain("no-such-pod.yaml", cluster=CLUSTER), InputError, "no-such-pod.yaml"),
    ("a-configuration-kube-scheduler-refuses",
     lambda tmp: api.load_config(_written(tmp / "bad.yaml", PAST_100_PERCENT)), ConfigInvalidError, "bad.yaml"),
    ("a-pod-file-with-a-bad-quantity",
     lambda tmp: api.load_pods(_written(tmp / "pod.yaml", BAD_QUANTITY), CLUSTER), InputError, "pod.yaml:"),
    ("a-label-selector-that-does-not-parse",
     lambda tmp: api.pending_pods(CLUSTER, selector="app in (("), UsageError, "selector app in (("),
    ("an-unknown-field-selector",
     lambda tmp: api.pending_pods(CLUSTER, field_selector="spec.color=blue"), UsageError,
     '"spec.color" is not a known field selector'),
    ("a-ratio-with-a-part-per-file-missing",
     lambda tmp: api.capacity([str(PODS / "pod.yaml"), str(PODS / "too-big.yaml")], cluster=CLUSTER, ratio="1"),
     UsageError, "1 part(s) for 2 pod files"),
    ("an-unknown-profile",
     lambda tmp: api.explain(str(PODS / "pod.yaml"), cluster=CLUSTER, profile="no-such-profile"), UsageError,
     "no-such-profile"),
]


@pytest.mark.parametrize("call,error,words", [c[1:] for c in BAD_INPUT], ids=[c[0] for c in BAD_INPUT])
def test_bad_input_raises_kschedctls_error(call: Any, error: type[KschedctlError], words: str,
                                           tmp_path: Path) -> None:
    with pytest.raises(error) as caught:
        call(tmp_path)
    assert words in str(caught.value)
