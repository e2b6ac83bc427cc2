"""Text from inputs never drives a CI log or a terminal (issue 31, item 4).

Every command runs on files a pull request could have written: names, keys, values and file
names holding a line break followed by a GitHub workflow command, an OSC 8 hyperlink, an SGR
colour, a carriage return and a C1 NEL. Whatever the command answers, no line it prints on
stdout or stderr may begin with ``::`` (the runner would execute it) unless it is one of
``-o github``'s own annotations, no line may hold ``##[`` anywhere (the runner's older syntax,
issue 43), and no ESC, BEL, CR or NEL from the inputs may be printed.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cli.helpers import CliResult, run_cli

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = str(ROOT / "fixtures" / "cluster")
POD = str(ROOT / "fixtures" / "pods" / "pod.yaml")
PROFILE = str(ROOT / "profiles" / "bin-packing.yaml")

HOSTILE = ("\n::warning::x \x1b]8;;http://x\x07link\x1b]8;;\x07 \x1b[31mred\r::error::cr\x85::notice::nel"
           " ##[set-output name=verdict;]all-green ##[stop-commands]zz")
#: The same, fit for a file name (no slash).
HOSTILE_NAME = HOSTILE.replace("/", "_")
#: What no output may carry: the control characters of HOSTILE.
_RAW = ("\x1b", "\x07", "\r", "\x85")
#: A genuine annotation of -o github: its data is escaped, so it is one line with no control character.
_ANNOTATION = re.compile(r"::(error|warning|notice)( [^:]*)?::[^\n]*")


def _node(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"zone": "z1"}},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def _pod(name: str, cpu: str = "100m", **extra: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "annotations": {"note": HOSTILE}},
            "spec": {"containers": [{"name": "c", "image": "busybox", "resources": {"requests": {"cpu": cpu}}}],
                     **extra}}


def _write(path: Path, *docs: Any) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False), encoding="utf-8")
    return str(path)


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository of hostile files; the working directory for the run."""
    (tmp_path / ".git").mkdir()
    _write(tmp_path / "cluster" / "nodes.yaml", _node("node-a"), _node("node-b"))
    _write(tmp_path / "pods" / "pod.yaml", _pod("p1", nodeSelector={"zone": "z1"}))
    _write(tmp_path / "pods" / "big.yaml", _pod("big", cpu="64"))
    _write(tmp_path / "pods" / f"{HOSTILE_NAME}.yaml", _pod("p2"))
    _write(tmp_path / "pods" / "unknown-keys.yaml", {**_pod("p3"), HOSTILE: 1})
    _write(tmp_path / "pods" / "bad-quantity.yaml", _pod("p4", cpu=HOSTILE))
    scenario = {"apiVersion": "kschedctl/v1", "kind": "Scenario", "name": f"hostile{HOSTILE}",
                "cluster": ["../cluster"], "pods": ["../pods/pod.yaml", "../pods/big.yaml"],
                "expect": [{"pod": "default/p1", "outcome": "Scheduled", "node": f"node-a{HOSTILE}"},
                           {"pod": "default/p1", "messageContains": HOSTILE},
                           {"pod": "default/p1", "nodeIn": [HOSTILE]},
                           {"pod": "default/big", "outcome": "Scheduled"},
                           {"pod": f"default/missing{HOSTILE}", "outcome": "Scheduled"}]}
    _write(tmp_path / "scenarios" / "s.yaml", scenario)
    _write(tmp_path / "scenarios" / f"{HOSTILE_NAME}.yaml", {**scenario, "name": "named file"})
    _write(tmp_path / "broken" / "s.yaml", {**scenario, HOSTILE: 1})
    _write(tmp_path / "broken" / f"{HOSTILE_NAME}.yaml", {**scenario, "expect": [{"pod": "x", HOSTILE: 1}]})
    (tmp_path / "broken" / "snippet.yaml").write_text(f"apiVersion: kschedctl/v1\nkind: Scenario\nname: [{HOSTILE!r}\n",
                                                       encoding="utf-8")
    config = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
              "profiles": [{"schedulerName": f"s{HOSTILE}",
                            "plugins": {"score": {"enabled": [{"name": f"NoSuch{HOSTILE}"}]}}}], HOSTILE: 1}
    _write(tmp_path / "config" / "bad.yaml", config)
    _write(tmp_path / "config" / f"{HOSTILE_NAME}.yaml", {**config, "profiles": [{"schedulerName": "x"}]})
    # Sweep names may hold anything but ",=[]"; "$...$" is what matplotlib would read as mathtext.
    sweep_name = HOSTILE.replace("[", "(").replace("]", ")").replace("=", "-")
    sweep = {"apiVersion": "kschedctl/v1", "kind": "Sweep", "name": f"sweep{sweep_name} $x^{{$",
             "configs": [{"name": f"conf{sweep_name}$\\frac{{$", "file": "../config/bin-packing.yaml"},
                         {"name": "default"}],
             "clusters": [{"name": f"cl{sweep_name}", "files": "../cluster"}],
             "workloads": ["../pods/pod.yaml", "../pods/big.yaml"]}
    # sweep reads only files inside the repository (its trust boundary)
    (tmp_path / "config" / "bin-packing.yaml").write_text(Path(PROFILE).read_text(encoding="utf-8"), encoding="utf-8")
    _write(tmp_path / "sweeps" / "s.yaml", sweep)
    _write(tmp_path / "sweeps" / "unknown.yaml", {**sweep, HOSTILE: 1})
    monkeypatch.chdir(tmp_path)
    return tmp_path


