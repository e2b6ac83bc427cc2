"""Bad input through every command that reads files: one line naming the file, exit 2, no traceback.

The inputs' own tests check each case's message and line; here every hostile file goes through
the real CLI in each role a file can play (pod to explain, cluster state, configuration).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
BAD_FILES = sorted((ROOT / "tests" / "inputs" / "files" / "bad").iterdir())
CLUSTER = str(ROOT / "fixtures" / "cluster")
POD = str(ROOT / "fixtures" / "pods" / "pod.yaml")

#: Made here: what the bundled bad files do not cover.
GENERATED = {
    "empty.yaml": "",
    "only-comments.yaml": "# nothing here\n",
    "wrong-kind.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
    "absurd-quantity.yaml": (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
        "    resources: {requests: {cpu: 99999999999999999999999999}}\n"
    ),
    "bad-quantity.yaml": (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
        "    resources: {requests: {memory: 12 parsecs}}\n"
    ),
    "deeply-nested.yaml": "a: " + "[" * 5000 + "]" * 5000 + "\n",
    "huge-integer.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {priority: " + "9" * 5000 + "}\n",
}


def _cases(tmp_dir: Path) -> list[Path]:
    made = []
    for name, text in GENERATED.items():
        path = tmp_dir / name
        path.write_text(text, encoding="utf-8")
        made.append(path)
    return BAD_FILES + made


@pytest.fixture(scope="module")
def bad_files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return _cases(tmp_path_factory.mktemp("bad"))


ROLES = {
    "pod": lambda f: ("explain", str(f), "--cluster", CLUSTER),
    "cluster": lambda f: ("explain", POD, "--cluster", str(f)),
    "config": lambda f: ("explain", POD, "--cluster", CLUSTER, "--config", str(f)),
    "validate": lambda f: ("validate", str(f)),
    "simulate": lambda f: ("simulate", str(f), "--cluster", CLUSTER),
}


@pytest.mark.parametrize("role", sorted(ROLES))
def test_every_bad_file_is_one_line_exit_2(role: str, bad_files: list[Path]) -> None:
    failures = []
    for path in bad_files:
        if role == "cluster" and path.name in ("wrong-kind.yaml",):
            continue  # a cluster may hold kinds the scheduler ignores: reported, not an error
        result = run_cli(*ROLES[role](path))
        lines = result.stderr.strip().splitlines()
        if (result.exit_code != 2 or "Traceback" in result.stderr or len(lines) != 1
                or path.name not in lines[0]):
            failures.append(f"{path.name}: exit {result.exit_code}, stderr {result.stderr!r}")
    assert not failures, "\n".join(failures)


def test_missing_file_is_named() -> None:
    result = run_cli("explain", str(ROOT / "no-such-pod.yaml"), "--cluster", CLUSTER)
    assert result.exit_code == 2
    assert "no-such-pod.yaml" in result.stderr and "Traceback" not in result.stderr


#: Field types of the wrong kind, each one line naming file, line and field (exit 2), where they
#: were once a traceback (exit 1). Replica counts: tests/test_limits.py.
WRONG_TYPES = [
    ("pod-requests-list.yaml", "pod",
     "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
     "    resources: {requests: [], limits: {cpu: 1}}\n",
     ":7: Pod default/p: spec.containers[0].resources.requests must be a mapping, not a list"),
    ("pod-level-requests-list.yaml", "pod",
     "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  resources: {requests: [], limits: {cpu: 1}}\n"
     "  containers: [{name: c}]\n",
     ":5: Pod default/p: spec.resources.requests must be a mapping, not a list"),
    ("deployment-labels-string.yaml", "pod",
     "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  selector: {matchLabels: {a: b}}\n"
     "  template:\n    metadata: {labels: \"s\"}\n    spec: {containers: [{name: c}]}\n",
     ':7: Deployment d: spec.template.metadata.labels must be a mapping, not "s"'),
    ("statefulset-name-number.yaml", "pod",
     "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: -1}\nspec:\n  selector: {matchLabels: {a: b}}\n"
     "  template:\n    metadata: {labels: {a: b}}\n    spec: {containers: [{name: c}]}\n",
     ":3: StatefulSet: metadata.name must be a string, not -1"),
    ("job-parallelism-negative.yaml", "simulate",
     "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  parallelism: -3\n"
     "  template: {spec: {containers: [{name: c}]}}\n",
     ":5: Job j: spec.parallelism: Invalid value: -3: must be greater than or equal to 0"),
    ("config-apiversion-list.yaml", "validate",
     "apiVersion: []\nkind: KubeSchedulerConfiguration\n", ":1: apiVersion must be a string, not []"),
    ("config-kind-mapping.yaml", "config",
     "apiVersion: kubescheduler.config.k8s.io/v1\nkind: {a: 1}\n", ':2: kind must be a string, not {"a":1}'),
]


@pytest.mark.parametrize("name,role,text,message", WRONG_TYPES, ids=[c[0] for c in WRONG_TYPES])
def test_wrong_field_types_are_one_line(tmp_path: Path, name: str, role: str, text: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = run_cli(*ROLES[role](path))
    assert result.exit_code == 2, result.stderr
    assert result.stderr == f"error: {path}{message}\n"


UNKNOWN_PLUGIN = ("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
                  "- plugins:\n    filter:\n      enabled:\n      - name: MyFilter\n")


@pytest.mark.parametrize("command", ["explain", "simulate", "capacity"])
def test_a_configuration_naming_an_unknown_plugin_is_refused(tmp_path: Path, command: str) -> None:
    config = tmp_path / "unknown-plugin.yaml"
    config.write_text(UNKNOWN_PLUGIN, encoding="utf-8")
    result = run_cli(command, POD, "--cluster", CLUSTER, "--config", str(config))
    assert result.exit_code == 2
    assert result.stderr == (f"error: {config}:7: invalid scheduler configuration: profiles[0].plugins.filter."
                             'enabled[0]: Unsupported value: "MyFilter": no plugin of that name is registered\n')
