"""Strict field checking (kschedctl.inputs.fields): kube-apiserver's strict decoding, offline.

The cases are tests/inputs/cases/fields.yaml (files under tests/inputs/files/strict/): the same
file under strict (one error), warn (warnings, the load goes on) and ignore (nothing). Then the
did-you-mean, kubectl's spellings of --validate, the data file's sources and coverage, and the
project's own YAML, which must load under strict.
"""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path

import pytest
import yaml

from kschedctl.errors import InputError
from kschedctl.inputs import fields
from kschedctl.inputs.kinds import KINDS
from kschedctl.inputs.fields import Validation, field_validation, parse_validation, unknown_fields
from kschedctl.inputs.loader import load_documents
from kschedctl.inputs.workloads import WORKLOAD_KINDS

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FILES = HERE / "files"
CASES = yaml.safe_load((HERE / "cases" / "fields.yaml").read_text(encoding="utf-8"))["cases"]


def _load(path: str, mode: str) -> list[str]:
    with field_validation(mode) as setting:
        load_documents([path])
    return setting.warnings


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_strict(case: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FILES)
    if "error" not in case:
        _load(case["file"], "strict")
        return
    with pytest.raises(InputError) as info:
        _load(case["file"], "strict")
    assert str(info.value) == case["error"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_warn(case: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FILES)
    expected = case.get("warnings", [case["error"]] if "error" in case else [])
    assert _load(case["file"], "warn") == expected


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_ignore(case: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FILES)
    assert _load(case["file"], "ignore") == []


def test_strict_is_the_default() -> None:
    with pytest.raises(InputError, match='unknown field "spec.nodeselector"'):
        load_documents([str(FILES / "strict" / "pod-nodeselector.yaml")])


def test_stdin_gives_the_line_too() -> None:
    text = (FILES / "strict" / "toleration-operater.yaml").read_text(encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_documents(["-"], stdin=io.StringIO(text))
    assert str(info.value).startswith('<stdin>:14: strict decoding error: unknown field "spec.tolerations[1].operater"')


def test_the_objects_are_unchanged() -> None:
    with field_validation("warn"):
        docs = load_documents([str(FILES / "strict" / "pod-nodeselector.yaml")])
    assert docs[0].obj["spec"]["nodeselector"] == {"disktype": "ssd"}


@pytest.mark.parametrize("name, siblings, expected", [
    ("nodeselector", ["nodeName", "nodeSelector"], "nodeSelector"),  # the same letters first
    ("NODESELECTOR", ["nodeName", "nodeSelector"], "nodeSelector"),
    ("resoures", ["resizePolicy", "resources", "restartPolicy"], "resources"),
    ("operater", ["effect", "key", "operator", "tolerationSeconds", "value"], "operator"),
    ("storageClass", ["storageClassName", "volumeMode"], "storageClassName"),
    ("colour", ["image", "name", "resources"], None),  # nothing close: no guess
])
def test_did_you_mean(name: str, siblings: list[str], expected: str | None) -> None:
    assert fields.suggest(name, siblings) == expected


@pytest.mark.parametrize("value, expected", [
    ("strict", Validation.strict), ("warn", Validation.warn), ("ignore", Validation.ignore),
    ("true", Validation.strict), ("True", Validation.strict), ("1", Validation.strict),
    ("false", Validation.ignore), ("FALSE", Validation.ignore), ("0", Validation.ignore),
])
def test_kubectl_spellings(value: str, expected: Validation) -> None:
    assert parse_validation(value) is expected


@pytest.mark.parametrize("value", ["", "Strict", "yes", "off", "strictly"])
def test_other_spellings_are_refused(value: str) -> None:
    with pytest.raises(ValueError, match=r"must be one of: strict \(or true\), warn, ignore \(or false\)"):
        parse_validation(value)


@pytest.mark.parametrize("obj, expected", [
    # A kind or version the data does not describe is not checked (its reader decides).
    ({"apiVersion": "v1", "kind": "ConfigMap", "data": {}, "whatever": 1}, []),
    ({"apiVersion": "resource.k8s.io/v1alpha3", "kind": "ResourceClaim", "spec": {"x": 1}}, []),
    # Map keys are data, not fields; list items and map values of objects are checked.
    ({"apiVersion": "v1", "kind": "Node", "metadata": {"labels": {"anything": "x"}}}, []),
    ({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
      "spec": {"devices": [{"name": "d", "capacity": {"memory": {"value": "1Gi", "valu": 1}}}]}},
     ["spec.devices[0].capacity.memory.valu"]),
    # The scheduler-plugins' older group name reads the same objects.
    ({"apiVersion": "scheduling.sigs.k8s.io/v1alpha1", "kind": "PodGroup", "spec": {"minMembers": 1}},
     ["spec.minMembers"]),
    # Values of the wrong type are for the readers to refuse, not reported as fields.
    ({"apiVersion": "v1", "kind": "Pod", "spec": {"containers": "not a list", "tolerations": [None, 3]}}, []),
])
def test_unknown_fields(obj: dict, expected: list[str]) -> None:
    assert [u.dotted for u in unknown_fields(obj)] == expected


def test_every_kind_kschedctl_reads_has_its_fields() -> None:
    described = {key.rsplit("/", 2)[0] + "/" + key.rsplit("/", 1)[-1] for key in fields._schema().kinds}
    described_kinds = {key.rsplit("/", 1)[-1] for key in fields._schema().kinds}
    wanted = {k.kind for k in KINDS} | set(WORKLOAD_KINDS)
    assert wanted <= described_kinds
    # Every group kschedctl accepts a kind from, except the long-gone extensions/v1beta1.
    for kind in KINDS:
        for group in kind.groups:
            if group == "extensions":
                continue
            assert any(k.endswith("/" + kind.kind) and (k.startswith(group + "/") if group else k.count("/") == 1)
                       for k in fields._schema().kinds), (kind.kind, group)
    assert described


def test_the_data_is_v1_34s() -> None:
    source = fields.schema_source()
    assert "k8s.io/kubernetes v1.34." in source["kubernetes"]
    assert "sigs.k8s.io/scheduler-plugins v0.34." in source["scheduler-plugins"]


def _generator():
    spec = importlib.util.spec_from_file_location("field_schema", ROOT / "tools" / "field_schema.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def test_the_shipped_data_is_what_the_sources_give() -> None:
    generator = _generator()
    kubernetes, scheduler_plugins = generator.default_sources()
    if not (kubernetes / "api" / "openapi-spec" / "v3").is_dir() or not scheduler_plugins.is_dir():
        pytest.skip(f"the sources are not in the Go module cache ({kubernetes}, {scheduler_plugins})")
    shipped = (ROOT / "kschedctl" / "inputs" / "schema" / "fields.json").read_text(encoding="utf-8")
    assert generator.dumps(generator.build(kubernetes, scheduler_plugins)) == shipped, \
        "run python tools/field_schema.py"


def _project_files() -> list[Path]:
    out = []
    for top in ("fixtures", "profiles", "examples", "tests", "docs"):
        for path in sorted((ROOT / top).rglob("*")):
            if path.suffix in (".yaml", ".yml", ".json") and path.is_file() \
                    and FILES / "strict" not in path.parents:
                out.append(path)
    return out


def test_the_projects_own_files_load_under_strict() -> None:
    """Every Kubernetes object in the repository's YAML and JSON has only v1.34's fields
    (the files meant to be bad are refused for other reasons, never for a stray field)."""
    strays = []
    for path in _project_files():
        with field_validation("warn") as setting:
            try:
                load_documents([str(path)])
            except InputError:
                pass
        strays.extend(setting.warnings)
    assert strays == []


def test_the_inline_pods_of_scenarios_load_under_strict() -> None:
    from kschedctl.scenarios.files import load_scenarios
    from kschedctl.scenarios.model import InlinePod

    strays = []
    for top in ("profiles", "tests", "examples", "docs"):
        for path in sorted((ROOT / top).rglob("*.yaml")):
            if "kind: Scenario" not in path.read_text(encoding="utf-8", errors="replace"):
                continue
            try:
                scenarios = load_scenarios([str(path)])
            except Exception:  # files meant to be bad: their tests say why
                continue
            for scenario in scenarios:
                strays.extend(u.message() for pod in scenario.pods if isinstance(pod, InlinePod)
                              for u in unknown_fields(pod.obj))
    assert strays == []
