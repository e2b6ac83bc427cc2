"""Command-line values converted without pydantic (kschedctl.cli.coercion): the same values and
the same errors as typer's own conversion, and explain's run never imports pydantic."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = str(ROOT / "fixtures" / "cluster")
POD = str(ROOT / "fixtures" / "pods" / "pod.yaml")

#: Runs kschedctl's main in a child: prints its exit code, what it printed, and whether pydantic
#: was imported; with "typer" as first argument the quick conversion is left uninstalled.
_CHILD = """
import contextlib, io, json, sys
import kschedctl.cli.coercion as coercion
args = sys.argv[1:]
if args[0] == "typer":
    coercion._installed = True  # install() then leaves typer's conversion alone
args = args[1:]
from kschedctl.cli.app import main
out, err = io.StringIO(), io.StringIO()
code = 0
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    try:
        main(args)
    except SystemExit as exc:
        code = exc.code
print(json.dumps({"code": code, "out": out.getvalue(), "err": err.getvalue(), "pydantic": "pydantic" in sys.modules}))
"""


def _run(mode: str, args: list[str]) -> dict:
    proc = subprocess.run([sys.executable, "-c", _CHILD, mode, *args], capture_output=True, text=True, cwd=ROOT,
                          env={"PATH": "/usr/bin:/bin", "COLUMNS": "120"}, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


CASES = {
    "plain explain": ["explain", "--cluster", CLUSTER, POD],
    "json, a config path, a seed": ["explain", "--cluster", CLUSTER, POD, "-o", "json", "--seed", "7",
                                    "-c", "{config}"],
    "a choice that is none": ["explain", "--cluster", CLUSTER, POD, "-o", "yamll"],
    "a choice in capitals": ["explain", "--cluster", CLUSTER, POD, "-o", "JSON"],
    "an integer that is not": ["explain", "--cluster", CLUSTER, POD, "--seed", "x1"],
    "a width under its minimum": ["explain", "--cluster", CLUSTER, POD, "--width", "5"],
    "a width in range": ["explain", "--cluster", CLUSTER, POD, "--width", "60"],
    "a width at its minimum": ["explain", "--cluster", CLUSTER, POD, "--width", "20"],
    "a negative seed": ["explain", "--cluster", CLUSTER, POD, "--seed", "-3"],
    "a seed with a sign": ["explain", "--cluster", CLUSTER, POD, "--seed", "+3"],
    "a seed with a fraction": ["explain", "--cluster", CLUSTER, POD, "--seed", "3.0"],
    "a config that does not exist": ["explain", "--cluster", CLUSTER, POD, "-c", "no/such/config.yaml"],
    "an empty config path": ["explain", "--cluster", CLUSTER, POD, "-c", ""],
    "repeated list options": ["explain", "--cluster", CLUSTER, POD, "--cordon", "node-a", "--cordon", "node-b"],
}


_CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  percentageOfNodesToScore: 100
"""


@pytest.fixture
def config(tmp_path: Path) -> str:
    path = tmp_path / "config.yaml"
    path.write_text(_CONFIG)
    return str(path)


@pytest.mark.parametrize("args", CASES.values(), ids=CASES.keys())
def test_same_answer_and_errors_as_typer(args: list[str], config: str) -> None:
    args = [config if a == "{config}" else a for a in args]
    assert _run("quick", args) | {"pydantic": None} == _run("typer", args) | {"pydantic": None}


def test_explain_does_not_import_pydantic(config: str) -> None:
    args = [config if a == "{config}" else a for a in CASES["json, a config path, a seed"]]
    quick = _run("quick", args)
    assert quick["code"] == 0, quick["err"]
    assert not quick["pydantic"]
    if importlib.util.find_spec("typer._coercion") is not None:
        # What the quick way saves, on the typers that convert through pydantic (0.2x); the
        # lowest typer pyproject allows converts with click alone and never imports it.
        assert _run("typer", args)["pydantic"]