COMMANDS: dict[str, list[str]] = {
    "explain": ["explain", "--cluster", "cluster", "pods/pod.yaml", "pods/big.yaml"],
    "explain_json": ["explain", "--cluster", "cluster", "pods/pod.yaml", "-o", "json"],
    "explain_yaml": ["explain", "--cluster", "cluster", "pods/pod.yaml", "-o", "yaml"],
    "explain_named_file": ["explain", "--cluster", "cluster", f"pods/{HOSTILE_NAME}.yaml"],
    "explain_missing_file": ["explain", "--cluster", "cluster", f"pods/missing{HOSTILE_NAME}.yaml"],
    "explain_unknown_keys": ["explain", "--cluster", "cluster", "pods/unknown-keys.yaml"],
    "explain_bad_quantity": ["explain", "--cluster", "cluster", "pods/bad-quantity.yaml"],
    "explain_unknown_node": ["explain", "--cluster", "cluster", "pods/pod.yaml", "--node", f"n{HOSTILE}"],
    "simulate": ["simulate", "--cluster", "cluster", "pods/pod.yaml", "pods/big.yaml", f"pods/{HOSTILE_NAME}.yaml"],
    "simulate_yaml": ["simulate", "--cluster", "cluster", "pods/pod.yaml", "pods/big.yaml", "-o", "yaml"],
    "capacity": ["capacity", "--cluster", "cluster", f"pods/{HOSTILE_NAME}.yaml", "--max", "3"],
    "validate": ["validate", "config/bad.yaml", f"config/{HOSTILE_NAME}.yaml"],
    "validate_github": ["validate", "-o", "github", "config/bad.yaml", f"config/{HOSTILE_NAME}.yaml"],
    "defaults": ["defaults", "config/bad.yaml"],
    "defaults_named_file": ["defaults", f"config/{HOSTILE_NAME}.yaml"],
    "test_table": ["test", "scenarios"],
    "test_github": ["test", "-o", "github", "scenarios"],
    "test_yaml": ["test", "-o", "yaml", "scenarios"],
    "test_json": ["test", "-o", "json", "scenarios"],
    "test_broken_table": ["test", "broken"],
    "test_broken_github": ["test", "-o", "github", "broken"],
    "test_broken_yaml": ["test", "-o", "yaml", "broken"],
    "diff": ["diff", "--cluster", "cluster", "-c", PROFILE, "-c", f"config/{HOSTILE_NAME}.yaml", "pods/pod.yaml"],
    "sweep_table": ["sweep", "sweeps/s.yaml", "-j", "1", "--width", "60"],
    "sweep_csv": ["sweep", "sweeps/s.yaml", "-j", "1", "-o", "csv"],
    "sweep_yaml": ["sweep", "sweeps/s.yaml", "-j", "1", "-o", "yaml"],
    "sweep_unknown_key": ["sweep", "sweeps/unknown.yaml"],
    "plugins": ["plugins", "--plugin", f"no_such_module{HOSTILE}:Plugin"],
}


def assert_harmless(result: CliResult, github: bool = False) -> None:
    """No workflow command but -o github's own, no control character from the inputs."""
    assert "Traceback" not in result.stderr, result.stderr
    for name, text in (("stdout", result.stdout), ("stderr", result.stderr)):
        for char in _RAW:
            assert char not in text, f"{name} carries {char!r}: {text!r}"
        for line in text.split("\n"):
            assert "##[" not in line, f"{name}: {line!r}"
            if line.lstrip().startswith("::"):
                assert github and name == "stdout" and _ANNOTATION.fullmatch(line), f"{name}: {line!r}"


@pytest.mark.parametrize("case", sorted(COMMANDS))
def test_no_line_from_the_inputs_is_a_command_or_an_escape(repo: Path, case: str) -> None:
    result = run_cli(*COMMANDS[case])
    assert result.exit_code in (0, 1, 2), (result.exit_code, result.stderr)
    assert_harmless(result, github="github" in case)
    if "--width" not in COMMANDS[case]:  # line breaks are escaped, not merely defused (\x3a:) at a line start
        assert not any(line.lstrip().startswith("\\x3a:") for line in (result.stdout + result.stderr).split("\n"))
    if case not in _NOT_ECHOED:  # the escape sequence is shown, as visible text
        assert any(escape in result.stdout + result.stderr for escape in ("\\x1b", "\\u001b", "\\e")), result


