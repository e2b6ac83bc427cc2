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
SeedOption = Annotated[
    Optional[int], typer.Option("--seed", metavar="N", help="Seed for the random tie-break among equal top scores.")
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
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars or warnings on stderr.")]
WidthOption = Annotated[Optional[int], typer.Option(
    "--width", min=20, metavar="N", help="Width of the table output in columns (default: the terminal's; when the output "
                            "is not a terminal, COLUMNS or the width the content needs).")]
FilenameOption = Annotated[Optional[list[str]], typer.Option(
    "--filename", "-f", metavar="FILE", help="Pod or workload file, as kubectl's -f (repeatable; - for stdin); "
                                            "the same as giving it as an argument.")]
