"""``--validate=strict|warn|ignore`` end to end: kubectl's flag on every command that reads objects.

A misspelled field used to be dropped without a word, and the answer was about another pod
(``spec.nodeselector`` explained as if the pod had no node selector: Scheduled, exit 0).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kschedctl.inputs.fields import Validation, current_validation
from tests.cli.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = str(ROOT / "fixtures" / "cluster")
STRICT = ROOT / "tests" / "inputs" / "files" / "strict"
BAD_POD = str(STRICT / "pod-nodeselector.yaml")
ERROR = (f'error: {BAD_POD}:7: strict decoding error: unknown field "spec.nodeselector" '
         '(did you mean "nodeSelector"?)\n')
WARNING = "warning: " + ERROR[len("error: "):]

#: Every command that reads pod or workload files, with the arguments it needs besides them.
COMMANDS = {
    "explain": ["explain", BAD_POD, "--cluster", CLUSTER],
    "simulate": ["simulate", BAD_POD, "--cluster", CLUSTER],
    "capacity": ["capacity", BAD_POD, "--cluster", CLUSTER, "--max", "3"],
    "diff": ["diff", "--profile", "default-scheduler", "--profile", "default-scheduler", BAD_POD,
             "--cluster", CLUSTER],
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("flag", [[], ["--validate=strict"], ["--validate", "true"]])
def test_strict_refuses_the_file(command: str, flag: list[str]) -> None:
    result = run_cli(*COMMANDS[command], *flag, "-o", "json")
    assert result.exit_code == 2
    assert result.stderr == ERROR
    assert result.stdout == ""


@pytest.mark.parametrize("command", COMMANDS)
def test_warn_says_so_and_goes_on(command: str) -> None:
    result = run_cli(*COMMANDS[command], "--validate=warn", "-o", "json")
    assert result.exit_code in (0, 1), result.stderr
    assert WARNING in result.stderr.splitlines(keepends=True)
    assert result.stdout


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("value", ["ignore", "false"])
def test_ignore_is_silent(command: str, value: str) -> None:
    result = run_cli(*COMMANDS[command], f"--validate={value}", "-o", "json")
    assert result.exit_code in (0, 1), result.stderr
    assert "nodeselector" not in result.stderr


def test_quiet_silences_the_warning() -> None:
    result = run_cli(*COMMANDS["explain"], "--validate=warn", "--quiet")
    assert result.exit_code == 0 and result.stderr == ""


def test_a_cluster_file_is_checked_too(tmp_path: Path) -> None:
    cluster = tmp_path / "nodes.yaml"
    cluster.write_text("apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nspec:\n  taint:\n  - {key: a, effect: "
                       "NoSchedule}\nstatus:\n  allocatable: {cpu: '4', memory: 8Gi, pods: '110'}\n", encoding="utf-8")
    pod = str(ROOT / "fixtures" / "pods" / "pod.yaml")
    result = run_cli("explain", pod, "--cluster", str(cluster))
    assert result.exit_code == 2
    assert result.stderr == (f'error: {cluster}:6: strict decoding error: unknown field "spec.taint" '
                             '(did you mean "taints"?)\n')


def test_stdin(tmp_path: Path) -> None:
    text = Path(BAD_POD).read_text(encoding="utf-8")
    result = run_cli("explain", "-", "--cluster", CLUSTER, stdin=text)
    assert result.exit_code == 2
    assert result.stderr.startswith('error: <stdin>:7: strict decoding error: unknown field "spec.nodeselector"')


def test_a_bad_value_is_a_usage_error() -> None:
    result = run_cli(*COMMANDS["explain"], "--validate=maybe")
    assert result.exit_code == 2
    assert result.stderr == ('error: invalid --validate option "maybe": must be one of: strict (or true), warn, '
                             "ignore (or false)\n")


def test_the_setting_ends_with_the_command() -> None:
    run_cli(*COMMANDS["explain"], "--validate=ignore")
    assert current_validation().mode is Validation.strict


# ----------------------------------------------------------------------------- kschedctl test


def _scenario(tmp_path: Path, pods: str) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(f"""apiVersion: kschedctl/v1
kind: Scenario
name: typo
cluster: {CLUSTER}
pods:
{pods}
expect:
- outcome: Scheduled
""", encoding="utf-8")
    return path


INLINE = """- apiVersion: v1
  kind: Pod
  metadata: {name: inline}
  spec:
    containers: [{name: c, image: x}]
    nodeselector: {disktype: ssd}"""


@pytest.mark.parametrize("pods, where", [
    (f"- {BAD_POD}", f"{BAD_POD}:7"),
    (INLINE, "{scenario}:11"),  # an inline pod: the scenario file's own line
])
def test_the_test_command(tmp_path: Path, pods: str, where: str) -> None:
    path = _scenario(tmp_path, pods)
    where = where.format(scenario=path)
    result = run_cli("test", "--allow-outside-paths", str(path))
    assert result.exit_code == 2, result.stdout
    assert (f'{where}: strict decoding error: unknown field "spec.nodeselector" (did you mean "nodeSelector"?)'
            in result.stdout)
    warned = run_cli("test", "--allow-outside-paths", str(path), "--validate=warn")
    assert warned.exit_code == 0, warned.stdout
    assert warned.stderr == (f'warning: {where}: strict decoding error: unknown field "spec.nodeselector" '
                             '(did you mean "nodeSelector"?)\n')
    ignored = run_cli("test", "--allow-outside-paths", str(path), "--validate=ignore")
    assert ignored.exit_code == 0 and ignored.stderr == ""


# ----------------------------------------------------------------------------- kschedctl sweep


def test_the_sweep_command(tmp_path: Path) -> None:
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(f"""apiVersion: kschedctl/v1
kind: Sweep
name: typo
configs: [{{name: default}}]
clusters: [{{name: bundled, files: {CLUSTER}}}]
workloads: [{BAD_POD}]
""", encoding="utf-8")
    # The files are outside the working directory's repository: allowed, as test's are above.
    result = run_cli("sweep", str(sweep), "-j", "1", "-o", "json", "--allow-outside-paths")
    assert result.exit_code == 1
    assert 'strict decoding error: unknown field \\"spec.nodeselector\\"' in result.stdout
    warned = run_cli("sweep", str(sweep), "-j", "1", "-o", "json", "--validate=warn", "--allow-outside-paths")
    assert warned.exit_code == 0, warned.stdout
    assert warned.stderr == WARNING


def test_a_warning_is_said_once_when_the_file_is_read_again_for_a_hint(tmp_path: Path) -> None:
    # A --cluster file without Nodes is read again to name its kinds in a hint.
    cluster = tmp_path / "pods.yaml"
    cluster.write_text(Path(BAD_POD).read_text(encoding="utf-8"), encoding="utf-8")
    pod = str(ROOT / "fixtures" / "pods" / "pod.yaml")
    result = run_cli("explain", pod, "--cluster", str(cluster), "--validate=warn")
    assert result.stderr.count("strict decoding error") == 1, result.stderr
    assert "no Node in the cluster state" in result.stderr