#: Commands whose output does not quote the hostile text (annotations and file names not shown).
_NOT_ECHOED = {"capacity", "explain", "explain_json", "explain_yaml", "explain_named_file", "explain_unknown_keys",
               "simulate", "simulate_yaml"}


@pytest.mark.parametrize("output", ["yaml", "json", "table", "github"])
def test_undecodable_file_name(repo: Path, output: str) -> None:
    # A scenario file whose name is not UTF-8: printed with backslashreplace, the JUnit report written.
    name = os.path.join(os.fsencode(repo / "scenarios"), b"bad\xff\xfe.yaml")
    with open(name, "wb") as fh:
        fh.write((repo / "scenarios" / "s.yaml").read_bytes().replace(b"name: ", b"name: undecodable ", 1))
    junit = repo / "junit.xml"
    result = run_cli("test", "scenarios", "-o", output, "--junit", str(junit))
    assert result.exit_code == 2, result.stderr  # an expectation names a pod that is not there
    assert_harmless(result, github=output == "github")
    # JSON's own escapes keep the name exact; elsewhere the bytes read \xff.
    assert ("bad\\udcff\\udcfe.yaml" if output == "json" else "bad\\xff\\xfe.yaml") in result.stdout
    assert "bad\\xff\\xfe.yaml" in junit.read_text(encoding="utf-8")


def test_undecodable_file_name_of_a_broken_scenario(repo: Path) -> None:
    name = os.path.join(os.fsencode(repo / "broken"), b"bad\xff\xfe.yaml")
    with open(name, "wb") as fh:
        fh.write(b"apiVersion: kschedctl/v1\nkind: Scenario\nname: no expectations\n")
    junit = repo / "junit.xml"
    result = run_cli("test", "broken", "-o", "yaml", "--junit", str(junit))
    assert result.exit_code == 2
    assert_harmless(result)
    assert "bad\\xff\\xfe.yaml" in result.stderr and "bad\\xff\\xfe.yaml" in junit.read_text(encoding="utf-8")


@pytest.mark.parametrize("suffix", [".png", ".svg", ".html"])
def test_plot_labels_are_not_mathtext(repo: Path, suffix: str) -> None:
    pytest.importorskip("matplotlib", reason="matplotlib is not installed (pip install 'kschedctl[plot]')")
    plot = repo / f"sweep{suffix}"
    result = run_cli("sweep", "sweeps/s.yaml", "-j", "1", "-o", "json", "--plot", str(plot))
    assert result.exit_code == 0, result.stderr
    assert_harmless(result)
    assert plot.stat().st_size > 0


def test_a_long_quantity_is_not_echoed_whole(repo: Path) -> None:
    _write(repo / "pods" / "huge.yaml", _pod("huge", cpu="9" * 200_000))
    result = run_cli("explain", "--cluster", "cluster", "pods/huge.yaml")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: pods/huge.yaml:") and "invalid quantity '999" in result.stderr
    assert "…(200,002 characters)" in result.stderr and len(result.stderr) < 1000


@pytest.mark.parametrize("output", ["table", "json", "yaml", "github"])
def test_the_older_command_syntax_is_defused_anywhere_in_a_line(repo: Path, output: str) -> None:
    # Issue 43: the runner acts on "##[" wherever a line holds it, not only at its start.
    scenario = {"apiVersion": "kschedctl/v1", "kind": "Scenario", "name": "##[set-output name=verdict;]all-green",
                "cluster": ["../cluster"], "pods": ["../pods/pod.yaml"],
                "expect": [{"name": "##[stop-commands]zz", "pod": "default/p1", "outcome": "Scheduled"},
                           {"name": "x ##[error]failing", "pod": "default/p1", "outcome": "Unschedulable"}]}
    _write(repo / "old" / "s.yaml", scenario)
    junit = repo / "junit.xml"
    result = run_cli("test", "old", "-o", output, "--junit", str(junit))
    assert result.exit_code == 1, result.stderr
    assert_harmless(result, github=output == "github")
    assert "##[" not in junit.read_text(encoding="utf-8")
    shown = {"json": "##\\u005bset-output", "yaml": "##\\x5bset-output"}.get(output, "##\\x5bset-output")
    assert shown in result.stdout, result.stdout
    if output in ("json", "yaml"):  # machine output reads back as it was
        back = json.loads(result.stdout) if output == "json" else yaml.safe_load(result.stdout)
        assert "##[set-output name=verdict;]all-green" in json.dumps(back)
