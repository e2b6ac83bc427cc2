"""Options shared by the commands, spelled once so every command spells them the same way."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer


class OutputFormat(str, Enum):
    table = "table"
    json = "json"
    yaml = "yaml"
    wide = "wide"  # the table with --wide, as kubectl's -o wide
    name = "name"  # kind/name per line, as kubectl's -o name


#: The formats of a command whose answer is not a list of objects: no ``-o name`` in its help.
TableOutputFormat = Enum("TableOutputFormat", {f.name: f.value for f in OutputFormat if f is not OutputFormat.name},
                         type=str)


def resolve_output(output: Enum, wide: bool, command: str, names: bool = True) -> tuple[OutputFormat, bool]:
    """``-o wide`` is the table with ``--wide``; ``-o name`` only where a command has names to list."""
    output = OutputFormat(output.value)
    if output is OutputFormat.wide:
        return OutputFormat.table, True
    if output is OutputFormat.name and not names:
        from kschedctl.errors import UsageError

        raise UsageError(f"{command} has no -o name (its answer is not a list of objects): "
                         "use -o table, wide, json or yaml")
    return output, wide


ConfigOption = Annotated[
    Optional[Path],
    typer.Option("--config", "-c", help="KubeSchedulerConfiguration file (default: the built-in default profile).",
                 dir_okay=False, metavar="FILE"),
]
ClusterOption = Annotated[
    Optional[list[str]],
    typer.Option("--cluster", metavar="PATH", help="Cluster state: a YAML/JSON file or a directory (repeatable). "
                 "Without it, the live cluster of the current kubeconfig is read."),
]
KubeconfigOption = Annotated[
    Optional[Path], typer.Option("--kubeconfig", metavar="FILE", help="Path to the kubeconfig file for a live cluster.")
]
ContextOption = Annotated[Optional[str], typer.Option("--context", metavar="NAME", help="The kubeconfig context to use.")]
ProfileOption = Annotated[
    Optional[str],
    typer.Option("--profile", metavar="NAME", help="Scheduler name of the profile to use "
                 "(default: the pod's spec.schedulerName, else default-scheduler)."),
]
OutputOption = Annotated[
    OutputFormat, typer.Option("--output", "-o", help="Output format.", case_sensitive=False)
]
TableOutputOption = Annotated[
    TableOutputFormat, typer.Option("--output", "-o", help="Output format.", case_sensitive=False)
]
SeedOption = Annotated[
    Optional[int], typer.Option("--seed", metavar="N", help="Seed for the random tie-break among equal top scores.")
]
class TieBreak(str, Enum):
    random = "random"
    first = "first"


TieBreakOption = Annotated[
    TieBreak, typer.Option("--tie-break", help="Among equal top scores: a random node, as upstream (reproducible "
                           "with --seed), or the first node in the scheduler's visit order (what the upstream "
                           "oracle of the differential tests takes, so runs compare pod by pod).")
]
AllFiltersOption = Annotated[
    bool, typer.Option("--all-filters", help="Run every filter on every node instead of stopping at the first "
                       "failing one (upstream stops).")
]
PluginOption = Annotated[
    Optional[list[str]],
    typer.Option("--plugin", metavar="MODULE:ATTR", help="Load a custom Python plugin, MODULE:ATTR or path/to/file.py:ATTR (repeatable)."),
]
NoExtendersOption = Annotated[bool, typer.Option(
    "--no-extenders", help="Do not call the configuration's extenders (they are called over HTTP(S) by default, "
                           "as kube-scheduler calls them).")]
# test and sweep read files that other files name (often from a pull request): their trust flags.
AllowOutsidePathsOption = Annotated[bool, typer.Option(
    "--allow-outside-paths", help="Let the files read name files outside the scenario root (the git repository "
                                  "of the working directory, or else the working directory).")]
AllowExtendersOption = Annotated[bool, typer.Option(
    "--allow-extenders", help="Call the extenders that the configurations declare (not called by default: a file "
                              "from a pull request could make the runner send requests anywhere).")]
AllowExtenderURLOption = Annotated[Optional[list[str]], typer.Option(
    "--allow-extender-url", metavar="URL",
    help="Call only the extenders whose urlPrefix has this URL's scheme, host and port, and a path under its "
         "path (repeatable).")]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars or warnings on stderr.")]
WidthOption = Annotated[Optional[int], typer.Option(
    "--width", min=20, metavar="N", help="Width of the table output in columns (default: the terminal's; when the output "
                            "is not a terminal, COLUMNS, else the width of the terminal on stderr, else the width "
                            "the content needs). Tables never break a word: too wide, they continue below.")]
FilenameOption = Annotated[Optional[list[str]], typer.Option(
    "--filename", "-f", metavar="FILE", help="Pod or workload file, as kubectl's -f (repeatable; - for stdin); "
                                            "the same as giving it as an argument.")]
MetricsOption = Annotated[Optional[Path], typer.Option(
    "--metrics", metavar="FILE", dir_okay=False,
    help="Measured node load for the Trimaran plugins: the load watcher's JSON answer (curl its /watcher).")]
ValidateOption = Annotated[str, typer.Option(
    "--validate", metavar="strict|warn|ignore",
    help="Fields the object's v1.34 type does not have (a misspelled spec.nodeselector), as kubectl: strict "
         "(or true) stops with an error, warn warns and goes on, ignore (or false) does not check.")]
RequestTimeoutOption = Annotated[Optional[str], typer.Option(
    "--request-timeout", metavar="DURATION", help="How long to wait for one API server request of a live read, "
                                                  "as kubectl's (1s, 2m; 0 or a plain number of seconds).")]

ReportOption = Annotated[Optional[str], typer.Option(
    "--report", metavar="FILE.html", help="Also write the answer as one self-contained HTML page with charts "
                                          "(opens offline in any browser); the output above is unchanged.")]


def request_timeout_seconds(value: Optional[str]) -> Optional[float]:
    """``--request-timeout`` in seconds (None: the default); UsageError if it is not a duration."""
    if value is None:
        return None
    from kschedctl.errors import UsageError

    text = value.strip()
    try:
        if text.replace(".", "", 1).isdigit():
            seconds = float(text)
        else:
            from kschedctl.k8s.duration import parse_go_duration

            seconds = parse_go_duration(text)
    except ValueError:
        raise UsageError(f"--request-timeout {value}: not a duration (for example 30s, 2m)") from None
    if seconds < 0:
        raise UsageError(f"--request-timeout {value}: must not be negative")
    return seconds or None
