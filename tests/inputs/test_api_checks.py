"""The API server's checks on objects read from files (kinds it serves, container resource names,
requests at most limits): bad input naming file and line, with a did-you-mean where a name is close;
``--validate=warn`` warns instead, ``ignore`` does not check."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import yaml

from kschedctl.errors import InputError
from kschedctl.inputs.api_checks import pod_files
from kschedctl.inputs.fields import field_validation
from kschedctl.inputs.loader import load_documents
from tests.cli.helpers import run_cli

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
CASES = yaml.safe_load((HERE / "cases" / "api_checks.yaml").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", [pytest.param(c, id=c["name"]) for c in CASES])
def test_api_server_checks(case: dict, tmp_path: Path) -> None:
    path = tmp_path / "obj.yaml"
    path.write_text(case["text"], encoding="utf-8")
    with pod_files(), field_validation("strict") as setting:
        if "error" not in case:
            load_documents([str(path)])
            want = case.get("warning")
            assert setting.warnings == ([] if want is None else [f"{path}:{want['line']}: {want['message']}"])
            return
        with pytest.raises(InputError) as err:
            load_documents([str(path)])
    assert err.value.file == str(path) and err.value.line == case["error"]["line"]
    assert err.value.message == case["error"]["message"]


def test_through_the_cli_warn_and_ignore(tmp_path: Path) -> None:
    pod = tmp_path / "pod.yaml"
    pod.write_text(next(c for c in CASES if c["name"] == "a misspelled resource name")["text"], encoding="utf-8")
    cluster = str(ROOT / "fixtures" / "cluster")
    strict = run_cli("explain", str(pod), "--cluster", cluster)
    assert strict.exit_code == 2
    assert strict.stderr.startswith(f"error: {pod}:9: Pod \"p\" is invalid: ") and strict.stderr.count("\n") == 1
    assert '(did you mean "memory"?)' in strict.stderr
    warned = run_cli("explain", str(pod), "--cluster", cluster, "--validate=warn")
    assert warned.exit_code == 0 and f"warning: {pod}:9: Pod \"p\" is invalid" in warned.stderr
    assert run_cli("explain", str(pod), "--cluster", cluster, "--validate=ignore").stderr == ""


def test_the_projects_own_objects_pass() -> None:
    with field_validation("strict"):
        load_documents([str(ROOT / "fixtures")])
        with pod_files():
            load_documents([str(ROOT / "fixtures" / "pods"), str(ROOT / "examples")])


def test_a_clusters_pods_are_not_held_to_admission(tmp_path: Path) -> None:
    """A cluster file's pods were admitted by its API server (or generated for a test): only pod
    files, what one would kubectl apply, have their resources checked; kinds are checked in both."""
    path = tmp_path / "cluster.yaml"
    path.write_text(next(c for c in CASES if c["name"] == "an extended resource over its limit")["text"],
                    encoding="utf-8")
    load_documents([str(path)])
    result = run_cli("explain", str(ROOT / "fixtures/pods/pod.yaml"), "--cluster", str(path))
    assert result.exit_code in (0, 1), result.stderr
    assert run_cli("explain", str(path), "--cluster", str(ROOT / "fixtures/cluster")).exit_code == 2


def test_the_served_kinds_are_what_v1_34_serves() -> None:
    spec = importlib.util.spec_from_file_location("field_schema", ROOT / "tools" / "field_schema.py")
    generator = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(generator)
    kubernetes, _ = generator.default_sources()
    if not (kubernetes / "api" / "openapi-spec" / "v3").is_dir():
        pytest.skip(f"the Kubernetes sources are not in the Go module cache ({kubernetes})")
    shipped = (ROOT / "kschedctl" / "inputs" / "schema" / "served.json").read_text(encoding="utf-8")
    assert generator.dumps_served(generator.build_served(kubernetes)) == shipped, "run python tools/field_schema.py"
