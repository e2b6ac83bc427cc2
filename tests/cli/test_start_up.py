"""What a run imports: jsonschema (about a sixth of a small explain's time) only for a configuration
file the schema gate cannot vouch for (``config/schema/gate.py``), which it then validates; never
for the built-in configuration or a valid file. Likewise the cluster edits only for a node
what-if, and http.client only for an extender."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = str(ROOT / "fixtures" / "cluster")
POD = str(ROOT / "fixtures" / "pods" / "pod.yaml")

_CHILD = """
import contextlib, io, json, sys
from kschedctl.cli.app import main
out, err = io.StringIO(), io.StringIO()
code = 0
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    try:
        main(sys.argv[1:])
    except SystemExit as exc:
        code = exc.code
print(json.dumps({"code": code, "out": out.getvalue(), "err": err.getvalue(),
                  "jsonschema": "jsonschema" in sys.modules, "edits": "kschedctl.cluster.edits" in sys.modules,
                  "http": "http.client" in sys.modules}))
"""


def _run(args: list[str]) -> dict:
    proc = subprocess.run([sys.executable, "-c", _CHILD, *args], capture_output=True, text=True, cwd=ROOT,
                          env={"PATH": "/usr/bin:/bin", "COLUMNS": "120"}, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


CASES = {
    "the built-in configuration": ([], False, 0),
    "a valid configuration file": (["-c", str(ROOT / "profiles" / "default.yaml")], False, 0),
    "a valid file with plugin args": (["-c", str(ROOT / "profiles" / "spreading.yaml")], False, 0),
}


@pytest.mark.parametrize("case", list(CASES))
def test_jsonschema_is_imported_only_for_a_file_the_gate_cannot_vouch_for(case: str) -> None:
    extra, imported, code = CASES[case]
    found = _run(["explain", "--cluster", CLUSTER, POD, "-o", "json", *extra])
    assert found["code"] == code, found["err"]
    assert found["jsonschema"] is imported


def test_a_file_is_still_validated(tmp_path: Path) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                      "percentageOfNodesToScore: many\n", encoding="utf-8")
    found = _run(["validate", str(config), "-o", "json"])
    assert found["code"] == 1, found  # invalid: the contract's exit 1 of validate
    errors = json.loads(found["out"])["errors"]
    assert [(e["field"], e["message"]) for e in errors] == [
        ("percentageOfNodesToScore", 'Invalid value: "many": must be an integer')]
    assert found["jsonschema"]


@pytest.mark.parametrize("flags,imported", [([], False), (["--cordon", "node-a1"], True)], ids=["no what-if", "--cordon"])
def test_the_cluster_edits_are_imported_only_for_a_what_if(flags: list[str], imported: bool) -> None:
    found = _run(["explain", "--cluster", CLUSTER, POD, "-o", "json", *flags])
    assert found["code"] in (0, 1), found["err"]
    assert found["edits"] is imported


def test_a_run_without_extenders_does_not_import_http() -> None:
    found = _run(["explain", "--cluster", CLUSTER, POD, "-o", "json"])
    assert found["code"] == 0, found["err"]
    assert not found["http"]
